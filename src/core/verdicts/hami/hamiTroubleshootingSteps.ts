// Steps 1–5 of HAMi's troubleshooting page ("GPU Memory Enforcement: How It Works and How to Debug It",
// Quick Diagnostic Checklist), each named by the command the page gives for it: what the container itself
// shows (its env, /etc/ld.so.preload, libvgpu.so, the processes' maps). Steps 6–7 are hamiNodeSteps.ts.
import { pushAll } from '../../arrays.ts';
import type { Capture } from '../../probe/capture.ts';
import type { Check, HamiClusterFacts } from './hamiCheck.ts';
import {
  bodyLines,
  counted,
  envLine,
  fail,
  failNoPreload,
  isTrue,
  limitVars,
  nameList,
  pass,
  pidList,
  preloadEvidence,
  processLines,
  unknown,
} from './hamiFacts.ts';
import type { Facts } from './hamiFacts.ts';

const STEP_COMMANDS = {
  disableControl: 'kubectl exec <pod> -- env | grep CUDA_DISABLE',
  envVars: 'kubectl exec <pod> -- env | grep CUDA_DEVICE_MEMORY',
  preload: 'kubectl exec <pod> -- cat /etc/ld.so.preload',
  libvgpu: 'kubectl exec <pod> -- ls -la /usr/local/vgpu/libvgpu.so',
  loaded: 'Find the workload PID (kubectl exec <pod> -- ps aux), then kubectl exec <pod> -- cat /proc/<workload-pid>/maps | grep libvgpu',
} as const;

export function checkDisableControl(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'hami.disable-control',
    subject: 'CUDA_DISABLE_CONTROL in the container env',
    group: 'seed' as const,
    step: 1,
    command: STEP_COMMANDS.disableControl,
    impact: 'bypass' as const,
  };
  const evidence: string[] = [];
  const seen: string[] = [];
  const truthy: { where: string; value: string }[] = [];
  const consider = (where: string, label: string, env: Readonly<Record<string, string>> | undefined) => {
    if (env === undefined) return;
    seen.push(label);
    const value = env['CUDA_DISABLE_CONTROL'];
    if (value !== undefined) {
      evidence.push(envLine(where, env, 'CUDA_DISABLE_CONTROL'));
      if (isTrue(value)) truthy.push({ where: label, value });
    }
  };
  consider('env', 'the container env', facts.container?.env);
  consider('/proc/1 environ', 'PID 1', facts.pid1Env);
  consider('pod spec env', 'the pod spec', cluster?.podEnv);
  if (truthy.length > 0) {
    const values = [...new Set(truthy.map((item) => item.value))];
    const setting = values.length === 1 ? `CUDA_DISABLE_CONTROL=${values[0] ?? ''}` : 'CUDA_DISABLE_CONTROL is true';
    return fail(
      { ...common, evidence },
      `${setting} in ${nameList(truthy.map((item) => item.where))}: HAMi's limits are off`,
      'the device plugin did not mount /etc/ld.so.preload, so libvgpu.so is never loaded',
      "Remove CUDA_DISABLE_CONTROL from the pod spec (or set it to false) and recreate the pod; find who injects it with kubectl get pod <pod> -o jsonpath='{.spec.containers[*].env[*]}'. The pod still counts against nvidia.com/gpumem while unenforced (HAMi#1678).",
    );
  }
  if (seen.length === 0)
    return unknown(
      { ...common, evidence },
      'the container environment was not captured',
      "neither the container env, PID 1's environ nor the pod spec is in this capture",
      'Run the container probe (gpumem probe-script --scope container) in the workload container.',
    );
  return pass(
    { ...common, evidence },
    evidence.length > 0 ? 'CUDA_DISABLE_CONTROL is set, but not to true: HAMi stays in control' : 'CUDA_DISABLE_CONTROL is not set',
    `checked ${nameList(seen)}`,
  );
}

export function checkEnvVars(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'hami.env',
    subject: "HAMi's limit variables",
    group: 'seed' as const,
    step: 2,
    command: STEP_COMMANDS.envVars,
    impact: 'bypass' as const,
  };
  const evidence: string[] = [];
  const sources: [string, Readonly<Record<string, string>> | undefined][] = [
    ['env', facts.container?.env],
    ['/proc/1 environ', facts.pid1Env],
    ['pod spec env', cluster?.podEnv],
  ];
  let seen = false;
  const carriers: string[] = [];
  for (const [where, env] of sources) {
    if (env === undefined) continue;
    seen = true;
    for (const key of Object.keys(env))
      if (/^CUDA_DEVICE_(MEMORY_LIMIT|SM_LIMIT|MEMORY_SHARED_CACHE)/.test(key)) evidence.push(envLine(where, env, key));
    if (limitVars(env).length > 0) carriers.push(where);
  }
  const limits = sources.flatMap(([, env]) => limitVars(env));
  if (limits.length > 0)
    return pass(
      { ...common, evidence },
      `HAMi injected a memory limit: ${nameList(
        limits.map(([key, value]) => `${key}=${value}`),
        4,
      )}`,
      `found in ${nameList(carriers)}`,
    );
  if (!seen)
    return unknown(
      { ...common, evidence },
      'the container environment was not captured',
      'the limit variables live in the container env and the pod spec; neither is in this capture',
      'Run the container probe in the workload container.',
    );
  return fail(
    { ...common, evidence },
    'no CUDA_DEVICE_MEMORY_LIMIT* in the environment: HAMi injected no limit',
    'not a HAMi-scheduled container, MIG mode, or the device plugin did not Allocate it',
    "Request nvidia.com/gpumem (or gpumem-percentage) with nvidia.com/gpu, schedule with hami-scheduler, and check the pod's hami.io/vgpu-devices-allocated annotation; in MIG mode HAMi-core is not used at all.",
  );
}

export function checkPreload(facts: Facts, node: Capture | undefined): Check {
  const common = {
    id: 'hami.preload',
    subject: '/etc/ld.so.preload',
    group: 'seed' as const,
    step: 3,
    command: STEP_COMMANDS.preload,
    impact: 'bypass' as const,
  };
  const preload = facts.container?.preload;
  const evidence = preloadEvidence(facts);
  const hostPreload = node?.sections.get('hami.host')?.records.find((record) => record.path?.endsWith('/ld.so.preload'));
  if (hostPreload)
    pushAll(
      evidence,
      bodyLines(hostPreload.body).map((line) => `${hostPreload.path}: ${line}`),
    );
  if (!preload)
    return unknown(
      { ...common, evidence },
      '/etc/ld.so.preload was not captured',
      'the capture has no preload section, so what the loader preloads is not known',
      'Run the container probe in the workload container.',
    );
  const remedy =
    'The device plugin mounts host /usr/local/vgpu/ld.so.preload (one line: /usr/local/vgpu/libvgpu.so) at /etc/ld.so.preload unless CUDA_DISABLE_CONTROL is true. Check that the file exists on the node (it is regenerated by vgpu-init.sh when the device plugin starts), that it is a file and not a directory, and recreate the pod.';
  const missing = (what: string, summary: string) => failNoPreload(facts, { ...common, evidence }, what, summary, remedy);
  switch (preload.state) {
    case 'missing':
      return missing('/etc/ld.so.preload does not exist', 'the device plugin mounts it unless CUDA_DISABLE_CONTROL is true');
    case 'directory':
      return missing(
        '/etc/ld.so.preload is a directory',
        'the hostPath file was missing on the node, so the kubelet created a directory in its place',
      );
    case 'unreadable':
      return unknown(
        { ...common, evidence },
        '/etc/ld.so.preload could not be read',
        'it exists, but not for the user the probe ran as',
        "Run the probe as the container's user or root.",
      );
    default:
      break;
  }
  if (preload.entries.length === 0) return missing('/etc/ld.so.preload is empty', 'the file exists and names no library');
  if (preload.entries.some((entry) => entry.endsWith('/libvgpu.so') || entry === 'libvgpu.so'))
    return pass(
      { ...common, evidence },
      `/etc/ld.so.preload preloads ${preload.entries.join(' ')}`,
      'the dynamic loader reads it at every program start (ld.so(8))',
    );
  return fail(
    { ...common, evidence },
    "/etc/ld.so.preload does not name HAMi's libvgpu.so",
    `it lists ${preload.entries.join(' ')}`,
    remedy,
  );
}

export function checkLibvgpu(facts: Facts, node: Capture | undefined): Check {
  const common = {
    id: 'hami.libvgpu',
    subject: 'libvgpu.so in /usr/local/vgpu',
    group: 'seed' as const,
    step: 4,
    command: STEP_COMMANDS.libvgpu,
    impact: 'bypass' as const,
  };
  const container = facts.container;
  const evidence: string[] = [];
  if (container?.libvgpu) evidence.push(`/usr/local/vgpu: ${container.libvgpu.line}`);
  for (const mount of container?.mounts ?? [])
    if (mount.mountPoint.startsWith('/usr/local/vgpu')) evidence.push(`mountinfo: ${mount.line}`);
  const hostLs = node?.sections
    .get('hami.host')
    ?.records.find((record) => record.path !== undefined && record.path.endsWith('/ls') && !record.path.endsWith('/containers/ls'));
  if (hostLs)
    pushAll(
      evidence,
      bodyLines(hostLs.body)
        .filter((line) => /libvgpu/.test(line))
        .map((line) => `${hostLs.path}: ${line}`),
    );
  const remedy =
    'The device plugin mounts host /usr/local/vgpu/libvgpu.so[.<version>] into the container. Check the file on the node (ls -la /usr/local/vgpu/) and that hami-device-plugin is running there; recreate the pod once it is.';
  if (!container || container.vgpuDir === undefined)
    return unknown(
      { ...common, evidence },
      '/usr/local/vgpu was not captured',
      'the capture has no vgpu section, so whether libvgpu.so is there is not known',
      'Run the container probe in the workload container.',
    );
  if (container.vgpuDirMissing)
    return fail(
      { ...common, evidence: [...evidence, 'vgpu: missing /usr/local/vgpu'] },
      '/usr/local/vgpu does not exist in the container: libvgpu.so was never mounted',
      'the device plugin mounts the library there when it allocates the GPU',
      remedy,
    );
  const lib = container.libvgpu;
  if (!lib)
    return fail({ ...common, evidence }, '/usr/local/vgpu/libvgpu.so is missing', '/usr/local/vgpu exists but holds no libvgpu.so', remedy);
  if (lib.type === 'directory')
    return fail(
      { ...common, evidence },
      '/usr/local/vgpu/libvgpu.so is a directory, not the library',
      'the hostPath was missing on the node, so the kubelet created a directory in its place',
      remedy,
    );
  if (lib.size === 0)
    return fail(
      { ...common, evidence },
      '/usr/local/vgpu/libvgpu.so is empty: the loader cannot preload it',
      'the loader prints "cannot be preloaded (cannot read file data): ignored" (HAMi#1346)',
      remedy,
    );
  return pass(
    { ...common, evidence },
    `/usr/local/vgpu/libvgpu.so is present (${lib.size === undefined ? 'size unknown' : `${lib.size} bytes`})`,
    'a non-empty file where the device plugin mounts it',
  );
}

export function checkLoaded(facts: Facts): Check {
  const common = {
    id: 'hami.loaded',
    subject: "libvgpu.so in the processes' maps",
    group: 'seed' as const,
    step: 5,
    command: STEP_COMMANDS.loaded,
    impact: 'bypass' as const,
  };
  if (!facts.processes)
    return unknown(
      { ...common, evidence: [] },
      'the processes were not captured',
      'without /proc/<pid>/maps nothing shows whether libvgpu.so is loaded',
      'Run the container probe in the workload container.',
    );
  const mapsLine = (line: string) => line.startsWith('maps=') || line.startsWith('comm=');
  const remedy =
    'A process without libvgpu.so mapped is not limited. Check /etc/ld.so.preload (step 3); static executables and musl processes never read it; processes started before the preload existed must be restarted.';
  const gpuReadable = facts.gpuProcs.filter((process) => process.maps.readable);
  if (facts.gpuProcs.length > 0) {
    const evidence = facts.gpuProcs.flatMap((process) => processLines(process, mapsLine));
    const missing = gpuReadable.filter((process) => !process.maps.libvgpu);
    if (missing.length > 0) {
      const names = nameList(missing.map((process) => process.comm));
      return fail(
        { ...common, evidence },
        `libvgpu.so is not mapped in ${missing.length} of ${counted(gpuReadable.length, 'CUDA process', 'CUDA processes')} (${names})`,
        `${pidList(missing.map((process) => process.pid))} ${missing.length === 1 ? 'is' : 'are'} not limited`,
        remedy,
      );
    }
    if (gpuReadable.length < facts.gpuProcs.length)
      return unknown(
        { ...common, evidence },
        `the maps of ${facts.gpuProcs.length - gpuReadable.length} of ${counted(facts.gpuProcs.length, 'CUDA process', 'CUDA processes')} could not be read`,
        `the ${counted(gpuReadable.length, 'readable one maps', 'readable ones map')} libvgpu.so`,
        'Run the probe as root in the container.',
      );
    return pass(
      { ...common, evidence },
      gpuReadable.length === 1
        ? 'libvgpu.so is mapped in the CUDA process'
        : `libvgpu.so is mapped in all ${gpuReadable.length} CUDA processes`,
      'HAMi-core sees every allocation they make',
    );
  }
  const dynamic = facts.processes.filter((process) => process.maps.readable && process.maps.glibcLoader);
  const withLib = dynamic.filter((process) => process.maps.libvgpu);
  const evidence = dynamic.slice(0, 8).flatMap((process) => processLines(process, mapsLine));
  if (withLib.length > 0)
    return pass(
      { ...common, evidence },
      `the preload takes effect: libvgpu.so is mapped in ${withLib.length} of ${counted(dynamic.length, 'glibc process', 'glibc processes')}`,
      'no CUDA process is running to examine',
    );
  if (dynamic.length > 0)
    return fail(
      { ...common, evidence },
      `libvgpu.so is mapped in none of the ${counted(dynamic.length, 'glibc process', 'glibc processes')}: the preload does not take effect`,
      'no CUDA process is running, but one started here would not be limited either',
      remedy,
    );
  return unknown(
    { ...common, evidence },
    'no process to examine: none with readable maps uses CUDA or the glibc loader',
    'whether the preload takes effect shows only in such a process',
    'Run the probe while the workload is using the GPU, as root in the container.',
  );
}
