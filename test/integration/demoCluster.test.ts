// The demo cluster of `npm start` (scripts/demo-cluster.mjs) as it starts there: the simulator's process with its
// fixtures and, as root, a real gpumem agent on each fixture node behind the pod proxy (test/simulator/demoAgents.ts),
// and with Debian's prometheus a real Prometheus scraping them behind the service proxy (demoPrometheus.ts).
// `gpumem fleet` on its kubeconfig finds that Prometheus, as the Fleet view does, and reads the agents directly with
// --source agents, and Inspect Node execs its probe into the node's agent pod; stopping the demo ends every agent
// and Prometheus.
//
// Needs root (the simulator's chroot roots); skipped otherwise.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { eventually } from '../helpers/asserts.ts';
import { fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { prometheusUnavailable } from '../helpers/prometheusProcess.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
// @ts-expect-error: plain JavaScript, like scripts/start.mjs that uses it
import { startDemoCluster } from '../../scripts/demo-cluster.mjs';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();

interface DemoCluster {
  readonly kubeconfig: string;
  readonly roots: boolean;
  readonly prometheus: boolean;
  stop(): Promise<void>;
}

/** Processes whose command line holds `text` (the agents name their kubeconfig's directory). */
function processesWith(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

test(
  "npm start's demo cluster: a gpumem agent on each fixture node and a Prometheus scraping them, read by gpumem fleet; stop ends them all",
  { skip: NO_ROOTS ?? false, timeout: 240_000 },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'gpumem-demo-test-'));
    const cluster = (await startDemoCluster({ kubeconfig: join(work, 'kubeconfig'), logFile: join(work, 'demo.log') })) as DemoCluster;
    try {
      assert.equal(cluster.roots, true);
      assert.ok(processesWith('gpumem-demo-agents-').length >= 3, 'three agent processes');
      const fleet = (args: string[]) =>
        runCli(['fleet', '--kubeconfig', cluster.kubeconfig, '--format', 'json', ...args], {
          env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work },
          timeoutMs: 120_000,
        });
      const expectFleet = (run: { code: number | null; stdout: string; stderr: string }): void => {
        assert.equal(run.code, 1, `a warning (the pod over its limit): ${run.stderr}`);
        const summary = JSON.parse(run.stdout) as { line: string; nodes: { node: string }[] };
        assert.deepEqual(summary.nodes.map((row) => row.node).sort(), ['gpu-node-7', 'strix-node-1', 'web-node-3']);
        assert.match(summary.line, /1 pod over its limit once GPU memory is counted/);
      };
      const agents = await fleet(['--source', 'agents']);
      assert.match(agents.stderr, /reading the 3 gpumem agents of context gpumem-demo through the pod proxy/);
      expectFleet(agents);
      assert.equal(cluster.prometheus, prometheusUnavailable() === undefined, 'a Prometheus when the package is installed');
      // Inspect Node goes through the node's agent pod, as with deploy/agent: its container has the node's / at /host.
      const node = await runCli(['inspect', '--node', 'strix-node-1', '--kubeconfig', cluster.kubeconfig, '--format', 'json'], {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work },
        timeoutMs: 120_000,
      });
      assert.match(node.stderr, /through the gpumem agent pod gpumem-system\/gpumem-agent-strix-node-1.*no debug pod/);
      assert.ok(node.stdout.trim().startsWith('{'), `a JSON report: ${node.stderr}`);
      const report = JSON.parse(node.stdout) as { target: string; verdicts: { id: string }[] };
      assert.match(report.target, /^gpumem agent pod gpumem-system\/gpumem-agent-strix-node-1 on node\/strix-node-1/);
      assert.ok(
        report.verdicts.some((verdict) => verdict.id === 'memory.pod-over-limit-in-reality'),
        `the node's GTT-heavy pod: ${node.stderr}`,
      );
      if (cluster.prometheus) {
        assert.ok(processesWith('gpumem-demo-prometheus-').length >= 1, 'the Prometheus process');
        const found = await fleet([]);
        assert.match(found.stdout, /Prometheus service monitoring\/prometheus-k8s through the API server/);
        expectFleet(found);
      }
    } finally {
      await cluster.stop();
      rmSync(work, { recursive: true, force: true });
    }
    await eventually('no agent left running', () => processesWith('gpumem-demo-agents-').length === 0, 20_000);
    await eventually('no Prometheus left running', () => processesWith('gpumem-demo-prometheus-').length === 0, 20_000);
  },
);
