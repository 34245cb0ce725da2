// The workbench's views, notifications and webviews: tree items, welcome views, the inspector panel, screenshots,
// Restricted Mode, reloading the window.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { ARTIFACTS_DIR } from './paths.ts';
import { DEFAULT_TIMEOUT_MS, SELECTORS, commandPaletteTitles, runCommand, waitFor } from './workbenchCommands.ts';
import type { WaitOptions } from './workbenchCommands.ts';

// ---------------------------------------------------------------------------------------------
// Views, notifications, webviews

export interface TreeItem {
  label: string;
  description: string;
  /** the row's aria-label (label, description and tooltip as screen readers get them) */
  ariaLabel: string;
  level: number;
  expanded: boolean | undefined;
}

/**
 * The rendered items of a tree view (e.g. "SSH Hosts"), found by its section header
 * `.pane-header[aria-label="<view> Section"]`. Expands the section when collapsed. Reveal the view
 * first (focusView) when its container is not showing. An empty list may mean a welcome view.
 */
export async function readTreeItems(page: Page, viewName: string, options: WaitOptions = {}): Promise<TreeItem[]> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const header = page.locator(`.pane-header[aria-label="${viewName} Section"]`);
  // A container with a single view hides that view's header (class "hidden"): attached is enough.
  await header.waitFor({ state: 'attached', timeout });
  if ((await header.getAttribute('aria-expanded')) !== 'true' && (await header.isVisible())) await header.click();
  const pane = page.locator('.pane', { has: header });
  const rows = pane.locator('.pane-body .monaco-list-row[role="treeitem"]');
  return rows.evaluateAll((elements) =>
    elements.map((row) => ({
      label: (row.querySelector('.label-name')?.textContent ?? '').trim(),
      description: (row.querySelector('.label-description')?.textContent ?? '').trim(),
      ariaLabel: row.getAttribute('aria-label') ?? '',
      level: Number(row.getAttribute('aria-level') ?? '0'),
      expanded: row.hasAttribute('aria-expanded') ? row.getAttribute('aria-expanded') === 'true' : undefined,
    })),
  );
}

/** The welcome content a view shows instead of an empty tree ("viewsWelcome"), or "" when none. */
export async function readViewWelcome(page: Page, viewName: string, options: WaitOptions = {}): Promise<string> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const header = page.locator(`.pane-header[aria-label="${viewName} Section"]`);
  await header.waitFor({ state: 'attached', timeout });
  const welcome = page.locator('.pane', { has: header }).locator('.pane-body .welcome-view-content');
  if ((await welcome.count()) === 0 || !(await welcome.first().isVisible())) return '';
  return (await welcome.first().innerText()).trim();
}

/** Waits for a tree item whose label matches. */
export async function waitForTreeItem(page: Page, viewName: string, label: RegExp, options: WaitOptions = {}): Promise<TreeItem> {
  const items = await waitFor(
    `an item ${label} in the view "${viewName}"`,
    () => readTreeItems(page, viewName, options),
    (all) => all.some((item) => label.test(item.label)),
    { timeoutMs: options.timeoutMs ?? 30_000 },
  );
  const item = items.find((candidate) => label.test(candidate.label));
  if (!item) throw new Error('unreachable');
  return item;
}

/** Reveals a view through its generated "<Container>: Focus on <View> View" command. */
export async function focusView(page: Page, viewName: string, options: WaitOptions = {}): Promise<void> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const suffix = `Focus on ${viewName} View`;
  const titles = await waitFor(
    `a "${suffix}" command`,
    () => commandPaletteTitles(page, suffix, { timeoutMs: timeout }),
    (all) => all.some((t) => t.endsWith(suffix)),
    { timeoutMs: timeout },
  );
  const title = titles.find((t) => t.endsWith(suffix)) ?? suffix;
  await runCommand(page, title, options);
}

/** Texts of the notification toasts on screen (progress notifications included). */
export async function readNotifications(page: Page): Promise<string[]> {
  return (await page.locator(SELECTORS.notificationMessage).allInnerTexts()).map((t) => t.trim());
}

export async function waitForNotification(page: Page, pattern: RegExp, options: WaitOptions = {}): Promise<string> {
  const texts = await waitFor(
    `a notification matching ${pattern}`,
    () => readNotifications(page),
    (all) => all.some((t) => pattern.test(t)),
    {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      intervalMs: 100,
    },
  );
  return texts.find((t) => pattern.test(t)) ?? '';
}

/**
 * The content frame of a webview (panel or view). VS Code nests two iframes: the outer
 * `iframe.webview.ready` (the host page) and the inner `#active-frame` with the extension's HTML.
 * `index` picks among several webviews in DOM order.
 */
export function webviewFrame(page: Page, index = 0): FrameLocator {
  return page.locator(SELECTORS.webviewOuter).nth(index).contentFrame().locator(SELECTORS.webviewInner).contentFrame();
}

/** The first webview (in DOM order) that holds `selector`, e.g. the inspector panel's `#banner`, once it does. */
export async function findWebviewFrame(page: Page, selector: string, options: WaitOptions = {}): Promise<FrameLocator> {
  const index = await waitFor(
    `a webview with ${selector}`,
    async () => {
      const count = await page.locator(SELECTORS.webviewOuter).count();
      for (let i = 0; i < count; i++) {
        if ((await webviewFrame(page, i).locator(selector).count()) > 0) return i;
      }
      return -1;
    },
    (found) => found >= 0,
    { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, intervalMs: 300 },
  );
  return webviewFrame(page, index);
}

/** Whether the window is in Restricted Mode (status bar item and banner of Workspace Trust). */
export async function isRestrictedMode(page: Page): Promise<boolean> {
  const item = page.locator(SELECTORS.restrictedModeStatus);
  if (!(await item.isVisible())) return false;
  return /Restricted Mode/.test(await item.innerText());
}

/** Screenshot of the whole page into test-artifacts/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, timeout: 15_000 });
  return file;
}

/** The inspector panel (the webview with the verdict banner) once it has rendered completely, sections included. */
export async function inspectorPanel(page: Page, timeoutMs = 60_000): Promise<FrameLocator> {
  const frame = await findWebviewFrame(page, '#banner', { timeoutMs });
  // The sections below the first screen are rendered right after its first paint.
  await frame.locator('html[data-complete="true"]').waitFor({ state: 'attached', timeout: 20_000 });
  return frame;
}

/** Waits for the workbench to be back after a window reload (its status bar's Problems item). */
export async function workbenchBack(page: Page): Promise<void> {
  await page.waitForTimeout(2000);
  await page.locator(SELECTORS.problemsStatus).waitFor({ state: 'visible', timeout: 60_000 });
}

/** Developer: Reload Window, then the workbench back. */
export async function reloadWindow(page: Page): Promise<void> {
  await runCommand(page, 'Developer: Reload Window');
  await workbenchBack(page);
}
