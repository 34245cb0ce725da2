// What HAMi-core itself says about its state: its own log lines (and the loader's), and the shared-region
// cache file its processes keep their usage in. Silence is never evidence: at the chart's default
// LIBCUDA_LOG_LEVEL=1 a healthy process prints nothing.
import type { Check } from './hamiCheck.ts';
import { counted, fail, pass, unknown } from './hamiFacts.ts';
import type { Facts } from './hamiFacts.ts';

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

const TROUBLE_KINDS = [
  'lock-timeout',
  'shrreg-open-failed',
  'version-mismatch',
  'limit-inconsistency',
  'illegal-device-id',
  'host-pid-not-found',
];

export function checkLogs(facts: Facts): Check {
  const common = {
    id: 'bypass.logs',
    subject: "HAMi-core's and the loader's log lines",
    group: 'bypass' as const,
    command: "kubectl logs <pod> | grep -Ei 'HAMI-core|4pdvGPU|cannot be preloaded'",
    impact: 'bypass' as const,
  };
  const lines = facts.logLines;
  const evidence = (kinds: readonly string[]) =>
    lines
      .filter((line) => kinds.includes(line.kind))
      .slice(0, 20)
      .map((line) => `${line.where}: ${line.line}`);
  const preloadFailed = lines.filter((line) => line.kind === 'preload-failed');
  if (preloadFailed.length > 0) {
    return fail(
      { ...common, evidence: evidence(['preload-failed']) },
      'the loader refused to preload libvgpu.so: the processes that printed this are not limited',
      `ld.so printed "cannot be preloaded" ${counted(preloadFailed.length, 'time', 'times')}`,
      'Fix the libvgpu.so mount (it is missing or empty in the container) and restart the workload.',
      // The preload check reads the same loader lines; the library step sees the file they complain about.
      ['hami.libvgpu', 'bypass.preload'],
    );
  }
  // A known HAMi-core breakage, named before the generic shared-region trouble its "Illegal device id" line also is.
  const vmmCrash = lines.filter((line) => line.kind === 'vmm-create-crash');
  if (vmmCrash.length > 0) {
    return fail(
      { ...common, impact: 'risk' as const, evidence: evidence(['illegal-device-id', 'vmm-create-crash']) },
      'HAMi-core crashed in its cuMemCreate hook: it breaks on VMM allocations whose location is not a device',
      'a known HAMi-core bug (Project-HAMi/HAMi-core#187): the hook reads an uninitialised device id ("Illegal device id") when ' +
        "cuMemCreate's location is not a device, as llama.cpp's VMM pool and NCCL's host buffers ask",
      'Turn VMM off in the workload until HAMi-core is fixed: llama.cpp built with GGML_CUDA_NO_VMM=ON, NCCL with ' +
        'NCCL_CUMEM_HOST_ENABLE=0 (or NCCL_CUMEM_ENABLE=0); or run it without HAMi-core.',
    );
  }
  const invalid = lines.filter((line) => line.kind === 'invalid-limit');
  if (invalid.length > 0)
    return fail(
      { ...common, evidence: evidence(['invalid-limit']) },
      'HAMi-core reports an invalid (zero) memory limit: it enforces none',
      `it logged "invalid device memory limit" ${counted(invalid.length, 'time', 'times')}`,
      'Request a non-zero nvidia.com/gpumem.',
      // The limit-zero check reads the same lines, beside the variables themselves.
      ['bypass.limit-zero'],
    );
  const underflow = lines.filter((line) => line.kind === 'device-oom' && line.details.underflow);
  const trouble = lines.filter((line) => TROUBLE_KINDS.includes(line.kind));
  if (underflow.length > 0 || trouble.length > 0) {
    const riskCommon = { ...common, impact: 'risk' as const };
    return fail(
      {
        ...riskCommon,
        evidence: [
          ...evidence(['device-oom']).filter((line) => underflow.some((u) => line.endsWith(u.line))),
          ...trouble.slice(0, 20).map((line) => `${line.where}: ${line.line}`),
        ],
      },
      underflow.length > 0
        ? "HAMi-core's usage counter underflowed: it refuses allocations with false OOMs"
        : `HAMi-core reports trouble with its shared region (${[...new Set(trouble.map((line) => line.kind))].join(', ')})`,
      underflow.length > 0
        ? `a device OOM line shows used memory near 2^64 (HAMi#1181), ${counted(underflow.length, 'time', 'times')}`
        : 'a stale or mismatched .cache file in /usr/local/vgpu is the usual cause',
      'Upgrade HAMi-core (v2.6.1+ fixes HAMi#1181), then stop every GPU process in the container and delete the stale .cache file in /usr/local/vgpu so it is recreated.',
    );
  }
  const active = lines.filter((line) => line.source !== 'ld.so');
  if (active.length > 0) {
    return pass(
      { ...common, evidence: active.slice(0, 10).map((line) => `${line.where}: ${line.line}`) },
      `HAMi-core is active in ${counted(new Set(active.map((line) => line.pid ?? '?')).size, 'process', 'processes')}`,
      `it logged ${[...new Set(active.map((line) => line.kind))].join(', ')}`,
    );
  }
  const level = facts.logLevel;
  return unknown(
    { ...common, evidence: level !== undefined ? [`env: LIBCUDA_LOG_LEVEL=${level}`] : [] },
    'no HAMi-core log lines, which proves nothing',
    `at LIBCUDA_LOG_LEVEL=${level ?? '(unset here; the chart sets 1)'} ${level === undefined || Number(level) <= 1 ? 'only ERROR lines print, so a healthy process is silent' : 'Msg lines print only when a process initialises CUDA'}`,
    'Rely on the maps and env checks; to see HAMi-core\'s own lines set LIBCUDA_LOG_LEVEL=2 on the container and look for "Initializing....." in kubectl logs.',
  );
}

export function checkCache(facts: Facts): Check {
  const common = {
    id: 'bypass.cache',
    subject: 'the shared-region cache',
    group: 'bypass' as const,
    command: 'ls -l $CUDA_DEVICE_MEMORY_SHARED_CACHE; od -A n -t d4 -N 16 $CUDA_DEVICE_MEMORY_SHARED_CACHE',
    impact: 'risk' as const,
  };
  const caches = facts.container?.caches;
  if (!caches)
    return unknown(
      { ...common, evidence: [] },
      'the shared-region cache was not captured',
      'the capture has no hami.caches section',
      'Run the container probe in the workload container.',
    );
  const evidence = caches.flatMap((cache) =>
    cache.lines
      .filter(
        (line) => /^(size|header|device_num|limits|proc_num)=/.test(line) || (/^slot\d+=/.test(line) && !/= ?0 0 status=0/.test(line)),
      )
      .map((line) => `${cache.path}: ${line}`),
  );
  const remedy =
    'Stop the GPU processes in the container, delete the .cache file in /usr/local/vgpu (it is recreated on the next CUDA init), and keep HAMi-core versions consistent across the node (HAMi-core#7, HAMi#1181).';
  const bad = caches.filter(
    (cache) => cache.magicOk === false || cache.problems.some((problem) => /underflow|implausible|corrupt/.test(problem)),
  );
  if (bad.length > 0)
    return fail(
      { ...common, evidence: [...evidence, ...bad.flatMap((cache) => cache.problems)] },
      'the shared-region cache is not sound: HAMi-core counts usage wrongly',
      bad.flatMap((cache) => cache.problems).join('; ') || 'its magic number is wrong',
      remedy,
    );
  if (caches.length === 0) {
    const hasGpuWithLib = facts.gpuProcs.some((process) => process.maps.libvgpu);
    if (hasGpuWithLib)
      return fail(
        { ...common, evidence },
        'no shared-region cache, although CUDA processes map libvgpu.so',
        'HAMi-core creates the file at CUDA init; without it the processes do not share one usage count',
        remedy,
      );
    return unknown(
      { ...common, evidence },
      'no shared-region cache yet',
      'it is created when a process first initialises CUDA under libvgpu.so',
      'Run the probe while the workload is using the GPU.',
    );
  }
  const limits = caches
    .flatMap((cache) => cache.limits.slice(0, Math.max(1, cache.deviceNum ?? 1)).map((limit) => limit?.value))
    .filter((value): value is number => value !== undefined);
  return pass(
    { ...common, evidence },
    'the shared-region cache is sound',
    `magic ${caches[0]?.magic ?? '?'}, v${caches[0]?.majorVersion ?? '?'}.${caches[0]?.minorVersion ?? '?'}, limits ${limits.map((value) => (value === 0 ? 'unlimited' : mib(value))).join(', ')}, ${counted(
      caches.reduce((sum, cache) => sum + cache.liveSlots.length, 0),
      'live slot',
      'live slots',
    )}`,
  );
}
