// End-to-end: the Clusters view of the packaged extension in a real VS Code (code-server 4.139.1) driven
// through headless Chromium, against the Kubernetes API simulator (test/simulator) running in this process:
//   - the kubeconfig in the extension host's ~/.kube/config lists every context at once (admin, a user who
//     may list nothing, an offline cluster); expand context → the APU node → its GTT-heavy pod, whose rows
//     say what the cluster says (unified memory, MemoryPressure, SystemOOM, OOMKilled); the node's pod watch
//     runs while it is expanded and stops when it collapses;
//   - "Inspect Node" from the node's context menu runs the node probe in a debug pod and opens the report,
//     which names the GTT-heavy pod; the simulator saw the debug pod created AND deleted;
//   - the welcome views: no kubeconfig (with Refresh), every context unreachable (and "Show the Contexts
//     Anyway"), and Restricted Mode.
// Needs root (the simulator's exec runs the probe in chroot fixture roots). Run with
// `npm run test:e2e -- test/e2e/clusters.e2e.test.ts`. Artifacts: test-artifacts/clusters.png (the report
// next to the expanded tree), clusters-tree.png, clusters-welcome-*.png, …
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { loadFixtures } from '../simulator/fixtures.ts';
import { DEMO_GIT_VERSION, startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { withWorkbench } from './harness/session.ts';
import type { WorkbenchSession } from './harness/session.ts';
import { focusView, openTabs, readNotifications, readTreeItems, readViewWelcome, runCommand, waitFor, waitForNotification, waitForProblems, waitForTreeItem, webviewFrame } from './harness/workbench.ts';
import type { TreeItem } from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 6 * 60_000;
const VIEW = 'Clusters';
const DEBUG_NS = 'gpumem-debug';

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface KubeconfigDoc {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: unknown }[];
  contexts: { name: string; context: Record<string, unknown> }[];
  'current-context'?: string;
}

/** The simulator's kubeconfig for `users`, plus a context on a closed port (an offline cluster). */
async function kubeconfigWithOffline(sim: Simulator, users: string[]): Promise<string> {
  const doc = parseYaml(sim.kubeconfig(users)) as KubeconfigDoc;
  const ca = doc.clusters[0]?.cluster['certificate-authority-data'];
  const offline = { name: 'staging', cluster: { server: `https://127.0.0.1:${await closedPort()}`, ...(ca ? { 'certificate-authority-data': ca } : {}) } };
  const context = { name: 'staging-offline', context: { cluster: 'staging', user: doc.users[0]?.name ?? '' } };
  return stringifyYaml({ ...doc, clusters: [...doc.clusters, offline], contexts: [...doc.contexts, context] });
}

function pane(page: Page): Locator {
  return page.locator('.pane', { has: page.locator(`.pane-header[aria-label="${VIEW} Section"]`) });
}

function treeRow(page: Page, label: string): Locator {
  return pane(page).locator('.pane-body .monaco-list-row[role="treeitem"]').filter({ has: page.locator('.label-name').getByText(label, { exact: true }) }).first();
}

async function item(page: Page, label: string): Promise<TreeItem | undefined> {
  return (await readTreeItems(page, VIEW)).find((candidate) => candidate.label === label);
}

/** Waits until the row `label` is there and `accept` holds for it. */
async function waitForItem(page: Page, label: string, what: string, accept: (item: TreeItem) => boolean, timeoutMs = 30_000): Promise<TreeItem> {
  const found = await waitFor(`${VIEW}: ${label} ${what}`, () => item(page, label), (candidate) => candidate !== undefined && accept(candidate), { timeoutMs });
  if (!found) throw new Error('unreachable');
  return found;
}

/** Clicks a collapsible row until it is expanded (or collapsed). */
async function setExpanded(page: Page, label: string, expanded: boolean): Promise<void> {
  const row = treeRow(page, label);
  await row.waitFor({ state: 'visible', timeout: 20_000 });
  if ((await row.getAttribute('aria-expanded')) !== String(expanded)) await row.click();
  await waitFor(`${label} ${expanded ? 'expanded' : 'collapsed'}`, () => row.getAttribute('aria-expanded'), (value) => value === String(expanded), { timeoutMs: 10_000 });
}

/** Runs `title` from the context menu of the row `label`. */
async function runFromContextMenu(page: Page, label: string, title: string): Promise<string[]> {
  const row = treeRow(page, label);
  await row.click({ button: 'right' });
  const menu = page.locator('.monaco-menu');
  await menu.first().waitFor({ state: 'visible', timeout: 10_000 });
  const entries = (await menu.locator('.action-item .action-label').allInnerTexts()).map((text) => text.trim()).filter(Boolean);
  const entry = menu.locator('.action-item').filter({ has: page.locator('.action-label').getByText(title, { exact: true }) }).first();
  // The web workbench's menu ignores a synthetic click right after it opens: hover focuses the entry, Enter runs it.
  await entry.hover({ timeout: 10_000 });
  await waitFor(`"${title}" focused in the menu`, () => entry.getAttribute('class'), (classes) => /\bfocused\b/.test(classes ?? ''), { timeoutMs: 5_000 });
  await page.keyboard.press('Enter');
  await menu.first().waitFor({ state: 'hidden', timeout: 10_000 });
  return entries;
}

/** Drags the sash right of the side bar so that the rows' descriptions fit (cosmetic, for the screenshots). */
async function widenSideBar(page: Page, width: number): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box) return;
  const x = box.x + box.width;
  const y = box.y + box.height / 2;
  await page.mouse.move(x + 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
}

/** Hovers a row and returns the text of the tooltip VS Code shows for it. */
async function readTooltip(page: Page, label: string): Promise<string> {
  await treeRow(page, label).locator('.label-name').hover();
  const hover = page.locator('.workbench-hover, .monaco-hover').filter({ hasText: label }).first();
  await hover.waitFor({ state: 'visible', timeout: 10_000 });
  return (await hover.innerText()).replace(/\u00a0/g, ' ');
}

async function readPreview(page: Page): Promise<string> {
  return (await webviewFrame(page).locator('body').innerText({ timeout: 2000 })).replace(/\u00a0/g, ' ');
}

async function welcomeButton(page: Page, text: string): Promise<Locator> {
  const button = pane(page).locator('.welcome-view-content .monaco-button').filter({ hasText: text }).first();
  await button.waitFor({ state: 'visible', timeout: 10_000 });
  return button;
}

async function withHome<T>(body: (home: string) => Promise<T>): Promise<T> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'gpumem-e2e-kube-'));
  try {
    const home = path.join(base, 'home');
    await mkdir(path.join(home, '.kube'), { recursive: true });
    return await body(home);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

async function showClusters(s: WorkbenchSession): Promise<void> {
  await s.step('open the gpumem view (Clusters)', () => focusView(s.page, VIEW));
}

test('Clusters: context → APU node → GTT pod, the watch follows expansion, "Inspect Node" opens the report and the debug pod is deleted', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  const sim = await startSimulator({ fixtures: loadFixtures(), roots: true });
  try {
    await withHome(async (home) => {
      await writeFile(path.join(home, '.kube', 'config'), await kubeconfigWithOffline(sim, ['admin', 'nobody']), { mode: 0o600 });
      const settings = { 'gpumem.kubernetes.debugNamespace': DEBUG_NS };
      await withWorkbench('clusters', { fixture: 'single', home, settings, env: { KUBECONFIG: '' }, viewport: { width: 1600, height: 1000 } }, async (s) => {
        const { page } = s;
        await showClusters(s);

        // Every context at once; those without an exec plugin are probed in the background.
        const admin = await s.step('the admin context answers (background probe)', () => waitForItem(page, 'gpumem-demo', `shows ${DEMO_GIT_VERSION}`, (i) => i.description.includes(DEMO_GIT_VERSION)));
        assert.match(admin.description, /^current · v1\.33\.0-gpumem-sim/);
        await s.step('the offline context says unreachable', () => waitForItem(page, 'staging-offline', 'unreachable', (i) => i.description === 'unreachable'));
        const contexts = (await readTreeItems(page, VIEW)).filter((i) => i.level === 1).map((i) => i.label);
        assert.deepEqual(contexts, ['gpumem-demo', 'gpumem-demo-nobody', 'staging-offline'], 'every context of the kubeconfig, in file order');

        // A user who may not list nodes: the context explains the refusal.
        await s.step('expand gpumem-demo-nobody', () => setExpanded(page, 'gpumem-demo-nobody', true));
        await s.step('the nobody context is Forbidden(list, nodes)', () => waitForItem(page, 'gpumem-demo-nobody', 'forbidden', (i) => i.description === 'forbidden: list nodes'));
        const refusal = await s.step('its child explains the refusal', () => waitForTreeItem(page, VIEW, /^Forbidden: list nodes$/));
        assert.equal(refusal.level, 2);
        await s.step('collapse gpumem-demo-nobody', () => setExpanded(page, 'gpumem-demo-nobody', false));

        // Context → nodes, GPU nodes first.
        await s.step('expand gpumem-demo', () => setExpanded(page, 'gpumem-demo', true));
        const apu = await s.step('the APU node appears with its facts', () => waitForItem(page, 'strix-node-1', 'with its description', (i) => i.description !== ''));
        assert.equal(apu.description, 'AMD · unified memory · amd.com/gpu 1 · MemoryPressure · 2 taints · 1 SystemOOM');
        const nodes = (await readTreeItems(page, VIEW)).filter((i) => i.level === 2).map((i) => i.label);
        assert.deepEqual(nodes, ['gpu-node-7', 'gpu-node-8', 'secure-node-1', 'strix-node-1', 'web-node-3'], 'GPU nodes first, the CPU node last');
        const hami = await item(page, 'gpu-node-7');
        assert.equal(hami?.description, 'NVIDIA · nvidia.com/gpu 10 · HAMi 1 GPU, 79.6 GiB, split 10 (JSON, HAMi ≥ 2.8)');
        assert.match((await waitForItem(page, 'gpumem-demo', 'counts its nodes', (i) => /5 nodes, 4 GPU/.test(i.description))).description, /current · v1\.33\.0-gpumem-sim · 5 nodes, 4 GPU/);

        // Node → its GPU pods, listed with the server-side field selector and then watched.
        const mark = sim.state.requests.length;
        await s.step('expand strix-node-1', () => setExpanded(page, 'strix-node-1', true));
        const pod = await s.step('the GTT-heavy pod llama-0 appears', () => waitForItem(page, 'llama-0', 'with its description', (i) => i.description !== ''));
        assert.equal(pod.level, 3);
        assert.match(pod.description, /^default · amd\.com\/gpu 1 · Burstable · 1 restart, OOMKilled \d+m ago$/);
        await s.step('"1 pod without GPUs" closes the list', () => waitForTreeItem(page, VIEW, /^1 pod without GPUs$/));
        const podRequests = sim.state.requests.slice(mark).filter((r) => /\/api\/v1\/pods\?/.test(r.path));
        assert.ok(podRequests.length > 0, 'the pods were listed');
        for (const request of podRequests) assert.match(decodeURIComponent(request.path), /fieldSelector=spec\.nodeName=strix-node-1/, `selected on the server: ${request.path}`);
        await s.step('a watch runs while the node is expanded', () => waitFor('an open watch', async () => sim.state.openWatches(), (n) => n >= 1, { timeoutMs: 15_000 }));
        await s.step('collapse strix-node-1: the watch stops', async () => {
          await setExpanded(page, 'strix-node-1', false);
          await waitFor('no open watch', async () => sim.state.openWatches(), (n) => n === 0, { timeoutMs: 15_000 });
        });
        await s.step('expand strix-node-1 again: the watch resumes', async () => {
          await setExpanded(page, 'strix-node-1', true);
          await waitForItem(page, 'llama-0', 'again', () => true);
          await waitFor('an open watch', async () => sim.state.openWatches(), (n) => n >= 1, { timeoutMs: 15_000 });
        });
        // A new GPU pod scheduled on the node shows up through the watch, without a refresh.
        sim.state.put({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'whisper-0', namespace: 'default', uid: 'c0ffee00-0000-4000-8000-0000000000e2' },
          spec: { nodeName: 'strix-node-1', containers: [{ name: 'whisper', image: 'example/whisper', resources: { limits: { 'amd.com/gpu': '1', memory: '4Gi', cpu: '1' } } }] },
          status: { phase: 'Running', qosClass: 'Guaranteed' },
        } as never);
        await s.step('a pod created on the node appears through the watch', () => waitForItem(page, 'whisper-0', 'appears', (i) => /amd\.com\/gpu 1/.test(i.description), 15_000));
        sim.state.remove('pods', 'default', 'whisper-0');
        await s.step('and goes when it is deleted', () => waitFor('whisper-0 gone', () => item(page, 'whisper-0'), (i) => i === undefined, { timeoutMs: 15_000 }));

        // The tooltip is Markdown rendered as text: the facts, no escape characters, no links from cluster values.
        await s.step('widen the side bar', () => widenSideBar(page, 640));
        const tooltip = await s.step('hover strix-node-1: its tooltip', () => readTooltip(page, 'strix-node-1'));
        assert.match(tooltip, /MemoryPressure since/);
        assert.match(tooltip, /SystemOOM \d+m ago: global OOM kill of llama-server \(pid 398211\)/);
        assert.match(tooltip, /Taint: amd\.com\/gpu=present:NoSchedule/);
        assert.doesNotMatch(tooltip, /\\[-.:\/=]/, 'no Markdown escape shows through');
        assert.equal(await page.locator('.workbench-hover a, .monaco-hover a').filter({ hasText: /strix|amd|llama/ }).count(), 0, 'no link made from a cluster value');
        await s.screenshot('tree');
        await page.mouse.move(900, 700);
        await s.step('narrow the side bar for the report', () => widenSideBar(page, 520));

        // "Inspect Node" from the node's context menu.
        const created = sim.state.createdPods.length;
        const entries = await s.step('run "Inspect Node" from the context menu of strix-node-1', () => runFromContextMenu(page, 'strix-node-1', 'Inspect Node'));
        for (const title of ['Inspect Node', 'Explain OOM Kills on Node', 'Copy Probe Command']) assert.ok(entries.includes(title), `the node's menu offers ${title}: ${JSON.stringify(entries)}`);
        const report = await s.step('the report opens in the Markdown preview', () =>
          waitFor('the inspection report of strix-node-1', () => readPreview(page), (text) => /gpumem inspection: debug pod on node\/strix-node-1 \(context gpumem-demo\)/.test(text) && /Memory accounting/.test(text), { timeoutMs: 120_000, intervalMs: 500 }), 150_000);
        assert.match(report, /GTT/, 'the report speaks of GTT');
        assert.match(report, /default\/llama-0 holds [\d.]+ GiB of GTT that its cgroup does not count/, 'the GTT-heavy pod\'s verdict (memory.pod-over-limit-in-reality) names the pod');
        assert.match(report, /memory\.pod-over-limit-in-reality/);
        const errors = (await readNotifications(page)).filter((text) => /failed/i.test(text));
        assert.deepEqual(errors, [], 'no error notification');

        // The simulator saw the debug pod: created on the node, in the configured namespace, and deleted.
        const debugPods = sim.state.createdPods.slice(created).filter((p) => p.namespace === DEBUG_NS);
        assert.equal(debugPods.length, 1, `one debug pod: ${JSON.stringify(sim.state.createdPods.slice(created))}`);
        assert.equal(debugPods[0]?.nodeName, 'strix-node-1');
        assert.match(debugPods[0]?.name ?? '', /^gpumem-debug-strix-node-1-/);
        await s.step('the debug pod was deleted', () => waitFor('the debug pod gone', async () => sim.state.list('pods', DEBUG_NS).length, (n) => n === 0, { timeoutMs: 20_000 }));
        assert.ok(sim.state.deletedPods.some((d) => d.uid === debugPods[0]?.uid), 'a DELETE of the debug pod was accepted');
        assert.ok(sim.state.execs.some((e) => e.pod === debugPods[0]?.name && e.result !== undefined), 'the probe ran in it through pod exec');
        // The end state (test-artifacts/clusters.png): the expanded tree beside the report.
      });
    });
  } finally {
    await sim.close();
  }
});

test('Clusters commands on pods and nodes: HAMi checklist, Explain OOM Kills on Node, Open Manifest, Copy Probe Command', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  const sim = await startSimulator({ fixtures: loadFixtures(), roots: true });
  try {
    await withHome(async (home) => {
      await writeFile(path.join(home, '.kube', 'config'), sim.kubeconfig(['admin']), { mode: 0o600 });
      const settings = { 'gpumem.kubernetes.debugNamespace': DEBUG_NS };
      await withWorkbench('clusters-commands', { fixture: 'single', home, settings, env: { KUBECONFIG: '' }, viewport: { width: 1600, height: 1000 } }, async (s) => {
        const { page } = s;
        await showClusters(s);
        await s.step('widen the side bar', () => widenSideBar(page, 560));
        await s.step('expand gpumem-demo', () => setExpanded(page, 'gpumem-demo', true));
        await s.step('expand gpu-node-7', () => setExpanded(page, 'gpu-node-7', true));
        await s.step('the bypassed HAMi pod appears', () => waitForItem(page, 'static-infer-0', 'with its allocation', (i) => /HAMi 8192 MiB, 0% cores/.test(i.description)));

        // "Run HAMi Checklist on Pod": the container probe through pod exec plus the cluster-side checks.
        const podMenu = await s.step('run "Run HAMi Checklist on Pod" on static-infer-0', () => runFromContextMenu(page, 'static-infer-0', 'Run HAMi Checklist on Pod'));
        for (const title of ['Inspect Pod', 'Run HAMi Checklist on Pod', 'Open Manifest', 'Copy Probe Command']) assert.ok(podMenu.includes(title), `the pod's menu offers ${title}: ${JSON.stringify(podMenu)}`);
        const checklist = await s.step('the checklist report opens', () =>
          waitFor('the HAMi checklist of static-infer-0', () => readPreview(page), (text) => /gpumem inspection: pod ml\/static-infer-0/.test(text) && /HAMi cluster checks/.test(text), { timeoutMs: 90_000, intervalMs: 500 }), 120_000);
        assert.match(checklist, /bypassed/);
        assert.match(checklist, /CUDA_DISABLE_CONTROL in the spec/);
        assert.match(checklist, /hami-device-plugin-x7k2p: Running, ready/);
        assert.match(checklist, /kube-system\/hami-scheduler-6d9c7b8f5-q8w2r \(Running\)/);
        assert.ok(sim.state.execs.some((e) => e.pod === 'static-infer-0' && e.container === 'static-infer'), 'the probe ran in the pod\'s container');
        await s.screenshot('hami');
        await s.step('close the editors', () => runCommand(page, 'View: Close All Editors'));

        // "Explain OOM Kills on Node": the node's kernel log (debug pod) and its SystemOOM event.
        await s.step('expand strix-node-1', () => setExpanded(page, 'strix-node-1', true));
        await s.step('llama-0 appears', () => waitForItem(page, 'llama-0', 'with its description', (i) => /OOMKilled/.test(i.description)));
        const created = sim.state.createdPods.length;
        await s.step('run "Explain OOM Kills on Node" on strix-node-1', () => runFromContextMenu(page, 'strix-node-1', 'Explain OOM Kills on Node'));
        const oom = await s.step('the OOM report opens', () =>
          waitFor('the OOM report of strix-node-1', () => readPreview(page), (text) => /OOM kills explained: kernel log of node strix-node-1/.test(text) && /Node events \(Kubernetes API\)/.test(text), { timeoutMs: 90_000, intervalMs: 500 }), 120_000);
        assert.match(oom, /SystemOOM/);
        assert.match(oom, /llama-server \(pid 398211\)/);
        await s.step('its debug pod was deleted', () => waitFor('no debug pod left', async () => sim.state.list('pods', DEBUG_NS).length, (n) => n === 0, { timeoutMs: 20_000 }));
        const debugPods = sim.state.createdPods.slice(created).filter((p) => p.namespace === DEBUG_NS);
        assert.equal(debugPods.length, 1);
        assert.ok(sim.state.deletedPods.some((d) => d.uid === debugPods[0]?.uid));
        await s.screenshot('oom');
        await s.step('close the editors', () => runCommand(page, 'View: Close All Editors'));

        // "Open Manifest": the live pod, read-only, linted.
        await s.step('run "Open Manifest" on llama-0', () => runFromContextMenu(page, 'llama-0', 'Open Manifest'));
        await s.step('the manifest opens in an editor', () => waitFor('the llama-0.yaml tab', () => openTabs(page), (tabs) => tabs.some((tab) => /^llama-0(\.yaml)?$/.test(tab))));
        const rows = await s.step('the linter\'s findings for the live manifest', () =>
          waitForProblems(page, 'gpumem findings in llama-0.yaml', (all) => all.some((row) => row.source === 'gpumem' && /^uma-/.test(row.code))));
        assert.ok(rows.some((row) => /llama-0\.yaml/.test(row.file)), `the findings belong to llama-0.yaml: ${JSON.stringify(rows)}`);
        await s.screenshot('manifest');

        // "Copy Probe Command": the kubectl line is on the clipboard, the notification says which script to use.
        await s.step('run "Copy Probe Command" on llama-0', () => runFromContextMenu(page, 'llama-0', 'Copy Probe Command'));
        const copied = await s.step('the notification', () => waitForNotification(page, /probe command copied/));
        assert.match(copied, /container probe/);
        const errors = (await readNotifications(page)).filter((text) => /failed/i.test(text));
        assert.deepEqual(errors, [], 'no error notification');
      });
    });
  } finally {
    await sim.close();
  }
});

test('Clusters welcome views: no kubeconfig, then every context unreachable', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  await withHome(async (home) => {
    await withWorkbench('clusters-welcome', { fixture: 'single', home, env: { KUBECONFIG: '' } }, async (s) => {
      const { page } = s;
      await showClusters(s);
      const none = await s.step('the no-kubeconfig welcome view', () => waitFor('the welcome view', () => readViewWelcome(page, VIEW), (text) => /No kubeconfig found/.test(text), { timeoutMs: 30_000 }));
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
      const down = await s.step('the all-unreachable welcome view', () => waitFor('the welcome view', () => readViewWelcome(page, VIEW), (text) => /None of your Kubernetes contexts answers/.test(text), { timeoutMs: 30_000 }));
      assert.match(down, /Show the Contexts Anyway/);
      await s.screenshot('unreachable');
      await s.step('click "Show the Contexts Anyway"', async () => (await welcomeButton(page, 'Show the Contexts Anyway')).click());
      const offline = await s.step('the offline context is listed, unreachable', () => waitForItem(page, 'staging-offline', 'unreachable', (i) => i.description === 'current · unreachable'));
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
      const text = await s.step('the Restricted Mode welcome view', () => waitFor('the welcome view', () => readViewWelcome(s.page, VIEW), (t) => /disabled in Restricted Mode/.test(t), { timeoutMs: 30_000 }));
      assert.match(text, /Manage Workspace Trust/);
      assert.deepEqual(await readTreeItems(s.page, VIEW), []);
    });
  });
});
