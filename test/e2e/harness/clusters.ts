// Helpers for the Clusters view's end-to-end specs (clusters, clusterCommands, clustersActivation): one
// workbench against the API simulator (withClusterWorkbench), a kubeconfig with an offline context, a throwaway
// HOME with ~/.kube, the view's rows, opening it down to a node, running a command from a row's context menu,
// and the simulator's fixtures plus a spec's own objects.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  completeFixtures,
  FIXTURES_DIR as SIM_FIXTURES_DIR,
  loadFixtures,
  mergeFixtures,
  parseFixtures,
} from '../../simulator/fixtures.ts';
import type { ClusterFixtures } from '../../simulator/fixtures.ts';
import { DEMO_GIT_VERSION, startSimulator } from '../../simulator/server.ts';
import type { Simulator } from '../../simulator/server.ts';
import { withWorkbench } from './session.ts';
import type { WorkbenchOptions, WorkbenchSession } from './session.ts';
import { focusView, readTreeItems, waitFor, webviewFrame } from './workbench.ts';
import type { TreeItem } from './workbench.ts';

export const CLUSTERS_VIEW = 'Clusters';

/** A localhost port nothing listens on (an offline API server). */
export function closedPort(): Promise<number> {
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
export async function kubeconfigWithOffline(sim: Simulator, users: string[]): Promise<string> {
  const doc = parseYaml(sim.kubeconfig(users)) as KubeconfigDoc;
  const ca = doc.clusters[0]?.cluster['certificate-authority-data'];
  const offline = {
    name: 'staging',
    cluster: { server: `https://127.0.0.1:${await closedPort()}`, ...(ca ? { 'certificate-authority-data': ca } : {}) },
  };
  const context = { name: 'staging-offline', context: { cluster: 'staging', user: doc.users[0]?.name ?? '' } };
  return stringifyYaml({ ...doc, clusters: [...doc.clusters, offline], contexts: [...doc.contexts, context] });
}

/** test/simulator/fixtures/*.yaml plus `extra` (YAML documents in the same format), completed as loadFixtures() does. */
export function fixturesWith(extra: string): ClusterFixtures {
  const files = readdirSync(SIM_FIXTURES_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  const parts = files.map((f) => parseFixtures(readFileSync(path.join(SIM_FIXTURES_DIR, f), 'utf8'), { source: f }));
  return completeFixtures(mergeFixtures(...parts, parseFixtures(extra, { source: "the spec's objects" })));
}

/** Runs `body` with a fresh HOME holding an empty ~/.kube; removes it afterwards. */
export async function withHome<T>(body: (home: string) => Promise<T>): Promise<T> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'gpumem-e2e-kube-'));
  try {
    const home = path.join(base, 'home');
    await mkdir(path.join(home, '.kube'), { recursive: true });
    return await body(home);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** Who the extension host's ~/.kube/config lists: the simulator's contexts for `users`, and an offline one when asked. */
export interface ClusterKubeconfig {
  users: string[];
  offline?: boolean;
}

export interface ClusterWorkbenchOptions {
  /** the simulator's objects (default: test/simulator/fixtures/) */
  fixtures?: ClusterFixtures;
  /** default: the admin context alone */
  kubeconfig?: ClusterKubeconfig;
  settings?: WorkbenchOptions['settings'];
  /** default 1600×1000, the size of the README's Clusters picture */
  viewport?: WorkbenchOptions['viewport'];
  /** the workspace, as WorkbenchOptions.fixture (default `single`) */
  fixture?: string;
}

/**
 * One scenario against the API simulator (exec in chroot roots: needs root): starts it, gives the workbench a
 * fresh HOME whose ~/.kube/config is the simulator's (KUBECONFIG unset), runs `body`, and always stops both.
 */
export async function withClusterWorkbench(
  scenario: string,
  options: ClusterWorkbenchOptions,
  body: (s: WorkbenchSession, sim: Simulator) => Promise<void>,
): Promise<void> {
  const sim = await startSimulator({ fixtures: options.fixtures ?? loadFixtures(), roots: true });
  try {
    await withHome(async (home) => {
      const { users, offline } = options.kubeconfig ?? { users: ['admin'] };
      const kubeconfig = offline ? await kubeconfigWithOffline(sim, users) : sim.kubeconfig(users);
      await writeFile(path.join(home, '.kube', 'config'), kubeconfig, { mode: 0o600 });
      const workbench: WorkbenchOptions = {
        fixture: options.fixture ?? 'single',
        home,
        env: { KUBECONFIG: '' },
        viewport: options.viewport ?? { width: 1600, height: 1000 },
        ...(options.settings ? { settings: options.settings } : {}),
      };
      await withWorkbench(scenario, workbench, (s) => body(s, sim));
    });
  } finally {
    await sim.close();
  }
}

export async function showClusters(s: WorkbenchSession): Promise<void> {
  await s.step('open the gpumem view (Clusters)', () => focusView(s.page, CLUSTERS_VIEW));
}

/** Shows the Clusters view and waits until the admin context (gpumem-demo) has answered; returns its row. */
export async function openClusters(s: WorkbenchSession): Promise<TreeItem> {
  await showClusters(s);
  return s.step('the admin context answers (background probe)', () =>
    waitForClusterItem(s.page, 'gpumem-demo', `shows ${DEMO_GIT_VERSION}`, (i) => i.description.includes(DEMO_GIT_VERSION)),
  );
}

/**
 * Opens the Clusters view down to `node` of the admin context (gpumem-demo): shown and answered, the side bar
 * widened to `sideBarWidth` so that the descriptions fit, the context and the node expanded.
 */
export async function openClusterNode(s: WorkbenchSession, node: string, sideBarWidth = 560): Promise<void> {
  await openClusters(s);
  await s.step('widen the side bar', () => widenSideBar(s.page, sideBarWidth));
  await s.step('expand gpumem-demo', () => setExpanded(s.page, 'gpumem-demo', true));
  await s.step(`expand ${node}`, () => setExpanded(s.page, node, true));
}

export function clustersPane(page: Page): Locator {
  return page.locator('.pane', { has: page.locator(`.pane-header[aria-label="${CLUSTERS_VIEW} Section"]`) });
}

export function treeRow(page: Page, label: string): Locator {
  return clustersPane(page)
    .locator('.pane-body .monaco-list-row[role="treeitem"]')
    .filter({ has: page.locator('.label-name').getByText(label, { exact: true }) })
    .first();
}

export async function clusterItem(page: Page, label: string): Promise<TreeItem | undefined> {
  return (await readTreeItems(page, CLUSTERS_VIEW)).find((candidate) => candidate.label === label);
}

/** Waits until the row `label` is there and `accept` holds for it. */
export async function waitForClusterItem(
  page: Page,
  label: string,
  what: string,
  accept: (item: TreeItem) => boolean,
  timeoutMs = 30_000,
): Promise<TreeItem> {
  const found = await waitFor(
    `${CLUSTERS_VIEW}: ${label} ${what}`,
    () => clusterItem(page, label),
    (candidate) => candidate !== undefined && accept(candidate),
    { timeoutMs },
  );
  if (!found) throw new Error('unreachable');
  return found;
}

/** Clicks a collapsible row until it is expanded (or collapsed). */
export async function setExpanded(page: Page, label: string, expanded: boolean): Promise<void> {
  const row = treeRow(page, label);
  await row.waitFor({ state: 'visible', timeout: 20_000 });
  if ((await row.getAttribute('aria-expanded')) !== String(expanded)) await row.click();
  await waitFor(
    `${label} ${expanded ? 'expanded' : 'collapsed'}`,
    () => row.getAttribute('aria-expanded'),
    (value) => value === String(expanded),
    { timeoutMs: 10_000 },
  );
}

/** Runs `title` from the context menu of the row `label`; returns the menu's entries. */
export async function runFromContextMenu(page: Page, label: string, title: string): Promise<string[]> {
  const row = treeRow(page, label);
  await row.click({ button: 'right' });
  const menu = page.locator('.monaco-menu');
  await menu.first().waitFor({ state: 'visible', timeout: 10_000 });
  const entries = (await menu.locator('.action-item .action-label').allInnerTexts()).map((text) => text.trim()).filter(Boolean);
  const entry = menu
    .locator('.action-item')
    .filter({ has: page.locator('.action-label').getByText(title, { exact: true }) })
    .first();
  // The web workbench's menu ignores a synthetic click right after it opens: hover focuses the entry, Enter runs it.
  await entry.hover({ timeout: 10_000 });
  await waitFor(
    `"${title}" focused in the menu`,
    () => entry.getAttribute('class'),
    (classes) => /\bfocused\b/.test(classes ?? ''),
    { timeoutMs: 5_000 },
  );
  await page.keyboard.press('Enter');
  await menu.first().waitFor({ state: 'hidden', timeout: 10_000 });
  return entries;
}

/** Drags the sash right of the side bar so that the rows' descriptions fit (cosmetic, for the screenshots). */
export async function widenSideBar(page: Page, width: number): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box) return;
  const x = box.x + box.width;
  const y = box.y + box.height / 2;
  await page.mouse.move(x + 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
}

/**
 * Every text of the first webview, whitespace collapsed: unlike innerText it includes what the browser skips,
 * i.e. the inspector's sections below the screen (content-visibility: auto) and the bodies of collapsed findings,
 * plus the collapsibles' headings (a property the element renders in its shadow DOM).
 */
export async function readWebviewText(page: Page): Promise<string> {
  const text = await webviewFrame(page)
    .locator('body')
    .evaluate(
      (body) => {
        const headings = [...body.querySelectorAll('vscode-collapsible')].map(
          (element) => `${String((element as unknown as { heading?: unknown }).heading ?? '')}`,
        );
        return `${body.textContent ?? ''}\n${headings.join('\n')}`;
      },
      undefined,
      { timeout: 2000 },
    );
  return text.replace(/\s+/g, ' ');
}

/** The text of the first webview (a Markdown preview or the inspector), non-breaking spaces as spaces. */
export async function readPreview(page: Page): Promise<string> {
  return (await webviewFrame(page).locator('body').innerText({ timeout: 2000 })).replace(/\u00a0/g, ' ');
}

/** Waits until the Clusters view has exactly one selected row, labelled `label`; returns the selected labels. */
export function selectedClusterRow(page: Page, label: string, timeoutMs = 45_000): Promise<string[]> {
  return waitFor(
    `${label} selected in the Clusters view`,
    async () =>
      (
        await clustersPane(page)
          .locator('.monaco-list-row[aria-selected="true"] .label-name')
          .allInnerTexts()
          .catch(() => [])
      ).map((t) => t.trim()),
    (labels) => labels.length === 1 && labels[0] === label,
    { timeoutMs },
  );
}
