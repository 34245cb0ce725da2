// A memory quantity a person would write, never below the bytes asked for: whole Mi below 1 Gi, else steps of
// 0.5 Gi ("1.5Gi", "24Gi").
const MI = 1024 * 1024;
const GI = 1024 * MI;
const HALF_GI = GI / 2;

export interface RoundedQuantity {
  readonly bytes: number;
  readonly text: string;
}

export function roundUpForPeople(bytes: number): RoundedQuantity {
  if (!Number.isFinite(bytes) || bytes <= 0) return { bytes: 0, text: '0' };
  if (bytes < GI) {
    const mi = Math.max(1, Math.ceil(bytes / MI));
    return mi === 1024 ? { bytes: GI, text: '1Gi' } : { bytes: mi * MI, text: `${mi}Mi` };
  }
  const halves = Math.ceil(bytes / HALF_GI);
  const text = halves % 2 === 0 ? `${halves / 2}Gi` : `${(halves - 1) / 2}.5Gi`;
  return { bytes: halves * HALF_GI, text };
}
