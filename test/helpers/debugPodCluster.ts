// The cluster the node debug pod's integration tests run against (debugPodSafety, retainedDebugPod): the API
// simulator with its chroot roots (the probe really runs under /host), a ClusterClient of the admin context
// loaded from a kubeconfig file as the extension loads it, and a namespace of the test's own for its pods.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import type { ExecRequest } from '../../src/core/probe/transport.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { loadKubeconfigs } from '../../src/kube/kubeconfig.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { PodRecord, Simulator } from '../simulator/server.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { fixtureRootsUnavailable } from './fixtureRoot.ts';

/** Why the debug pod tests cannot run here (the simulator's exec needs root for chroot), or undefined. */
export const DEBUG_POD_ROOTS_UNAVAILABLE = fixtureRootsUnavailable() ?? chrootUnavailable();

export interface DebugPodCluster {
  readonly sim: Simulator;
  /** client-node against the simulator, as the admin user */
  readonly admin: ClusterClient;
  readonly namespace: string;
  /** a pod of the namespace as the simulator holds it now */
  pod(name: string): V1Pod | undefined;
  /** the names of the namespace's pods that exist now */
  alive(): string[];
  /** the pods created in the namespace since `mark`, an index into `sim.state.createdPods` */
  createdSince(mark: number): PodRecord[];
  /** disposes the client, stops the simulator, removes the kubeconfig */
  close(): Promise<void>;
}

/** A ClusterClient for `context` (default: the file's first) of a kubeconfig file, loaded by the extension's loader. */
export async function kubeconfigClient(file: string, context?: string): Promise<ClusterClient> {
  const loaded = await loadKubeconfigs({ env: {}, explicitPath: file });
  const found = context === undefined ? loaded.contexts[0] : loaded.contexts.find((c) => c.name === context);
  assert.ok(found, `context ${context ?? '(first)'} in ${file}: ${loaded.contexts.map((c) => c.name).join(', ')}`);
  return new ClusterClient(found);
}

export async function startDebugPodCluster(namespace: string): Promise<DebugPodCluster> {
  const sim = await startSimulator({ fixtures: loadFixtures(), roots: true });
  const dir = mkdtempSync(join(tmpdir(), `gpumem-${namespace}-`));
  try {
    const file = join(dir, 'admin.yaml');
    writeFileSync(file, sim.kubeconfig('admin'), { mode: 0o600 });
    const admin = await kubeconfigClient(file);
    sim.state.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } as never);
    return {
      sim,
      admin,
      namespace,
      pod: (name) => sim.state.get('pods', namespace, name) as V1Pod | undefined,
      alive: () => sim.state.list('pods', namespace).map((pod) => pod.metadata.name as string),
      createdSince: (mark) => sim.state.createdPods.slice(mark).filter((p) => p.namespace === namespace),
      close: async () => {
        admin.dispose();
        await sim.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** An exec request for `script`: 30 s, 16 MiB of output (a full node probe fits), `extra` on top. */
export function execRequest(script: string, extra: Partial<ExecRequest> = {}): ExecRequest {
  return { script, timeoutMs: 30_000, maxOutputBytes: 16 * 1024 * 1024, ...extra };
}
