// Edits a manifest file in place for one workload: only the containers' memory request and limit and the pod
// template's annotations change; comments, order, quoting and layout stay. One edit at a time, each computed on the
// text as it is after the previous one (so two insertions at the same place cannot collide), until nothing is left
// to change. Values reached through a YAML alias or merge key, or written as template actions, are left alone and
// reported: changing them would change other objects too, or the template's output.
import { isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import { PARSE_OPTIONS } from '../manifest/kubectlYaml.ts';
import type { Document, Node, Pair, YAMLMap } from 'yaml';
import { addEntryToMap, addEntryToPairValue, replaceScalar } from '../edits.ts';
import type { TextEdit } from '../findings.ts';
import { apiGroupOf } from '../manifest/workloads.ts';
import { isTemplated } from '../manifest/source.ts';
import { templatePathOf } from './changes.ts';
import type { WorkloadChange } from './changes.ts';
import { templateSlots } from './podTemplates.ts';
import type { TemplateStep } from './podTemplates.ts';

export interface EditOutcome {
  /** The workload's document was found in the text. */
  readonly found: boolean;
  readonly text: string;
  /** What was changed, in words ("container app: limits.memory 8Gi → 12Gi"). */
  readonly applied: readonly string[];
  /** What could not be changed and why. */
  readonly skipped: readonly string[];
}

type Step =
  | { readonly kind: 'edit'; readonly edit: TextEdit; readonly what: string }
  | { readonly kind: 'skip'; readonly what: string }
  | { readonly kind: 'done' };

export function editManifest(text: string, change: WorkloadChange): EditOutcome {
  // A multi-template kind's template is found by its role in each document (a worker group by its groupName).
  const where = change.template === undefined ? templatePathOf(change.ref.kind, change.ref.apiVersion) : { kind: 'role' as const };
  if (where.kind === 'none') return { found: false, text, applied: [], skipped: [where.reason] };
  const applied: string[] = [];
  const skipped: string[] = [];
  const skippedKeys = new Set<string>();
  // Edits stay inside the workload's document: after the first look, only that document is parsed again, so the
  // cost of a file with many documents is one parse of it plus a few of the workload's own.
  const first = findTemplate(text, change);
  if (first.kind === 'absent') return { found: false, text, applied, skipped };
  const [start, end] = first.range;
  let current = text.slice(start, end);
  let found = false;
  // Each container needs at most four edits and each annotation two; the bound keeps a bug from looping.
  const maxSteps = change.containers.length * 4 + change.annotations.size * 2 + 4;
  for (let step = 0; step < maxSteps; step++) {
    const template = findTemplate(current, change);
    if (template.kind === 'absent') break;
    if (template.kind === 'no-template') {
      found = true;
      skipped.push(template.reason);
      break;
    }
    found = true;
    const next = nextStep(current, template.map, change, skippedKeys);
    if (next.kind === 'done') break;
    if (next.kind === 'skip') {
      skipped.push(next.what);
      skippedKeys.add(next.what);
      continue;
    }
    current = current.slice(0, next.edit.start) + next.edit.newText + current.slice(next.edit.end);
    applied.push(next.what);
  }
  return { found, text: applied.length > 0 ? text.slice(0, start) + current + text.slice(end) : text, applied, skipped };
}

/** The workload's template, and the offsets of its whole document in the text (leading `---` and comments included). */
type TemplateLookup =
  | { readonly kind: 'absent' }
  | { readonly kind: 'no-template'; readonly reason: string; readonly range: readonly [number, number] }
  | { readonly kind: 'found'; readonly map: YAMLMap; readonly range: readonly [number, number] };

function findTemplate(text: string, change: WorkloadChange): TemplateLookup {
  for (const doc of parseAllDocuments(text, PARSE_OPTIONS)) {
    if (!('contents' in doc) || doc.errors.length > 0 || !isMap(doc.contents)) continue;
    const root = doc.contents;
    if (scalarText(ownValue(root, 'kind')) !== change.ref.kind) continue;
    const apiVersion = scalarText(ownValue(root, 'apiVersion'));
    if (apiVersion !== undefined && apiGroupOf(apiVersion) !== apiGroupOf(change.ref.apiVersion)) continue;
    const metadata = ownValue(root, 'metadata');
    if (scalarText(ownValue(metadata, 'name')) !== change.ref.name) continue;
    const namespace = scalarText(ownValue(metadata, 'namespace'));
    if (namespace !== undefined && change.ref.namespace && namespace !== change.ref.namespace) continue;
    const range = [doc.range[0], doc.range[2]] as const;
    const path = templatePath(doc, change);
    if (path.kind === 'none') return { kind: 'no-template', reason: `${change.ref.kind} ${change.ref.name}: ${path.reason}`, range };
    let node: Node | undefined = root;
    for (const step of path.path) node = typeof step === 'number' ? seqItem(node, step) : ownValue(node, step);
    if (!isMap(node))
      return { kind: 'no-template', reason: `${change.ref.kind} ${change.ref.name}: no pod template at ${path.path.join('.')}`, range };
    return { kind: 'found', map: node, range };
  }
  return { kind: 'absent' };
}

/** The steps to the change's template in this document: the kind's one path, or the template of the change's role. */
function templatePath(
  doc: Document.Parsed,
  change: WorkloadChange,
): { kind: 'path'; path: readonly TemplateStep[] } | { kind: 'none'; reason: string } {
  if (change.template === undefined) return templatePathOf(change.ref.kind, change.ref.apiVersion);
  let plain: unknown;
  try {
    plain = doc.toJS({ maxAliasCount: 100 });
  } catch {
    return { kind: 'none', reason: `its aliases expand too far to find ${change.template}; edit it by hand` };
  }
  const slots = templateSlots(change.ref.kind, change.ref.apiVersion, plain);
  const slot = slots.kind === 'slots' ? slots.slots.find((one) => one.role === change.template) : undefined;
  return slot ? { kind: 'path', path: slot.path } : { kind: 'none', reason: `no pod template ${change.template} in the manifest` };
}

function seqItem(node: Node | undefined, index: number): Node | undefined {
  if (!isSeq(node)) return undefined;
  const item = node.items[index] as Node | null | undefined;
  return item === null ? undefined : item;
}

function nextStep(text: string, template: YAMLMap, change: WorkloadChange, skipped: ReadonlySet<string>): Step {
  const containers = ownValue(ownValue(template, 'spec'), 'containers');
  for (const one of change.containers) {
    const container = (containers && 'items' in containers ? (containers.items as unknown[]) : []).find(
      (item): item is YAMLMap => isMap(item) && scalarText(ownValue(item, 'name')) === one.container,
    );
    if (!container) {
      const what = `container ${one.container}: not in the manifest`;
      if (!skipped.has(what)) return { kind: 'skip', what };
      continue;
    }
    for (const side of ['requests', 'limits'] as const) {
      const step = setValue(text, container, ['resources', side, 'memory'], one.memory, `container ${one.container}: ${side}.memory`);
      if (step.kind === 'skip' && skipped.has(step.what)) continue;
      if (step.kind !== 'done') return step;
    }
  }
  for (const [key, value] of change.annotations) {
    const step = setValue(text, template, ['metadata', 'annotations', key], value, `annotation ${key}`);
    if (step.kind === 'skip' && skipped.has(step.what)) continue;
    if (step.kind !== 'done') return step;
  }
  return { kind: 'done' };
}

/** One edit toward `path` = value under a map: replace the scalar, or add what is missing from the first gap. */
function setValue(text: string, map: YAMLMap, path: readonly string[], value: string, label: string): Step {
  let holder: YAMLMap = map;
  for (let depth = 0; depth < path.length; depth++) {
    const key = path[depth]!;
    const pair = ownPair(holder, key);
    const rest = path.slice(depth + 1);
    if (!pair) {
      if (hasMergeKey(holder)) return { kind: 'skip', what: `${label}: its mapping uses a YAML merge key; edit it by hand` };
      const edit = insertPath(text, holder, path.slice(depth), value);
      return edit ? { kind: 'edit', edit, what: `${label}: set to ${value}` } : { kind: 'skip', what: `${label}: no place to add it` };
    }
    const node = pair.value as Node | null | undefined;
    if (rest.length === 0) {
      if (!isScalar(node)) {
        if (node && !isEmpty(node)) return { kind: 'skip', what: `${label}: not a plain value; edit it by hand` };
        const edit = addEntryToPairValueOrReplace(text, pair, value);
        return edit ? { kind: 'edit', edit, what: `${label}: set to ${value}` } : { kind: 'skip', what: `${label}: no place to add it` };
      }
      const old = scalarText(node);
      if (old === value) return { kind: 'done' };
      if (old !== undefined && isTemplated(old)) return { kind: 'skip', what: `${label}: a template value (${old}); edit it by hand` };
      const edit = replaceScalar(text, node, value);
      return edit
        ? { kind: 'edit', edit, what: `${label}: ${old ?? 'empty'} → ${value}` }
        : { kind: 'skip', what: `${label}: cannot be replaced` };
    }
    if (isMap(node) && node.items.length > 0) {
      holder = node;
      continue;
    }
    if (node && !isEmpty(node))
      return { kind: 'skip', what: `${label}: ${key} is not a mapping (an alias or a template?); edit it by hand` };
    const edit = insertUnderPair(text, pair, rest, value);
    return edit ? { kind: 'edit', edit, what: `${label}: set to ${value}` } : { kind: 'skip', what: `${label}: no place to add it` };
  }
  return { kind: 'done' };
}

/** `key:` with an empty value, `key: null`, `key: {}`. */
function isEmpty(node: Node): boolean {
  if (isScalar(node)) return node.value === null || node.value === undefined || node.value === '';
  return isMap(node) && node.items.length === 0;
}

function addEntryToPairValueOrReplace(text: string, pair: Pair, value: string): TextEdit | undefined {
  const node = pair.value as Node | null | undefined;
  if (node?.range && node.range[1] > node.range[0]) return { start: node.range[0], end: node.range[1], newText: value };
  const key = pair.key as Node | undefined;
  if (!key?.range) return undefined;
  // `memory:` with nothing after it: the value goes after the colon.
  const colon = text.indexOf(':', key.range[1]);
  return colon < 0 ? undefined : { start: colon + 1, end: colon + 1, newText: ` ${value}` };
}

/** Adds the nested keys ending in value to a non-empty mapping: a block for a block mapping, `{a: {b: v}}` in a flow one. */
function insertPath(text: string, map: YAMLMap, path: readonly string[], value: string): TextEdit | undefined {
  const [first, ...rest] = path;
  if (first === undefined) return undefined;
  if (map.flow || rest.length === 0) return addEntryToMap(text, map, first, flowNest(rest, value));
  const at = addEntryToMap(text, map, first, '');
  const firstKey = map.items[0]?.key as Node | undefined;
  if (!at || !firstKey?.range) return undefined;
  return { ...at, newText: blockLines(text, columnOf(text, firstKey.range[0]), path, value) };
}

/** Fills an empty `key:` (or `key: {}` / `key: null`) with the nested keys ending in value. */
function insertUnderPair(text: string, pair: Pair, path: readonly string[], value: string): TextEdit | undefined {
  const node = pair.value as Node | null | undefined;
  const key = pair.key as Node | undefined;
  if (!key?.range) return undefined;
  if (isMap(node) && node.flow && node.range) return { start: node.range[0], end: node.range[1], newText: `{${flowEntries(path, value)}}` };
  const probe = addEntryToPairValue(text, pair, 'x', 'y');
  if (!probe) return undefined;
  return { ...probe, newText: blockLines(text, columnOf(text, key.range[0]) + 2, path, value) };
}

function blockLines(text: string, column: number, path: readonly string[], value: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return path.map((key, depth) => `${eol}${' '.repeat(column + depth * 2)}${key}:${depth === path.length - 1 ? ` ${value}` : ''}`).join('');
}

function flowNest(path: readonly string[], value: string): string {
  return path.length === 0 ? value : `{${flowEntries(path, value)}}`;
}

function flowEntries(path: readonly string[], value: string): string {
  const [first, ...rest] = path;
  return `${first}: ${flowNest(rest, value)}`;
}

function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

function ownPair(map: unknown, key: string): Pair | undefined {
  if (!isMap(map)) return undefined;
  // A merge key's value is a symbol; its source is `<<`.
  return map.items.find(
    (pair) => isScalar(pair.key) && (typeof pair.key.source === 'string' ? pair.key.source : String(pair.key.value)) === key,
  );
}

function ownValue(map: unknown, key: string): Node | undefined {
  const value = ownPair(map, key)?.value;
  return value === null ? undefined : (value as Node | undefined);
}

function hasMergeKey(map: YAMLMap): boolean {
  return ownPair(map, '<<') !== undefined;
}

function scalarText(node: unknown): string | undefined {
  return isScalar(node) && node.value !== null && node.value !== undefined ? String(node.value) : undefined;
}
