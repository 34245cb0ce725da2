// The name an export is offered under in the save dialog: what it is of, reduced to characters every file system
// takes, and when it was made, so two exports of the same panel never overwrite each other unasked.

/** `<prefix><label>-<yyyymmdd-hhmmss>` (UTC), the label cut to 60 safe characters, `fallback` when none is left. */
export function exportFileStem(prefix: string, label: string, fallback: string, now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, '')
    .replace('T', '-');
  const name =
    label
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || fallback;
  return `${prefix}${name}-${stamp}`;
}
