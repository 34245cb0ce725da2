// A finding's title and its detail are printed one after the other ("<title>: <detail>"). When the detail begins
// with the clause the title begins with ("6.6 predates 7.1: GPU pages are not counted node-wide" then "6.6 predates
// 7.1: system RAM used by GPU buffers …"), that clause is said once: the detail loses it. Linear, no regex.

/** The clause before the first `: `, when there is one. */
function leadClause(text: string): string | undefined {
  const at = text.indexOf(': ');
  return at > 0 ? text.slice(0, at) : undefined;
}

/** `detail` without what it repeats of `title`: the whole title, or the clause both begin with. */
export function detailAfterTitle(title: string, detail: string): string {
  const trimmed = detail.trimStart();
  if (trimmed.startsWith(title)) {
    const rest = trimmed.slice(title.length).replace(/^[:.;,]? */, '');
    if (rest !== '') return rest;
  }
  const lead = leadClause(title);
  if (lead !== undefined && trimmed.startsWith(`${lead}: `)) {
    const rest = trimmed.slice(lead.length + 2);
    if (rest !== '') return rest;
  }
  return detail;
}

/** A verdict's explanation when it says more than its title; empty when the title already ends with it. */
export function explanationBeyondTitle(title: string, explanation: string): string {
  const rest = detailAfterTitle(title, explanation).trim();
  return rest === '' || title.endsWith(rest) ? '' : explanation;
}
