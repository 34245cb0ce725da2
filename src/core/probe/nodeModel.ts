// The node capture as a typed model: memory, cgroups (v1, v2, hybrid), pods and their GPU memory.
import type { Capture } from './capture.ts';
import { eachSectionFile, sectionFiles, sectionText } from './capture.ts';
import type { DrmCard } from './parsers/drm.ts';
import { parseDrmCards, parseModuleParams } from './parsers/drm.ts';
import type { ProcessGpuMemory } from './parsers/fdinfo.ts';
import { FdinfoAggregate } from './parsers/fdinfo.ts';
import type { CgroupLimit } from './parsers/cgroupMemory.ts';
import { parseCgroupValue, parseMemoryCounters, parseMemoryStat, parseMemoryUsage, v1Limit } from './parsers/cgroupMemory.ts';
import { parseDmem } from './parsers/cgroupDmem.ts';
import { parseKernelVersion, parseKeyEquals, parseKeyNumber } from './parsers/keyValue.ts';
import { parseMeminfo } from './parsers/meminfo.ts';
import type { ProbeRights } from './probeRights.ts';
import { probeRightsOf } from './probeRights.ts';
import type { NumaNodeMemory } from './parsers/numaMeminfo.ts';
import { parseNumaMeminfo } from './parsers/numaMeminfo.ts';
import type { KubeletReservations } from './parsers/nodeConfig.ts';
import { parseContainerdDefaultRuntime, parseKubeletReservations } from './parsers/nodeConfig.ts';
import type { NumberProblem, NumberProblems } from './parsers/kernelNumber.ts';
import { describeNumberProblem, parseBoundedNumber } from './parsers/kernelNumber.ts';
import { parsePodCgroup } from './podCgroup.ts';

export type CgroupMode = 'v2' | 'v1' | 'hybrid' | 'unknown';

export interface CgroupMemory {
  /** The cgroup path relative to the (memory) controller root, e.g. `/kubepods.slice/…`. */
  readonly path: string;
  readonly current: number | undefined;
  readonly peak: number | undefined;
  readonly max: CgroupLimit | undefined;
  readonly events: ReadonlyMap<string, number>;
  readonly stat: ReadonlyMap<string, number>;
  readonly dmem: {
    readonly current: ReadonlyMap<string, CgroupLimit>;
    readonly peak: ReadonlyMap<string, CgroupLimit>;
    readonly min: ReadonlyMap<string, CgroupLimit>;
    readonly low: ReadonlyMap<string, CgroupLimit>;
    readonly max: ReadonlyMap<string, CgroupLimit>;
  };
  readonly subtreeControl: readonly string[] | undefined;
  /** cgroup v1: memory.oom_control's oom_kill counter and under_oom. */
  readonly oomControl: ReadonlyMap<string, number>;
}

export interface PodCgroup extends CgroupMemory {
  readonly podUid: string;
  readonly qos: string;
  readonly containers: readonly (CgroupMemory & { readonly containerId: string | undefined })[];
}

export interface NodeModel {
  readonly hostname: string | undefined;
  readonly kernel: string | undefined;
  readonly kernelVersion: { major: number; minor: number; patch: number } | undefined;
  readonly os: string | undefined;
  readonly probeUid: string | undefined;
  /** kernel.dmesg_restrict and the probe's effective capabilities, as the probe recorded them. */
  readonly probeRights: ProbeRights;
  /** Seconds since boot (`uptime=` of the meta section, from /proc/uptime). */
  readonly uptimeSeconds: number | undefined;
  readonly meminfo: ReadonlyMap<string, number>;
  /** Per NUMA node (/sys/devices/system/node/node<N>/meminfo), in node order; empty when the capture has none. */
  readonly numaNodes: readonly NumaNodeMemory[];
  readonly vmstat: ReadonlyMap<string, number>;
  /** /proc/sys/vm values the probe reads: overcommit_memory, overcommit_ratio, overcommit_kbytes. */
  readonly vmSysctl: ReadonlyMap<string, number>;
  readonly cgroupMode: CgroupMode;
  readonly rootControllers: readonly string[] | undefined;
  readonly rootSubtreeControl: readonly string[] | undefined;
  readonly dmemCapacity: ReadonlyMap<string, CgroupLimit>;
  /** Non-pod kubepods levels (`/kubepods.slice`, `/kubepods.slice/kubepods-burstable.slice`, …). */
  readonly kubepodsLevels: readonly CgroupMemory[];
  readonly pods: readonly PodCgroup[];
  readonly gpus: readonly DrmCard[];
  readonly moduleParams: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly gpuProcesses: readonly ProcessGpuMemory[];
  readonly kernelLog: { readonly source: string; readonly text: string } | undefined;
  readonly containerdDefaultRuntime: { runtime: string; file: string; line: string } | undefined;
  readonly kubelet: KubeletReservations | undefined;
  readonly missing: readonly string[];
  readonly problems: readonly string[];
}

/** Sections a streaming parse folded into their model as they arrived (CaptureParser's `fold`), not in the capture. */
export interface FoldedSections {
  /** The `fdinfo` section's files, added as each arrived. */
  readonly fdinfo?: FdinfoAggregate;
}

export function buildNodeModel(capture: Capture, folded: FoldedSections = {}): NodeModel {
  const problems = [...capture.problems];
  // Numbers out of range are left out of the model and named here, file and field: never Infinity or null.
  const numberProblems: NumberProblem[] = [];
  const sink = (file: string): NumberProblems => ({ file, problems: numberProblems });
  const meta = parseKeyEquals(sectionText(capture, 'meta') ?? '');
  const root = capture.root;
  const procFiles = sectionFiles(capture, 'proc');
  const meminfo = parseMeminfo(procFiles.get(`${root}/proc/meminfo`) ?? '', sink(`${root}/proc/meminfo`));
  const vmstat = parseKeyNumber(procFiles.get(`${root}/proc/vmstat`) ?? '', sink(`${root}/proc/vmstat`));
  const vmSysctl = new Map<string, number>();
  for (const name of ['overcommit_memory', 'overcommit_ratio', 'overcommit_kbytes']) {
    const text = procFiles.get(`${root}/proc/sys/vm/${name}`)?.trim();
    // A sysctl file holds one non-negative integer; anything else is not used.
    if (text !== undefined && /^\d{1,19}$/.test(text) && Number.isSafeInteger(Number(text))) vmSysctl.set(name, Number(text));
  }
  if (meminfo.size === 0) problems.push('no /proc/meminfo in the capture');
  const osRelease = parseKeyEquals([...sectionFiles(capture, 'os-release').values()][0] ?? '');
  // The section is one word; take the first line that is a mode, so a stray line cannot hide it.
  const modeText = sectionText(capture, 'cgroup.mode')
    ?.split('\n')
    .map((line) => line.trim())
    .find((line) => line === 'v2' || line === 'v1' || line === 'hybrid');
  const cgroupMode: CgroupMode = modeText === 'v2' || modeText === 'v1' || modeText === 'hybrid' ? modeText : 'unknown';
  const rootFiles = sectionFiles(capture, 'cgroup.root');
  const cg = `${root}/sys/fs/cgroup`;
  const words = (text: string | undefined) => (text === undefined ? undefined : text.split(/\s+/).filter(Boolean));

  // Problems name the file as captured (v1's /memory included), not the controller-relative path.
  const fullPaths = new Map<string, string>();
  const groups = groupByDirectory(sectionFiles(capture, 'cgroup.kubepods'), cg, fullPaths);
  const kubepodsLevels: CgroupMemory[] = [];
  const podMap = new Map<
    string,
    { memory: CgroupMemory; uid: string; qos: string; containers: (CgroupMemory & { containerId: string | undefined })[] }
  >();
  const containerDirs: Array<{ memory: CgroupMemory; uid: string; containerId: string | undefined }> = [];
  for (const [path, fileMap] of groups) {
    const memory = cgroupMemory(path, fileMap, (name) => sink(fullPaths.get(`${path}/${name}`) ?? `${cg}${path}/${name}`));
    const pod = parsePodCgroup(path);
    if (!pod) {
      kubepodsLevels.push(memory);
    } else if (pod.containerId === undefined && isPodLevel(path, pod.podUid)) {
      podMap.set(pod.podUid, { memory, uid: pod.podUid, qos: pod.qos, containers: podMap.get(pod.podUid)?.containers ?? [] });
    } else {
      containerDirs.push({ memory, uid: pod.podUid, containerId: pod.containerId });
    }
  }
  for (const container of containerDirs) {
    const pod = podMap.get(container.uid);
    if (pod) pod.containers.push({ ...container.memory, containerId: container.containerId });
  }
  const pods: PodCgroup[] = [...podMap.values()].map(({ memory, uid, qos, containers }) => ({ ...memory, podUid: uid, qos, containers }));

  const logText = sectionText(capture, 'kernel-log');
  let kernelLog: NodeModel['kernelLog'];
  if (logText !== undefined) {
    const newline = logText.indexOf('\n');
    const first = newline < 0 ? logText : logText.slice(0, newline);
    if (first.startsWith('source='))
      kernelLog = { source: first.slice('source='.length), text: newline < 0 ? '' : logText.slice(newline + 1) };
  }
  const missing = [...capture.sections.values()].flatMap((section) => section.missing.map((what) => `${section.name}: ${what}`));

  return {
    hostname: meta.get('hostname'),
    kernel: meta.get('kernel'),
    kernelVersion: parseKernelVersion(meta.get('kernel')),
    os: osRelease.get('PRETTY_NAME'),
    probeUid: meta.get('uid'),
    probeRights: probeRightsOf(meta),
    uptimeSeconds: parseBoundedNumber(meta.get('uptime'), { fraction: true }),
    meminfo,
    numaNodes: parseNumaMeminfo(sectionFiles(capture, 'numa'), sink),
    vmstat,
    vmSysctl,
    cgroupMode,
    rootControllers: words(rootFiles.get(`${cg}/cgroup.controllers`)),
    rootSubtreeControl: words(rootFiles.get(`${cg}/cgroup.subtree_control`)),
    dmemCapacity: parseDmem(rootFiles.get(`${cg}/dmem.capacity`), sink(`${cg}/dmem.capacity`)),
    kubepodsLevels,
    pods,
    gpus: parseDrmCards(sectionFiles(capture, 'drm'), numberProblems),
    moduleParams: parseModuleParams(sectionFiles(capture, 'modparams')),
    gpuProcesses: (folded.fdinfo ?? fdinfoOf(capture)).result(numberProblems),
    kernelLog,
    containerdDefaultRuntime: parseContainerdDefaultRuntime(sectionFiles(capture, 'containerd')),
    kubelet: parseKubeletReservations(
      [...sectionFiles(capture, 'kubelet').values()][0],
      [...sectionFiles(capture, 'kubelet-cmdline').values()][0],
    ),
    missing,
    problems: [...problems, ...numberProblems.map(describeNumberProblem)],
  };
}

/** The capture's fdinfo section, added file by file in its order, as a streaming parse folds it. */
function fdinfoOf(capture: Capture): FdinfoAggregate {
  const aggregate = new FdinfoAggregate();
  eachSectionFile(capture, 'fdinfo', (path, body) => aggregate.addRecord(path, body));
  return aggregate;
}

/** Groups `<dir>/<file>` records by directory, with the path made relative to the controller root (v1's /memory too). */
function groupByDirectory(
  files: ReadonlyMap<string, string>,
  cgroupRoot: string,
  fullPaths: Map<string, string>,
): Map<string, Map<string, string>> {
  const groups = new Map<string, Map<string, string>>();
  for (const [path, body] of files) {
    if (!path.startsWith(cgroupRoot)) continue;
    const slash = path.lastIndexOf('/');
    let dir = path.slice(cgroupRoot.length, slash);
    if (dir.startsWith('/memory/') || dir === '/memory') dir = dir.slice('/memory'.length) || '/';
    const group = groups.get(dir) ?? new Map<string, string>();
    group.set(path.slice(slash + 1), body);
    groups.set(dir, group);
    fullPaths.set(`${dir}/${path.slice(slash + 1)}`, path);
  }
  return groups;
}

function isPodLevel(path: string, uid: string): boolean {
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last.includes(uid) || last.includes(uid.replace(/-/g, '_'));
}

function cgroupMemory(path: string, files: ReadonlyMap<string, string>, sink: (name: string) => NumberProblems): CgroupMemory {
  const number = (name: string) => parseMemoryUsage(files.get(name), sink(name));
  const v2 = files.has('memory.current') || files.has('memory.max');
  const dmem = (name: string) => parseDmem(files.get(name), sink(name));
  return {
    path,
    current: v2 ? number('memory.current') : number('memory.usage_in_bytes'),
    peak: v2 ? number('memory.peak') : number('memory.max_usage_in_bytes'),
    max: v2
      ? parseCgroupValue(files.get('memory.max'), sink('memory.max'))
      : v1Limit(files.get('memory.limit_in_bytes'), sink('memory.limit_in_bytes')),
    events: parseMemoryCounters(files.get('memory.events'), sink('memory.events')),
    stat: parseMemoryStat(files.get('memory.stat'), sink('memory.stat')),
    dmem: {
      current: dmem('dmem.current'),
      peak: dmem('dmem.peak'),
      min: dmem('dmem.min'),
      low: dmem('dmem.low'),
      max: dmem('dmem.max'),
    },
    subtreeControl: files.has('cgroup.subtree_control')
      ? (files.get('cgroup.subtree_control') ?? '').split(/\s+/).filter(Boolean)
      : undefined,
    oomControl: parseMemoryCounters(files.get('memory.oom_control'), sink('memory.oom_control')),
  };
}
