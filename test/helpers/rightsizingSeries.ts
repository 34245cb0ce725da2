// Fourteen-plus days of history for `gpumem recommend`, as OpenMetrics text for `promtool tsdb create-blocks-from
// openmetrics`: cAdvisor's working set per container, the agent's pod and per-container series and OOM-kill counters, and
// kube-state-metrics' last termination reason, for a Deployment on an APU (global kills with the GPU signature), a
// StatefulSet (a memcg kill), a CronJob's Job (a global kill without the signature, on a node a big pod shares), a
// Deployment with no kills and no GPU, and a Deployment one hour old. The raw samples are returned for the test to
// compute its expected figures from.
import { writeFileSync } from 'node:fs';
import { mulberry32 } from './random.ts';

const GiB = 1024 ** 3;
/**
 * One sample every 5 minutes: the queries' figures (peaks, the true footprint's subquery at 1 m, sample counts, kills)
 * come out as they do at a scrape interval of 60 s, and promtool and Prometheus handle a fifth of the samples (15 days
 * at 60 s took promtool nearly 3 minutes of CI time on its own).
 */
const HISTORY_STEP = 300;

export interface RawSeries {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly times: readonly number[];
  readonly values: readonly number[];
}

export interface RightsizingHistory {
  readonly series: readonly RawSeries[];
  /** When the global kill without the GPU signature happened. */
  readonly otherKillAt: number;
}

export function writeRightsizingHistory(file: string, now: number): RightsizingHistory {
  const random = mulberry32(3514);
  const end = Math.floor(now / HISTORY_STEP) * HISTORY_STEP - HISTORY_STEP;
  const longStart = end - 15 * 86_400;
  const times = (start: number): number[] => {
    const out: number[] = [];
    for (let t = start; t <= end; t += HISTORY_STEP) out.push(t);
    return out;
  };
  const long = times(longStart);
  const series: RawSeries[] = [];
  const add = (name: string, labels: Record<string, string>, values: (t: number, i: number) => number, at = long): void => {
    series.push({ name, labels, times: at, values: at.map((t, i) => values(t, i)) });
  };
  const noisy = (base: number, spread: number) => () => Math.floor(base + random() * spread);
  const agent = (node: string, pod: string) => ({ node, namespace: 'ml', pod, uid: `uid-${pod}` });
  const killAt = (at: number, scope: string, signature: string, node: string, pod: string): void =>
    add('gpumem_oom_kills_total', { ...agent(node, pod), scope, gpu_signature: signature }, (t) => (t >= at ? 1 : 0));

  // Deployment llm: two pods on the APU node, a GPU container `server` and a plain `proxy`. The working set peaks
  // on day 3, the GPU memory on day 9: the true footprint's peak is neither sum of peaks.
  for (const pod of ['llm-7d9f-a', 'llm-7d9f-b']) {
    const wsPeakAt = end - 11 * 86_400;
    const gpuPeakAt = end - 5 * 86_400;
    add('container_memory_working_set_bytes', { namespace: 'ml', pod, container: 'server' }, (t) =>
      t === wsPeakAt ? 14 * GiB : noisy(6 * GiB, GiB)(),
    );
    add('container_memory_working_set_bytes', { namespace: 'ml', pod, container: 'proxy' }, noisy(200 * 2 ** 20, 50 * 2 ** 20));
    add('gpumem_pod_unaccounted_bytes', agent('apu-1', pod), (t) => (t === gpuPeakAt ? 30 * GiB : noisy(16 * GiB, 2 * GiB)()));
    // The agent's per-container series: all of the pod's GPU memory is the server's (the proxy holds none).
    const podGpu = series[series.length - 1] as RawSeries;
    series.push({
      name: 'gpumem_container_unaccounted_bytes',
      labels: { ...agent('apu-1', pod), container: 'server' },
      times: podGpu.times,
      values: podGpu.values,
    });
    add('gpumem_pod_cgroup_memory_bytes', agent('apu-1', pod), noisy(7 * GiB, GiB));
  }
  killAt(end - 4 * 86_400, 'global', 'true', 'apu-1', 'llm-7d9f-a');
  killAt(end - 4 * 86_400, 'global', 'true', 'apu-1', 'llm-7d9f-b');
  // StatefulSet db: one memcg kill at its 4 GiB limit; kube-state-metrics saw the OOMKilled.
  add('container_memory_working_set_bytes', { namespace: 'ml', pod: 'db-0', container: 'postgres' }, (t) =>
    t === end - 6 * 86_400 ? 4 * GiB - 2 ** 20 : noisy(3 * GiB, GiB / 2)(),
  );
  add('gpumem_pod_cgroup_memory_bytes', agent('cpu-1', 'db-0'), noisy(3 * GiB, GiB / 2));
  killAt(end - 6 * 86_400, 'memcg', 'false', 'cpu-1', 'db-0');
  add(
    'kube_pod_container_status_last_terminated_reason',
    { namespace: 'ml', pod: 'db-0', container: 'postgres', reason: 'OOMKilled' },
    (t) => (t >= end - 6 * 86_400 ? 1 : 0),
  );
  // CronJob batch's Job: a global kill without the GPU signature on cpu-2, where `hog` held 100 GiB.
  const otherKillAt = end - 2 * 86_400;
  add('container_memory_working_set_bytes', { namespace: 'ml', pod: 'batch-29001-x', container: 'work' }, noisy(GiB, GiB / 4));
  add('gpumem_pod_cgroup_memory_bytes', agent('cpu-2', 'batch-29001-x'), noisy(GiB, GiB / 4));
  add('gpumem_pod_true_footprint_bytes', agent('cpu-2', 'batch-29001-x'), noisy(GiB, GiB / 4));
  add('gpumem_pod_true_footprint_bytes', { node: 'cpu-2', namespace: 'other', pod: 'hog', uid: 'uid-hog' }, () => 100 * GiB);
  // A pod that came to cpu-2 a day after the kill and is bigger than hog: over the window it ranks first, at the kill
  // it did not exist.
  add(
    'gpumem_pod_true_footprint_bytes',
    { node: 'cpu-2', namespace: 'other', pod: 'late', uid: 'uid-late' },
    () => 200 * GiB,
    times(otherKillAt + 86_400),
  );
  killAt(otherKillAt, 'global', 'false', 'cpu-2', 'batch-29001-x');
  add('gpumem_oom_kill_last_timestamp_seconds', { ...agent('cpu-2', 'batch-29001-x'), scope: 'global', gpu_signature: 'false' }, (t) =>
    t >= otherKillAt ? otherKillAt : 0,
  );
  // Deployment web: no GPU, no kills: KRR's number.
  add('container_memory_working_set_bytes', { namespace: 'ml', pod: 'web-5c-q', container: 'web' }, noisy(GiB, GiB));
  // Deployment fresh: one hour of history.
  add('container_memory_working_set_bytes', { namespace: 'ml', pod: 'fresh-1-z', container: 'fresh' }, noisy(GiB, GiB), times(end - 3600));

  const lines: string[] = [];
  const byName = new Map<string, RawSeries[]>();
  for (const one of series) byName.set(one.name, [...(byName.get(one.name) ?? []), one]);
  for (const [name, group] of byName) {
    // An OpenMetrics counter family is named without its samples' _total suffix.
    lines.push(name.endsWith('_total') ? `# TYPE ${name.slice(0, -'_total'.length)} counter` : `# TYPE ${name} gauge`);
    for (const one of group) {
      const labels = Object.entries(one.labels)
        .map(([key, value]) => `${key}="${value}"`)
        .join(',');
      one.times.forEach((t, i) => lines.push(`${name}{${labels}} ${one.values[i]} ${t}`));
    }
  }
  lines.push('# EOF', '');
  writeFileSync(file, lines.join('\n'));
  return { series, otherKillAt };
}
