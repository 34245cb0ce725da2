// Verdict 3: is HAMi actually enforcing this container's GPU memory quota?
//
// The seven checks of the HAMi troubleshooting page ("GPU Memory Enforcement: How It Works and How to
// Debug It", Quick Diagnostic Checklist) plus the bypass matrix of facts §1.7. Each check is pass,
// fail or unknown, names the command it corresponds to, quotes its evidence verbatim from the capture
// (as `<where>: <line>`), and says what to do. Silence in HAMi-core's logs is never evidence: at the
// chart's default LIBCUDA_LOG_LEVEL=1 a healthy process prints nothing, so no log lines is `unknown`.
//
// Inputs: the parsed container capture (what the workload sees), optionally the node capture (for
// containerd's default runtime and the host's HAMi files) and optionally cluster-side facts the
// Kubernetes layer collects (device-plugin pods, runtimeClassName, privileged, the container log).
import type { Capture } from '../probe/capture.ts';
import type { ContainerProbe, ContainerProcess } from '../probe/parsers/containerProbe.ts';
import { parseHamiLog } from '../probe/parsers/hamiLog.ts';
import type { HamiLogLine } from '../probe/parsers/hamiLog.ts';

export type CheckStatus = 'pass' | 'fail' | 'unknown';
/** What a failure means: enforcement is bypassed, or only at risk (a precondition or side issue). */
export type CheckImpact = 'bypass' | 'risk';

interface CheckCommon {
  readonly id: string;
  readonly title: string;
  /** `seed` = the seven-step checklist; `bypass` = the §1.7 bypass matrix. */
  readonly group: 'seed' | 'bypass';
  /** 1..7 for the seed checklist. */
  readonly step?: number;
  /** The command this check corresponds to (the seed's command column for steps 1–7). */
  readonly command: string;
  /** Verbatim capture lines, as `<where>: <line>`. */
  readonly evidence: readonly string[];
  readonly impact: CheckImpact;
  /** One sentence: what was found. */
  readonly summary: string;
}

export type Check =
  | (CheckCommon & { readonly status: 'pass' })
  | (CheckCommon & { readonly status: 'fail'; readonly remedy: string })
  | (CheckCommon & { readonly status: 'unknown'; readonly remedy: string });

/** `not-hami`: no GPU process and no trace of HAMi (preload, library, limit variables, caches) in the container. */
export type HamiVerdict = 'enforced' | 'bypassed' | 'unknown' | 'not-hami';

export interface ProcessVerdict {
  readonly pid: number;
  readonly comm: string;
  readonly verdict: HamiVerdict;
  readonly reasons: readonly string[];
  readonly evidence: readonly string[];
}

export interface HamiChecklistResult {
  readonly checks: readonly Check[];
  readonly verdict: HamiVerdict;
  readonly summary: string;
  /** One verdict per process that uses the GPU (libcuda mapped or a /dev/nvidia* fd). */
  readonly processes: readonly ProcessVerdict[];
}

/** Facts only the Kubernetes layer has; every field is optional. */
export interface HamiClusterFacts {
  /** The HAMi device-plugin pods on the workload's node (`kubectl get pods -l app.kubernetes.io/component=hami-device-plugin`). */
  readonly devicePluginPods?: readonly { readonly name: string; readonly phase: string; readonly ready?: boolean }[];
  /** The pod's spec.runtimeClassName; null when the pod sets none. */
  readonly runtimeClassName?: string | null;
  /** Any container of the pod is privileged. */
  readonly privileged?: boolean;
  /** The HAMi version (chart or image tag), e.g. "v2.9.0". */
  readonly hamiVersion?: string;
  /** The container's env from the pod spec. */
  readonly podEnv?: Readonly<Record<string, string>>;
  /** The container's log (kubectl logs), scanned for HAMi-core and loader lines. */
  readonly containerLog?: string;
  /**
   * The pod carries HAMi annotations, HAMi's scheduler or a HAMi-only resource (isHamiManaged). `false`: the
   * cluster says HAMi does not manage this pod; undefined: not known (a capture without the pod spec).
   */
  readonly managedByHami?: boolean;
}

export interface HamiChecklistInput {
  readonly container?: ContainerProbe;
  readonly node?: Capture;
  readonly cluster?: HamiClusterFacts;
}

const SEED_COMMANDS = {
  disableControl: 'kubectl exec <pod> -- env | grep CUDA_DISABLE',
  envVars: 'kubectl exec <pod> -- env | grep CUDA_DEVICE_MEMORY',
  preload: 'kubectl exec <pod> -- cat /etc/ld.so.preload',
  libvgpu: 'kubectl exec <pod> -- ls -la /usr/local/vgpu/libvgpu.so',
  loaded: 'Find the workload PID (kubectl exec <pod> -- ps aux), then kubectl exec <pod> -- cat /proc/<workload-pid>/maps | grep libvgpu',
  runtime: 'containerd config dump | grep default_runtime_name (on node)',
  devicePlugin: 'kubectl get pods -n kube-system -l app.kubernetes.io/component=device-plugin',
} as const;

const NOT_MANAGED = 'HAMi does not manage this pod (no hami.io annotation, HAMi scheduler or HAMi-only resource)';
const LIMIT_VAR = /^CUDA_DEVICE_MEMORY_LIMIT(?:_\d+)?$/;
const TRUE_VALUES = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * A CUDA_DEVICE_MEMORY_LIMIT value in bytes, as HAMi-core's get_limit_from_env reads it: an optional
 * G/g, M/m or K/k suffix (powers of 1024), then strtoul base 0 (0x… hex, leading-0 octal) on the
 * digits. 0 means no limit (HAMi-core logs "invalid device memory limit" and does not enforce).
 */
export function parseHamiLimit(value: string): number {
  let text = value;
  let scale = 1;
  const last = text.slice(-1);
  if (last === 'G' || last === 'g') scale = 1024 ** 3;
  else if (last === 'M' || last === 'm') scale = 1024 ** 2;
  else if (last === 'K' || last === 'k') scale = 1024;
  if (scale !== 1) text = text.slice(0, -1);
  const match = /^\s*[+]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(text);
  if (!match || match[1] === undefined) return 0;
  const digits = match[1];
  const n = /^0[xX]/.test(digits) ? parseInt(digits.slice(2), 16) : digits.startsWith('0') && digits.length > 1 ? parseInt(digits.slice(1), 8) : Number(digits);
  return Number.isFinite(n) ? n * scale : 0;
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && TRUE_VALUES.has(value.trim());
}

function limitVars(env: Readonly<Record<string, string>> | undefined): [string, string][] {
  return Object.entries(env ?? {}).filter(([key]) => LIMIT_VAR.test(key));
}

function envLine(where: string, env: Readonly<Record<string, string>>, key: string): string {
  return `${where}: ${key}=${env[key] ?? ''}`;
}

function processLines(process: ContainerProcess, match: (line: string) => boolean): string[] {
  return process.lines.filter(match).map((line) => `/proc/${process.pid}: ${line}`);
}

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

function pass(common: Omit<CheckCommon, 'summary'>, summary: string): Check {
  return { ...common, summary, status: 'pass' };
}
function fail(common: Omit<CheckCommon, 'summary'>, summary: string, remedy: string): Check {
  return { ...common, summary, status: 'fail', remedy };
}
function unknown(common: Omit<CheckCommon, 'summary'>, summary: string, remedy: string): Check {
  return { ...common, summary, status: 'unknown', remedy };
}

interface Facts {
  readonly container: ContainerProbe | undefined;
  readonly pid1: ContainerProcess | undefined;
  readonly pid1Env: Readonly<Record<string, string>> | undefined;
  readonly gpuProcs: readonly ContainerProcess[];
  readonly processes: readonly ContainerProcess[] | undefined;
  readonly logLines: readonly (HamiLogLine & { readonly where: string })[];
  readonly logLevel: string | undefined;
  /** Every CUDA process maps libvgpu.so and names it in LD_PRELOAD (HAMi-core used standalone). */
  readonly ldPreloadCarries: boolean;
}

export function evaluateHamiChecklist(input: HamiChecklistInput): HamiChecklistResult {
  const container = input.container;
  const processes = container?.processes?.filter((process) => !process.kernelThread);
  const pid1 = processes?.find((process) => process.pid === 1);
  const gpuProcs = (processes ?? []).filter((process) => process.gpu);
  const logLines: (HamiLogLine & { where: string })[] = [...(container?.logs.lines ?? []).map((line) => ({ ...line, where: 'container' }))];
  if (input.cluster?.containerLog !== undefined) logLines.push(...parseHamiLog(input.cluster.containerLog).lines.map((line) => ({ ...line, where: 'kubectl logs' })));
  const facts: Facts = {
    container,
    pid1,
    pid1Env: pid1?.environReadable ? pid1.env : undefined,
    gpuProcs,
    processes,
    logLines,
    logLevel: container?.env?.['LIBCUDA_LOG_LEVEL'] ?? pid1?.env['LIBCUDA_LOG_LEVEL'] ?? input.cluster?.podEnv?.['LIBCUDA_LOG_LEVEL'],
    ldPreloadCarries: gpuProcs.length > 0 && gpuProcs.every((process) => process.maps.libvgpu && /libvgpu\.so/.test(process.env['LD_PRELOAD'] ?? '')),
  };

  const checks: Check[] = [
    checkDisableControl(facts, input.cluster),
    checkEnvVars(facts, input.cluster),
    checkPreload(facts, input.node),
    checkLibvgpu(facts, input.node),
    checkLoaded(facts),
    checkRuntime(input.node, input.cluster),
    checkDevicePlugin(input.cluster),
    checkStatic(facts),
    checkMusl(facts),
    checkDind(facts),
    checkLoginSessions(facts),
    checkGvisor(facts, input.cluster),
    checkDisableControlPerProcess(facts),
    checkPreloadTarget(facts),
    checkLimitZero(facts, input.cluster),
    checkLogs(facts),
    checkUnifiedMemory(facts),
    checkPrivileged(input.cluster),
    checkCache(facts),
  ];

  const processVerdicts = gpuProcs.map((process) => verdictForProcess(process));
  const bypasses = checks.filter((check) => check.status === 'fail' && check.impact === 'bypass');
  const risks = checks.filter((check) => check.status === 'fail' && check.impact === 'risk');
  const seedCore = checks.filter((check) => check.group === 'seed' && check.step !== undefined && check.step <= 5);
  let verdict: HamiVerdict;
  let summary: string;
  const hamiTrace =
    (container?.preload !== undefined && container.preload.state !== 'missing' && container.preload.state !== 'unknown') ||
    (container?.vgpuDir !== undefined && container.vgpuDir.length > 0) ||
    (container?.caches.length ?? 0) > 0 ||
    limitVars(container?.env).length > 0 ||
    limitVars(facts.pid1Env).length > 0 ||
    limitVars(input.cluster?.podEnv).length > 0 ||
    (processes ?? []).some((process) => process.maps.libvgpu || limitVars(process.env).length > 0) ||
    logLines.length > 0;
  // Only a capture that saw everything can say HAMi is absent: a truncated one stays unknown.
  const sawEverything = container !== undefined && container.processes !== undefined && !container.processesTruncated && container.preload !== undefined && container.vgpuDir !== undefined && container.env !== undefined;
  // Node or cluster facts otherwise mean "this should be a HAMi container": then a missing device plugin or
  // limit env is a finding. When the cluster says HAMi does not manage the pod, those checks only show what
  // HAMi would need, and the container's evidence decides. A CUDA process in such a pod is not enough: with
  // nvidia.com/gpu alone it may have escaped HAMi's webhook on a HAMi node, which is a bypass to report.
  const notManaged = input.cluster?.managedByHami === false;
  if (sawEverything && (notManaged || (input.node === undefined && input.cluster === undefined)) && gpuProcs.length === 0 && !hamiTrace) {
    return { checks, verdict: 'not-hami', summary: `not a HAMi container: ${notManaged ? `${NOT_MANAGED}, ` : ''}no process uses CUDA and there is no HAMi preload, library, cache, log line or limit variable`, processes: processVerdicts };
  }
  if (bypasses.length > 0) {
    verdict = 'bypassed';
    summary = `bypassed: ${bypasses.map((check) => check.title).join('; ')}`;
  } else if (seedCore.length === 5 && seedCore.every((check) => check.status === 'pass')) {
    verdict = 'enforced';
    const enforced = processVerdicts.filter((process) => process.verdict === 'enforced').length;
    summary = gpuProcs.length > 0
      ? `enforced: libvgpu.so is preloaded and ${enforced} of ${gpuProcs.length} CUDA process(es) carry a limit`
      : 'enforced: the preload, library and limit env are in place (no CUDA process was running to examine)';
  } else if (container === undefined && input.node !== undefined) {
    // A node inspection: the host's side only. Steps 1–5 live in each container, so say where to check them
    // rather than list them as unproven.
    verdict = 'unknown';
    const nodeSide = checks.filter((check) => check.step === 6 || check.step === 7).map((check) => `${check.title} ${check.status}`);
    summary = `unknown: node side only (${nodeSide.join(', ')}); the container side (steps 1–5) is checked per pod: "Run HAMi Checklist on Pod", or gpumem inspect --pod`;
  } else {
    verdict = 'unknown';
    const open = seedCore.filter((check) => check.status !== 'pass').map((check) => check.title);
    summary = `unknown: no bypass found, but not proven: ${open.join('; ') || 'missing evidence'}`;
  }
  if (risks.length > 0) summary += ` (risks: ${risks.map((check) => check.title).join('; ')})`;
  // The pod spec says "not HAMi" but the container carries HAMi's preload, library, limits or a CUDA process:
  // the evidence decides the verdict, and the summary says the mismatch, since that is what the platform
  // engineer acts on (a hand-made libvgpu.so mount or limit variables, annotations lost, a pod that escaped
  // HAMi's webhook). Without any trace the capture was incomplete, so HAMi's absence is not proven either.
  if (notManaged) {
    summary += gpuProcs.length > 0 || hamiTrace
      ? `; ${NOT_MANAGED}, yet the container has a CUDA process or HAMi traces`
      : '; HAMi does not manage this pod, but the capture is incomplete, so HAMi\'s absence in the container is not proven';
  }
  return { checks, verdict, summary, processes: processVerdicts };
}

// ---------------------------------------------------------------------------------------------------
// The seven seed checks

function checkDisableControl(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = { id: 'hami.disable-control', title: 'CUDA_DISABLE_CONTROL', group: 'seed' as const, step: 1, command: SEED_COMMANDS.disableControl, impact: 'bypass' as const };
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
      ...fail({ ...common, evidence }, 'CUDA_DISABLE_CONTROL is true: the device plugin did not mount /etc/ld.so.preload, so libvgpu.so is never loaded',
        'Remove CUDA_DISABLE_CONTROL from the pod spec (or set it to false) and recreate the pod; find who injects it with kubectl get pod <pod> -o jsonpath=\'{.spec.containers[*].env[*]}\'. The pod still counts against nvidia.com/gpumem while unenforced (HAMi#1678).'),
    };
  }
  if (!seen) return unknown({ ...common, evidence }, 'the container environment was not captured', 'Run the container probe (gpumem probe-script --scope container) in the workload container.');
  return pass({ ...common, evidence }, evidence.length > 0 ? 'CUDA_DISABLE_CONTROL is set but false' : 'CUDA_DISABLE_CONTROL is not set');
}

function checkEnvVars(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = { id: 'hami.env', title: 'HAMi env vars', group: 'seed' as const, step: 2, command: SEED_COMMANDS.envVars, impact: 'bypass' as const };
  const evidence: string[] = [];
  const sources: [string, Readonly<Record<string, string>> | undefined][] = [['env', facts.container?.env], ['/proc/1 environ', facts.pid1Env], ['pod spec env', cluster?.podEnv]];
  let seen = false;
  for (const [where, env] of sources) {
    if (env === undefined) continue;
    seen = true;
    for (const key of Object.keys(env)) if (/^CUDA_DEVICE_(MEMORY_LIMIT|SM_LIMIT|MEMORY_SHARED_CACHE)/.test(key)) evidence.push(envLine(where, env, key));
  }
  const limits = sources.flatMap(([, env]) => limitVars(env));
  if (limits.length > 0) return pass({ ...common, evidence }, `HAMi injected ${[...new Set(limits.map(([key, value]) => `${key}=${value}`))].join(', ')}`);
  if (!seen) return unknown({ ...common, evidence }, 'the container environment was not captured', 'Run the container probe in the workload container.');
  return fail({ ...common, evidence }, 'no CUDA_DEVICE_MEMORY_LIMIT* in the environment: HAMi injected no limit (not a HAMi-scheduled container, MIG mode, or the device plugin did not Allocate it)',
    'Request nvidia.com/gpumem (or gpumem-percentage) with nvidia.com/gpu, schedule with hami-scheduler, and check the pod\'s hami.io/vgpu-devices-allocated annotation; in MIG mode HAMi-core is not used at all.');
}

function checkPreload(facts: Facts, node: Capture | undefined): Check {
  const common = { id: 'hami.preload', title: '/etc/ld.so.preload', group: 'seed' as const, step: 3, command: SEED_COMMANDS.preload, impact: 'bypass' as const };
  const preload = facts.container?.preload;
  const evidence = preloadEvidence(facts);
  const hostPreload = node?.sections.get('hami.host')?.records.find((record) => record.path?.endsWith('/usr/local/vgpu/ld.so.preload'));
  if (hostPreload) evidence.push(...bodyLines(hostPreload.body).map((line) => `${hostPreload.path}: ${line}`));
  if (!preload) return unknown({ ...common, evidence }, 'the preload file was not captured', 'Run the container probe in the workload container.');
  const remedy = 'The device plugin mounts host /usr/local/vgpu/ld.so.preload (one line: /usr/local/vgpu/libvgpu.so) at /etc/ld.so.preload unless CUDA_DISABLE_CONTROL is true. Check that the file exists on the node (it is regenerated by vgpu-init.sh when the device plugin starts), that it is a file and not a directory, and recreate the pod.';
  const missing = (summary: string) => failNoPreload(facts, { ...common, evidence }, summary, remedy);
  switch (preload.state) {
    case 'missing':
      return missing('/etc/ld.so.preload does not exist: nothing preloads libvgpu.so');
    case 'directory':
      return missing('/etc/ld.so.preload is a directory (the hostPath file was missing on the node, so the kubelet created a directory): nothing is preloaded');
    case 'unreadable':
      return unknown({ ...common, evidence }, '/etc/ld.so.preload exists but the probe could not read it', 'Run the probe as the container\'s user or root.');
    default:
      break;
  }
  if (preload.entries.length === 0) return missing('/etc/ld.so.preload is empty: nothing is preloaded');
  if (preload.entries.some((entry) => entry.endsWith('/libvgpu.so') || entry === 'libvgpu.so')) return pass({ ...common, evidence }, `/etc/ld.so.preload preloads ${preload.entries.join(' ')}`);
  return fail({ ...common, evidence }, `/etc/ld.so.preload lists ${preload.entries.join(' ')}, not HAMi's libvgpu.so`, remedy);
}

function checkLibvgpu(facts: Facts, node: Capture | undefined): Check {
  const common = { id: 'hami.libvgpu', title: 'libvgpu.so exists, non-zero', group: 'seed' as const, step: 4, command: SEED_COMMANDS.libvgpu, impact: 'bypass' as const };
  const container = facts.container;
  const evidence: string[] = [];
  if (container?.libvgpu) evidence.push(`/usr/local/vgpu: ${container.libvgpu.line}`);
  for (const mount of container?.mounts ?? []) if (mount.mountPoint.startsWith('/usr/local/vgpu')) evidence.push(`mountinfo: ${mount.line}`);
  const hostLs = node?.sections.get('hami.host')?.records.find((record) => record.path?.endsWith('/usr/local/vgpu/ls'));
  if (hostLs) evidence.push(...bodyLines(hostLs.body).filter((line) => /libvgpu/.test(line)).map((line) => `${hostLs.path}: ${line}`));
  const remedy = 'The device plugin mounts host /usr/local/vgpu/libvgpu.so[.<version>] into the container. Check the file on the node (ls -la /usr/local/vgpu/) and that hami-device-plugin is running there; recreate the pod once it is.';
  if (!container || container.vgpuDir === undefined) return unknown({ ...common, evidence }, '/usr/local/vgpu was not captured', 'Run the container probe in the workload container.');
  if (container.vgpuDirMissing) return fail({ ...common, evidence: [...evidence, 'vgpu: missing /usr/local/vgpu'] }, '/usr/local/vgpu does not exist in the container', remedy);
  const lib = container.libvgpu;
  if (!lib) return fail({ ...common, evidence }, '/usr/local/vgpu/libvgpu.so is not there', remedy);
  if (lib.type === 'directory') return fail({ ...common, evidence }, '/usr/local/vgpu/libvgpu.so is a directory (the hostPath was missing on the node)', remedy);
  if (lib.size === 0) return fail({ ...common, evidence }, '/usr/local/vgpu/libvgpu.so is empty: the loader prints "cannot be preloaded (cannot read file data): ignored" (HAMi#1346)', remedy);
  return pass({ ...common, evidence }, `/usr/local/vgpu/libvgpu.so is ${lib.size ?? '?'} bytes`);
}

function checkLoaded(facts: Facts): Check {
  const common = { id: 'hami.loaded', title: 'library loaded in the workload processes', group: 'seed' as const, step: 5, command: SEED_COMMANDS.loaded, impact: 'bypass' as const };
  if (!facts.processes) return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const mapsLine = (line: string) => line.startsWith('maps=') || line.startsWith('comm=');
  const remedy = 'A process without libvgpu.so mapped is not limited. Check /etc/ld.so.preload (step 3); static executables and musl processes never read it; processes started before the preload existed must be restarted.';
  const gpuReadable = facts.gpuProcs.filter((process) => process.maps.readable);
  if (facts.gpuProcs.length > 0) {
    const evidence = facts.gpuProcs.flatMap((process) => processLines(process, mapsLine));
    const missing = gpuReadable.filter((process) => !process.maps.libvgpu);
    if (missing.length > 0) return fail({ ...common, evidence }, `${missing.length} CUDA process(es) do not map libvgpu.so: ${missing.map((process) => `${process.pid} (${process.comm})`).join(', ')}`, remedy);
    if (gpuReadable.length < facts.gpuProcs.length) return unknown({ ...common, evidence }, 'some CUDA processes\' maps could not be read', 'Run the probe as root in the container.');
    return pass({ ...common, evidence }, `all ${gpuReadable.length} CUDA process(es) map libvgpu.so`);
  }
  const dynamic = facts.processes.filter((process) => process.maps.readable && process.maps.glibcLoader);
  const withLib = dynamic.filter((process) => process.maps.libvgpu);
  const evidence = dynamic.slice(0, 8).flatMap((process) => processLines(process, mapsLine));
  if (withLib.length > 0) return pass({ ...common, evidence }, `no CUDA process is running; the preload works: ${withLib.length} of ${dynamic.length} glibc process(es) map libvgpu.so`);
  if (dynamic.length > 0) return fail({ ...common, evidence }, `none of the ${dynamic.length} glibc process(es) maps libvgpu.so: the preload is not taking effect`, remedy);
  return unknown({ ...common, evidence }, 'no process with readable maps uses CUDA or the glibc loader', 'Run the probe while the workload is using the GPU, as root in the container.');
}

function checkRuntime(node: Capture | undefined, cluster: HamiClusterFacts | undefined): Check {
  const common = { id: 'hami.runtime', title: 'containerd default runtime', group: 'seed' as const, step: 6, command: SEED_COMMANDS.runtime, impact: 'risk' as const };
  const remedy = 'Set default_runtime_name = "nvidia" in containerd\'s CRI config (nvidia-ctk runtime configure --runtime=containerd --set-as-default) and restart containerd, or give GPU pods runtimeClassName: nvidia.';
  const runtimeClass = cluster?.runtimeClassName;
  const section = node?.sections.get('containerd');
  const evidence: string[] = [];
  let runtime: string | undefined;
  for (const record of section?.records ?? []) {
    for (const line of bodyLines(record.body)) {
      const match = /^\s*default_runtime_name\s*=\s*["']([^"']*)["']/.exec(line);
      if (match) {
        evidence.push(`${record.path ?? 'containerd'}: ${line.trim()}`);
        runtime = match[1];
      }
    }
  }
  if (runtimeClass !== undefined && runtimeClass !== null && /nvidia/i.test(runtimeClass)) {
    return pass({ ...common, evidence: [...evidence, `pod spec: runtimeClassName: ${runtimeClass}`] }, `the pod selects runtimeClassName ${runtimeClass}`);
  }
  if (runtime !== undefined) {
    if (runtime === 'nvidia') return pass({ ...common, evidence }, 'containerd\'s default runtime is nvidia');
    return fail({ ...common, evidence }, `containerd's default runtime is ${runtime}, not nvidia`, remedy);
  }
  if (section && section.records.some((record) => record.path !== undefined)) {
    return fail({ ...common, evidence: section.records.map((record) => `${record.path}: (no default_runtime_name)`) }, 'containerd\'s config sets no default_runtime_name, so the default runtime is runc', remedy);
  }
  if (!node) return unknown({ ...common, evidence }, 'only the container capture is available; the runtime is a node setting', 'Run the node probe (gpumem inspect --scope node) on the GPU node, or containerd config dump | grep default_runtime_name there.');
  return unknown({ ...common, evidence }, 'the node capture has no containerd config (k3s and RKE2 keep it under /var/lib/rancher)', 'Run containerd config dump | grep default_runtime_name on the node.');
}

function checkDevicePlugin(cluster: HamiClusterFacts | undefined): Check {
  const common = { id: 'hami.device-plugin', title: 'device-plugin health', group: 'seed' as const, step: 7, command: SEED_COMMANDS.devicePlugin, impact: 'risk' as const };
  const pods = cluster?.devicePluginPods;
  if (pods === undefined) return unknown({ ...common, evidence: [] }, 'the device-plugin pods are a cluster fact this capture does not have', 'kubectl get pods -A -l app.kubernetes.io/component=hami-device-plugin -o wide (the chart\'s label); gpumem fills this in when it inspects through Kubernetes.');
  const evidence = pods.map((pod) => `kubectl: ${pod.name} ${pod.phase}${pod.ready === undefined ? '' : pod.ready ? ' ready' : ' not-ready'}`);
  const remedy = 'Fix the hami-device-plugin DaemonSet on this node (kubectl describe pod / logs -c device-plugin); without it no new container gets the limit env, libvgpu.so or the preload mount.';
  if (pods.length === 0) return fail({ ...common, evidence }, 'no HAMi device-plugin pod found', remedy);
  const bad = pods.filter((pod) => pod.phase !== 'Running' || pod.ready === false);
  if (bad.length > 0) return fail({ ...common, evidence }, `${bad.length} of ${pods.length} device-plugin pod(s) not running/ready`, remedy);
  return pass({ ...common, evidence }, `all ${pods.length} device-plugin pod(s) running`);
}

// ---------------------------------------------------------------------------------------------------
// The bypass matrix (facts §1.7)

function checkStatic(facts: Facts): Check {
  const common = { id: 'bypass.static', title: 'static executable', group: 'bypass' as const, command: 'readelf -lW /proc/<pid>/exe | grep "program interpreter"', impact: 'bypass' as const };
  if (!facts.processes) return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const exeLine = (line: string) => line.startsWith('exe=') || line.startsWith('exe_path=');
  const evidence = facts.gpuProcs.flatMap((process) => processLines(process, exeLine));
  const statics = facts.gpuProcs.filter((process) => process.exe.kind === 'static');
  if (statics.length > 0) {
    return fail({ ...common, evidence }, `static executable(s) using the GPU, which never read /etc/ld.so.preload: ${statics.map((process) => `${process.pid} (${process.exePath ?? process.comm})`).join(', ')}`,
      'Rebuild with a dynamic glibc executable (the CUDA runtime may stay static: it still dlopens libcuda.so.1), or accept that this process is not limited.');
  }
  if (facts.gpuProcs.length === 0) return unknown({ ...common, evidence }, 'no CUDA process to examine', 'Run the probe while the workload is using the GPU.');
  if (facts.gpuProcs.some((process) => process.exe.kind === 'unknown')) return unknown({ ...common, evidence }, 'some CUDA executables could not be classified', 'Run readelf -lW on them in the container.');
  return pass({ ...common, evidence }, 'every CUDA process runs a dynamically linked executable');
}

function checkMusl(facts: Facts): Check {
  const common = { id: 'bypass.musl', title: 'musl loader', group: 'bypass' as const, command: 'grep ld-musl /proc/<pid>/maps', impact: 'bypass' as const };
  if (!facts.processes) return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const isMusl = (process: ContainerProcess) => process.maps.musl || /ld-musl/.test(process.exe.interpreter ?? '');
  const musl = facts.gpuProcs.filter(isMusl);
  const remedy = 'Use a glibc-based image for CUDA workloads: /etc/ld.so.preload is a glibc feature and musl ignores it.';
  if (musl.length > 0) {
    return fail({ ...common, evidence: musl.flatMap((process) => processLines(process, (line) => line.startsWith('maps=') || line.startsWith('exe='))) },
      `CUDA process(es) run under musl, which ignores /etc/ld.so.preload: ${musl.map((process) => `${process.pid} (${process.comm})`).join(', ')}`, remedy);
  }
  const loaders = facts.container?.loaders;
  const loaderEvidence = [...(loaders?.musl ?? []), ...(loaders?.glibc ?? [])].map((path) => `loader: ${path}`);
  if (facts.gpuProcs.length > 0) return pass({ ...common, evidence: loaderEvidence }, 'no CUDA process maps ld-musl');
  if (loaders && loaders.musl.length > 0 && loaders.glibc.length === 0) {
    return unknown({ ...common, evidence: loaderEvidence }, 'the image ships only musl\'s loader: a CUDA program here would not be preloaded', remedy);
  }
  const muslAny = facts.processes.filter(isMusl);
  if (muslAny.length > 0) return unknown({ ...common, evidence: muslAny.flatMap((process) => processLines(process, (line) => line.startsWith('maps='))) }, 'musl processes run here (none uses CUDA yet)', remedy);
  return pass({ ...common, evidence: loaderEvidence }, 'no musl process');
}

function checkDind(facts: Facts): Check {
  const common = { id: 'bypass.dind', title: 'Docker-in-Docker', group: 'bypass' as const, command: 'ls -l /var/run/docker.sock /run/containerd/containerd.sock; echo $DOCKER_HOST; ps | grep -E "dockerd|containerd"', impact: 'risk' as const };
  const dind = facts.container?.dind;
  if (!dind) return unknown({ ...common, evidence: [] }, 'not captured', 'Run the container probe in the workload container.');
  const evidence = dind.lines.map((line) => `dind: ${line}`);
  if (dind.sockets.length > 0 || dind.dockerHost !== undefined || dind.daemons.length > 0) {
    return fail({ ...common, evidence }, 'a container runtime is reachable from this container: containers it starts get no hostPath mounts or env, so they are not limited (HAMi#1777)',
      'Avoid Docker-in-Docker for GPU workloads; run them as pods. (With hostPID, the node\'s own containerd shows up here too: check the evidence.)');
  }
  return pass({ ...common, evidence }, 'no runtime socket, DOCKER_HOST or daemon process');
}

function checkLoginSessions(facts: Facts): Check {
  const common = { id: 'bypass.login-session', title: 'login sessions without the limit env', group: 'bypass' as const, command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DEVICE_MEMORY_LIMIT", impact: 'bypass' as const };
  if (!facts.processes) return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const pid1Limits = limitVars(facts.pid1Env);
  const evidence = pid1Limits.map(([key, value]) => `/proc/1: ${key}=${value}`);
  if (pid1Limits.length === 0) return unknown({ ...common, evidence }, 'PID 1 has no limit env to inherit (or its environ is unreadable); see "HAMi env vars"', 'Run the probe as root in the container.');
  const readable = facts.gpuProcs.filter((process) => process.environReadable);
  const lacking = readable.filter((process) => limitVars(process.env).length === 0);
  const all = [...evidence, ...facts.gpuProcs.flatMap((process) => processLines(process, (line) => line.startsWith('comm=') || line.startsWith('cmdline=') || LIMIT_VAR.test(line.split('=')[0] ?? '') || line === '@environ-unreadable'))];
  if (lacking.length > 0) {
    return fail({ ...common, evidence: all }, `CUDA process(es) without CUDA_DEVICE_MEMORY_LIMIT* although PID 1 has it (a login shell, su -, cron or ssh session): ${lacking.map((process) => `${process.pid} (${process.comm})`).join(', ')}`,
      'Start GPU work from the container\'s own environment (kubectl exec inherits it; ssh, su - and cron do not), or export the CUDA_DEVICE_* variables from /proc/1/environ in the session (HAMi#1112).');
  }
  if (facts.gpuProcs.length === 0) return unknown({ ...common, evidence: all }, 'no CUDA process to examine', 'Run the probe while the workload is using the GPU.');
  if (readable.length < facts.gpuProcs.length) return unknown({ ...common, evidence: all }, 'some CUDA processes\' environ could not be read', 'Run the probe as root in the container.');
  return pass({ ...common, evidence: all }, 'every CUDA process carries the limit env');
}

function checkGvisor(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = { id: 'bypass.gvisor', title: 'gVisor runtime', group: 'bypass' as const, command: "kubectl get pod <pod> -o jsonpath='{.spec.runtimeClassName}'", impact: 'bypass' as const };
  const runtimeClass = cluster?.runtimeClassName;
  const remedy = 'gVisor\'s Sentry does not honour /etc/ld.so.preload (HAMi#2581): run HAMi-limited pods with runc/nvidia, not runsc.';
  if (runtimeClass !== undefined) {
    const evidence = [`pod spec: runtimeClassName: ${runtimeClass ?? '(none)'}`];
    if (runtimeClass !== null && /gvisor|runsc/i.test(runtimeClass)) return fail({ ...common, evidence }, `the pod runs under ${runtimeClass} (gVisor)`, remedy);
    return pass({ ...common, evidence }, runtimeClass === null ? 'the pod sets no runtimeClassName' : `runtimeClassName ${runtimeClass} is not gVisor`);
  }
  const kernel = facts.container?.kernel;
  const hint = kernel === '4.4.0' || /gvisor/i.test(facts.container?.procVersion ?? '');
  const evidence = kernel !== undefined ? [`meta: kernel=${kernel}`] : [];
  return unknown({ ...common, evidence }, hint ? 'the kernel reports 4.4.0, gVisor\'s default: probably gVisor' : 'the pod\'s runtimeClassName is a cluster fact this capture does not have', remedy);
}

function checkDisableControlPerProcess(facts: Facts): Check {
  const common = { id: 'bypass.disable-control', title: 'CUDA_DISABLE_CONTROL in process environments', group: 'bypass' as const, command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DISABLE_CONTROL", impact: 'bypass' as const };
  if (!facts.processes) return unknown({ ...common, evidence: [] }, 'processes were not captured', 'Run the container probe in the workload container.');
  const readable = facts.processes.filter((process) => process.environReadable);
  const evidence = facts.processes.flatMap((process) => processLines(process, (line) => line.startsWith('CUDA_DISABLE_CONTROL=')));
  const set = facts.processes.filter((process) => isTrue(process.env['CUDA_DISABLE_CONTROL']));
  if (set.length > 0) {
    return fail({ ...common, evidence }, `CUDA_DISABLE_CONTROL is true in ${set.length} process(es): the pod was created with it, so the preload mount was skipped`,
      'Remove CUDA_DISABLE_CONTROL from the pod spec and recreate the pod (HAMi-core itself ignores the variable; the device plugin reads it at Allocate).');
  }
  if (readable.length === 0) return unknown({ ...common, evidence }, 'no process environ was readable', 'Run the probe as root in the container.');
  return pass({ ...common, evidence }, `not set in any of ${readable.length} readable process environment(s)`);
}

function checkPreloadTarget(facts: Facts): Check {
  const common = { id: 'bypass.preload', title: 'preload missing, empty or pointing elsewhere', group: 'bypass' as const, command: 'cat /etc/ld.so.preload; ls -la $(cat /etc/ld.so.preload)', impact: 'bypass' as const };
  const preload = facts.container?.preload;
  const evidence = preloadEvidence(facts);
  const loaderErrors = facts.logLines.filter((line) => line.kind === 'preload-failed');
  evidence.push(...loaderErrors.map((line) => `${line.where}: ${line.line}`));
  const remedy = 'Make /etc/ld.so.preload name the libvgpu.so that is mounted (a custom gpuHookPath needs HAMi ≥ the fix of HAMi#2017), and make sure the file it names exists and is not empty.';
  if (loaderErrors.length > 0) return fail({ ...common, evidence }, `the loader could not preload ${loaderErrors[0]?.details.object ?? 'libvgpu.so'} (${loaderErrors[0]?.details.reason ?? ''}): processes run without it (HAMi#1346, #777)`, remedy);
  if (!preload) return unknown({ ...common, evidence }, 'the preload file was not captured', 'Run the container probe in the workload container.');
  if (preload.state === 'missing' || preload.state === 'directory' || (preload.state !== 'unreadable' && preload.entries.length === 0)) {
    return failNoPreload(facts, { ...common, evidence }, `/etc/ld.so.preload is ${preload.state === 'missing' ? 'missing' : preload.state === 'directory' ? 'a directory' : 'empty'}`, remedy);
  }
  if (preload.state === 'unreadable') return unknown({ ...common, evidence }, '/etc/ld.so.preload is unreadable', 'Run the probe as root in the container.');
  const container = facts.container;
  const vgpu = preload.entries.filter((entry) => entry.startsWith('/usr/local/vgpu/'));
  for (const entry of vgpu) {
    const name = entry.slice('/usr/local/vgpu/'.length);
    if (container?.vgpuDir !== undefined && !name.includes('/')) {
      const listed = container.vgpuDir.find((item) => item.name === name);
      if (!listed) return fail({ ...common, evidence }, `/etc/ld.so.preload names ${entry}, which does not exist in the container`, remedy);
      if (listed.type === 'file' && listed.size === 0) return fail({ ...common, evidence }, `/etc/ld.so.preload names ${entry}, which is empty`, remedy);
    }
  }
  const libvgpuEntries = preload.entries.filter((entry) => /libvgpu\.so$/.test(entry));
  const elsewhere = libvgpuEntries.filter((entry) => !entry.startsWith('/usr/local/vgpu/'));
  if (elsewhere.length > 0) return unknown({ ...common, evidence }, `/etc/ld.so.preload names ${elsewhere.join(' ')}, outside /usr/local/vgpu (a custom gpuHookPath): the probe did not check that path`, remedy);
  return pass({ ...common, evidence }, 'the preload names a libvgpu.so that is present');
}

function checkLimitZero(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = { id: 'bypass.limit-zero', title: 'limit 0 (no limit)', group: 'bypass' as const, command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DEVICE_MEMORY_LIMIT", impact: 'bypass' as const };
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
  evidence.push(...invalid.map((line) => `${line.where}: ${line.line}`));
  const zero = found.filter((item) => parseHamiLimit(item.value) === 0);
  if (zero.length > 0 || invalid.length > 0) {
    const names = [...new Set([...zero.map((item) => `${item.key}=${item.value}`), ...invalid.map((line) => `${line.details.variable ?? '?'}=${line.details.value ?? ''}`)])];
    return fail({ ...common, evidence }, `${names.join(', ')} parses to 0, which HAMi-core treats as no limit`,
      'Request a non-zero nvidia.com/gpumem (HAMi writes "<MiB>m"); a value that parses to 0 — "0", "0m", text — disables the memory limit.');
  }
  if (found.length === 0) return unknown({ ...common, evidence }, 'no CUDA_DEVICE_MEMORY_LIMIT* value to check', 'See "HAMi env vars".');
  const values = [...new Set(found.map((item) => `${item.key}=${item.value} (${mib(parseHamiLimit(item.value))})`))];
  return pass({ ...common, evidence }, `limits are non-zero: ${values.join(', ')}`);
}

function checkLogs(facts: Facts): Check {
  const common = { id: 'bypass.logs', title: "HAMi-core's own log lines", group: 'bypass' as const, command: "kubectl logs <pod> | grep -Ei 'HAMI-core|4pdvGPU|cannot be preloaded'", impact: 'bypass' as const };
  const lines = facts.logLines;
  const evidence = (kinds: readonly string[]) => lines.filter((line) => kinds.includes(line.kind)).slice(0, 20).map((line) => `${line.where}: ${line.line}`);
  const preloadFailed = lines.filter((line) => line.kind === 'preload-failed');
  if (preloadFailed.length > 0) {
    return fail({ ...common, evidence: evidence(['preload-failed']) }, 'the loader refused to preload libvgpu.so: the processes that printed this are not limited',
      'Fix the libvgpu.so mount (it is missing or empty in the container) and restart the workload.');
  }
  const invalid = lines.filter((line) => line.kind === 'invalid-limit');
  if (invalid.length > 0) return fail({ ...common, evidence: evidence(['invalid-limit']) }, 'HAMi-core reports an invalid (zero) memory limit: it does not enforce one', 'Request a non-zero nvidia.com/gpumem.');
  const underflow = lines.filter((line) => line.kind === 'device-oom' && line.details.underflow);
  const trouble = lines.filter((line) => ['lock-timeout', 'shrreg-open-failed', 'version-mismatch', 'limit-inconsistency', 'illegal-device-id', 'host-pid-not-found'].includes(line.kind));
  if (underflow.length > 0 || trouble.length > 0) {
    const riskCommon = { ...common, impact: 'risk' as const };
    return fail({ ...riskCommon, evidence: [...evidence(['device-oom']).filter((line) => underflow.some((u) => line.endsWith(u.line))), ...trouble.slice(0, 20).map((line) => `${line.where}: ${line.line}`)] },
      underflow.length > 0 ? 'HAMi-core\'s usage counter underflowed (HAMi#1181): it refuses allocations with false OOMs' : `HAMi-core reports trouble with its shared region: ${[...new Set(trouble.map((line) => line.kind))].join(', ')}`,
      'Upgrade HAMi-core (v2.6.1+ fixes HAMi#1181), then stop every GPU process in the container and delete the stale .cache file in /usr/local/vgpu so it is recreated.');
  }
  const active = lines.filter((line) => line.source !== 'ld.so');
  if (active.length > 0) {
    return pass({ ...common, evidence: active.slice(0, 10).map((line) => `${line.where}: ${line.line}`) }, `HAMi-core is logging from ${new Set(active.map((line) => line.pid ?? '?')).size} process(es) (${[...new Set(active.map((line) => line.kind))].join(', ')})`);
  }
  const level = facts.logLevel;
  return unknown({ ...common, evidence: level !== undefined ? [`env: LIBCUDA_LOG_LEVEL=${level}`] : [] },
    `no HAMi-core log lines; that proves nothing: at LIBCUDA_LOG_LEVEL=${level ?? '(unset here; the chart sets 1)'} ${level === undefined || Number(level) <= 1 ? 'only ERROR lines print, so a healthy process is silent' : 'Msg lines print only when a process initialises CUDA'}`,
    'Rely on the maps and env checks; to see HAMi-core\'s own lines set LIBCUDA_LOG_LEVEL=2 on the container and look for "Initializing....." in kubectl logs.');
}

function checkUnifiedMemory(facts: Facts): Check {
  const common = { id: 'bypass.unified-memory', title: 'unified-memory GPU', group: 'bypass' as const, command: 'nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits', impact: 'bypass' as const };
  const gpus = facts.container?.nvidiaSmi.gpus;
  if (!gpus) return unknown({ ...common, evidence: facts.container?.nvidiaSmi.missing ? ['nvidia-smi.gpu: missing nvidia-smi'] : [] }, 'nvidia-smi did not run in the container', 'Run nvidia-smi in the container.');
  const evidence = [...gpus.rows.map((row) => `nvidia-smi: ${row.line}`), ...gpus.errors.map((line) => `nvidia-smi: ${line}`)];
  const unreported = gpus.rows.filter((row) => row.memoryUnreported);
  if (unreported.length > 0) {
    return fail({ ...common, evidence }, 'NVML reports no GPU memory (memory.total [N/A]): a unified-memory GPU such as GB10, where HAMi-core cannot enforce a limit (KAI-Scheduler#1967)',
      'Do not rely on HAMi memory limits on unified-memory GPUs; bound the pod with its memory cgroup (resources.limits.memory) instead.');
  }
  if (gpus.rows.length === 0) return unknown({ ...common, evidence }, 'nvidia-smi printed no GPU', 'Check nvidia-smi in the container.');
  return pass({ ...common, evidence }, `nvidia-smi reports memory.total ${gpus.rows.map((row) => `${row.memoryTotalMiB ?? '?'} MiB`).join(', ')} (inside HAMi: the quota)`);
}

function checkPrivileged(cluster: HamiClusterFacts | undefined): Check {
  const common = { id: 'bypass.privileged', title: 'privileged container (HAMi < v2.10.0)', group: 'bypass' as const, command: "kubectl get pod <pod> -o jsonpath='{.spec.containers[*].securityContext.privileged}'", impact: 'bypass' as const };
  if (cluster?.privileged === undefined) return unknown({ ...common, evidence: [] }, 'privileged is a pod-spec fact this capture does not have', 'gpumem fills this in when it inspects through Kubernetes.');
  const evidence = [`pod spec: privileged: ${cluster.privileged}`, ...(cluster.hamiVersion ? [`hami version: ${cluster.hamiVersion}`] : [])];
  if (!cluster.privileged) return pass({ ...common, evidence }, 'no privileged container');
  const version = /v?(\d+)\.(\d+)/.exec(cluster.hamiVersion ?? '');
  const remedy = 'Upgrade HAMi to v2.10.0+ (its webhook denies privileged pods with HAMi resources, PR#2139) and drop privileged from GPU containers.';
  if (!version) return unknown({ ...common, evidence }, 'a privileged container, and the HAMi version is unknown', remedy);
  const old = Number(version[1]) < 2 || (Number(version[1]) === 2 && Number(version[2]) < 10);
  if (old) return fail({ ...common, evidence }, 'a privileged container under HAMi < v2.10.0: the webhook skipped it, so it runs without limits (HAMi#2138)', remedy);
  return pass({ ...common, evidence }, 'HAMi ≥ v2.10.0 denies privileged pods that request HAMi resources');
}

function checkCache(facts: Facts): Check {
  const common = { id: 'bypass.cache', title: 'shared-region cache', group: 'bypass' as const, command: 'ls -l $CUDA_DEVICE_MEMORY_SHARED_CACHE; od -A n -t d4 -N 16 $CUDA_DEVICE_MEMORY_SHARED_CACHE', impact: 'risk' as const };
  const caches = facts.container?.caches;
  if (!caches) return unknown({ ...common, evidence: [] }, 'not captured', 'Run the container probe in the workload container.');
  const evidence = caches.flatMap((cache) => cache.lines.filter((line) => /^(size|header|device_num|limits|proc_num)=/.test(line) || (/^slot\d+=/.test(line) && !/= ?0 0 status=0/.test(line))).map((line) => `${cache.path}: ${line}`));
  const remedy = 'Stop the GPU processes in the container, delete the .cache file in /usr/local/vgpu (it is recreated on the next CUDA init), and keep HAMi-core versions consistent across the node (HAMi-core#7, HAMi#1181).';
  const bad = caches.filter((cache) => cache.magicOk === false || cache.problems.some((problem) => /underflow|implausible|corrupt/.test(problem)));
  if (bad.length > 0) return fail({ ...common, evidence: [...evidence, ...bad.flatMap((cache) => cache.problems)] }, `the shared-region cache is not sound: ${bad.flatMap((cache) => cache.problems).join('; ')}`, remedy);
  if (caches.length === 0) {
    const hasGpuWithLib = facts.gpuProcs.some((process) => process.maps.libvgpu);
    if (hasGpuWithLib) return fail({ ...common, evidence }, 'CUDA processes map libvgpu.so but no shared-region cache file was found', remedy);
    return unknown({ ...common, evidence }, 'no shared-region cache yet (it is created when a process first initialises CUDA under libvgpu.so)', 'Run the probe while the workload is using the GPU.');
  }
  const limits = caches.flatMap((cache) => cache.limits.slice(0, Math.max(1, cache.deviceNum ?? 1)).map((limit) => limit?.value)).filter((value): value is number => value !== undefined);
  return pass({ ...common, evidence }, `cache ok (magic ${caches[0]?.magic ?? '?'}, v${caches[0]?.majorVersion ?? '?'}.${caches[0]?.minorVersion ?? '?'}), limits ${limits.map((value) => (value === 0 ? 'unlimited' : mib(value))).join(', ')}, ${caches.reduce((sum, cache) => sum + cache.liveSlots.length, 0)} live slot(s)`);
}

/**
 * No usable /etc/ld.so.preload. When every CUDA process still maps libvgpu.so through LD_PRELOAD
 * (HAMi-core used standalone), the running processes are limited and only new ones are at risk.
 */
function failNoPreload(facts: Facts, common: Omit<CheckCommon, 'summary'>, summary: string, remedy: string): Check {
  if (!facts.ldPreloadCarries) return fail(common, summary, remedy);
  const evidence = [...common.evidence, ...facts.gpuProcs.flatMap((process) => processLines(process, (line) => line.startsWith('LD_PRELOAD=')))];
  return fail({ ...common, evidence, impact: 'risk' }, `${summary}; the CUDA processes load libvgpu.so through LD_PRELOAD instead, so processes started without that variable are not limited`, remedy);
}

// ---------------------------------------------------------------------------------------------------

function verdictForProcess(process: ContainerProcess): ProcessVerdict {
  const reasons: string[] = [];
  const evidence = process.lines.filter((line) => !line.startsWith('ppid=')).map((line) => `/proc/${process.pid}: ${line}`);
  let bypassed = false;
  let unknownPart = false;
  if (!process.maps.readable) {
    unknownPart = true;
    reasons.push('maps unreadable');
  } else if (!process.maps.libvgpu) {
    bypassed = true;
    reasons.push('libvgpu.so is not mapped');
  }
  if (process.exe.kind === 'static') {
    bypassed = true;
    reasons.push('static executable');
  } else if (process.exe.kind === 'unknown') {
    reasons.push('executable kind unknown');
  }
  if (process.maps.musl || /ld-musl/.test(process.exe.interpreter ?? '')) {
    bypassed = true;
    reasons.push('musl loader');
  }
  if (!process.environReadable) {
    unknownPart = true;
    reasons.push('environ unreadable');
  } else {
    const limits = limitVars(process.env);
    if (limits.length === 0) {
      bypassed = true;
      reasons.push('no CUDA_DEVICE_MEMORY_LIMIT* in its environment');
    } else if (limits.some(([, value]) => parseHamiLimit(value) === 0)) {
      bypassed = true;
      reasons.push(`limit parses to 0: ${limits.map(([key, value]) => `${key}=${value}`).join(', ')}`);
    } else {
      reasons.push(`limit ${limits.map(([key, value]) => `${key}=${value}`).join(', ')}`);
    }
  }
  if (process.maps.readable && process.maps.libvgpu) reasons.unshift('libvgpu.so mapped');
  const verdict: HamiVerdict = bypassed ? 'bypassed' : unknownPart ? 'unknown' : 'enforced';
  return { pid: process.pid, comm: process.comm, verdict, reasons, evidence };
}

function preloadEvidence(facts: Facts): string[] {
  const preload = facts.container?.preload;
  const evidence: string[] = [];
  if (!preload) return evidence;
  if (preload.state === 'missing') evidence.push('preload: missing /etc/ld.so.preload');
  if (preload.lsLine) evidence.push(`preload: ${preload.lsLine}`);
  if (preload.content !== undefined) {
    const contentLines = bodyLines(preload.content);
    evidence.push(...(contentLines.length > 0 ? contentLines.map((line) => `/etc/ld.so.preload: ${line}`) : ['/etc/ld.so.preload: (empty)']));
  }
  for (const mount of facts.container?.mounts ?? []) if (mount.mountPoint === '/etc/ld.so.preload') evidence.push(`mountinfo: ${mount.line}`);
  return evidence;
}

function bodyLines(text: string): string[] {
  return text.split('\n').map((line) => line.replace(/\r$/, '')).filter((line) => line.trim() !== '');
}

/** The summary without its leading "<verdict>: ", for reports and the inspector that show the verdict beside it. */
export function summaryAfterVerdict(result: Pick<HamiChecklistResult, 'verdict' | 'summary'>): string {
  return result.summary.startsWith(`${result.verdict}: `) ? result.summary.slice(result.verdict.length + 2) : result.summary;
}
