// The demo cluster of `npm start` (scripts/demo-cluster.mjs) as it starts there: the simulator's process with its
// fixtures and, as root, a real gpumem agent on each fixture node behind the pod proxy (test/simulator/demoAgents.ts).
// `gpumem fleet` on its kubeconfig reads the agents, as the Fleet view does; stopping it ends every agent.
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
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
// @ts-expect-error: plain JavaScript, like scripts/start.mjs that uses it
import { startDemoCluster } from '../../scripts/demo-cluster.mjs';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();

interface DemoCluster {
  readonly kubeconfig: string;
  readonly roots: boolean;
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
  "npm start's demo cluster: a gpumem agent on each fixture node, read by gpumem fleet; stop ends them all",
  { skip: NO_ROOTS ?? false, timeout: 240_000 },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'gpumem-demo-test-'));
    const cluster = (await startDemoCluster({ kubeconfig: join(work, 'kubeconfig'), logFile: join(work, 'demo.log') })) as DemoCluster;
    try {
      assert.equal(cluster.roots, true);
      assert.ok(processesWith('gpumem-demo-agents-').length >= 3, 'three agent processes');
      const run = await runCli(['fleet', '--kubeconfig', cluster.kubeconfig, '--format', 'json'], {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work },
        timeoutMs: 120_000,
      });
      assert.equal(run.code, 1, `a warning (the pod over its limit): ${run.stderr}`);
      assert.match(run.stderr, /reading the 3 gpumem agents of context gpumem-demo through the pod proxy/);
      const summary = JSON.parse(run.stdout) as { line: string; nodes: { node: string }[] };
      assert.deepEqual(summary.nodes.map((row) => row.node).sort(), ['gpu-node-7', 'strix-node-1', 'web-node-3']);
      assert.match(summary.line, /1 pod over its limit once GPU memory is counted/);
    } finally {
      await cluster.stop();
      rmSync(work, { recursive: true, force: true });
    }
    await eventually('no agent left running', () => processesWith('gpumem-demo-agents-').length === 0, 20_000);
  },
);
