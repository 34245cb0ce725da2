// The over-quota test's result as text (CLI), Markdown (the report view) and JSON: one headline, what it
// proves and what it does not (docs/hami-test.md), and the evidence the container gave.
import { markdownText } from '../text/escape.ts';
import type { HamiTestEvidence } from './result.ts';
import type { HamiTestVerdict } from './verdict.ts';
import type { HamiTestPlan } from './plan.ts';
import { describePlanGpu, describeQuotaSource } from './plan.ts';
import { cuResultName } from './cudaErrors.ts';

export type HamiTestStatusWord = 'enforced' | 'bypassed' | 'inconclusive' | 'cannot-run';

export interface HamiTestSummary {
  readonly status: HamiTestStatusWord;
  readonly headline: string;
  readonly details: readonly string[];
}

const MiB = 1024 * 1024;

function mib(bytes: number): string {
  return `${(bytes / MiB).toLocaleString('en-US', { maximumFractionDigits: 1 })} MiB`;
}

const STEP_CALLS = { init: 'cuInit', device: 'cuDeviceGet', context: 'cuCtxCreate_v2', alloc: 'cuMemAlloc_v2' } as const;

function evidenceLines(evidence: HamiTestEvidence | undefined): string[] {
  if (!evidence) return [];
  const lines: string[] = [];
  if (evidence.envDisable === true)
    lines.push(
      'CUDA_DISABLE_CONTROL is true in the container: HAMi-core stands down, and the device plugin skips the /etc/ld.so.preload mount.',
    );
  if (evidence.preload === 'absent')
    lines.push('/etc/ld.so.preload is absent in the container: libvgpu.so is not preloaded into its processes.');
  if (evidence.preload === 'other') lines.push('/etc/ld.so.preload exists but names no vgpu library.');
  if (evidence.preload === 'vgpu') lines.push('/etc/ld.so.preload names a vgpu library (libvgpu.so).');
  if (evidence.envLimit === false)
    lines.push('No CUDA_DEVICE_MEMORY_LIMIT_0 or CUDA_DEVICE_MEMORY_LIMIT in the environment python3 ran with.');
  return lines;
}

export function summarizeHamiTest(plan: HamiTestPlan, verdict: HamiTestVerdict): HamiTestSummary {
  const quota = `${plan.quotaMiB.toLocaleString('en-US')} MiB`;
  switch (verdict.kind) {
    case 'enforced':
      return {
        status: 'enforced',
        headline: `Enforcement proven for allocation: cuMemAlloc_v2 of ${mib(verdict.attemptBytes)} returned CUDA_ERROR_OUT_OF_MEMORY (2) on a ${quota} quota.`,
        details: [
          'This proves that one cuMemAlloc_v2 past the quota is refused in this container. It does not prove what nvidia-smi reports, other allocation paths (cuMemAllocManaged, cuMemCreate), processes started without the preload, or a GPU that is simply full.',
          ...evidenceLines(verdict.evidence),
        ],
      };
    case 'bypassed':
      return {
        status: 'bypassed',
        headline: `Bypass proven: cuMemAlloc_v2 of ${mib(verdict.attemptBytes)} succeeded on a ${quota} quota, so HAMi does not limit this container's allocations.`,
        details: [
          verdict.freeCode === undefined || verdict.freeCode === 0
            ? 'The memory was freed at once (cuMemFree_v2 returned 0).'
            : `cuMemFree_v2 returned ${cuResultName(verdict.freeCode)}; the program exited right after, which releases the memory.`,
          ...evidenceLines(verdict.evidence),
        ],
      };
    case 'inconclusive':
      return { status: 'inconclusive', headline: inconclusiveHeadline(verdict.reason), details: evidenceLines(verdict.evidence) };
    case 'cannot-run':
      return { status: 'cannot-run', headline: cannotRunHeadline(verdict.reason), details: [] };
  }
}

function inconclusiveHeadline(reason: Extract<HamiTestVerdict, { kind: 'inconclusive' }>['reason']): string {
  switch (reason.kind) {
    case 'cuda-error':
      return `Inconclusive: ${STEP_CALLS[reason.step]} returned ${reason.name}${reason.step === 'alloc' ? '' : ', before the allocation was tried'}.`;
    case 'timeout':
      return `Inconclusive: no result within ${Math.round(reason.ms / 1000)} s; the connection was closed and the program ends itself by its own deadline.`;
    case 'self-deadline':
      return 'Inconclusive: the program reached its own deadline (a CUDA call did not return) and ended itself.';
    case 'no-result':
      return `Inconclusive: the program ended without a result (exit status ${reason.exitCode ?? 'unknown'})${reason.stderr.trim() ? `: ${tail(reason.stderr)}` : ''}.`;
    case 'malformed':
      return `Inconclusive: the result could not be read (${reason.detail}).`;
    case 'disconnected':
      return `Inconclusive: the connection dropped before the result (${reason.detail}).`;
  }
}

/** The end of a long reason, where the runtime says what went wrong. */
function tail(text: string, max = 300): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `…${trimmed.slice(-max)}` : trimmed;
}

function cannotRunHeadline(reason: Extract<HamiTestVerdict, { kind: 'cannot-run' }>['reason']): string {
  switch (reason.kind) {
    case 'no-python3':
      return `Cannot run: the container has no python3 (${tail(reason.detail)}); the test uses only what the container has and installs nothing.`;
    case 'no-ctypes':
      return "Cannot run: the container's python3 has no ctypes module (a minimal Python), which the test needs to call libcuda.so.1.";
    case 'no-libcuda':
      return 'Cannot run: python3 could not load libcuda.so.1 in the container (no NVIDIA driver library mounted).';
    case 'no-symbol':
      return `Cannot run: the container's libcuda.so.1 has no ${reason.symbol}.`;
    case 'exec-failed':
      return `Cannot run: the exec failed (${tail(reason.detail)}).`;
  }
}

function planLines(plan: HamiTestPlan): string[] {
  return [
    `Pod ${plan.namespace}/${plan.pod}, container ${plan.container}`,
    `GPU: ${describePlanGpu(plan)}`,
    `Quota: ${plan.quotaMiB.toLocaleString('en-US')} MiB (${describeQuotaSource(plan.quotaSource)})`,
    `Tried: ${plan.attemptMiB.toLocaleString('en-US')} MiB in one cuMemAlloc_v2 (quota + 64 MiB)`,
  ];
}

export function hamiTestText(plan: HamiTestPlan, verdict: HamiTestVerdict): string {
  const summary = summarizeHamiTest(plan, verdict);
  return `${[`HAMi enforcement test: ${summary.status}`, summary.headline, '', ...planLines(plan), ...summary.details.map((d) => `- ${d}`)].join('\n')}\n`;
}

export function hamiTestMarkdown(plan: HamiTestPlan, verdict: HamiTestVerdict): string {
  const summary = summarizeHamiTest(plan, verdict);
  return `${[
    `# HAMi enforcement test: ${summary.status}`,
    '',
    markdownText(summary.headline),
    '',
    ...planLines(plan).map((line) => `- ${markdownText(line)}`),
    ...(summary.details.length > 0 ? ['', ...summary.details.map((d) => `- ${markdownText(d)}`)] : []),
    '',
    'What the test proves and what it does not: docs/hami-test.md.',
  ].join('\n')}\n`;
}

export function hamiTestJson(plan: HamiTestPlan, verdict: HamiTestVerdict): Record<string, unknown> {
  const summary = summarizeHamiTest(plan, verdict);
  return { status: summary.status, headline: summary.headline, details: summary.details, plan, verdict };
}
