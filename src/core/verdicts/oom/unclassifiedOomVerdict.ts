// The verdict on an OOM report too incomplete to classify: none of the lines that tell a global kill from a
// memory-cgroup kill survived in the log.
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';
import type { OomVerdictFacts, UnclassifiedOomVerdict } from './oomVerdictTypes.ts';
import { missingText } from './oomVerdictText.ts';
import type { OomVictim } from './oomVictim.ts';
import { processLabel } from './oomVictim.ts';

export function unknownVerdict(event: OomEvent, victim: OomVictim, id: string, base: OomVerdictFacts): UnclassifiedOomVerdict {
  const who = victim.comm !== undefined || victim.pid !== undefined ? ` (${processLabel(victim)})` : '';
  const invoker = event.invoker
    ? ` It starts with ${event.invoker.comm} invoking the OOM killer (gfp_mask=${event.invoker.gfpMask ?? '?'}, order=${event.invoker.order ?? '?'}).`
    : '';
  return {
    ...base,
    id,
    kind: 'unknown',
    severity: 'warning',
    title: `An OOM report${who} is too incomplete to tell a global kill from a memory-cgroup kill.`,
    explanation: `The log holds part of an OOM killer report but none of the lines that classify it (the oom-kill: summary, the reason line, "Task in …", "memory: usage …").${invoker}${missingText(base.missing)}`,
    remedy:
      'Collect the full kernel log around this time (dmesg, or journalctl -k when dmesg is restricted; the report is rate-limited, so an earlier copy may be complete) and explain it again.',
  };
}
