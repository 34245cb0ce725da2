// Read-only access to one parsed YAML document, resolving aliases and `<<` merge keys
// (Kubernetes YAML is YAML 1.1, where merge keys are standard) under a work budget,
// so that alias bombs cost bounded time instead of hanging the editor.
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Document, Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Span } from '../findings.ts';
import { BudgetExhausted, WorkBudget } from '../workBudget.ts';

export class AliasBudgetExceeded extends BudgetExhausted {
  constructor() {
    super('alias and merge-key expansion');
  }
}

const MAX_ALIAS_DEPTH = 64;

interface Anchor {
  readonly offset: number;
  readonly node: Node;
}

export class YamlTree {
  readonly doc: Document.Parsed;
  private anchors: Map<string, Anchor[]> | undefined;
  private readonly budget: WorkBudget;

  constructor(doc: Document.Parsed, budget = 20_000) {
    this.doc = doc;
    this.budget = new WorkBudget(budget, 'alias and merge-key expansion', () => new AliasBudgetExceeded());
  }

  get root(): Node | undefined {
    return this.resolve(this.doc.contents);
  }

  /** Follows aliases to the node they name; anything that is not a YAML node gives undefined. */
  resolve(node: unknown): Node | undefined {
    let current = node;
    for (let depth = 0; depth < MAX_ALIAS_DEPTH; depth++) {
      if (!isAlias(current)) return isMap(current) || isSeq(current) || isScalar(current) ? current : undefined;
      this.spend();
      current = this.anchorFor(current.source, current.range?.[0] ?? Number.MAX_SAFE_INTEGER);
    }
    return undefined;
  }

  map(node: unknown): YAMLMap | undefined {
    const resolved = this.resolve(node);
    return isMap(resolved) ? resolved : undefined;
  }

  seq(node: unknown): YAMLSeq | undefined {
    const resolved = this.resolve(node);
    return isSeq(resolved) ? resolved : undefined;
  }

  scalar(node: unknown): Scalar | undefined {
    const resolved = this.resolve(node);
    return isScalar(resolved) ? resolved : undefined;
  }

  /** The pair for `key` in a map, own keys first, then keys merged in with `<<`. */
  pair(node: unknown, key: string): Pair | undefined {
    return this.findPair(this.map(node), key, 0);
  }

  get(node: unknown, key: string): Node | undefined {
    return this.resolve(this.pair(node, key)?.value);
  }

  path(node: unknown, ...keys: string[]): Node | undefined {
    let current: Node | undefined = this.resolve(node);
    for (const key of keys) {
      if (current === undefined) return undefined;
      current = this.get(current, key);
    }
    return current;
  }

  /** Every key/value pair of a map, own keys overriding merged ones, in source order. */
  entries(node: unknown): Array<{ key: string; pair: Pair }> {
    const out: Array<{ key: string; pair: Pair }> = [];
    const seen = new Set<string>();
    this.collectEntries(this.map(node), out, seen, 0);
    return out;
  }

  items(node: unknown): Node[] {
    const seq = this.seq(node);
    if (!seq) return [];
    const out: Node[] = [];
    for (const item of seq.items) {
      this.spend();
      const resolved = this.resolve(item);
      if (resolved) out.push(resolved);
    }
    return out;
  }

  /** The string form of a scalar as written (so `1e3` stays `1e3`); undefined for maps and sequences. */
  text(node: unknown): string | undefined {
    const scalar = this.scalar(node);
    if (!scalar || scalar.value === null || scalar.value === undefined) return undefined;
    if (typeof scalar.source === 'string') return scalar.source;
    return String(scalar.value);
  }

  private findPair(map: YAMLMap | undefined, key: string, depth: number): Pair | undefined {
    if (!map || depth > MAX_ALIAS_DEPTH) return undefined;
    const merges: Pair[] = [];
    for (const item of map.items) {
      this.spend();
      const name = keyOf(item);
      if (name === key) return item;
      if (name === '<<') merges.push(item);
    }
    for (const merge of merges) {
      for (const source of this.mergeSources(merge)) {
        const found = this.findPair(source, key, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  }

  private collectEntries(map: YAMLMap | undefined, out: Array<{ key: string; pair: Pair }>, seen: Set<string>, depth: number): void {
    if (!map || depth > MAX_ALIAS_DEPTH) return;
    const merges: Pair[] = [];
    for (const item of map.items) {
      this.spend();
      const name = keyOf(item);
      if (name === undefined) continue;
      if (name === '<<') {
        merges.push(item);
        continue;
      }
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({ key: name, pair: item });
    }
    for (const merge of merges) {
      for (const source of this.mergeSources(merge)) this.collectEntries(source, out, seen, depth + 1);
    }
  }

  private mergeSources(merge: Pair): YAMLMap[] {
    const value = this.resolve(merge.value);
    if (isMap(value)) return [value];
    if (isSeq(value)) return value.items.map((item) => this.map(item)).filter((m): m is YAMLMap => m !== undefined);
    return [];
  }

  private anchorFor(name: string, before: number): Node | undefined {
    if (!this.anchors) this.anchors = collectAnchors(this.doc, () => this.spend());
    const candidates = this.anchors.get(name);
    if (!candidates) return undefined;
    // YAML lets an anchor be redefined: an alias names the latest definition before it.
    let best: Anchor | undefined;
    for (const candidate of candidates) {
      if (candidate.offset < before) best = candidate;
    }
    return best?.node;
  }

  private spend(): void {
    this.budget.spend();
  }
}

function keyOf(pair: Pair): string | undefined {
  const key = pair.key;
  if (isScalar(key)) {
    if (key.value === null || key.value === undefined) return undefined;
    return typeof key.source === 'string' ? key.source : String(key.value);
  }
  return undefined;
}

function collectAnchors(doc: Document.Parsed, spend: () => void): Map<string, Anchor[]> {
  const anchors = new Map<string, Anchor[]>();
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    spend();
    if (isMap(node) || isSeq(node) || isScalar(node)) {
      if (node.anchor) {
        const list = anchors.get(node.anchor) ?? [];
        list.push({ offset: node.range?.[0] ?? 0, node });
        anchors.set(node.anchor, list);
      }
      if (isMap(node)) {
        for (const pair of node.items) {
          stack.push(pair.value);
          stack.push(pair.key);
        }
      } else if (isSeq(node)) {
        for (const item of node.items) stack.push(item);
      }
    }
  }
  for (const list of anchors.values()) list.sort((a, b) => a.offset - b.offset);
  return anchors;
}

/** The source span of a node's value (without trailing comments). */
export function spanOf(node: unknown): Span | undefined {
  if (isMap(node) || isSeq(node) || isScalar(node) || isAlias(node)) {
    const range = node.range;
    if (range) return { start: range[0], end: range[1] };
  }
  return undefined;
}

/** The span of a pair's key, or of its value when the key has none. */
export function keySpan(pair: Pair | undefined): Span | undefined {
  if (!pair) return undefined;
  return spanOf(pair.key) ?? spanOf(pair.value);
}
