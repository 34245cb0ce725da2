// What every fixture node has: processes (comm, cmdline, cgroup, fds and fdinfo, status), the node's common files
// (os-release, kubelet and containerd configs, the kubelet process) and cgroup directories (v2 and v1).
import { chmodSync, readFileSync } from 'node:fs';
import {
  V1_UNLIMITED,
  meminfoText,
  memoryEvents,
  memoryStatV1,
  memoryStatV2,
  nodeMeminfoText,
  plainFdinfo,
  vmstatText,
} from './fixtureFormats.ts';
import type { NodeTree } from './nodeTree.ts';

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

export function stdFds(log: string): FdSpec[] {
  return [
    { fd: 0, target: '/dev/null', fdinfo: plainFdinfo('0100000', 5) },
    { fd: 1, target: log, fdinfo: plainFdinfo('0102001', 918273) },
    { fd: 2, target: log, fdinfo: plainFdinfo('0102001', 918273) },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Common node files

export const UBUNTU_2604 = `PRETTY_NAME="Ubuntu 26.04 LTS"
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

export const UBUNTU_2404 = `PRETTY_NAME="Ubuntu 24.04.2 LTS"
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

export function writeCommon(tree: NodeTree, node: CommonNode): void {
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

export function writeCgroupV2Dir(tree: NodeTree, dir: CgroupV2Dir): void {
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

export function writeCgroupV1Dir(tree: NodeTree, dir: CgroupV1Dir): void {
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
export function hostileCgroupNames(tree: NodeTree, parent: string, write: (path: string) => void): { spaced: string; newline: string } {
  const spaced = `${parent}/odd name.slice`;
  const newline = `${parent}/bad\nname.slice`;
  write(spaced);
  write(newline);
  tree.file(`/sys/fs/cgroup${parent}/memory.current\nforged`, '4096\n', 0o444);
  return { spaced, newline };
}
