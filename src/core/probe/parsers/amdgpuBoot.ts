// amdgpu's boot lines that size the GPU's memory: "amdgpu: <n>M of GTT memory ready." and "<n>M of VRAM memory
// ready." (drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c, amdgpu_ttm_init), and "Capping GTT to <n>M" where the GTT
// size is limited. Not part of an OOM report; the OOM verdicts name the GTT size from them.
import type { EvidenceLine } from './oomReportLines.ts';
import { parseBoundedNumber } from './kernelNumber.ts';

export interface AmdgpuMemoryLine {
  readonly kind: 'gtt-ready' | 'vram-ready' | 'gtt-cap';
  readonly mib: number;
  /** The PCI device when the line names it (`amdgpu 0000:c5:00.0: …`). */
  readonly device?: string;
  readonly evidence: EvidenceLine;
}

const AMDGPU_READY = /(?<!\d)(\d{1,9})M of (GTT|VRAM) memory ready/;
const AMDGPU_CAP = /Capping GTT to (\d{1,9})M/;
const AMDGPU_DEVICE = /amdgpu (\d{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d)/;

/** The PCI device an `amdgpu 0000:c5:00.0: …` line names. */
export function amdgpuDevice(message: string): string | undefined {
  return AMDGPU_DEVICE.exec(message)?.[1];
}

/** What a line mentioning "memory ready" or "Capping GTT" is: an amdgpu memory line (its size when it has one), or not amdgpu's. */
export type AmdgpuBootLine = { readonly kind: 'amdgpu'; readonly line: AmdgpuMemoryLine | undefined } | { readonly kind: 'other' };

export function readAmdgpuBootLine(message: string, lineNo: number, raw: string): AmdgpuBootLine {
  if (!message.includes('memory ready') && !message.includes('Capping GTT')) return { kind: 'other' };
  const ready = AMDGPU_READY.exec(message);
  const cap = AMDGPU_CAP.exec(message);
  if (!(ready || cap) || !/amdgpu|\[drm\]/.test(message)) return { kind: 'other' };
  const device = amdgpuDevice(message);
  const mib = parseBoundedNumber((ready ?? cap)?.[1]);
  if (mib === undefined) return { kind: 'amdgpu', line: undefined };
  const kind = cap ? 'gtt-cap' : ready?.[2] === 'GTT' ? 'gtt-ready' : 'vram-ready';
  return { kind: 'amdgpu', line: { kind, mib, ...(device !== undefined ? { device } : {}), evidence: { line: lineNo, text: raw } } };
}
