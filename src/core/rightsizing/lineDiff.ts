// A unified diff of a file before and after the right-sizer's edits, printed before anything is written. The edits
// change few lines, so each hunk is found by walking both texts in step and resynchronising on the next equal
// line within a small distance; linear in the file's length.
import { pushAll } from '../arrays.ts';

const CONTEXT = 2;
const RESYNC = 16;

export function unifiedDiff(name: string, before: string, after: string): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  const out = [`--- a/${name}`, `+++ b/${name}`];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    // A change at (i, j): find the nearest (di, dj) where the texts agree again.
    let next: [number, number] | undefined;
    for (let distance = 1; distance <= RESYNC * 2 && !next; distance++) {
      for (let di = 0; di <= distance && !next; di++) {
        const dj = distance - di;
        if (di <= RESYNC && dj <= RESYNC && i + di < a.length && j + dj < b.length && a[i + di] === b[j + dj]) next = [i + di, j + dj];
      }
    }
    const [ni, nj] = next ?? [a.length, b.length];
    const from = Math.max(0, i - CONTEXT);
    const lead = a.slice(from, i).map((line) => ` ${line}`);
    const removed = a.slice(i, ni).map((line) => `-${line}`);
    const added = b.slice(j, nj).map((line) => `+${line}`);
    const trail = a.slice(ni, Math.min(a.length, ni + CONTEXT)).map((line) => ` ${line}`);
    out.push(
      `@@ -${from + 1},${lead.length + removed.length + trail.length} +${j - (i - from) + 1},${lead.length + added.length + trail.length} @@`,
    );
    for (const part of [lead, removed, added, trail]) pushAll(out, part);
    i = ni;
    j = nj;
  }
  return `${out.join('\n')}\n`;
}
