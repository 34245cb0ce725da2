// Pod UID → namespace, name and container names, from the API's pods on the agent's node (plain JSON as the watch
// delivers it, typed or not). A container ID is the runtime's id without its `<runtime>://` prefix, as the node's
// cgroup paths name it. Pure.
import { asArray, asString, path } from '../kube/json.ts';
import type { PodIdentity } from './nodeSamples.ts';

export function podIdentities(pods: readonly unknown[]): Map<string, PodIdentity> {
  const out = new Map<string, PodIdentity>();
  for (const pod of pods) {
    const uid = asString(path(pod, 'metadata', 'uid'));
    const name = asString(path(pod, 'metadata', 'name'));
    if (!uid || !name) continue;
    const containers = new Map<string, string>();
    for (const field of ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'])
      for (const status of asArray(path(pod, 'status', field))) {
        const id = asString(path(status, 'containerID'));
        const container = asString(path(status, 'name'));
        if (id && container) containers.set(id.replace(/^[a-z0-9.-]{1,32}:\/\//, ''), container);
      }
    out.set(uid, { namespace: asString(path(pod, 'metadata', 'namespace')) ?? 'default', name, containers });
  }
  return out;
}

/** The `namespace/name` names the analysis takes (AnalyzeOptions.podNames). */
export function podNamesOfIdentities(identities: ReadonlyMap<string, PodIdentity>): Map<string, string> {
  return new Map([...identities].map(([uid, identity]) => [uid, `${identity.namespace}/${identity.name}`]));
}
