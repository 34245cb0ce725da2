// Cell texts the view model's sections share: byte counts (short, exact), counted nouns, pod labels.
import { describeBytes, formatBytes } from '../sizing.ts';
import type { BytesCell } from './viewModelTypes.ts';

export function bytesCell(value: number | undefined | null, none = '—'): BytesCell {
  if (value === undefined || value === null || !Number.isFinite(value)) return { value: null, text: none, exact: none };
  return { value, text: formatBytes(value), exact: describeBytes(value) };
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function podLabel(uid: string, names: ReadonlyMap<string, string>): string {
  return names.get(uid) ?? `pod ${uid}`;
}
