// Expands CLI paths into manifest files: directories are walked for *.yaml, *.yml and *.json (the extensions
// `kubectl apply -f DIR` reads), skipping VCS and dependency folders; a directory with no manifest at all is an
// error, since a gate must not pass on a path it read nothing from. Symlinks, as kube-linter and kubeconform
// walk (Go's filepath.Walk): a symlinked directory is not descended into, so a link loop cannot make the walk
// endless; a symlinked file is read only when its target stays inside the directory walked (those tools read it
// wherever it points): a pull request's link to ~/.kube/config or /dev/zero is a manifest-skipped notice, not
// read. Named paths are followed.
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { isKustomizationFileName } from '../core/manifest/kustomization.ts';
import { describeFsError } from '../files/boundedRead.ts';

export const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules', '.hg', '.svn']);
const MANIFEST = /\.(ya?ml|json)$/i;

export interface Expansion {
  /** In the order given, each directory's in name order; "-" once at most. */
  readonly files: string[];
  readonly errors: string[];
  /** Files of a walk that are not read, with why: the lint reports each as a manifest-skipped notice. */
  readonly skipped: Map<string, string>;
  /** Kustomization files the walk met (`Kustomization` too, which has no manifest's name): they say which files are patches. */
  readonly kustomizations: string[];
}

export async function expandPaths(paths: readonly string[]): Promise<Expansion> {
  const files: string[] = [];
  const errors: string[] = [];
  const skipped = new Map<string, string>();
  const kustomizations: string[] = [];
  for (const path of paths) {
    if (path === '-') {
      // Standard input can be read once: a second "-" would wait for an 'end' that has already passed.
      if (!files.includes('-')) files.push('-');
      continue;
    }
    try {
      const info = await stat(path);
      if (info.isDirectory()) {
        const before = files.length;
        await walk(path, await realpath(path), { files, errors, skipped, kustomizations });
        if (files.length === before) errors.push(`${path}: no manifest here (no *.yaml, *.yml or *.json file in it or below it)`);
      } else files.push(path);
    } catch (error) {
      errors.push(`${path}: ${describeError(error)}`);
    }
  }
  return { files, errors, skipped, kustomizations };
}

/** A directory's entries in name order, so what a walk finds, and where a bound cuts it, do not depend on the file system. */
export async function readDirectorySorted(directory: string): Promise<Dirent[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Everything with a manifest's name goes to the reader, which refuses what is not a regular file (a FIFO, a device). */
async function walk(directory: string, root: string, found: Expansion): Promise<void> {
  let entries;
  try {
    entries = await readDirectorySorted(directory);
  } catch (error) {
    found.errors.push(`${directory}: ${describeError(error)}`);
    return;
  }
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(path, root, found);
    } else {
      if (isKustomizationFileName(entry.name) && !entry.isSymbolicLink()) found.kustomizations.push(path);
      if (!MANIFEST.test(entry.name)) continue;
      found.files.push(path);
      if (entry.isSymbolicLink()) {
        const outside = await linkLeaves(path, root);
        if (outside !== undefined) found.skipped.set(path, outside);
      }
    }
  }
}

/** Why a symlink found in a walk is not followed, or undefined when its target is inside the walked directory. */
async function linkLeaves(path: string, root: string): Promise<string | undefined> {
  let target: string;
  try {
    target = await realpath(path);
  } catch (error) {
    return `a symbolic link that cannot be resolved: ${describeFsError(error)}`;
  }
  const inside = root === sep ? sep : `${root}${sep}`;
  return target.startsWith(inside) ? undefined : `a symbolic link to ${target}, outside the directory linted (not followed)`;
}

export function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return (error as Error | undefined)?.message ?? String(error);
}
