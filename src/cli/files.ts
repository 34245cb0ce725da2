// Expands CLI paths into manifest files: directories are walked for *.yaml / *.yml,
// skipping VCS and dependency folders and never following symlinked directories.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules', '.hg', '.svn']);
const MANIFEST = /\.ya?ml$/i;

export interface Expansion {
  readonly files: string[];
  readonly errors: string[];
}

export async function expandPaths(paths: readonly string[]): Promise<Expansion> {
  const files: string[] = [];
  const errors: string[] = [];
  for (const path of paths) {
    if (path === '-') {
      // Standard input can be read once: a second "-" would wait for an 'end' that has already passed.
      if (!files.includes('-')) files.push('-');
      continue;
    }
    try {
      const info = await stat(path);
      if (info.isDirectory()) await walk(path, files, errors);
      else files.push(path);
    } catch (error) {
      errors.push(`${path}: ${describeError(error)}`);
    }
  }
  return { files, errors };
}

async function walk(directory: string, files: string[], errors: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    errors.push(`${directory}: ${describeError(error)}`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(path, files, errors);
    } else if ((entry.isFile() || entry.isSymbolicLink()) && MANIFEST.test(entry.name)) {
      files.push(path);
    }
  }
}

export function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return (error as Error | undefined)?.message ?? String(error);
}
