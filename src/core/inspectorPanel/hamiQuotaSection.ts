// The node-side HAMi quotas in the inspector's HAMi section: one row per HAMi pod and GPU beside the
// checklist's node-side checks, so the one table answers "which HAMi pods on this node are really limited?".
import type { Inspection } from '../inspectionRun/analyze.ts';
import { formatBytes } from '../sizing.ts';
import type { HamiQuotaRow } from '../verdicts/hami/hamiQuota.ts';
import { QUOTA_IDS, quotaRemedy } from '../verdicts/hami/hamiQuotaWording.ts';
import type { HamiRow, HamiSection } from './viewModelTypes.ts';
import { MAX_EVIDENCE } from './viewModelTypes.ts';

const COMMAND =
  'nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory on the node, each pid joined to its pod by /proc/<pid>/cgroup';

function quotaRow(row: HamiQuotaRow, names: ReadonlyMap<string, string>): HamiRow | undefined {
  const name = names.get(row.podUid) ?? `pod ${row.podUid}`;
  const used = row.usedBytes === undefined ? 'unknown' : formatBytes(row.usedBytes);
  const quota = row.quotaBytes === undefined ? 'unknown' : formatBytes(row.quotaBytes);
  const common = {
    check: `${name}: quota${row.gpu === '—' ? '' : ` on ${row.gpu}`}`,
    command: COMMAND,
    evidence: [...(row.quotaSource ? [row.quotaSource.line] : []), ...row.processes.map((p) => p.evidence), ...row.bypassEvidence].slice(
      0,
      MAX_EVIDENCE,
    ),
    impact: 'bypass' as const,
  };
  switch (row.status.kind) {
    case 'exceeded':
      return {
        ...common,
        id: QUOTA_IDS.exceeded,
        status: 'fail',
        summary: `uses ${used} of its ${quota} quota: not enforced`,
        remedy: quotaRemedy(row, name),
      };
    case 'held':
      return {
        ...common,
        id: QUOTA_IDS.held,
        status: 'pass',
        summary: `uses ${used} of its ${quota} quota, ${formatBytes(row.status.margin)} left`,
        remedy: null,
      };
    case 'unknown':
      return { ...common, id: QUOTA_IDS.unknown, status: 'unknown', summary: row.status.reason, remedy: quotaRemedy(row, name) };
    case 'idle':
      return undefined;
  }
}

/** The checklist section with the quota rows first; a section of its own when the node has no HAMi files but HAMi pods. */
export function withHamiQuotas(section: HamiSection | null, inspection: Inspection): HamiSection | null {
  const rows = (inspection.node?.hamiQuotas ?? []).flatMap((row) => quotaRow(row, inspection.podNames) ?? []);
  if (rows.length === 0) return section;
  if (section) return { ...section, rows: [...rows, ...section.rows] };
  const exceeded = rows.some((row) => row.status === 'fail');
  return {
    verdict: exceeded ? 'bypassed' : 'unknown',
    summary: exceeded ? 'a HAMi pod on this node holds more GPU memory than its quota' : 'HAMi quotas checked from the node',
    provenance: null,
    rows,
  };
}
