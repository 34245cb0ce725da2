// What the node-side HAMi quota check (hamiQuota.ts) finds per pod and GPU. A leaf, so the check and its
// wording (hamiQuotaWording.ts) both import it.
import type { NvidiaProcess } from '../../probe/nvidiaNode.ts';

/** One pod's HAMi allocation from the API server, per device UUID (MiB, summed over its containers). */
export interface HamiPodQuota {
  readonly devices: ReadonlyMap<string, number>;
}

export type QuotaSource =
  | { readonly kind: 'annotation'; readonly line: string }
  | { readonly kind: 'environ'; readonly line: string }
  | { readonly kind: 'cache'; readonly line: string };

export type QuotaStatus =
  | { readonly kind: 'exceeded'; readonly over: number }
  | { readonly kind: 'held'; readonly margin: number }
  /** HAMi manages the pod but nvidia-smi lists no compute process of it. */
  | { readonly kind: 'idle' }
  | { readonly kind: 'unknown'; readonly reason: string };

export interface HamiQuotaRow {
  readonly podUid: string;
  /** `GPU 0`, `GPU 0 GI 1 CI 0`, or `—` when no process is listed. */
  readonly gpu: string;
  readonly usedBytes: number | undefined;
  readonly quotaBytes: number | undefined;
  readonly quotaSource: QuotaSource | undefined;
  readonly status: QuotaStatus;
  readonly processes: readonly NvidiaProcess[];
  /** What the node shows of a way around the limit (CUDA_DISABLE_CONTROL, no limit variables, unreadable environ). */
  readonly bypassEvidence: readonly string[];
}
