// The recommendation's quantity is the one every gpumem remedy suggests (core/sizing.ts: whole Gi from 4 GiB up,
// else whole Mi), with its byte value beside it for comparisons ("lower: saves …").
import { parseQuantity } from '../quantity.ts';
import { suggestedMemoryQuantity } from '../sizing.ts';

export interface RoundedQuantity {
  readonly bytes: number;
  readonly text: string;
}

export function roundUpForPeople(bytes: number): RoundedQuantity {
  if (!Number.isFinite(bytes) || bytes <= 0) return { bytes: 0, text: '0' };
  const text = suggestedMemoryQuantity(bytes);
  const parsed = text === undefined ? undefined : parseQuantity(text);
  return parsed?.ok ? { bytes: parsed.quantity.value, text: parsed.quantity.text } : { bytes, text: String(Math.ceil(bytes)) };
}
