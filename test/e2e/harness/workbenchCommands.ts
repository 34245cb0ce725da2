// Driving code-server's workbench (VS Code 1.139) in Chromium through playwright-core: the selectors, waiting, the
// command palette, quick inputs and picks, the editor's cursor. Every helper takes explicit timeouts and fails with a
// message that says what it was waiting for. The selectors were read off the real page; see test/e2e/README.md.
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';

export const SELECTORS = {
  workbench: '.monaco-workbench',
  statusBar: '.part.statusbar',
  quickInput: '.quick-input-widget',
  quickInputBox: '.quick-input-widget .quick-input-box input',
  quickInputRow: '.quick-input-widget .quick-input-list .monaco-list-row',
  activeTab: '.part.editor .editor-group-container.active .tabs-container .tab.active',
  anyTab: '.part.editor .tabs-container .tab',
  activeEditor: '.part.editor .editor-group-container.active .editor-instance .monaco-editor',
  codeLens: '.codelens-decoration',
  actionWidgetRow: '.action-widget .monaco-list-row.action',
  problemsPanel: '.markers-panel',
  problemsRow: '.markers-panel .monaco-list-row',
  problemsStatus: '#status\\.problems',
  restrictedModeStatus: '#status\\.workspaceTrust',
  notificationMessage: '.notifications-toasts .notification-list-item-message',
  webviewOuter: 'iframe.webview.ready',
  webviewInner: '#active-frame',
} as const;

export const DEFAULT_TIMEOUT_MS = 20_000;

/** The little of the DOM that the page functions use (the project compiles without lib.dom). */
export interface DomElement {
  textContent: string | null;
  style: { top: string };
  children: ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
}

export interface WaitOptions {
  timeoutMs?: number;
}

/** Polls `probe` until `accept` holds; on timeout the error shows the last value seen. */
export async function waitFor<T>(
  description: string,
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  options: WaitOptions & { intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await probe();
      lastError = undefined;
      if (accept(last)) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const seen = lastError ? `last error: ${String(lastError)}` : `last seen: ${JSON.stringify(last, null, 1)}`;
      throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${description}; ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}

// ---------------------------------------------------------------------------------------------
// Workbench

/** Waits for the workbench, its status bar and the explorer showing the folder. */
export async function waitForWorkbench(page: Page, options: WaitOptions = {}): Promise<void> {
  const timeout = options.timeoutMs ?? 60_000;
  await page.locator(SELECTORS.workbench).waitFor({ state: 'visible', timeout });
  await page.locator(SELECTORS.statusBar).waitFor({ state: 'visible', timeout });
  // The problems status item is one of the last to appear once the workbench is restored.
  await page.locator(SELECTORS.problemsStatus).waitFor({ state: 'visible', timeout });
}

async function openQuickInput(page: Page, key: string, timeout: number): Promise<Locator> {
  const widget = page.locator(SELECTORS.quickInput);
  if (await widget.isVisible()) await page.keyboard.press('Escape');
  await page.keyboard.press(key);
  await widget.waitFor({ state: 'visible', timeout });
  return page.locator(SELECTORS.quickInputBox);
}

async function closeQuickInput(page: Page, timeout: number): Promise<void> {
  const widget = page.locator(SELECTORS.quickInput);
  if (await widget.isVisible()) await page.keyboard.press('Escape');
  await widget.waitFor({ state: 'hidden', timeout });
}

/** Rows of the open quick input as their label texts (`.label-name`). */
export async function quickInputLabels(page: Page): Promise<string[]> {
  const rows = page.locator(SELECTORS.quickInputRow);
  const labels = await rows.locator('.label-name').allInnerTexts();
  return labels.map((label) => label.trim());
}

/** The quick-input row whose `.label-name` is exactly `label`. */
function quickInputRow(page: Page, label: string): Locator {
  return page.locator(SELECTORS.quickInputRow).filter({ has: page.locator('.label-name').getByText(label, { exact: true }) });
}

/**
 * Opens the quick input with `key`, types `text`, and clicks the row labelled exactly `label`.
 * The picker's items are computed when it opens (the palette does not pick up commands that an
 * extension contributes later, Quick Open may still be indexing), so it reopens until `timeout`.
 */
async function pickFromQuickInput(
  page: Page,
  key: string,
  text: string,
  label: string,
  what: string,
  timeout: number,
  closes = true,
): Promise<void> {
  const deadline = Date.now() + timeout;
  let offered: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const input = await openQuickInput(page, key, Math.max(1000, deadline - Date.now()));
    // Focus can still move after the widget shows (a webview tab just clicked takes focus late), and
    // the quick input closes on blur, inert during its close animation: open it again.
    const filled = await input.fill(text, { timeout: Math.min(3000, Math.max(500, deadline - Date.now())) }).then(
      () => true,
      (error: unknown) => error,
    );
    if (filled !== true) {
      if (Date.now() > deadline)
        throw new Error(
          `${what}: could not type "${text}" after ${attempt} tries in ${timeout / 1000} s: ${filled instanceof Error ? filled.message.split('\n')[0] : String(filled)}`,
        );
      continue;
    }
    const row = quickInputRow(page, label).first();
    const found = await row
      .waitFor({ state: 'visible', timeout: Math.min(attempt === 1 ? 1500 : 3000, Math.max(500, deadline - Date.now())) })
      .then(
        () => true,
        () => false,
      );
    if (found) {
      await row.click({ timeout: Math.max(1000, deadline - Date.now()) });
      if (closes) await page.locator(SELECTORS.quickInput).waitFor({ state: 'hidden', timeout: Math.max(1000, deadline - Date.now()) });
      return;
    }
    offered = await quickInputLabels(page).catch(() => []);
    await closeQuickInput(page, 5000).catch(() => undefined);
    if (Date.now() > deadline)
      throw new Error(`${what}: no row "${label}" after ${attempt} tries in ${timeout / 1000} s; rows: ${JSON.stringify(offered)}`);
  }
}

/** Opens a workspace file through Quick Open (Ctrl+P) and waits for its editor tab to be active. */
export async function openFile(page: Page, fileName: string, options: WaitOptions = {}): Promise<void> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  await pickFromQuickInput(page, 'Control+P', fileName, path.basename(fileName), `Quick Open ${fileName}`, timeout);
  await page
    .locator(SELECTORS.activeTab)
    .filter({ hasText: path.basename(fileName) })
    .waitFor({ state: 'visible', timeout });
  await page.locator(SELECTORS.activeEditor).first().waitFor({ state: 'visible', timeout });
}

/** The command palette's titles offered for `query` (without running anything). */
export async function commandPaletteTitles(
  page: Page,
  query: string,
  options: WaitOptions & { settleMs?: number } = {},
): Promise<string[]> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const input = await openQuickInput(page, 'Control+Shift+P', timeout);
  await input.fill(`>${query}`);
  await page.waitForTimeout(options.settleMs ?? 800);
  const titles = await quickInputLabels(page);
  await closeQuickInput(page, timeout);
  return titles;
}

/**
 * Runs a command from the palette by its exact title, e.g. "gpumem: Lint Workspace Manifests".
 * `opensInput`: the command shows a quick pick of its own, so the quick input is not waited to close
 * (answer it with waitForQuickPick / chooseQuickPickItem).
 */
export async function runCommand(page: Page, title: string, options: WaitOptions & { opensInput?: boolean } = {}): Promise<void> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  await pickFromQuickInput(page, 'Control+Shift+P', `>${title}`, title, 'The command palette', timeout, !options.opensInput);
}

export interface QuickPickEntry {
  label: string;
  description: string;
}

/** The open quick input: whether it shows, its placeholder, its rows (in list order). */
export async function readQuickPick(page: Page): Promise<{ visible: boolean; placeholder: string; items: QuickPickEntry[] }> {
  const widget = page.locator(SELECTORS.quickInput);
  if (!(await widget.isVisible())) return { visible: false, placeholder: '', items: [] };
  const placeholder = (await page.locator(SELECTORS.quickInputBox).getAttribute('placeholder')) ?? '';
  const rows = await page.locator(SELECTORS.quickInputRow).evaluateAll((elements) =>
    elements.map((row) => ({
      index: Number(row.getAttribute('data-index')),
      label: (row.querySelector('.label-name')?.textContent ?? '').trim(),
      description: (row.querySelector('.label-description')?.textContent ?? '').trim(),
    })),
  );
  rows.sort((a, b) => a.index - b.index);
  return { visible: true, placeholder, items: rows.map(({ label, description }) => ({ label, description })) };
}

/**
 * Waits for a quick pick whose placeholder matches (an extension's showQuickPick) with its rows, read
 * twice alike (the items can arrive after the placeholder); returns the rows.
 */
export async function waitForQuickPick(page: Page, placeholder: RegExp, options: WaitOptions = {}): Promise<QuickPickEntry[]> {
  let previous = '';
  const seen = await waitFor(
    `a quick pick "${placeholder.source}" with its items`,
    () => readQuickPick(page),
    (pick) => {
      const key = JSON.stringify(pick);
      const stable = key === previous;
      previous = key;
      return pick.visible && placeholder.test(pick.placeholder) && pick.items.length > 0 && stable;
    },
    { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, intervalMs: 200 },
  );
  return seen.items;
}

/** Clicks the row labelled exactly `label` in the open quick pick; waits until that pick is gone (the next may open). */
export async function chooseQuickPickItem(page: Page, label: string, options: WaitOptions = {}): Promise<void> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const before = await readQuickPick(page);
  await quickInputRow(page, label).first().click({ timeout });
  await waitFor(
    `the quick pick "${before.placeholder}" to close after choosing ${label}`,
    () => readQuickPick(page),
    (pick) => !pick.visible || pick.placeholder !== before.placeholder,
    { timeoutMs: timeout, intervalMs: 100 },
  );
}

/** Escape in the open quick pick; waits until it is hidden. */
export async function dismissQuickPick(page: Page, options: WaitOptions = {}): Promise<void> {
  await page.keyboard.press('Escape');
  await page.locator(SELECTORS.quickInput).waitFor({ state: 'hidden', timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
}

/** Moves the cursor of the active editor with Go to Line/Column (Ctrl+G); 1-based like the UI. */
export async function goToPosition(page: Page, line: number, column = 1, options: WaitOptions = {}): Promise<void> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  await focusActiveEditor(page, timeout);
  const input = await openQuickInput(page, 'Control+G', timeout);
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await page.locator(SELECTORS.quickInput).waitFor({ state: 'hidden', timeout });
}

export async function focusActiveEditor(page: Page, timeout = DEFAULT_TIMEOUT_MS): Promise<void> {
  const editor = page.locator(SELECTORS.activeEditor).first();
  await editor.waitFor({ state: 'visible', timeout });
  const focused = await editor.evaluate((element) => element.classList.contains('focused'));
  if (!focused) {
    // A click on the line numbers focuses the editor without typing anything into it.
    await editor
      .locator('.margin')
      .first()
      .click({ position: { x: 5, y: 5 }, timeout });
  }
}
