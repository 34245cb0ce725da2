// Repeated kills as one verdict: a container in a crash loop is killed at its limit again and again, and thirty full
// remedies hide the one thing to do. Kills of the same kind, the same victim (process name, pod or cgroup) and the same
// limit level become one verdict that says how many there were and when the first and the last happened. The
// container id changes with every restart, so it is not part of what makes two kills the same.
import type { OomRepeats, OomVerdict } from './oomVerdictTypes.ts';

/** What makes two kills alike; undefined when the log does not say where the victim ran (then no two are alike). */
function sameKillKey(verdict: OomVerdict): string | undefined {
  const victim = verdict.victim;
  const where = victim.podUid ?? victim.taskMemcg ?? verdict.event.oomMemcg;
  if (where === undefined) return undefined;
  const level = verdict.kind === 'memcg' ? verdict.limitLevel : verdict.kind === 'global' ? (verdict.gtt?.strength ?? '-') : '-';
  const name = verdict.id.slice(0, verdict.id.indexOf(':'));
  return JSON.stringify([name, verdict.severity, victim.comm ?? `pid ${victim.pid ?? '?'}`, where, level]);
}

function withRepeats(first: OomVerdict, all: readonly OomVerdict[]): OomVerdict {
  const last = all[all.length - 1] ?? first;
  const lines = all.map((verdict) => verdict.evidenceLines[0]?.line ?? 0);
  const repeats: OomRepeats = {
    count: all.length,
    ...(first.timestamp !== undefined ? { first: first.timestamp } : {}),
    ...(last.timestamp !== undefined ? { last: last.timestamp } : {}),
    lines,
  };
  const when =
    repeats.first !== undefined && repeats.last !== undefined
      ? `first at ${repeats.first}, last at ${repeats.last}`
      : `first at line ${lines[0] ?? '?'}, last at line ${lines[lines.length - 1] ?? '?'}`;
  const title = `${first.title.replace(/\.$/, '')} (${all.length} such kills, ${when}).`;
  const explanation = `The log holds ${all.length} kills like this one (${when}); this verdict stands for all of them and shows the first one's evidence. ${first.explanation}`;
  return { ...first, title, explanation, repeats };
}

/** The verdicts with repeats folded into their first occurrence, in log order of first occurrence. */
export function groupRepeatedKills(verdicts: readonly OomVerdict[]): OomVerdict[] {
  const groups = new Map<string, OomVerdict[]>();
  for (const [at, verdict] of verdicts.entries()) {
    const key = sameKillKey(verdict) ?? `#${at}`;
    const group = groups.get(key);
    if (group) group.push(verdict);
    else groups.set(key, [verdict]);
  }
  return [...groups.values()].map((group) => (group.length === 1 ? (group[0] as OomVerdict) : withRepeats(group[0] as OomVerdict, group)));
}
