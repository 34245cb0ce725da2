// Each cause once in the checklist. Some checks see the same cause from another side (CUDA_DISABLE_CONTROL
// in step 1's env and in each process's environ; the loader's complaint in the preload check and in the
// logs): a failing check names, in `sameCauseAs`, the earlier checks that report its cause. When one of
// those failed too, this one becomes `covered` by it: its evidence stays, its finding is not repeated.
import type { Check } from './hamiCheck.ts';

export function coverSameCauses(checks: readonly Check[]): Check[] {
  const resolved = new Map<string, Check>();
  const out: Check[] = [];
  for (const check of checks) {
    const next = check.status === 'fail' ? cover(check, resolved) : check;
    resolved.set(next.id, next);
    out.push(next);
  }
  return out;
}

function cover(check: Check & { status: 'fail' }, resolved: ReadonlyMap<string, Check>): Check {
  for (const id of check.sameCauseAs ?? []) {
    const other = resolved.get(id);
    if (other === undefined) continue;
    // A covered check points at the check that names the cause, so a chain ends at one failure.
    const root = other.status === 'covered' ? resolved.get(other.coveredBy) : other;
    if (root?.status !== 'fail') continue;
    const { remedy: _remedy, sameCauseAs: _sameCauseAs, ...rest } = check;
    return {
      ...rest,
      status: 'covered',
      coveredBy: root.id,
      title: `the same cause as ${root.step !== undefined ? `step ${root.step}` : `the check of ${root.subject}`}, counted there`,
      summary: check.summary,
    };
  }
  return check;
}
