// Kustomize in the CLI. Without --kustomize: the kustomizations beside and among the linted files say which files are
// patches (judged for what they set, core/kustomizePatch.ts). With --kustomize DIR: `kubectl kustomize DIR` renders the
// overlay (an argument vector, never a shell string; a timeout; output bounded by --max-file-size) and the rendered
// objects are linted, their findings placed at DIR's kustomization file, since kustomize's output says nothing of
// where each object came from.
import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pushAll } from '../core/arrays.ts';
import type { Finding } from '../core/findings.ts';
import { LineIndex } from '../core/lineIndex.ts';
import { KUSTOMIZATION_FILE_NAMES, KustomizePatchIndex, isKustomizationFileName } from '../core/manifest/kustomization.ts';
import { readBoundedText } from '../files/boundedRead.ts';
import { runKustomize } from '../transports/kustomizeRender.ts';
import { SKIPPED_DIRECTORIES, readDirectorySorted } from './files.ts';

/** Directories read, at the most, when a named file's repository is searched for kustomizations. */
const REPOSITORY_SEARCH_DIRECTORIES = 5_000;
/** Levels climbed, at the most, from a named file to its repository's root. */
const REPOSITORY_SEARCH_LEVELS = 32;

export interface PatchIndexResult {
  readonly index: KustomizePatchIndex;
  /** A repository searched only in part (too many directories): its patches beyond may be linted as whole objects. */
  readonly incomplete: readonly string[];
}

/**
 * The kustomizations that can list the given files as patches: those the walk met, those beside the files, and, for
 * files named one by one (as pre-commit passes a commit's files), every kustomization of their git repository: an
 * overlay often lists a patch kept elsewhere (`../../base/patches/x.yaml`).
 */
export async function patchIndexFor(
  files: readonly string[],
  walked: readonly string[],
  named: ReadonlySet<string> = new Set(),
): Promise<PatchIndexResult> {
  const index = new KustomizePatchIndex();
  const seen = new Set<string>();
  const candidates: string[] = [...walked];
  const incomplete: string[] = [];
  for (const directory of new Set(files.filter((file) => file !== '-').map((file) => dirname(file))))
    for (const name of KUSTOMIZATION_FILE_NAMES) candidates.push(join(directory, name));
  const repositories = new Set<string>();
  for (const file of files) {
    if (file === '-' || !named.has(file)) continue;
    const root = await repositoryRoot(resolve(dirname(file)));
    if (root !== undefined) repositories.add(root);
  }
  for (const root of repositories) {
    const search = await kustomizationsBelow(root);
    pushAll(candidates, search.found);
    if (!search.complete) incomplete.push(root);
  }
  for (const candidate of candidates) {
    const absolute = resolve(candidate);
    if (seen.has(absolute)) continue;
    seen.add(absolute);
    const read = await readBoundedText(absolute, { kind: 'config' });
    if (read.kind === 'read') index.add(absolute, read.text, candidate);
  }
  return { index, incomplete };
}

/** The nearest directory at or above `directory` that holds `.git`, or undefined (not in a repository). */
async function repositoryRoot(directory: string): Promise<string | undefined> {
  let current = directory;
  for (let level = 0; level < REPOSITORY_SEARCH_LEVELS; level++) {
    if (await stat(join(current, '.git')).catch(() => undefined)) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return undefined;
}

/**
 * Kustomization files below `root` by name (none is read here), breadth first, skipping what the walk skips and not
 * descending into symlinked directories; at most REPOSITORY_SEARCH_DIRECTORIES directories, since a monorepo can be large.
 */
async function kustomizationsBelow(root: string): Promise<{ found: string[]; complete: boolean }> {
  const found: string[] = [];
  const queue = [root];
  for (let next = 0; next < queue.length; next++) {
    if (next >= REPOSITORY_SEARCH_DIRECTORIES) return { found, complete: false };
    const directory = queue[next] ?? root;
    const entries = await readDirectorySorted(directory).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) queue.push(join(directory, entry.name));
      } else if (entry.isFile() && isKustomizationFileName(entry.name)) found.push(join(directory, entry.name));
    }
  }
  return { found, complete: true };
}

/** The kustomization file of a directory named to --kustomize (or the file itself), kustomize's first name first. */
export async function kustomizationOf(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if (info.isFile()) return isKustomizationFileName(basename(path)) ? path : undefined;
    for (const name of KUSTOMIZATION_FILE_NAMES) {
      const candidate = join(path, name);
      if ((await stat(candidate).catch(() => undefined))?.isFile()) return candidate;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export type Rendered =
  | { readonly kind: 'rendered'; readonly text: string }
  | { readonly kind: 'no-kubectl'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'too-large'; readonly reason: string };

/** `kubectl kustomize <directory>`, bounded in time and output (src/transports/kustomizeRender.ts), worded for the CLI. */
export async function renderOverlay(directory: string, maxBytes: number, cwd: string): Promise<Rendered> {
  const outcome = await runKustomize({ directory, maxBytes, cwd });
  switch (outcome.kind) {
    case 'rendered':
    case 'failed':
      return outcome;
    case 'too-large':
      return { kind: 'too-large', reason: `the rendered overlay is larger than the size limit (--max-file-size); it was not analysed` };
    case 'no-kubectl':
      return {
        kind: 'no-kubectl',
        reason: `--kustomize runs kubectl kustomize, and kubectl could not be started (${outcome.detail}); install kubectl, or lint without --kustomize to judge the patches for what they set`,
      };
    case 'cancelled':
      return { kind: 'failed', reason: 'kubectl kustomize was cancelled' };
  }
}

/**
 * A finding of the rendered overlay, placed at the start of the kustomization file (kustomize's output keeps no trace
 * of each object's source file) and naming the rendered line, which `kubectl kustomize DIR` shows.
 */
export function placeRendered(findings: readonly Finding[], rendered: string, directory: string): Finding[] {
  const lines = new LineIndex(rendered);
  return findings.map((finding) => ({
    ...finding,
    span: { start: 0, end: 0 },
    message: `${finding.message} [in the overlay rendered by kubectl kustomize ${directory}, line ${lines.position(finding.span.start).line}]`,
  }));
}
