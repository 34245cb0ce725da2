// Steps 1–7 of HAMi's troubleshooting page ("GPU Memory Enforcement: How It Works and How to Debug It",
// Quick Diagnostic Checklist), each named by the command the page gives for it.
import { pushAll } from '../arrays.ts';
import type { Capture } from '../probe/capture.ts';
import { describeNvidiaEvidence, nvidiaRuntimeEvidence, parseContainerdRuntimes } from '../probe/parsers/containerdConfig.ts';
import type { Check, HamiClusterFacts } from './hamiCheck.ts';
import { bodyLines, envLine, fail, failNoPreload, isTrue, limitVars, pass, preloadEvidence, processLines, unknown } from './hamiFacts.ts';
import type { Facts } from './hamiFacts.ts';

const STEP_COMMANDS = {
  disableControl: 'kubectl exec <pod> -- env | grep CUDA_DISABLE',
  envVars: 'kubectl exec <pod> -- env | grep CUDA_DEVICE_MEMORY',
  preload: 'kubectl exec <pod> -- cat /etc/ld.so.preload',
  libvgpu: 'kubectl exec <pod> -- ls -la /usr/local/vgpu/libvgpu.so',
  loaded: 'Find the workload PID (kubectl exec <pod> -- ps aux), then kubectl exec <pod> -- cat /proc/<workload-pid>/maps | grep libvgpu',
  runtime: 'containerd config dump | grep default_runtime_name (on node)',
  devicePlugin: 'kubectl get pods -n kube-system -l app.kubernetes.io/component=device-plugin',
} as const;

export function checkDisableControl(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'hami.disable-control',
    title: 'CUDA_DISABLE_CONTROL',
    group: 'seed' as const,
    step: 1,
    command: STEP_COMMANDS.disableControl,
    impact: 'bypass' as const,
  };
  const evidence: string[] = [];
  let seen = false;
  let truthy = false;
  const consider = (where: string, env: Readonly<Record<string, string>> | undefined) => {
    if (env === undefined) return;
    seen = true;
    const value = env['CUDA_DISABLE_CONTROL'];
    if (value !== undefined) {
      evidence.push(envLine(where, env, 'CUDA_DISABLE_CONTROL'));
      if (isTrue(value)) truthy = true;
    }
  };
  consider('env', facts.container?.env);
  consider('/proc/1 environ', facts.pid1Env);
  consider('pod spec env', cluster?.podEnv);
  if (truthy) {
    return {
      ...fail(
        { ...common, evidence },
        'CUDA_DISABLE_CONTROL is true: the device plugin did not mount /etc/ld.so.preload, so libvgpu.so is never loaded',
        "Remove CUDA_DISABLE_CONTROL from the pod spec (or set it to false) and recreate the pod; find who injects it with kubectl get pod <pod> -o jsonpath='{.spec.containers[*].env[*]}'. The pod still counts against nvidia.com/gpumem while unenforced (HAMi#1678).",
      ),
    };
  }
  if (!seen)
    return unknown(
      { ...common, evidence },
      'the container environment was not captured',
      'Run the container probe (gpumem probe-script --scope container) in the workload container.',
    );
  return pass({ ...common, evidence }, evidence.length > 0 ? 'CUDA_DISABLE_CONTROL is set but false' : 'CUDA_DISABLE_CONTROL is not set');
}

export function checkEnvVars(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'hami.env',
    title: 'HAMi env vars',
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
  for (const [where, env] of sources) {
    if (env === undefined) continue;
    seen = true;
    for (const key of Object.keys(env))
      if (/^CUDA_DEVICE_(MEMORY_LIMIT|SM_LIMIT|MEMORY_SHARED_CACHE)/.test(key)) evidence.push(envLine(where, env, key));
  }
  const limits = sources.flatMap(([, env]) => limitVars(env));
  if (limits.length > 0)
    return pass({ ...common, evidence }, `HAMi injected ${[...new Set(limits.map(([key, value]) => `${key}=${value}`))].join(', ')}`);
  if (!seen)
    return unknown(
      { ...common, evidence },
      'the container environment was not captured',
      'Run the container probe in the workload container.',
    );
  return fail(
    { ...common, evidence },
    'no CUDA_DEVICE_MEMORY_LIMIT* in the environment: HAMi injected no limit (not a HAMi-scheduled container, MIG mode, or the device plugin did not Allocate it)',
    "Request nvidia.com/gpumem (or gpumem-percentage) with nvidia.com/gpu, schedule with hami-scheduler, and check the pod's hami.io/vgpu-devices-allocated annotation; in MIG mode HAMi-core is not used at all.",
  );
}

export function checkPreload(facts: Facts, node: Capture | undefined): Check {
  const common = {
    id: 'hami.preload',
    title: '/etc/ld.so.preload',
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
    return unknown({ ...common, evidence }, 'the preload file was not captured', 'Run the container probe in the workload container.');
  const remedy =
    'The device plugin mounts host /usr/local/vgpu/ld.so.preload (one line: /usr/local/vgpu/libvgpu.so) at /etc/ld.so.preload unless CUDA_DISABLE_CONTROL is true. Check that the file exists on the node (it is regenerated by vgpu-init.sh when the device plugin starts), that it is a file and not a directory, and recreate the pod.';
  const missing = (summary: string) => failNoPreload(facts, { ...common, evidence }, summary, remedy);
  switch (preload.state) {
    case 'missing':
      return missing('/etc/ld.so.preload does not exist: nothing preloads libvgpu.so');
    case 'directory':
      return missing(
        '/etc/ld.so.preload is a directory (the hostPath file was missing on the node, so the kubelet created a directory): nothing is preloaded',
      );
    case 'unreadable':
      return unknown(
        { ...common, evidence },
        '/etc/ld.so.preload exists but the probe could not read it',
        "Run the probe as the container's user or root.",
      );
    default:
      break;
  }
  if (preload.entries.length === 0) return missing('/etc/ld.so.preload is empty: nothing is preloaded');
  if (preload.entries.some((entry) => entry.endsWith('/libvgpu.so') || entry === 'libvgpu.so'))
    return pass({ ...common, evidence }, `/etc/ld.so.preload preloads ${preload.entries.join(' ')}`);
  return fail({ ...common, evidence }, `/etc/ld.so.preload lists ${preload.entries.join(' ')}, not HAMi's libvgpu.so`, remedy);
}

export function checkLibvgpu(facts: Facts, node: Capture | undefined): Check {
  const common = {
    id: 'hami.libvgpu',
    title: 'libvgpu.so exists, non-zero',
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
    return unknown({ ...common, evidence }, '/usr/local/vgpu was not captured', 'Run the container probe in the workload container.');
  if (container.vgpuDirMissing)
    return fail(
      { ...common, evidence: [...evidence, 'vgpu: missing /usr/local/vgpu'] },
      '/usr/local/vgpu does not exist in the container',
      remedy,
    );
  const lib = container.libvgpu;
  if (!lib) return fail({ ...common, evidence }, '/usr/local/vgpu/libvgpu.so is not there', remedy);
  if (lib.type === 'directory')
    return fail({ ...common, evidence }, '/usr/local/vgpu/libvgpu.so is a directory (the hostPath was missing on the node)', remedy);
  if (lib.size === 0)
    return fail(
      { ...common, evidence },
      '/usr/local/vgpu/libvgpu.so is empty: the loader prints "cannot be preloaded (cannot read file data): ignored" (HAMi#1346)',
      remedy,
    );
  return pass({ ...common, evidence }, `/usr/local/vgpu/libvgpu.so is ${lib.size ?? '?'} bytes`);
}

export function checkLoaded(facts: Facts): Check {
  const common = {
    id: 'hami.loaded',
    title: 'library loaded in the workload processes',
    group: 'seed' as const,
    step: 5,
    command: STEP_COMMANDS.loaded,
    impact: 'bypass' as const,
  };
  if (!facts.processes)
    return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const mapsLine = (line: string) => line.startsWith('maps=') || line.startsWith('comm=');
  const remedy =
    'A process without libvgpu.so mapped is not limited. Check /etc/ld.so.preload (step 3); static executables and musl processes never read it; processes started before the preload existed must be restarted.';
  const gpuReadable = facts.gpuProcs.filter((process) => process.maps.readable);
  if (facts.gpuProcs.length > 0) {
    const evidence = facts.gpuProcs.flatMap((process) => processLines(process, mapsLine));
    const missing = gpuReadable.filter((process) => !process.maps.libvgpu);
    if (missing.length > 0) {
      const names = [...new Set(missing.map((process) => process.comm))].join(', ');
      const what = `libvgpu.so is not mapped in ${missing.length} of ${gpuReadable.length} CUDA ${gpuReadable.length === 1 ? 'process' : 'processes'} (${names})`;
      return fail({ ...common, evidence }, `${what}: ${missing.map((process) => `pid ${process.pid}`).join(', ')}`, remedy);
    }
    if (gpuReadable.length < facts.gpuProcs.length)
      return unknown({ ...common, evidence }, "some CUDA processes' maps could not be read", 'Run the probe as root in the container.');
    return pass({ ...common, evidence }, `all ${gpuReadable.length} CUDA process(es) map libvgpu.so`);
  }
  const dynamic = facts.processes.filter((process) => process.maps.readable && process.maps.glibcLoader);
  const withLib = dynamic.filter((process) => process.maps.libvgpu);
  const evidence = dynamic.slice(0, 8).flatMap((process) => processLines(process, mapsLine));
  if (withLib.length > 0)
    return pass(
      { ...common, evidence },
      `no CUDA process is running; the preload works: ${withLib.length} of ${dynamic.length} glibc process(es) map libvgpu.so`,
    );
  if (dynamic.length > 0)
    return fail(
      { ...common, evidence },
      `none of the ${dynamic.length} glibc process(es) maps libvgpu.so: the preload is not taking effect`,
      remedy,
    );
  return unknown(
    { ...common, evidence },
    'no process with readable maps uses CUDA or the glibc loader',
    'Run the probe while the workload is using the GPU, as root in the container.',
  );
}

export function checkRuntime(node: Capture | undefined, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'hami.runtime',
    title: 'containerd default runtime',
    group: 'seed' as const,
    step: 6,
    command: STEP_COMMANDS.runtime,
    impact: 'risk' as const,
  };
  const remedy =
    'Set default_runtime_name = "nvidia" in containerd\'s CRI config (nvidia-ctk runtime configure --runtime=containerd --set-as-default) and restart containerd, or give GPU pods runtimeClassName: nvidia.';
  const runtimeClass = cluster?.runtimeClassName;
  const section = node?.sections.get('containerd');
  const files = new Map<string, string>();
  for (const record of section?.records ?? []) if (record.path !== undefined) files.set(record.path, record.body);
  const { defaultRuntime, runtimes } = parseContainerdRuntimes(files);
  const evidence: string[] = defaultRuntime ? [`${defaultRuntime.file}: ${defaultRuntime.line}`] : [];
  if (runtimeClass !== undefined && runtimeClass !== null && /nvidia/i.test(runtimeClass)) {
    return pass(
      { ...common, evidence: [...evidence, `pod spec: runtimeClassName: ${runtimeClass}`] },
      `the pod selects runtimeClassName ${runtimeClass}`,
    );
  }
  if (defaultRuntime !== undefined) {
    const name = defaultRuntime.runtime;
    const definition = runtimes.get(name);
    const what = definition ? nvidiaRuntimeEvidence(definition) : undefined;
    if (definition)
      pushAll(
        evidence,
        definition.lines.map((line) => `${definition.file}: ${line}`),
      );
    if (what) return pass({ ...common, evidence }, `containerd's default runtime ${name} runs ${describeNvidiaEvidence(what)}`);
    if (definition)
      return fail(
        { ...common, evidence },
        `containerd's default runtime ${name} is not NVIDIA's: ${definition.binary !== undefined ? `it runs ${definition.binary}` : `runtime_type ${definition.runtimeType ?? 'unset'}, no BinaryName`}`,
        remedy,
      );
    // A default that the captured files do not define: only its name tells (nvidia-ctk's drop-in may not be captured).
    if (name === 'nvidia')
      return pass(
        { ...common, evidence },
        "containerd's default runtime is nvidia (by name only: the captured files do not define runtimes.nvidia)",
      );
    const nvidiaRuntimes = [...runtimes.values()]
      .filter((candidate) => nvidiaRuntimeEvidence(candidate) !== undefined)
      .map((candidate) => candidate.name);
    return fail(
      { ...common, evidence },
      `containerd's default runtime is ${name}, not NVIDIA's${nvidiaRuntimes.length > 0 ? ` (NVIDIA runtimes defined: ${nvidiaRuntimes.join(', ')})` : ''}`,
      remedy,
    );
  }
  if (section && section.records.some((record) => record.path !== undefined)) {
    return fail(
      { ...common, evidence: section.records.map((record) => `${record.path}: (no default_runtime_name)`) },
      "containerd's config sets no default_runtime_name, so the default runtime is runc",
      remedy,
    );
  }
  if (!node)
    return unknown(
      { ...common, evidence },
      'only the container capture is available; the runtime is a node setting',
      'Run the node probe (gpumem inspect --scope node) on the GPU node, or containerd config dump | grep default_runtime_name there.',
    );
  return unknown(
    { ...common, evidence },
    "the node capture has no containerd config (looked in /etc/containerd, k3s' and RKE2's /var/lib/rancher/*/agent/etc/containerd and MicroK8s' /var/snap/microk8s/current/args)",
    'Run containerd config dump | grep default_runtime_name on the node.',
  );
}

export function checkDevicePlugin(cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'hami.device-plugin',
    title: 'device-plugin health',
    group: 'seed' as const,
    step: 7,
    command: STEP_COMMANDS.devicePlugin,
    impact: 'risk' as const,
  };
  const pods = cluster?.devicePluginPods;
  if (pods === undefined)
    return unknown(
      { ...common, evidence: [] },
      'the device-plugin pods are a cluster fact this capture does not have',
      "kubectl get pods -A -l app.kubernetes.io/component=hami-device-plugin -o wide (the chart's label); gpumem fills this in when it inspects through Kubernetes.",
    );
  const evidence = pods.map(
    (pod) => `kubectl: ${pod.name} ${pod.phase}${pod.ready === undefined ? '' : pod.ready ? ' ready' : ' not-ready'}`,
  );
  const remedy =
    'Fix the hami-device-plugin DaemonSet on this node (kubectl describe pod / logs -c device-plugin); without it no new container gets the limit env, libvgpu.so or the preload mount.';
  if (pods.length === 0) return fail({ ...common, evidence }, 'no HAMi device-plugin pod found', remedy);
  const bad = pods.filter((pod) => pod.phase !== 'Running' || pod.ready === false);
  if (bad.length > 0)
    return fail({ ...common, evidence }, `${bad.length} of ${pods.length} device-plugin pod(s) not running/ready`, remedy);
  return pass({ ...common, evidence }, `all ${pods.length} device-plugin pod(s) running`);
}
