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
//
// The builders are split by concern (fixtureTools.ts, nodeTree.ts, fixtureFormats.ts, nodeCommon.ts, apuNode.ts with
// apuKernelLog.ts and apuDebugfs.ts, hamiNode.ts, plainNode.ts, readOnlyMount.ts); this module is the tests' one entry
// point to them, and exports what it always has.
import { buildHamiCache, CACHE_FILE_SIZE } from '../unit/helpers/hamiCacheFile.ts';
import type { CacheSpec } from '../unit/helpers/hamiCacheFile.ts';

export { buildHamiCache, CACHE_FILE_SIZE };
export type { CacheSpec };
export {
  BUSYBOX_INSTALL,
  PROBE_APPLETS,
  elfIsDynamic,
  ensureBusyboxStatic,
  fixtureRootsUnavailable,
  lddPaths,
  fixtureBase,
  pathIsChrootSafe,
} from './fixtureTools.ts';
export type { FixtureShell } from './fixtureTools.ts';
export { NodeTree } from './nodeTree.ts';
export type { Fixture, RootOptions } from './nodeTree.ts';
export {
  KiB,
  MiB,
  GiB,
  meminfoLine,
  meminfoText,
  vmstatText,
  nodeMeminfoText,
  drmSize,
  amdgpuFdinfo,
  plainFdinfo,
  containerId,
  memoryEvents,
  memoryStatV2,
  memoryStatV1,
  V1_UNLIMITED,
} from './fixtureFormats.ts';
export type { AmdgpuClient } from './fixtureFormats.ts';
export { procStatus, addProcess, procCgroup } from './nodeCommon.ts';
export type { FdSpec, ProcessSpec } from './nodeCommon.ts';
export { APU_DEBUGFS } from './apuDebugfs.ts';
export { buildApuNode } from './apuNode.ts';
export type { ApuOptions, ApuFacts } from './apuNode.ts';
export { buildHamiNode } from './hamiNode.ts';
export type { HamiFacts } from './hamiNode.ts';
export { buildPlainNode } from './plainNode.ts';
export type { PlainFacts } from './plainNode.ts';
export { readOnlyBind, tryWrite } from './readOnlyMount.ts';
export type { ReadOnlyMount } from './readOnlyMount.ts';
