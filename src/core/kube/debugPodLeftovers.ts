// Which debug pods a run may delete before it creates its own (src/kube/debugPodSweep.ts): gpumem's own
// leftovers, from a client that was SIGKILLed, slept or lost the network during its clean-up. A pod is a
// leftover when it carries gpumem's debug-pod label, names this creator (`user@host`) in its annotation, and
// has ended (Failed, e.g. DeadlineExceeded once activeDeadlineSeconds passed, or Succeeded) or is past its
// activeDeadlineSeconds. A pod of another creator, or one still within its deadline (another run of the same
// user may be using it), is never a leftover. Pure: the caller lists and deletes.

/** The fields of a pod this needs (a V1Pod fits). */
export interface DebugPodFacts {
  readonly metadata?: {
    readonly name?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly creationTimestamp?: Date | string;
    readonly deletionTimestamp?: Date | string;
  };
  readonly spec?: { readonly activeDeadlineSeconds?: number };
  readonly status?: { readonly phase?: string; readonly reason?: string; readonly startTime?: Date | string };
}

export type LeftoverVerdict =
  | { readonly kind: 'leftover'; readonly name: string; readonly why: string }
  | { readonly kind: 'keep'; readonly why: 'another creator' | 'not a gpumem debug pod' | 'in use' | 'being deleted' };

/** Grace after the deadline before a still-Running pod counts as expired (the kubelet's sync period, clock skew). */
export const EXPIRY_GRACE_MS = 60_000;
/** A pod that never started counts from its creation plus this (the image pull), then its deadline. */
export const START_ALLOWANCE_MS = 300_000;

export function leftoverVerdict(
  pod: DebugPodFacts,
  labels: Readonly<Record<string, string>>,
  creatorAnnotation: string,
  creator: string,
  nowMs: number,
): LeftoverVerdict {
  const meta = pod.metadata ?? {};
  const name = meta.name ?? '';
  for (const [key, value] of Object.entries(labels))
    if (meta.labels?.[key] !== value) return { kind: 'keep', why: 'not a gpumem debug pod' };
  if (name === '') return { kind: 'keep', why: 'not a gpumem debug pod' };
  if (meta.annotations?.[creatorAnnotation] !== creator) return { kind: 'keep', why: 'another creator' };
  if (meta.deletionTimestamp !== undefined) return { kind: 'keep', why: 'being deleted' };
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded')
    return { kind: 'leftover', name, why: `${phase}${pod.status?.reason ? ` ${pod.status.reason}` : ''}` };
  const deadline = pod.spec?.activeDeadlineSeconds;
  if (typeof deadline !== 'number' || !Number.isFinite(deadline) || deadline <= 0) return { kind: 'keep', why: 'in use' };
  const started = millis(pod.status?.startTime);
  const created = millis(meta.creationTimestamp);
  const from = started ?? (created !== undefined ? created + START_ALLOWANCE_MS : undefined);
  if (from !== undefined && nowMs > from + deadline * 1000 + EXPIRY_GRACE_MS)
    return { kind: 'leftover', name, why: `past its activeDeadlineSeconds (${deadline} s)` };
  return { kind: 'keep', why: 'in use' };
}

function millis(value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}
