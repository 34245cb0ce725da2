// Is HAMi actually enforcing this container's GPU memory quota?
//
// The seven checks of the HAMi troubleshooting page ("GPU Memory Enforcement: How It Works and How to
// Debug It", Quick Diagnostic Checklist; hamiTroubleshootingSteps.ts, hamiNodeSteps.ts) plus the ways a
// process escapes the limit (hamiLoaderBypasses.ts, hamiEnvBypasses.ts, hamiRuntimeBypasses.ts,
// hamiCoreState.ts, hamiNvmlQuota.ts). Each check is pass, fail or unknown, titled by what it found, names the command it
// corresponds to, quotes its evidence verbatim from the capture (as `<where>: <line>`), and says what to do;
// a failure another check already names is `covered` (hamiCoveredChecks.ts), so each cause counts once.
// Silence in HAMi-core's logs is never evidence: at the chart's default LIBCUDA_LOG_LEVEL=1 a healthy
// process prints nothing, so no log lines is `unknown`.
//
// Inputs: the parsed container capture (what the workload sees), optionally the node capture (for
// containerd's default runtime and the host's HAMi files) and optionally cluster-side facts the
// Kubernetes layer collects (device-plugin pods, runtimeClassName, privileged, the container log).
import { pushAll } from '../../arrays.ts';
import type { Capture } from '../../probe/capture.ts';
import type { ContainerProbe } from '../../probe/parsers/containerProbe.ts';
import type { ContainerProcess } from '../../probe/parsers/containerProcesses.ts';
import { parseHamiLog } from '../../probe/parsers/hamiLog.ts';
import type { HamiLogLine } from '../../probe/parsers/hamiLog.ts';
import { limitVars, parseHamiLimit } from './hamiFacts.ts';
import type { Facts } from './hamiFacts.ts';
import { checkDisableControl, checkEnvVars, checkLibvgpu, checkLoaded, checkPreload } from './hamiTroubleshootingSteps.ts';
import { checkDevicePlugin, checkRuntime } from './hamiNodeSteps.ts';
import type { Check, HamiClusterFacts } from './hamiCheck.ts';
import { checkCache, checkLogs } from './hamiCoreState.ts';
import { coverSameCauses } from './hamiCoveredChecks.ts';
import { checkDisableControlPerProcess, checkLimitZero, checkLoginSessions } from './hamiEnvBypasses.ts';
import { checkMusl, checkPreloadTarget, checkStatic } from './hamiLoaderBypasses.ts';
import { checkDind, checkGvisor, checkPrivileged, checkUnifiedMemory } from './hamiRuntimeBypasses.ts';
import { checkNvmlQuota } from './hamiNvmlQuota.ts';

// Where the checklist's callers have always found them.
export type { Check, HamiClusterFacts } from './hamiCheck.ts';

/** `not-hami`: no GPU process and no trace of HAMi (preload, library, limit variables, caches) in the container. */
export type HamiVerdict = 'enforced' | 'bypassed' | 'unknown' | 'not-hami';

export interface ProcessVerdict {
  readonly pid: number;
  readonly comm: string;
  readonly verdict: HamiVerdict;
  readonly reasons: readonly string[];
  readonly evidence: readonly string[];
}

/**
 * Who produced the evidence. A container capture is `container-reported`: the container's own shell ran the
 * probe, so a tenant can forge every line of it, nonce included; only node-side facts (a node capture, the
 * API server's pod spec and device-plugin pods) cannot be. `corroboratedBy` names the node-side checks that
 * passed beside it; when a node-side check fails, that failure decides (a bypass from any source wins).
 */
export type EvidenceSource =
  { readonly kind: 'node-side' } | { readonly kind: 'container-reported'; readonly corroboratedBy: readonly string[] };

/** The words shown wherever a verdict rests on a container capture (inspector, reports, CLI). */
export const CONTAINER_REPORTED = 'reported by the container itself';

/** One sentence for the inspector and the reports; undefined for node-side evidence. */
export function evidenceSourceNote(source: EvidenceSource): string | undefined {
  if (source.kind === 'node-side') return undefined;
  const why = "the container's own shell ran the probe and could have forged the whole capture, nonce included";
  const corroborated =
    source.corroboratedBy.length > 0
      ? `node-side evidence that agrees: ${source.corroboratedBy.join('; ')}`
      : 'no node-side evidence corroborates it: confirm with Inspect Node (gpumem inspect --node) or gpumem inspect --pod through the cluster';
  return `${CONTAINER_REPORTED.charAt(0).toUpperCase()}${CONTAINER_REPORTED.slice(1)}: ${why}; ${corroborated}.`;
}

/** Checks whose evidence comes from the node or the API server, never from the container. */
const NODE_SIDE_CHECKS = new Set(['hami.runtime', 'hami.device-plugin']);

export interface HamiChecklistResult {
  readonly checks: readonly Check[];
  readonly verdict: HamiVerdict;
  readonly summary: string;
  readonly source: EvidenceSource;
  /** One verdict per process that uses the GPU (libcuda mapped or a /dev/nvidia* fd). */
  readonly processes: readonly ProcessVerdict[];
}

export interface HamiChecklistInput {
  readonly container?: ContainerProbe;
  readonly node?: Capture;
  readonly cluster?: HamiClusterFacts;
}

const NOT_MANAGED = 'HAMi does not manage this pod (no hami.io annotation, HAMi scheduler or HAMi-only resource)';

export function evaluateHamiChecklist(input: HamiChecklistInput): HamiChecklistResult {
  const container = input.container;
  const processes = container?.processes?.filter((process) => !process.kernelThread);
  const pid1 = processes?.find((process) => process.pid === 1);
  const gpuProcs = (processes ?? []).filter((process) => process.gpu);
  const logLines: (HamiLogLine & { where: string })[] = [...(container?.logs.lines ?? []).map((line) => ({ ...line, where: 'container' }))];
  if (input.cluster?.containerLog !== undefined)
    pushAll(
      logLines,
      parseHamiLog(input.cluster.containerLog).lines.map((line) => ({ ...line, where: 'kubectl logs' })),
    );
  const facts: Facts = {
    container,
    pid1,
    pid1Env: pid1?.environReadable ? pid1.env : undefined,
    gpuProcs,
    processes,
    logLines,
    // The API server's pod spec first: the container's own env is what the container says.
    logLevel: input.cluster?.podEnv?.['LIBCUDA_LOG_LEVEL'] ?? container?.env?.['LIBCUDA_LOG_LEVEL'] ?? pid1?.env['LIBCUDA_LOG_LEVEL'],
    ldPreloadCarries:
      gpuProcs.length > 0 && gpuProcs.every((process) => process.maps.libvgpu && /libvgpu\.so/.test(process.env['LD_PRELOAD'] ?? '')),
  };

  const checks = coverSameCauses([
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
    checkNvmlQuota(facts, input.node, input.cluster),
    checkPrivileged(input.cluster),
    checkCache(facts),
  ]);

  const processVerdicts = gpuProcs.map((process) => verdictForProcess(process));
  const source: EvidenceSource =
    container === undefined
      ? { kind: 'node-side' }
      : {
          kind: 'container-reported',
          corroboratedBy: checks.filter((check) => NODE_SIDE_CHECKS.has(check.id) && check.status === 'pass').map((check) => check.title),
        };
  const bypasses = checks.filter((check) => check.status === 'fail' && check.impact === 'bypass');
  const risks = checks.filter((check) => check.status === 'fail' && check.impact === 'risk');
  const firstFiveSteps = checks.filter((check) => check.group === 'seed' && check.step !== undefined && check.step <= 5);
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
  const sawEverything =
    container !== undefined &&
    container.processes !== undefined &&
    !container.processesTruncated &&
    container.preload !== undefined &&
    container.vgpuDir !== undefined &&
    container.env !== undefined;
  // Node or cluster facts otherwise mean "this should be a HAMi container": then a missing device plugin or
  // limit env is a finding. When the cluster says HAMi does not manage the pod, those checks only show what
  // HAMi would need, and the container's evidence decides. A CUDA process in such a pod is not enough: with
  // nvidia.com/gpu alone it may have escaped HAMi's webhook on a HAMi node, which is a bypass to report.
  const notManaged = input.cluster?.managedByHami === false;
  if (sawEverything && (notManaged || (input.node === undefined && input.cluster === undefined)) && gpuProcs.length === 0 && !hamiTrace) {
    return {
      checks,
      verdict: 'not-hami',
      summary: `not a HAMi container: ${notManaged ? `${NOT_MANAGED}, ` : ''}no process uses CUDA and there is no HAMi preload, library, cache, log line or limit variable (${CONTAINER_REPORTED})`,
      source,
      processes: processVerdicts,
    };
  }
  if (bypasses.length > 0) {
    verdict = 'bypassed';
    summary = `bypassed: ${whatIsWrong(bypasses).join('; ')}`;
  } else if (firstFiveSteps.length === 5 && firstFiveSteps.every((check) => check.status === 'pass')) {
    verdict = 'enforced';
    const enforced = processVerdicts.filter((process) => process.verdict === 'enforced').length;
    summary =
      gpuProcs.length > 0
        ? `enforced: libvgpu.so is preloaded and ${enforced} of ${gpuProcs.length} CUDA ${gpuProcs.length === 1 ? 'process carries' : 'processes carry'} a limit`
        : 'enforced: the preload, library and limit env are in place (no CUDA process was running to examine)';
    // Steps 1–5 are the container's word: say so next to the verdict, with what the node side confirms.
    summary +=
      source.kind === 'container-reported' && source.corroboratedBy.length === 0
        ? ` (${CONTAINER_REPORTED}; no node-side evidence confirms it)`
        : ` (${CONTAINER_REPORTED}; the node side agrees: ${source.kind === 'container-reported' ? source.corroboratedBy.join('; ') : ''})`;
  } else if (container === undefined && input.node !== undefined) {
    // A node inspection: the host's side only. Steps 1–5 live in each container, so say where to check them
    // rather than list them as unproven.
    verdict = 'unknown';
    const nodeSide = checks.filter((check) => check.step === 6 || check.step === 7).map((check) => check.title);
    summary = `unknown: node side only (${nodeSide.join('; ')}); the container side (steps 1–5) is checked per pod: "Run HAMi Checklist on Pod", or gpumem inspect --pod`;
  } else {
    verdict = 'unknown';
    const open = firstFiveSteps.filter((check) => check.status !== 'pass').map((check) => check.title);
    summary = `unknown: no bypass found, but not proven: ${open.join('; ') || 'missing evidence'}`;
  }
  if (risks.length > 0) summary += ` (risks: ${whatIsWrong(risks).join('; ')})`;
  // The pod spec says "not HAMi" but the container carries HAMi's preload, library, limits or a CUDA process:
  // the evidence decides the verdict, and the summary says the mismatch, since that is what the platform
  // engineer acts on (a hand-made libvgpu.so mount or limit variables, annotations lost, a pod that escaped
  // HAMi's webhook). Without any trace the capture was incomplete, so HAMi's absence is not proven either.
  if (notManaged) {
    summary +=
      gpuProcs.length > 0 || hamiTrace
        ? `; ${NOT_MANAGED}, yet the container has a CUDA process or HAMi traces`
        : "; HAMi does not manage this pod, but the capture is incomplete, so HAMi's absence in the container is not proven";
  }
  return { checks, verdict, summary, source, processes: processVerdicts };
}

/** What each failed check found wrong: its title. A cause two checks see is one failure and one `covered`. */
function whatIsWrong(failed: readonly Check[]): string[] {
  return failed.map((check) => check.title);
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
    reasons.push('static executable: /etc/ld.so.preload is never read');
  } else if (process.exe.kind === 'unknown') {
    reasons.push('executable kind unknown');
  }
  if (process.maps.musl || /ld-musl/.test(process.exe.interpreter ?? '')) {
    bypassed = true;
    reasons.push('runs under musl, whose loader ignores /etc/ld.so.preload');
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

/** The summary without its leading "<verdict>: ", for reports and the inspector that show the verdict beside it. */
export function summaryAfterVerdict(result: Pick<HamiChecklistResult, 'verdict' | 'summary'>): string {
  return result.summary.startsWith(`${result.verdict}: `) ? result.summary.slice(result.verdict.length + 2) : result.summary;
}
