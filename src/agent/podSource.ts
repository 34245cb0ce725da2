// The agent's view of the pods on its node: one list+watch (`fieldSelector=spec.nodeName=<node>`) through the same
// ClusterClient as the extension, giving pod UID → namespace, name and container names, and HAMi's allocations.
// Without credentials, or when the API refuses or cannot be reached, the agent still runs: pods are labelled by UID
// and gpumem_kubernetes_api_up says why.
import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import type { ApiAccess } from '../core/agent/agentSamples.ts';
import { podIdentities } from '../core/agent/podIdentities.ts';
import type { KubeFailure } from '../core/kube/kubeFailure.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import { hamiPodQuotas } from '../core/kube/hamiPodQuotas.ts';
import { ClusterClient } from '../kube/clusterClient.ts';
import type { PodView } from './agent.ts';
import { errorMessage } from '../core/errorMessage.ts';

/** The in-cluster ServiceAccount token, as client-node's loadFromCluster reads it. */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export type KubeconfigChoice =
  { readonly kind: 'file'; readonly path: string } | { readonly kind: 'in-cluster' } | { readonly kind: 'none'; readonly why: string };

/** --kubeconfig FILE, else the ServiceAccount when running in a pod, else none (the agent labels pods by UID). */
export function chooseKubeconfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): KubeconfigChoice {
  if (file !== undefined) return { kind: 'file', path: file };
  if (env['KUBERNETES_SERVICE_HOST'] && existsSync(SERVICE_ACCOUNT_TOKEN)) return { kind: 'in-cluster' };
  return { kind: 'none', why: 'no --kubeconfig and no ServiceAccount token (not running in a pod)' };
}

function accessOf(failure: KubeFailure): ApiAccess {
  const detail = describeKubeFailure(failure);
  if (failure.kind === 'forbidden' || failure.kind === 'unauthorized') return { kind: 'unavailable', reason: 'forbidden', detail };
  if (failure.kind === 'credentials' || failure.kind === 'config') return { kind: 'unavailable', reason: 'no-credentials', detail };
  return { kind: 'unavailable', reason: 'unreachable', detail };
}

export class PodSource {
  #view: PodView;
  #stopWatch: () => void = () => undefined;
  readonly client: ClusterClient | undefined;

  private constructor(view: PodView, client: ClusterClient | undefined) {
    this.#view = view;
    this.client = client;
  }

  get view(): PodView {
    return this.#view;
  }

  /** Starts the watch (or, without credentials, a source that stays empty). Never throws. */
  static start(choice: KubeconfigChoice, nodeName: string, log: (line: string) => void): PodSource {
    const empty = { identities: new Map(), hamiQuotas: new Map() };
    if (choice.kind === 'none') {
      log(`no Kubernetes API: ${choice.why}; pods are labelled by UID only`);
      return new PodSource({ ...empty, api: { kind: 'unavailable', reason: 'no-credentials', detail: choice.why } }, undefined);
    }
    const kubeConfig = new KubeConfig();
    try {
      if (choice.kind === 'file') kubeConfig.loadFromFile(choice.path);
      else kubeConfig.loadFromCluster();
    } catch (error) {
      const detail = `${choice.kind === 'file' ? choice.path : 'in-cluster config'}: ${errorMessage(error)}`;
      log(`no Kubernetes API: ${detail}; pods are labelled by UID only`);
      return new PodSource({ ...empty, api: { kind: 'unavailable', reason: 'no-credentials', detail } }, undefined);
    }
    const client = new ClusterClient({ name: kubeConfig.getCurrentContext() || 'in-cluster', kubeConfig }, { log });
    const source = new PodSource(
      { ...empty, api: { kind: 'unavailable', reason: 'unreachable', detail: 'listing the pods on the node' } },
      client,
    );
    let reported = '';
    const onChange = (pods: readonly V1Pod[]): void => {
      if (source.#view.api.kind !== 'connected') log(`Kubernetes API: watching the ${pods.length} pod(s) on ${nodeName}`);
      reported = '';
      source.#view = { identities: podIdentities(pods), hamiQuotas: hamiPodQuotas(pods), api: { kind: 'connected' } };
    };
    const onError = (failure: KubeFailure): void => {
      const access = accessOf(failure);
      // Pod names are kept from the last good list: a pod's name does not change while the API is away.
      source.#view = { ...source.#view, api: access };
      if (access.kind === 'unavailable' && access.detail !== reported) {
        reported = access.detail;
        log(`Kubernetes API ${access.reason}: ${access.detail}; pods not in the last list are labelled by UID only`);
      }
    };
    source.#stopWatch = client.watchPodsOnNode(nodeName, onChange, { onError });
    return source;
  }

  stop(): void {
    this.#stopWatch();
    void this.client?.dispose(0);
  }
}
