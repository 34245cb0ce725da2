// The demo cluster's Prometheus (`npm start`; test/simulator/main.ts --prometheus): Debian's prometheus scraping
// the demo's gpumem agents (demoAgents.ts), behind the simulator's service proxy as the Service kube-prometheus
// installs (monitoring/prometheus-k8s, labelled app.kubernetes.io/name=prometheus, port web). The Fleet view and
// `gpumem fleet` then find it without a URL and read the fleet with PromQL, as in a cluster that has both.
// Resolves once Prometheus has scraped every agent, so the first read has every node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PrometheusProcess } from '../helpers/prometheusProcess.ts';
import { startPrometheus } from '../helpers/prometheusProcess.ts';
import type { DemoAgents } from './demoAgents.ts';
import type { KubeObject } from './objects.ts';
import type { Simulator } from './server.ts';

const NAMESPACE = 'monitoring';
const SERVICE = 'prometheus-k8s';

export interface DemoPrometheus {
  readonly url: string;
  /** `monitoring/prometheus-k8s` */
  readonly service: string;
  stop(): Promise<void>;
}

function service(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: SERVICE,
      namespace: NAMESPACE,
      labels: {
        'app.kubernetes.io/name': 'prometheus',
        'app.kubernetes.io/component': 'prometheus',
        'app.kubernetes.io/part-of': 'kube-prometheus',
      },
    },
    spec: { ports: [{ name: 'web', port: 9090, targetPort: 'web' }], selector: { 'app.kubernetes.io/name': 'prometheus' } },
  } as KubeObject;
}

async function scrapedTargets(base: string): Promise<number> {
  const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent('count(up{job="gpumem-agent"} == 1)')}`);
  const body = (await response.json()) as { data?: { result?: { value?: [number, string] }[] } };
  return Number(body.data?.result?.[0]?.value?.[1] ?? 0);
}

export async function startDemoPrometheus(sim: Simulator, agents: DemoAgents, scrapeIntervalSeconds = 5): Promise<DemoPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-demo-prometheus-'));
  let prometheus: PrometheusProcess | undefined;
  const stop = async (): Promise<void> => {
    sim.setServiceProxy(NAMESPACE, SERVICE, 'web', undefined);
    await prometheus?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    prometheus = await startPrometheus({
      dir,
      scrapeTargets: agents.agents.map((agent) => new URL(agent.url).host),
      scrapeIntervalSeconds,
    });
    const deadline = Date.now() + 10 * scrapeIntervalSeconds * 1000;
    while ((await scrapedTargets(prometheus.base)) < agents.agents.length) {
      if (Date.now() > deadline) throw new Error(`Prometheus did not scrape the ${agents.agents.length} demo agents: ${prometheus.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    if (!sim.state.list('namespaces').some((ns) => ns.metadata.name === NAMESPACE))
      sim.state.store.put('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } } as KubeObject);
    sim.state.store.put('services', service());
    sim.setServiceProxy(NAMESPACE, SERVICE, 'web', prometheus.base);
    return { url: prometheus.base, service: `${NAMESPACE}/${SERVICE}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
