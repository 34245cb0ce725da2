// `gpumem lint --live` against the demo cluster with its real gpumem agents (test/simulator/demoAgents.ts) and no
// Prometheus: the StatefulSet llama, whose pod the node's global OOM killer took with the GPU signature (the APU
// scenario's kernel log), is judged by what the agent on strix-node-1 measured since the container started (30 GiB of
// GTT, the scenario's 18 + 12 GiB) against the file's 8Gi request and 16Gi limit; the CronJob embed-nightly's memcg
// kill is one the kubelet reported and no agent saw, so its cause stays unknown. Needs root (the simulator's chroot
// roots); skipped otherwise. Cost: one simulator, the agents' first probes (a few seconds), one CLI run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeCliHome, runCli } from '../helpers/cli.ts';
import type { CliHome } from '../helpers/cli.ts';
import { fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { agentReportsPod, startDemoAgents } from '../simulator/demoAgents.ts';
import type { DemoAgents } from '../simulator/demoAgents.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const SKIP = fixtureRootsUnavailable() ?? chrootUnavailable();

// The demo's StatefulSet and CronJob as their files would say (test/simulator/fixtures/10-apu.yaml's specs).
const MANIFEST = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: llama
spec:
  serviceName: llama
  selector:
    matchLabels:
      app: llama
  template:
    metadata:
      labels:
        app: llama
    spec:
      containers:
        - name: llama
          image: docker.io/rocm/vllm:rocm7.0.0_vllm_0.10.1
          resources:
            requests:
              memory: 8Gi
              amd.com/gpu: "1"
            limits:
              memory: 16Gi
              amd.com/gpu: "1"
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: embed-nightly
  namespace: default
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: embed
              image: example
              resources:
                requests:
                  memory: 6Gi
                limits:
                  memory: 8Gi
                  amd.com/gpu: "1"
`;

interface JsonFinding {
  readonly ruleId: string;
  readonly severity: string;
  readonly message: string;
  readonly name: string | null;
}

describe('gpumem lint --live against the demo cluster (simulator, real agents)', { skip: SKIP }, () => {
  let sim: Simulator;
  let agents: DemoAgents | undefined;
  let home: CliHome;
  let manifest: string;

  before(async () => {
    sim = await startSimulator({ fixtures: loadFixtures() });
    home = makeCliHome('gpumem-lint-live-demo-', { demo: sim.kubeconfig('admin') });
    agents = await startDemoAgents(sim, home.kubeconfigs['demo'] as string);
    await agentReportsPod(agents, 'strix-node-1', 'llama-0');
    manifest = join(home.dir, 'workloads.yaml');
    writeFileSync(manifest, MANIFEST);
  });

  after(async () => {
    await agents?.stop();
    await sim?.close();
    home?.cleanup();
  });

  test(
    'the global GPU kill and the footprint over the request from the agent; the kubelet-only kill with no cause',
    { timeout: 120_000 },
    async () => {
      const run = await runCli(['lint', '--live', '--kubeconfig', home.kubeconfigs['demo'] as string, '--format', 'json', manifest], {
        env: home.env,
        timeoutMs: 90_000,
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /gpumem lint: live: gpumem-demo: 2 containers matched, 0 not in the cluster/);
      const live = (JSON.parse(run.stdout) as JsonFinding[]).filter((one) => /^observed-|^manifest-drift$/.test(one.ruleId));
      const byId = (name: string, ruleId: string) => live.find((one) => one.name === name && one.ruleId === ruleId);
      const kill = byId('llama', 'observed-oom-kills');
      assert.equal(kill?.severity, 'info');
      assert.match(
        kill?.message ?? '',
        /^1 OOM kill in 7d in gpumem-demo: 1 global with the GPU signature\. Raising the memory limit would not have prevented/,
      );
      // The agent's GTT of llama-0 (30 GiB) alone, with 30 % headroom, is far above the 8Gi request of a unified-memory pod.
      const over = byId('llama', 'observed-footprint-over-limit');
      assert.equal(over?.severity, 'warning');
      assert.match(over?.message ?? '', /GPU memory in RAM 30 GiB/);
      assert.match(over?.message ?? '', /above this memory request of 8Gi/);
      assert.match(over?.message ?? '', /the \/metrics of 3 gpumem agents through the API server/);
      const embed = byId('embed-nightly', 'observed-oom-kills');
      assert.match(embed?.message ?? '', /1 reported by the kubelet, cause unknown/);
    },
  );
});
