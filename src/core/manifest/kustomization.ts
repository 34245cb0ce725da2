// Kustomize's patch files: a kustomization names them under `patchesStrategicMerge:`, `patches:` (`path:`) and
// `patchesJson6902:` (kubernetes-sigs/kustomize api/types/kustomization.go). A patch is a partial object (strategic
// merge) or a list of operations (RFC 6902), never a workload on its own: the lint judges a strategic-merge patch only
// for what it sets, and reads a JSON patch as no Kubernetes object at all. Paths here are '/'-separated, as the CLI
// (POSIX) and VS Code's URI paths give them.
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node } from 'yaml';

/** The names kustomize looks for in a directory, in its order (konfig.RecognizedKustomizationFileNames). */
export const KUSTOMIZATION_FILE_NAMES: readonly string[] = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export type PatchField = 'patchesStrategicMerge' | 'patches' | 'patchesJson6902';

/** How a file was listed by a kustomization: what the lint needs to read it as a patch. */
export interface KustomizePatchRole {
  /** The kustomization file that lists it, as the caller names it (for the note). */
  readonly kustomization: string;
  readonly field: PatchField;
  /** A patch written inline in the kustomization (`patch: |`), not a file it lists. */
  readonly inline?: boolean;
  /** The objects the kustomization applies it to (its entry's `target:`), when it says. */
  readonly target?: PatchTarget;
  /** The partial object one JSON 6902 operation writes (kustomizeJsonPatch.ts), judged as a strategic-merge patch. */
  readonly operation?: boolean;
}

/** A patch entry's `target:` (kustomize's Selector), the fields that tell what object the patch is applied to. */
export interface PatchTarget {
  readonly kind?: string;
  readonly name?: string;
  /** `group/version`, or `version` for the core group, when the target names a version. */
  readonly apiVersion?: string;
}

export interface ListedPatch {
  readonly path: string;
  readonly field: PatchField;
  readonly target?: PatchTarget;
}

/** A kustomization larger than this is not read for patches (real ones are a few KiB). */
const MAX_KUSTOMIZATION_CHARS = 1024 * 1024;
const MAX_ENTRIES = 10_000;

export function isKustomizationFileName(name: string): boolean {
  return KUSTOMIZATION_FILE_NAMES.includes(name);
}

/** The patch files a kustomization lists; inline patches (`patch:`, a multi-line entry) are not files. */
export function listedPatches(text: string): ListedPatch[] {
  if (text.length > MAX_KUSTOMIZATION_CHARS) return [];
  let root: Node | null;
  try {
    const doc = parseDocument(text, { logLevel: 'silent', uniqueKeys: false });
    if (doc.errors.length > 0) return [];
    root = doc.contents as Node | null;
  } catch {
    return [];
  }
  if (!isMap(root)) return [];
  const out: ListedPatch[] = [];
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? pair.key.value : undefined;
    if (key !== 'patchesStrategicMerge' && key !== 'patches' && key !== 'patchesJson6902') continue;
    if (!isSeq(pair.value)) continue;
    for (const item of pair.value.items.slice(0, MAX_ENTRIES)) {
      const path = isScalar(item) ? item.value : isMap(item) ? item.get('path') : undefined;
      // A string entry holding a newline is an inline patch (patchesStrategicMerge allows one), not a file name.
      if (typeof path !== 'string' || path.trim() === '' || path.includes('\n')) continue;
      const target = isMap(item) ? targetOf(item.get('target')) : undefined;
      out.push({ path: path.trim(), field: key, ...(target ? { target } : {}) });
    }
  }
  return out;
}

const MAX_TARGET_FIELD = 253;

function targetOf(node: unknown): PatchTarget | undefined {
  if (!isMap(node)) return undefined;
  const field = (name: string): string | undefined => {
    const value = node.get(name);
    return typeof value === 'string' && value !== '' && value.length <= MAX_TARGET_FIELD ? value : undefined;
  };
  const kind = field('kind');
  const name = field('name');
  const group = field('group');
  const version = field('version');
  const apiVersion = version === undefined ? undefined : group === undefined ? version : `${group}/${version}`;
  if (kind === undefined && name === undefined && apiVersion === undefined) return undefined;
  return {
    ...(kind !== undefined ? { kind } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(apiVersion !== undefined ? { apiVersion } : {}),
  };
}

/** Where a path listed by a kustomization in `directory` points; undefined for a URL (a remote patch). */
export function resolveListedPath(directory: string, listed: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(listed)) return undefined;
  const joined = listed.startsWith('/') ? listed : `${directory}/${listed}`;
  const parts: string[] = [];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** The patch files of every kustomization read, by their absolute '/'-path: what the lint looks each file up in. */
export class KustomizePatchIndex {
  readonly #roles = new Map<string, KustomizePatchRole>();

  /** `file` is the kustomization's absolute '/'-path; `shown` how reports name it. */
  add(file: string, text: string, shown: string = file): void {
    const directory = file.slice(0, Math.max(0, file.lastIndexOf('/'))) || '/';
    for (const { path, field, target } of listedPatches(text)) {
      const resolved = resolveListedPath(directory, path);
      if (resolved !== undefined && !this.#roles.has(resolved))
        this.#roles.set(resolved, { kustomization: shown, field, ...(target ? { target } : {}) });
    }
  }

  roleOf(file: string): KustomizePatchRole | undefined {
    return this.#roles.get(resolveListedPath('/', file) ?? file);
  }

  get size(): number {
    return this.#roles.size;
  }
}
