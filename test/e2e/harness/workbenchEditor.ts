// The workbench's Problems panel and editor: diagnostics, CodeLens, quick fixes, the text, saving, tabs.
import type { Page } from 'playwright-core';
import { DEFAULT_TIMEOUT_MS, SELECTORS, focusActiveEditor, goToPosition, waitFor } from './workbenchCommands.ts';
import type { DomElement, WaitOptions } from './workbenchCommands.ts';

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
