// OOM root cause: why was this process OOM-killed, and what should change?
//
// Each kill is classified from the kernel's own words (mm/oom_kill.c: dump_oom_summary's `oom-kill:` line, dump_header):
// - memory cgroup: `oom_memcg=`, `constraint=CONSTRAINT_MEMCG`, "Memory cgroup out of memory", or the
//   older "Task in … killed as a result of limit of …". A limit was hit; the limit names the level
//   (container, pod, the whole pod tree, or a system slice).
// - global: `global_oom`, `constraint=CONSTRAINT_NONE` (or a cpuset/mempolicy constraint), "Out of memory".
//   The node ran out; no cgroup limit was hit.
//
// The GTT signature: a global kill of a task inside a pod. The pod was under its own limit, yet the
// node ran out. On unified-memory APUs the usual cause is GPU memory (GTT) that the pod allocated and no
// memory cgroup counts. It grows stronger when the pod's `memory.events` shows `oom_kill` > 0 while
// `max` and `oom` stay 0, and when the report's per-node `gpu_active` (Linux 7.1+) is large.
// Each event gets the verdict of its kind (globalOomVerdict.ts, memcgOomVerdict.ts, unclassifiedOomVerdict.ts; the
// shapes are in oomVerdictTypes.ts), with an id unique in the log.
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';
import type { WorkBudget } from '../../workBudget.ts';
import { BudgetExhausted } from '../../workBudget.ts';
import { gpuTeardownOf, indexFiniLines } from './gpuTeardown.ts';
import { globalVerdict } from './globalOomVerdict.ts';
import { indexPods } from './gttSignature.ts';
import { memcgVerdict } from './memcgOomVerdict.ts';
import type { OomContext, OomVerdict, OomVerdictFacts } from './oomVerdictTypes.ts';
import { victimOf } from './oomVictim.ts';
import { DEFAULT_HEADROOM_PERCENT } from '../../sizing.ts';
import { unknownVerdict } from './unclassifiedOomVerdict.ts';

export interface BudgetedVerdicts {
  readonly verdicts: OomVerdict[];
  readonly outcome: 'complete' | 'stopped-at-budget';
}

/** The verdicts, stopping (and saying so) when the budget runs out. */
export function explainWithinBudget(
  events: readonly OomEvent[],
  context: OomContext | undefined,
  budget: WorkBudget | undefined,
): BudgetedVerdicts {
  const verdicts: OomVerdict[] = [];
  const seen = new Map<string, number>();
  const finiIndex = indexFiniLines(context?.amdgpuVmFini);
  const pods = indexPods(context);
  for (let at = 0; at < events.length; at++) {
    const event = events[at] as OomEvent;
    try {
      // One step per evidence line: the work of a verdict is proportional to its report, whatever the pod count.
      budget?.spend(1 + event.evidence.length);
    } catch (error) {
      if (error instanceof BudgetExhausted) return { verdicts, outcome: 'stopped-at-budget' };
      throw error;
    }
    const victim = victimOf(event, context?.podNames);
    const firstLine = event.evidence[0]?.line ?? 0;
    const nextLine = events[at + 1]?.evidence[0]?.line ?? Number.POSITIVE_INFINITY;
    const teardown = event.scope === 'global' ? gpuTeardownOf(event, finiIndex, nextLine) : undefined;
    const evidenceLines = teardown ? [...event.evidence, { line: teardown.fini.line, text: teardown.fini.text }] : event.evidence;
    const base: OomVerdictFacts = {
      evidence: evidenceLines.map((line) => line.text),
      evidenceLines,
      ...(event.timestamp !== undefined ? { timestamp: event.timestamp } : {}),
      victim,
      missing: event.missing,
      event,
    };
    const unique = (name: string): string => {
      let id = `oom.${name}:${firstLine}`;
      const count = seen.get(id) ?? 0;
      seen.set(id, count + 1);
      if (count > 0) id = `${id}.${count}`;
      return id;
    };
    if (event.scope === 'global') verdicts.push(globalVerdict(event, victim, context, pods, base, teardown, unique));
    else if (event.scope === 'memcg')
      verdicts.push(memcgVerdict(event, victim, unique('memcg'), base, context?.headroomPercent ?? DEFAULT_HEADROOM_PERCENT));
    else verdicts.push(unknownVerdict(event, victim, unique('unclassified'), base));
  }
  return { verdicts, outcome: 'complete' };
}
