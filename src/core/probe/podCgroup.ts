// Cgroup path → Kubernetes pod. The kubelet names pod cgroups after the pod UID, under a QoS parent,
// with either cgroup driver and either cgroup version (kubernetes/kubernetes pkg/kubelet/cm/cgroup_manager_linux.go):
//
//   systemd:  /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<id>.scope
//             /kubepods.slice/kubepods-pod<uid>.slice/…                     (Guaranteed: no QoS level)
//   cgroupfs: /kubepods/burstable/pod<uid>/<id>
//             /kubepods/pod<uid>/<id>                                      (Guaranteed)
//
// The same tree can sit under a prefix: the host's cgroup mount (`/sys/fs/cgroup/memory/…`), a node
// container (`/lxc.payload.x/kubepods.slice/…`, kind's `/kubelet.slice/kubelet-kubepods.slice/…`), or a
// probe's host root (`/host/sys/fs/cgroup/…`). Container scopes are named by the runtime:
// `cri-containerd-<id>.scope`, `crio-<id>.scope`, `docker-<id>.scope`; cgroupfs uses the bare id; the
// cgroup v1 systemd form used by containerd writes `<pod slice>:cri-containerd:<id>`.
//
// Pure and total: any string in, a result or undefined out, never an exception.
import type { QosClass } from '../kube/qos.ts';
import { trimEndOf } from '../textScan.ts';

/**
 * The QoS class from the kubelet's cgroup name for it (pkg/kubelet/cm/qos_container_manager_linux.go in
 * kubernetes/kubernetes): Burstable and BestEffort pods sit under `burstable` / `besteffort`, Guaranteed
 * pods directly under kubepods.
 */
function qosOfCgroupName(name: string | undefined): QosClass {
  return name === 'burstable' ? 'Burstable' : name === 'besteffort' ? 'BestEffort' : 'Guaranteed';
}

export interface PodCgroup {
  /** The pod UID as the API server prints it: lower case, dashes (static pods: 32 hex digits). */
  readonly podUid: string;
  readonly qos: QosClass;
  /** The container id when the path goes below the pod level. */
  readonly containerId?: string;
  /** `containerd`, `cri-o`, `docker`, or the scope prefix as written when it is another runtime. */
  readonly runtime?: string;
}

const UID_DASHED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UID_HASH = /^[0-9a-f]{32}$/;
/** systemd driver: `[<prefix>-]kubepods[-<qos>]-pod<uid>.slice[:<runtime>:<id>]`. */
const SYSTEMD_POD =
  /^(?:[A-Za-z0-9_.]+-)?kubepods(?:-(burstable|besteffort))?-pod([0-9A-Fa-f_-]{32,36})\.slice(?::([A-Za-z0-9_-]+):([^/]+))?$/;
/** cgroupfs driver: `pod<uid>`. */
const CGROUPFS_POD = /^pod([0-9A-Fa-f-]{32,36})$/;
/** A runtime's container scope: `<runtime>-<id>.scope`. */
const SCOPE = /^([A-Za-z][A-Za-z0-9_-]*?)-([0-9A-Fa-f]{12,128})\.scope$/;
const BARE_ID = /^[0-9a-f]{12,128}$/;
/** `/proc/<pid>/cgroup` line: `<hierarchy id>:<controllers>:<path>`. */
const PROC_LINE = /^(\d+):([^:]*):([^\n]*)$/;

const RUNTIME_NAMES: Readonly<Record<string, string>> = {
  'cri-containerd': 'containerd',
  containerd: 'containerd',
  crio: 'cri-o',
  'cri-o': 'cri-o',
  docker: 'docker',
  'cri-dockerd': 'docker',
};

function normalizeUid(raw: string): string | undefined {
  const uid = raw.replace(/_/g, '-').toLowerCase();
  if (UID_DASHED.test(uid) || UID_HASH.test(uid)) return uid;
  return undefined;
}

function runtimeName(prefix: string): string {
  return RUNTIME_NAMES[prefix] ?? prefix;
}

function containerFromSegment(segment: string | undefined): { containerId: string; runtime?: string } | undefined {
  if (segment === undefined) return undefined;
  const scope = SCOPE.exec(segment);
  if (scope) {
    const prefix = scope[1] ?? '';
    const id = (scope[2] ?? '').toLowerCase();
    return { containerId: id, runtime: runtimeName(prefix) };
  }
  if (BARE_ID.test(segment)) return { containerId: segment };
  return undefined;
}

/**
 * The pod (and container) a cgroup path belongs to, or undefined when the path is not inside a pod's
 * cgroup. Accepts a bare path, a path under a cgroup mount or host root, a `memory.events`-style file
 * path, or one `/proc/<pid>/cgroup` line (`0::/…`, `12:memory:/…`).
 */
export function parsePodCgroup(path: string): PodCgroup | undefined {
  if (typeof path !== 'string' || path.length === 0 || path.length > 8192) return undefined;
  let text = path.trim();
  const procLine = PROC_LINE.exec(text);
  if (procLine) text = procLine[3] ?? '';
  if (!text.includes('kubepods')) return undefined;
  const segments = text.split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? '';
    const systemd = SYSTEMD_POD.exec(segment);
    if (systemd) {
      const podUid = normalizeUid(systemd[2] ?? '');
      if (podUid === undefined) return undefined;
      const qos = qosOfCgroupName(systemd[1]);
      if (systemd[3] !== undefined && systemd[4] !== undefined) {
        // cgroup v1 systemd-style name written by containerd: `<pod slice>:cri-containerd:<id>`.
        return { podUid, qos, containerId: systemd[4].toLowerCase(), runtime: runtimeName(systemd[3]) };
      }
      const container = containerFromSegment(segments[i + 1]);
      return container ? { podUid, qos, ...container } : { podUid, qos };
    }
    const cgroupfs = CGROUPFS_POD.exec(segment);
    if (cgroupfs) {
      const parent = segments[i - 1] ?? '';
      const grandparent = segments[i - 2] ?? '';
      let qos: QosClass;
      if ((parent === 'burstable' || parent === 'besteffort') && isKubepodsSegment(grandparent)) qos = qosOfCgroupName(parent);
      else if (isKubepodsSegment(parent)) qos = 'Guaranteed';
      else continue;
      const podUid = normalizeUid(cgroupfs[1] ?? '');
      if (podUid === undefined) return undefined;
      const container = containerFromSegment(segments[i + 1]);
      return container ? { podUid, qos, ...container } : { podUid, qos };
    }
  }
  return undefined;
}

function isKubepodsSegment(segment: string): boolean {
  return segment === 'kubepods' || segment.endsWith('-kubepods') || segment === 'kubepods.slice' || segment.endsWith('-kubepods.slice');
}

/**
 * True when the path is inside the kubelet's pod tree (`kubepods`…), even when it is truncated or
 * names no pod (the QoS level, or the allocatable root `/kubepods.slice`).
 */
export function isKubepodsPath(path: string | undefined): boolean {
  if (typeof path !== 'string') return false;
  return /(?:^|\/)(?:[A-Za-z0-9_.]+-)?kubepods(?:[./-]|$)/.test(path);
}

/** The level of the kubelet tree a path names: the whole pod tree, a QoS class, a pod, or a container. */
export type KubepodsLevel = 'kubepods' | 'qos' | 'pod' | 'container';

export function kubepodsLevel(path: string | undefined): KubepodsLevel | undefined {
  if (path === undefined || !isKubepodsPath(path)) return undefined;
  const pod = parsePodCgroup(path);
  if (pod) return pod.containerId !== undefined ? 'container' : 'pod';
  const last = trimEndOf(path, '/').split('/').pop() ?? '';
  if (/^(?:burstable|besteffort)$/.test(last) || /kubepods-(?:burstable|besteffort)\.slice$/.test(last)) return 'qos';
  if (/^(?:[A-Za-z0-9_.]+-)?kubepods(?:\.slice)?$/.test(last)) return 'kubepods';
  return undefined;
}

/** A batched read of many `/proc/<pid>/cgroup` files (the node probe's `grep -z -H`, run in <root>/proc): one
 *  `<pid>/cgroup:<the file, a tab for each newline>` line per process → pid → cgroup path (undefined when the
 *  file names none: the process was still read). */
export function parseBatchedProcCgroups(body: string): Map<number, string | undefined> {
  const out = new Map<number, string | undefined>();
  for (const line of body.split('\n')) {
    const match = BATCHED_CGROUP_LINE.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    out.set(Number(match[1]), cgroupPathFromProcCgroup(match[2].replaceAll('\t', '\n')));
  }
  return out;
}

const BATCHED_CGROUP_LINE = /^(\d{1,10})\/cgroup:([^\n]*)$/;

/**
 * The cgroup path of a process from the text of `/proc/<pid>/cgroup`: the cgroup v2 line (`0::/…`)
 * when present (a v2 or hybrid host), else the v1 memory controller line, else the first line with a
 * path. Undefined for empty or unreadable text.
 */
export function cgroupPathFromProcCgroup(text: string): string | undefined {
  if (typeof text !== 'string') return undefined;
  let memory: string | undefined;
  let first: string | undefined;
  let unified: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const match = PROC_LINE.exec(line);
    if (!match) continue;
    const controllers = match[2] ?? '';
    const cgroupPath = match[3] ?? '';
    if (cgroupPath === '') continue;
    if (match[1] === '0' && controllers === '') {
      if (unified === undefined) unified = cgroupPath;
      continue;
    }
    if (controllers.split(',').includes('memory') && memory === undefined) memory = cgroupPath;
    if (first === undefined) first = cgroupPath;
  }
  const v1 = memory ?? first;
  if (unified === undefined) return v1;
  if (v1 === undefined) return unified;
  // Both: a pure v2 host has only the `0::` line, so this is hybrid. The v2 line wins unless the v1
  // line is the one that places the process in a pod (cgroupfs driver), or the v2 line is just `/`.
  if (parsePodCgroup(unified) !== undefined) return unified;
  if (parsePodCgroup(v1) !== undefined) return v1;
  return unified === '/' ? v1 : unified;
}
