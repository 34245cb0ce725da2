// End-to-end: "gpumem: Lint Rendered Kustomize Overlay" in code-server. The overlay is the kustomize fixture's
// hami-debug (test/fixtures/manifests/kustomize/README.md: the real TGIS base, a patch written for gpumem that sets
// CUDA_DISABLE_CONTROL=true). The oracle is Debian's kubectl run by this test: the line of that env value in its own
// rendering, one line lower in the document for gpumem's header comment. An overlay that kustomize refuses (a
// resource outside its directory) gets one error notification naming the load restrictor's way out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { withWorkbench } from './harness/session.ts';
import { openFile, readVisibleEditorLines, runCommand, waitFor, waitForNotification, waitForProblems } from './harness/workbench.ts';
import { REPO_ROOT } from './harness/paths.ts';

const KUBECTL = '/usr/bin/kubectl';
const TGIS = path.join(REPO_ROOT, 'test', 'fixtures', 'manifests', 'kustomize', 'tgis');
const TITLE = 'gpumem: Lint Rendered Kustomize Overlay';
const RENDERED = 'kustomize-rendered.yaml';

/** 1-based line of `value: "true"` under `- name: CUDA_DISABLE_CONTROL` in kubectl's own rendering. */
function renderedEnvLine(directory: string): number {
  const lines = execFileSync(KUBECTL, ['kustomize', directory], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n');
  const name = lines.findIndex((line) => /^\s*- name: CUDA_DISABLE_CONTROL\s*$/.test(line));
  assert.ok(name >= 0, 'kubectl renders the patched env entry');
  assert.match(lines[name + 1] ?? '', /^\s*value: "true"\s*$/);
  return name + 2;
}

test(
  'the rendered hami-debug overlay opens read-only with its header, and cuda-disable-control is at its rendered line',
  { skip: existsSync(KUBECTL) ? false : `${KUBECTL} is not installed`, timeout: 5 * 60_000 },
  async () => {
    await withWorkbench('kustomize-rendered', { fixture: 'single' }, async (s) => {
      const overlay = s.file('tgis/overlays/hami-debug');
      await s.step('copy the kustomize fixture into the workspace, with an overlay kustomize refuses', async () => {
        cpSync(path.join(TGIS, 'base'), s.file('tgis/base'), { recursive: true });
        cpSync(path.join(TGIS, 'overlays', 'hami-debug'), overlay, { recursive: true });
        // Written for this test: a resource outside the overlay's directory, which kustomize's load restrictor refuses.
        mkdirSync(s.file('tgis/overlays/restricted'), { recursive: true });
        writeFileSync(s.file('tgis/overlays/restricted/kustomization.yaml'), 'resources:\n  - ../../base/deployment.yaml\n');
        writeFileSync(s.file('tgis/overlays/restricted/restricted-notes.yaml'), '# the overlay beside is refused by kustomize\n');
      });
      const expectedLine = renderedEnvLine(overlay) + 1;

      await s.step('open the patch, debug-env.yaml, with Quick Open', () => openFile(s.page, 'debug-env.yaml'));
      await s.step(`run "${TITLE}" from the command palette`, () => runCommand(s.page, TITLE));
      const rows = await s.step('the rendered document has cuda-disable-control in the Problems panel', () =>
        waitForProblems(
          s.page,
          `cuda-disable-control in ${RENDERED}`,
          (all) => all.some((row) => path.basename(row.file) === RENDERED && row.code === 'cuda-disable-control'),
          { timeoutMs: 60_000 },
        ),
      );
      const finding = rows.find((row) => path.basename(row.file) === RENDERED && row.code === 'cuda-disable-control');
      assert.equal(finding?.line, expectedLine, `the finding is on the rendered env value's line (${expectedLine})`);
      assert.equal(finding?.severity, 'warning');

      const header = await s.step('the document starts with the comment naming the overlay and when it was rendered', () =>
        waitFor(
          'the header line',
          async () => (await readVisibleEditorLines(s.page))[0] ?? '',
          (line) => line.startsWith('# gpumem: kubectl kustomize '),
        ),
      );
      assert.match(header, /tgis\/overlays\/hami-debug, rendered \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);

      await s.step('open restricted-notes.yaml beside the refused overlay', () => openFile(s.page, 'restricted-notes.yaml'));
      await s.step(`run "${TITLE}" on it`, () => runCommand(s.page, TITLE));
      const error = await s.step('one error notification names the load restrictor', () =>
        waitForNotification(s.page, /was not rendered: kubectl kustomize failed: .*LoadRestrictionsNone/, { timeoutMs: 60_000 }),
      );
      assert.match(error, /is not in or below/);
    });
  },
);
