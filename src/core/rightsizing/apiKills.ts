// OOMKilled terminations the API reports per container (its current or last state), for when kube-state-metrics
// is not scraped: the kubelet reports `OOMKilled` for a memcg and a global kill alike, so they keep an unknown cause.
import { asArray, asString, identity, path } from '../kube/json.ts';
import { containerKey } from './figures.ts';

export function apiOomKills(pods: readonly unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    const meta = identity(pod);
    for (const status of asArray(path(pod, 'status', 'containerStatuses'))) {
      const name = asString(path(status, 'name'));
      if (!name) continue;
      const now = asString(path(status, 'state', 'terminated', 'reason'));
      const last = asString(path(status, 'lastState', 'terminated', 'reason'));
      const kills = (now === 'OOMKilled' ? 1 : 0) + (last === 'OOMKilled' ? 1 : 0);
      if (kills > 0) out.set(containerKey(meta.namespace ?? '', meta.name, name), kills);
    }
  }
  return out;
}
