// The Strix Halo (AMD APU) fixture node: GTT-heavy pods, a global OOM kill in the kernel log, amdgpu's sysfs, KFD
// and debugfs. See fixtureRoot.ts.
import { APU_PDEV, writeApuDebugfs } from './apuDebugfs.ts';
import type { ApuDebugfsKind } from './apuDebugfs.ts';
import { apuKernelLog } from './apuKernelLog.ts';
import { GiB, MiB, V1_UNLIMITED, amdgpuFdinfo, containerId, memoryStatV1, memoryStatV2, plainFdinfo } from './fixtureFormats.ts';
import type { AmdgpuClient } from './fixtureFormats.ts';
import {
  UBUNTU_2604,
  addProcess,
  hostileCgroupNames,
  procCgroup,
  procStatus,
  stdFds,
  writeCgroupV1Dir,
  writeCgroupV2Dir,
  writeCommon,
} from './nodeCommon.ts';
import { buildFixture } from './nodeTree.ts';
import type { Fixture, NodeTree, RootOptions } from './nodeTree.ts';

// ---------------------------------------------------------------------------------------------------
// Scenarios

export interface ApuOptions extends RootOptions {
  /** The release /proc/sys/kernel/osrelease claims. Default 7.1.0-9-generic. */
  readonly kernel?: string;
  /** cgroup v2 with the systemd driver (default) or cgroup v1 with the cgroupfs driver. */
  readonly cgroup?: 'v2' | 'v1';
  /** Put ~20 MB of earlier log lines before the OOM report in /var/log/kern.log. */
  readonly hugeKernelLog?: boolean;
  /** amdgpu debugfs under /sys/kernel/debug: none (default), an empty mount point, a root-only (0700) one, or
   *  readable with the pod's clients (`huge`: one client with 100,000 buffers more). See amdgpuDebugfsFiles.ts. */
  readonly debugfs?: ApuDebugfsKind;
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

export function buildApuNode(options: ApuOptions = {}): Fixture<ApuFacts> {
  return buildFixture(options, (tree) => writeApuNode(tree, options));
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
  const {
    text: kernLog,
    firstLine,
    victimPid,
    victimComm,
  } = apuKernelLog({
    kernel,
    hostname,
    mode,
    oldCtr,
    oldCtrPath,
    hugeKernelLog: options.hugeKernelLog === true,
    pdev: APU_PDEV,
  });

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
