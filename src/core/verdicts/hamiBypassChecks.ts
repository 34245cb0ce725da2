// The ways a process escapes HAMi's memory limit and what puts it at risk. HAMi-core works only where the
// dynamic loader preloads libvgpu.so (/etc/ld.so.preload, ld.so(8)): not in static executables, not under
// musl's loader, not in containers an inner Docker daemon starts, not in login sessions that bypass the
// container's mounts, not under gVisor (Project-HAMi/HAMi#2581); a limit of 0 or a privileged container
// (Project-HAMi/HAMi#2138) leaves the GPU unlimited.
import { pushAll } from '../arrays.ts';
import type { ContainerProcess } from '../probe/parsers/containerProcesses.ts';
import type { Check, HamiClusterFacts } from './hamiCheck.ts';
import {
  LIMIT_VAR,
  fail,
  failNoPreload,
  isTrue,
  limitVars,
  parseHamiLimit,
  pass,
  preloadEvidence,
  processLines,
  unknown,
} from './hamiFacts.ts';
import type { Facts } from './hamiFacts.ts';

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

export function checkStatic(facts: Facts): Check {
  const common = {
    id: 'bypass.static',
    title: 'static executable',
    group: 'bypass' as const,
    command: 'readelf -lW /proc/<pid>/exe | grep "program interpreter"',
    impact: 'bypass' as const,
  };
  if (!facts.processes)
    return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const exeLine = (line: string) => line.startsWith('exe=') || line.startsWith('exe_path=');
  const evidence = facts.gpuProcs.flatMap((process) => processLines(process, exeLine));
  const statics = facts.gpuProcs.filter((process) => process.exe.kind === 'static');
  if (statics.length > 0) {
    return fail(
      { ...common, evidence },
      `static executable(s) using the GPU, which never read /etc/ld.so.preload: ${statics.map((process) => `${process.pid} (${process.exePath ?? process.comm})`).join(', ')}`,
      'Rebuild with a dynamic glibc executable (the CUDA runtime may stay static: it still dlopens libcuda.so.1), or accept that this process is not limited.',
    );
  }
  if (facts.gpuProcs.length === 0)
    return unknown({ ...common, evidence }, 'no CUDA process to examine', 'Run the probe while the workload is using the GPU.');
  if (facts.gpuProcs.some((process) => process.exe.kind === 'unknown'))
    return unknown({ ...common, evidence }, 'some CUDA executables could not be classified', 'Run readelf -lW on them in the container.');
  return pass({ ...common, evidence }, 'every CUDA process runs a dynamically linked executable');
}

export function checkMusl(facts: Facts): Check {
  const common = {
    id: 'bypass.musl',
    title: 'musl loader',
    group: 'bypass' as const,
    command: 'grep ld-musl /proc/<pid>/maps',
    impact: 'bypass' as const,
  };
  if (!facts.processes)
    return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const isMusl = (process: ContainerProcess) => process.maps.musl || /ld-musl/.test(process.exe.interpreter ?? '');
  const musl = facts.gpuProcs.filter(isMusl);
  const remedy = 'Use a glibc-based image for CUDA workloads: /etc/ld.so.preload is a glibc feature and musl ignores it.';
  if (musl.length > 0) {
    return fail(
      {
        ...common,
        evidence: musl.flatMap((process) => processLines(process, (line) => line.startsWith('maps=') || line.startsWith('exe='))),
      },
      `CUDA process(es) run under musl, which ignores /etc/ld.so.preload: ${musl.map((process) => `${process.pid} (${process.comm})`).join(', ')}`,
      remedy,
    );
  }
  const loaders = facts.container?.loaders;
  const loaderEvidence = [...(loaders?.musl ?? []), ...(loaders?.glibc ?? [])].map((path) => `loader: ${path}`);
  if (facts.gpuProcs.length > 0) return pass({ ...common, evidence: loaderEvidence }, 'no CUDA process maps ld-musl');
  if (loaders && loaders.musl.length > 0 && loaders.glibc.length === 0) {
    return unknown(
      { ...common, evidence: loaderEvidence },
      "the image ships only musl's loader: a CUDA program here would not be preloaded",
      remedy,
    );
  }
  const muslAny = facts.processes.filter(isMusl);
  if (muslAny.length > 0)
    return unknown(
      { ...common, evidence: muslAny.flatMap((process) => processLines(process, (line) => line.startsWith('maps='))) },
      'musl processes run here (none uses CUDA yet)',
      remedy,
    );
  return pass({ ...common, evidence: loaderEvidence }, 'no musl process');
}

export function checkDind(facts: Facts): Check {
  const common = {
    id: 'bypass.dind',
    title: 'Docker-in-Docker',
    group: 'bypass' as const,
    command: 'ls -l /var/run/docker.sock /run/containerd/containerd.sock; echo $DOCKER_HOST; ps | grep -E "dockerd|containerd"',
    impact: 'risk' as const,
  };
  const dind = facts.container?.dind;
  if (!dind) return unknown({ ...common, evidence: [] }, 'not captured', 'Run the container probe in the workload container.');
  const evidence = dind.lines.map((line) => `dind: ${line}`);
  if (dind.sockets.length > 0 || dind.dockerHost !== undefined || dind.daemons.length > 0) {
    return fail(
      { ...common, evidence },
      'a container runtime is reachable from this container: containers it starts get no hostPath mounts or env, so they are not limited (HAMi#1777)',
      "Avoid Docker-in-Docker for GPU workloads; run them as pods. (With hostPID, the node's own containerd shows up here too: check the evidence.)",
    );
  }
  return pass({ ...common, evidence }, 'no runtime socket, DOCKER_HOST or daemon process');
}

export function checkLoginSessions(facts: Facts): Check {
  const common = {
    id: 'bypass.login-session',
    title: 'login sessions without the limit env',
    group: 'bypass' as const,
    command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DEVICE_MEMORY_LIMIT",
    impact: 'bypass' as const,
  };
  if (!facts.processes)
    return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const pid1Limits = limitVars(facts.pid1Env);
  const evidence = pid1Limits.map(([key, value]) => `/proc/1: ${key}=${value}`);
  if (pid1Limits.length === 0)
    return unknown(
      { ...common, evidence },
      'PID 1 has no limit env to inherit (or its environ is unreadable); see "HAMi env vars"',
      'Run the probe as root in the container.',
    );
  const readable = facts.gpuProcs.filter((process) => process.environReadable);
  const lacking = readable.filter((process) => limitVars(process.env).length === 0);
  const all = [
    ...evidence,
    ...facts.gpuProcs.flatMap((process) =>
      processLines(
        process,
        (line) =>
          line.startsWith('comm=') ||
          line.startsWith('cmdline=') ||
          LIMIT_VAR.test(line.split('=')[0] ?? '') ||
          line === '@environ-unreadable',
      ),
    ),
  ];
  if (lacking.length > 0) {
    return fail(
      { ...common, evidence: all },
      `CUDA process(es) without CUDA_DEVICE_MEMORY_LIMIT* although PID 1 has it (a login shell, su -, cron or ssh session): ${lacking.map((process) => `${process.pid} (${process.comm})`).join(', ')}`,
      "Start GPU work from the container's own environment (kubectl exec inherits it; ssh, su - and cron do not), or export the CUDA_DEVICE_* variables from /proc/1/environ in the session (HAMi#1112).",
    );
  }
  if (facts.gpuProcs.length === 0)
    return unknown({ ...common, evidence: all }, 'no CUDA process to examine', 'Run the probe while the workload is using the GPU.');
  if (readable.length < facts.gpuProcs.length)
    return unknown(
      { ...common, evidence: all },
      "some CUDA processes' environ could not be read",
      'Run the probe as root in the container.',
    );
  return pass({ ...common, evidence: all }, 'every CUDA process carries the limit env');
}

export function checkGvisor(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'bypass.gvisor',
    title: 'gVisor runtime',
    group: 'bypass' as const,
    command: "kubectl get pod <pod> -o jsonpath='{.spec.runtimeClassName}'",
    impact: 'bypass' as const,
  };
  const runtimeClass = cluster?.runtimeClassName;
  const remedy = "gVisor's Sentry does not honour /etc/ld.so.preload (HAMi#2581): run HAMi-limited pods with runc/nvidia, not runsc.";
  if (runtimeClass !== undefined) {
    const evidence = [`pod spec: runtimeClassName: ${runtimeClass ?? '(none)'}`];
    if (runtimeClass !== null && /gvisor|runsc/i.test(runtimeClass))
      return fail({ ...common, evidence }, `the pod runs under ${runtimeClass} (gVisor)`, remedy);
    return pass(
      { ...common, evidence },
      runtimeClass === null ? 'the pod sets no runtimeClassName' : `runtimeClassName ${runtimeClass} is not gVisor`,
    );
  }
  const kernel = facts.container?.kernel;
  const hint = kernel === '4.4.0' || /gvisor/i.test(facts.container?.procVersion ?? '');
  const evidence = kernel !== undefined ? [`meta: kernel=${kernel}`] : [];
  return unknown(
    { ...common, evidence },
    hint
      ? "the kernel reports 4.4.0, gVisor's default: probably gVisor"
      : "the pod's runtimeClassName is a cluster fact this capture does not have",
    remedy,
  );
}

export function checkDisableControlPerProcess(facts: Facts): Check {
  const common = {
    id: 'bypass.disable-control',
    title: 'CUDA_DISABLE_CONTROL in process environments',
    group: 'bypass' as const,
    command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DISABLE_CONTROL",
    impact: 'bypass' as const,
  };
  if (!facts.processes)
    return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const readable = facts.processes.filter((process) => process.environReadable);
  const evidence = facts.processes.flatMap((process) => processLines(process, (line) => line.startsWith('CUDA_DISABLE_CONTROL=')));
  const set = facts.processes.filter((process) => isTrue(process.env['CUDA_DISABLE_CONTROL']));
  if (set.length > 0) {
    return fail(
      { ...common, evidence },
      `CUDA_DISABLE_CONTROL is true in ${set.length} process(es): the pod was created with it, so the preload mount was skipped`,
      'Remove CUDA_DISABLE_CONTROL from the pod spec and recreate the pod (HAMi-core itself ignores the variable; the device plugin reads it at Allocate).',
    );
  }
  if (readable.length === 0)
    return unknown({ ...common, evidence }, 'no process environ was readable', 'Run the probe as root in the container.');
  return pass({ ...common, evidence }, `not set in any of ${readable.length} readable process environment(s)`);
}

export function checkPreloadTarget(facts: Facts): Check {
  const common = {
    id: 'bypass.preload',
    title: 'preload missing, empty or pointing elsewhere',
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
  if (loaderErrors.length > 0)
    return fail(
      { ...common, evidence },
      `the loader could not preload ${loaderErrors[0]?.details.object ?? 'libvgpu.so'} (${loaderErrors[0]?.details.reason ?? ''}): processes run without it (HAMi#1346, #777)`,
      remedy,
    );
  if (!preload)
    return unknown({ ...common, evidence }, 'the preload file was not captured', 'Run the container probe in the workload container.');
  if (preload.state === 'missing' || preload.state === 'directory' || (preload.state !== 'unreadable' && preload.entries.length === 0)) {
    return failNoPreload(
      facts,
      { ...common, evidence },
      `/etc/ld.so.preload is ${preload.state === 'missing' ? 'missing' : preload.state === 'directory' ? 'a directory' : 'empty'}`,
      remedy,
    );
  }
  if (preload.state === 'unreadable')
    return unknown({ ...common, evidence }, '/etc/ld.so.preload is unreadable', 'Run the probe as root in the container.');
  const container = facts.container;
  const vgpu = preload.entries.filter((entry) => entry.startsWith('/usr/local/vgpu/'));
  for (const entry of vgpu) {
    const name = entry.slice('/usr/local/vgpu/'.length);
    if (container?.vgpuDir !== undefined && !name.includes('/')) {
      const listed = container.vgpuDir.find((item) => item.name === name);
      if (!listed) return fail({ ...common, evidence }, `/etc/ld.so.preload names ${entry}, which does not exist in the container`, remedy);
      if (listed.type === 'file' && listed.size === 0)
        return fail({ ...common, evidence }, `/etc/ld.so.preload names ${entry}, which is empty`, remedy);
    }
  }
  const libvgpuEntries = preload.entries.filter((entry) => entry.endsWith('libvgpu.so'));
  if (libvgpuEntries.length === 0)
    return fail({ ...common, evidence }, `/etc/ld.so.preload lists ${preload.entries.join(' ')}, not HAMi's libvgpu.so`, remedy);
  const elsewhere = libvgpuEntries.filter((entry) => !entry.startsWith('/usr/local/vgpu/'));
  if (elsewhere.length > 0)
    return unknown(
      { ...common, evidence },
      `/etc/ld.so.preload names ${elsewhere.join(' ')}, outside /usr/local/vgpu (a custom gpuHookPath): the probe did not check that path`,
      remedy,
    );
  // Present only if the listing says so: a capture without the vgpu section has no evidence either way.
  if (container?.vgpuDir === undefined)
    return unknown(
      { ...common, evidence },
      `/etc/ld.so.preload names ${libvgpuEntries.join(' ')}, but the capture has no /usr/local/vgpu listing (no vgpu section), so whether it exists was not checked`,
      'Run the full container probe (gpumem inspect --pod) in the workload container.',
    );
  return pass({ ...common, evidence }, 'the preload names a libvgpu.so that is present');
}

export function checkLimitZero(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'bypass.limit-zero',
    title: 'limit 0 (no limit)',
    group: 'bypass' as const,
    command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DEVICE_MEMORY_LIMIT",
    impact: 'bypass' as const,
  };
  const found: { where: string; key: string; value: string }[] = [];
  const add = (where: string, env: Readonly<Record<string, string>> | undefined) => {
    for (const [key, value] of limitVars(env)) found.push({ where, key, value });
  };
  add('env', facts.container?.env);
  add('/proc/1', facts.pid1Env);
  for (const process of facts.gpuProcs) if (process.pid !== 1 && process.environReadable) add(`/proc/${process.pid}`, process.env);
  add('pod spec env', cluster?.podEnv);
  const evidence = found.map((item) => `${item.where}: ${item.key}=${item.value}`);
  const invalid = facts.logLines.filter((line) => line.kind === 'invalid-limit');
  pushAll(
    evidence,
    invalid.map((line) => `${line.where}: ${line.line}`),
  );
  const zero = found.filter((item) => parseHamiLimit(item.value) === 0);
  if (zero.length > 0 || invalid.length > 0) {
    const names = [
      ...new Set([
        ...zero.map((item) => `${item.key}=${item.value}`),
        ...invalid.map((line) => `${line.details.variable ?? '?'}=${line.details.value ?? ''}`),
      ]),
    ];
    return fail(
      { ...common, evidence },
      `${names.join(', ')} parses to 0, which HAMi-core treats as no limit`,
      'Request a non-zero nvidia.com/gpumem (HAMi writes "<MiB>m"); a value that parses to 0 — "0", "0m", text — disables the memory limit.',
    );
  }
  if (found.length === 0) return unknown({ ...common, evidence }, 'no CUDA_DEVICE_MEMORY_LIMIT* value to check', 'See "HAMi env vars".');
  const values = [...new Set(found.map((item) => `${item.key}=${item.value} (${mib(parseHamiLimit(item.value))})`))];
  return pass({ ...common, evidence }, `limits are non-zero: ${values.join(', ')}`);
}

export function checkLogs(facts: Facts): Check {
  const common = {
    id: 'bypass.logs',
    title: "HAMi-core's own log lines",
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
      'Fix the libvgpu.so mount (it is missing or empty in the container) and restart the workload.',
    );
  }
  const invalid = lines.filter((line) => line.kind === 'invalid-limit');
  if (invalid.length > 0)
    return fail(
      { ...common, evidence: evidence(['invalid-limit']) },
      'HAMi-core reports an invalid (zero) memory limit: it does not enforce one',
      'Request a non-zero nvidia.com/gpumem.',
    );
  const underflow = lines.filter((line) => line.kind === 'device-oom' && line.details.underflow);
  const trouble = lines.filter((line) =>
    ['lock-timeout', 'shrreg-open-failed', 'version-mismatch', 'limit-inconsistency', 'illegal-device-id', 'host-pid-not-found'].includes(
      line.kind,
    ),
  );
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
        ? "HAMi-core's usage counter underflowed (HAMi#1181): it refuses allocations with false OOMs"
        : `HAMi-core reports trouble with its shared region: ${[...new Set(trouble.map((line) => line.kind))].join(', ')}`,
      'Upgrade HAMi-core (v2.6.1+ fixes HAMi#1181), then stop every GPU process in the container and delete the stale .cache file in /usr/local/vgpu so it is recreated.',
    );
  }
  const active = lines.filter((line) => line.source !== 'ld.so');
  if (active.length > 0) {
    return pass(
      { ...common, evidence: active.slice(0, 10).map((line) => `${line.where}: ${line.line}`) },
      `HAMi-core is logging from ${new Set(active.map((line) => line.pid ?? '?')).size} process(es) (${[...new Set(active.map((line) => line.kind))].join(', ')})`,
    );
  }
  const level = facts.logLevel;
  return unknown(
    { ...common, evidence: level !== undefined ? [`env: LIBCUDA_LOG_LEVEL=${level}`] : [] },
    `no HAMi-core log lines; that proves nothing: at LIBCUDA_LOG_LEVEL=${level ?? '(unset here; the chart sets 1)'} ${level === undefined || Number(level) <= 1 ? 'only ERROR lines print, so a healthy process is silent' : 'Msg lines print only when a process initialises CUDA'}`,
    'Rely on the maps and env checks; to see HAMi-core\'s own lines set LIBCUDA_LOG_LEVEL=2 on the container and look for "Initializing....." in kubectl logs.',
  );
}

export function checkUnifiedMemory(facts: Facts): Check {
  const common = {
    id: 'bypass.unified-memory',
    title: 'unified-memory GPU',
    group: 'bypass' as const,
    command: 'nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits',
    impact: 'bypass' as const,
  };
  const gpus = facts.container?.nvidiaSmi.gpus;
  if (!gpus)
    return unknown(
      { ...common, evidence: facts.container?.nvidiaSmi.missing ? ['nvidia-smi.gpu: missing nvidia-smi'] : [] },
      'nvidia-smi did not run in the container',
      'Run nvidia-smi in the container.',
    );
  const evidence = [...gpus.rows.map((row) => `nvidia-smi: ${row.line}`), ...gpus.errors.map((line) => `nvidia-smi: ${line}`)];
  const unreported = gpus.rows.filter((row) => row.memoryUnreported);
  if (unreported.length > 0) {
    return fail(
      { ...common, evidence },
      'NVML reports no GPU memory (memory.total [N/A]): a unified-memory GPU such as GB10, where HAMi-core cannot enforce a limit (KAI-Scheduler#1967)',
      'Do not rely on HAMi memory limits on unified-memory GPUs; bound the pod with its memory cgroup (resources.limits.memory) instead.',
    );
  }
  if (gpus.rows.length === 0) return unknown({ ...common, evidence }, 'nvidia-smi printed no GPU', 'Check nvidia-smi in the container.');
  return pass(
    { ...common, evidence },
    `nvidia-smi reports memory.total ${gpus.rows.map((row) => `${row.memoryTotalMiB ?? '?'} MiB`).join(', ')} (inside HAMi: the quota)`,
  );
}

export function checkPrivileged(cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'bypass.privileged',
    title: 'privileged container (HAMi < v2.10.0)',
    group: 'bypass' as const,
    command: "kubectl get pod <pod> -o jsonpath='{.spec.containers[*].securityContext.privileged}'",
    impact: 'bypass' as const,
  };
  if (cluster?.privileged === undefined)
    return unknown(
      { ...common, evidence: [] },
      'privileged is a pod-spec fact this capture does not have',
      'gpumem fills this in when it inspects through Kubernetes.',
    );
  const evidence = [
    `pod spec: privileged: ${cluster.privileged}`,
    ...(cluster.hamiVersion ? [`hami version: ${cluster.hamiVersion}`] : []),
  ];
  if (!cluster.privileged) return pass({ ...common, evidence }, 'no privileged container');
  const version = /(?<!\d)v?(\d+)\.(\d+)/.exec(cluster.hamiVersion ?? '');
  const remedy =
    'Upgrade HAMi to v2.10.0+ (its webhook denies privileged pods with HAMi resources, PR#2139) and drop privileged from GPU containers.';
  if (!version) return unknown({ ...common, evidence }, 'a privileged container, and the HAMi version is unknown', remedy);
  const old = Number(version[1]) < 2 || (Number(version[1]) === 2 && Number(version[2]) < 10);
  if (old)
    return fail(
      { ...common, evidence },
      'a privileged container under HAMi < v2.10.0: the webhook skipped it, so it runs without limits (HAMi#2138)',
      remedy,
    );
  return pass({ ...common, evidence }, 'HAMi ≥ v2.10.0 denies privileged pods that request HAMi resources');
}

export function checkCache(facts: Facts): Check {
  const common = {
    id: 'bypass.cache',
    title: 'shared-region cache',
    group: 'bypass' as const,
    command: 'ls -l $CUDA_DEVICE_MEMORY_SHARED_CACHE; od -A n -t d4 -N 16 $CUDA_DEVICE_MEMORY_SHARED_CACHE',
    impact: 'risk' as const,
  };
  const caches = facts.container?.caches;
  if (!caches) return unknown({ ...common, evidence: [] }, 'not captured', 'Run the container probe in the workload container.');
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
      `the shared-region cache is not sound: ${bad.flatMap((cache) => cache.problems).join('; ')}`,
      remedy,
    );
  if (caches.length === 0) {
    const hasGpuWithLib = facts.gpuProcs.some((process) => process.maps.libvgpu);
    if (hasGpuWithLib)
      return fail({ ...common, evidence }, 'CUDA processes map libvgpu.so but no shared-region cache file was found', remedy);
    return unknown(
      { ...common, evidence },
      'no shared-region cache yet (it is created when a process first initialises CUDA under libvgpu.so)',
      'Run the probe while the workload is using the GPU.',
    );
  }
  const limits = caches
    .flatMap((cache) => cache.limits.slice(0, Math.max(1, cache.deviceNum ?? 1)).map((limit) => limit?.value))
    .filter((value): value is number => value !== undefined);
  return pass(
    { ...common, evidence },
    `cache ok (magic ${caches[0]?.magic ?? '?'}, v${caches[0]?.majorVersion ?? '?'}.${caches[0]?.minorVersion ?? '?'}), limits ${limits.map((value) => (value === 0 ? 'unlimited' : mib(value))).join(', ')}, ${caches.reduce((sum, cache) => sum + cache.liveSlots.length, 0)} live slot(s)`,
  );
}
