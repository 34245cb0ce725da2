// Helpers that drive code-server's workbench (VS Code 1.139) in Chromium through playwright-core.
// Every helper takes explicit timeouts and fails with a message that says what it was waiting for.
// The selectors were read off the real page; see SELECTORS and test/e2e/README.md.
// They are split by what they drive: workbenchCommands.ts (waiting, commands, quick inputs), workbenchEditor.ts
// (Problems, CodeLens, quick fixes, text) and workbenchViews.ts (views, notifications, webviews); this module is the
// tests' one entry point and exports what it always has.
export {
  SELECTORS,
  DEFAULT_TIMEOUT_MS,
  waitFor,
  waitForWorkbench,
  quickInputLabels,
  openFile,
  commandPaletteTitles,
  runCommand,
  readQuickPick,
  waitForQuickPick,
  chooseQuickPickItem,
  dismissQuickPick,
  goToPosition,
  focusActiveEditor,
} from './workbenchCommands.ts';
export type { WaitOptions, QuickPickEntry } from './workbenchCommands.ts';
export {
  showProblems,
  readProblems,
  waitForProblems,
  problemsStatus,
  readCodeLenses,
  waitForCodeLens,
  quickFixTitles,
  showQuickFix,
  chooseQuickFix,
  applyQuickFix,
  readVisibleEditorLines,
  saveActiveEditor,
  activeEditorIsDirty,
  openTabs,
} from './workbenchEditor.ts';
export type { ProblemRow, CodeLensLine } from './workbenchEditor.ts';
export {
  readTreeItems,
  readViewWelcome,
  waitForTreeItem,
  focusView,
  readNotifications,
  waitForNotification,
  webviewFrame,
  findWebviewFrame,
  isRestrictedMode,
  screenshot,
  inspectorPanel,
  workbenchBack,
  reloadWindow,
} from './workbenchViews.ts';
export type { TreeItem } from './workbenchViews.ts';
