// Where the dynamic loader never loads libvgpu.so, although the container was set up for it. HAMi-core
// works only where glibc's ld.so preloads libvgpu.so through /etc/ld.so.preload (ld.so(8)): a static
// executable never runs ld.so, musl's loader ignores the file, and a preload that names a missing or empty
// file loads nothing.
import { pushAll } from '../../arrays.ts';
import type { ContainerProcess } from '../../probe/parsers/containerProcesses.ts';
import type { Check } from './hamiCheck.ts';
import { counted, fail, failNoPreload, nameList, pass, preloadEvidence, processLines, unknown } from './hamiFacts.ts';
import type { CheckBase, Facts } from './hamiFacts.ts';

const NOT_CAPTURED = 'Run the container probe in the workload container.';
const NO_CUDA_PROCESS = 'Run the probe while the workload is using the GPU.';

function processesNotCaptured(common: Omit<CheckBase, 'evidence'>, what: string): Check {
  return unknown({ ...common, evidence: [] }, 'the processes were not captured', what, NOT_CAPTURED);
}

export function checkStatic(facts: Facts): Check {
  const common = {
    id: 'bypass.static',
    subject: 'how the CUDA executables are linked',
    group: 'bypass' as const,
    command: 'readelf -lW /proc/<pid>/exe | grep "program interpreter"',
    impact: 'bypass' as const,
  };
  if (!facts.processes) return processesNotCaptured(common, 'without /proc/<pid>/exe no executable can be classified');
  const exeLine = (line: string) => line.startsWith('exe=') || line.startsWith('exe_path=');
  const evidence = facts.gpuProcs.flatMap((process) => processLines(process, exeLine));
  const statics = facts.gpuProcs.filter((process) => process.exe.kind === 'static');
  if (statics.length > 0) {
    const names = nameList(statics.map((process) => process.comm));
    return fail(
      { ...common, evidence },
      statics.length === 1 || new Set(statics.map((process) => process.comm)).size === 1
        ? `${names} is a static executable: ld.so.preload cannot load libvgpu.so`
        : `${names} are static executables: ld.so.preload cannot load libvgpu.so`,
      `${statics.map((process) => `pid ${process.pid} (${process.exePath ?? process.comm})`).join(', ')} ${statics.length === 1 ? 'never runs' : 'never run'} the dynamic loader, so /etc/ld.so.preload is never read`,
      'Rebuild with a dynamic glibc executable (the CUDA runtime may stay static: it still dlopens libcuda.so.1), or accept that this process is not limited.',
    );
  }
  if (facts.gpuProcs.length === 0)
    return unknown({ ...common, evidence }, 'no CUDA process to examine', 'only a process that uses the GPU matters here', NO_CUDA_PROCESS);
  const unclassified = facts.gpuProcs.filter((process) => process.exe.kind === 'unknown');
  if (unclassified.length > 0)
    return unknown(
      { ...common, evidence },
      `the executable of ${unclassified.length} of ${counted(facts.gpuProcs.length, 'CUDA process', 'CUDA processes')} could not be classified`,
      `${nameList(unclassified.map((process) => process.comm))}: neither readelf nor the ELF header told static from dynamic`,
      'Run readelf -lW on them in the container.',
    );
  return pass(
    { ...common, evidence },
    facts.gpuProcs.length === 1
      ? 'the CUDA process runs a dynamically linked executable'
      : `all ${facts.gpuProcs.length} CUDA processes run dynamically linked executables`,
    'ld.so starts them, and it reads /etc/ld.so.preload',
  );
}

export function checkMusl(facts: Facts): Check {
  const common = {
    id: 'bypass.musl',
    subject: 'the C library loader',
    group: 'bypass' as const,
    command: 'grep ld-musl /proc/<pid>/maps',
    impact: 'bypass' as const,
  };
  if (!facts.processes) return processesNotCaptured(common, "without /proc/<pid>/maps no process's loader is known");
  const isMusl = (process: ContainerProcess) => process.maps.musl || /ld-musl/.test(process.exe.interpreter ?? '');
  const musl = facts.gpuProcs.filter(isMusl);
  const remedy = 'Use a glibc-based image for CUDA workloads: /etc/ld.so.preload is a glibc feature and musl ignores it.';
  if (musl.length > 0) {
    return fail(
      {
        ...common,
        evidence: musl.flatMap((process) => processLines(process, (line) => line.startsWith('maps=') || line.startsWith('exe='))),
      },
      `${nameList(musl.map((process) => process.comm))} ${musl.length === 1 ? 'runs' : 'run'} under musl: its loader ignores /etc/ld.so.preload`,
      `${musl.map((process) => `pid ${process.pid} (${process.comm})`).join(', ')} ${musl.length === 1 ? 'maps' : 'map'} ld-musl, so libvgpu.so is never preloaded`,
      remedy,
    );
  }
  const loaders = facts.container?.loaders;
  const loaderEvidence = [...(loaders?.musl ?? []), ...(loaders?.glibc ?? [])].map((path) => `loader: ${path}`);
  if (facts.gpuProcs.length > 0)
    return pass(
      { ...common, evidence: loaderEvidence },
      'no CUDA process runs under musl',
      `none of the ${counted(facts.gpuProcs.length, 'CUDA process', 'CUDA processes')} maps ld-musl`,
    );
  if (loaders && loaders.musl.length > 0 && loaders.glibc.length === 0) {
    return unknown(
      { ...common, evidence: loaderEvidence },
      "the image has only musl's loader: a CUDA program here would not be preloaded",
      'no CUDA process runs yet',
      remedy,
    );
  }
  const muslAny = facts.processes.filter(isMusl);
  if (muslAny.length > 0)
    return unknown(
      { ...common, evidence: muslAny.flatMap((process) => processLines(process, (line) => line.startsWith('maps='))) },
      `${counted(muslAny.length, 'process runs', 'processes run')} under musl: CUDA work among them would not be preloaded`,
      'none of them uses CUDA yet',
      remedy,
    );
  return pass(
    { ...common, evidence: loaderEvidence },
    'no process runs under musl',
    `checked ${counted(facts.processes.length, 'process', 'processes')}`,
  );
}

export function checkPreloadTarget(facts: Facts): Check {
  const common = {
    id: 'bypass.preload',
    subject: 'the files /etc/ld.so.preload names',
    group: 'bypass' as const,
    command: 'cat /etc/ld.so.preload; ls -la $(cat /etc/ld.so.preload)',
    impact: 'bypass' as const,
  };
  const preload = facts.container?.preload;
  const evidence = preloadEvidence(facts);
  const loaderErrors = facts.logLines.filter((line) => line.kind === 'preload-failed');
  pushAll(
    evidence,
    loaderErrors.map((line) => `${line.where}: ${line.line}`),
  );
  const remedy =
    'Make /etc/ld.so.preload name the libvgpu.so that is mounted (a custom gpuHookPath needs HAMi ≥ the fix of HAMi#2017), and make sure the file it names exists and is not empty.';
  // The seed steps see the same file and library: when they fail too, this check is their cause seen again.
  const seeds = ['hami.preload', 'hami.libvgpu'];
  if (loaderErrors.length > 0)
    return fail(
      { ...common, evidence },
      `the loader could not preload ${loaderErrors[0]?.details.object ?? 'libvgpu.so'}: processes run without it`,
      `ld.so printed "cannot be preloaded"${loaderErrors[0]?.details.reason ? ` (${loaderErrors[0].details.reason})` : ''} (HAMi#1346, #777)`,
      remedy,
      seeds,
    );
  if (!preload)
    return unknown(
      { ...common, evidence },
      '/etc/ld.so.preload was not captured',
      'the capture has no preload section, so the files it names are not known',
      NOT_CAPTURED,
    );
  if (preload.state === 'missing' || preload.state === 'directory' || (preload.state !== 'unreadable' && preload.entries.length === 0)) {
    return failNoPreload(
      facts,
      { ...common, evidence },
      `/etc/ld.so.preload is ${preload.state === 'missing' ? 'missing' : preload.state === 'directory' ? 'a directory' : 'empty'}`,
      'it names no file to preload',
      remedy,
      ['hami.preload'],
    );
  }
  if (preload.state === 'unreadable')
    return unknown(
      { ...common, evidence },
      '/etc/ld.so.preload could not be read',
      'it exists, but not for the user the probe ran as',
      'Run the probe as root in the container.',
    );
  const container = facts.container;
  const vgpu = preload.entries.filter((entry) => entry.startsWith('/usr/local/vgpu/'));
  for (const entry of vgpu) {
    const name = entry.slice('/usr/local/vgpu/'.length);
    if (container?.vgpuDir !== undefined && !name.includes('/')) {
      const listed = container.vgpuDir.find((item) => item.name === name);
      if (!listed)
        return fail(
          { ...common, evidence },
          `/etc/ld.so.preload names ${entry}, which does not exist: nothing is preloaded`,
          'the loader skips a preload entry it cannot open',
          remedy,
          seeds,
        );
      if (listed.type === 'file' && listed.size === 0)
        return fail(
          { ...common, evidence },
          `/etc/ld.so.preload names ${entry}, which is empty: nothing is preloaded`,
          'the loader prints "cannot be preloaded (cannot read file data): ignored" (HAMi#1346)',
          remedy,
          seeds,
        );
    }
  }
  const libvgpuEntries = preload.entries.filter((entry) => entry.endsWith('libvgpu.so'));
  if (libvgpuEntries.length === 0)
    return fail(
      { ...common, evidence },
      "/etc/ld.so.preload does not name HAMi's libvgpu.so",
      `it lists ${preload.entries.join(' ')}`,
      remedy,
      ['hami.preload'],
    );
  const elsewhere = libvgpuEntries.filter((entry) => !entry.startsWith('/usr/local/vgpu/'));
  if (elsewhere.length > 0)
    return unknown(
      { ...common, evidence },
      `/etc/ld.so.preload names ${elsewhere.join(' ')}, outside /usr/local/vgpu, which the probe does not list`,
      'a custom gpuHookPath: whether the file exists and is not empty was not checked',
      remedy,
    );
  // Present only if the listing says so: a capture without the vgpu section has no evidence either way.
  if (container?.vgpuDir === undefined)
    return unknown(
      { ...common, evidence },
      `whether ${libvgpuEntries.join(' ')} exists was not checked: the capture has no /usr/local/vgpu listing`,
      '/etc/ld.so.preload names it, but there is no /usr/local/vgpu listing (no vgpu section)',
      'Run the full container probe (gpumem inspect --pod) in the workload container.',
    );
  return pass(
    { ...common, evidence },
    `the preloaded ${libvgpuEntries.join(' ')} is present and not empty`,
    'the /usr/local/vgpu listing shows the file /etc/ld.so.preload names',
  );
}
