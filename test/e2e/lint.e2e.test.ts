// End-to-end: the packaged extension (dist/gpumem.vsix) in a real VS Code (code-server 4.139.1)
// driven through headless Chromium, as a user would: Problems panel, CodeLens, quick fix (the open menu is the
// README's media/screenshot-lint.png), the "Lint Workspace Manifests" command, and Restricted Mode.
// Run with `npm run test:e2e` (scripts/e2e/run-e2e.mjs). Artifacts land in test-artifacts/.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { withWorkbench } from './harness/session.ts';
import {
  chooseQuickFix,
  commandPaletteTitles,
  isRestrictedMode,
  openFile,
  openTabs,
  readCodeLenses,
  readProblems,
  runCommand,
  saveActiveEditor,
  showProblems,
  showQuickFix,
  waitForCodeLens,
  waitFor,
  waitForProblems,
} from './harness/workbench.ts';
import type { ProblemRow } from './harness/workbench.ts';
import { FIXTURES_DIR, REPO_ROOT } from './harness/paths.ts';
import { publishScreenshot } from './harness/readmeMedia.ts';

const TRAINER = 'hami-dind-trainer.yaml';
const FIX = 'Remove CUDA_DISABLE_CONTROL';

interface CommandContribution {
  command: string;
  title: string;
  category?: string;
  enablement?: string;
}
interface Manifest {
  contributes?: { commands?: CommandContribution[]; menus?: { commandPalette?: { command: string; when?: string }[] } };
}

/**
 * Palette titles of the commands that only a trusted workspace may run (they run probes on this
 * machine or over SSH): gated by `isWorkspaceTrusted` in package.json, plus the inspect commands.
 */
async function trustOnlyCommandTitles(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;
  const gated = new Set(
    (manifest.contributes?.menus?.commandPalette ?? [])
      .filter((entry) => /isWorkspaceTrusted/.test(entry.when ?? ''))
      .map((entry) => entry.command),
  );
  return (manifest.contributes?.commands ?? [])
    .filter((c) => gated.has(c.command) || /isWorkspaceTrusted/.test(c.enablement ?? '') || /^gpumem\.inspect/.test(c.command))
    .map((c) => (c.category ? `${c.category}: ${c.title}` : c.title));
}
const TRAINER_CODES = ['cuda-disable-control', 'gpu-no-memory-limit', 'gpu-docker-in-docker'];
const SCENARIO_TIMEOUT_MS = 5 * 60_000;

function gpumemRows(rows: ProblemRow[], file?: string): ProblemRow[] {
  return rows.filter((row) => row.source === 'gpumem' && (file === undefined || path.basename(row.file) === file));
}

function codesOf(rows: ProblemRow[]): string[] {
  return [...new Set(rows.map((row) => row.code))].sort();
}

/** The fixture without the CUDA_DISABLE_CONTROL env entry (its `- name:` line and its `value:` line). */
function withoutCudaDisableControl(text: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => /-\s+name:\s+CUDA_DISABLE_CONTROL\s*$/.test(line));
  assert.ok(at >= 0, 'the fixture has a CUDA_DISABLE_CONTROL env entry');
  assert.match(lines[at + 1] ?? '', /^\s+value:\s+"true"\s*$/);
  lines.splice(at, 2);
  return lines.join('\n');
}

test(
  'open a HAMi trainer manifest: Problems, CodeLens, and the "Remove CUDA_DISABLE_CONTROL" quick fix',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    const original = await readFile(path.join(FIXTURES_DIR, 'single', TRAINER), 'utf8');
    await withWorkbench('lint-open-file', { fixture: 'single' }, async (s) => {
      await s.step(`open ${TRAINER} with Quick Open`, () => openFile(s.page, TRAINER));

      // CodeLens first: opening the Problems panel while VS Code is fetching the lenses of a just-opened
      // editor (it relayouts the editor) sometimes drops them until the next edit (code-server 1.139).
      const lens = await s.step('a CodeLens starting with "GPU:" above the trainer container', () => waitForCodeLens(s.page, /^GPU:/));
      const summary = lens.items.find((item) => item.startsWith('GPU:')) ?? '';
      assert.match(summary, /nvidia\.com\/gpu/);
      assert.match(
        lens.lineBelow,
        /^\s*-\s*name:\s*trainer\s*$/,
        `the GPU lens sits above the trainer container (line below: "${lens.lineBelow}")`,
      );

      const before = await s.step('Problems panel lists the gpumem diagnostics with their codes', () =>
        waitForProblems(s.page, `gpumem rows with codes ${TRAINER_CODES.join(', ')}`, (rows) => {
          const codes = codesOf(gpumemRows(rows, TRAINER));
          return TRAINER_CODES.every((code) => codes.includes(code));
        }),
      );
      for (const row of gpumemRows(before, TRAINER)) {
        assert.ok(row.message.length > 0, `a message for ${row.code}`);
        assert.equal(path.dirname(row.file), s.workspace, 'the problem belongs to the workspace copy');
      }
      const cudaRow = gpumemRows(before, TRAINER).find((row) => row.code === 'cuda-disable-control');
      assert.ok(cudaRow, 'a cuda-disable-control row');
      assert.match(cudaRow.message, /CUDA_DISABLE_CONTROL/);

      await s.screenshot('before-fix');

      // The README's picture (media/screenshot-lint.png): the diagnostics, the CodeLens and the open quick fix menu.
      const offered = await s.step('Quick Fix on the CUDA_DISABLE_CONTROL entry offers "Remove CUDA_DISABLE_CONTROL"', () =>
        showQuickFix(s.page, { line: cudaRow.line, column: cudaRow.column }, FIX),
      );
      assert.ok(offered.includes(FIX), JSON.stringify(offered));
      assert.ok(
        (await readCodeLenses(s.page)).some((l) => l.items.some((item) => item.startsWith('GPU:'))),
        'the CodeLens is on screen',
      );
      await publishScreenshot(await s.screenshot('quick-fix'), 'lint');

      await s.step(`apply the "${FIX}" quick fix`, () => chooseQuickFix(s.page, FIX));

      const after = await s.step('cuda-disable-control disappears, the other diagnostics remain', () =>
        waitForProblems(s.page, 'no cuda-disable-control, gpu-no-memory-limit and gpu-docker-in-docker still there', (rows) => {
          const codes = codesOf(gpumemRows(rows, TRAINER));
          return !codes.includes('cuda-disable-control') && codes.includes('gpu-no-memory-limit') && codes.includes('gpu-docker-in-docker');
        }),
      );
      assert.ok(!codesOf(gpumemRows(after)).includes('cuda-disable-control'));

      await s.step('save the document', () => saveActiveEditor(s.page));
      const saved = await readFile(s.file(TRAINER), 'utf8');
      assert.equal(saved, withoutCudaDisableControl(original), 'the quick fix removed exactly the CUDA_DISABLE_CONTROL env entry');
      assert.match(saved, /name: NCCL_DEBUG/, 'the other env entry stays');
    });
  },
);

test('an open kustomize patch is linted as one: the kustomization beside it is read', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  await withWorkbench('lint-open-patch', { fixture: 'lint-workspace' }, async (s) => {
    await s.step('open overlay/gpus-4.yaml with Quick Open', () => openFile(s.page, 'gpus-4.yaml'));
    // Linted at once as a workload, then again once overlay/kustomization.yaml is read: the wait is for the second.
    const rows = await s.step('the patch carries the kustomize-patch notice and only a hint for the missing memory limit', () =>
      waitForProblems(s.page, 'gpus-4.yaml read as a kustomize patch', (all) =>
        gpumemRows(all, 'gpus-4.yaml').some((row) => row.code === 'kustomize-patch'),
      ),
    );
    assert.deepEqual(
      gpumemRows(rows, 'gpus-4.yaml').map((row) => `${row.severity} ${row.code}`),
      ['info kustomize-patch', 'info gpu-no-memory-limit'],
    );
  });
});

test('"gpumem: Lint Workspace Manifests" reports files that are not open', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  await withWorkbench('lint-workspace', { fixture: 'lint-workspace' }, async (s) => {
    assert.deepEqual(await openTabs(s.page), [], 'no editor is open');
    await s.step('the Problems panel starts without gpumem rows', async () => {
      await showProblems(s.page);
      assert.deepEqual(gpumemRows(await readProblems(s.page)), []);
    });

    await s.step('run "gpumem: Lint Workspace Manifests" from the command palette', () =>
      runCommand(s.page, 'gpumem: Lint Workspace Manifests'),
    );

    const rows = await s.step(
      'the files with findings are in the Problems panel',
      () =>
        waitForProblems(s.page, `gpumem rows for ${TRAINER} and unlimited-inference.yaml`, (all) => {
          const files = new Set(gpumemRows(all).map((row) => path.basename(row.file)));
          return files.has(TRAINER) && files.has('unlimited-inference.yaml') && files.has('accel-pod.yaml') && files.has('gpus-4.yaml');
        }),
      90_000,
    );
    const byFile = new Map<string, string[]>();
    for (const row of gpumemRows(rows)) byFile.set(path.basename(row.file), [...(byFile.get(path.basename(row.file)) ?? []), row.code]);
    assert.ok(
      TRAINER_CODES.every((code) => byFile.get(TRAINER)?.includes(code)),
      `trainer codes: ${JSON.stringify(byFile.get(TRAINER))}`,
    );
    assert.ok(
      byFile.get('unlimited-inference.yaml')?.includes('gpu-no-memory-limit'),
      `inference codes: ${JSON.stringify(byFile.get('unlimited-inference.yaml'))}`,
    );
    // example.com/accel is a GPU only through the DeviceClass of another file: the workspace index carries it.
    assert.deepEqual(
      byFile.get('accel-pod.yaml'),
      ['gpu-no-memory-limit', 'gpu-no-memory-limit'],
      'the DeviceClass of accel-deviceclass.yaml makes both containers GPU containers',
    );
    assert.equal(byFile.has('web-frontend.yaml'), false, 'a manifest without GPUs has no gpumem findings');
    // overlay/kustomization.yaml lists gpus-4.yaml as a patch: judged for what it sets, the missing memory limit is a hint.
    const patchRows = gpumemRows(rows).filter((row) => path.basename(row.file) === 'gpus-4.yaml');
    assert.deepEqual(
      patchRows.map((row) => `${row.severity} ${row.code}`),
      ['info kustomize-patch', 'info gpu-no-memory-limit'],
      'the patch of overlay/kustomization.yaml is read as a patch',
    );
    assert.deepEqual(await openTabs(s.page), [], 'linting the workspace opened no editor');

    // The control for the Restricted Mode scenario: a trusted window does offer the probe commands.
    // Each title is asked for on its own: the palette renders only the rows that fit (about 17), and gpumem has more.
    const trustOnly = await trustOnlyCommandTitles();
    const missing = await s.step('the trusted window offers the trust-only commands', async () => {
      const notOffered: string[] = [];
      for (const title of trustOnly) if (!(await commandPaletteTitles(s.page, title)).includes(title)) notOffered.push(title);
      return notOffered;
    });
    assert.deepEqual(missing, [], 'every trust-only command is in the palette of a trusted window');
  });
});

test(
  'Restricted Mode (untrusted folder): linting still works, remote commands are not offered',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    await withWorkbench('restricted-mode', { fixture: 'single', trusted: false }, async (s) => {
      await s.step('the window shows Restricted Mode', () =>
        waitFor(
          'the Restricted Mode status bar item',
          () => isRestrictedMode(s.page),
          (on) => on,
        ),
      );

      await s.step(`open ${TRAINER} with Quick Open`, () => openFile(s.page, TRAINER));
      await s.step('a CodeLens starting with "GPU:" in Restricted Mode', () => waitForCodeLens(s.page, /^GPU:/));
      await s.step('the gpumem diagnostics appear in Restricted Mode', () =>
        waitForProblems(s.page, `gpumem rows with codes ${TRAINER_CODES.join(', ')}`, (rows) => {
          const codes = codesOf(gpumemRows(rows, TRAINER));
          return TRAINER_CODES.every((code) => codes.includes(code));
        }),
      );

      const titles = await s.step('list the gpumem commands in the palette', () => commandPaletteTitles(s.page, 'gpumem'));
      assert.ok(titles.includes('gpumem: Lint Workspace Manifests'), `linting is offered: ${JSON.stringify(titles)}`);
      const trustOnly = await trustOnlyCommandTitles();
      const offered = titles.filter((title) => trustOnly.includes(title) || /^gpumem: Inspect/i.test(title));
      assert.deepEqual(
        offered,
        [],
        `commands that run probes are not offered in Restricted Mode (trust-only: ${JSON.stringify(trustOnly)})`,
      );
    });
  },
);
