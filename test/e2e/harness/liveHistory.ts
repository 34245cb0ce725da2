// A Prometheus with three days of history for the demo cluster's StatefulSet default/llama (pod llama-0 on the Strix
// Halo node strix-node-1), served as the kube-prometheus Service monitoring/prometheus-k8s behind the simulator's
// service proxy, so live mode finds it as it would in a cluster. The history is OpenMetrics turned into TSDB blocks by
// Debian's promtool (as test/integration/recommendPrometheus.test.ts does): cAdvisor's working set of the container,
// the agent's GPU memory in RAM of the pod and of its container, the pod's cgroup, and a global OOM kill with the GPU
// signature 20 minutes ago (the pod's lastState in the fixture says OOMKilled then). The peaks are returned for the
// spec's expectations.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrometheus } from '../../helpers/prometheusProcess.ts';
import type { KubeObject } from '../../simulator/objects.ts';
import type { Simulator } from '../../simulator/server.ts';

const GiB = 1024 ** 3;
const STEP = 60;

export interface LiveHistory {
  /** The container's working-set peak and the pod's GPU-memory-in-RAM peak, reached at the same sample. */
  readonly workingSetPeak: number;
  readonly gpuInRamPeak: number;
  stop(): Promise<void>;
}

function openMetrics(now: number): { text: string; workingSetPeak: number; gpuInRamPeak: number } {
  const end = Math.floor(now / STEP) * STEP - STEP;
  const peakAt = end - 2 * 86_400;
  const killAt = end - 20 * 60;
  const pod = { namespace: 'default', pod: 'llama-0' };
  const agent = { node: 'strix-node-1', ...pod, uid: 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96' };
  const workingSetPeak = 9 * GiB;
  const gpuInRamPeak = 30 * GiB;
  const series: { name: string; labels: Record<string, string>; value: (t: number, i: number) => number }[] = [
    {
      name: 'container_memory_working_set_bytes',
      labels: { ...pod, container: 'llama' },
      value: (t, i) => (t === peakAt ? workingSetPeak : 6 * GiB + (i % 7) * 2 ** 27),
    },
    {
      name: 'gpumem_pod_cgroup_memory_bytes',
      labels: agent,
      value: (t, i) => (t === peakAt ? workingSetPeak : 6 * GiB + (i % 7) * 2 ** 27),
    },
    { name: 'gpumem_pod_unaccounted_bytes', labels: agent, value: (t, i) => (t === peakAt ? gpuInRamPeak : 24 * GiB + (i % 5) * 2 ** 28) },
    // The container's own GPU memory in RAM (its one container holds all of the pod's), as the agent exports it.
    {
      name: 'gpumem_container_unaccounted_bytes',
      labels: { ...agent, container: 'llama' },
      value: (t, i) => (t === peakAt ? gpuInRamPeak : 24 * GiB + (i % 5) * 2 ** 28),
    },
    { name: 'gpumem_oom_kills_total', labels: { ...agent, scope: 'global', gpu_signature: 'true' }, value: (t) => (t >= killAt ? 1 : 0) },
  ];
  const lines: string[] = [];
  for (const one of series) {
    lines.push(one.name.endsWith('_total') ? `# TYPE ${one.name.slice(0, -'_total'.length)} counter` : `# TYPE ${one.name} gauge`);
    const labels = Object.entries(one.labels)
      .map(([key, value]) => `${key}="${value}"`)
      .join(',');
    let i = 0;
    for (let t = end - 3 * 86_400; t <= end; t += STEP) lines.push(`${one.name}{${labels}} ${one.value(t, i++)} ${t}`);
  }
  lines.push('# EOF', '');
  return { text: lines.join('\n'), workingSetPeak, gpuInRamPeak };
}

function service(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'prometheus-k8s',
      namespace: 'monitoring',
      labels: { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/part-of': 'kube-prometheus' },
    },
    spec: { ports: [{ name: 'web', port: 9090, targetPort: 'web' }], selector: { 'app.kubernetes.io/name': 'prometheus' } },
  } as KubeObject;
}

export async function startLiveHistory(sim: Simulator): Promise<LiveHistory> {
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-e2e-live-'));
  const history = openMetrics(Math.floor(Date.now() / 1000));
  writeFileSync(join(dir, 'history.om'), history.text);
  const blocks = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(dir, 'history.om'), join(dir, 'tsdb')], {
    encoding: 'utf8',
  });
  if (blocks.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`promtool could not build the history: ${blocks.stderr}`);
  }
  const prometheus = await startPrometheus({ dir, tsdb: join(dir, 'tsdb') });
  if (!sim.state.list('namespaces').some((ns) => ns.metadata.name === 'monitoring'))
    sim.state.store.put('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'monitoring' } } as KubeObject);
  sim.state.store.put('services', service());
  sim.setServiceProxy('monitoring', 'prometheus-k8s', 'web', prometheus.base);
  return {
    workingSetPeak: history.workingSetPeak,
    gpuInRamPeak: history.gpuInRamPeak,
    stop: async () => {
      sim.setServiceProxy('monitoring', 'prometheus-k8s', 'web', undefined);
      await prometheus.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
