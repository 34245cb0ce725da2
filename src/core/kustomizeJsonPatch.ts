// A kustomize JSON 6902 patch judged for the values its operations write. Each `add` or `replace` writes its `value`
// at a JSON pointer (RFC 6901): the pointer and the value make a partial object, wrapped in the target's kind (the
// kustomization entry's `target:`, or the kind the path's shape implies), which is judged as a strategic-merge patch
// is, keeping only the rules about values written (kustomizePatch.ts). Each finding is placed on the operation's
// `value`. `remove`, `move`, `copy` and `test` write no value of their own, so they are not judged.
import type { Document, Node } from 'yaml';
import { isMap, isScalar, isSeq } from 'yaml';
import type { LintConfig } from './config.ts';
import type { Finding, Span } from './findings.ts';
import { isValueRule } from './kustomizePatch.ts';
import type { KustomizePatchRole } from './manifest/kustomization.ts';

/** Real JSON patches hold a handful of operations; past these bounds the rest are counted as not judged. */
const MAX_OPERATIONS = 1000;
const MAX_POINTER_CHARS = 4096;
const MAX_SEGMENTS = 64;
/** The values written, as JSON, may not exceed the patch's own size by more than this factor (aliases expand). */
const SYNTHETIC_GROWTH = 4;
const SYNTHETIC_SLACK = 64 * 1024;

/** The lists whose items are containers: an index in them names no container, so the index stands for its name. */
const CONTAINER_LISTS: ReadonlySet<string> = new Set(['containers', 'initContainers', 'ephemeralContainers']);

export interface WritingOperation {
  readonly op: 'add' | 'replace';
  readonly segments: readonly string[];
  readonly value: unknown;
  /** The operation's `value` node in the patch file. */
  readonly valueSpan: Span;
}

export interface OperationsRead {
  readonly writes: readonly WritingOperation[];
  /** Operations that write no value (`remove`, `move`, `copy`, `test`), or that are malformed. */
  readonly unjudged: number;
}

/** RFC 6901: `/a~1b/0` → ['a/b', '0']; undefined for a pointer that is not one (no leading '/', a bad escape). */
export function pointerSegments(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/') || pointer.length > MAX_POINTER_CHARS) return undefined;
  const raw = pointer.slice(1).split('/');
  if (raw.length > MAX_SEGMENTS) return undefined;
  const out: string[] = [];
  for (const segment of raw) {
    let unescaped = '';
    for (let i = 0; i < segment.length; i++) {
      const char = segment[i];
      if (char !== '~') {
        unescaped += char;
        continue;
      }
      const next = segment[i + 1];
      if (next === '1') unescaped += '/';
      else if (next === '0') unescaped += '~';
      else return undefined;
      i++;
    }
    out.push(unescaped);
  }
  return out;
}

function isListPosition(segment: string): boolean {
  if (segment === '-') return true;
  if (segment === '' || segment.length > 9 || (segment.length > 1 && segment.startsWith('0'))) return false;
  for (const char of segment) if (char < '0' || char > '9') return false;
  return true;
}

/** The add and replace operations of the patch's first document, with their values as plain data. */
export function readOperations(doc: Document.Parsed, source: string, budgetChars: number): OperationsRead {
  const root = doc.contents as Node | null;
  if (!isSeq(root)) return { writes: [], unjudged: 0 };
  const writes: WritingOperation[] = [];
  let unjudged = 0;
  let spent = 0;
  for (const [index, item] of root.items.entries()) {
    if (index >= MAX_OPERATIONS) {
      unjudged += root.items.length - index;
      break;
    }
    const write = isMap(item) ? writingOperation(doc, item, source) : undefined;
    if (!write) {
      unjudged++;
      continue;
    }
    spent += write.size;
    if (spent > budgetChars) {
      unjudged++;
      continue;
    }
    writes.push(write.operation);
  }
  return { writes, unjudged };
}

function writingOperation(
  doc: Document.Parsed,
  item: { get(key: string, keepScalar: true): unknown },
  source: string,
): { operation: WritingOperation; size: number } | undefined {
  const op = item.get('op', true);
  const path = item.get('path', true);
  const valueNode = item.get('value', true);
  if (!isScalar(op) || (op.value !== 'add' && op.value !== 'replace')) return undefined;
  if (!isScalar(path) || typeof path.value !== 'string' || valueNode === undefined || valueNode === null) return undefined;
  const range = (valueNode as { range?: readonly number[] | null }).range;
  if (!range || !(range[1]! > range[0]!) || range[1]! > source.length) return undefined;
  // A block collection's range runs to the next line: the span ends with its last character.
  let end = range[1]!;
  while (end > range[0]! + 1 && /\s/.test(source[end - 1]!)) end--;
  const segments = pointerSegments(path.value);
  if (!segments) return undefined;
  let value: unknown;
  let size: number;
  try {
    value = (valueNode as Node).toJS(doc, { maxAliasCount: 100 });
    size = JSON.stringify(value)?.length ?? 0;
  } catch {
    return undefined;
  }
  return { operation: { op: op.value, segments, value, valueSpan: { start: range[0]!, end } }, size };
}

/** The partial object an operation writes: its value nested under the pointer's segments, lists for list positions. */
export function writtenObject(segments: readonly string[], value: unknown): unknown {
  let written = value;
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!;
    if (isListPosition(segment)) {
      const list = i > 0 ? segments[i - 1]! : '';
      written = [CONTAINER_LISTS.has(list) ? namedByPosition(written, `${list}[${segment}]`) : written];
    } else written = { [segment]: written };
  }
  return written;
}

function namedByPosition(item: unknown, position: string): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const name = (item as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? item : { ...item, name: position };
}

/** The kind a pointer's shape implies when the kustomization names no target kind. */
export function kindByShape(segments: readonly string[]): string | undefined {
  const path = segments.slice(0, 4).join('/');
  if (path.startsWith('spec/template/spec')) return 'Deployment';
  if (path.startsWith('spec/jobTemplate/spec/template')) return 'CronJob';
  if (path.startsWith('spec/containers') || path.startsWith('spec/initContainers') || path.startsWith('spec/ephemeralContainers'))
    return 'Pod';
  return undefined;
}

/** The written object as a manifest: the target's kind (or the shape's), name and apiVersion, unless it has its own. */
function asManifest(role: KustomizePatchRole, segments: readonly string[], written: unknown): string | undefined {
  if (typeof written !== 'object' || written === null || Array.isArray(written)) return undefined;
  const object = written as Record<string, unknown>;
  const kind = object.kind ?? role.target?.kind ?? kindByShape(segments);
  if (typeof kind !== 'string') return undefined;
  const head: Record<string, unknown> = { kind };
  if (object.apiVersion === undefined && role.target?.apiVersion !== undefined) head.apiVersion = role.target.apiVersion;
  if (object.metadata === undefined && role.target?.name !== undefined) head.metadata = { name: role.target.name };
  return JSON.stringify({ ...head, ...object });
}

type LintTextFn = (
  text: string,
  config: LintConfig,
  scope: { kustomizePatch: KustomizePatchRole; maxChars?: number },
) => {
  readonly findings: readonly Finding[];
};

export interface JudgedOperations {
  readonly findings: readonly Finding[];
  readonly judged: number;
  readonly unjudged: number;
}

/**
 * The findings on the values a JSON patch's operations write, placed on each operation's `value`. `lintText` is the
 * linter's own entry point, passed in so that this module does not import the linter that imports it.
 */
export function judgeOperations(
  documents: readonly Document.Parsed[],
  source: string,
  role: KustomizePatchRole,
  config: LintConfig,
  lintText: LintTextFn,
): JudgedOperations {
  const doc = documents.find((candidate) => candidate.contents !== null);
  if (!doc || doc.errors.length > 0) return { findings: [], judged: 0, unjudged: 0 };
  const { writes, unjudged } = readOperations(doc, source, source.length * SYNTHETIC_GROWTH + SYNTHETIC_SLACK);
  const inner: KustomizePatchRole = { ...role, operation: true };
  const findings: Finding[] = [];
  for (const write of writes) {
    const manifest = asManifest(role, write.segments, writtenObject(write.segments, write.value));
    if (manifest === undefined) continue;
    for (const finding of lintText(manifest, config, { kustomizePatch: inner, maxChars: manifest.length + 1 }).findings) {
      if (!isValueRule(finding.ruleId)) continue;
      findings.push(placed(finding, write.valueSpan, role));
    }
  }
  return { findings, judged: writes.length, unjudged };
}

/** A finding of the written object, on the operation's value; a container known only by its index is named by it. */
function placed(finding: Finding, span: Span, role: KustomizePatchRole): Finding {
  const { object, container, fixes: _fixes, ...rest } = finding;
  const byPosition = container !== undefined && /^[A-Za-z]+\[(?:-|[0-9]+)\]$/.test(container);
  const message = byPosition ? finding.message.split(`"${container}"`).join(container) : finding.message;
  return {
    ...rest,
    message,
    span,
    fixes: [],
    ...(container !== undefined ? { container } : {}),
    // The object is the target's only when the kustomization names it; a kind read from the path's shape is a guess.
    ...(object !== undefined && role.target?.kind !== undefined ? { object } : {}),
  };
}
