// Finding the cluster's Prometheus when no URL is set: its Service, listed by the labels the common installs give it
// (src/core/prometheus/discovery.ts chooses), reached through the API server's service proxy with the kubeconfig's
// own credentials (as `kubectl proxy` reaches it), so no port-forward, no NodePort and no other credentials are needed.
import type { V1Service } from '@kubernetes/client-node';
import { pushAll } from '../core/arrays.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import type { PrometheusService } from '../core/prometheus/discovery.ts';
import { choosePrometheusService, PROMETHEUS_SERVICE_SELECTORS } from '../core/prometheus/discovery.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { KubeRequestError } from '../kube/clusterClient.ts';

export type PrometheusDiscovery =
  { readonly kind: 'found'; readonly service: PrometheusService } | { readonly kind: 'none'; readonly reason: string };

export async function discoverPrometheus(client: ClusterClient, signal?: AbortSignal): Promise<PrometheusDiscovery> {
  const found: V1Service[] = [];
  const refused: string[] = [];
  for (const labelSelector of PROMETHEUS_SERVICE_SELECTORS) {
    try {
      pushAll(found, await client.listServicesInAllNamespaces({ labelSelector, ...(signal ? { signal } : {}) }));
    } catch (error) {
      refused.push(error instanceof KubeRequestError ? describeKubeFailure(error.failure) : String(error));
    }
  }
  const service = choosePrometheusService(found);
  if (service) return { kind: 'found', service };
  return {
    kind: 'none',
    reason: refused.length > 0 ? `services could not be listed: ${refused[0]}` : 'no Prometheus service in the cluster',
  };
}
