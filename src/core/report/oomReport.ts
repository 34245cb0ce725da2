// A kernel log explained on its own: text, Markdown and JSON.
import { pushAll } from '../arrays.ts';
import type { KernelLogExplanation } from '../verdicts/oom/oomRootCause.ts';
import { gpuTeardownText } from '../verdicts/oom/gpuTeardown.ts';
import { markdownCodeBlock, markdownText, terminalSafe } from '../text/escape.ts';

const ICON = { error: '⛔', warning: '⚠️', info: 'ℹ️' } as const;

export function oomToMarkdown(explanation: KernelLogExplanation, source: string): string {
  const out = [`# OOM kills explained: ${markdownText(source)}`, '', markdownText(explanation.summary.text), ''];
  for (const verdict of explanation.verdicts) {
    out.push(
      `## ${ICON[verdict.severity]} ${markdownText(verdict.title)}`,
      '',
      markdownText(verdict.explanation),
      '',
      `**Remedy:** ${markdownText(verdict.remedy)}`,
      '',
    );
    if (verdict.evidenceLines.length > 0) {
      out.push(
        'Evidence:',
        '',
        markdownCodeBlock(verdict.evidenceLines.map((line) => `${String(line.line).padStart(6)}  ${line.text}`).join('\n')),
        '',
      );
    }
  }
  if (explanation.summary.problems.length > 0)
    pushAll(out, ['## Notes', '', ...explanation.summary.problems.map((problem) => `- ${markdownText(problem)}`), '']);
  return `${out.join('\n')}\n`;
}

export function oomToText(explanation: KernelLogExplanation, source: string): string {
  const clean = (text: string) => terminalSafe(text, 'single-line');
  const out = [`OOM kills explained: ${clean(source)}`, clean(explanation.summary.text), ''];
  for (const verdict of explanation.verdicts) {
    out.push(`${verdict.severity.toUpperCase()} ${clean(verdict.title)}`);
    if (verdict.kind === 'global' && verdict.gpuTeardown) out.push(`  gpu: ${clean(gpuTeardownText(verdict.gpuTeardown))}`);
    out.push(`  remedy: ${clean(verdict.remedy)}`);
    for (const line of verdict.evidenceLines) out.push(`  ${String(line.line).padStart(6)} | ${clean(line.text)}`);
    out.push('');
  }
  for (const problem of explanation.summary.problems) out.push(`note: ${clean(problem)}`);
  return `${out.join('\n')}\n`;
}

export function oomToJson(explanation: KernelLogExplanation, source: string): object {
  return {
    source,
    summary: explanation.summary,
    verdicts: explanation.verdicts.map(({ event: _event, ...verdict }) => verdict),
  };
}
