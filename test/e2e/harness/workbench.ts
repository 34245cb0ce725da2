// Helpers that drive code-server's workbench (VS Code 1.139) in Chromium through playwright-core.
// Every helper takes explicit timeouts and fails with a message that says what it was waiting for.
// The selectors were read off the real page; see SELECTORS and test/e2e/README.md.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { ARTIFACTS_DIR } from './paths.ts';

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
interface DomElement {
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

// ---------------------------------------------------------------------------------------------
// Problems panel

export interface ProblemRow {
  /** absolute path of the file the problem belongs to */
  file: string;
  message: string;
  source: string;
  code: string;
  line: number;
  column: number;
  severity: 'error' | 'warning' | 'info' | 'hint' | 'unknown';
}

/** Shows the Problems panel (Ctrl+Shift+M toggles, so only when it is not visible). */
export async function showProblems(page: Page, options: WaitOptions = {}): Promise<void> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const panel = page.locator(SELECTORS.problemsPanel);
  if (await panel.isVisible()) return;
  await page.keyboard.press('Control+Shift+M');
  await panel.waitFor({ state: 'visible', timeout });
}

/**
 * The rows the Problems panel renders, in order, each problem with its file.
 * The list is virtualised: only rows in view are in the DOM (a few dozen at the default size).
 */
export async function readProblems(page: Page): Promise<ProblemRow[]> {
  const raw = await page.locator(SELECTORS.problemsRow).evaluateAll((rows) =>
    rows.map((row) => {
      const text = (selector: string) => (row.querySelector(selector)?.textContent ?? '').trim();
      return {
        index: Number(row.getAttribute('data-index')),
        level: row.getAttribute('aria-level'),
        // File rows: .monaco-icon-label's aria-label is the file's absolute path.
        fileLabel: row.querySelector('.monaco-icon-label')?.getAttribute('aria-label') ?? '',
        message: text('.marker-message'),
        source: text('.marker-source'),
        code: text('.marker-code'),
        position: text('.marker-line'),
        icon: row.querySelector('.marker-icon')?.className ?? '',
      };
    }),
  );
  raw.sort((a, b) => a.index - b.index);
  const problems: ProblemRow[] = [];
  let file = '';
  for (const row of raw) {
    if (row.level === '1') {
      file = row.fileLabel;
      continue;
    }
    const position = /Ln (\d+), Col (\d+)/.exec(row.position);
    const severity = (['error', 'warning', 'info', 'hint'] as const).find((s) => row.icon.split(/\s+/).includes(s)) ?? 'unknown';
    problems.push({
      file,
      message: row.message,
      source: row.source,
      code: row.code,
      line: position ? Number(position[1]) : 0,
      column: position ? Number(position[2]) : 0,
      severity,
    });
  }
  return problems;
}

/** Shows the Problems panel and waits until its rows satisfy `accept`. */
export async function waitForProblems(
  page: Page,
  description: string,
  accept: (rows: ProblemRow[]) => boolean,
  options: WaitOptions = {},
): Promise<ProblemRow[]> {
  await showProblems(page, options);
  return waitFor(`Problems panel: ${description}`, () => readProblems(page), accept, { timeoutMs: options.timeoutMs ?? 30_000 });
}

/** The status bar's problem counts, e.g. "Warnings: 3" or "No Problems". */
export async function problemsStatus(page: Page): Promise<string> {
  return (await page.locator(SELECTORS.problemsStatus).getAttribute('aria-label')) ?? '';
}

// ---------------------------------------------------------------------------------------------
// Editor: CodeLens, quick fixes, text

export interface CodeLensLine {
  /** the lens items shown together above one line, e.g. ["GPU: nvidia.com/gpu 1, ...", "..."] */
  items: string[];
  /** the text of the editor line right below the lenses */
  lineBelow: string;
}

/** CodeLenses rendered in the active editor (only those in view), top to bottom. */
export async function readCodeLenses(page: Page): Promise<CodeLensLine[]> {
  const editor = page.locator(SELECTORS.activeEditor).first();
  return editor.evaluate((root) => {
    const all = (selector: string) => Array.from(root.querySelectorAll(selector) as ArrayLike<DomElement>);
    const clean = (text: string | null) => (text ?? '').replace(/\u00a0/g, ' ');
    const lines = all('.view-lines .view-line').map((line) => ({
      top: Number.parseFloat(line.style.top) || 0,
      text: clean(line.textContent),
    }));
    return all('.codelens-decoration')
      .map((lens) => {
        const top = Number.parseFloat(lens.style.top) || 0;
        const below = lines.filter((line) => line.top > top).sort((a, b) => a.top - b.top)[0];
        const items = Array.from(lens.children)
          .map((child) => clean(child.textContent).trim())
          .filter((text) => text !== '' && text !== '|');
        return { top, items, lineBelow: below ? below.text : '' };
      })
      .sort((a, b) => a.top - b.top)
      .map(({ items, lineBelow }) => ({ items, lineBelow }));
  });
}

/**
 * Waits for a CodeLens item matching `pattern` in the active editor.
 * Wait for lenses before opening a panel: VS Code 1.139 sometimes drops the lenses of a just-opened
 * editor when the layout changes while it fetches them (they come back with the next edit).
 */
export async function waitForCodeLens(page: Page, pattern: RegExp, options: WaitOptions = {}): Promise<CodeLensLine> {
  const lenses = await waitFor(
    `a CodeLens matching ${pattern}`,
    () => readCodeLenses(page),
    (all) => all.some((lens) => lens.items.some((item) => pattern.test(item))),
    { timeoutMs: options.timeoutMs ?? 30_000 },
  );
  const found = lenses.find((lens) => lens.items.some((item) => pattern.test(item)));
  if (!found) throw new Error('unreachable');
  return found;
}

/**
 * Opens the Quick Fix menu (Ctrl+.) at a position of the active editor. Code actions are computed
 * asynchronously and a keypress can land before the editor has focus again, so it retries until
 * the menu shows rows or `timeout` passes. Returns the row titles.
 */
async function openQuickFixMenu(page: Page, position: { line: number; column: number }, timeout: number): Promise<string[]> {
  const deadline = Date.now() + timeout;
  const rows = page.locator(SELECTORS.actionWidgetRow);
  let message = '';
  for (;;) {
    await goToPosition(page, position.line, position.column, { timeoutMs: Math.max(1000, deadline - Date.now()) });
    await page.keyboard.press('Control+.');
    const shown = await rows
      .first()
      .waitFor({ state: 'visible', timeout: Math.min(4000, Math.max(500, deadline - Date.now())) })
      .then(
        () => true,
        () => false,
      );
    if (shown) return (await rows.locator('.title').allInnerTexts()).map((title) => title.trim());
    // "No code actions available" and similar show up as an overlay message.
    message = (
      await page
        .locator('.monaco-editor-overlaymessage')
        .allInnerTexts()
        .catch(() => [])
    )
      .join(' ')
      .trim();
    await page.keyboard.press('Escape');
    if (Date.now() > deadline) {
      throw new Error(
        `Quick Fix (Ctrl+.) at ${position.line}:${position.column} showed no menu in ${timeout / 1000} s${message ? `; the editor said: ${message}` : ''}`,
      );
    }
  }
}

/** Titles offered by Quick Fix (Ctrl+.) at a position of the active editor; closes the menu. */
export async function quickFixTitles(page: Page, line: number, column: number, options: WaitOptions = {}): Promise<string[]> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const titles = await openQuickFixMenu(page, { line, column }, timeout);
  await page.keyboard.press('Escape');
  await page.locator(SELECTORS.actionWidgetRow).first().waitFor({ state: 'hidden', timeout });
  return titles;
}

/**
 * Opens the Quick Fix menu at a position (1-based line/column, as shown in the Problems panel) and leaves it open,
 * e.g. for a screenshot; fails unless it offers `title`. Returns every title offered.
 */
export async function showQuickFix(
  page: Page,
  position: { line: number; column: number },
  title: string,
  options: WaitOptions = {},
): Promise<string[]> {
  const offered = await openQuickFixMenu(page, position, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  if (!offered.includes(title)) {
    await page.keyboard.press('Escape');
    throw new Error(`Quick Fix at ${position.line}:${position.column} does not offer "${title}"; it offers: ${JSON.stringify(offered)}`);
  }
  return offered;
}

/** Clicks the action `title` in the open Quick Fix menu and waits for the menu to close. */
export async function chooseQuickFix(page: Page, title: string, options: WaitOptions = {}): Promise<void> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const rows = page.locator(SELECTORS.actionWidgetRow);
  await rows
    .filter({ has: page.locator('.title').getByText(title, { exact: true }) })
    .first()
    .click({ timeout });
  await rows.first().waitFor({ state: 'hidden', timeout });
}

/**
 * Applies the quick fix `title` at a position (1-based line/column, as shown in the Problems panel):
 * Go to Line/Column, Ctrl+. and a click on the action in the lightbulb menu.
 */
export async function applyQuickFix(
  page: Page,
  position: { line: number; column: number },
  title: string,
  options: WaitOptions = {},
): Promise<void> {
  await showQuickFix(page, position, title, options);
  await chooseQuickFix(page, title, options);
}

/** The lines of the active editor that are rendered (in view), top to bottom. */
export async function readVisibleEditorLines(page: Page): Promise<string[]> {
  const editor = page.locator(SELECTORS.activeEditor).first();
  return editor.locator('.view-lines .view-line').evaluateAll((lines) =>
    (lines as DomElement[])
      .map((line) => ({ top: Number.parseFloat(line.style.top) || 0, text: (line.textContent ?? '').replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((line) => line.text),
  );
}

/** Saves the active editor (Ctrl+S) and waits until its tab is no longer dirty; read the file from disk next. */
export async function saveActiveEditor(page: Page, options: WaitOptions = {}): Promise<void> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  await focusActiveEditor(page, timeout);
  await page.keyboard.press('Control+S');
  await waitFor(
    'the active tab to be saved (not dirty)',
    async () => (await page.locator(SELECTORS.activeTab).getAttribute('class')) ?? '',
    (classes) => !classes.split(/\s+/).includes('dirty'),
    { timeoutMs: timeout },
  );
}

/** Whether the active editor tab has unsaved changes. */
export async function activeEditorIsDirty(page: Page): Promise<boolean> {
  const classes = (await page.locator(SELECTORS.activeTab).getAttribute('class')) ?? '';
  return classes.split(/\s+/).includes('dirty');
}

/** Labels of the open editor tabs. */
export async function openTabs(page: Page): Promise<string[]> {
  return (await page.locator(`${SELECTORS.anyTab} .label-name`).allInnerTexts()).map((t) => t.trim());
}

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
