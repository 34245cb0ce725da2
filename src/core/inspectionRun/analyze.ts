// From a probe capture to an inspection: the typed model plus every verdict, worst first.
import { pushAll } from '../arrays.ts';
import type { Severity } from '../findings.ts';
import { severityRank } from '../findings.ts';
import type { Capture, ProbeScope } from '../probe/capture.ts';
import { CaptureParser, parseCapture, sectionFiles } from '../probe/capture.ts';
import type { FoldedSections, NodeModel } from '../probe/nodeModel.ts';
import { buildNodeModel } from '../probe/nodeModel.ts';
import { buildNvidiaNode } from '../probe/nvidiaNode.ts';
import { FdinfoAggregate } from '../probe/parsers/fdinfo.ts';
import { parseHamiCaches } from '../probe/parsers/hamiCache.ts';
import type { ContainerProbe } from '../probe/parsers/containerProbe.ts';
import { parseContainerProbe } from '../probe/parsers/containerProbe.ts';
import type { HamiChecklistResult, HamiClusterFacts } from '../verdicts/hami/hamiChecklist.ts';
import { evaluateHamiChecklist, evidenceSourceNote } from '../verdicts/hami/hamiChecklist.ts';
import { kernelAlignmentChecks } from '../verdicts/memory/kernelAlignment.ts';
import type { PodCgroupData } from '../verdicts/oom/oomPodCgroups.ts';
import type { KernelLogExplanation } from '../verdicts/oom/oomRootCause.ts';
import { explainKernelLogText } from '../verdicts/oom/oomRootCause.ts';
import type { NodeAccounting, PodAccounting } from '../verdicts/memory/unaccountedMemory.ts';
import { nodeAccounting, podAccounting, unaccountedMemoryVerdicts } from '../verdicts/memory/unaccountedMemory.ts';
import type { KernelCheck, Verdict } from '../verdicts/verdict.ts';
import type { HamiPodQuota, HamiQuotaRow } from '../verdicts/hami/hamiQuota.ts';
import { hamiQuotaRows, hamiQuotaVerdicts } from '../verdicts/hami/hamiQuota.ts';
import type { KernelMemory } from '../verdicts/memory/kernelMemory.ts';
import { kernelMemory, kernelMemoryVerdict, overcommitVerdict } from '../verdicts/memory/kernelMemory.ts';
import type { PodResident } from '../verdicts/memory/podRss.ts';
import { kubepodsPids, podResidentMemory, podRssVerdicts } from '../verdicts/memory/podRss.ts';
import type { DriverDebugfs } from '../verdicts/memory/driverDebugfs.ts';
import { debugfsUnavailableVerdict, driverDebugfs, gttSourcesVerdict, withDebugfsPods } from '../verdicts/memory/driverDebugfs.ts';
import { parseAmdgpuDebugfs } from '../probe/parsers/amdgpuDebugfs.ts';
import type { KfdEvictions } from '../verdicts/eviction/kfdEviction.ts';
import { lifetimeEvictions } from '../verdicts/eviction/kfdEviction.ts';
import { parseKfd } from '../probe/parsers/kfd.ts';
import { dmemProtectionVerdicts, evictionThrashingVerdicts, vramOvercommittedVerdict } from '../verdicts/eviction/vramEviction.ts';
import type { NvidiaAccounting } from '../verdicts/memory/nvidiaPodMemory.ts';
import { nvidiaAccounting, withNvidiaNode, withNvidiaPods } from '../verdicts/memory/nvidiaPodMemory.ts';
import { DEFAULT_HEADROOM_PERCENT } from '../sizing.ts';
import { detailAfterTitle } from '../text/readsOnce.ts';
import type { Sight } from './sight.ts';
import { sightOf } from './sight.ts';

export interface NodeInspection {
  readonly model: NodeModel;
  readonly accounting: NodeAccounting;
  readonly pods: readonly PodAccounting[];
  readonly kernelChecks: readonly KernelCheck[];
  /** OOM kills explained from the node's kernel log. */
  readonly oom: KernelLogExplanation | undefined;
  /** The node's nvidia-smi: GPUs, compute processes per pod and GPU, node processes. */
  readonly nvidia: NvidiaAccounting;
  /** Every HAMi pod on the node: its quota per GPU against what its processes hold. */
  readonly hamiQuotas: readonly HamiQuotaRow[];
  /** The RAM the kernel holds outside the pods' cgroups, by part (undefined without /proc/meminfo). */
  readonly kernel: KernelMemory | undefined;
  /** Per pod, the resident memory of its processes (VmRSS), from the `pod-rss` section. */
  readonly resident: ReadonlyMap<string, PodResident>;
  /** amdgpu's debugfs books (per-client GTT, allocator totals, TTM pool), when the probe looked. */
  readonly driver: DriverDebugfs | undefined;
  /** KFD evictions per process and pod: each total since the process started, over its lifetime (section `kfd`). */
  readonly kfd: KfdEvictions;
}

export interface Inspection {
  readonly target: string;
  readonly scope: ProbeScope | undefined;
  readonly capture: Capture;
  readonly node: NodeInspection | undefined;
  readonly container: ContainerProbe | undefined;
  /** The HAMi enforcement checklist: for a container capture, or a node with HAMi installed. */
  readonly hami: HamiChecklistResult | undefined;
  /** Every verdict, worst first. */
  readonly verdicts: readonly Verdict[];
  /** What the probe could not read, and the verdicts that leaves unknown: every report states it first. */
  readonly sight: Sight;
  readonly problems: readonly string[];
  /** Pod UID → "namespace/name" as the cluster gave them (empty off Kubernetes), for the reports' pod rows. */
  readonly podNames: ReadonlyMap<string, string>;
  /** What the cluster added to the analysis: kept so that a restored panel re-analyses the capture the same way. */
  readonly clusterFacts: ClusterFacts;
  /** The headroom the remedies added and "headroom low" was judged by (AnalyzeOptions.headroomPercent or the default). */
  readonly headroomPercent: number;
}

/** The cluster-side inputs of an analysis (AnalyzeOptions), none when it ran off Kubernetes. */
export interface ClusterFacts {
  readonly hamiQuotas?: ReadonlyMap<string, HamiPodQuota>;
  readonly hamiCluster?: HamiClusterFacts;
}

export interface AnalyzeOptions {
  readonly target: string;
  /** Pod UID → "namespace/name", when the Kubernetes layer knows it. */
  readonly podNames?: ReadonlyMap<string, string>;
  /** Cluster-side facts for the HAMi checklist (device-plugin pods, runtimeClassName…). */
  readonly hamiCluster?: HamiClusterFacts;
  /** A node capture to complete a container inspection (containerd runtime, host HAMi files). */
  readonly nodeCapture?: Capture;
  /** Pod UID → its HAMi allocation (hami.io/vgpu-devices-allocated), when the cluster is known. */
  readonly hamiQuotas?: ReadonlyMap<string, HamiPodQuota>;
  /** The headroom remedies add, in percent: the user's gpumem.lint.headroomPercent or --headroom (default 30). */
  readonly headroomPercent?: number;
}

export function analyzeCaptureText(text: string, options: AnalyzeOptions): Inspection {
  return analyzeCapture(parseCapture(text), options);
}

/**
 * An analysis fed as the probe's output arrives (runProbe's `onOutput`): the capture is parsed as it comes and the fdinfo
 * sweep (6 of a large node's 7 MiB) is folded into the model file by file, so neither is ever held whole. The same
 * result as analyzeCaptureText on the same text, except that the inspection's capture has no fdinfo file records.
 */
export class StreamingAnalysis {
  #fdinfo = new FdinfoAggregate();
  readonly #parser = new CaptureParser({
    fold: new Map([
      [
        'fdinfo',
        {
          begin: () => {
            this.#fdinfo = new FdinfoAggregate();
          },
          file: (path: string, body: string) => this.#fdinfo.addRecord(path, body),
        },
      ],
    ]),
  });

  push(text: string): void {
    this.#parser.push(text);
  }

  finish(options: AnalyzeOptions): Inspection {
    return analyzeCapture(this.#parser.end(), options, { fdinfo: this.#fdinfo });
  }
}

export function analyzeCapture(capture: Capture, options: AnalyzeOptions, folded: FoldedSections = {}): Inspection {
  const verdicts: Verdict[] = [];
  let node: NodeInspection | undefined;
  let container: ContainerProbe | undefined;
  let hami: HamiChecklistResult | undefined;
  let problems = [...capture.problems];
  const headroomPercent = options.headroomPercent ?? DEFAULT_HEADROOM_PERCENT;
  if (capture.scope === 'node') {
    const model = buildNodeModel(capture, folded);
    const kernelChecks = kernelAlignmentChecks(model, headroomPercent);
    const nvidia = nvidiaAccounting(buildNvidiaNode(capture));
    const driver = driverDebugfs(
      parseAmdgpuDebugfs(sectionFiles(capture, 'debugfs'), capture.root),
      model,
      kubepodsPids(capture),
      sectionFiles(capture, 'proc').get(`${capture.root}/proc/cmdline`),
    );
    const pods = withDebugfsPods(withNvidiaPods(podAccounting(model), nvidia), driver, model);
    const accounting = withNvidiaNode(nodeAccounting(model), nvidia);
    const oom = model.kernelLog
      ? explainKernelLogText(model.kernelLog.text, {
          pods: pods.map((pod) => oomPodContext(model, pod)),
          ...(options.podNames ? { podNames: options.podNames } : {}),
          headroomPercent,
          numaNodes: model.numaNodes,
        })
      : undefined;
    if (sectionFiles(capture, 'hami.host').size > 0) {
      hami = evaluateHamiChecklist({ node: capture, ...(options.hamiCluster ? { cluster: options.hamiCluster } : {}) });
    }
    const hamiQuotas = hamiQuotaRows({
      nvidia,
      caches: parseHamiCaches(capture),
      ...(options.hamiQuotas ? { quotas: options.hamiQuotas } : {}),
    });
    const kernel = kernelMemory(model, accounting, driver);
    const resident = podResidentMemory(capture);
    const kfd = lifetimeEvictions(parseKfd(sectionFiles(capture, 'kfd')), model.uptimeSeconds);
    node = { model, accounting, pods, kernelChecks, oom, nvidia, hamiQuotas, kernel, resident, driver, kfd };
    problems = [...model.problems, ...(nvidia.node.kind === 'read' ? nvidia.node.problems : []), ...kfd.problems];
    if (oom?.outcome.kind === 'stopped-at-budget') problems.push(`Kernel log: ${oom.outcome.problem}`);
    pushAll(verdicts, oom?.verdicts ?? []);
    pushAll(verdicts, unaccountedMemoryVerdicts(model, options.podNames, { node: accounting, pods }, headroomPercent));
    for (const verdict of [kernelMemoryVerdict(kernel, headroomPercent), overcommitVerdict(model)]) if (verdict) verdicts.push(verdict);
    pushAll(verdicts, podRssVerdicts(pods, resident, options.podNames));
    const vram = vramOvercommittedVerdict(model, options.podNames);
    if (vram) verdicts.push(vram);
    pushAll(verdicts, evictionThrashingVerdicts(kfd, options.podNames));
    pushAll(verdicts, dmemProtectionVerdicts(model, kfd, options.podNames));
    for (const verdict of [debugfsUnavailableVerdict(driver, model), gttSourcesVerdict(driver, options.podNames)])
      if (verdict) verdicts.push(verdict);
    pushAll(verdicts, hamiQuotaVerdicts(hamiQuotas, options.podNames ?? new Map(), hami?.checks));
    pushAll(verdicts, kernelChecks.filter((check) => check.status === 'fail' || check.status === 'warn').map(kernelCheckToVerdict));
  } else if (capture.scope === 'container') {
    container = parseContainerProbe(capture);
    hami = evaluateHamiChecklist({
      container,
      ...(options.nodeCapture ? { node: options.nodeCapture } : {}),
      ...(options.hamiCluster ? { cluster: options.hamiCluster } : {}),
    });
    pushAll(verdicts, hamiVerdicts(hami));
  }
  return {
    target: options.target,
    scope: capture.scope,
    capture,
    node,
    container,
    hami,
    verdicts: sortVerdicts(verdicts),
    sight: sightOf(capture, node?.model, container),
    problems,
    podNames: options.podNames ?? new Map(),
    clusterFacts: {
      ...(options.hamiQuotas ? { hamiQuotas: options.hamiQuotas } : {}),
      ...(options.hamiCluster ? { hamiCluster: options.hamiCluster } : {}),
    },
    headroomPercent,
  };
}

export function sortVerdicts(verdicts: readonly Verdict[]): Verdict[] {
  return [...verdicts].sort((a, b) => severityRank[b.severity] - severityRank[a.severity]);
}

function oomPodContext(model: NodeModel, pod: PodAccounting): PodCgroupData {
  const limit = pod.limit;
  return {
    podUid: pod.podUid,
    path: pod.cgroupPath,
    memoryEvents: Object.fromEntries(pod.events),
    ...(pod.accounted !== undefined ? { memoryCurrent: pod.accounted } : {}),
    memoryMax: limit === undefined ? { kind: 'max' } : { kind: 'bytes', bytes: limit },
    cgroupVersion: model.cgroupMode === 'v2' ? 2 : 1,
    gttBytes: pod.gtt,
  };
}

function kernelCheckToVerdict(check: KernelCheck): Verdict {
  const severity: Severity = check.status === 'fail' ? 'warning' : 'info';
  return {
    id: check.id,
    severity,
    title: `${check.title}: ${detailAfterTitle(check.title, check.detail)}`,
    explanation: check.detail,
    evidence: check.evidence,
    remedy: check.remedy,
  };
}

/** The HAMi verdict first, then each failed check with its evidence and remedy. */
function hamiVerdicts(result: HamiChecklistResult): Verdict[] {
  const out: Verdict[] = [];
  if (result.verdict === 'not-hami') return [];
  const failed = result.checks.filter((check) => check.status === 'fail');
  if (result.verdict !== 'enforced' || failed.length > 0) {
    out.push({
      id: `hami.${result.verdict}`,
      severity: result.verdict === 'bypassed' ? 'error' : result.verdict === 'unknown' ? 'info' : 'warning',
      title: result.summary,
      explanation: `HAMi enforces GPU memory quotas in user space: libvgpu.so must be preloaded through /etc/ld.so.preload into every process that uses CUDA, with the limit variables in its environment.${evidenceSourceNote(result.source) ? ` ${evidenceSourceNote(result.source)}` : ''}`,
      evidence: result.processes.flatMap((process) => process.evidence).slice(0, 20),
      remedy: failed.map((check) => check.remedy).find(Boolean) ?? 'Run the checklist steps marked unknown by hand, then retry.',
    });
  }
  for (const check of failed) {
    // Check ids are `hami.<step>` (the seed checklist) or `bypass.<case>`: one `hami.` prefix for both.
    out.push({
      id: check.id.startsWith('hami.') ? check.id : `hami.${check.id}`,
      severity: check.impact === 'bypass' ? 'error' : 'warning',
      title: `${check.title}: ${detailAfterTitle(check.title, check.summary)}`,
      explanation: `Checked with: ${check.command}`,
      evidence: check.evidence,
      remedy: check.remedy,
    });
  }
  return out;
}
