// Node-probe captures built in memory (the format the node probe prints; see captureText.ts), for the
// inspector's view-model tests, the inspector e2e test (a hostile capture for "Analyze Probe Capture…") and
// the inspector bench (a node with 50 GPU pods). The layout follows what the probe reads on a real node:
// cgroup v2 with the systemd driver (`kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid>.slice`),
// one container scope per pod, amdgpu DRM fdinfo per GPU process (drm-resident-gtt/vram), the amdgpu sysfs
// counters, and /proc/meminfo with or without the 7.1 GPUActive line (and /proc/vmstat's nr_gpu_active with it).
// The verdict tests (probeVerdicts.test.ts) also vary the cgroup mode (v1 and hybrid keep the memory files
// under /sys/fs/cgroup/memory), the dmem controller's files, and the TTM/amdgpu module parameters.
import type { SectionSpec } from './captureText.ts';
import { captureText } from './captureText.ts';

export const MiB = 1024 ** 2;
export const GiB = 1024 ** 3;
const CG = '/sys/fs/cgroup';

export interface FdSpec {
  readonly fd: number;
  readonly client: string;
  readonly gtt: number;
  readonly vram?: number;
  readonly pdev?: string;
  /** Only drm-memory-vram, as fdinfo on kernels before GTT was reported per client. */
  readonly noGtt?: boolean;
}

export interface ProcSpec {
  readonly pid: number;
  readonly comm: string;
  readonly fds: readonly FdSpec[];
}

export interface PodSpec {
  readonly uid: string;
  readonly qos?: 'burstable' | 'besteffort' | 'guaranteed';
  readonly current: number;
  readonly max: number | 'max';
  readonly events?: string;
  readonly processes?: readonly ProcSpec[];
  /** The pod's dmem.* files (cgroup v2 only), verbatim. */
  readonly dmem?: { readonly current?: string; readonly low?: string; readonly min?: string };
}

export interface GpuSpec {
  readonly card: string;
  readonly vendor: string;
  readonly device: string;
  readonly gttTotal?: number;
  readonly gttUsed?: number;
  readonly vramTotal?: number;
  readonly vramUsed?: number;
}

export interface NodeSpec {
  /** The `numa` section's files: /sys/devices/system/node/node<N>/meminfo → content. */
  readonly numa?: ReadonlyArray<readonly [string, string]>;
  /** The fdinfo sweep as the probe's batched reads print it: one `head -c 8192` record, paths relative to /proc. */
  readonly fdinfoBatched?: boolean;
  readonly hostname?: string;
  readonly kernel: string;
  readonly os?: string;
  readonly memTotal: number;
  readonly memAvailable?: number;
  readonly gpuActive?: number;
  /** cgroup.mode; v2 when left out. */
  readonly mode?: CgroupMode;
  /** The root cgroup.controllers (v2). */
  readonly controllers?: string;
  /** cgroup.subtree_control of the root, kubepods.slice and its burstable slice (v2); each left out when undefined. */
  readonly subtree?: { readonly root?: string; readonly kubepods?: string; readonly burstable?: string };
  /** The root dmem.capacity (v2), verbatim. */
  readonly dmemCapacity?: string;
  readonly gpus?: readonly GpuSpec[];
  readonly pods?: readonly PodSpec[];
  /** The kernel log section's text (after `source=dmesg`); none = dmesg missing. */
  readonly kernelLog?: string;
  /** The modparams section's files: [path under /sys/module, content]. */
  readonly modparams?: readonly (readonly [string, string])[];
  /** More /proc/meminfo lines, verbatim (`SUnreclaim:  9646899 kB`…). */
  readonly meminfoExtra?: string;
  /** More files of the proc section, e.g. `/proc/sys/vm/overcommit_memory`. */
  readonly procFiles?: readonly (readonly [string, string])[];
  /** The memory.stat of /kubepods.slice (v2): what all pods are charged for. */
  readonly kubepodsStat?: string;
  /** The debugfs section's records ([path, body]; `/sys/kernel/debug` is the probe's access line); none = no section. */
  readonly debugfs?: readonly (readonly [string, string])[];
}

export type CgroupMode = 'v2' | 'v1' | 'hybrid';

/** Strix Halo (PCI 0x1002:0x1586): the unified-memory APU the GTT verdicts exist for. */
export const STRIX_HALO: GpuSpec = {
  card: 'card1',
  vendor: '0x1002',
  device: '0x1586',
  gttTotal: 96 * GiB,
  gttUsed: 38 * GiB,
  vramTotal: 512 * MiB,
  vramUsed: 300 * MiB,
};

export function podDir(pod: Pick<PodSpec, 'uid' | 'qos'>): string {
  const qos = pod.qos ?? 'burstable';
  const uid = pod.uid.replace(/-/g, '_');
  return qos === 'guaranteed'
    ? `/kubepods.slice/kubepods-pod${uid}.slice`
    : `/kubepods.slice/kubepods-${qos}.slice/kubepods-${qos}-pod${uid}.slice`;
}

export function containerDir(pod: Pick<PodSpec, 'uid' | 'qos'>, index: number): string {
  return `${podDir(pod)}/cri-containerd-${index.toString(16).padStart(4, '0').repeat(16)}.scope`;
}

function fdinfo(fd: FdSpec): string {
  if (fd.noGtt)
    return `pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t${fd.client}\ndrm-pdev:\t${fd.pdev ?? '0000:c5:00.0'}\ndrm-memory-vram:\t${Math.floor((fd.vram ?? 0) / 1024)} KiB\n`;
  return (
    [
      'pos:\t0',
      'flags:\t02100002',
      'mnt_id:\t26',
      `ino:\t${1000 + fd.fd}`,
      'drm-driver:\tamdgpu',
      `drm-client-id:\t${fd.client}`,
      `drm-pdev:\t${fd.pdev ?? '0000:c5:00.0'}`,
      'pasid:\t32790',
      `drm-total-gtt:\t${fd.gtt}`,
      `drm-resident-gtt:\t${fd.gtt}`,
      `drm-total-vram:\t${fd.vram ?? 0}`,
      `drm-resident-vram:\t${fd.vram ?? 0}`,
    ].join('\n') + '\n'
  );
}

export function meminfoText(memTotal: number, memAvailable: number, gpuActive?: number): string {
  const kb = (bytes: number) => String(Math.floor(bytes / 1024)).padStart(8);
  return (
    [
      `MemTotal:       ${kb(memTotal)} kB`,
      `MemFree:        ${kb(Math.floor(memAvailable * 0.8))} kB`,
      `MemAvailable:   ${kb(memAvailable)} kB`,
      ...(gpuActive !== undefined ? [`GPUActive:      ${kb(gpuActive)} kB`, `GPUReclaim:     ${kb(64 * MiB)} kB`] : []),
    ].join('\n') + '\n'
  );
}

/** A file record when its content is given, none otherwise. */
function fileIf(path: string, content: string | undefined): Array<[string, string]> {
  return content !== undefined ? [[path, content]] : [];
}

/** The kubepods memory (and dmem) file records of a pod: pod level and, on v2, its container. */
function podFiles(pod: PodSpec, podIndex: number, mode: CgroupMode): Array<[string, string]> {
  if (mode !== 'v2') {
    const dir = `${CG}/memory${podDir(pod)}`;
    return [
      [`${dir}/memory.usage_in_bytes`, `${pod.current}\n`],
      [`${dir}/memory.limit_in_bytes`, `${pod.max === 'max' ? '9223372036854771712' : pod.max}\n`],
      [`${dir}/memory.oom_control`, 'oom_kill_disable 0\nunder_oom 0\noom_kill 0\n'],
    ];
  }
  const dir = `${CG}${podDir(pod)}`;
  return [
    [`${dir}/memory.current`, `${pod.current}\n`],
    [`${dir}/memory.max`, `${pod.max}\n`],
    [`${dir}/memory.events`, pod.events ?? 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n'],
    ...(['current', 'low', 'min'] as const).flatMap((file) => fileIf(`${dir}/dmem.${file}`, pod.dmem?.[file])),
    [`${CG}${containerDir(pod, podIndex + 1)}/memory.current`, `${Math.max(0, pod.current - 4096)}\n`],
  ];
}

function fdFiles(pods: readonly PodSpec[], mode: CgroupMode = 'v2'): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  pods.forEach((pod, podIndex) => {
    const container = containerDir(pod, podIndex + 1);
    const cgroup = mode === 'v2' ? `0::${container}\n` : `12:memory:${container}\n0::/\n`;
    for (const process of pod.processes ?? []) {
      files.push([`/proc/${process.pid}/cgroup`, cgroup], [`/proc/${process.pid}/comm`, `${process.comm}\n`]);
      for (const fd of process.fds) files.push([`/proc/${process.pid}/fdinfo/${fd.fd}`, fdinfo(fd)]);
    }
  });
  return files;
}

/**
 * `/proc/<rel>` files as `cd /proc; head -c 8192 <rel>… /dev/null` prints them (nodeScript.ts's batched sweep): a
 * `==> rel <==` header before each, a newline before every header but the first, /dev/null last.
 */
function headsRecord(files: ReadonlyArray<readonly [string, string]>): [string, string] {
  const body = [...files.map(([path, text]) => `==> ${path.slice('/proc/'.length)} <==\n${text}`), '==> /dev/null <==\n'].join('\n');
  return ['/proc/.gpumem-heads-8192', body];
}

/** /proc/vmstat: the 7.1 GPU counters come with GPUActive. */
function vmstatText(gpuActive?: number): string {
  return `oom_kill 0\n${gpuActive !== undefined ? `nr_gpu_active ${Math.floor(gpuActive / 4096)}\nnr_gpu_reclaim 16384\n` : ''}`;
}

/** The root cgroup files (v2): cgroup.controllers, and cgroup.subtree_control and dmem.capacity when given. */
function rootFiles(spec: NodeSpec): Array<[string, string]> {
  if ((spec.mode ?? 'v2') !== 'v2') return [];
  return [
    [`${CG}/cgroup.controllers`, `${spec.controllers ?? 'cpuset cpu io memory hugetlb pids rdma misc'}\n`],
    ...fileIf(`${CG}/cgroup.subtree_control`, spec.subtree?.root?.concat('\n')),
    ...fileIf(`${CG}/dmem.capacity`, spec.dmemCapacity),
  ];
}

/** cgroup.subtree_control of kubepods.slice and its burstable slice (v2), when given. */
function kubepodsSubtreeFiles(spec: NodeSpec): Array<[string, string]> {
  if ((spec.mode ?? 'v2') !== 'v2') return [];
  return [
    ...fileIf(`${CG}/kubepods.slice/cgroup.subtree_control`, spec.subtree?.kubepods?.concat('\n')),
    ...fileIf(`${CG}/kubepods.slice/kubepods-burstable.slice/cgroup.subtree_control`, spec.subtree?.burstable?.concat('\n')),
    ...fileIf(`${CG}/kubepods.slice/memory.stat`, spec.kubepodsStat),
  ];
}

export function nodeCapture(spec: NodeSpec): string {
  const pods = spec.pods ?? [];
  const mode = spec.mode ?? 'v2';
  const drm: Array<[string, string]> = [];
  for (const gpu of spec.gpus ?? []) {
    const base = `/sys/class/drm/${gpu.card}/device`;
    drm.push([`${base}/vendor`, `${gpu.vendor}\n`], [`${base}/device`, `${gpu.device}\n`]);
    if (gpu.gttTotal !== undefined) drm.push([`${base}/mem_info_gtt_total`, `${gpu.gttTotal}\n`]);
    if (gpu.gttUsed !== undefined) drm.push([`${base}/mem_info_gtt_used`, `${gpu.gttUsed}\n`]);
    if (gpu.vramTotal !== undefined) drm.push([`${base}/mem_info_vram_total`, `${gpu.vramTotal}\n`]);
    if (gpu.vramUsed !== undefined) drm.push([`${base}/mem_info_vram_used`, `${gpu.vramUsed}\n`]);
  }
  const sections: Record<string, SectionSpec | string> = {
    meta: `hostname=${spec.hostname ?? 'gpu-node-1'}\nkernel=${spec.kernel}\nmachine=x86_64\nnow=1767225600\nuid=0\n`,
    'os-release': { files: [['/etc/os-release', `PRETTY_NAME="${spec.os ?? 'Ubuntu 26.04 LTS'}"\n`]] },
    proc: {
      files: [
        ['/proc/meminfo', meminfoText(spec.memTotal, spec.memAvailable ?? spec.memTotal / 2, spec.gpuActive) + (spec.meminfoExtra ?? '')],
        ['/proc/vmstat', vmstatText(spec.gpuActive)],
        ...(spec.procFiles ?? []),
      ],
    },
    ...(spec.numa ? { numa: { files: spec.numa.map(([path, text]): [string, string] => [path, text]) } } : {}),
    'cgroup.mode': `${mode}\n`,
    'cgroup.root': { files: rootFiles(spec) },
    'cgroup.kubepods': { files: [...kubepodsSubtreeFiles(spec), ...pods.flatMap((pod, index) => podFiles(pod, index, mode))] },
    ...(spec.kernelLog !== undefined ? { 'kernel-log': `source=dmesg\n${spec.kernelLog}` } : { 'kernel-log': { missing: ['kernel-log'] } }),
    drm: { files: drm },
    modparams: { files: spec.modparams ?? [] },
    fdinfo: { files: spec.fdinfoBatched ? [headsRecord(fdFiles(pods, mode))] : fdFiles(pods, mode) },
    ...(spec.debugfs ? { debugfs: { files: spec.debugfs } } : {}),
  };
  return captureText('node', sections);
}

/** What the light probe (src/core/probe/scripts/lightScript.ts) prints for the same node. */
export function lightNodeCapture(spec: NodeSpec, now = 1767225600): string {
  const pods = spec.pods ?? [];
  return captureText('node', {
    meta: `now=${now}\n`,
    proc: { files: [['/proc/meminfo', meminfoText(spec.memTotal, spec.memAvailable ?? spec.memTotal / 2, spec.gpuActive)]] },
    'cgroup.kubepods': { files: pods.map((pod): [string, string] => [`${CG}${podDir(pod)}/memory.current`, `${pod.current}\n`]) },
    fdinfo: { files: fdFiles(pods) },
  });
}

/** A deterministic pod UID for index `i`. */
export function podUid(i: number): string {
  const hex = (i + 1).toString(16).padStart(12, '0');
  return `0000${hex.slice(0, 4)}-1111-4222-8333-${hex}`;
}

/**
 * A Strix Halo node with `count` GPU pods of varied sizes (deterministic): limits 4–20 GiB on a 1 TiB node, memory.current
 * a share of it, GTT from a few hundred MiB to more than the limit for some, so every verdict kind and the
 * chart's "others" row show up.
 */
export function manyPodsNode(count: number, kernel = '7.1.0-gpumem'): NodeSpec {
  const pods: PodSpec[] = [];
  let client = 1;
  for (let i = 0; i < count; i++) {
    const limit = (4 + ((i * 7) % 17)) * GiB;
    const current = Math.floor(limit * (0.2 + ((i * 13) % 50) / 100));
    const gtt = Math.floor(limit * (((i * 29) % 90) / 100));
    pods.push({
      uid: podUid(i),
      qos: i % 5 === 0 ? 'guaranteed' : 'burstable',
      current,
      max: i % 11 === 10 ? 'max' : limit,
      processes: [
        { pid: 10_000 + i, comm: i % 3 === 0 ? 'python3' : 'vllm-worker', fds: [{ fd: 5, client: String(client++), gtt, vram: 16 * MiB }] },
      ],
    });
  }
  const gttUsed = pods.reduce((total, pod) => total + (pod.processes?.[0]?.fds[0]?.gtt ?? 0), 0);
  return {
    kernel,
    memTotal: 1024 * GiB,
    memAvailable: 256 * GiB,
    gpuActive: gttUsed,
    gpus: [{ ...STRIX_HALO, gttTotal: 768 * GiB, gttUsed }],
    pods,
  };
}
