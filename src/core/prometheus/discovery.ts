// Which Service is the cluster's Prometheus, from the Services the common installs label (pure; the listing is
// src/prometheus/discovery.ts). Labels, from the installs' manifests:
// - kube-prometheus (prometheus-k8s) and the prometheus-community chart: `app.kubernetes.io/name=prometheus`;
// - kube-prometheus-stack: `self-monitor=true` on its `<release>-prometheus` service (with `app=<release>-prometheus`).
// The port is the one named web, http-web or http, else 9090, else the first.

export const PROMETHEUS_SERVICE_SELECTORS: readonly string[] = ['app.kubernetes.io/name=prometheus', 'self-monitor=true'];
const PORT_NAMES = ['web', 'http-web', 'http'];

/** The fields of a core/v1 Service this reads. */
export interface ServiceShape {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec?: { readonly ports?: readonly { readonly name?: string; readonly port: number }[] };
}

export interface PrometheusService {
  readonly namespace: string;
  readonly name: string;
  /** The port's name, else its number. */
  readonly port: string;
}

function portOf(service: ServiceShape): string | undefined {
  const ports = service.spec?.ports ?? [];
  const named = PORT_NAMES.map((name) => ports.find((port) => port.name === name)).find((port) => port !== undefined);
  const chosen = named ?? ports.find((port) => port.port === 9090) ?? ports[0];
  if (!chosen) return undefined;
  return chosen.name || String(chosen.port);
}

/** Prefers a service that is not the operator's headless `prometheus-operated`, then the lowest namespace/name. */
export function choosePrometheusService(services: readonly ServiceShape[]): PrometheusService | undefined {
  const candidates = services
    .filter((service) => service.metadata?.name && service.metadata.namespace && portOf(service) !== undefined)
    .sort(
      (a, b) =>
        Number(a.metadata?.name === 'prometheus-operated') - Number(b.metadata?.name === 'prometheus-operated') ||
        `${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(`${b.metadata?.namespace}/${b.metadata?.name}`),
    );
  const service = candidates[0];
  const name = service?.metadata?.name;
  const namespace = service?.metadata?.namespace;
  if (!service || !name || !namespace) return undefined;
  return { namespace, name, port: portOf(service) as string };
}
