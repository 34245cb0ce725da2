// Finding the cluster's Prometheus when no URL is set: its Service, listed by the labels the common installs give it,
// reached through the API server's service proxy with the kubeconfig's own credentials (as `kubectl proxy` reaches
// it), so no port-forward, no NodePort and no other credentials are needed. Labels, from the installs' manifests:
// - kube-prometheus (prometheus-k8s) and the prometheus-community chart: `app.kubernetes.io/name=prometheus`;
// - kube-prometheus-stack: `self-monitor=true` on its `<release>-prometheus` service (with `app=<release>-prometheus`).
// The port is the one named web, http-web or http, else 9090, else the first.
import type { V1Service } from '@kubernetes/client-node';
import { pushAll } from '../core/arrays.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { KubeRequestError } from '../kube/clusterClient.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';

const SELECTORS = ['app.kubernetes.io/name=prometheus', 'self-monitor=true'];
const PORT_NAMES = ['web', 'http-web', 'http'];

export interface PrometheusService {
  readonly namespace: string;
  readonly name: string;
  /** The port's name, else its number. */
  readonly port: string;
  /** The API server path prefix of the service proxy. */
  readonly proxyPath: string;
}

export type PrometheusDiscovery =
  { readonly kind: 'found'; readonly service: PrometheusService } | { readonly kind: 'none'; readonly reason: string };

function portOf(service: V1Service): string | undefined {
  const ports = service.spec?.ports ?? [];
  const named = PORT_NAMES.map((name) => ports.find((port) => port.name === name)).find((port) => port !== undefined);
  const chosen = named ?? ports.find((port) => port.port === 9090) ?? ports[0];
  if (!chosen) return undefined;
  return chosen.name || String(chosen.port);
}

/** Prefers a service that is not the operator's headless `prometheus-operated`, then the lowest namespace/name. */
export async function discoverPrometheus(client: ClusterClient, signal?: AbortSignal): Promise<PrometheusDiscovery> {
  const found: V1Service[] = [];
  const refused: string[] = [];
  for (const labelSelector of SELECTORS) {
    try {
      pushAll(found, await client.listServicesInAllNamespaces({ labelSelector, ...(signal ? { signal } : {}) }));
    } catch (error) {
      refused.push(error instanceof KubeRequestError ? describeKubeFailure(error.failure) : String(error));
    }
  }
  const candidates = found
    .filter((service) => service.metadata?.name && service.metadata.namespace && portOf(service) !== undefined)
    .sort(
      (a, b) =>
        Number(a.metadata?.name === 'prometheus-operated') - Number(b.metadata?.name === 'prometheus-operated') ||
        `${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(`${b.metadata?.namespace}/${b.metadata?.name}`),
    );
  const service = candidates[0];
  if (!service?.metadata?.name || !service.metadata.namespace)
    return {
      kind: 'none',
      reason: refused.length > 0 ? `services could not be listed: ${refused[0]}` : 'no Prometheus service in the cluster',
    };
  const port = portOf(service) as string;
  const namespace = service.metadata.namespace;
  const name = service.metadata.name;
  return {
    kind: 'found',
    service: {
      namespace,
      name,
      port,
      proxyPath: `api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(name)}:${encodeURIComponent(port)}/proxy`,
    },
  };
}
