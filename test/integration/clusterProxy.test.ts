// ClusterClient.proxyGet against the API simulator (its real pod and service proxies over TLS, client-node
// unmodified): the kubeconfig's credentials, the query string carried, the backend's own status returned as an
// answer, the API server's refusals as KubeRequestErrors (an agent's 403 explained as RBAC, not a bare "HTTP 403"),
// the deadline, cancellation, the byte cap, no redirect followed, and one connection pool for lists and proxies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { parseWindow } from '../../src/core/fleet/promFacts.ts';
import { readFleet } from '../../src/fleet/readFleet.ts';
import { ClusterClient, KubeRequestError } from '../../src/kube/clusterClient.ts';
import { completeFixtures, loadFixtures, mergeFixtures, parseFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const AGENT = { kind: 'pods', namespace: 'gpumem-system', name: 'gpumem-agent-strix-node-1', port: 9400 } as const;
const METRICS = '# TYPE gpumem_probe_cycles_total counter\ngpumem_probe_cycles_total{node="strix-node-1"} 3\n';

/** The backend behind the proxies: what each path answers. */
function backend(): Promise<{ server: Server; base: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    seen.push(url);
    if (url.startsWith('/metrics')) return res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' }).end(METRICS);
    if (url.startsWith('/echo')) return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ url }));
    if (url.startsWith('/bad'))
      return res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"status":"error","error":"parse error"}');
    if (url.startsWith('/big')) return res.writeHead(200).end('x'.repeat(64 * 1024));
    if (url.startsWith('/redirect')) return res.writeHead(302, { Location: 'https://example.invalid/elsewhere' }).end();
    if (url.startsWith('/slow')) return; // never answers
    res.writeHead(404).end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen })),
  );
}

describe('ClusterClient.proxyGet through the simulator', () => {
  let sim: Simulator;
  let back: Awaited<ReturnType<typeof backend>>;
  const clients: ClusterClient[] = [];

  const client = (user: string): ClusterClient => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(sim.kubeconfig(user));
    const made = new ClusterClient({ name: `sim-${user}`, kubeConfig }, { requestTimeoutMs: 10_000 });
    clients.push(made);
    return made;
  };

  before(async () => {
    const extra = parseFixtures(
      [
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: gpumem-system}',
        `apiVersion: v1\nkind: Pod\nmetadata: {name: ${AGENT.name}, namespace: gpumem-system, labels: {app.kubernetes.io/name: gpumem-agent}}\nspec: {nodeName: strix-node-1, containers: [{name: agent, image: ghcr.io/gpumem/gpumem-agent:0.1.0}]}\nstatus: {phase: Running}`,
        // May list the agent pods, but not reach them through the proxy (no get pods/proxy).
        'apiVersion: sim.gpumem.dev/v1\nkind: User\nmetadata: {name: lister}\nspec:\n  rules:\n    - verbs: [get, list, watch]\n      resources: [pods, nodes, services]',
      ].join('\n---\n'),
      { source: 'proxy test' },
    );
    sim = await startSimulator({ fixtures: completeFixtures(mergeFixtures(loadFixtures(), extra)), roots: false });
    back = await backend();
    sim.setPodProxy(AGENT.namespace, AGENT.name, AGENT.port, back.base);
  });

  after(async () => {
    for (const made of clients) await made.dispose(0);
    back?.server.closeAllConnections();
    back?.server.close();
    await sim?.close();
  });

  test("the backend's answer, its query string intact, with one connection pool for lists and proxies", async () => {
    const admin = client('admin');
    await admin.listNodes();
    const metrics = await admin.proxyGet(AGENT, 'metrics');
    assert.equal(metrics.status, 200);
    assert.equal(metrics.body, METRICS);
    assert.match(metrics.contentType, /^text\/plain/);
    const echo = await admin.proxyGet(AGENT, 'echo/api/v1/query?query=sum%20by%20(node)%20(x%7Ba%3D%22b%22%7D)&time=17');
    assert.deepEqual(JSON.parse(echo.body), { url: '/echo/api/v1/query?query=sum%20by%20(node)%20(x%7Ba%3D%22b%22%7D)&time=17' });
    assert.equal(admin.connections.built, 1, 'the list and the proxy GETs share one pool');
  });

  test("the backend's error status is an answer, not a Kubernetes failure", async () => {
    const answer = await client('admin').proxyGet(AGENT, 'bad');
    assert.equal(answer.status, 400);
    assert.equal(answer.body, '{"status":"error","error":"parse error"}');
  });

  test('a redirect is returned, not followed', async () => {
    const answer = await client('admin').proxyGet(AGENT, 'redirect');
    assert.equal(answer.status, 302);
  });

  test('an answer over the byte cap is refused', async () => {
    await assert.rejects(client('admin').proxyGet(AGENT, 'big', { maxBytes: 1024 }), (error: unknown) => {
      assert.ok(error instanceof KubeRequestError);
      assert.match(error.message, /larger than/);
      return true;
    });
  });

  test('the deadline and cancellation end a request the backend never answers', async () => {
    const admin = client('admin');
    await assert.rejects(admin.proxyGet(AGENT, 'slow', { timeoutMs: 300 }), (error: unknown) => {
      assert.ok(error instanceof KubeRequestError);
      assert.equal(error.failure.kind, 'timeout');
      return true;
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(admin.proxyGet(AGENT, 'slow', { signal: controller.signal }), (error: unknown) => {
      assert.ok(error instanceof KubeRequestError);
      assert.equal(error.failure.kind, 'cancelled');
      return true;
    });
  });

  test("the API server's 404 (no such pod) is a KubeRequestError", async () => {
    await assert.rejects(client('admin').proxyGet({ ...AGENT, name: 'gone' }, 'metrics'), (error: unknown) => {
      assert.ok(error instanceof KubeRequestError);
      assert.equal(error.failure.kind, 'not-found');
      return true;
    });
  });

  test('a refused agent scrape (403) is explained as RBAC, naming the check to run', async () => {
    const lister = client('lister');
    await assert.rejects(lister.proxyGet(AGENT, 'metrics'), (error: unknown) => {
      assert.ok(error instanceof KubeRequestError);
      assert.equal(error.failure.kind, 'forbidden');
      return true;
    });
    const window = parseWindow('1h');
    assert.ok(window);
    const read = await readFleet({ source: 'agents', window, top: 10, client: lister });
    const problem = read.summary.facts.problems.find((line) => line.includes(AGENT.name));
    assert.ok(problem, read.summary.facts.problems.join('\n'));
    assert.doesNotMatch(problem, /HTTP 403/);
    assert.match(problem, /may not get pods\/proxy in namespace "gpumem-system" \(RBAC\)/);
    assert.match(problem, /kubectl auth can-i get pods --subresource=proxy -n gpumem-system --context=sim-lister/);
  });
});
