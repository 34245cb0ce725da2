// The OOM root-cause verdicts' shapes (oomVerdicts.ts makes them): one per kill, global, memory-cgroup or
// unclassified, with the GTT signature a global kill inside a pod may carry.
import type { Severity } from '../../findings.ts';
import type { AmdgpuMemoryLine } from '../../probe/parsers/amdgpuBoot.ts';
import type { AmdgpuVmFiniLine } from '../../probe/parsers/amdgpuVmFini.ts';
import type { EvidenceLine, OomEvent } from '../../probe/parsers/oomReportLines.ts';
import type { GpuTeardown } from './gpuTeardown.ts';
import type { NumaNodeMemory } from '../../probe/parsers/numaMeminfo.ts';
import type { PodCgroupData } from './oomPodCgroups.ts';
import type { OomVictim, PodNames } from './oomVictim.ts';
import type { Verdict } from '../verdict.ts';

/** The kills one verdict stands for (oomRepeats.ts groups kills alike). */
export interface OomRepeats {
  /** All of them, the first included. */
  readonly count: number;
  /** Timestamps as the log writes them (undefined when the lines carry none). */
  readonly first?: string;
  readonly last?: string;
  /** The first log line of each kill, in log order. */
  readonly lines: readonly number[];
}

/** What the node probe adds to the log. */
export interface OomContext {
  /** Per-pod cgroup data, e.g. from podCgroupDataFromFiles (oomPodCgroups.ts). */
  readonly pods?: Iterable<PodCgroupData>;
  /** Pod UID → display name (`namespace/name`). */
  readonly podNames?: PodNames;
  /** amdgpu boot lines (GTT size), from the same kernel log. */
  readonly amdgpu?: readonly AmdgpuMemoryLine[];
  /** amdgpu "VM memory stats … non-zero when fini" lines, from the same kernel log. */
  readonly amdgpuVmFini?: readonly AmdgpuVmFiniLine[];
  /** The headroom remedies add over what was used or hit, in percent (the user's; default DEFAULT_HEADROOM_PERCENT). */
  readonly headroomPercent?: number;
  /** Per-NUMA-node memory when the probe ran (its `numa` section), for kills confined to some NUMA nodes. */
  readonly numaNodes?: readonly NumaNodeMemory[];
}

export type GttStrength = 'possible' | 'likely' | 'strong';

export interface GttSignature {
  readonly strength: GttStrength;
  /** What supports the signature, in words. */
  readonly factors: readonly string[];
  /** What speaks against it. */
  readonly against: readonly string[];
  readonly gpuActiveKb?: number;
  readonly memoryEvents?: Readonly<Record<string, number>>;
  /** GTT size from the amdgpu boot lines, MiB. */
  readonly gttMiB?: number;
}

/** The level of the cgroup whose limit a memory-cgroup kill hit. */
export type MemcgLimitLevel = 'container' | 'pod' | 'qos' | 'kubepods' | 'outside-kubepods' | 'unknown';
export interface OomVerdictBase extends Verdict {
  /** `oom.global-gtt:<line>`, `oom.global:<line>`, `oom.memcg:<line>`, `oom.unclassified:<line>` (the report's first line). */
  readonly id: string;
  readonly severity: Severity;
  /** One sentence. */
  readonly title: string;
  readonly explanation: string;
  /** The log lines the verdict rests on, verbatim. */
  readonly evidence: readonly string[];
  /** The same lines with their 1-based line numbers. */
  readonly evidenceLines: readonly EvidenceLine[];
  readonly remedy: string;
  readonly timestamp?: string;
  readonly victim: OomVictim;
  /** Parts of the kernel report that were not in the log. */
  readonly missing: readonly string[];
  readonly event: OomEvent;
  /** Present when this verdict stands for several kills alike (oomRepeats.ts): how many, the first and the last. */
  readonly repeats?: OomRepeats;
}

/** What every OOM verdict carries before its kind adds the words: evidence, victim, missing parts, the event. */
export type OomVerdictFacts = Omit<OomVerdictBase, 'id' | 'severity' | 'title' | 'explanation' | 'remedy'>;

export interface GlobalOomVerdict extends OomVerdictBase {
  readonly kind: 'global';
  readonly constraint?: string;
  /** Present when the victim was in a pod: a pod under its own limit died in a global OOM. */
  readonly gtt?: GttSignature;
  /** The victim's RSS was tiny and amdgpu tore down its GPU VM with memory in it (in a pod or not). */
  readonly gpuTeardown?: GpuTeardown;
}

export interface MemcgOomVerdict extends OomVerdictBase {
  readonly kind: 'memcg';
  readonly oomMemcg?: string;
  readonly limitLevel: MemcgLimitLevel;
  readonly usageKb?: number;
  readonly limitKb?: number;
}

export interface UnclassifiedOomVerdict extends OomVerdictBase {
  readonly kind: 'unknown';
}

export type OomVerdict = GlobalOomVerdict | MemcgOomVerdict | UnclassifiedOomVerdict;
