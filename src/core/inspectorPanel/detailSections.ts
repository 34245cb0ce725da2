// The inspector's detail sections: the OOM timeline (each kill of the kernel log: global or memory cgroup,
// the victim, the evidence lines), the HAMi enforcement checklist, kernel and driver checks, and every
// capture section as raw text.
import type { Inspection } from '../inspectionRun/analyze.ts';
import type { Capture, CaptureSection } from '../probe/capture.ts';
import { formatBytes } from '../sizing.ts';
import { evidenceSourceNote, summaryAfterVerdict } from '../verdicts/hami/hamiChecklist.ts';
import type { Fact, OomRow, OomTimeline, HamiSection, RawSection, InspectorViewModel } from './viewModelTypes.ts';
import { MAX_EVIDENCE } from './viewModelTypes.ts';
import { detailAfterTitle } from '../text/readsOnce.ts';

export function buildOom(inspection: Inspection, names: ReadonlyMap<string, string>): OomTimeline {
  const node = inspection.node;
  if (!node) return { available: false, summary: 'A container capture has no kernel log.', source: null, rows: [] };
  const oom = node.oom;
  if (!oom)
    return {
      available: false,
      summary: 'No kernel log was readable (dmesg needs CAP_SYSLOG; run the probe as root).',
      source: null,
      rows: [],
    };
  const rows = oom.verdicts.map((verdict): OomRow => {
    const victim = verdict.victim;
    const podUid = victim.podUid;
    return {
      id: verdict.id,
      severity: verdict.severity,
      when: verdict.repeats
        ? `${verdict.repeats.count} kills: ${verdict.repeats.first ?? '—'} … ${verdict.repeats.last ?? '—'}`
        : (verdict.timestamp ?? '—'),
      kind: verdict.kind,
      kindLabel:
        verdict.kind === 'global'
          ? `global${verdict.gtt ? ` (GTT signature: ${verdict.gtt.strength})` : ''}`
          : verdict.kind === 'memcg'
            ? `memory cgroup${verdict.limitLevel !== 'unknown' ? ` (${verdict.limitLevel} limit)` : ''}`
            : 'unclassified',
      victim: `${victim.comm ?? '?'}${victim.pid !== undefined ? ` (pid ${victim.pid})` : ''}`,
      pod: victim.podName ?? (podUid !== undefined ? (names.get(podUid) ?? podUid) : '—'),
      podUid: podUid ?? null,
      title: verdict.title,
      remedy: verdict.remedy,
      evidence: verdict.evidenceLines.slice(0, MAX_EVIDENCE).map((line) => ({ line: line.line, text: line.text })),
    };
  });
  return { available: true, summary: oom.summary.text, source: node.model.kernelLog?.source ?? null, rows };
}

export function buildHami(inspection: Inspection): HamiSection | null {
  const hami = inspection.hami;
  if (!hami) return null;
  return {
    verdict: hami.verdict,
    summary: summaryAfterVerdict(hami),
    provenance: evidenceSourceNote(hami.source) ?? null,
    rows: hami.checks.map((check) => ({
      id: check.id,
      status: check.status,
      check: check.title,
      summary: detailAfterTitle(check.title, check.summary),
      command: check.command,
      evidence: check.evidence.slice(0, MAX_EVIDENCE),
      remedy: check.status === 'fail' || check.status === 'unknown' ? check.remedy : null,
      impact: check.impact,
    })),
  };
}

export function buildKernel(inspection: Inspection): InspectorViewModel['kernel'] {
  const node = inspection.node;
  if (!node) return { checks: [], facts: [] };
  const model = node.model;
  const facts: Fact[] = [
    { label: 'Kernel', value: model.kernel ?? '?' },
    { label: 'cgroup', value: model.cgroupMode },
    { label: 'GPUs', value: node.accounting.gpuSummary },
    { label: 'Unified memory', value: node.accounting.unifiedMemory ? 'yes: GPU memory is system RAM' : 'no' },
  ];
  if (model.dmemCapacity.size > 0) {
    facts.push({
      label: 'dmem.capacity',
      value: [...model.dmemCapacity.entries()]
        .map(([region, limit]) => `${region} ${limit.kind === 'bytes' ? formatBytes(limit.bytes) : 'max'}`)
        .join(', '),
    });
  }
  for (const gpu of model.gpus) {
    const parts = [
      gpu.driver ? `driver ${gpu.driver}` : undefined,
      gpu.vramTotal !== undefined ? `VRAM ${formatBytes(gpu.vramUsed ?? 0)} / ${formatBytes(gpu.vramTotal)}` : undefined,
      gpu.gttTotal !== undefined ? `GTT ${formatBytes(gpu.gttUsed ?? 0)} / ${formatBytes(gpu.gttTotal)}` : undefined,
    ].filter((part): part is string => part !== undefined);
    if (parts.length > 0) facts.push({ label: gpu.card, value: parts.join(', ') });
  }
  for (const [module, params] of model.moduleParams) {
    for (const key of ['gttsize', 'pages_limit', 'page_pool_size', 'no_system_mem_limit']) {
      const value = params.get(key);
      if (value !== undefined) facts.push({ label: `${module}.${key}`, value: value.trim() });
    }
  }
  if (model.kubelet) {
    const k = model.kubelet;
    const parts = [
      k.systemReserved !== undefined ? `system-reserved memory ${formatBytes(k.systemReserved)}` : undefined,
      k.kubeReserved !== undefined ? `kube-reserved memory ${formatBytes(k.kubeReserved)}` : undefined,
      k.evictionHard !== undefined ? `evictionHard memory.available<${k.evictionHard}` : undefined,
    ].filter((part): part is string => part !== undefined);
    facts.push({
      label: 'kubelet',
      value: parts.length > 0 ? `${parts.join(', ')} (${k.source})` : `no memory reservations (${k.source})`,
    });
  }
  return {
    checks: node.kernelChecks.map((check) => ({
      id: check.id,
      status: check.status,
      title: check.title,
      detail: detailAfterTitle(check.title, check.detail),
      evidence: check.evidence.slice(0, MAX_EVIDENCE),
      remedy: check.remedy,
    })),
    facts,
  };
}

// ---------------------------------------------------------------------------------------------------
// Raw sections

/** A capture section as readable text: command output as is, each file under a `==> path <==` line. */
export function sectionAsText(section: CaptureSection): string {
  const parts: string[] = [];
  for (const record of section.records) {
    if (record.path === undefined) {
      if (record.body !== '') parts.push(record.body.replace(/\n$/, ''));
    } else {
      parts.push(`==> ${record.path} <==`);
      if (record.body !== '') parts.push(record.body.replace(/\n$/, ''));
    }
  }
  for (const missing of section.missing) parts.push(`(missing: ${missing})`);
  if (section.rc !== undefined) parts.push(`(exit status ${section.rc})`);
  if (!section.complete) parts.push('(the section was cut off)');
  return parts.join('\n');
}

export function buildRaw(capture: Capture, maxChars: number): RawSection[] {
  return [...capture.sections.values()].map((section) => {
    const full = sectionAsText(section);
    const truncated = full.length > maxChars;
    const text = truncated
      ? `${full.slice(0, maxChars)}\n… (${full.length - maxChars} more characters: save the probe capture to see them)`
      : full;
    return { name: section.name, text, lines: text === '' ? 0 : text.split('\n').length, truncated, complete: section.complete };
  });
}
