// The node probe's `kfd` section built in memory (formats: src/core/probe/parsers/kfd.ts, from kfd_process.c,
// kfd_topology.c and fs/proc/array.c), spliced into a capture of nodeCapture.ts, for the eviction tests.
import { NONCE } from './captureText.ts';

export interface KfdProcSpec {
  readonly pid: number;
  readonly comm: string;
  /** Field 22 of /proc/<pid>/stat, clock ticks since boot (100 per second). */
  readonly startTicks: number;
  /** The text of /proc/<pid>/cgroup. */
  readonly cgroup: string;
  /** gpu_id → [vram bytes, evicted_ms] (either written verbatim when a string). */
  readonly gpus: Readonly<Record<number, readonly [number | string, number | string]>>;
}

/** /proc/<pid>/stat as fs/proc/array.c prints it: pid (comm) state, then fields 4…52; starttime is field 22. */
export function procStat(pid: number, comm: string, startTicks: number): string {
  const after = [
    'S',
    '1',
    String(pid),
    String(pid),
    '0',
    '-1',
    '4194560',
    '5012',
    '0',
    '3',
    '0',
    '811',
    '95',
    '0',
    '0',
    '20',
    '0',
    '12',
    '0',
    String(startTicks),
  ];
  return `${pid} (${comm}) ${after.join(' ')} 9437184000 512000 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 3 0 0 0 0 0\n`;
}

/** The kfd section's records: topology (a CPU node 0 and the GPUs), per-process counters, and the batched stat/cgroup read. */
export function kfdFiles(
  gpus: readonly (readonly [number, string])[],
  processes: readonly KfdProcSpec[],
  batched = true,
): [string, string][] {
  const files: [string, string][] = [
    ['/sys/class/kfd/kfd/topology/nodes/0/gpu_id', '0\n'],
    ['/sys/class/kfd/kfd/topology/nodes/0/name', '\n'],
  ];
  gpus.forEach(([id, name], index) => {
    files.push(
      [`/sys/class/kfd/kfd/topology/nodes/${index + 1}/gpu_id`, `${id}\n`],
      [`/sys/class/kfd/kfd/topology/nodes/${index + 1}/name`, `${name}\n`],
    );
  });
  for (const process of processes)
    for (const [gpu, [vram, evicted]] of Object.entries(process.gpus)) {
      files.push([`/sys/class/kfd/kfd/proc/${process.pid}/vram_${gpu}`, `${vram}\n`]);
      files.push([`/sys/class/kfd/kfd/proc/${process.pid}/stats_${gpu}/evicted_ms`, `${evicted}\n`]);
    }
  if (batched) {
    const tabs = (text: string) => text.replaceAll('\n', '\t');
    const lines = processes.flatMap((p) => [
      `${p.pid}/stat:${tabs(procStat(p.pid, p.comm, p.startTicks))}`,
      `${p.pid}/cgroup:${tabs(p.cgroup)}`,
    ]);
    files.push(['/proc/kfd-pids', `${lines.join('\n')}\n`]);
  } else {
    for (const p of processes)
      files.push([`/proc/${p.pid}/stat`, procStat(p.pid, p.comm, p.startTicks)], [`/proc/${p.pid}/cgroup`, p.cgroup]);
  }
  return files;
}

function records(files: readonly (readonly [string, string])[]): string {
  return files.map(([path, body]) => `\n@@gpumem:${NONCE}:file ${path}@@\n${body}`).join('');
}

/** Adds a `kfd` section (and `uptime=` to meta) to a capture of nodeCapture()/lightNodeCapture(). */
export function withKfd(text: string, files: readonly (readonly [string, string])[], uptime?: number): string {
  const done = `\n@@gpumem:${NONCE}:done@@\n`;
  const section = `\n@@gpumem:${NONCE}:begin kfd@@\n${records(files)}\n@@gpumem:${NONCE}:end kfd@@\n`;
  let out = text.replace(done, `${section}${done}`);
  if (uptime !== undefined) out = out.replace(/^now=(\d+)$/m, `now=$1\nuptime=${uptime}`);
  return out;
}

/** Adds file records to an existing section (e.g. more fdinfo files). */
export function withRecords(text: string, section: string, files: readonly (readonly [string, string])[]): string {
  const end = `\n@@gpumem:${NONCE}:end ${section}@@\n`;
  return text.replace(end, `${records(files)}${end}`);
}
