// `gpumem recommend --apply DIR`: every YAML file under DIR is read (bounded, links kept inside DIR), each workload's
// change applied to the files that hold it, the diff of every changed file printed, and only then the files written.
// A file that cannot be read or parsed is named and left alone.
import { readBoundedText } from '../files/boundedRead.ts';
import { editManifest } from '../core/rightsizing/manifestEdit.ts';
import type { WorkloadChange } from '../core/rightsizing/changes.ts';
import { unifiedDiff } from '../core/rightsizing/lineDiff.ts';
import { terminalSafe } from '../core/text/escape.ts';
import { expandPaths } from './files.ts';
import type { CliIo } from './io.ts';

export type ApplyResult = { readonly kind: 'applied'; readonly files: number } | { readonly kind: 'failed' };

type Write = (path: string, text: string) => Promise<void>;

export async function applyToDirectory(dir: string, changes: readonly WorkloadChange[], io: CliIo, write: Write): Promise<ApplyResult> {
  const expansion = await expandPaths([dir]);
  for (const error of expansion.errors) io.stderr(`gpumem recommend --apply: ${error}\n`);
  if (expansion.errors.length > 0 && expansion.files.length === 0) return { kind: 'failed' };
  const edited = new Map<string, { before: string; after: string }>();
  const found = new Set<WorkloadChange>();
  for (const file of expansion.files) {
    if (file === '-') continue;
    const read = await readBoundedText(file, { kind: 'manifest' });
    if (read.kind !== 'read') {
      io.stderr(`gpumem recommend --apply: ${file}: ${read.reason}\n`);
      continue;
    }
    let text = read.text;
    for (const change of changes) {
      const outcome = editManifest(text, change);
      if (!outcome.found) continue;
      found.add(change);
      for (const skipped of outcome.skipped) io.stderr(terminalSafe(`gpumem recommend --apply: ${file}: ${skipped}\n`));
      text = outcome.text;
    }
    if (text !== read.text) edited.set(file, { before: read.text, after: text });
  }
  for (const change of changes) {
    if (!found.has(change))
      io.stderr(terminalSafe(`gpumem recommend --apply: no manifest under ${dir} holds ${change.ref.kind} ${change.ref.name}\n`));
  }
  // The whole diff first, then the writes.
  for (const [file, { before, after }] of edited) io.stdout(terminalSafe(unifiedDiff(file, before, after)));
  for (const [file, { after }] of edited) await write(file, after);
  io.stderr(`gpumem recommend --apply: ${edited.size} file(s) written\n`);
  return { kind: 'applied', files: edited.size };
}
