// The HAMi NVIDIA fixture node: the preload file, the library, per-container shared-region caches. See fixtureRoot.ts.
import { readFileSync } from 'node:fs';
import { buildHamiCache } from '../unit/helpers/hamiCacheFile.ts';
import { GiB, MiB, containerId, kernLine, memoryStatV2, plainFdinfo } from './fixtureFormats.ts';
import { UBUNTU_2404, addProcess, stdFds, writeCgroupV2Dir, writeCommon } from './nodeCommon.ts';
import { buildFixture } from './nodeTree.ts';
import type { Fixture, NodeTree, RootOptions } from './nodeTree.ts';

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
  return buildFixture(options, writeHamiNode);
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
