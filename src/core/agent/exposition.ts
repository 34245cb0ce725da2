// The Prometheus text exposition format (version 0.0.4), written from the agent's samples: one HELP and TYPE line
// per family, then its samples. Label values are escaped as the format requires (backslash, double quote, line
// feed); anything else a tenant put in a pod name or a container passes through as UTF-8, which the format allows.
// A value longer than MAX_LABEL_VALUE (four times any Kubernetes name) is cut and ends with "…": a garbled kernel
// release or a hostile file cannot make a line that a scraper refuses (gpumem's own reader stops at 64 KiB).
// Non-finite values are never written (a sample with NaN or Infinity is dropped and counted), so a scrape cannot
// carry a number gpumem did not compute. Linear in the number of samples.
// Format: https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
import type { MetricFamily } from './metricContract.ts';
import { METRIC_FAMILIES } from './metricContract.ts';

export interface Sample {
  readonly name: string;
  /** Label name → value; `node` included. Names must be those of the family (plus `node`). */
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const FAMILIES = new Map<string, MetricFamily>(METRIC_FAMILIES.map((family) => [family.name, family]));
/** Each family's label names in the order they are written: `node` first. */
const LABEL_NAMES = new Map<string, readonly string[]>(METRIC_FAMILIES.map((family) => [family.name, ['node', ...family.labels]]));

/** Characters of a label value; Kubernetes names are at most 253. */
export const MAX_LABEL_VALUE = 1024;

/** The value, cut to MAX_LABEL_VALUE characters (never inside a surrogate pair) and marked with "…" when cut. */
export function boundedLabelValue(value: string): string {
  if (value.length <= MAX_LABEL_VALUE) return value;
  let cut = MAX_LABEL_VALUE - 1;
  const last = value.charCodeAt(cut - 1);
  if (last >= 0xd800 && last < 0xdc00) cut--;
  return `${value.slice(0, cut)}…`;
}

/** The characters the format escapes in a label value (one class, no quantifier: linear). */
const NEEDS_ESCAPE = /[\\"\n]/;
const LABEL_ESCAPES = /[\\"\n]/g;

/**
 * Backslash, double quote and line feed escaped; a value with none of them (nearly every one) is returned as it is,
 * with no copy: a character-by-character copy of every label of every series was 2 MiB of garbage a scrape.
 */
export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(LABEL_ESCAPES, (char) => (char === '\n' ? '\\n' : `\\${char}`));
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

/** Integers as integers (no exponent up to 2^53), other values in the shortest form that reads back exactly. */
export function formatValue(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) return value.toFixed(0);
  return String(value);
}

export interface Exposition {
  readonly text: string;
  readonly series: number;
  /** Samples left out: a non-finite value, an unknown family, or a label the family does not have. */
  readonly dropped: number;
}

/**
 * The exposition of `samples`, families in the contract's order, each family's samples in the order given (the
 * caller sorts them, so two scrapes of the same state are byte-identical). Each label set is written once: a
 * repeated one is dropped, as Prometheus would reject the scrape.
 */
export function renderExposition(samples: readonly Sample[]): Exposition {
  const byFamily = new Map<string, Sample[]>();
  let dropped = 0;
  for (const sample of samples) {
    const family = FAMILIES.get(sample.name);
    if (!family || !Number.isFinite(sample.value) || !labelsFit(family, sample.labels)) {
      dropped++;
      continue;
    }
    const list = byFamily.get(sample.name) ?? [];
    list.push(sample);
    byFamily.set(sample.name, list);
  }
  const parts: string[] = [];
  let series = 0;
  for (const family of METRIC_FAMILIES) {
    const list = byFamily.get(family.name);
    if (!list) continue;
    parts.push(`# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`);
    const names = LABEL_NAMES.get(family.name) ?? [];
    const seen = new Set<string>();
    for (const sample of list) {
      let labels = '';
      for (const name of names) {
        const value = sample.labels[name];
        if (value === undefined) continue;
        labels += `${labels === '' ? '' : ','}${name}="${escapeLabelValue(boundedLabelValue(value))}"`;
      }
      if (seen.has(labels)) {
        dropped++;
        continue;
      }
      seen.add(labels);
      parts.push(`${family.name}${labels ? `{${labels}}` : ''} ${formatValue(sample.value)}\n`);
      series++;
    }
  }
  return { text: parts.join(''), series, dropped };
}

function labelsFit(family: MetricFamily, labels: Readonly<Record<string, string>>): boolean {
  for (const name of Object.keys(labels)) if (name !== 'node' && !family.labels.includes(name)) return false;
  return true;
}
