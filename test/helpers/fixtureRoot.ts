// Fixture roots for the NODE probe: temp directory trees that look like a Kubernetes node to a script
// run with `chroot <root> /bin/sh -s`, built as root on this machine.
//
// What a root holds:
// - /bin/busybox (the static one from Debian's busybox-static) with applet symlinks for exactly the tools
//   the probe uses. `dmesg` and `journalctl` are left out on purpose, so the kernel log comes from the
//   fixture's /var/log/kern.log, as on a node where dmesg is restricted and journald keeps no kernel log.
//   The `dash` variant copies /bin/dash and the libraries `ldd /bin/dash` lists, and points /bin/sh at it;
//   every other tool stays a busybox applet. `omitTools` drops applets (e.g. `od`, `timeout`).
// - /dev/null (c 1,3), /dev/dri/renderD128 (c 226,128) and, per scenario, /dev/kfd or /dev/nvidia*, made
//   with mknod, so `ls -lL /proc/<pid>/fd` shows `226, 128` for a DRM fd exactly as on a real node.
// - A fake /proc of plain files: meminfo, vmstat, sys/kernel/osrelease (the probe reads the release there,
//   so a fixture can claim 7.1 or 7.3 whatever this machine runs), uptime, cmdline, and per process
//   comm, cmdline, cgroup, fd/<n> (symlinks) and fdinfo/<n>.
// - A fake /sys: class/drm/card*/device, module/*/parameters, class/kfd, devices/system/node, and
//   /sys/fs/cgroup for cgroup v2 (systemd driver) or v1 (cgroupfs driver).
// - /etc/os-release, /etc/hostname, /var/log/kern.log, /etc/containerd/config.toml,
//   /var/lib/kubelet/config.yaml and, for HAMi, /usr/local/vgpu.
//
// Formats and their provenance (the values are the scenario's, chosen to be consistent with each other):
// - /proc/meminfo and /proc/vmstat start from THIS machine's files (read when the root is built), with the
//   scenario's totals substituted and the 7.1 lines added where 7.1 prints them: fs/proc/meminfo.c prints
//   `show_val_kb(m, "GPUActive:      ", …)` and `"GPUReclaim:     "` right after `Balloon:` (label padded
//   to 16, value right-aligned in 8, then " kB"); `nr_gpu_active` / `nr_gpu_reclaim` follow the other node
//   stat items, before `nr_dirty_threshold` (Dave Airlie, "mm: add gpu active/reclaim per-node stat
//   counters", dri-devel 2025, merged for 7.1 as commit 2232ba9c7931; Documentation/filesystems/proc.rst).
// - DRM fdinfo: fs/proc/fd.c (`pos:`, `flags:`, `mnt_id:`, `ino:`), drm_show_fdinfo() in
//   drivers/gpu/drm/drm_file.c (`drm-driver:`, `drm-client-id:`, `drm-pdev:`), amdgpu_show_fdinfo() in
//   amdgpu_fdinfo.c (`pasid:`, drm_print_memory_stats() for cpu/gtt/vram with total/shared/resident/
//   purgeable, sizes printed by drm_fdinfo_print_size() as bytes, ` KiB` or ` MiB`; then the legacy
//   `drm-memory-vram:\t`, `drm-memory-gtt: \t` (space before the tab), `drm-memory-cpu: \t` in KiB;
//   `amd-evicted-vram`, `amd-requested-vram`, `amd-requested-gtt`; `drm-engine-<ip>:\t<n> ns`).
//   Documentation/gpu/drm-usage-stats.rst.
// - cgroup v2 files: Documentation/admin-guide/cgroup-v2.rst (memory.events keys low/high/max/oom/
//   oom_kill/oom_group_kill; memory.stat keys in mm/memcontrol.c memory_stats[] order; dmem.* as
//   `<region> <bytes|max>` per kernel/cgroup/dmem.c; region `drm/<pci slot>/vram` for amdgpu).
// - cgroup v1 memory files: keys and layout copied from this machine's /sys/fs/cgroup/memory (cgroup v1
//   hybrid host): memory.stat (cache, rss, …, total_*), memory.oom_control (oom_kill_disable, under_oom,
//   oom_kill), the unlimited limit 9223372036854771712.
// - /proc/<pid>/cgroup: `0::<path>` (v2), `<n>:<controllers>:<path>` lines (v1), as this machine prints.
// - amdgpu sysfs (amdgpu_vram_mgr.c, amdgpu_gtt_mgr.c): bytes. Strix Halo: vendor 0x1002, device 0x1586.
//   `ttm.pages_limit=25165824` ⇒ `mem_info_gtt_total = 103079215104` (noamsto/nix-amd-ai#42).
// - Kernel log: mm/oom_kill.c lines, in rsyslog's RFC 3339 kern.log form (Debian/Ubuntu).
// - HAMi-core .cache: the byte layout of HAMi-core src/multiprocess/multiprocess_memory_limit.h, written by
//   buildHamiCache() (test/unit/helpers/hamiCacheFile.ts, re-exported here), 2,008,953 bytes.
// - containerd config: what `nvidia-ctk runtime configure --set-as-default` writes (config version 2).
//
// Hostile content on purpose: a process comm with spaces and quotes, a cgroup directory name with a space,
// a cgroup directory and a file whose names hold a newline, non-DRM fds (regular files, /dev/null, /dev/kfd,
// dangling `socket:[…]` / `anon_inode:[…]` links), a process that vanished mid-sweep (fd/ symlinks but no
// fdinfo), a forged-looking marker line in the kernel log, and the usual root-only modes (kern.log 0640,
// kubelet config 0600, /proc/<pid>/fd 0500) that only matter to a non-root run.
//
// Roots are made under a root-owned, non-writable base (/run, /var/cache, /opt or /srv) so that sshd also
// accepts them as a ChrootDirectory. Every builder returns `cleanup()`; call it in an `after` hook.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { buildHamiCache, CACHE_FILE_SIZE } from '../unit/helpers/hamiCacheFile.ts';
import type { GemClientSpec } from './amdgpuDebugfsFiles.ts';
import { amdgpuGemInfo, amdgpuGttMm, amdgpuVramMm, ttmGlobalPagePool } from './amdgpuDebugfsFiles.ts';
import type { CacheSpec } from '../unit/helpers/hamiCacheFile.ts';

export { buildHamiCache, CACHE_FILE_SIZE };
export type { CacheSpec };

export const KiB = 1024;
export const MiB = 1024 ** 2;
export const GiB = 1024 ** 3;

// ---------------------------------------------------------------------------------------------------
// Tools

export const BUSYBOX_INSTALL = 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends busybox-static';

/** Applets the node probe runs (or may run), each a symlink to busybox. No dmesg, no journalctl. */
export const PROBE_APPLETS = [
  'sh',
  'ash',
  'ls',
  'cat',
  'head',
  'tail',
  'od',
  'tr',
  'wc',
  'cut',
  'date',
  'id',
  'uname',
  'basename',
  'dirname',
  'readlink',
  'sed',
  'grep',
  'egrep',
  'sort',
  'uniq',
  'awk',
  'timeout',
  'find',
  'printf',
  'echo',
  'true',
  'false',
  'test',
  '[',
  'env',
  'stat',
  'xargs',
  'sleep',
  'expr',
  'hostname',
] as const;

export type FixtureShell = 'busybox' | 'dash';

/** Whether an ELF executable has a PT_INTERP program header (is dynamically linked). */
export function elfIsDynamic(file: string): boolean {
  const b = readFileSync(file);
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2) return true;
  const phoff = Number(b.readBigUInt64LE(0x20));
  const phentsize = b.readUInt16LE(0x36);
  const phnum = b.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) {
    const off = phoff + i * phentsize;
    if (off + 4 > b.length) break;
    if (b.readUInt32LE(off) === 3) return true;
  }
  return false;
}

function staticBusybox(): string | undefined {
  return ['/bin/busybox', '/usr/bin/busybox'].find((p) => existsSync(p) && !elfIsDynamic(p));
}

/** The static busybox; installs busybox-static with apt-get (as root, non-interactively) when missing. */
export function ensureBusyboxStatic(): string {
  let busybox = staticBusybox();
  if (busybox) return busybox;
  if (process.getuid?.() !== 0) throw new Error(`busybox-static is missing; run as root: ${BUSYBOX_INSTALL}`);
  execFileSync('apt-get', ['update'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'busybox-static'], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  busybox = staticBusybox();
  if (!busybox) throw new Error(`busybox-static did not install; run: ${BUSYBOX_INSTALL}`);
  return busybox;
}

/** Why fixture roots cannot be built here, or undefined when they can. */
export function fixtureRootsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (chroot, mknod, mount)';
  if (!existsSync('/bin/dash')) return 'dash is not installed';
  if (spawnSync('chroot', ['--version'], { stdio: 'ignore' }).error) return 'chroot (coreutils) is not installed';
  return undefined;
}

/** The absolute library paths `ldd` lists for a binary. */
export function lddPaths(binary: string): string[] {
  const out = spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout ?? '';
  const paths: string[] = [];
  for (const line of out.split('\n')) {
    const match = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (match?.[1]) paths.push(match[1]);
  }
  return paths;
}

// ---------------------------------------------------------------------------------------------------
// Where roots live

/** A root-owned, non-group/world-writable base for roots (sshd's ChrootDirectory rule). */
export function fixtureBase(): string {
  for (const base of ['/run', '/var/cache', '/opt', '/srv']) if (pathIsChrootSafe(base)) return base;
  throw new Error('no root-owned, non-writable base directory for fixture roots (/run, /var/cache, /opt, /srv)');
}

/** Every component of `path` is root-owned and not group/world-writable (what sshd's ChrootDirectory demands). */
export function pathIsChrootSafe(path: string): boolean {
  let p = path;
  for (;;) {
    let st;
    try {
      st = statSync(p);
    } catch {
      return false;
    }
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) return false;
    if (p === '/') return true;
    p = dirname(p);
  }
}

// ---------------------------------------------------------------------------------------------------
// The tree builder

export interface RootOptions {
  /** `busybox` (default): /bin/sh is busybox ash. `dash`: /bin/sh is dash, the tools stay busybox applets. */
  readonly shell?: FixtureShell;
  /** Applets to leave out (e.g. `['od', 'timeout']`). */
  readonly omitTools?: readonly string[];
  /** `''` (default): the node is the chroot itself. `'/host'`: a node debug pod, with the node under /host. */
  readonly hostRoot?: '' | '/host';
  /** Parent directory of the root (default: fixtureBase()). */
  readonly base?: string;
}

/** A chroot directory with tools in it and the node's files under `hostRoot`. */
export class NodeTree {
  readonly root: string;
  readonly hostRoot: string;
  readonly shell: FixtureShell;
  #cleaned = false;

  constructor(options: RootOptions = {}) {
    const busybox = ensureBusyboxStatic();
    this.shell = options.shell ?? 'busybox';
    this.hostRoot = options.hostRoot ?? '';
    this.root = mkdtempSync(join(options.base ?? fixtureBase(), `gpumem-node-${this.shell}-`));
    try {
      chmodSync(this.root, 0o755);
      this.#installTools(busybox, new Set(options.omitTools ?? []));
      this.#devices(''); // the chroot's own /dev (in a debug pod, the pod's /dev: host devices when privileged)
      if (this.hostRoot !== '') this.#devices(this.hostRoot);
    } catch (err) {
      this.cleanup();
      throw err;
    }
  }

  #installTools(busybox: string, omit: ReadonlySet<string>): void {
    mkdirSync(join(this.root, 'bin'), { mode: 0o755 });
    copyFileSync(busybox, join(this.root, 'bin/busybox'));
    chmodSync(join(this.root, 'bin/busybox'), 0o755);
    for (const applet of PROBE_APPLETS) {
      if (omit.has(applet)) continue;
      if (applet === 'sh' && this.shell === 'dash') continue;
      symlinkSync('busybox', join(this.root, 'bin', applet));
    }
    if (this.shell === 'dash') {
      copyFileSync('/bin/dash', join(this.root, 'bin/dash'));
      chmodSync(join(this.root, 'bin/dash'), 0o755);
      for (const lib of lddPaths('/bin/dash')) this.#copyResolved(lib);
      symlinkSync('dash', join(this.root, 'bin/sh'));
    }
  }

  /** Copies a library into the root at the same path; a symlink is recreated and its target copied. */
  #copyResolved(path: string): void {
    const dest = join(this.root, path);
    mkdirSync(dirname(dest), { recursive: true, mode: 0o755 });
    if (lstatSync(path).isSymbolicLink()) {
      const target = readlinkSync(path);
      this.#copyResolved(target.startsWith('/') ? target : join(dirname(path), target));
      if (!existsSync(dest)) symlinkSync(target, dest);
      return;
    }
    if (!existsSync(dest)) copyFileSync(path, dest);
    chmodSync(dest, statSync(path).mode & 0o7777);
  }

  #devices(prefix: string): void {
    this.chardev(`${prefix}/dev/null`, 1, 3, 0o666, true);
    this.chardev(`${prefix}/dev/dri/renderD128`, 226, 128, 0o666, true);
    this.chardev(`${prefix}/dev/dri/card0`, 226, 0, 0o660, true);
  }

  /** Absolute path on this machine of a node path (`/proc/meminfo` → `<root><hostRoot>/proc/meminfo`). */
  path(nodePath: string, raw = false): string {
    return join(this.root, raw ? '' : this.hostRoot, nodePath);
  }

  dir(nodePath: string, mode = 0o755, raw = false): void {
    const p = this.path(nodePath, raw);
    mkdirSync(p, { recursive: true, mode: 0o755 });
    chmodSync(p, mode);
  }

  file(nodePath: string, content: string | Buffer, mode = 0o644, raw = false): void {
    const p = this.path(nodePath, raw);
    mkdirSync(dirname(p), { recursive: true, mode: 0o755 });
    writeFileSync(p, content);
    chmodSync(p, mode);
  }

  link(nodePath: string, target: string, raw = false): void {
    const p = this.path(nodePath, raw);
    mkdirSync(dirname(p), { recursive: true, mode: 0o755 });
    symlinkSync(target, p);
  }

  /** `mknod <path> c <major> <minor>` inside the root. */
  chardev(nodePath: string, major: number, minor: number, mode = 0o660, raw = false): void {
    const p = this.path(nodePath, raw);
    if (existsSync(p)) return;
    mkdirSync(dirname(p), { recursive: true, mode: 0o755 });
    execFileSync('mknod', ['-m', mode.toString(8), p, 'c', String(major), String(minor)]);
  }

  /** Removes the tree. Idempotent. */
  cleanup(): void {
    if (this.#cleaned) return;
    this.#cleaned = true;
    rmSync(this.root, { recursive: true, force: true });
  }
}

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
function kernLine(time: string, host: string, message: string): string {
  return `${time} ${host} kernel: ${message}`;
}

// ---------------------------------------------------------------------------------------------------
// Processes

export interface FdSpec {
  readonly fd: number;
  /** Symlink target: `/dev/dri/renderD128`, a regular file, `socket:[123]`… */
  readonly target: string;
  /** fdinfo text; omit for a process that vanished before its fdinfo was read. */
  readonly fdinfo?: string;
}

export interface ProcessSpec {
  readonly pid: number;
  readonly comm: string;
  readonly cmdline?: readonly string[];
  /** The text of /proc/<pid>/cgroup. */
  readonly cgroup: string;
  readonly fds: readonly FdSpec[];
  /** Leave out fdinfo/ entirely (the process exited between `ls` and `cat`). */
  readonly vanished?: boolean;
  /** The text of /proc/<pid>/status (procStatus()). */
  readonly status?: string;
}

/** /proc/<pid>/status in the kernel's format: this machine's copy (test/fixtures/proc/status) with the name and RSS set. */
export function procStatus(comm: string, rss: { readonly anon: number; readonly file: number; readonly shmem: number }): string {
  const kb = (bytes: number) => `${String(Math.floor(bytes / 1024)).padStart(8)} kB`;
  return readFileSync(new URL('../fixtures/proc/status', import.meta.url), 'utf8')
    .replace(/^Name:\t.*$/m, `Name:\t${comm.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`)
    .replace(/^VmRSS:.*$/m, `VmRSS:\t${kb(rss.anon + rss.file + rss.shmem)}`)
    .replace(/^RssAnon:.*$/m, `RssAnon:\t${kb(rss.anon)}`)
    .replace(/^RssFile:.*$/m, `RssFile:\t${kb(rss.file)}`)
    .replace(/^RssShmem:.*$/m, `RssShmem:\t${kb(rss.shmem)}`);
}

/** A fake /proc/<pid> with the kernel's formats and modes (fd/ is dr-x------ as on a real node). */
export function addProcess(tree: NodeTree, proc: ProcessSpec): void {
  const dir = `/proc/${proc.pid}`;
  tree.file(`${dir}/comm`, `${proc.comm}\n`);
  tree.file(`${dir}/cmdline`, proc.cmdline && proc.cmdline.length > 0 ? `${proc.cmdline.join('\0')}\0` : '', 0o444);
  tree.file(`${dir}/cgroup`, proc.cgroup, 0o444);
  if (proc.status !== undefined) tree.file(`${dir}/status`, proc.status, 0o444);
  tree.dir(`${dir}/fd`);
  if (!proc.vanished) tree.dir(`${dir}/fdinfo`, 0o555);
  for (const fd of proc.fds) {
    tree.link(`${dir}/fd/${fd.fd}`, fd.target);
    if (!proc.vanished && fd.fdinfo !== undefined) tree.file(`${dir}/fdinfo/${fd.fd}`, fd.fdinfo, 0o444);
  }
  chmodSync(tree.path(`${dir}/fd`), 0o500);
}

function stdFds(log: string): FdSpec[] {
  return [
    { fd: 0, target: '/dev/null', fdinfo: plainFdinfo('0100000', 5) },
    { fd: 1, target: log, fdinfo: plainFdinfo('0102001', 918273) },
    { fd: 2, target: log, fdinfo: plainFdinfo('0102001', 918273) },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Common node files

const UBUNTU_2604 = `PRETTY_NAME="Ubuntu 26.04 LTS"
NAME="Ubuntu"
VERSION_ID="26.04"
VERSION="26.04 LTS (Resolute Raccoon)"
VERSION_CODENAME=resolute
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
UBUNTU_CODENAME=resolute
`;

const UBUNTU_2404 = `PRETTY_NAME="Ubuntu 24.04.2 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.2 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=noble
LOGO=ubuntu-logo
`;

const KUBELET_CONFIG = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
authorization:
  mode: Webhook
cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
evictionHard:
  memory.available: 500Mi
  nodefs.available: 10%
kubeReserved:
  cpu: 500m
  memory: 1Gi
systemReserved:
  cpu: 500m
  memory: 2Gi
rotateCertificates: true
staticPodPath: /etc/kubernetes/manifests
`;

function containerdConfig(defaultRuntime: 'runc' | 'nvidia'): string {
  const nvidia =
    defaultRuntime === 'nvidia'
      ? `
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
            BinaryName = "/usr/bin/nvidia-container-runtime"
            SystemdCgroup = true
`
      : '';
  return `disabled_plugins = []
imports = ["/etc/containerd/conf.d/*.toml"]
oom_score = 0
root = "/var/lib/containerd"
state = "/run/containerd"
version = 2

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.10"

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "${defaultRuntime}"
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]
${nvidia}
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = true
`;
}

interface CommonNode {
  readonly hostname: string;
  readonly kernel: string;
  readonly osRelease: string;
  readonly memTotalKb: number;
  readonly memFreeKb: number;
  readonly memAvailableKb: number;
  readonly gpu?: { activeKb: number; reclaimKb: number };
  readonly oomKill: number;
  readonly cmdline: string;
  readonly kernLog: string;
  readonly containerd: 'runc' | 'nvidia';
  readonly kubeletCgroupLine: string;
}

const KUBELET_PID = 1342;

function writeCommon(tree: NodeTree, node: CommonNode): void {
  tree.file('/etc/hostname', `${node.hostname}\n`);
  tree.file('/etc/os-release', node.osRelease);
  tree.file('/proc/sys/kernel/osrelease', `${node.kernel}\n`, 0o444);
  tree.file('/proc/meminfo', meminfoText(node), 0o444);
  tree.file(
    '/proc/vmstat',
    vmstatText({
      oomKill: node.oomKill,
      ...(node.gpu ? { gpu: { activePages: node.gpu.activeKb / 4, reclaimPages: node.gpu.reclaimKb / 4 } } : {}),
    }),
    0o444,
  );
  tree.file('/proc/uptime', '1986431.82 30973542.61\n', 0o444);
  tree.file('/proc/cmdline', `${node.cmdline}\n`, 0o444);
  tree.file('/sys/devices/system/node/node0/meminfo', nodeMeminfoText(node.memTotalKb, node.memFreeKb, node.gpu), 0o444);
  // Debian/Ubuntu: /var/log/kern.log is root:adm 0640.
  tree.file('/var/log/kern.log', node.kernLog, 0o640);
  tree.file('/etc/containerd/config.toml', containerdConfig(node.containerd));
  // CIS Kubernetes benchmark 4.1.9: the kubelet config file 600 or stricter.
  tree.file('/var/lib/kubelet/config.yaml', KUBELET_CONFIG, 0o600);
  // pid 1, a kernel thread (empty fd/), the kubelet.
  addProcess(tree, {
    pid: 1,
    comm: 'systemd',
    cmdline: ['/sbin/init', 'splash'],
    cgroup: node.kubeletCgroupLine.replace('/system.slice/kubelet.service', '/init.scope'),
    fds: [
      { fd: 0, target: '/dev/null', fdinfo: plainFdinfo('0100002', 5) },
      { fd: 3, target: 'anon_inode:[timerfd]', fdinfo: plainFdinfo('02004002', 1066) },
      { fd: 4, target: 'socket:[18305]', fdinfo: plainFdinfo('02004002', 18305) },
    ],
  });
  addProcess(tree, { pid: 2, comm: 'kthreadd', cgroup: node.kubeletCgroupLine.replace(/\/system\.slice\/kubelet\.service/, '/'), fds: [] });
  addProcess(tree, {
    pid: KUBELET_PID,
    comm: 'kubelet',
    cmdline: [
      '/usr/bin/kubelet',
      '--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf',
      '--kubeconfig=/etc/kubernetes/kubelet.conf',
      '--config=/var/lib/kubelet/config.yaml',
      '--node-ip=10.20.0.11',
    ],
    cgroup: node.kubeletCgroupLine,
    fds: [...stdFds('/var/log/kubelet.log'), { fd: 7, target: 'socket:[27731]', fdinfo: plainFdinfo('02004002', 27731) }],
  });
  tree.file('/var/log/kubelet.log', '');
}

/** The /proc/<pid>/cgroup text for a cgroup path: `0::<path>` (v2), or v1 controller lines (cgroupfs driver). */
export function procCgroup(mode: 'v2' | 'v1', path: string): string {
  if (mode === 'v2') return `0::${path}\n`;
  return (
    [
      `12:hugetlb:${path}`,
      `11:perf_event:${path}`,
      `10:freezer:${path}`,
      `9:devices:${path}`,
      `8:blkio:${path}`,
      `7:net_cls,net_prio:${path}`,
      `6:cpuset:${path}`,
      `5:pids:${path}`,
      `4:memory:${path}`,
      `3:cpu,cpuacct:${path}`,
      `2:rdma:/`,
      `1:name=systemd:${path}`,
    ].join('\n') + '\n'
  );
}

// ---------------------------------------------------------------------------------------------------
// cgroup trees

interface CgroupV2Dir {
  readonly path: string;
  readonly controllers: string;
  readonly subtreeControl: string;
  readonly current: number;
  readonly max: number | 'max';
  readonly peak?: number;
  readonly events?: { max?: number; oom?: number; oomKill?: number };
  readonly dmem?: { current: string; max: string; min: string; low: string; peak?: string };
}

function writeCgroupV2Dir(tree: NodeTree, dir: CgroupV2Dir): void {
  const base = `/sys/fs/cgroup${dir.path}`;
  tree.file(`${base}/cgroup.controllers`, `${dir.controllers}\n`, 0o444);
  tree.file(`${base}/cgroup.subtree_control`, `${dir.subtreeControl}\n`);
  tree.file(`${base}/memory.current`, `${dir.current}\n`, 0o444);
  tree.file(`${base}/memory.max`, `${dir.max}\n`);
  tree.file(`${base}/memory.high`, 'max\n');
  tree.file(`${base}/memory.min`, '0\n');
  tree.file(`${base}/memory.low`, '0\n');
  tree.file(`${base}/memory.peak`, `${dir.peak ?? dir.current}\n`);
  tree.file(`${base}/memory.events`, memoryEvents(dir.events), 0o444);
  tree.file(`${base}/memory.stat`, memoryStatV2(dir.current), 0o444);
  tree.file(`${base}/cgroup.procs`, '');
  if (dir.dmem) {
    tree.file(`${base}/dmem.current`, `${dir.dmem.current}\n`, 0o444);
    tree.file(`${base}/dmem.max`, `${dir.dmem.max}\n`);
    tree.file(`${base}/dmem.min`, `${dir.dmem.min}\n`);
    tree.file(`${base}/dmem.low`, `${dir.dmem.low}\n`);
    if (dir.dmem.peak !== undefined) tree.file(`${base}/dmem.peak`, `${dir.dmem.peak}\n`, 0o444);
  }
}

interface CgroupV1Dir {
  readonly path: string;
  readonly usage: number;
  readonly limit: number | 'max';
  readonly maxUsage?: number;
  readonly oomKill?: number;
}

function writeCgroupV1Dir(tree: NodeTree, dir: CgroupV1Dir): void {
  const base = `/sys/fs/cgroup/memory${dir.path}`;
  const limit = dir.limit === 'max' ? V1_UNLIMITED : String(dir.limit);
  tree.file(`${base}/memory.usage_in_bytes`, `${dir.usage}\n`, 0o444);
  tree.file(`${base}/memory.limit_in_bytes`, `${limit}\n`);
  tree.file(`${base}/memory.max_usage_in_bytes`, `${dir.maxUsage ?? dir.usage}\n`);
  tree.file(`${base}/memory.stat`, memoryStatV1(dir.usage, dir.limit), 0o444);
  tree.file(`${base}/memory.oom_control`, `oom_kill_disable 0\nunder_oom 0\noom_kill ${dir.oomKill ?? 0}\n`);
  tree.file(`${base}/memory.failcnt`, '0\n');
  tree.file(`${base}/memory.use_hierarchy`, '1\n');
  tree.file(`${base}/cgroup.procs`, '');
}

/** Names no probe may choke on: a directory with a space, a directory and a file with a newline. */
function hostileCgroupNames(tree: NodeTree, parent: string, write: (path: string) => void): { spaced: string; newline: string } {
  const spaced = `${parent}/odd name.slice`;
  const newline = `${parent}/bad\nname.slice`;
  write(spaced);
  write(newline);
  tree.file(`/sys/fs/cgroup${parent}/memory.current\nforged`, '4096\n', 0o444);
  return { spaced, newline };
}

// ---------------------------------------------------------------------------------------------------
// Scenarios

export interface Fixture<F> {
  /** The chroot directory. */
  readonly root: string;
  /** The node's root inside the chroot: '' or '/host' (the probe's $R). */
  readonly hostRoot: string;
  readonly shell: FixtureShell;
  readonly facts: F;
  cleanup(): void;
}

export interface ApuOptions extends RootOptions {
  /** The release /proc/sys/kernel/osrelease claims. Default 7.1.0-9-generic. */
  readonly kernel?: string;
  /** cgroup v2 with the systemd driver (default) or cgroup v1 with the cgroupfs driver. */
  readonly cgroup?: 'v2' | 'v1';
  /** Put ~20 MB of earlier log lines before the OOM report in /var/log/kern.log. */
  readonly hugeKernelLog?: boolean;
  /** amdgpu debugfs under /sys/kernel/debug: none (default), an empty mount point, a root-only (0700) one, or
   *  readable with the pod's clients (`huge`: one client with 100,000 buffers more). See amdgpuDebugfsFiles.ts. */
  readonly debugfs?: 'absent' | 'unmounted' | 'root-only' | 'readable' | 'huge';
}

export interface ApuFacts {
  readonly hostname: string;
  readonly kernel: string;
  readonly cgroupMode: 'v2' | 'v1';
  readonly memTotal: number;
  readonly memAvailable: number;
  readonly gpuActive: number;
  readonly gpuReclaim: number;
  readonly gttUsed: number;
  readonly gttTotal: number;
  readonly pdev: string;
  readonly dmemRegion: string;
  readonly podUid: string;
  /** The pod's cgroup path relative to the memory controller root. */
  readonly podCgroupPath: string;
  readonly containerId: string;
  readonly memoryCurrent: number;
  readonly memoryMax: number;
  /** GTT of the pod's distinct DRM clients: 18 GiB + 12 GiB. */
  readonly podGtt: number;
  readonly podVram: number;
  /** pids of the pod that hold DRM clients (the fork shares its parent's client). */
  readonly gpuPids: readonly number[];
  readonly hostileComm: string;
  readonly hostilePid: number;
  /** pid whose fd 5 and fd 9 are the same DRM file (dup), and the child that inherited it. */
  readonly dupPid: number;
  readonly forkPid: number;
  readonly sharedClientId: number;
  /** A pod process that vanished mid-sweep: fd/ symlinks, no fdinfo. */
  readonly vanishedPid: number;
  /** A GPU process outside any pod. */
  readonly systemGpuPid: number;
  readonly systemGpuGtt: number;
  readonly besteffortPodUid: string;
  readonly oomVictimPid: number;
  readonly oomVictimComm: string;
  readonly spacedCgroup: string;
  readonly newlineCgroup: string;
  /** The level whose cgroup.subtree_control lacks dmem (v2). */
  readonly dmemGapLevel: string;
  readonly kernLogFirstLine: string;
  readonly kernLogBytes: number;
}

const APU_PDEV = '0000:c5:00.0';

/** What the APU fixture's debugfs holds: gem_info agrees with fdinfo for pid 4101 and 2210, and lists 800 MiB less
 *  GTT than fdinfo for pid 4102 (a mapped buffer whose handle was closed); the GTT manager's usage is sysfs's. */
export const APU_DEBUGFS = {
  pid4102GttShort: 800 * MiB,
  hugeBuffers: 100_000,
  hugeBufferBytes: 2 * MiB,
  hugePid: 4300,
  pool: { wc: [120, 40, 10, 0, 8, 0, 0, 0, 0, 0, 0], uc: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 'wc 32': [3], 'uc 32': [] },
  poolLimitPages: 25165824,
};

function writeApuDebugfs(
  tree: NodeTree,
  kind: NonNullable<ApuOptions['debugfs']>,
  sizes: { gttTotal: number; gttUsed: number; vramTotal: number; systemGpuGtt: number },
): void {
  if (kind === 'absent') return;
  tree.dir('/sys/kernel/debug');
  if (kind === 'unmounted') return;
  const clients: GemClientSpec[] = [
    {
      pid: 2210,
      command: 'amd-metrics-exp',
      buffers: [
        { bytes: 4 * MiB, placement: 'GTT', count: sizes.systemGpuGtt / (4 * MiB), flags: ['CPU_GTT_USWC'] },
        { bytes: 4 * MiB, placement: 'VRAM VISIBLE', flags: ['CPU_ACCESS_REQUIRED', 'VRAM_CLEARED'] },
      ],
    },
    {
      pid: 4101,
      command: `python3 "a" 'b'`,
      buffers: [
        { bytes: 16 * GiB, placement: 'GTT', flags: ['CPU_GTT_USWC'], fence: true },
        { bytes: 2 * MiB, placement: 'GTT', count: 1024, flags: ['CPU_GTT_USWC', 'VM_ALWAYS_VALID'] },
        { bytes: 32 * MiB, placement: 'VRAM VISIBLE', count: 3, pinned: 1 },
        { bytes: 2 * MiB, placement: 'CPU' },
      ],
    },
    {
      pid: 4102,
      command: 'llama-server',
      clientName: 'llama.cpp',
      buffers: [
        { bytes: 1 * GiB, placement: 'GTT', count: 11, exported: 88213 },
        { bytes: 2 * MiB, placement: 'GTT', count: 112 },
        { bytes: 32 * MiB, placement: 'VRAM' },
      ],
    },
    // A comm with a newline (prctl PR_SET_NAME allows one): what follows it must not pass for a buffer line.
    { pid: 4105, command: 'x\n\t0x0: 9 byte', buffers: [] },
  ];
  if (kind === 'huge')
    clients.push({
      pid: APU_DEBUGFS.hugePid,
      command: 'bo-storm',
      buffers: [{ bytes: APU_DEBUGFS.hugeBufferBytes, placement: 'GTT', count: APU_DEBUGFS.hugeBuffers }],
    });
  const dri = '/sys/kernel/debug/dri/0';
  tree.file(`${dri}/name`, `amdgpu dev=${APU_PDEV} unique=${APU_PDEV}\n`, 0o444);
  tree.file(`${dri}/amdgpu_gem_info`, amdgpuGemInfo(clients), 0o444);
  tree.file(`${dri}/amdgpu_gtt_mm`, amdgpuGttMm(sizes.gttTotal, sizes.gttUsed), 0o444);
  tree.file(`${dri}/amdgpu_vram_mm`, amdgpuVramMm(sizes.vramTotal, 402653184, 402653184), 0o444);
  tree.file(`${dri}/ttm_page_pool`, 'unused\n', 0o444);
  // Files that act when read on a real node: the probe must never read them (a test checks their text is absent).
  tree.file(`${dri}/amdgpu_evict_vram`, 'DECOY-EVICTED-VRAM\n', 0o444);
  tree.file(`${dri}/amdgpu_gpu_recover`, 'DECOY-GPU-RESET\n', 0o444);
  tree.file('/sys/kernel/debug/ttm/page_pool_shrink', 'DECOY-SHRUNK\n', 0o400);
  tree.file('/sys/kernel/debug/ttm/page_pool', ttmGlobalPagePool(APU_DEBUGFS.pool, APU_DEBUGFS.poolLimitPages), 0o444);
  // The render minor has a directory too, without amdgpu's files.
  tree.dir('/sys/kernel/debug/dri/128');
  tree.file('/sys/kernel/debug/dri/128/name', `amdgpu dev=${APU_PDEV} unique=${APU_PDEV}\n`, 0o444);
  if (kind === 'root-only') chmodSync(tree.path('/sys/kernel/debug'), 0o700);
}

/** A Strix Halo (gfx1151) node with a GTT-heavy pod: 2 GiB accounted, 16 GiB limit, 30 GiB of GTT. */
export function buildApuNode(options: ApuOptions = {}): Fixture<ApuFacts> {
  const tree = new NodeTree(options);
  try {
    const facts = writeApuNode(tree, options);
    return { root: tree.root, hostRoot: tree.hostRoot, shell: tree.shell, facts, cleanup: () => tree.cleanup() };
  } catch (err) {
    tree.cleanup();
    throw err;
  }
}

function writeApuNode(tree: NodeTree, options: ApuOptions): ApuFacts {
  const mode = options.cgroup ?? 'v2';
  const kernel = options.kernel ?? '7.1.0-9-generic';
  const at73 = /^(\d+)\.(\d+)/.exec(kernel);
  const is73 = at73 !== null && (Number(at73[1]) > 7 || (Number(at73[1]) === 7 && Number(at73[2]) >= 3));
  const hostname = 'strix-node-1';
  const podUid = 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96';
  const uidUnderscored = podUid.replace(/-/g, '_');
  const ctr = containerId('llama-server-restart-1');
  const oldCtr = containerId('llama-server-first-run');
  const sandbox = containerId('llama-sandbox');
  const bePodUid = '0c2e4f6a-8b1d-4c3e-9f5a-7b9d1e3f5a7c';
  const beCtr = containerId('node-exporter');
  const memoryCurrent = 2 * GiB;
  const memoryMax = 16 * GiB;
  const gttA = 18 * GiB;
  const gttB = 12 * GiB;
  const systemGpuGtt = 64 * MiB;
  const kernelGtt = 128 * MiB;
  const gttUsed = gttA + gttB + systemGpuGtt + kernelGtt;
  const gttTotal = 103079215104; // ttm.pages_limit=25165824 × 4096
  const memTotalKb = 133175944; // 128 GiB less the 512 MiB carve-out and firmware reservations
  const gpuActiveKb = gttUsed / 1024;
  const gpuReclaimKb = 524288;
  const memAvailableKb = memTotalKb - gpuActiveKb - 5 * 1024 * 1024 - 3 * 1024 * 1024;
  const vramTotal = 512 * MiB;

  // cgroup paths
  const kubepods = mode === 'v2' ? '/kubepods.slice' : '/kubepods';
  const burstable = mode === 'v2' ? `${kubepods}/kubepods-burstable.slice` : `${kubepods}/burstable`;
  const besteffort = mode === 'v2' ? `${kubepods}/kubepods-besteffort.slice` : `${kubepods}/besteffort`;
  const podPath = mode === 'v2' ? `${burstable}/kubepods-burstable-pod${uidUnderscored}.slice` : `${burstable}/pod${podUid}`;
  const ctrPath = mode === 'v2' ? `${podPath}/cri-containerd-${ctr}.scope` : `${podPath}/${ctr}`;
  const oldCtrPath = mode === 'v2' ? `${podPath}/cri-containerd-${oldCtr}.scope` : `${podPath}/${oldCtr}`;
  const sandboxPath = mode === 'v2' ? `${podPath}/cri-containerd-${sandbox}.scope` : `${podPath}/${sandbox}`;
  const bePodPath =
    mode === 'v2' ? `${besteffort}/kubepods-besteffort-pod${bePodUid.replace(/-/g, '_')}.slice` : `${besteffort}/pod${bePodUid}`;
  const beCtrPath = mode === 'v2' ? `${bePodPath}/cri-containerd-${beCtr}.scope` : `${bePodPath}/${beCtr}`;
  const kubeletCgroup = mode === 'v2' ? '0::/system.slice/kubelet.service\n' : procCgroup('v1', '/system.slice/kubelet.service');

  // Kernel log: amdgpu boot lines, then the global OOM kill of the pod's first container (rsyslog kern.log).
  const victimPid = 398211;
  const victimComm = 'llama-server';
  const log: string[] = [];
  const firstLine = kernLine(
    '2026-08-20T06:12:44.118702+00:00',
    hostname,
    `Linux version ${kernel} (buildd@lcy02-amd64-031) (x86_64-linux-gnu-gcc-15 (Ubuntu 15.2.0-4ubuntu3) 15.2.0, GNU ld (GNU Binutils for Ubuntu) 2.45) #9-Ubuntu SMP PREEMPT_DYNAMIC Wed Aug  5 10:11:12 UTC 2026 (Ubuntu ${kernel})`,
  );
  log.push(firstLine);
  if (options.hugeKernelLog) {
    // ~20 MB of ordinary noise before the report: the probe must keep only the last MiB.
    const noise = [
      'audit: type=1400 audit(1787212345.123:4521): apparmor="DENIED" operation="open" class="file" profile="cri-containerd.apparmor.d" name="/proc/sys/kernel/random/boot_id" pid=2211 comm="runc:[2:INIT]" requested_mask="r" denied_mask="r" fsuid=0 ouid=0',
      `amdgpu ${APU_PDEV}: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32771)`,
      'IPv6: ADDRCONF(NETDEV_CHANGE): cali3f1e9a2b7c4: link becomes ready',
      'cni0: port 3(veth5d2a91c3) entered forwarding state',
    ];
    let size = 0;
    let i = 0;
    while (size < 20 * 1000 * 1000) {
      const secs = 1000 + i;
      const line = kernLine(
        `2026-08-20T${String(6 + (Math.floor(secs / 3600) % 18)).padStart(2, '0')}:${String(Math.floor(secs / 60) % 60).padStart(2, '0')}:${String(secs % 60).padStart(2, '0')}.${String(i % 1000000).padStart(6, '0')}+00:00`,
        hostname,
        noise[i % noise.length] as string,
      );
      log.push(line);
      size += line.length + 1;
      i++;
    }
  }
  const t = (us: number) => `2026-08-21T09:58:12.${String(502113 + us).padStart(6, '0')}+00:00`;
  log.push(
    kernLine('2026-08-20T06:12:48.118702+00:00', hostname, `amdgpu ${APU_PDEV}: amdgpu: 512M of VRAM memory ready`),
    kernLine(
      '2026-08-20T06:12:48.118705+00:00',
      hostname,
      `amdgpu ${APU_PDEV}: amdgpu: Capping GTT to 98304M to not exceed available system memory`,
    ),
    kernLine('2026-08-20T06:12:48.118707+00:00', hostname, `amdgpu ${APU_PDEV}: amdgpu: 98304M of GTT memory ready.`),
    // A line that looks like a probe marker: a fixed nonce that cannot be the run's.
    '@@gpumem:0123456789abcdef01234567:end kernel-log@@',
    kernLine(
      t(0),
      hostname,
      `${victimComm} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=969`,
    ),
    kernLine(t(8), hostname, `CPU: 7 UID: 1000 PID: ${victimPid} Comm: ${victimComm} Not tainted ${kernel} #9-Ubuntu`),
    kernLine(t(11), hostname, 'Hardware name: Example Vendor Strix Halo Mini PC/Board, BIOS 1.00 01/01/2026'),
    kernLine(t(12), hostname, 'Call Trace:'),
    kernLine(t(14), hostname, ' <TASK>'),
    kernLine(t(36), hostname, ' ttm_pool_alloc_page+0x42/0x1a0 [ttm]'),
    kernLine(t(40), hostname, ' ttm_pool_alloc+0x1f6/0x560 [ttm]'),
    kernLine(t(44), hostname, ' amdgpu_ttm_tt_populate+0x5c/0xd0 [amdgpu]'),
    kernLine(t(47), hostname, ' </TASK>'),
    kernLine(t(88), hostname, 'Mem-Info:'),
    kernLine(t(91), hostname, 'active_anon:470855 inactive_anon:2311 isolated_anon:0'),
    kernLine(
      t(94),
      hostname,
      `Node 0 active_anon:1883420kB inactive_anon:9244kB active_file:10240kB inactive_file:8192kB unevictable:0kB isolated(anon):0kB isolated(file):0kB mapped:40960kB dirty:0kB writeback:0kB shmem:20480kB shmem_thp:0kB shmem_pmdmapped:0kB anon_thp:0kB writeback_tmp:0kB kernel_stack:12288kB pagetables:30720kB sec_pagetables:0kB all_unreclaimable? yes Balloon:0kB gpu_active:${94371840}kB gpu_reclaim:524288kB`,
    ),
    kernLine(t(102), hostname, 'Tasks state (memory values in pages):'),
    kernLine(
      t(103),
      hostname,
      '[  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name',
    ),
    kernLine(
      t(117),
      hostname,
      `[ ${victimPid}]  1000 ${victimPid}  9437184   474623   470855     3768        0  7340032        0           969 ${victimComm}`,
    ),
    kernLine(
      t(147),
      hostname,
      `oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=${mode === 'v2' ? `cri-containerd-${oldCtr}.scope` : oldCtr},mems_allowed=0,global_oom,task_memcg=${oldCtrPath},task=${victimComm},pid=${victimPid},uid=1000`,
    ),
    kernLine(
      t(168),
      hostname,
      `Out of memory: Killed process ${victimPid} (${victimComm}) total-vm:37748736kB, anon-rss:1883420kB, file-rss:15072kB, shmem-rss:0kB, UID:1000 pgtables:7168kB oom_score_adj:969`,
    ),
    kernLine('2026-08-21T09:58:14.001337+00:00', hostname, `cni0: port 2(veth8a1c2d3e) entered disabled state`),
  );
  const kernLog = `${log.join('\n')}\n`;

  writeCommon(tree, {
    hostname,
    kernel,
    osRelease: UBUNTU_2604,
    memTotalKb,
    memFreeKb: memAvailableKb - 2 * 1024 * 1024,
    memAvailableKb,
    gpu: { activeKb: gpuActiveKb, reclaimKb: gpuReclaimKb },
    oomKill: 1,
    cmdline: `BOOT_IMAGE=/vmlinuz-${kernel} root=UUID=6f0c2d1e-4b3a-4f5e-8d7c-1a2b3c4d5e6f ro quiet splash amd_iommu=off ttm.pages_limit=25165824 ttm.page_pool_size=25165824${mode === 'v1' ? ' systemd.unified_cgroup_hierarchy=0' : ''}`,
    kernLog,
    containerd: 'runc',
    kubeletCgroupLine: kubeletCgroup,
  });

  // DRM device: Strix Halo, its render node, a connector to skip, the driver link, module params, KFD.
  const dev = '/sys/class/drm/card0/device';
  const sysfs: Record<string, string> = {
    vendor: '0x1002',
    device: '0x1586',
    subsystem_device: '0x0123',
    revision: '0xc1',
    mem_info_vram_total: String(vramTotal),
    mem_info_vram_used: String(402653184),
    mem_info_vis_vram_total: String(vramTotal),
    mem_info_vis_vram_used: String(402653184),
    mem_info_gtt_total: String(gttTotal),
    mem_info_gtt_used: String(gttUsed),
    mem_info_preempt_used: '0',
  };
  for (const [name, value] of Object.entries(sysfs)) tree.file(`${dev}/${name}`, `${value}\n`, 0o444);
  tree.dir('/sys/bus/pci/drivers/amdgpu');
  tree.link(`${dev}/driver`, '../../../../bus/pci/drivers/amdgpu');
  tree.file('/sys/class/drm/card0-DP-1/status', 'disconnected\n', 0o444);
  tree.file('/sys/class/drm/renderD128/dev', '226:128\n', 0o444);
  for (const [name, value] of Object.entries({ gttsize: '-1', vm_fragment_size: '-1', gpu_recovery: '-1', cwsr_enable: '1', mes: '1' }))
    tree.file(`/sys/module/amdgpu/parameters/${name}`, `${value}\n`, 0o444);
  for (const [name, value] of Object.entries({ pages_limit: '25165824', page_pool_size: '25165824', dma32_pages_limit: '524288' }))
    tree.file(`/sys/module/ttm/parameters/${name}`, `${value}\n`, 0o644);
  tree.file('/sys/class/kfd/kfd/topology/nodes/0/gpu_id', '0\n', 0o444);
  tree.file('/sys/class/kfd/kfd/topology/nodes/0/name', '\n', 0o444);
  tree.file('/sys/class/kfd/kfd/topology/nodes/1/gpu_id', '40087\n', 0o444);
  tree.file('/sys/class/kfd/kfd/topology/nodes/1/name', 'gfx1151\n', 0o444);
  tree.file('/sys/class/kfd/kfd/proc/4101/vram_40087', `${96 * MiB}\n`, 0o444);
  tree.chardev('/dev/kfd', 236, 0, 0o666);
  writeApuDebugfs(tree, options.debugfs ?? 'absent', { gttTotal, gttUsed, vramTotal, systemGpuGtt });

  // cgroups
  const region = `drm/${APU_PDEV}/vram`;
  let spaced: string;
  let newline: string;
  if (mode === 'v2') {
    const all = 'cpuset cpu io memory hugetlb pids rdma misc dmem';
    const noDmem = 'cpuset cpu io memory hugetlb pids rdma misc';
    tree.file('/sys/fs/cgroup/cgroup.controllers', `${all}\n`, 0o444);
    tree.file('/sys/fs/cgroup/cgroup.subtree_control', `${all}\n`);
    tree.file('/sys/fs/cgroup/dmem.capacity', `${region} ${vramTotal}\n`, 0o444);
    tree.file('/sys/fs/cgroup/dmem.current', `${region} 402653184\n`, 0o444);
    tree.file('/sys/fs/cgroup/memory.stat', memoryStatV2(9 * GiB), 0o444);
    tree.file('/sys/fs/cgroup/cgroup.procs', '');
    const dmemLevel = (current: number) => ({
      current: `${region} ${current}`,
      max: `${region} max`,
      min: `${region} 0`,
      low: `${region} 0`,
      ...(is73 ? { peak: `${region} ${current}` } : {}),
    });
    writeCgroupV2Dir(tree, {
      path: kubepods,
      controllers: all,
      subtreeControl: noDmem,
      current: memoryCurrent + 54 * MiB,
      max: 126 * GiB,
      events: { oomKill: 1 },
      dmem: dmemLevel(134217728),
    });
    writeCgroupV2Dir(tree, {
      path: burstable,
      controllers: noDmem,
      subtreeControl: noDmem,
      current: memoryCurrent,
      max: 'max',
      events: { oomKill: 1 },
    });
    writeCgroupV2Dir(tree, {
      path: podPath,
      controllers: noDmem,
      subtreeControl: noDmem,
      current: memoryCurrent,
      max: memoryMax,
      peak: 2469396480,
      events: { oomKill: 1 },
    });
    writeCgroupV2Dir(tree, {
      path: ctrPath,
      controllers: noDmem,
      subtreeControl: '',
      current: memoryCurrent - 245760,
      max: memoryMax,
      peak: memoryCurrent - 245760,
    });
    writeCgroupV2Dir(tree, { path: sandboxPath, controllers: noDmem, subtreeControl: '', current: 245760, max: 'max' });
    writeCgroupV2Dir(tree, { path: besteffort, controllers: noDmem, subtreeControl: noDmem, current: 54 * MiB, max: 'max' });
    writeCgroupV2Dir(tree, { path: bePodPath, controllers: noDmem, subtreeControl: noDmem, current: 54 * MiB, max: 'max' });
    writeCgroupV2Dir(tree, { path: beCtrPath, controllers: noDmem, subtreeControl: '', current: 54 * MiB - 4096, max: 'max' });
    ({ spaced, newline } = hostileCgroupNames(tree, besteffort, (path) => {
      tree.file(`/sys/fs/cgroup${path}/memory.current`, '4096\n', 0o444);
      tree.file(`/sys/fs/cgroup${path}/memory.max`, 'max\n');
    }));
  } else {
    tree.dir('/sys/fs/cgroup/systemd');
    tree.dir('/sys/fs/cgroup/pids');
    tree.file('/sys/fs/cgroup/memory/memory.usage_in_bytes', `${9 * GiB}\n`, 0o444);
    tree.file('/sys/fs/cgroup/memory/memory.limit_in_bytes', `${V1_UNLIMITED}\n`);
    tree.file('/sys/fs/cgroup/memory/memory.stat', memoryStatV1(9 * GiB, 'max'), 0o444);
    tree.file('/sys/fs/cgroup/memory/memory.use_hierarchy', '1\n');
    writeCgroupV1Dir(tree, { path: kubepods, usage: memoryCurrent + 54 * MiB, limit: 126 * GiB, oomKill: 1 });
    writeCgroupV1Dir(tree, { path: burstable, usage: memoryCurrent, limit: 'max', oomKill: 1 });
    writeCgroupV1Dir(tree, { path: podPath, usage: memoryCurrent, limit: memoryMax, maxUsage: 2469396480, oomKill: 1 });
    writeCgroupV1Dir(tree, { path: ctrPath, usage: memoryCurrent - 245760, limit: memoryMax });
    writeCgroupV1Dir(tree, { path: sandboxPath, usage: 245760, limit: 'max' });
    writeCgroupV1Dir(tree, { path: besteffort, usage: 54 * MiB, limit: 'max' });
    writeCgroupV1Dir(tree, { path: bePodPath, usage: 54 * MiB, limit: 'max' });
    writeCgroupV1Dir(tree, { path: beCtrPath, usage: 54 * MiB - 4096, limit: 'max' });
    spaced = `${besteffort}/odd name`;
    newline = `${besteffort}/bad\nname`;
    for (const path of [spaced, newline]) tree.file(`/sys/fs/cgroup/memory${path}/memory.usage_in_bytes`, '4096\n', 0o444);
    tree.file(`/sys/fs/cgroup/memory${besteffort}/memory.usage_in_bytes\nforged`, '4096\n', 0o444);
  }

  // Processes. Client 1041: 18 GiB GTT, held by pid 4101 on fd 5 and (dup) fd 9, and inherited by the
  // forked worker 4150. Client 1057: 12 GiB GTT in pid 4102. 4199 vanished mid-sweep. 2210 is outside
  // any pod (a metrics exporter with its own small client).
  const ctrCgroup = procCgroup(mode, ctrPath);
  const clientA: AmdgpuClient = { clientId: 1041, pdev: APU_PDEV, pasid: 32770, gtt: gttA, vram: 96 * MiB, cpu: 2 * MiB };
  const clientB: AmdgpuClient = { clientId: 1057, pdev: APU_PDEV, pasid: 32771, gtt: gttB, vram: 32 * MiB, cpu: 0 };
  const hostileComm = `python3 "a" 'b'`;
  const podLog = `/var/log/pods/default_llama-0_${podUid}/llama/1.log`;
  tree.file(podLog, '');
  addProcess(tree, {
    pid: 4101,
    comm: hostileComm,
    cmdline: ['python3', '-m', 'vllm.entrypoints.openai.api_server', '--model', '/models/qwen3-32b'],
    cgroup: ctrCgroup,
    // The model file mmap'd: resident, but its page cache was charged when another pod first read it.
    status: procStatus(hostileComm, { anon: 1 * GiB, file: 2.5 * GiB, shmem: 0 }),
    fds: [
      ...stdFds(podLog),
      { fd: 3, target: 'socket:[771203]', fdinfo: plainFdinfo('02004002', 771203) },
      {
        fd: 4,
        target: 'anon_inode:[eventfd]',
        fdinfo: `${plainFdinfo('02004002', 1066)}eventfd-count:                0\neventfd-id: 14\neventfd-semaphore: 0\n`,
      },
      { fd: 5, target: '/dev/dri/renderD128', fdinfo: amdgpuFdinfo(clientA) },
      { fd: 6, target: '/dev/kfd', fdinfo: plainFdinfo('02100002', 1140) },
      { fd: 8, target: '/models/qwen3-32b/model-00001-of-00017.safetensors', fdinfo: plainFdinfo('0100000', 393225) },
      { fd: 9, target: '/dev/dri/renderD128', fdinfo: amdgpuFdinfo({ ...clientA, flags: '0100002' }) },
    ],
  });
  tree.file('/models/qwen3-32b/model-00001-of-00017.safetensors', 'not really weights\n');
  addProcess(tree, {
    pid: 4102,
    comm: 'llama-server',
    cmdline: ['/app/llama-server', '--host', '0.0.0.0', '-ngl', '999'],
    cgroup: ctrCgroup,
    status: procStatus('llama-server', { anon: 192 * MiB, file: 64 * MiB, shmem: 0 }),
    fds: [
      ...stdFds(podLog),
      { fd: 5, target: '/dev/dri/renderD128', fdinfo: amdgpuFdinfo(clientB) },
      { fd: 6, target: '/dev/kfd', fdinfo: plainFdinfo('02100002', 1140) },
    ],
  });
  addProcess(tree, {
    pid: 4150,
    comm: 'pt_data_worker',
    cmdline: ['python3', '-m', 'vllm.entrypoints.openai.api_server', '--model', '/models/qwen3-32b'],
    cgroup: ctrCgroup,
    status: procStatus('pt_data_worker', { anon: 768 * MiB, file: 448 * MiB, shmem: 64 * MiB }),
    fds: [...stdFds(podLog), { fd: 5, target: '/dev/dri/renderD128', fdinfo: amdgpuFdinfo(clientA) }],
  });
  addProcess(tree, {
    pid: 4199,
    comm: 'llama-server',
    cgroup: ctrCgroup,
    vanished: true,
    fds: [...stdFds(podLog), { fd: 5, target: '/dev/dri/renderD128' }],
  });
  addProcess(tree, {
    pid: 3001,
    comm: 'pause',
    cmdline: ['/pause'],
    cgroup: procCgroup(mode, sandboxPath),
    fds: [{ fd: 0, target: '/dev/null', fdinfo: plainFdinfo('0100000', 5) }],
  });
  addProcess(tree, {
    pid: 3500,
    comm: 'node_exporter',
    cmdline: ['/bin/node_exporter', '--path.rootfs=/host'],
    cgroup: procCgroup(mode, beCtrPath),
    fds: [
      { fd: 0, target: '/dev/null', fdinfo: plainFdinfo('0100000', 5) },
      { fd: 3, target: 'socket:[66120]', fdinfo: plainFdinfo('02004002', 66120) },
    ],
  });
  addProcess(tree, {
    pid: 2210,
    comm: 'amd-metrics-exp',
    cmdline: ['/usr/bin/amd-metrics-exporter'],
    cgroup:
      mode === 'v2' ? '0::/system.slice/amd-metrics-exporter.service\n' : procCgroup('v1', '/system.slice/amd-metrics-exporter.service'),
    fds: [
      { fd: 0, target: '/dev/null', fdinfo: plainFdinfo('0100000', 5) },
      {
        fd: 4,
        target: '/dev/dri/renderD128',
        fdinfo: amdgpuFdinfo({
          clientId: 12,
          pdev: APU_PDEV,
          pasid: 32769,
          gtt: systemGpuGtt,
          vram: 4 * MiB,
          cpu: 0,
          engines: { gfx: 88_123 },
        }),
      },
    ],
  });

  return {
    hostname,
    kernel,
    cgroupMode: mode,
    memTotal: memTotalKb * 1024,
    memAvailable: memAvailableKb * 1024,
    gpuActive: gpuActiveKb * 1024,
    gpuReclaim: gpuReclaimKb * 1024,
    gttUsed,
    gttTotal,
    pdev: APU_PDEV,
    dmemRegion: region,
    podUid,
    podCgroupPath: podPath,
    containerId: ctr,
    memoryCurrent,
    memoryMax,
    podGtt: gttA + gttB,
    podVram: clientA.vram + clientB.vram,
    gpuPids: [4101, 4102, 4150],
    hostileComm,
    hostilePid: 4101,
    dupPid: 4101,
    forkPid: 4150,
    sharedClientId: clientA.clientId,
    vanishedPid: 4199,
    systemGpuPid: 2210,
    systemGpuGtt,
    besteffortPodUid: bePodUid,
    oomVictimPid: victimPid,
    oomVictimComm: victimComm,
    spacedCgroup: spaced,
    newlineCgroup: newline,
    dmemGapLevel: kubepods,
    kernLogFirstLine: firstLine,
    kernLogBytes: Buffer.byteLength(kernLog),
  };
}

// --- HAMi NVIDIA node ---------------------------------------------------------------------------------

export interface HamiFacts {
  readonly kernel: string;
  readonly enforced: {
    readonly podUid: string;
    readonly container: string;
    readonly cachePath: string;
    readonly limit: number;
    readonly used: number;
    readonly hostPid: number;
  };
  readonly bypassed: {
    readonly podUid: string;
    readonly container: string;
    readonly cachePath: string;
    readonly limit: number;
    readonly hostPid: number;
  };
  readonly preload: string;
  readonly gpuUuid: string;
}

/** An NVIDIA node with HAMi: one pod whose cache shows a live, tracked process, one whose process runs unhooked. */
export function buildHamiNode(options: RootOptions = {}): Fixture<HamiFacts> {
  const tree = new NodeTree(options);
  try {
    const facts = writeHamiNode(tree);
    return { root: tree.root, hostRoot: tree.hostRoot, shell: tree.shell, facts, cleanup: () => tree.cleanup() };
  } catch (err) {
    tree.cleanup();
    throw err;
  }
}

function writeHamiNode(tree: NodeTree): HamiFacts {
  const hostname = 'gpu-node-7';
  const kernel = '6.8.0-60-generic';
  const controllers = 'cpuset cpu io memory hugetlb pids rdma misc';
  const gpuUuid = 'GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f';
  const enforced = { podUid: 'e3a1c9d2-7b44-4c1e-9f0a-2d6b8e5c4a17', container: 'trainer', limit: 8 * GiB, used: 6 * GiB, hostPid: 52113 };
  const bypassed = { podUid: '5c9f0e7b-1a2d-4e3f-8b6c-9d0a1e2f3b4c', container: 'static-infer', limit: 8 * GiB, hostPid: 53377 };
  const enforcedCache = `/usr/local/vgpu/containers/${enforced.podUid}_${enforced.container}/4c7e2d1a-9b3f-4e8a-a1c2-5d6e7f8a9b0c.cache`;
  const bypassedCache = `/usr/local/vgpu/containers/${bypassed.podUid}_${bypassed.container}/a2b4c6d8-1e3f-4a5b-8c7d-9e0f1a2b3c4d.cache`;
  const kernLog =
    [
      kernLine(
        '2026-08-19T03:00:01.120331+00:00',
        hostname,
        `Linux version ${kernel} (buildd@lcy02-amd64-050) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #60-Ubuntu SMP PREEMPT_DYNAMIC Fri May  2 14:30:22 UTC 2025 (Ubuntu ${kernel})`,
      ),
      kernLine('2026-08-19T03:00:09.771204+00:00', hostname, 'nvidia: loading out-of-tree module taints kernel.'),
      kernLine(
        '2026-08-19T03:00:09.902113+00:00',
        hostname,
        'NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar 25 22:28:12 UTC 2025',
      ),
      kernLine('2026-08-19T03:00:10.004511+00:00', hostname, '[drm] [nvidia-drm] [GPU ID 0x00001b00] Loading driver'),
    ].join('\n') + '\n';
  writeCommon(tree, {
    hostname,
    kernel,
    osRelease: UBUNTU_2404,
    memTotalKb: 1056288092,
    memFreeKb: 801122300,
    memAvailableKb: 998400120,
    oomKill: 0,
    cmdline: `BOOT_IMAGE=/vmlinuz-${kernel} root=UUID=0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d ro`,
    kernLog,
    containerd: 'nvidia',
    kubeletCgroupLine: '0::/system.slice/kubelet.service\n',
  });

  // NVIDIA: nvidia-drm's card (no mem_info), the driver version file, device nodes.
  tree.file('/sys/class/drm/card0/device/vendor', '0x10de\n', 0o444);
  tree.file('/sys/class/drm/card0/device/device', '0x2330\n', 0o444);
  tree.dir('/sys/bus/pci/drivers/nvidia');
  tree.link('/sys/class/drm/card0/device/driver', '../../../../bus/pci/drivers/nvidia');
  tree.file(
    '/proc/driver/nvidia/version',
    'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar 25 22:28:12 UTC 2025\nGCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04) \n',
    0o444,
  );
  tree.chardev('/dev/nvidiactl', 195, 255, 0o666);
  tree.chardev('/dev/nvidia0', 195, 0, 0o666);
  tree.chardev('/dev/nvidia-uvm', 509, 0, 0o666);

  // HAMi host state (HAMi docker/vgpu-init.sh output; caches as in HAMi-core multiprocess_memory_limit.h).
  const preload = '/usr/local/vgpu/libvgpu.so';
  tree.file('/usr/local/vgpu/ld.so.preload', `${preload}\n`);
  const elf = Buffer.alloc(65536);
  readFileSync('/bin/busybox').copy(elf, 0, 0, 64); // an ELF header; the content does not matter to the probe
  tree.file('/usr/local/vgpu/libvgpu.so', elf, 0o755);
  tree.file('/usr/local/vgpu/libvgpu.so.v2.10.0', elf, 0o755);
  tree.file(
    enforcedCache,
    buildHamiCache({
      deviceNum: 1,
      smInitFlag: 1,
      ownerPid: 52113n,
      uuids: [gpuUuid],
      limits: [BigInt(enforced.limit)],
      smLimits: [50n],
      slots: [{ pid: 1, hostpid: enforced.hostPid, status: 1, usedTotal: [BigInt(enforced.used)], contextSize: BigInt(310 * MiB) }],
    }),
    0o666,
  );
  // The bypassed pod: the cache was created by a short hooked process (the startup probe's nvidia-smi);
  // its slot is dead and the static server that runs now never registered.
  tree.file(
    bypassedCache,
    buildHamiCache({
      deviceNum: 1,
      smInitFlag: 1,
      ownerPid: 53301n,
      uuids: [gpuUuid],
      limits: [BigInt(bypassed.limit)],
      smLimits: [0n],
      slots: [{ pid: 7, hostpid: 0, status: 0, usedTotal: [0n] }],
      procNum: 0,
    }),
    0o666,
  );

  // cgroup v2 (no dmem on this kernel's controllers).
  tree.file('/sys/fs/cgroup/cgroup.controllers', `${controllers}\n`, 0o444);
  tree.file('/sys/fs/cgroup/cgroup.subtree_control', `${controllers}\n`);
  tree.file('/sys/fs/cgroup/memory.stat', memoryStatV2(60 * GiB), 0o444);
  const kubepods = '/kubepods.slice';
  const burstable = `${kubepods}/kubepods-burstable.slice`;
  writeCgroupV2Dir(tree, { path: kubepods, controllers, subtreeControl: controllers, current: 40 * GiB, max: 990 * GiB });
  writeCgroupV2Dir(tree, { path: burstable, controllers, subtreeControl: controllers, current: 40 * GiB, max: 'max' });
  const pods = [
    { ...enforced, memory: 24 * GiB, limit: 32 * GiB, comm: 'python3' },
    { ...bypassed, memory: 16 * GiB, limit: 32 * GiB, comm: 'infer-static' },
  ];
  for (const pod of pods) {
    const podPath = `${burstable}/kubepods-burstable-pod${pod.podUid.replace(/-/g, '_')}.slice`;
    const ctrPath = `${podPath}/cri-containerd-${containerId(`${pod.podUid}/${pod.container}`)}.scope`;
    writeCgroupV2Dir(tree, { path: podPath, controllers, subtreeControl: controllers, current: pod.memory, max: pod.limit });
    writeCgroupV2Dir(tree, { path: ctrPath, controllers, subtreeControl: '', current: pod.memory - 8192, max: pod.limit });
    const log = `/var/log/pods/ml_${pod.container}-0_${pod.podUid}/${pod.container}/0.log`;
    tree.file(log, '');
    addProcess(tree, {
      pid: pod.hostPid,
      comm: pod.comm,
      cgroup: `0::${ctrPath}\n`,
      fds: [
        ...stdFds(log),
        // NVIDIA character devices are not DRM (major 195, and nvidia-uvm's dynamic major): the sweep skips them.
        { fd: 3, target: '/dev/nvidiactl', fdinfo: plainFdinfo('02100002', 1201) },
        { fd: 4, target: '/dev/nvidia0', fdinfo: plainFdinfo('02100002', 1202) },
        { fd: 5, target: '/dev/nvidia-uvm', fdinfo: plainFdinfo('02100002', 1203) },
      ],
    });
  }
  return {
    kernel,
    enforced: { ...enforced, cachePath: enforcedCache },
    bypassed: { ...bypassed, cachePath: bypassedCache },
    preload,
    gpuUuid,
  };
}

// --- Plain node -----------------------------------------------------------------------------------------

export interface PlainFacts {
  readonly kernel: string;
  readonly memTotal: number;
  readonly pods: readonly { readonly uid: string; readonly current: number; readonly max: number | 'max'; readonly qos: string }[];
}

/** A node with no GPU (only the BMC's ASPEED display adapter, as most servers have), cgroup v2. */
export function buildPlainNode(options: RootOptions = {}): Fixture<PlainFacts> {
  const tree = new NodeTree(options);
  try {
    const facts = writePlainNode(tree);
    return { root: tree.root, hostRoot: tree.hostRoot, shell: tree.shell, facts, cleanup: () => tree.cleanup() };
  } catch (err) {
    tree.cleanup();
    throw err;
  }
}

function writePlainNode(tree: NodeTree): PlainFacts {
  const hostname = 'web-node-3';
  const kernel = '6.1.0-37-amd64';
  const controllers = 'cpuset cpu io memory hugetlb pids rdma misc';
  const memTotalKb = 65842116;
  writeCommon(tree, {
    hostname,
    kernel,
    osRelease: readFileSync('/etc/os-release', 'utf8'), // this machine's (Debian 12): the real thing
    memTotalKb,
    memFreeKb: 40120332,
    memAvailableKb: 58110224,
    oomKill: 0,
    cmdline: `BOOT_IMAGE=/boot/vmlinuz-${kernel} root=UUID=3c2b1a09-8f7e-4d6c-5b4a-392817065f4e ro quiet`,
    kernLog:
      [
        kernLine(
          '2026-08-18T22:10:03.000000+00:00',
          hostname,
          `Linux version ${kernel} (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.140-1 (2025-05-22)`,
        ),
        kernLine('2026-08-18T22:10:05.441201+00:00', hostname, 'ast 0000:03:00.0: [drm] P2A bridge disabled, using default configuration'),
        kernLine('2026-08-18T22:10:05.441907+00:00', hostname, 'ast 0000:03:00.0: [drm] AST 2600 detected'),
        kernLine('2026-08-18T22:10:05.466210+00:00', hostname, '[drm] Initialized ast 0.1.0 20120228 for 0000:03:00.0 on minor 0'),
      ].join('\n') + '\n',
    containerd: 'runc',
    kubeletCgroupLine: '0::/system.slice/kubelet.service\n',
  });
  // The BMC's display adapter is a DRM device, not a GPU: ASPEED AST2600, no mem_info files.
  tree.file('/sys/class/drm/card0/device/vendor', '0x1a03\n', 0o444);
  tree.file('/sys/class/drm/card0/device/device', '0x2000\n', 0o444);
  tree.dir('/sys/bus/pci/drivers/ast');
  tree.link('/sys/class/drm/card0/device/driver', '../../../../bus/pci/drivers/ast');
  tree.file('/sys/fs/cgroup/cgroup.controllers', `${controllers}\n`, 0o444);
  tree.file('/sys/fs/cgroup/cgroup.subtree_control', `${controllers}\n`);
  tree.file('/sys/fs/cgroup/memory.stat', memoryStatV2(12 * GiB), 0o444);
  const pods = [
    {
      uid: '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
      current: 1536 * MiB,
      max: (2 * GiB) as number | 'max',
      qos: 'burstable',
      container: 'api',
    },
    {
      uid: '1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b',
      current: 700 * MiB,
      max: (1 * GiB) as number | 'max',
      qos: 'guaranteed',
      container: 'worker',
    },
  ];
  writeCgroupV2Dir(tree, { path: '/kubepods.slice', controllers, subtreeControl: controllers, current: 2236 * MiB, max: 60 * GiB });
  writeCgroupV2Dir(tree, {
    path: '/kubepods.slice/kubepods-burstable.slice',
    controllers,
    subtreeControl: controllers,
    current: 1536 * MiB,
    max: 'max',
  });
  let pid = 2400;
  for (const pod of pods) {
    const slice =
      pod.qos === 'guaranteed'
        ? `/kubepods.slice/kubepods-pod${pod.uid.replace(/-/g, '_')}.slice`
        : `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${pod.uid.replace(/-/g, '_')}.slice`;
    const scope = `${slice}/cri-containerd-${containerId(pod.uid)}.scope`;
    writeCgroupV2Dir(tree, { path: slice, controllers, subtreeControl: controllers, current: pod.current, max: pod.max });
    writeCgroupV2Dir(tree, { path: scope, controllers, subtreeControl: '', current: pod.current - 4096, max: pod.max });
    const log = `/var/log/pods/web_${pod.container}_${pod.uid}/${pod.container}/0.log`;
    tree.file(log, '');
    addProcess(tree, {
      pid: pid++,
      comm: pod.container,
      cgroup: `0::${scope}\n`,
      fds: [...stdFds(log), { fd: 3, target: 'socket:[90210]', fdinfo: plainFdinfo('02004002', 90210) }],
    });
  }
  return { kernel, memTotal: memTotalKb * 1024, pods: pods.map(({ uid, current, max, qos }) => ({ uid, current, max, qos })) };
}

// ---------------------------------------------------------------------------------------------------
// Read-only bind mounts

export interface ReadOnlyMount {
  readonly path: string;
  cleanup(): void;
}

/** `mount --bind <root> <dir>` then `mount -o remount,ro,bind`: the same tree, read-only. */
export function readOnlyBind(root: string): ReadOnlyMount {
  const path = mkdtempSync(join(fixtureBase(), 'gpumem-ro-'));
  chmodSync(path, 0o755);
  let mounted = false;
  const cleanup = (): void => {
    if (mounted) {
      const r = spawnSync('umount', [path]);
      if (r.status !== 0) spawnSync('umount', ['-l', path]);
      mounted = false;
    }
    rmSync(path, { recursive: true, force: true });
  };
  try {
    execFileSync('mount', ['--bind', root, path]);
    mounted = true;
    execFileSync('mount', ['-o', 'remount,ro,bind', path]);
    return { path, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** Writes one byte into a file of the tree to prove it is writable (or not): returns the error code. */
export function tryWrite(path: string): string | undefined {
  try {
    const fd = openSync(path, 'w');
    writeSync(fd, 'x');
    closeSync(fd);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'error';
  }
}
