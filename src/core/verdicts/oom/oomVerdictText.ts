// Sentences every OOM verdict kind shares: how the kill was classified, who started the report, what the log
// lacks. The headroom the remedies size limits with is the user's (OomContext.headroomPercent, sizing.ts).
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';
import type { OomVictim } from './oomVictim.ts';

export function scopeEvidenceText(event: OomEvent): string {
  switch (event.scopeSource) {
    case 'summary':
      return event.scope === 'memcg'
        ? `The summary line names the cgroup that ran out: oom_memcg=${event.oomMemcg ?? '?'} (constraint=${event.constraint ?? '?'}).`
        : `The summary line says global_oom (constraint=${event.constraint ?? '?'}): no cgroup limit was involved.`;
    case 'constraint':
      return `The summary line says constraint=${event.constraint ?? '?'}.`;
    case 'reason':
      return event.scope === 'memcg'
        ? 'The kernel gave the reason "Memory cgroup out of memory".'
        : 'The kernel gave the reason "Out of memory" (the global OOM killer).';
    case 'legacy-task-in':
      return 'The older "Task in … killed as a result of limit of …" line (kernels before 4.19) is printed only for memory-cgroup kills.';
    case 'memcg-usage':
      return 'The report prints a "memory: usage …, limit …" line, which only memory-cgroup kills have.';
    case 'call-trace':
      return event.scope === 'memcg'
        ? 'Only the call trace is left: it goes through mem_cgroup_out_of_memory, the memory-cgroup path (a weak hint).'
        : 'Only the call trace is left: it goes through the page allocator without mem_cgroup_out_of_memory, the global path (a weak hint).';
    default:
      return '';
  }
}

export function invokerText(event: OomEvent, victim: OomVictim): string {
  if (!event.invoker || victim.comm !== undefined || victim.pid !== undefined) return '';
  return ` The report was started by ${event.invoker.comm} asking for memory (gfp_mask=${event.invoker.gfpMask ?? '?'}, order=${event.invoker.order ?? '?'}); the log ends before it names the victim.`;
}

export function missingText(missing: readonly string[]): string {
  return missing.length > 0 ? ` Not in the log: ${missing.join('; ')}.` : '';
}
