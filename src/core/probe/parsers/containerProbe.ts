// The container-scope capture (scripts/containerScript.ts) as a typed model: the probe's env, the
// /etc/ld.so.preload file and its mounts, libvgpu.so, the shared-region caches, the processes with
// their maps flags, limit env and executable kind, nvidia-smi's quota view, the memory cgroup, signs
// of Docker-in-Docker, whether the root filesystem is read-only, and HAMi-core log lines.
//
// Pure and tolerant: a missing or cut-off section gives undefined/empty fields and a problem; unknown
// keys are ignored. Every parsed item keeps its verbatim capture lines for verdict evidence.
import { pushAll } from '../../arrays.ts';
import { lines, sectionBody } from './captureLines.ts';
import { parseKeyEquals } from './keyValue.ts';
import type { ContainerCgroupMemory } from './containerCgroup.ts';
import { parseContainerCgroup } from './containerCgroup.ts';
import type { LsEntry, MountInfo, PreloadFile } from './containerFiles.ts';
import { parseLsLine, parseMounts, parsePreload } from './containerFiles.ts';
import type { ContainerDind, ContainerProcess } from './containerProcesses.ts';
import { probeRightsOf } from '../probeRights.ts';
import type { ProbeRights } from '../probeRights.ts';
import { HAMI_ENV_KEY, parseDind, parseProcesses } from './containerProcesses.ts';
import type { Capture } from '../capture.ts';
import { parseHamiCaches } from './hamiCache.ts';
import type { HamiCache } from './hamiCache.ts';
import { parseHamiLog } from './hamiLog.ts';
import type { HamiLogParse } from './hamiLog.ts';
import { APPS_FIELDS, CONTAINER_GPU_FIELDS, parseSmiApps, parseSmiGpus } from './nvidiaSmi.ts';
import type { SmiApp, SmiGpu, SmiResult } from './nvidiaSmi.ts';

export interface ContainerProbe {
  readonly meta: Readonly<Record<string, string>>;
  /** kernel.dmesg_restrict and the probe's effective capabilities, as the probe recorded them (older probes: unrecorded). */
  readonly probeRights: ProbeRights;
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

export function parseContainerProbe(capture: Capture): ContainerProbe {
  const problems: string[] = [...capture.problems];
  if (capture.scope !== undefined && capture.scope !== 'container')
    problems.push(`this is a ${capture.scope}-scope capture, not a container capture`);

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
      if (record.path === 'ls')
        pushAll(
          vgpuDir,
          lines(record.body)
            .map(parseLsLine)
            .filter((entry): entry is LsEntry => entry !== undefined),
        );
      if (record.path === 'libvgpu')
        libvgpu = lines(record.body)
          .map(parseLsLine)
          .find((entry) => entry !== undefined);
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
  const cgroup = parseContainerCgroup(capture.sections.get('cgroup'), problems);

  const gpuSection = capture.sections.get('nvidia-smi.gpu');
  const appsSection = capture.sections.get('nvidia-smi.apps');
  const smiMissing = (gpuSection?.missing.includes('nvidia-smi') ?? false) || (appsSection?.missing.includes('nvidia-smi') ?? false);
  const gpus =
    gpuSection && !gpuSection.missing.includes('nvidia-smi') ? parseSmiGpus(sectionBody(gpuSection), CONTAINER_GPU_FIELDS) : undefined;
  const apps = appsSection && !appsSection.missing.includes('nvidia-smi') ? parseSmiApps(sectionBody(appsSection), APPS_FIELDS) : undefined;
  if (gpus) pushAll(problems, gpus.problems);

  const logText = [sectionBody(capture.sections.get('hami.log')), ...(gpus?.otherLines ?? []), ...(apps?.otherLines ?? [])].join('\n');
  const logs = parseHamiLog(logText);

  return {
    meta,
    probeRights: probeRightsOf(new Map(Object.entries(meta))),
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

/** `key=value` lines (the meta section, the process summary), through the one KEY=value reader. */
function keyValues(text: string | undefined): Record<string, string> {
  return Object.fromEntries(parseKeyEquals(text ?? ''));
}
