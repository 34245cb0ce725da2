// Runs the Kubernetes API simulator standalone: the "demo cluster" of `npm start`.
//
//   npx node test/simulator/main.ts [--fixtures DIR] [--port N] [--write-kubeconfig FILE]
//                                   [--users admin,limited,viewer] [--bench NODES[xPODS]] [--no-roots] [--agents]
//                                   [--prometheus]
//
// --agents (with roots): a real `gpumem agent` on every node that has a fixture root, behind the pod proxy, as if
// deploy/agent were installed (demoAgents.ts); the Fleet view then reads them. Without it, the view offers a scan.
// --prometheus (with --agents): Debian's prometheus scraping them, as the Service monitoring/prometheus-k8s behind
// the service proxy (demoPrometheus.ts); the Fleet view then finds it and reads the fleet with PromQL.
// The kubeconfig holds one context per user (`gpumem-demo` for the first, `gpumem-demo-<user>` for the
// others), all on the cluster `gpumem-demo`; /version answers gitVersion v1.33.0-gpumem-sim. Stops on
// SIGINT/SIGTERM, ending execs, unmounting the debug pods' /host binds and removing every root and key.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FIXTURES_DIR, generateCluster, loadFixtures } from './fixtures.ts';
import { DEMO_CONTEXT, startSimulator } from './server.ts';
import type { DemoAgents } from './demoAgents.ts';
import { startDemoAgents } from './demoAgents.ts';
import type { DemoPrometheus } from './demoPrometheus.ts';
import { startDemoPrometheus } from './demoPrometheus.ts';

const { values } = parseArgs({
  options: {
    fixtures: { type: 'string' },
    port: { type: 'string' },
    'write-kubeconfig': { type: 'string' },
    users: { type: 'string' },
    bench: { type: 'string' },
    'no-roots': { type: 'boolean' },
    agents: { type: 'boolean' },
    prometheus: { type: 'boolean' },
    groups: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write(
    'usage: npx node test/simulator/main.ts [--fixtures DIR] [--port N] [--write-kubeconfig FILE] [--users a,b] [--bench 500x10] [--no-roots] [--agents] [--prometheus] [--groups]\n',
  );
  process.exit(0);
}

let fixtures;
if (values.bench) {
  const m = /^(\d+)(?:x(\d+))?$/.exec(values.bench);
  if (!m) throw new Error('--bench takes NODES or NODESxPODS, e.g. 500x10');
  fixtures = generateCluster({ nodes: Number(m[1]), podsPerNode: Number(m[2] ?? 10) });
} else {
  // --groups adds a RayCluster, a LeaderWorkerSet and a JobSet with their pods (fixtures-groups/), served under their
  // API groups.
  fixtures = loadFixtures(values.fixtures ? resolve(values.fixtures) : FIXTURES_DIR, { groups: values.groups === true });
}

const sim = await startSimulator({
  fixtures,
  ...(values.port ? { port: Number(values.port) } : {}),
  roots: !values['no-roots'],
});

const users = values.users
  ? values.users
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean)
  : sim.users.map((u) => u.name);
const kubeconfig = sim.kubeconfig(users);
if (values['write-kubeconfig']) {
  writeFileSync(values['write-kubeconfig'], kubeconfig, { mode: 0o600 });
}

// The agents read pod names with the first user's credentials, from a kubeconfig file of their own.
let agents: DemoAgents | undefined;
if (values.agents) {
  if (values['no-roots']) throw new Error('--agents needs the roots (the agents probe the nodes through chroot)');
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-demo-agents-'));
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, sim.kubeconfig(sim.users[0]?.name ?? 'admin'), { mode: 0o600 });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  agents = await startDemoAgents(sim, file);
}
let prometheus: DemoPrometheus | undefined;
if (values.prometheus) {
  if (!agents) throw new Error('--prometheus needs --agents (it scrapes them)');
  prometheus = await startDemoPrometheus(sim, agents);
}

const nodes = sim.state.store.count('nodes');
const podCount = sim.state.store.count('pods');
process.stdout.write(
  [
    `gpumem demo cluster (Kubernetes API simulator, ${DEMO_CONTEXT}) listening on ${sim.url}`,
    `  ${nodes} nodes, ${podCount} pods; users: ${users.join(', ')}`,
    values['write-kubeconfig']
      ? `  kubeconfig: ${resolve(values['write-kubeconfig'])} (context ${DEMO_CONTEXT})`
      : '  (pass --write-kubeconfig FILE to save a kubeconfig)',
    agents
      ? `  gpumem agents on ${agents.agents.map((a) => a.node).join(', ') || 'no node'} (the Fleet view reads them)`
      : '  no gpumem agents (--agents): the Fleet view offers a scan',
    prometheus
      ? `  Prometheus ${prometheus.url} scraping them, as the service ${prometheus.service} (the Fleet view finds it)`
      : '  no Prometheus (--prometheus): the Fleet view reads the agents directly',
    '  Ctrl-C to stop',
    '',
  ].join('\n'),
);

let stopping = false;
const stop = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping the demo cluster\n`);
  (prometheus?.stop() ?? Promise.resolve())
    .then(() => agents?.stop())
    .then(() => sim.close())
    .then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`close failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
