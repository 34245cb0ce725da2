// The node probe's `kfd` section: AMD KFD (ROCm compute) topology and per-process counters, with each process's
// start time and cgroup. Formats, from the kernel (drivers/gpu/drm/amd/amdkfd/):
// - topology/nodes/<n>/gpu_id: `%u\n` (node_show → sysfs_show_32bit_val, kfd_topology.c); 0 for a CPU node;
//   topology/nodes/<n>/name: the node's name (`gfx1151`), empty for a CPU node (sysfs_show_str_val).
// - proc/<pid>/: one directory per KFD process, named `%d` after its lead thread's pid (kfd_create_process,
//   kfd_process.c); proc/<pid>/vram_<gpuid>: `%llu\n`, the bytes of VRAM the process holds on that GPU
//   (kfd_procfs_show, pdd->vram_usage); proc/<pid>/stats_<gpuid>/evicted_ms: `%llu\n`, the time its queues were
//   evicted on that GPU since the process opened it, jiffies64_to_msecs(pdd->evict_duration_counter)
//   (kfd_procfs_stats_show). A cumulative counter: it only grows while the process lives.
// - /proc/<pid>/stat (fs/proc/array.c do_task_stat): `<pid> (<comm>) <state> …`, field 22 the start time in
//   clock ticks since boot (USER_HZ, `getconf CLK_TCK`; 100 on x86 and arm64). The comm is the process's own
//   choice and may hold `)`, spaces and (as tabs, after the probe's tr) newlines: the fields are read after the
//   LAST `)`.
// Pure and total: anything in, a result out; a number that is not one is left out and named in `problems`.
import { cgroupPathFromProcCgroup, parseBatchedProcCgroups } from '../podCgroup.ts';
import { parseBoundedNumber } from './kernelNumber.ts';

export interface KfdGpu {
  readonly gpuId: number;
  readonly name: string | undefined;
}

export interface KfdProcessGpu {
  readonly gpuId: number;
  /** proc/<pid>/vram_<gpuid>, bytes. */
  readonly vramBytes: number | undefined;
  /** proc/<pid>/stats_<gpuid>/evicted_ms: ms evicted since the process opened the GPU. */
  readonly evictedMs: number | undefined;
}

export interface KfdProcess {
  readonly pid: number;
  /** The comm from /proc/<pid>/stat (as the process set it: display it escaped). */
  readonly comm: string | undefined;
  /** Field 22 of /proc/<pid>/stat: clock ticks since boot. */
  readonly startTicks: number | undefined;
  /** The cgroup path (podCgroup's choice of line), undefined when /proc/<pid>/cgroup was not read. */
  readonly cgroup: string | undefined;
  readonly gpus: readonly KfdProcessGpu[];
}

export interface KfdCapture {
  /** Whether the section holds any KFD file (a node without /dev/kfd has none). */
  readonly present: boolean;
  readonly gpus: readonly KfdGpu[];
  readonly processes: readonly KfdProcess[];
  /** Clock ticks per second for startTicks: `getconf CLK_TCK`, else 100 (clockTicksRead false). */
  readonly clockTicks: number;
  readonly clockTicksRead: boolean;
  readonly problems: readonly string[];
}

/** USER_HZ on every architecture Linux GPU nodes run (x86, arm64); used when getconf is not there. */
export const DEFAULT_CLK_TCK = 100;

const TOPOLOGY = /\/sys\/class\/kfd\/kfd\/topology\/nodes\/(\d{1,6})\/(gpu_id|name)$/;
const PROC_FILE = /\/sys\/class\/kfd\/kfd\/proc\/(\d{1,10})\/(?:vram_(\d{1,10})|stats_(\d{1,10})\/evicted_ms)$/;
const PROC_STAT = /\/proc\/(\d{1,10})\/(stat|cgroup)$/;
const BATCHED_STAT = /^(\d{1,10})\/stat:([^\n]*)$/;
const PERMISSION = 'gpumem: permission denied';

/** The comm and start time of one /proc/<pid>/stat text (tabs or newlines inside it are fine). */
export function parseProcStat(text: string): { comm: string | undefined; startTicks: number | undefined } {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return { comm: undefined, startTicks: undefined };
  const comm = text.slice(open + 1, close).slice(0, 64);
  // After the comm: state (field 3) … starttime (field 22), so index 19.
  const fields = text
    .slice(close + 1)
    .split(/[ \t\n]/)
    .filter((field) => field !== '');
  return { comm, startTicks: parseBoundedNumber(fields[19]) };
}

export function parseKfd(files: ReadonlyMap<string, string>): KfdCapture {
  const problems: string[] = [];
  const topology = new Map<string, { gpuId?: number; name?: string }>();
  const perPid = new Map<
    number,
    { gpus: Map<number, { vramBytes?: number; evictedMs?: number }>; comm?: string; start?: number; cgroup?: string }
  >();
  const entry = (pid: number) => {
    let value = perPid.get(pid);
    if (!value) {
      value = { gpus: new Map() };
      perPid.set(pid, value);
    }
    return value;
  };
  const stats = new Map<number, string>();
  const cgroups = new Map<number, string | undefined>();
  let clock: number | undefined;
  let present = false;
  const number = (path: string, body: string): number | undefined => {
    const text = body.trim();
    if (text === PERMISSION) {
      problems.push(`${path}: not readable (permission denied)`);
      return undefined;
    }
    const value = parseBoundedNumber(text);
    if (value === undefined) problems.push(`${path}: ${JSON.stringify(text.slice(0, 40))} is not used: not a counter`);
    return value;
  };
  for (const [path, body] of files) {
    const topo = TOPOLOGY.exec(path);
    if (topo?.[1] && topo[2]) {
      present = true;
      const node = topology.get(topo[1]) ?? {};
      if (topo[2] === 'gpu_id') {
        const id = number(path, body);
        if (id !== undefined) node.gpuId = id;
      } else if (body.trim() !== PERMISSION) node.name = body.trim().slice(0, 64);
      topology.set(topo[1], node);
      continue;
    }
    const proc = PROC_FILE.exec(path);
    if (proc?.[1]) {
      present = true;
      const gpuId = Number(proc[2] ?? proc[3]);
      const value = number(path, body);
      const gpus = entry(Number(proc[1])).gpus;
      const gpu = gpus.get(gpuId) ?? {};
      if (value !== undefined) {
        if (proc[2] !== undefined) gpu.vramBytes = value;
        else gpu.evictedMs = value;
      }
      gpus.set(gpuId, gpu);
      continue;
    }
    if (path.endsWith('/proc/kfd-clk-tck')) {
      const ticks = parseBoundedNumber(body.trim());
      if (ticks !== undefined && ticks > 0 && ticks <= 100_000) clock = ticks;
      continue;
    }
    if (path.endsWith('/proc/kfd-pids')) {
      for (const line of body.split('\n')) {
        const match = BATCHED_STAT.exec(line);
        if (match?.[1] && match[2] !== undefined) stats.set(Number(match[1]), match[2]);
      }
      for (const [pid, cgroup] of parseBatchedProcCgroups(body)) cgroups.set(pid, cgroup);
      continue;
    }
    const single = PROC_STAT.exec(path);
    if (single?.[1]) {
      if (single[2] === 'stat') stats.set(Number(single[1]), body);
      else cgroups.set(Number(single[1]), cgroupPathFromProcCgroup(body));
    }
  }
  for (const [pid, text] of stats) {
    if (!perPid.has(pid)) continue;
    const parsed = parseProcStat(text);
    const value = entry(pid);
    if (parsed.comm !== undefined) value.comm = parsed.comm;
    if (parsed.startTicks !== undefined) value.start = parsed.startTicks;
    else problems.push(`/proc/${pid}/stat: no start time (field 22) is readable`);
  }
  for (const [pid, cgroup] of cgroups) if (perPid.has(pid) && cgroup !== undefined) entry(pid).cgroup = cgroup;
  const gpus: KfdGpu[] = [];
  for (const node of topology.values())
    if (node.gpuId !== undefined && node.gpuId !== 0) gpus.push({ gpuId: node.gpuId, name: node.name || undefined });
  gpus.sort((a, b) => a.gpuId - b.gpuId);
  const processes: KfdProcess[] = [...perPid]
    .sort(([a], [b]) => a - b)
    .map(([pid, value]) => ({
      pid,
      comm: value.comm,
      startTicks: value.start,
      cgroup: value.cgroup,
      gpus: [...value.gpus]
        .sort(([a], [b]) => a - b)
        .map(([gpuId, gpu]) => ({ gpuId, vramBytes: gpu.vramBytes, evictedMs: gpu.evictedMs })),
    }));
  return { present, gpus, processes, clockTicks: clock ?? DEFAULT_CLK_TCK, clockTicksRead: clock !== undefined, problems };
}
