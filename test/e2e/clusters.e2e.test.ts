// End-to-end: the Clusters view of the packaged extension in a real VS Code (code-server 4.139.1) driven
// through headless Chromium, against the Kubernetes API simulator (test/simulator) running in this process:
//   - the kubeconfig in the extension host's ~/.kube/config lists every context at once (admin, a user who
//     may list nothing, an offline cluster); expand context → the APU node → its GTT-heavy pod, whose rows
//     say what the cluster says (unified memory, MemoryPressure, SystemOOM, OOMKilled); the node's pod watch
//     runs while it is expanded and stops when it collapses;
//   - "Inspect Node" from the node's context menu runs the node probe in a debug pod and opens the inspector,
//     which names the GTT-heavy pod; live samples (every second) run in that same debug pod, the only one
//     alive; closing the panel deletes it; a second inspection's pod is deleted by a window reload
//     (deactivate), and the restored panel says it has no connection to sample;
//   - the welcome views: no kubeconfig (with Refresh), every context unreachable (and "Show the Contexts
//     Anyway"), and Restricted Mode.
// Needs root (the simulator's exec runs the probe in chroot fixture roots). Run with
// `npm run test:e2e -- test/e2e/clusters.e2e.test.ts`. Artifacts: test-artifacts/clusters-tree-and-report.png
// (the expanded tree next to the report, published as the README's media/screenshot-clusters.png),
// clusters-tree.png, clusters-welcome-*.png, …
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { stringify as stringifyYaml } from 'yaml';
import {
  CLUSTERS_VIEW as VIEW,
  clusterItem as item,
  clustersPane as pane,
  closedPort,
  openClusterNode,
  openClusters,
  readPreview,
  readWebviewText,
  runFromContextMenu,
  setExpanded,
  showClusters,
  treeRow,
  waitForClusterItem as waitForItem,
  widenSideBar,
  withClusterWorkbench,
  withHome,
} from './harness/clusters.ts';
import { withWorkbench } from './harness/session.ts';
import { liveSampleLines } from './harness/outputLog.ts';
import { publishScreenshot } from './harness/readmeMedia.ts';
import {
  openTabs,
  readNotifications,
  readTreeItems,
  readViewWelcome,
  runCommand,
  SELECTORS,
  waitFor,
  waitForNotification,
  waitForProblems,
  waitForTreeItem,
  webviewFrame,
  workbenchBack,
} from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 6 * 60_000;
const DEBUG_NS = 'gpumem-debug';

/** Hovers a row and returns the text of the tooltip VS Code shows for it. */
async function readTooltip(page: Page, label: string): Promise<string> {
  await treeRow(page, label).locator('.label-name').hover();
  const hover = page.locator('.workbench-hover, .monaco-hover').filter({ hasText: label }).first();
  await hover.waitFor({ state: 'visible', timeout: 10_000 });
  return (await hover.innerText()).replace(/\u00a0/g, ' ');
}

async function welcomeButton(page: Page, text: string): Promise<Locator> {
  const button = pane(page).locator('.welcome-view-content .monaco-button').filter({ hasText: text }).first();
  await button.waitFor({ state: 'visible', timeout: 10_000 });
  return button;
}

test(
  'Clusters: context → APU node → GTT pod, the watch follows expansion, "Inspect Node" opens the report, live samples run in its one debug pod, deleted with the panel',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    const settings = { 'gpumem.kubernetes.debugNamespace': DEBUG_NS, 'gpumem.inspector.sampleSeconds': 1 };
    await withClusterWorkbench('clusters', { kubeconfig: { users: ['admin', 'nobody'], offline: true }, settings }, async (s, sim) => {
      const { page } = s;
      // Every context at once; those without an exec plugin are probed in the background.
      const admin = await openClusters(s);
      assert.match(admin.description, /^current · v1\.33\.0-gpumem-sim/);
      await s.step('the offline context says unreachable', () =>
        waitForItem(page, 'staging-offline', 'unreachable', (i) => i.description === 'unreachable'),
      );
      const contexts = (await readTreeItems(page, VIEW)).filter((i) => i.level === 1).map((i) => i.label);
      assert.deepEqual(
        contexts,
        ['gpumem-demo', 'gpumem-demo-nobody', 'staging-offline'],
        'every context of the kubeconfig, in file order',
      );

      // A user who may not list nodes: the context explains the refusal.
      await s.step('expand gpumem-demo-nobody', () => setExpanded(page, 'gpumem-demo-nobody', true));
      await s.step('the nobody context is Forbidden(list, nodes)', () =>
        waitForItem(page, 'gpumem-demo-nobody', 'forbidden', (i) => i.description === 'forbidden: list nodes'),
      );
      const refusal = await s.step('its child explains the refusal', () => waitForTreeItem(page, VIEW, /^Forbidden: list nodes$/));
      assert.equal(refusal.level, 2);
      await s.step('collapse gpumem-demo-nobody', () => setExpanded(page, 'gpumem-demo-nobody', false));

      // Context → nodes, GPU nodes first.
      await s.step('expand gpumem-demo', () => setExpanded(page, 'gpumem-demo', true));
      const apu = await s.step('the APU node appears with its facts', () =>
        waitForItem(page, 'strix-node-1', 'with its description', (i) => i.description !== ''),
      );
      assert.equal(apu.description, 'AMD · unified memory · amd.com/gpu 1 · MemoryPressure · 2 taints · 1 SystemOOM');
      const nodes = (await readTreeItems(page, VIEW)).filter((i) => i.level === 2).map((i) => i.label);
      assert.deepEqual(
        nodes,
        ['Fleet', 'gpu-node-7', 'gpu-node-8', 'secure-node-1', 'strix-node-1', 'web-node-3'],
        'the Fleet item, then GPU nodes first, the CPU node last',
      );
      const hami = await item(page, 'gpu-node-7');
      assert.equal(hami?.description, 'NVIDIA · nvidia.com/gpu 10 · HAMi 1 GPU, 79.6 GiB, split 10 (JSON, HAMi ≥ 2.8)');
      assert.match(
        (await waitForItem(page, 'gpumem-demo', 'counts its nodes', (i) => /5 nodes, 4 GPU/.test(i.description))).description,
        /current · v1\.33\.0-gpumem-sim · 5 nodes, 4 GPU/,
      );

      // Node → its GPU pods, listed with the server-side field selector and then watched.
      const mark = sim.state.requests.length;
      await s.step('expand strix-node-1', () => setExpanded(page, 'strix-node-1', true));
      const pod = await s.step('the GTT-heavy pod llama-0 appears', () =>
        waitForItem(page, 'llama-0', 'with its description', (i) => i.description !== ''),
      );
      assert.equal(pod.level, 3);
      assert.match(pod.description, /^default · amd\.com\/gpu 1 · Burstable · 1 restart, OOMKilled \d+m ago$/);
      await s.step('"1 pod without GPUs" closes the list', () => waitForTreeItem(page, VIEW, /^1 pod without GPUs$/));
      const podRequests = sim.state.requests.slice(mark).filter((r) => /\/api\/v1\/pods\?/.test(r.path));
      assert.ok(podRequests.length > 0, 'the pods were listed');
      for (const request of podRequests)
        assert.match(
          decodeURIComponent(request.path),
          /fieldSelector=spec\.nodeName=strix-node-1/,
          `selected on the server: ${request.path}`,
        );
      await s.step('a watch runs while the node is expanded', () =>
        waitFor(
          'an open watch',
          async () => sim.state.openWatches(),
          (n) => n >= 1,
          { timeoutMs: 15_000 },
        ),
      );
      await s.step('collapse strix-node-1: the watch stops', async () => {
        await setExpanded(page, 'strix-node-1', false);
        await waitFor(
          'no open watch',
          async () => sim.state.openWatches(),
          (n) => n === 0,
          { timeoutMs: 15_000 },
        );
      });
      await s.step('expand strix-node-1 again: the watch resumes', async () => {
        await setExpanded(page, 'strix-node-1', true);
        await waitForItem(page, 'llama-0', 'again', () => true);
        await waitFor(
          'an open watch',
          async () => sim.state.openWatches(),
          (n) => n >= 1,
          { timeoutMs: 15_000 },
        );
      });
      // A new GPU pod scheduled on the node shows up through the watch, without a refresh.
      sim.state.put({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'whisper-0', namespace: 'default', uid: 'c0ffee00-0000-4000-8000-0000000000e2' },
        spec: {
          nodeName: 'strix-node-1',
          containers: [
            { name: 'whisper', image: 'example/whisper', resources: { limits: { 'amd.com/gpu': '1', memory: '4Gi', cpu: '1' } } },
          ],
        },
        status: { phase: 'Running', qosClass: 'Guaranteed' },
      } as never);
      await s.step('a pod created on the node appears through the watch', () =>
        waitForItem(page, 'whisper-0', 'appears', (i) => /amd\.com\/gpu 1/.test(i.description), 15_000),
      );
      sim.state.remove('pods', 'default', 'whisper-0');
      await s.step('and goes when it is deleted', () =>
        waitFor(
          'whisper-0 gone',
          () => item(page, 'whisper-0'),
          (i) => i === undefined,
          { timeoutMs: 15_000 },
        ),
      );

      // The tooltip is Markdown rendered as text: the facts, no escape characters, no links from cluster values.
      await s.step('widen the side bar', () => widenSideBar(page, 640));
      const tooltip = await s.step('hover strix-node-1: its tooltip', () => readTooltip(page, 'strix-node-1'));
      assert.match(tooltip, /MemoryPressure since/);
      assert.match(tooltip, /SystemOOM \d+m ago: global OOM kill of llama-server \(pid 398211\)/);
      assert.match(tooltip, /Taint: amd\.com\/gpu=present:NoSchedule/);
      assert.doesNotMatch(tooltip, /\\[-.:\/=]/, 'no Markdown escape shows through');
      assert.equal(
        await page
          .locator('.workbench-hover a, .monaco-hover a')
          .filter({ hasText: /strix|amd|llama/ })
          .count(),
        0,
        'no link made from a cluster value',
      );
      await s.screenshot('tree');
      await page.mouse.move(900, 700);
      await s.step('narrow the side bar for the report', () => widenSideBar(page, 520));

      // "Inspect Node" from the node's context menu.
      const created = sim.state.createdPods.length;
      const entries = await s.step('run "Inspect Node" from the context menu of strix-node-1', () =>
        runFromContextMenu(page, 'strix-node-1', 'Inspect Node'),
      );
      for (const title of ['Inspect Node', 'Explain OOM Kills on Node', 'Copy Probe Command'])
        assert.ok(entries.includes(title), `the node's menu offers ${title}: ${JSON.stringify(entries)}`);
      const report = await s.step(
        'the inspector panel opens with the report',
        () =>
          waitFor(
            'the inspection report of strix-node-1',
            () => readWebviewText(page),
            (text) =>
              /gpumem inspection: debug pod on node\/strix-node-1 \(context gpumem-demo\)/.test(text) &&
              /Memory accounting/.test(text) &&
              /memory\.pod-over-limit-in-reality/.test(text),
            { timeoutMs: 120_000, intervalMs: 500 },
          ),
        150_000,
      );
      assert.match(report, /GTT/, 'the report speaks of GTT');
      assert.match(
        report,
        /default\/llama-0 holds [\d.]+ GiB of GTT that its cgroup does not count/,
        "the GTT-heavy pod's verdict (memory.pod-over-limit-in-reality) names the pod",
      );
      assert.match(report, /memory\.pod-over-limit-in-reality/);
      const errors = (await readNotifications(page)).filter((text) => /failed/i.test(text));
      assert.deepEqual(errors, [], 'no error notification');

      // The simulator saw the debug pod: created on the node, in the configured namespace, and KEPT while the
      // panel is open: the live samples (one a second) are execs in it.
      const debugPods = sim.state.createdPods.slice(created).filter((p) => p.namespace === DEBUG_NS);
      assert.equal(debugPods.length, 1, `one debug pod: ${JSON.stringify(sim.state.createdPods.slice(created))}`);
      const debugPod = debugPods[0]?.name ?? '';
      assert.equal(debugPods[0]?.nodeName, 'strix-node-1');
      assert.match(debugPod, /^gpumem-debug-strix-node-1-/);
      const target = 'debug pod on node/strix-node-1 (context gpumem-demo)';
      const samples = await s.step(
        'live samples of the node arrive',
        () =>
          waitFor(
            '3 live samples logged',
            () => liveSampleLines(s, target),
            (lines) => lines.filter((line) => !/ failed /.test(line)).length >= 3,
            { timeoutMs: 60_000, intervalMs: 500 },
          ),
        75_000,
      );
      assert.ok(
        samples.every((line) => !/ failed /.test(line)),
        `no sample failed: ${samples.join('\n')}`,
      );
      assert.match(samples[0] ?? '', /\((?:[1-9]\d*) pods\)$/, "a sample holds the node's pods");
      const panel = webviewFrame(page);
      await s.step('the live chart has points', () =>
        waitFor(
          'live points in the panel',
          async () => Number((await panel.locator('#live-chart').getAttribute('data-points', { timeout: 2000 })) ?? '0'),
          (n) => n >= 2,
          { timeoutMs: 20_000, intervalMs: 500 },
        ),
      );
      assert.equal(await panel.locator('#live-debug').getAttribute('data-status'), 'running');
      // The README's picture (media/screenshot-clusters.png): contexts (answering, forbidden, unreachable), GPU
      // nodes first, the APU node's GPU pod, beside its inspection. The pointer rests on the panel's title, where
      // no tooltip opens.
      await panel.locator('#title').hover();
      await publishScreenshot(await s.screenshot('tree-and-report'), 'clusters');
      assert.deepEqual(
        sim.state.list('pods', DEBUG_NS).map((pod) => pod.metadata.name),
        [debugPod],
        'exactly one debug pod alive while sampling',
      );
      assert.equal(
        sim.state.createdPods.slice(created).filter((p) => p.namespace === DEBUG_NS).length,
        1,
        'no other debug pod was created for the samples',
      );
      const execs = sim.state.execs.filter((e) => e.pod === debugPod);
      assert.ok(execs.length >= 4, `the full probe and the samples ran in it: ${execs.length} execs`);
      assert.ok(execs.every((e) => e.container === 'debugger' && e.command.join(' ') === 'sh -s'));

      // Closing the panel deletes the debug pod, and the samples stop.
      const tab = page.locator(SELECTORS.anyTab).filter({ hasText: 'gpumem: debug pod on node/strix-node-1' });
      await s.step('close the inspector panel', async () => {
        await tab.first().click();
        await runCommand(page, 'View: Close Editor');
        await tab.first().waitFor({ state: 'detached', timeout: 10_000 });
      });
      await s.step('the debug pod was deleted', () =>
        waitFor(
          'the debug pod gone',
          async () => sim.state.list('pods', DEBUG_NS).length,
          (n) => n === 0,
          { timeoutMs: 20_000 },
        ),
      );
      assert.ok(
        sim.state.deletedPods.some((d) => d.uid === debugPods[0]?.uid),
        'a DELETE of the debug pod was accepted',
      );
      const afterClose = (await liveSampleLines(s, target)).length;
      await page.waitForTimeout(3000);
      assert.ok(
        (await liveSampleLines(s, target)).length - afterClose <= 1,
        'no samples after the panel closed (one may have been in flight)',
      );

      // A second inspection keeps a new pod; a window reload (deactivate) deletes it, and the restored panel
      // has no connection to sample.
      const again = sim.state.createdPods.length;
      await s.step('"Inspect Node" again', () => runFromContextMenu(page, 'strix-node-1', 'Inspect Node'));
      await s.step(
        'the report opens again',
        () =>
          waitFor(
            'the inspection report of strix-node-1',
            () => readWebviewText(page),
            (text) => /gpumem inspection: debug pod on node\/strix-node-1/.test(text) && /Memory accounting/.test(text),
            { timeoutMs: 120_000, intervalMs: 500 },
          ),
        150_000,
      );
      await s.step('its debug pod is kept', () =>
        waitFor(
          'one debug pod alive',
          async () => sim.state.list('pods', DEBUG_NS).length,
          (n) => n === 1,
          { timeoutMs: 20_000 },
        ),
      );
      const second = sim.state.createdPods.slice(again).filter((p) => p.namespace === DEBUG_NS);
      assert.equal(second.length, 1);
      await s.step('Developer: Reload Window', () => runCommand(page, 'Developer: Reload Window'));
      await s.step(
        'deactivate deleted the debug pod',
        () =>
          waitFor(
            'no debug pod left',
            async () => sim.state.list('pods', DEBUG_NS).length,
            (n) => n === 0,
            { timeoutMs: 30_000 },
          ),
        45_000,
      );
      assert.ok(
        sim.state.deletedPods.some((d) => d.uid === second[0]?.uid),
        'a DELETE of the second debug pod was accepted',
      );
      await s.step('the workbench is back', () => workbenchBack(page), 90_000);
      const restored = await s.step(
        'the restored panel has no connection to sample',
        () =>
          waitFor(
            "the restored panel's live status",
            async () =>
              (
                await webviewFrame(page)
                  .locator('#live-status')
                  .innerText({ timeout: 2000 })
                  .catch(() => '')
              ).trim(),
            (text) => /No open connection/.test(text),
            { timeoutMs: 60_000, intervalMs: 500 },
          ),
        75_000,
      );
      assert.match(restored, /Inspect Node again/);
      assert.equal(sim.state.list('pods', DEBUG_NS).length, 0, 'the restored panel created no debug pod');
      await s.step('show the Clusters view again', () => showClusters(s));
      // The end state (test-artifacts/clusters.png): the expanded tree beside the report.
    });
  },
);

test(
  'Clusters commands on pods and nodes: HAMi checklist, Explain OOM Kills on Node, Open Manifest, Copy Probe Command',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    const settings = { 'gpumem.kubernetes.debugNamespace': DEBUG_NS };
    await withClusterWorkbench('clusters-commands', { settings }, async (s, sim) => {
      const { page } = s;
      await openClusterNode(s, 'gpu-node-7');
      await s.step('the bypassed HAMi pod appears', () =>
        waitForItem(page, 'static-infer-0', 'with its allocation', (i) => /HAMi 8192 MiB, 0% cores/.test(i.description)),
      );

      // "Run HAMi Checklist on Pod": the container probe through pod exec plus the cluster-side checks.
      const podMenu = await s.step('run "Run HAMi Checklist on Pod" on static-infer-0', () =>
        runFromContextMenu(page, 'static-infer-0', 'Run HAMi Checklist on Pod'),
      );
      for (const title of ['Inspect Pod', 'Run HAMi Checklist on Pod', 'Open Manifest', 'Copy Probe Command'])
        assert.ok(podMenu.includes(title), `the pod's menu offers ${title}: ${JSON.stringify(podMenu)}`);
      const checklist = await s.step(
        'the checklist report opens',
        () =>
          waitFor(
            'the HAMi checklist of static-infer-0',
            () => readPreview(page),
            (text) => /gpumem inspection: pod ml\/static-infer-0/.test(text) && /HAMi cluster checks/.test(text),
            { timeoutMs: 90_000, intervalMs: 500 },
          ),
        120_000,
      );
      assert.match(checklist, /bypassed/);
      assert.match(checklist, /CUDA_DISABLE_CONTROL in the spec/);
      assert.match(checklist, /hami-device-plugin-x7k2p: Running, ready/);
      assert.match(checklist, /kube-system\/hami-scheduler-6d9c7b8f5-q8w2r \(Running\)/);
      assert.ok(
        sim.state.execs.some((e) => e.pod === 'static-infer-0' && e.container === 'static-infer'),
        "the probe ran in the pod's container",
      );
      await s.screenshot('hami');
      await s.step('close the editors', () => runCommand(page, 'View: Close All Editors'));

      // "Explain OOM Kills on Node": the node's kernel log (debug pod) and its SystemOOM event.
      await s.step('expand strix-node-1', () => setExpanded(page, 'strix-node-1', true));
      await s.step('llama-0 appears', () => waitForItem(page, 'llama-0', 'with its description', (i) => /OOMKilled/.test(i.description)));
      const created = sim.state.createdPods.length;
      await s.step('run "Explain OOM Kills on Node" on strix-node-1', () =>
        runFromContextMenu(page, 'strix-node-1', 'Explain OOM Kills on Node'),
      );
      const oom = await s.step(
        'the OOM report opens',
        () =>
          waitFor(
            'the OOM report of strix-node-1',
            () => readPreview(page),
            (text) => /OOM kills explained: kernel log of node strix-node-1/.test(text) && /Node events \(Kubernetes API\)/.test(text),
            { timeoutMs: 90_000, intervalMs: 500 },
          ),
        120_000,
      );
      assert.match(oom, /SystemOOM/);
      assert.match(oom, /llama-server \(pid 398211\)/);
      // The kill from the node's own kernel log (the fixture's kern.log through /host), not only the event.
      assert.match(oom, /oom-kill:constraint=CONSTRAINT_NONE.*global_oom.*task=llama-server,pid=398211/);
      assert.doesNotMatch(oom, /No kernel log was readable on the node/);
      await s.step('its debug pod was deleted', () =>
        waitFor(
          'no debug pod left',
          async () => sim.state.list('pods', DEBUG_NS).length,
          (n) => n === 0,
          { timeoutMs: 20_000 },
        ),
      );
      const debugPods = sim.state.createdPods.slice(created).filter((p) => p.namespace === DEBUG_NS);
      assert.equal(debugPods.length, 1);
      assert.ok(sim.state.deletedPods.some((d) => d.uid === debugPods[0]?.uid));
      await s.screenshot('oom');
      await s.step('close the editors', () => runCommand(page, 'View: Close All Editors'));

      // "Open Manifest": the live pod, read-only, linted.
      await s.step('run "Open Manifest" on llama-0', () => runFromContextMenu(page, 'llama-0', 'Open Manifest'));
      await s.step('the manifest opens in an editor', () =>
        waitFor(
          'the llama-0.yaml tab',
          () => openTabs(page),
          (tabs) => tabs.some((tab) => /^llama-0(\.yaml)?$/.test(tab)),
        ),
      );
      const rows = await s.step("the linter's findings for the live manifest", () =>
        waitForProblems(page, 'gpumem findings in llama-0.yaml', (all) =>
          all.some((row) => row.source === 'gpumem' && /^uma-/.test(row.code)),
        ),
      );
      assert.ok(
        rows.some((row) => /llama-0\.yaml/.test(row.file)),
        `the findings belong to llama-0.yaml: ${JSON.stringify(rows)}`,
      );
      await s.screenshot('manifest');

      // "Copy Probe Command": the kubectl line is on the clipboard, the notification says which script to use.
      await s.step('run "Copy Probe Command" on llama-0', () => runFromContextMenu(page, 'llama-0', 'Copy Probe Command'));
      const copied = await s.step('the notification', () => waitForNotification(page, /probe command copied/));
      assert.match(copied, /container probe/);
      const errors = (await readNotifications(page)).filter((text) => /failed/i.test(text));
      assert.deepEqual(errors, [], 'no error notification');
    });
  },
);

test('Clusters welcome views: no kubeconfig, then every context unreachable', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  await withHome(async (home) => {
    await withWorkbench('clusters-welcome', { fixture: 'single', home, env: { KUBECONFIG: '' } }, async (s) => {
      const { page } = s;
      await showClusters(s);
      const none = await s.step('the no-kubeconfig welcome view', () =>
        waitFor(
          'the welcome view',
          () => readViewWelcome(page, VIEW),
          (text) => /No kubeconfig found/.test(text),
          { timeoutMs: 30_000 },
        ),
      );
      assert.match(none, /Set a Kubeconfig File/);
      assert.match(none, /Refresh/);
      assert.deepEqual(await readTreeItems(page, VIEW), []);
      await s.screenshot('no-kubeconfig');

      // A kubeconfig appears whose only cluster is down: Refresh → every context unreachable.
      const offlineOnly = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'staging', cluster: { server: `https://127.0.0.1:${await closedPort()}`, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'ci', user: { token: 'not-a-real-token' } }],
        contexts: [{ name: 'staging-offline', context: { cluster: 'staging', user: 'ci' } }],
        'current-context': 'staging-offline',
      };
      await writeFile(path.join(home, '.kube', 'config'), stringifyYaml(offlineOnly), { mode: 0o600 });
      await s.step('click Refresh in the welcome view', async () => (await welcomeButton(page, 'Refresh')).click());
      const down = await s.step('the all-unreachable welcome view', () =>
        waitFor(
          'the welcome view',
          () => readViewWelcome(page, VIEW),
          (text) => /None of your Kubernetes contexts answers/.test(text),
          { timeoutMs: 30_000 },
        ),
      );
      assert.match(down, /Show the Contexts Anyway/);
      await s.screenshot('unreachable');
      await s.step('click "Show the Contexts Anyway"', async () => (await welcomeButton(page, 'Show the Contexts Anyway')).click());
      const offline = await s.step('the offline context is listed, unreachable', () =>
        waitForItem(page, 'staging-offline', 'unreachable', (i) => i.description === 'current · unreachable'),
      );
      assert.match(offline.ariaLabel, /staging-offline/);
      await s.step('expand it: the reason and what to do', async () => {
        await setExpanded(page, 'staging-offline', true);
        await waitForTreeItem(page, VIEW, /^Unreachable: ECONNREFUSED/);
      });
    });
  });
});

test('Clusters in Restricted Mode: nothing is read, the welcome view says why', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  await withHome(async (home) => {
    await writeFile(path.join(home, '.kube', 'config'), 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    await withWorkbench('clusters-restricted', { fixture: 'single', home, trusted: false, env: { KUBECONFIG: '' } }, async (s) => {
      await showClusters(s);
      const text = await s.step('the Restricted Mode welcome view', () =>
        waitFor(
          'the welcome view',
          () => readViewWelcome(s.page, VIEW),
          (t) => /disabled in Restricted Mode/.test(t),
          { timeoutMs: 30_000 },
        ),
      );
      assert.match(text, /Manage Workspace Trust/);
      assert.deepEqual(await readTreeItems(s.page, VIEW), []);
    });
  });
});
