// An inspection as Markdown (VS Code report, `--format markdown`), plain text and JSON.
// Every string from the target is escaped: a hostile pod or process name renders as text.
import { pushAll } from '../arrays.ts';
import type { Inspection } from '../inspectionRun/analyze.ts';
import { formatBytes } from '../sizing.ts';
import { markdownCodeBlock, markdownText, terminalSafe } from '../text/escape.ts';
import type { KernelCheck, Verdict } from '../verdicts/verdict.ts';
import { evidenceSourceNote, summaryAfterVerdict } from '../verdicts/hami/hamiChecklist.ts';
import { gpuReclaimRows } from '../verdicts/memory/gpuReclaim.ts';
import { driverJson, driverMarkdown, driverText } from './driverReport.ts';
import { evictionJson, evictionMarkdown, evictionText } from './evictionReport.ts';
import { nvidiaJson, nvidiaMarkdown, nvidiaText, podNvidiaJson } from './nvidiaReport.ts';
import { detailAfterTitle, explanationBeyondTitle } from '../text/readsOnce.ts';
import { sightJson, sightMarkdown, sightText } from './sightReport.ts';
import { noVerdictLine } from '../inspectionRun/sight.ts';

const ICON: Record<string, string> = {
  error: '⛔',
  warning: '⚠️',
  info: 'ℹ️',
  pass: '✅',
  fail: '❌',
  warn: '⚠️',
  unknown: '❔',
  covered: '🔗',
};

const bytes = (value: number | undefined) => (value === undefined ? '—' : formatBytes(value));

export function inspectionToMarkdown(inspection: Inspection): string {
  const out: string[] = [`# gpumem inspection: ${markdownText(inspection.target)}`, ''];
  const model = inspection.node?.model;
  if (model) {
    out.push(
      `**Host** ${markdownText(model.hostname ?? '?')} · **kernel** ${markdownText(model.kernel ?? '?')} · **OS** ${markdownText(model.os ?? '?')} · **cgroup** ${model.cgroupMode}`,
      '',
    );
  }
  pushAll(out, sightMarkdown(inspection.sight));
  out.push('## Verdicts', '');
  if (inspection.verdicts.length === 0) out.push(markdownText(noVerdictLine(inspection.sight)), '');
  for (const verdict of inspection.verdicts) pushAll(out, verdictMarkdown(verdict));
  if (inspection.node) {
    const { accounting, pods, kernelChecks } = inspection.node;
    out.push('## Memory accounting (node)', '', '| | bytes |', '| --- | --- |');
    out.push(`| MemTotal | ${bytes(accounting.memTotal)} |`, `| MemAvailable | ${bytes(accounting.memAvailable)} |`);
    out.push(
      `| Pods' memory.current (sum) | ${bytes(accounting.podsAccounted)} |`,
      `| GTT in use (sysfs) | ${bytes(accounting.gttUsed)} |`,
    );
    out.push(`| GPUActive (7.1+) | ${bytes(accounting.gpuActive)} |`);
    for (const [label, value] of gpuReclaimRows(accounting.gpuReclaimCheck, accounting.availableWithReclaim, bytes))
      out.push(`| ${label} | ${value} |`);
    out.push(`| Charged to no cgroup | ${bytes(accounting.unaccounted)} |`, '');
    out.push(
      `GPUs: ${markdownText(accounting.gpuSummary)}${accounting.unifiedMemory ? ' — unified memory (GPU memory is system RAM)' : ''}`,
      '',
    );
    const kernel = inspection.node.kernel;
    if (kernel && kernel.parts.length > 0) {
      out.push('## Kernel memory outside pods', '', '| | held | pods charged | outside pods |', '| --- | --- | --- | --- |');
      for (const part of kernel.parts)
        out.push(
          `| ${markdownText(part.label)}${part.growsWithGpu ? ' (grows with GPU use)' : ''} | ${bytes(part.bytes)} | ${part.chargedToPods === undefined ? 'unknown' : bytes(part.chargedToPods)} | ${bytes(part.outsidePods)} |`,
        );
      out.push(`| **Total** | | | **${bytes(kernel.outsidePods)}** |`, '');
      for (const line of kernel.driverEvidence) out.push(`- ${markdownText(line)}`);
      if (kernel.driverEvidence.length > 0) out.push('');
    }
    if (pods.length > 0) {
      // The debugfs column only where amdgpu_gem_info was read.
      const debugfs = pods.some((pod) => pod.debugfsGtt !== undefined);
      out.push(
        '## Pods',
        '',
        `| Pod | QoS | memory.current | GTT |${debugfs ? ' debugfs GTT |' : ''} VRAM | true footprint | limit | headroom |`,
        `| --- | --- | --- | --- |${debugfs ? ' --- |' : ''} --- | --- | --- | --- |`,
      );
      for (const pod of pods) {
        out.push(
          `| ${markdownText(inspection.podNames.get(pod.podUid) ?? pod.podUid)} | ${markdownText(pod.qos)} | ${bytes(pod.accounted)} | ${bytes(pod.gtt)}${pod.gttSource === 'debugfs' ? ' (debugfs)' : ''} |${debugfs ? ` ${bytes(pod.debugfsGtt)} |` : ''} ${pod.nvidia && pod.nvidia.usedBytes === undefined ? 'unknown' : bytes(pod.vram)} | ${bytes(pod.trueFootprint)} | ${pod.limit === undefined ? 'none' : bytes(pod.limit)} | ${pod.headroom === undefined ? '—' : bytes(pod.headroom)} |`,
        );
      }
      out.push('');
    }
    pushAll(out, driverMarkdown(inspection));
    pushAll(out, evictionMarkdown(inspection));
    pushAll(out, nvidiaMarkdown(inspection));
    out.push('## Kernel, driver and dmem', '');
    for (const check of kernelChecks) pushAll(out, checkMarkdown(check));
    out.push('');
    const oom = inspection.node.oom;
    out.push(
      '## OOM kills',
      '',
      oom ? markdownText(oom.summary.text) : 'No kernel log was readable (dmesg needs CAP_SYSLOG; run the probe as root).',
      '',
    );
    if (oom && oom.summary.victims.length > 0) {
      out.push('| When | Kind | Victim | Pod |', '| --- | --- | --- | --- |');
      for (const victim of oom.summary.victims) {
        out.push(
          `| ${markdownText(victim.timestamp ?? '—')} | ${victim.kind === 'global' ? `global${victim.gtt ? ` (GTT signature: ${victim.gtt})` : ''}` : victim.kind === 'memcg' ? 'memory cgroup' : 'unclassified'} | ${markdownText(victim.comm ?? '?')}${victim.pid !== undefined ? ` (pid ${victim.pid})` : ''} | ${markdownText(victim.podName ?? victim.podUid ?? '—')} |`,
        );
      }
      out.push('');
    }
  }
  if (inspection.hami) {
    const provenance = evidenceSourceNote(inspection.hami.source);
    out.push(
      '## HAMi enforcement checklist',
      '',
      `**${inspection.hami.verdict}** — ${markdownText(summaryAfterVerdict(inspection.hami))}`,
      '',
    );
    if (provenance) out.push(`> ${markdownText(provenance)}`, '');
    out.push('| | Finding | Details | Command |', '| --- | --- | --- | --- |');
    for (const check of inspection.hami.checks) {
      out.push(
        `| ${ICON[check.status] ?? ''} | ${markdownText(check.title)} | ${markdownText(detailAfterTitle(check.title, check.summary))} | \`${tableCode(check.command)}\` |`,
      );
    }
    out.push('');
  }
  if (inspection.problems.length > 0) {
    pushAll(out, ['## Capture problems', '', ...inspection.problems.map((problem) => `- ${markdownText(problem)}`), '']);
  }
  return `${out.join('\n')}\n`;
}

/** A command in a table cell's code span: backticks would end the span, and GFM splits cells at a bare `|` even there. */
function tableCode(command: string): string {
  return command.replace(/`/g, "'").replace(/\|/g, '\\|');
}

function verdictMarkdown(verdict: Verdict): string[] {
  const lines = [
    `### ${ICON[verdict.severity] ?? ''} ${markdownText(verdict.title)}`,
    '',
    ...(explanationBeyondTitle(verdict.title, verdict.explanation) === '' ? [] : [markdownText(verdict.explanation), '']),
    `**Remedy:** ${markdownText(verdict.remedy)}`,
    '',
  ];
  if (verdict.evidence.length > 0)
    lines.push('<details><summary>Evidence</summary>', '', markdownCodeBlock(verdict.evidence.join('\n')), '', '</details>', '');
  lines.push(`<sub>${markdownText(verdict.id)}</sub>`, '');
  return lines;
}

function checkMarkdown(check: KernelCheck): string[] {
  const lines = [
    `- ${ICON[check.status] ?? ''} **${markdownText(check.title)}** — ${markdownText(detailAfterTitle(check.title, check.detail))}`,
  ];
  if (check.status === 'fail' || check.status === 'warn') lines.push(`  - Remedy: ${markdownText(check.remedy)}`);
  return lines;
}

export function inspectionToText(inspection: Inspection): string {
  const out: string[] = [`gpumem inspection: ${oneLine(inspection.target)}`];
  const model = inspection.node?.model;
  if (model) out.push(`host ${oneLine(model.hostname ?? '?')}, kernel ${oneLine(model.kernel ?? '?')}, cgroup ${model.cgroupMode}`);
  out.push('');
  pushAll(out, sightText(inspection.sight));
  if (inspection.verdicts.length === 0) out.push(oneLine(noVerdictLine(inspection.sight)));
  for (const verdict of inspection.verdicts) {
    out.push(`${verdict.severity.toUpperCase()} [${verdict.id}] ${oneLine(verdict.title)}`, `  remedy: ${oneLine(verdict.remedy)}`);
    for (const line of verdict.evidence.slice(0, 8)) out.push(`  | ${oneLine(line)}`);
  }
  if (inspection.hami) {
    out.push('', `HAMi enforcement: ${inspection.hami.verdict}: ${oneLine(summaryAfterVerdict(inspection.hami))}`);
    const provenance = evidenceSourceNote(inspection.hami.source);
    if (provenance) out.push(`  ${oneLine(provenance)}`);
    for (const check of inspection.hami.checks)
      out.push(`  ${check.status.padEnd(7)} ${oneLine(check.title)}: ${oneLine(detailAfterTitle(check.title, check.summary))}`);
  }
  pushAll(out, nvidiaText(inspection));
  if (inspection.node?.oom) out.push('', `OOM kills: ${oneLine(inspection.node.oom.summary.text)}`);
  const kernel = inspection.node?.kernel;
  if (kernel && kernel.parts.length > 0) {
    out.push('', `kernel memory outside pods: ${formatBytes(kernel.outsidePods)}`);
    for (const part of kernel.parts) out.push(`  ${oneLine(part.label).padEnd(12)} ${formatBytes(part.outsidePods)}`);
  }
  pushAll(out, driverText(inspection));
  pushAll(out, evictionText(inspection));
  if (inspection.node) {
    out.push('', 'kernel, driver and dmem:');
    for (const check of inspection.node.kernelChecks)
      out.push(`  ${check.status.padEnd(7)} ${oneLine(check.title)}: ${oneLine(detailAfterTitle(check.title, check.detail))}`);
  }
  for (const problem of inspection.problems) out.push(`note: ${oneLine(problem)}`);
  return `${out.join('\n')}\n`;
}

/** Control characters from a hostile target must not reach a terminal. */
function oneLine(text: string): string {
  return terminalSafe(text, 'single-line');
}

export function inspectionToJson(inspection: Inspection): object {
  const node = inspection.node;
  return {
    target: inspection.target,
    scope: inspection.scope ?? null,
    sight: sightJson(inspection.sight),
    // OOM verdicts carry the parser's raw event; like explain-oom's JSON, keep only the verdict.
    verdicts: inspection.verdicts.map((verdict) => {
      const { event: _event, ...rest } = verdict as Verdict & { event?: unknown };
      return rest;
    }),
    node: node
      ? {
          hostname: node.model.hostname ?? null,
          kernel: node.model.kernel ?? null,
          os: node.model.os ?? null,
          cgroupMode: node.model.cgroupMode,
          accounting: node.accounting,
          pods: node.pods.map((pod) => ({
            ...pod,
            resident: node.resident.get(pod.podUid) ?? null,
            podName: inspection.podNames.get(pod.podUid) ?? null,
            events: Object.fromEntries(pod.events),
            nvidia: podNvidiaJson(pod.nvidia),
          })),
          ...nvidiaJson(node),
          kernelChecks: node.kernelChecks,
          kernelMemory: node.kernel ?? null,
          debugfs: driverJson(inspection),
          kfdEvictions: evictionJson(inspection),
          vm: Object.fromEntries(node.model.vmSysctl),
          gpus: node.model.gpus,
          oom: node.oom ? node.oom.summary : null,
        }
      : null,
    hami: inspection.hami ?? null,
    problems: inspection.problems,
    complete: inspection.capture.complete,
  };
}
