// End-to-end: the Fleet view (issue #13) in the packaged extension in a real VS Code (code-server 4.139.1) driven
// through headless Chromium, against the Kubernetes API simulator, with real gpumem agents:
//   - three real `gpumem agent` processes (test/helpers/agentProcess.ts) probe chroot fixture roots laid out as the
//     DaemonSet sees a node (test/helpers/fixtureRoot.ts, as test/integration/agentPrometheus.test.ts does): the
//     Strix Halo APU node with a GTT-heavy pod over its limit, the HAMi NVIDIA node with a container over its
//     quota, a plain node; their pods in gpumem-system are served by the simulator, whose pod proxy forwards
//     /metrics to each agent. No Prometheus URL is set and the simulator has no Prometheus service: the view
//     reads the agents through the pod proxy;
//   - the context's Fleet item (first among its children) opens the panel; the verdict line says ERROR and names
//     the pods over their limit once GPU memory is counted and the HAMi bypass; the stacked bars have widths
//     (set through the CSSOM under the CSP, which blocks style attributes) and the page saw no CSP violation;
//   - a click on a column header sorts (aria-sort), the vendor filter keeps the NVIDIA node alone;
//   - the first pod over its limit, clicked, is selected in the Clusters view and its Inspect Pod panel opens;
//   - Export Markdown writes the summary through the save dialog;
//   - the README's picture media/screenshot-fleet.png is taken from this run.
// A second scenario reads the same agents through a real Prometheus (Debian's package) named by the
// gpumem.fleet.prometheusUrl setting: the command palette opens the view, the window changes to 1 h, the panel
// survives a window reload (the serializer reopens the same context and window and reads it again), and a click on a
// node selects it in the Clusters view and opens its Inspect Node panel.
// A third: a cluster without agents offers the debug-pod scan.
// Needs root (chroot fixture roots, the simulator's exec). Run with `npm run test:e2e -- test/e2e/fleet.e2e.test.ts`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import type { AgentProcess } from '../helpers/agentProcess.ts';
import { startAgentProcess, stopAgentProcess } from '../helpers/agentProcess.ts';
import { buildApuNode, buildPlainNode, fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import type { Fixture } from '../helpers/fixtureRoot.ts';
import { buildHamiNvidiaNode } from '../helpers/nvidiaSmiRoot.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';
import { freePort } from '../helpers/sshd.ts';
import type { Simulator } from '../simulator/server.ts';
import {
  fixturesWith,
  openClusters,
  selectedClusterRow,
  setExpanded,
  treeRow,
  widenSideBar,
  withClusterWorkbench,
} from './harness/clusters.ts';
import { publishScreenshot } from './harness/readmeMedia.ts';
import { findWebviewFrame, inspectorPanel, reloadWindow, runCommand, SELECTORS, waitFor } from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 8 * 60_000;
const PROBE_TIMEOUT_MS = 90_000;
const NODES = ['strix-node-1', 'gpu-node-7', 'web-node-3'] as const;

const AGENT_PODS = [
  'apiVersion: v1\nkind: Namespace\nmetadata: {name: gpumem-system}',
  ...NODES.map(
    (node) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: gpumem-agent-${node}, namespace: gpumem-system, labels: {app.kubernetes.io/name: gpumem-agent}}\nspec: {nodeName: ${node}, hostPID: true, volumes: [{name: host-root, hostPath: {path: /}}], containers: [{name: agent, image: ghcr.io/gpumem/gpumem-agent:0.1.0, volumeMounts: [{name: host-root, mountPath: /host, readOnly: true}]}]}\nstatus: {phase: Running}`,
  ),
].join('\n---\n');

/** `gpumem agent` on a fixture root with the simulator's kubeconfig (pod names); resolves once it has probed. */
async function startAgent(node: string, fixture: Fixture<unknown>, kubeconfig: string): Promise<AgentProcess> {
  const agent = await startAgentProcess({ node, root: fixture.root, hostRoot: fixture.hostRoot, kubeconfig });
  // One good cycle, so the first read has every node's numbers.
  await waitFor(
    `the agent on ${node} to have probed`,
    async () => (await fetch(`http://127.0.0.1:${agent.port}/metrics`).then((r) => r.text())).includes('gpumem_node_memory_total_bytes'),
    (ok) => ok,
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  return agent;
}

interface RunningAgents {
  /** `127.0.0.1:<port>` of each agent's /metrics. */
  readonly targets: readonly string[];
  stop(): Promise<void>;
}

/** Starts the three agents and points the simulator's pod proxy at them. */
async function startAgents(sim: Simulator): Promise<RunningAgents> {
  const work = mkdtempSync(path.join(tmpdir(), 'gpumem-e2e-fleet-'));
  const kubeconfig = path.join(work, 'kubeconfig');
  writeFileSync(kubeconfig, sim.kubeconfig('admin'), { mode: 0o600 });
  const fixtures: Fixture<unknown>[] = [];
  const agents: AgentProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(agents.map((agent) => stopAgentProcess(agent)));
    for (const fixture of fixtures) fixture.cleanup();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    const build: Record<(typeof NODES)[number], () => Fixture<unknown>> = {
      'strix-node-1': () => buildApuNode({ hostRoot: '/host' }),
      'gpu-node-7': () => buildHamiNvidiaNode('host', { hostRoot: '/host' }),
      'web-node-3': () => buildPlainNode({ hostRoot: '/host' }),
    };
    for (const node of NODES) {
      const fixture = build[node]();
      fixtures.push(fixture);
      const agent = await startAgent(node, fixture, kubeconfig);
      agents.push(agent);
      sim.setPodProxy('gpumem-system', `gpumem-agent-${node}`, 9400, `http://127.0.0.1:${agent.port}`);
    }
    return { targets: agents.map((agent) => `127.0.0.1:${agent.port}`), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Answers code-server's simple file dialog (a quick input holding a path), as the inspector spec does. */
async function answerFileDialog(page: Page, file: string): Promise<void> {
  const widget = page.locator(SELECTORS.quickInput);
  await widget.waitFor({ state: 'visible', timeout: 20_000 });
  const input = page.locator(SELECTORS.quickInputBox);
  await waitFor(
    "the file dialog's starting path",
    () => input.inputValue(),
    (value) => value.startsWith('/'),
    {
      timeoutMs: 20_000,
      intervalMs: 100,
    },
  );
  await page.waitForTimeout(300);
  await waitFor(
    `the file dialog to accept ${file}`,
    async () => {
      if (!(await widget.isVisible())) return true;
      if ((await input.inputValue()) !== file) {
        await input.fill(file);
        await page.waitForTimeout(300);
      }
      await input.press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
      return !(await widget.isVisible());
    },
    (closed) => closed,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

async function nodeOrder(frame: FrameLocator): Promise<string[]> {
  return frame.locator('#node-scroll .node-row').evaluateAll((rows) =>
    rows
      .map((row) => ({ index: Number(row.getAttribute('data-index')), node: row.getAttribute('data-node') ?? '' }))
      .sort((a, b) => a.index - b.index)
      .map((row) => row.node),
  );
}

test(
  'the Fleet view: the Fleet item opens it, the verdict line, sort, filter, a pod opened in the Clusters view and its inspector, Markdown export',
  { timeout: SCENARIO_TIMEOUT_MS, skip: fixtureRootsUnavailable() ?? false },
  async () => {
    await withClusterWorkbench('fleet', { fixtures: fixturesWith(AGENT_PODS), viewport: { width: 1600, height: 1000 } }, async (s, sim) => {
      const { page } = s;
      const agents = await s.step('start three gpumem agents on fixture roots, behind the pod proxy', () => startAgents(sim), 120_000);
      try {
        await openClusters(s);
        await s.step('widen the side bar', () => widenSideBar(page, 420));
        await s.step('expand gpumem-demo', () => setExpanded(page, 'gpumem-demo', true));
        const fleetRow = treeRow(page, 'Fleet');
        await s.step('the Fleet item is the first child of the context', async () => {
          await fleetRow.waitFor({ state: 'visible', timeout: 20_000 });
          assert.equal(await fleetRow.getAttribute('aria-level'), '2');
        });
        await s.step('open the Fleet item', () => fleetRow.click());
        const frame = await s.step('the fleet panel shows its verdict line', async () => {
          const found = await findWebviewFrame(page, '#verdict-line', { timeoutMs: 60_000 });
          await found.locator('body[data-loaded="true"]').waitFor({ state: 'attached', timeout: 20_000 });
          return found;
        });
        const line = (await frame.locator('#verdict-text').innerText()).trim();
        assert.match(line, /pods? over (its|their) limit once GPU memory is counted/);
        assert.match(line, /1 HAMi container bypassing its quota/);
        assert.equal((await frame.locator('#verdict-badge').innerText()).trim(), 'ERROR');
        assert.match(await frame.locator('#source-line').innerText(), /the \/metrics of 3 agents · window 24h · 3 GPU nodes/);
        assert.equal(await frame.locator('#title').innerText(), 'Fleet of gpumem-demo');
        assert.ok((await frame.locator('#verdicts li').count()) >= 2, 'the verdicts with their remedies');
        assert.match((await frame.locator('#verdicts a.link').first().getAttribute('href')) ?? '', /docs\/fleet\.md#fleet/);
        assert.deepEqual((await nodeOrder(frame)).sort(), [...NODES].sort(), 'every node reported');
        // The stacked bars are sized through the CSSOM: the CSP blocks style attributes, not this.
        const widths = await frame
          .locator('.node-row[data-node="strix-node-1"] .seg')
          .evaluateAll((segments) => segments.map((segment) => segment.getBoundingClientRect().width));
        assert.equal(widths.length, 3);
        assert.ok((widths[0] ?? 0) > 0 && (widths[1] ?? 0) > 0, `cgroup and GTT segments drawn: ${widths.join(', ')}`);
        assert.equal(await frame.locator('#csp-violations').getAttribute('data-count'), '0', 'no CSP violation');
        assert.ok(Number(await frame.locator('#kills-chart').getAttribute('data-points')) <= 48);

        await s.step('sort by node name', async () => {
          await frame.locator('button.sort[data-column="Node"]').click();
          await waitFor(
            'sorted by name',
            () => nodeOrder(frame),
            (order) => order.join() === [...NODES].sort().join(),
            {
              timeoutMs: 5_000,
            },
          );
          const header = frame.locator('[role="columnheader"]', { has: frame.locator('button.sort[data-column="Node"]') });
          assert.equal(await header.getAttribute('aria-sort'), 'ascending');
        });
        await s.step('sort by node name again: descending', async () => {
          await frame.locator('button.sort[data-column="Node"]').click();
          await waitFor(
            'sorted by name, descending',
            () => nodeOrder(frame),
            (order) => order.join() === [...NODES].sort().reverse().join(),
            {
              timeoutMs: 5_000,
            },
          );
        });
        await s.step('the node table by keyboard: Home, ArrowDown, End, ArrowUp move the focus (roving tabindex)', async () => {
          const descending = [...NODES].sort().reverse();
          const focused = () => frame.locator('.node-row:focus').getAttribute('data-node');
          await frame.locator(`.node-row[data-node="${descending[1]}"]`).focus();
          const moves: [string, string | undefined][] = [
            ['Home', descending[0]],
            ['ArrowDown', descending[1]],
            ['End', descending.at(-1)],
            ['ArrowUp', descending.at(-2)],
          ];
          for (const [key, node] of moves) {
            await page.keyboard.press(key);
            await waitFor(`${key} focuses ${node}`, focused, (got) => got === node, { timeoutMs: 5_000 });
          }
          assert.equal(await frame.locator('.node-row[tabindex="0"]').count(), 1, 'one row in the tab order');
        });
        await s.step('filter by vendor: NVIDIA', async () => {
          await frame.locator('#filter-vendor').selectOption('nvidia');
          await waitFor(
            'the NVIDIA node alone',
            () => nodeOrder(frame),
            (order) => order.join() === 'gpu-node-7',
            { timeoutMs: 5_000 },
          );
          assert.equal((await frame.locator('#node-count').innerText()).trim(), 'Showing 1 of 3 nodes');
        });
        await s.step('all vendors again, in rank order', async () => {
          await frame.locator('#filter-vendor').selectOption('');
          await frame.locator('button.sort[data-column="#"]').click();
        });
        // The README's picture: the Clusters view with the Fleet item, beside the fleet panel.
        await frame.locator('#title').hover();
        await publishScreenshot(await s.screenshot('fleet-view'), 'fleet');

        // Export Markdown through the save dialog.
        const target = s.file('fleet-summary.md');
        await s.step('export Markdown', async () => {
          await frame.locator('#export-markdown').click();
          await answerFileDialog(page, target);
        });
        const markdown = await s.step('the Markdown file is written', () =>
          waitFor(
            'the Markdown export',
            () => readFile(target, 'utf8').catch(() => ''),
            (text) => text.length > 0,
            {
              timeoutMs: 20_000,
              intervalMs: 300,
            },
          ),
        );
        assert.match(markdown, /^# /);
        assert.match(markdown, /over (its|their) limit once GPU memory is counted/);
        assert.match(markdown, /strix-node-1/);
        await waitFor(
          'the export says where it went',
          () => frame.locator('#export-status').getAttribute('data-state'),
          (v) => v === 'saved',
          {
            timeoutMs: 10_000,
          },
        );

        // The first pod over its limit, clicked: selected in the Clusters view, and its Inspect Pod panel.
        const podRow = frame.locator('#pods-over-limit tbody tr').first();
        const podName = (await podRow.getAttribute('data-pod')) ?? '';
        assert.match(podName, /^[a-z0-9-]+\/[a-z0-9.-]+$/, 'a named pod');
        const pod = podName.split('/')[1] ?? '';
        await s.step(`open ${podName} from the fleet view (Enter)`, async () => {
          await podRow.focus();
          await page.keyboard.press('Enter');
        });
        await s.step(`${pod} is selected in the Clusters view`, () => selectedClusterRow(page, pod));
        const inspector = await s.step(
          'its Inspect Pod panel opens',
          () => inspectorPanel(page, PROBE_TIMEOUT_MS),
          PROBE_TIMEOUT_MS + 30_000,
        );
        assert.match(await inspector.locator('#title').innerText(), new RegExp(pod));
      } finally {
        await agents.stop();
      }
    });
  },
);

/** The fleet panel's frame once its fleet is shown (data-loaded), with the source line that says how it was read. */
async function loadedFleet(page: Page, source: RegExp): Promise<FrameLocator> {
  const frame = await findWebviewFrame(page, '#verdict-line', { timeoutMs: 60_000 });
  await frame.locator('body[data-loaded="true"]').waitFor({ state: 'attached', timeout: 20_000 });
  await waitFor(
    'the source line',
    () => frame.locator('#source-line').innerText(),
    (text) => source.test(text),
    { timeoutMs: 30_000 },
  );
  return frame;
}

test(
  'the Fleet view from Prometheus (the URL setting): the command palette opens it, the window, a window reload restores it, a node opens in the Clusters view and its inspector',
  { timeout: SCENARIO_TIMEOUT_MS, skip: fixtureRootsUnavailable() ?? prometheusUnavailable() ?? false },
  async () => {
    // The setting is written before the workbench starts: Prometheus starts on this port once the agents run.
    const port = await freePort();
    const settings = { 'gpumem.fleet.prometheusUrl': `http://127.0.0.1:${port}` };
    await withClusterWorkbench('fleet-prometheus', { fixtures: fixturesWith(AGENT_PODS), settings }, async (s, sim) => {
      const { page } = s;
      const agents = await s.step('start three gpumem agents on fixture roots', () => startAgents(sim), 120_000);
      const work = mkdtempSync(path.join(tmpdir(), 'gpumem-e2e-fleet-prom-'));
      try {
        const prometheus = await s.step(
          'start Prometheus scraping them; wait for a scrape of each',
          async () => {
            const started = await startPrometheus({ dir: work, scrapeTargets: agents.targets, port });
            const query = `${started.base}/api/v1/query?query=${encodeURIComponent('count(gpumem_node_memory_total_bytes)')}`;
            await waitFor(
              'a scrape of the three agents',
              async () => ((await (await fetch(query)).json()) as { data: { result: { value: [number, string] }[] } }).data.result,
              (result) => Number(result[0]?.value[1] ?? 0) === NODES.length,
              { timeoutMs: 60_000, intervalMs: 500 },
            );
            return started;
          },
          90_000,
        );
        try {
          await openClusters(s);
          await s.step('widen the side bar', () => widenSideBar(page, 420));
          // One context in the kubeconfig: the command opens its fleet without asking which.
          await s.step('gpumem: Open Fleet View…', () => runCommand(page, 'gpumem: Open Fleet View…'));
          let frame = await s.step('the fleet, read from Prometheus', () =>
            loadedFleet(page, /^Prometheus at 127\.0\.0\.1:\d+ · window 24h · 3 GPU nodes/),
          );
          assert.match(await frame.locator('#verdict-text').innerText(), /1 HAMi container bypassing its quota/);
          assert.equal(await frame.locator('#csp-violations').getAttribute('data-count'), '0', 'no CSP violation');

          await s.step('window: last 1h', () => frame.locator('#window').selectOption('1h'));
          await s.step('read again over 1h', () =>
            waitFor(
              'the 1h source line',
              () => frame.locator('#source-line').innerText(),
              (text) => / · window 1h · /.test(text),
              {
                timeoutMs: 30_000,
              },
            ),
          );

          await s.step('Developer: Reload Window, and the workbench back', () => reloadWindow(page), 120_000);
          frame = await s.step(
            'the fleet panel is restored, with its context and window, and read again',
            () => loadedFleet(page, /^Prometheus at 127\.0\.0\.1:\d+ · window 1h · 3 GPU nodes/),
            90_000,
          );
          assert.equal(await frame.locator('#title').innerText(), 'Fleet of gpumem-demo');
          assert.equal(await frame.locator('#window').inputValue(), '1h');
          assert.equal(await frame.locator('#csp-violations').getAttribute('data-count'), '0', 'no CSP violation after the reload');

          // A click on a node: selected in the Clusters view, and its Inspect Node panel (a debug pod in the simulator).
          await s.step('click strix-node-1 in the node table', () => frame.locator('.node-row[data-node="strix-node-1"]').click());
          await s.step('strix-node-1 is selected in the Clusters view', () => selectedClusterRow(page, 'strix-node-1'));
          const inspector = await s.step(
            'its Inspect Node panel opens',
            () => inspectorPanel(page, PROBE_TIMEOUT_MS),
            PROBE_TIMEOUT_MS + 30_000,
          );
          assert.match(await inspector.locator('#title').innerText(), /strix-node-1/);
          await s.screenshot('fleet-prometheus');
        } finally {
          await prometheus.stop();
        }
      } finally {
        await agents.stop();
        rmSync(work, { recursive: true, force: true });
      }
    });
  },
);

/** VS Code's modal dialog (showWarningMessage with `modal: true`): the custom dialog of the web workbench. */
const DIALOG = '.monaco-dialog-box';

test(
  'a cluster without agents: the Fleet view offers a scan, the modal says what it creates, Cancel creates nothing, Scan reads the GPU nodes and leaves no pod',
  { timeout: SCENARIO_TIMEOUT_MS, skip: fixtureRootsUnavailable() ?? false },
  async () => {
    // The demo cluster as it is: no gpumem-system agents, no Prometheus service.
    await withClusterWorkbench('fleet-scan', { viewport: { width: 1600, height: 1000 } }, async (s, sim) => {
      const { page } = s;
      await openClusters(s);
      await s.step('widen the side bar', () => widenSideBar(page, 420));
      await s.step('expand gpumem-demo', () => setExpanded(page, 'gpumem-demo', true));
      await s.step('open the Fleet item', () => treeRow(page, 'Fleet').click());
      const frame = await s.step('the panel says no agent runs and offers the scan', () =>
        findWebviewFrame(page, '#error button#scan', { timeoutMs: 60_000 }),
      );
      assert.match(await frame.locator('#error').innerText(), /no gpumem agent runs in context gpumem-demo/);
      const podsBefore = sim.state.createdPods.length;
      const dialog = page.locator(DIALOG);
      const openModal = async (): Promise<string> => {
        await frame.locator('#scan').click();
        await dialog.waitFor({ state: 'visible', timeout: 30_000 });
        return (await dialog.innerText()).replace(/\s+/g, ' ').trim();
      };
      const press = async (button: string): Promise<void> => {
        await dialog.getByRole('button', { name: button, exact: true }).click({ timeout: 10_000 });
        await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
      };
      const modal = await s.step('the modal', openModal);
      assert.match(modal, /Scan the GPU nodes of gpumem-demo with debug pods\?/);
      assert.match(modal, /8 at a time, in namespace default with image /);
      assert.match(modal, /deleted once its node is read, and on error and cancel/);
      await s.step('press Cancel', () => press('Cancel'));
      await page.waitForTimeout(1_000);
      assert.equal(sim.state.createdPods.length, podsBefore, 'Cancel creates no pod');

      await s.step('the modal again', openModal);
      await s.step('press Scan', () => press('Scan'));
      await s.step(
        'the scanned fleet replaces the offer',
        async () => {
          await frame.locator('#verdict-line').waitFor({ state: 'visible', timeout: PROBE_TIMEOUT_MS });
          await waitFor(
            'the source line of a scan',
            () => frame.locator('#source-line').innerText(),
            (text) => /a scan of \d+ GPU nodes? with debug pods/.test(text),
            { timeoutMs: 20_000 },
          );
        },
        PROBE_TIMEOUT_MS + 30_000,
      );
      assert.equal(await frame.locator('#error').isVisible(), false);
      const debugPods = sim.state.createdPods.slice(podsBefore);
      assert.ok(debugPods.length >= 1, 'the scan created debug pods');
      assert.ok(
        debugPods.every((pod) => pod.namespace === 'default' && pod.nodeName !== undefined),
        'in the debug namespace, one per node',
      );
      await s.step('no debug pod is left', () =>
        waitFor(
          'the scan to delete its pods',
          async () =>
            sim.state.list('pods', 'default').filter((pod) => debugPods.some((created) => created.name === pod.metadata.name)).length,
          (left) => left === 0,
          { timeoutMs: 60_000, intervalMs: 500 },
        ),
      );
    });
  },
);
