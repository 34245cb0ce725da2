// The plain fixture node: no GPU, for the probe's negative paths. See fixtureRoot.ts.
import { readFileSync } from 'node:fs';
import { GiB, MiB, containerId, kernLine, memoryStatV2, plainFdinfo } from './fixtureFormats.ts';
import { addProcess, stdFds, writeCgroupV2Dir, writeCommon } from './nodeCommon.ts';
import { buildFixture } from './nodeTree.ts';
import type { Fixture, NodeTree, RootOptions } from './nodeTree.ts';

// --- Plain node -----------------------------------------------------------------------------------------

export interface PlainFacts {
  readonly kernel: string;
  readonly memTotal: number;
  readonly pods: readonly { readonly uid: string; readonly current: number; readonly max: number | 'max'; readonly qos: string }[];
}

/** A node with no GPU (only the BMC's ASPEED display adapter, as most servers have), cgroup v2. */
export function buildPlainNode(options: RootOptions = {}): Fixture<PlainFacts> {
  return buildFixture(options, writePlainNode);
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
