// The container-scope capture (scripts/containerScript.ts) as a typed model: the probe's env, the
// /etc/ld.so.preload file and its mounts, libvgpu.so, the shared-region caches, the processes with
// their maps flags, limit env and executable kind, nvidia-smi's quota view, the memory cgroup, signs
// of Docker-in-Docker, whether the root filesystem is read-only, and HAMi-core log lines.
//
// Pure and tolerant: a missing or cut-off section gives undefined/empty fields and a problem; unknown
// keys are ignored. Every parsed item keeps its verbatim capture lines for verdict evidence.
import { pushAll } from '../../arrays.ts';
import type { NumberProblem, NumberProblems } from './kernelNumber.ts';
import { describeNumberProblem } from './kernelNumber.ts';
import type { CgroupLimit } from './cgroupMemory.ts';
import { parseCgroupValue, parseMemoryCounters, parseMemoryStat, parseMemoryUsage, v1Limit } from './cgroupMemory.ts';
import type { Capture, CaptureSection } from '../capture.ts';
import { parseHamiCaches } from './hamiCache.ts';
import type { HamiCache } from './hamiCache.ts';
import { parseHamiLog } from './hamiLog.ts';
import type { HamiLogParse } from './hamiLog.ts';
import { APPS_FIELDS, CONTAINER_GPU_FIELDS, parseSmiApps, parseSmiGpus } from './nvidiaSmi.ts';
import type { SmiApp, SmiGpu, SmiResult } from './nvidiaSmi.ts';

export interface LsEntry {
  readonly line: string;
  readonly type: 'file' | 'directory' | 'symlink' | 'char' | 'block' | 'socket' | 'fifo' | 'other';
  readonly mode: string;
  readonly uid: string;
  readonly gid: string;
  /** Bytes; undefined for devices. */
  readonly size: number | undefined;
  readonly name: string;
  readonly target: string | undefined;
}

export interface MountInfo {
  readonly line: string;
  readonly mountId: number | undefined;
  readonly root: string;
  readonly mountPoint: string;
  readonly options: readonly string[];
  readonly fsType: string;
  readonly source: string;
  readonly superOptions: readonly string[];
  readonly readOnly: boolean;
}

export interface ProcessMaps {
  readonly readable: boolean;
  readonly libvgpu: boolean;
  readonly libcuda: boolean;
  readonly musl: boolean;
  readonly glibcLoader: boolean;
  readonly lines: number | undefined;
}

export interface ProcessExe {
  readonly kind: 'static' | 'dynamic' | 'unknown';
  readonly via: string | undefined;
  readonly interpreter: string | undefined;
  readonly reason: string | undefined;
  readonly line: string | undefined;
}

export interface ContainerProcess {
  readonly pid: number;
  readonly ppid: number | undefined;
  readonly comm: string;
  readonly cmdline: string;
  readonly kernelThread: boolean;
  readonly maps: ProcessMaps;
  /** Holds an open /dev/nvidia* fd; undefined when the fd table was unreadable. */
  readonly nvidiaFd: boolean | undefined;
  readonly environReadable: boolean;
  /** The HAMi-relevant variables of its environ (limit vars, CUDA_DISABLE_CONTROL, LD_PRELOAD…). */
  readonly env: Readonly<Record<string, string>>;
  readonly exePath: string | undefined;
  readonly exe: ProcessExe;
  /** Uses the GPU through CUDA: libcuda mapped, or a /dev/nvidia* fd open. */
  readonly gpu: boolean;
  /** The verbatim record. */
  readonly lines: readonly string[];
}

export interface ContainerCgroupMemory {
  readonly version: 'v1' | 'v2' | 'unknown';
  readonly path: string | undefined;
  readonly currentBytes: number | undefined;
  /** memory.max (v1: memory.limit_in_bytes); undefined when unknown. */
  readonly max: CgroupLimit | undefined;
  readonly peakBytes: number | undefined;
  readonly events: Readonly<Record<string, number>>;
  readonly stat: Readonly<Record<string, number>>;
  readonly oomControl: Readonly<Record<string, number>>;
  /** Verbatim `path: content` evidence lines. */
  readonly lines: readonly string[];
}

export interface ContainerDind {
  readonly sockets: readonly string[];
  readonly otherPaths: readonly string[];
  readonly dockerHost: string | undefined;
  readonly binaries: readonly string[];
  readonly daemons: readonly { readonly pid: number; readonly comm: string }[];
  readonly lines: readonly string[];
}

export interface PreloadFile {
  readonly state: 'file' | 'directory' | 'symlink' | 'missing' | 'unreadable' | 'unknown';
  readonly content: string | undefined;
  /** Whitespace-separated objects, comments dropped. */
  readonly entries: readonly string[];
  readonly lsLine: string | undefined;
  readonly sizeBytes: number | undefined;
}

export interface ContainerProbe {
  readonly meta: Readonly<Record<string, string>>;
  readonly kernel: string | undefined;
  readonly procVersion: string | undefined;
  /** The probe's own environment, filtered to the HAMi/CUDA variables; undefined when not captured. */
  readonly env: Readonly<Record<string, string>> | undefined;
  readonly envSource: 'proc' | 'env' | undefined;
  readonly envLines: readonly string[];
  readonly preload: PreloadFile | undefined;
  readonly mounts: readonly MountInfo[] | undefined;
  /** The mount of / (the topmost when stacked). */
  readonly rootMount: MountInfo | undefined;
  readonly rootReadOnly: boolean | undefined;
  /** /usr/local/vgpu listed; undefined when the section is absent, [] when the directory is missing. */
  readonly vgpuDir: readonly LsEntry[] | undefined;
  readonly vgpuDirMissing: boolean;
  /** `ls -lnL /usr/local/vgpu/libvgpu.so` (the target of a symlink). */
  readonly libvgpu: LsEntry | undefined;
  readonly caches: readonly HamiCache[];
  readonly loaders: { readonly musl: readonly string[]; readonly glibc: readonly string[] } | undefined;
  readonly dind: ContainerDind | undefined;
  readonly cgroup: ContainerCgroupMemory | undefined;
  readonly nvidiaSmi: {
    readonly gpus: SmiResult<SmiGpu> | undefined;
    readonly apps: SmiResult<SmiApp> | undefined;
    /** The tool was not there. */
    readonly missing: boolean;
  };
  /** HAMi-core and loader lines from /tmp/vgpulog and from nvidia-smi's stderr. */
  readonly logs: HamiLogParse;
  readonly processes: readonly ContainerProcess[] | undefined;
  readonly processesTruncated: boolean;
  readonly problems: readonly string[];
}

const HAMI_ENV_KEY = /^[A-Z_][A-Z0-9_]*$/;

export function parseContainerProbe(capture: Capture): ContainerProbe {
  const problems: string[] = [...capture.problems];
  if (capture.scope !== undefined && capture.scope !== 'container') problems.push(`this is a ${capture.scope}-scope capture, not a container capture`);

  const meta = keyValues(body(capture, 'meta'));
  const procVersion = body(capture, 'proc-version')?.trim() || undefined;

  // env
  const envSection = capture.sections.get('env');
  let env: Record<string, string> | undefined;
  let envSource: 'proc' | 'env' | undefined;
  const envLines: string[] = [];
  if (envSection) {
    env = {};
    for (const line of lines(sectionBody(envSection))) {
      if (line.startsWith('source=')) {
        const source = line.slice('source='.length).trim();
        envSource = source === 'proc' || source === 'env' ? source : undefined;
        continue;
      }
      const eq = line.indexOf('=');
      const key = eq > 0 ? line.slice(0, eq) : '';
      if (!HAMI_ENV_KEY.test(key)) continue;
      env[key] = line.slice(eq + 1);
      envLines.push(line);
    }
  } else problems.push('no env section: the probe environment is unknown');

  const preload = parsePreload(capture.sections.get('preload'));
  const mounts = parseMounts(capture.sections.get('mounts'));
  const rootMounts = mounts?.filter((mount) => mount.mountPoint === '/') ?? [];
  const rootMount = rootMounts[rootMounts.length - 1];

  // /usr/local/vgpu
  const vgpuSection = capture.sections.get('vgpu');
  let vgpuDir: LsEntry[] | undefined;
  let libvgpu: LsEntry | undefined;
  const vgpuDirMissing = vgpuSection?.missing.includes('/usr/local/vgpu') ?? false;
  if (vgpuSection) {
    vgpuDir = [];
    for (const record of vgpuSection.records) {
      if (record.path === 'ls') pushAll(vgpuDir, lines(record.body).map(parseLsLine).filter((entry): entry is LsEntry => entry !== undefined));
      if (record.path === 'libvgpu') libvgpu = lines(record.body).map(parseLsLine).find((entry) => entry !== undefined);
    }
    if (!libvgpu) {
      const listed = vgpuDir.find((entry) => entry.name === 'libvgpu.so');
      if (listed && listed.type !== 'symlink') libvgpu = listed;
    }
  }

  const caches = parseHamiCaches(capture);
  for (const cache of caches) pushAll(problems, cache.problems);

  const loaderSection = capture.sections.get('loader');
  const loaders = loaderSection
    ? {
        musl: lines(sectionBody(loaderSection)).filter((line) => /ld-musl/.test(line)),
        glibc: lines(sectionBody(loaderSection)).filter((line) => /ld-linux|ld64\.so/.test(line)),
      }
    : undefined;

  const processes = parseProcesses(capture.sections.get('procs'));
  const summary = keyValues(capture.sections.get('procs')?.records.find((record) => record.path === 'summary')?.body);
  const processesTruncated = summary['truncated'] === '1';
  if (processesTruncated) problems.push(`only the first ${summary['limit'] ?? '?'} processes were examined`);
  if (!processes) problems.push('no procs section: per-process evidence is missing');

  const dind = parseDind(capture.sections.get('dind'), processes);
  const cgroup = parseCgroup(capture.sections.get('cgroup'), problems);

  const gpuSection = capture.sections.get('nvidia-smi.gpu');
  const appsSection = capture.sections.get('nvidia-smi.apps');
  const smiMissing = (gpuSection?.missing.includes('nvidia-smi') ?? false) || (appsSection?.missing.includes('nvidia-smi') ?? false);
  const gpus = gpuSection && !gpuSection.missing.includes('nvidia-smi') ? parseSmiGpus(sectionBody(gpuSection), CONTAINER_GPU_FIELDS) : undefined;
  const apps = appsSection && !appsSection.missing.includes('nvidia-smi') ? parseSmiApps(sectionBody(appsSection), APPS_FIELDS) : undefined;
  if (gpus) pushAll(problems, gpus.problems);

  const logText = [sectionBody(capture.sections.get('hami.log')), ...(gpus?.otherLines ?? []), ...(apps?.otherLines ?? [])].join('\n');
  const logs = parseHamiLog(logText);

  return {
    meta,
    kernel: meta['kernel'],
    procVersion,
    env,
    envSource,
    envLines,
    preload,
    mounts,
    rootMount,
    rootReadOnly: rootMount?.readOnly,
    vgpuDir,
    vgpuDirMissing,
    libvgpu,
    caches,
    loaders,
    dind,
    cgroup,
    nvidiaSmi: { gpus, apps, missing: smiMissing },
    logs,
    processes,
    processesTruncated,
    problems,
  };
}

function body(capture: Capture, name: string): string | undefined {
  const section = capture.sections.get(name);
  return section ? sectionBody(section) : undefined;
}

/** All of a section's record bodies, joined. */
function sectionBody(section: CaptureSection | undefined): string {
  return (section?.records ?? []).map((record) => record.body).join('\n');
}

function lines(text: string | undefined): string[] {
  return (text ?? '').split('\n').map((line) => line.replace(/\r$/, '')).filter((line) => line.trim() !== '');
}

function keyValues(text: string | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of lines(text)) {
    const eq = line.indexOf('=');
    if (eq > 0) values[line.slice(0, eq).trim()] = line.slice(eq + 1);
  }
  return values;
}

const LS = /^([-dlcbps])([-rwxsStT]{9})[.+@]?\s+\d+\s+(\S+)\s+(\S+)\s+(?:(\d+),\s*\d+|(\d+))\s+\S+\s+\S+\s+\S+\s(.*)$/;

export function parseLsLine(line: string): LsEntry | undefined {
  const match = LS.exec(line);
  if (!match) return undefined;
  const typeChar = match[1] ?? '-';
  const type: LsEntry['type'] =
    typeChar === '-' ? 'file' : typeChar === 'd' ? 'directory' : typeChar === 'l' ? 'symlink' : typeChar === 'c' ? 'char' : typeChar === 'b' ? 'block' : typeChar === 's' ? 'socket' : typeChar === 'p' ? 'fifo' : 'other';
  let name = match[7] ?? '';
  let target: string | undefined;
  if (type === 'symlink') {
    const arrow = name.indexOf(' -> ');
    if (arrow >= 0) {
      target = name.slice(arrow + 4);
      name = name.slice(0, arrow);
    }
  }
  // `ls -lnd /etc/ld.so.preload` prints the path: keep the basename like a directory listing.
  const size = match[6] !== undefined ? Number(match[6]) : undefined;
  return { line, type, mode: `${typeChar}${match[2] ?? ''}`, uid: match[3] ?? '', gid: match[4] ?? '', size, name, target };
}

function parsePreload(section: CaptureSection | undefined): PreloadFile | undefined {
  if (!section) return undefined;
  if (section.missing.includes('/etc/ld.so.preload')) return { state: 'missing', content: undefined, entries: [], lsLine: undefined, sizeBytes: undefined };
  const lsLine = lines(section.records.find((record) => record.path === 'ls')?.body)[0];
  const ls = lsLine === undefined ? undefined : parseLsLine(lsLine);
  const file = section.records.find((record) => record.path === '/etc/ld.so.preload');
  let state: PreloadFile['state'] = ls?.type === 'directory' ? 'directory' : ls?.type === 'symlink' ? 'symlink' : ls?.type === 'file' ? 'file' : 'unknown';
  let content = file?.body;
  if (content !== undefined && content.trim() === 'gpumem: permission denied') {
    state = 'unreadable';
    content = undefined;
  }
  if (file && state === 'unknown') state = 'file';
  const entries = (content ?? '')
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(/[\s:]+/))
    .filter((entry) => entry !== '');
  return { state, content, entries, lsLine, sizeBytes: ls?.size };
}

function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_all, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function parseMountInfoLine(line: string): MountInfo | undefined {
  const dash = line.indexOf(' - ');
  if (dash < 0) return undefined;
  const head = line.slice(0, dash).split(' ');
  const tail = line.slice(dash + 3).split(' ');
  if (head.length < 6) return undefined;
  const options = (head[5] ?? '').split(',');
  return {
    line,
    mountId: /^\d+$/.test(head[0] ?? '') ? Number(head[0]) : undefined,
    root: unescapeMount(head[3] ?? ''),
    mountPoint: unescapeMount(head[4] ?? ''),
    options,
    fsType: tail[0] ?? '',
    source: unescapeMount(tail[1] ?? ''),
    superOptions: (tail[2] ?? '').split(','),
    readOnly: options.includes('ro'),
  };
}

function parseMounts(section: CaptureSection | undefined): MountInfo[] | undefined {
  if (!section || section.missing.includes('/proc/self/mountinfo')) return undefined;
  return lines(sectionBody(section)).map(parseMountInfoLine).filter((mount): mount is MountInfo => mount !== undefined);
}

function parseProcesses(section: CaptureSection | undefined): ContainerProcess[] | undefined {
  if (!section) return undefined;
  const processes: ContainerProcess[] = [];
  for (const record of section.records) {
    const match = record.path === undefined ? null : /^\/proc\/(\d+)$/.exec(record.path);
    if (!match) continue;
    processes.push(parseProcess(Number(match[1]), record.body));
  }
  return processes;
}

const MAPS = /libvgpu=(\d+) libcuda=(\d+) ld-musl=(\d+) ld-linux=(\d+)(?: lines=(\d+))?/;

export function parseProcess(pid: number, text: string): ContainerProcess {
  const recordLines = lines(text);
  const values: Record<string, string> = {};
  const env: Record<string, string> = {};
  let environReadable = true;
  let exeLine: string | undefined;
  for (const line of recordLines) {
    if (line === '@environ-unreadable') {
      environReadable = false;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (HAMI_ENV_KEY.test(key)) env[key] = value;
    else if (key === 'exe') exeLine = line;
    else if (!(key in values)) values[key] = value;
  }
  const mapsText = values['maps'];
  const mapsMatch = mapsText === undefined ? null : MAPS.exec(mapsText);
  const maps: ProcessMaps = mapsMatch
    ? {
        readable: true,
        libvgpu: Number(mapsMatch[1]) > 0,
        libcuda: Number(mapsMatch[2]) > 0,
        musl: Number(mapsMatch[3]) > 0,
        glibcLoader: Number(mapsMatch[4]) > 0,
        lines: mapsMatch[5] === undefined ? undefined : Number(mapsMatch[5]),
      }
    : { readable: false, libvgpu: false, libcuda: false, musl: false, glibcLoader: false, lines: undefined };
  const nvidiaFd = values['nvidia_fd'] === '1' ? true : values['nvidia_fd'] === '0' ? false : undefined;
  const ppidText = values['ppid'];
  return {
    pid,
    ppid: ppidText !== undefined && /^\d+$/.test(ppidText) ? Number(ppidText) : undefined,
    comm: values['comm'] ?? '',
    cmdline: (values['cmdline'] ?? '').trim(),
    kernelThread: values['kernel'] === '1',
    maps,
    nvidiaFd,
    environReadable: environReadable && values['kernel'] !== '1',
    env,
    exePath: values['exe_path'],
    exe: parseExe(exeLine),
    gpu: maps.libcuda || nvidiaFd === true,
    lines: recordLines,
  };
}

function parseExe(line: string | undefined): ProcessExe {
  if (line === undefined) return { kind: 'unknown', via: undefined, interpreter: undefined, reason: 'not reported', line };
  const kind = /^exe=(static|dynamic|unknown)\b/.exec(line)?.[1];
  const via = / via=(\S+)/.exec(line)?.[1];
  const interpreter = / interp=(.*)$/.exec(line)?.[1];
  const reason = / reason=(.*)$/.exec(line)?.[1];
  return {
    kind: kind === 'static' || kind === 'dynamic' ? kind : 'unknown',
    via,
    interpreter: interpreter === '?' ? undefined : interpreter,
    reason,
    line,
  };
}

const DAEMONS = new Set(['dockerd', 'containerd', 'podman', 'buildkitd', 'docker-containerd']);

function parseDind(section: CaptureSection | undefined, processes: readonly ContainerProcess[] | undefined): ContainerDind | undefined {
  if (!section) return undefined;
  const sockets: string[] = [];
  const otherPaths: string[] = [];
  const binaries: string[] = [];
  let dockerHost: string | undefined;
  const evidence: string[] = [];
  for (const line of lines(sectionBody(section))) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'socket') sockets.push(value);
    else if (key === 'path') otherPaths.push(value);
    else if (key === 'docker_host') dockerHost = value;
    else if (key === 'binary') binaries.push(value);
    else continue;
    evidence.push(line);
  }
  const daemons = (processes ?? []).filter((process) => DAEMONS.has(process.comm)).map((process) => ({ pid: process.pid, comm: process.comm }));
  for (const daemon of daemons) evidence.push(`pid ${daemon.pid} comm=${daemon.comm}`);
  return { sockets, otherPaths, dockerHost, binaries, daemons, lines: evidence };
}

function parseCgroup(section: CaptureSection | undefined, problems: string[]): ContainerCgroupMemory | undefined {
  if (!section) return undefined;
  // Numbers out of range are left out and named (file and field), never passed on as Infinity.
  const numberProblems: NumberProblem[] = [];
  const sink = (file: string): NumberProblems => ({ file, problems: numberProblems });
  const files = new Map<string, string>();
  for (const record of section.records) if (record.path !== undefined) files.set(record.path, record.body);
  const evidence: string[] = [];
  const single = (path: string): string | undefined => {
    const text = files.get(path);
    if (text === undefined) return undefined;
    const value = text.trim().split('\n')[0]?.trim();
    evidence.push(`${path}: ${value ?? ''}`);
    return value;
  };
  const usage = (file: string): number | undefined => parseMemoryUsage(single(file), sink(file));
  const counters = (file: string): Record<string, number> => Object.fromEntries(parseMemoryCounters(files.get(file), sink(file)));
  const report = <T>(result: T): T => {
    for (const problem of numberProblems) problems.push(describeNumberProblem(problem));
    return result;
  };
  const v2 = files.has('/sys/fs/cgroup/memory.current') || files.has('/sys/fs/cgroup/cgroup.controllers');
  const v1 = files.has('/sys/fs/cgroup/memory/memory.usage_in_bytes');
  const procCgroup = lines(files.get('/proc/self/cgroup'));
  const path = v2 ? procCgroup.find((line) => line.startsWith('0::'))?.slice(3) : procCgroup.find((line) => /^\d+:[^:]*\bmemory\b[^:]*:/.test(line))?.replace(/^\d+:[^:]*:/, '');
  if (v2) {
    const maxFile = '/sys/fs/cgroup/memory.max';
    return report({
      version: 'v2',
      path,
      currentBytes: usage('/sys/fs/cgroup/memory.current'),
      max: parseCgroupValue(single(maxFile), sink(maxFile)),
      peakBytes: usage('/sys/fs/cgroup/memory.peak'),
      events: counters('/sys/fs/cgroup/memory.events'),
      stat: Object.fromEntries(parseMemoryStat(files.get('/sys/fs/cgroup/memory.stat'), sink('/sys/fs/cgroup/memory.stat'))),
      oomControl: {},
      lines: evidence,
    });
  }
  if (v1) {
    const limitFile = '/sys/fs/cgroup/memory/memory.limit_in_bytes';
    return report({
      version: 'v1',
      path,
      currentBytes: usage('/sys/fs/cgroup/memory/memory.usage_in_bytes'),
      max: v1Limit(single(limitFile), sink(limitFile)),
      peakBytes: usage('/sys/fs/cgroup/memory/memory.max_usage_in_bytes'),
      events: {},
      stat: Object.fromEntries(parseMemoryStat(files.get('/sys/fs/cgroup/memory/memory.stat'), sink('/sys/fs/cgroup/memory/memory.stat'))),
      oomControl: counters('/sys/fs/cgroup/memory/memory.oom_control'),
      lines: evidence,
    });
  }
  return { version: 'unknown', path, currentBytes: undefined, max: undefined, peakBytes: undefined, events: {}, stat: {}, oomControl: {}, lines: evidence };
}
