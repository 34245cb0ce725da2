// How much data a number needs. Robusta KRR's `simple` strategy refuses a recommendation below `points_required`
// (100) samples and below 3 hours of history (robusta-dev/krr robusta_krr/strategies/simple.py); the same bar here
// keeps the two comparable.
import type { Coverage } from './series.ts';

export const MIN_SAMPLES = 100;
export const MIN_HOURS = 3;

export type Sufficiency = { readonly kind: 'enough' } | { readonly kind: 'too-little'; readonly reason: string };

export function sufficiencyOf(coverage: Coverage): Sufficiency {
  if (coverage.samples === 0) return { kind: 'too-little', reason: `no usable samples of the container's memory` };
  if (coverage.samples < MIN_SAMPLES) {
    return { kind: 'too-little', reason: `only ${coverage.samples} samples (at least ${MIN_SAMPLES} are needed)` };
  }
  if (coverage.hours < MIN_HOURS) {
    return { kind: 'too-little', reason: `only ${coverage.hours.toFixed(1)} h of history (at least ${MIN_HOURS} h are needed)` };
  }
  return { kind: 'enough' };
}
