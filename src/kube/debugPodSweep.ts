// Before a run creates a debug pod it removes its creator's leftovers in that namespace, so pods left by a
// SIGKILLed CLI, a laptop that slept or a network cut during clean-up cannot pile up: activeDeadlineSeconds
// only moves such a pod to Failed, and nothing else deletes it. The rule is src/core/kube/debugPodLeftovers.ts
// (label + the creator annotation + ended or past its deadline: never another user's pod, never a running one).
// One list request (label selector, one namespace) and one delete per leftover. A namespace where listing pods
// is forbidden is skipped with the reason: the sweep never stops a run.
//
// Why not a Job with ttlSecondsAfterFinished (server-side clean-up): it needs `create jobs` (batch) on top of
// the pod verbs, the Job controller adds its own scheduling latency before the pod exists, the exec target
// becomes a pod whose name must be looked up, and the TTL only starts when the Job finishes, which for a
// killed client is the same activeDeadlineSeconds. The sweep needs only `list pods` more.
import { hostname, userInfo } from 'node:os';
import { leftoverVerdict } from '../core/kube/debugPodLeftovers.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import type { ClusterClient } from './clusterClient.ts';
import { KubeRequestError } from './clusterClient.ts';
import { DEBUG_POD_CREATOR_ANNOTATION, DEBUG_POD_LABELS, DEBUG_POD_SELECTOR } from './debugPodSpec.ts';

export type SweepOutcome =
  | { readonly kind: 'swept'; readonly removed: readonly string[]; readonly failed: readonly string[] }
  | { readonly kind: 'skipped'; readonly reason: string };

/** `user@host` of this client: the creator annotation of the debug pods it makes. */
export function localCreator(): string {
  let user = process.env.USER ?? process.env.LOGNAME ?? '';
  try {
    user ||= userInfo().username;
  } catch {
    // no passwd entry
  }
  const identity = `${user || 'unknown'}@${hostname() || 'unknown'}`;
  // An annotation value is free text, but keep it printable and short.
  return identity.replace(/[^\x21-\x7e]/g, '_').slice(0, 253);
}

export async function sweepDebugPods(
  client: ClusterClient,
  namespace: string,
  creator: string,
  options: { readonly signal?: AbortSignal | undefined; readonly timeoutMs?: number; readonly now?: number } = {},
): Promise<SweepOutcome> {
  const call = { ...(options.signal ? { signal: options.signal } : {}), timeoutMs: options.timeoutMs ?? 15_000 };
  let pods;
  try {
    pods = await client.listPods(namespace, { ...call, labelSelector: DEBUG_POD_SELECTOR });
  } catch (error) {
    if (error instanceof KubeRequestError && error.failure.kind === 'cancelled') throw error;
    const why = error instanceof KubeRequestError ? describeKubeFailure(error.failure) : String(error);
    return { kind: 'skipped', reason: `could not list the debug pods of namespace "${namespace}" to remove leftovers (${why})` };
  }
  const now = options.now ?? Date.now();
  const removed: string[] = [];
  const failed: string[] = [];
  for (const pod of pods) {
    const verdict = leftoverVerdict(pod, DEBUG_POD_LABELS, DEBUG_POD_CREATOR_ANNOTATION, creator, now);
    if (verdict.kind !== 'leftover') continue;
    try {
      await client.deletePod(namespace, verdict.name, { ...call, gracePeriodSeconds: 0 });
      removed.push(`${verdict.name} (${verdict.why})`);
    } catch (error) {
      if (error instanceof KubeRequestError && error.failure.kind === 'cancelled') throw error;
      failed.push(`${verdict.name}: ${error instanceof KubeRequestError ? describeKubeFailure(error.failure) : String(error)}`);
    }
  }
  return { kind: 'swept', removed, failed };
}
