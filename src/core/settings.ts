// gpumem's VS Code settings as typed snapshots, parsed from raw values. Pure: the host reads each key
// (src/vscode/config.ts) and passes a reader; every clamp and fallback is here, so the unit tests cover them
// (test/unit/settings.test.ts). A value of the wrong type falls back to the default, never throws. The
// ranges are the ones package.json declares (contributes.configuration), which VS Code's settings editor
// shows but does not enforce on settings.json.
import { resolveConfig } from './config.ts';
import type { LintConfig } from './config.ts';
import { isDnsLabel } from './kube/names.ts';
import type { HamiLibPathSetting } from './probe/hamiLibPath.ts';
import { parseHamiLibPathSetting } from './probe/hamiLibPath.ts';
import { DEFAULT_HEADROOM_PERCENT, isHeadroomPercent } from './sizing.ts';

/** The raw value of a full setting key (`gpumem.lint.debounceMs`): what the user set, else package.json's default. */
export type SettingsReader = (key: string) => unknown;

export type CodeLensMode = 'all' | 'summary' | 'off';

export interface Settings {
  readonly enabled: boolean;
  readonly lint: LintConfig;
  /** Settings that were ignored, one line each, for the output channel. */
  readonly problems: readonly string[];
  readonly exclude: readonly string[];
  readonly maxFileBytes: number;
  readonly debounceMs: number;
  readonly codeLens: CodeLensMode;
  readonly probeTimeoutMs: number;
  /** HAMi's host directory for node probes (Inspect Local, SSH, Node). */
  readonly hamiLibPath: HamiLibPathSetting;
  /** The inspector's live sampling period in seconds; 0 = off. */
  readonly inspectorSampleSeconds: number;
  /** gpumem.ssh.hosts: destinations shown in the SSH Hosts view before those of ~/.ssh/config. */
  readonly sshHosts: readonly string[];
}

/** `value` within [min, max] when it is a finite number, else `fallback`. */
export function clampNumber(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** gpumem.inspector.sampleSeconds: 0 or less turns sampling off; otherwise 1 s to an hour. */
export function parseSampleSeconds(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(3600, Math.max(1, value)) : 0;
}

/** gpumem.lint.headroomPercent as every remedy takes it: the user's value when it is one gpumem accepts, else the default. */
export function parseHeadroomSetting(read: SettingsReader): number {
  const value = read('gpumem.lint.headroomPercent');
  return isHeadroomPercent(value) ? value : DEFAULT_HEADROOM_PERCENT;
}

export function parseSettings(read: SettingsReader): Settings {
  const lint = (key: string): unknown => read(`gpumem.lint.${key}`);
  const raw: Record<string, unknown> = {
    headroomPercent: lint('headroomPercent'),
    dedicatedNodeTaintKey: lint('dedicatedNodeTaintKey'),
    hamiDetection: lint('hamiDetection'),
    gpuDeviceClasses: lint('gpuDeviceClasses'),
    rules: lint('rules'),
  };
  const labels = lint('unifiedMemoryNodeLabels');
  if (labels !== null && labels !== undefined) raw.unifiedMemoryNodeLabels = labels;
  const { config, problems } = resolveConfig(raw);
  const codeLens = lint('codeLens');
  const hamiLibPath = parseHamiLibPathSetting(read('gpumem.probe.hamiLibPath'));
  const enabled = lint('enable');
  const problemLines = problems.map((problem) => `gpumem.lint.${problem.path}: ${problem.message}`);
  if (hamiLibPath.kind === 'invalid') problemLines.push(`gpumem.probe.hamiLibPath: ${hamiLibPath.problem} (using /usr/local/vgpu)`);
  return {
    enabled: typeof enabled === 'boolean' ? enabled : true,
    lint: config,
    problems: problemLines,
    exclude: stringList(lint('exclude')),
    maxFileBytes: clampNumber(lint('maxFileSizeKB'), 16, Number.MAX_SAFE_INTEGER, 1024) * 1024,
    debounceMs: clampNumber(lint('debounceMs'), 0, 5000, 250),
    codeLens: codeLens === 'summary' || codeLens === 'off' ? codeLens : 'all',
    probeTimeoutMs: clampNumber(read('gpumem.probe.timeoutSeconds'), 5, 3600, 120) * 1000,
    hamiLibPath,
    inspectorSampleSeconds: parseSampleSeconds(read('gpumem.inspector.sampleSeconds') ?? 5),
    sshHosts: stringList(read('gpumem.ssh.hosts'))
      .map((host) => host.trim())
      .filter((host) => host !== ''),
  };
}

// ---- the Clusters view's Kubernetes settings ----------------------------------------------------------

export type NodeProbeMode = 'debug-pod' | 'ssh';

/**
 * How probes exec into pods (Inspect Pod, the HAMi checklist, the node debug pod): `api`, client-node's
 * WebSocket exec; `kubectl`, the user's kubectl binary (reads always stay on client-node).
 */
export type ExecMode = { readonly kind: 'api' } | { readonly kind: 'kubectl'; readonly kubectlPath: string };

export interface KubeSettings {
  /** An explicit kubeconfig file; undefined: KUBECONFIG, then ~/.kube/config. */
  readonly kubeconfig: string | undefined;
  readonly debugImage: string;
  readonly debugNamespace: string;
  readonly nodeProbe: NodeProbeMode;
  /** nodeProbe "debug-pod": exec into the node's gpumem agent pod when it runs there (default true). */
  readonly useAgentPod: boolean;
  /** nodeProbe "ssh": dial the node's address (default) or its name as an ~/.ssh/config alias. */
  readonly sshHostFrom: 'address' | 'node-name';
  readonly execMode: ExecMode;
  /** activeDeadlineSeconds of the debug pod Inspect Node keeps for live sampling. */
  readonly liveDebugPodDeadlineSeconds: number;
  /** That pod is deleted after this long without a sample (panel hidden, paused, sampling off); re-created on demand. */
  readonly liveDebugPodIdleMs: number;
  readonly requestTimeoutMs: number;
  /** GET /version when a context is expanded: short, so an unreachable cluster never holds the tree. */
  readonly probeTimeoutMs: number;
}

/** The defaults src/kube/ owns (the debug pod's image and lifetime), passed in so core stays free of src/kube. */
export interface KubeDefaults {
  readonly debugImage: string;
  readonly liveDebugPodDeadlineSeconds: number;
  readonly liveDebugPodIdleMs: number;
}

function trimmedString(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value.trim() : fallback;
}

export function parseKubeSettings(read: SettingsReader, defaults: KubeDefaults): KubeSettings {
  const kube = (key: string): unknown => read(`gpumem.kubernetes.${key}`);
  const kubeconfig = trimmedString(read('gpumem.kubeconfig'), '');
  const image = trimmedString(kube('debugImage'), defaults.debugImage);
  const namespace = trimmedString(kube('debugNamespace'), 'default');
  const timeoutSeconds = clampNumber(kube('requestTimeoutSeconds'), 1, 300, 15);
  const idleSeconds = defaults.liveDebugPodIdleMs / 1000;
  return {
    kubeconfig: kubeconfig === '' ? undefined : kubeconfig,
    debugImage: image === '' ? defaults.debugImage : image,
    debugNamespace: isDnsLabel(namespace) ? namespace : 'default',
    nodeProbe: kube('nodeProbe') === 'ssh' ? 'ssh' : 'debug-pod',
    useAgentPod: kube('useAgentPod') !== false,
    sshHostFrom: kube('sshHostFrom') === 'nodeName' ? 'node-name' : 'address',
    execMode:
      kube('execMode') === 'kubectl'
        ? { kind: 'kubectl', kubectlPath: trimmedString(kube('kubectlPath'), 'kubectl') || 'kubectl' }
        : { kind: 'api' },
    liveDebugPodDeadlineSeconds: Math.round(
      clampNumber(kube('liveSamplingPodDeadlineSeconds'), 300, 86_400, defaults.liveDebugPodDeadlineSeconds),
    ),
    liveDebugPodIdleMs: Math.round(clampNumber(kube('liveSamplingPodIdleSeconds'), 10, 3600, idleSeconds) * 1000),
    requestTimeoutMs: timeoutSeconds * 1000,
    probeTimeoutMs: Math.min(5, timeoutSeconds) * 1000,
  };
}

// ---- the Fleet view's settings -------------------------------------------------------------------------

export type FleetWindowSetting = '1h' | '24h' | '7d';

export interface FleetSettings {
  /** gpumem.fleet.prometheusUrl, an http(s) URL; undefined: the agents through the pod proxy. */
  readonly prometheusUrl: string | undefined;
  /** gpumem.fleet.prometheusCaFile, `~/` not yet expanded; undefined: the system's CAs. */
  readonly prometheusCaFile: string | undefined;
  readonly window: FleetWindowSetting;
  /** How many pods each top list shows: 5 to 200 (default 20). */
  readonly top: number;
  /** gpumem.fleet.scanConcurrency: GPU nodes a debug-pod scan probes at once, 1 to 64 (default 8). */
  readonly scanConcurrency: number;
  /** gpumem.lint.headroomPercent, which the fleet's remedies add too (an invalid value is reported by parseSettings). */
  readonly headroomPercent: number;
  /** Values that were ignored, one line each. */
  readonly problems: readonly string[];
}

/** `text` without its trailing slashes (a loop: the regex /\/+$/ is quadratic on a run of slashes). */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}

export function parseFleetSettings(read: SettingsReader): FleetSettings {
  const fleet = (key: string): unknown => read(`gpumem.fleet.${key}`);
  const problems: string[] = [];
  const urlText = trimmedString(fleet('prometheusUrl'), '');
  let prometheusUrl: string | undefined;
  if (urlText !== '') {
    let url: URL | undefined;
    try {
      url = new URL(urlText);
    } catch {
      url = undefined;
    }
    if (url && (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '')
      prometheusUrl = withoutTrailingSlashes(urlText);
    else
      problems.push(
        url && (url.username !== '' || url.password !== '')
          ? 'gpumem.fleet.prometheusUrl: credentials in the URL are ignored; use gpumem: Set Prometheus Credentials… (reading the agents instead)'
          : 'gpumem.fleet.prometheusUrl: not an http:// or https:// URL (reading the agents instead)',
      );
  }
  const ca = trimmedString(fleet('prometheusCaFile'), '');
  const window = fleet('window');
  return {
    prometheusUrl,
    prometheusCaFile: ca === '' ? undefined : ca,
    window: window === '1h' || window === '7d' ? window : '24h',
    top: Math.round(clampNumber(fleet('top'), 5, 200, 20)),
    scanConcurrency: Math.round(clampNumber(fleet('scanConcurrency'), 1, 64, 8)),
    headroomPercent: parseHeadroomSetting(read),
    problems,
  };
}
