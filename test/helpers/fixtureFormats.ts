// The kernel's and the runtimes' file formats as the fixture roots write them, each with its provenance in
// fixtureRoot.ts's header: meminfo, vmstat, DRM fdinfo, cgroup v1 and v2 files, the kernel log's lines.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const KiB = 1024;
export const MiB = 1024 ** 2;
export const GiB = 1024 ** 3;

// ---------------------------------------------------------------------------------------------------
// Formats

/** fs/proc/meminfo.c show_val_kb(): the label padded to 16 columns, the value right-aligned in 8, " kB". */
export function meminfoLine(label: string, kb: number): string {
  return `${`${label}:`.padEnd(16)}${String(kb).padStart(8)} kB`;
}

/**
 * /proc/meminfo from this machine's, with MemTotal/MemFree/MemAvailable replaced and, when `gpu` is given,
 * `GPUActive:`/`GPUReclaim:` inserted after `Balloon:` as 7.1 prints them.
 */
export function meminfoText(values: {
  memTotalKb: number;
  memFreeKb: number;
  memAvailableKb: number;
  gpu?: { activeKb: number; reclaimKb: number };
}): string {
  const lines = readFileSync('/proc/meminfo', 'utf8').trimEnd().split('\n');
  const replace: Record<string, number> = { MemTotal: values.memTotalKb, MemFree: values.memFreeKb, MemAvailable: values.memAvailableKb };
  const out: string[] = [];
  let inserted = false;
  for (const line of lines) {
    const key = /^([A-Za-z0-9_()]+):/.exec(line)?.[1];
    if (key === 'GPUActive' || key === 'GPUReclaim') continue; // this machine is not the scenario
    out.push(key !== undefined && key in replace ? meminfoLine(key, replace[key] as number) : line);
    if (key === 'Balloon' && values.gpu) {
      out.push(meminfoLine('GPUActive', values.gpu.activeKb), meminfoLine('GPUReclaim', values.gpu.reclaimKb));
      inserted = true;
    }
  }
  if (values.gpu && !inserted) {
    const at = out.findIndex((line) => line.startsWith('HugePages_Total:'));
    out.splice(at < 0 ? out.length : at, 0, meminfoLine('GPUActive', values.gpu.activeKb), meminfoLine('GPUReclaim', values.gpu.reclaimKb));
  }
  return `${out.join('\n')}\n`;
}

/** /proc/vmstat from this machine's, with oom_kill set and nr_gpu_active/nr_gpu_reclaim (pages) on 7.1+. */
export function vmstatText(values: { oomKill: number; gpu?: { activePages: number; reclaimPages: number } }): string {
  const lines = readFileSync('/proc/vmstat', 'utf8')
    .trimEnd()
    .split('\n')
    .filter((line) => !/^nr_gpu_(active|reclaim) /.test(line));
  const out = lines.map((line) => (line.startsWith('oom_kill ') ? `oom_kill ${values.oomKill}` : line));
  if (values.gpu) {
    const at = out.findIndex((line) => line.startsWith('nr_dirty_threshold '));
    out.splice(at < 0 ? out.length : at, 0, `nr_gpu_active ${values.gpu.activePages}`, `nr_gpu_reclaim ${values.gpu.reclaimPages}`);
  }
  return `${out.join('\n')}\n`;
}

/** Per-node meminfo (drivers/base/node.c): "Node 0 <Key>: <kB> kB", GPU lines added on 7.1+. */
export function nodeMeminfoText(memTotalKb: number, memFreeKb: number, gpu?: { activeKb: number; reclaimKb: number }): string {
  const line = (key: string, kb: number) => `Node 0 ${`${key}:`.padEnd(16)}${String(kb).padStart(8)} kB`;
  const lines = [line('MemTotal', memTotalKb), line('MemFree', memFreeKb), line('MemUsed', memTotalKb - memFreeKb)];
  if (gpu) lines.push(line('GPUActive', gpu.activeKb), line('GPUReclaim', gpu.reclaimKb));
  return `${lines.join('\n')}\n`;
}

/** drm_fdinfo_print_size(): bytes, then KiB, then MiB while the value stays a whole multiple of 1024. */
export function drmSize(bytes: number): string {
  const units = ['', ' KiB', ' MiB'];
  let value = bytes;
  let u = 0;
  for (; u < units.length - 1; u++) {
    if (value === 0 || value % 1024 !== 0) break;
    value /= 1024;
  }
  return `${value}${units[u]}`;
}

export interface AmdgpuClient {
  readonly clientId: number;
  readonly pdev: string;
  readonly pasid: number;
  readonly gtt: number;
  readonly vram: number;
  readonly cpu: number;
  /** fs/proc/fd.c flags in octal (02100002 = O_RDWR|O_LARGEFILE|O_CLOEXEC; a dup() loses O_CLOEXEC). */
  readonly flags?: string;
  readonly engines?: Readonly<Record<string, number>>;
}

/** The text of /proc/<pid>/fdinfo/<fd> for an amdgpu render node, as a 6.13+ kernel prints it. */
export function amdgpuFdinfo(client: AmdgpuClient): string {
  const lines = [
    'pos:\t0',
    `flags:\t${client.flags ?? '02100002'}`,
    'mnt_id:\t25',
    'ino:\t1117',
    'drm-driver:\tamdgpu',
    `drm-client-id:\t${client.clientId}`,
    `drm-pdev:\t${client.pdev}`,
    `pasid:\t${client.pasid}`,
  ];
  for (const [region, bytes] of [
    ['cpu', client.cpu],
    ['gtt', client.gtt],
    ['vram', client.vram],
  ] as const) {
    lines.push(
      `drm-total-${region}:\t${drmSize(bytes)}`,
      `drm-shared-${region}:\t0`,
      `drm-resident-${region}:\t${drmSize(bytes)}`,
      `drm-purgeable-${region}:\t0`,
    );
  }
  lines.push(
    `drm-memory-vram:\t${client.vram / 1024} KiB`,
    `drm-memory-gtt: \t${client.gtt / 1024} KiB`,
    `drm-memory-cpu: \t${client.cpu / 1024} KiB`,
    'amd-evicted-vram:\t0 KiB',
    `amd-requested-vram:\t${client.vram / 1024} KiB`,
    `amd-requested-gtt:\t${client.gtt / 1024} KiB`,
  );
  for (const [engine, ns] of Object.entries(client.engines ?? { gfx: 1_204_332_118, compute: 981_233_440_552 }))
    lines.push(`drm-engine-${engine}:\t${ns} ns`);
  return `${lines.join('\n')}\n`;
}

/** fdinfo of a non-DRM file (fs/proc/fd.c only). */
export function plainFdinfo(flags = '0100002', ino = 4242): string {
  return `pos:\t0\nflags:\t${flags}\nmnt_id:\t29\nino:\t${ino}\n`;
}

/** A 64-hex container id, stable for a name. */
export function containerId(name: string): string {
  return createHash('sha256').update(name).digest('hex');
}

/** cgroup v2 memory.events (cgroup-v2.rst). */
export function memoryEvents(values: { max?: number; oom?: number; oomKill?: number } = {}): string {
  return `low 0\nhigh 0\nmax ${values.max ?? 0}\noom ${values.oom ?? 0}\noom_kill ${values.oomKill ?? 0}\noom_group_kill 0\n`;
}

/** cgroup v2 memory.stat, keys in mm/memcontrol.c memory_stats[] order, values consistent with `current`. */
export function memoryStatV2(current: number): string {
  const anon = Math.floor((current * 0.9) / 4096) * 4096;
  const file = Math.floor((current * 0.07) / 4096) * 4096;
  const kernel = current - anon - file;
  const rows: Array<[string, number]> = [
    ['anon', anon],
    ['file', file],
    ['kernel', kernel],
    ['kernel_stack', 294912],
    ['pagetables', Math.floor(kernel / 3)],
    ['sec_pagetables', 0],
    ['percpu', 1440],
    ['sock', 0],
    ['vmalloc', 8192],
    ['shmem', 0],
    ['zswap', 0],
    ['zswapped', 0],
    ['file_mapped', Math.floor(file / 2)],
    ['file_dirty', 0],
    ['file_writeback', 0],
    ['swapcached', 0],
    ['anon_thp', 0],
    ['file_thp', 0],
    ['shmem_thp', 0],
    ['inactive_anon', anon],
    ['active_anon', 0],
    ['inactive_file', Math.floor(file / 3)],
    ['active_file', file - Math.floor(file / 3)],
    ['unevictable', 0],
    ['slab_reclaimable', 421888],
    ['slab_unreclaimable', 563200],
    ['slab', 985088],
    ['workingset_refault_anon', 0],
    ['workingset_refault_file', 12],
    ['workingset_activate_anon', 0],
    ['workingset_activate_file', 3],
    ['workingset_restore_anon', 0],
    ['workingset_restore_file', 0],
    ['workingset_nodereclaim', 0],
    ['pgdemote_kswapd', 0],
    ['pgdemote_direct', 0],
    ['pgdemote_khugepaged', 0],
    ['pgscan', 0],
    ['pgsteal', 0],
    ['pgscan_kswapd', 0],
    ['pgscan_direct', 0],
    ['pgscan_khugepaged', 0],
    ['pgsteal_kswapd', 0],
    ['pgsteal_direct', 0],
    ['pgsteal_khugepaged', 0],
    ['pgfault', 5216093],
    ['pgmajfault', 37],
    ['pgrefill', 0],
    ['pgactivate', 0],
    ['pgdeactivate', 0],
    ['pglazyfree', 0],
    ['pglazyfreed', 0],
    ['thp_fault_alloc', 0],
    ['thp_collapse_alloc', 0],
  ];
  return rows.map(([key, value]) => `${key} ${value}\n`).join('');
}

/**
 * cgroup v1 memory.stat, keys as this machine's /sys/fs/cgroup/memory/memory.stat prints them. The limits are
 * written as the kernel prints them: "no limit" is the exact u64 V1_UNLIMITED, not a rounded double
 * (String(9223372036854771712) would print 9223372036854772000, which no kernel writes).
 */
export function memoryStatV1(usage: number, limit: number | 'max'): string {
  const rss = Math.floor((usage * 0.9) / 4096) * 4096;
  const cache = Math.floor((usage * 0.07) / 4096) * 4096;
  const own: Array<[string, number]> = [
    ['cache', cache],
    ['rss', rss],
    ['rss_huge', 0],
    ['shmem', 0],
    ['mapped_file', Math.floor(cache / 2)],
    ['dirty', 0],
    ['writeback', 0],
    ['workingset_refault_anon', 0],
    ['workingset_refault_file', 12],
    ['swap', 0],
    ['swapcached', 0],
    ['pgpgin', 913321],
    ['pgpgout', 389020],
    ['pgfault', 5216093],
    ['pgmajfault', 37],
    ['inactive_anon', rss],
    ['active_anon', 0],
    ['inactive_file', Math.floor(cache / 3)],
    ['active_file', cache - Math.floor(cache / 3)],
    ['unevictable', 0],
  ];
  const rows: Array<[string, number | string]> = [
    ...own,
    ['hierarchical_memory_limit', limit === 'max' ? V1_UNLIMITED : limit],
    ['hierarchical_memsw_limit', V1_UNLIMITED],
  ];
  for (const [key, value] of own) rows.push([`total_${key}`, value]);
  return rows.map(([key, value]) => `${key} ${value}\n`).join('');
}

/** The cgroup v1 "no limit" value: PAGE_COUNTER_MAX × 4096. */
export const V1_UNLIMITED = '9223372036854771712';

/** An RFC 3339 rsyslog kern.log line. */
export function kernLine(time: string, host: string, message: string): string {
  return `${time} ${host} kernel: ${message}`;
}
