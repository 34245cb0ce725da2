// What the probe could not read, as each report states it before its verdicts (see inspectionRun/sight.ts).
import type { Sight } from '../inspectionRun/sight.ts';
import { unknownVerdictsText, unreadOf } from '../inspectionRun/sight.ts';
import { markdownText, terminalSafe } from '../text/escape.ts';

function heading(sight: Sight): string {
  return sight.kind === 'cut-short'
    ? 'ERROR: the capture is cut short; what follows is partial'
    : 'Not read: the verdicts below are incomplete';
}

export function sightText(sight: Sight): string[] {
  const unread = unreadOf(sight);
  if (unread.length === 0) return [];
  const out = [`${heading(sight)}:`];
  for (const input of unread) {
    out.push(
      `  NOT READ ${terminalSafe(input.input, 'single-line')}`,
      `    why: ${terminalSafe(input.why, 'single-line')}`,
      `    unknown: ${unknownVerdictsText(input)}`,
      `    remedy: ${terminalSafe(input.remedy, 'single-line')}`,
    );
  }
  out.push('');
  return out;
}

export function sightMarkdown(sight: Sight): string[] {
  const unread = unreadOf(sight);
  if (unread.length === 0) return [];
  const out =
    sight.kind === 'cut-short'
      ? ['## ⛔ Capture cut short', '', '**Error: the probe did not finish; this report is partial.**', '']
      : ['## ❔ Not read', '', '**The verdicts below are incomplete: the probe could not read these inputs.**', ''];
  for (const input of unread) {
    out.push(
      `- **${markdownText(input.input)}**: ${markdownText(input.why)}.`,
      `  Unknown: ${markdownText(unknownVerdictsText(input))}. Remedy: ${markdownText(input.remedy)}`,
    );
  }
  out.push('');
  return out;
}

/** `{kind, unread: [{input, why, remedy, unknownVerdicts}], nothingToJudge}`: `unknownVerdicts` is "any" when the capture is cut short. */
export function sightJson(sight: Sight): object {
  return {
    kind: sight.kind,
    unread: unreadOf(sight),
    nothingToJudge: sight.kind === 'nothing-to-judge' ? sight.reason : sight.kind === 'partial' ? (sight.nothingToJudge ?? null) : null,
  };
}
