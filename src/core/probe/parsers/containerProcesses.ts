// The container's processes as the probe saw them in /proc/<pid> (maps flags, limit env, fd to /dev/nvidia*,
// executable kind), and the signs of Docker-in-Docker among them.
import type { CaptureSection } from '../capture.ts';
import { lines, sectionBody } from './captureLines.ts';
import { parseBoundedNumber } from './kernelNumber.ts';

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

export interface ContainerDind {
  readonly sockets: readonly string[];
  readonly otherPaths: readonly string[];
  readonly dockerHost: string | undefined;
  readonly binaries: readonly string[];
  readonly daemons: readonly { readonly pid: number; readonly comm: string }[];
  readonly lines: readonly string[];
}

/** The environment variable names the probe keeps (HAMi limits, CUDA_*, LD_PRELOAD…): POSIX names in capitals. */
export const HAMI_ENV_KEY = /^[A-Z_][A-Z0-9_]*$/;

export function parseProcesses(section: CaptureSection | undefined): ContainerProcess[] | undefined {
  if (!section) return undefined;
  const processes: ContainerProcess[] = [];
  for (const record of section.records) {
    const match = record.path === undefined ? null : /^\/proc\/(\d{1,10})$/.exec(record.path);
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
        lines: parseBoundedNumber(mapsMatch[5]),
      }
    : { readable: false, libvgpu: false, libcuda: false, musl: false, glibcLoader: false, lines: undefined };
  const nvidiaFd = values['nvidia_fd'] === '1' ? true : values['nvidia_fd'] === '0' ? false : undefined;
  const ppidText = values['ppid'];
  return {
    pid,
    ppid: parseBoundedNumber(ppidText),
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
  const interpreter = / interp=([^\n]*)$/.exec(line)?.[1];
  const reason = / reason=([^\n]*)$/.exec(line)?.[1];
  return {
    kind: kind === 'static' || kind === 'dynamic' ? kind : 'unknown',
    via,
    interpreter: interpreter === '?' ? undefined : interpreter,
    reason,
    line,
  };
}

const DAEMONS = new Set(['dockerd', 'containerd', 'podman', 'buildkitd', 'docker-containerd']);

export function parseDind(
  section: CaptureSection | undefined,
  processes: readonly ContainerProcess[] | undefined,
): ContainerDind | undefined {
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
  const daemons = (processes ?? [])
    .filter((process) => DAEMONS.has(process.comm))
    .map((process) => ({ pid: process.pid, comm: process.comm }));
  for (const daemon of daemons) evidence.push(`pid ${daemon.pid} comm=${daemon.comm}`);
  return { sockets, otherPaths, dockerHost, binaries, daemons, lines: evidence };
}
