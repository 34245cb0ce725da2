// End-to-end: live mode, the demo manifest compared with the demo cluster, in the packaged extension in a real VS Code
// (code-server) against the Kubernetes API simulator and Debian's Prometheus holding three days of history for the
// demo's StatefulSet default/llama (test/e2e/harness/liveHistory.ts):
//   - demo/workspace/llama-demo-cluster.yaml opens with its static CodeLens and the offer "Compare with a cluster…";
//     the status bar says "gpumem: live off";
//   - a click on the offer opens the context pick (every kubeconfig context, then Off); gpumem-demo is chosen;
//   - the live CodeLens appears on the container's resources line with the pod count, the peak true footprint and its
//     parts from the history, and the kill; the status bar says "gpumem: live · gpumem-demo";
//   - the Problems panel lists observed-footprint-over-limit and observed-oom-kills beside the static findings;
//   - the hover on the resources block shows the pod's row with its sources (the README's picture
//     media/screenshot-live.png is taken then);
//   - the quick fix "Set resources from what the pods used" writes request = limit, the GPU memory declaration and the
//     source comment; afterwards the live footprint finding and the static "GPU memory undeclared" are both gone, and
//     drift says what the cluster still runs.
// Needs root (the simulator's roots) and Debian's prometheus/promtool. Run with
// `npm run test:e2e -- test/e2e/live.e2e.test.ts`.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { prometheusUnavailable } from '../helpers/prometheusProcess.ts';
import { withClusterWorkbench } from './harness/clusters.ts';
import { startLiveHistory } from './harness/liveHistory.ts';
import { FIXTURES_DIR, REPO_ROOT } from './harness/paths.ts';
import { publishScreenshot } from './harness/readmeMedia.ts';
import {
  applyQuickFix,
  chooseQuickPickItem,
  goToPosition,
  openFile,
  readProblems,
  saveActiveEditor,
  showProblems,
  waitFor,
  waitForCodeLens,
  waitForProblems,
  waitForQuickPick,
} from './harness/workbench.ts';
import type { ProblemRow } from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 6 * 60_000;
const MANIFEST = 'llama-demo-cluster.yaml';
const DEMO_WORKSPACE = path.relative(FIXTURES_DIR, path.join(REPO_ROOT, 'demo', 'workspace'));
const FIX = 'Set resources from what the pods used';
const GiB = 1024 ** 3;

const codes = (rows: readonly ProblemRow[]) =>
  rows.filter((row) => row.source === 'gpumem' && row.file.endsWith(MANIFEST)).map((row) => row.code);

test(
  'the demo manifest against the demo cluster: live CodeLens, findings, hover and the quick fix',
  { timeout: SCENARIO_TIMEOUT_MS, skip: prometheusUnavailable() ?? false },
  async () => {
    await withClusterWorkbench('live', { fixture: DEMO_WORKSPACE, viewport: { width: 1600, height: 1000 } }, async (s, sim) => {
      const history = await startLiveHistory(sim);
      try {
        const { page } = s;
        const statusItem = page.locator('.part.statusbar .statusbar-item', { hasText: 'gpumem: live' }).first();
        await s.step(`open ${MANIFEST}`, () => openFile(page, MANIFEST));
        await s.step('the static CodeLens', () => waitForCodeLens(page, /^GPU: amd\.com\/gpu 1 \(unified memory\)/));
        await s.step('the offer beside it', () => waitForCodeLens(page, /Compare with a cluster…/));
        assert.match(await statusItem.innerText(), /gpumem: live off/);

        await s.step('a click on the offer opens the context pick', async () => {
          await page.locator('.codelens-decoration a', { hasText: 'Compare with a cluster…' }).first().click();
        });
        const picks = await s.step('the context pick', () =>
          waitForQuickPick(page, /context whose workloads the manifests are compared with/),
        );
        assert.deepEqual(
          picks.map((pick) => pick.label),
          ['gpumem-demo', 'Off'],
        );
        await s.step('choose gpumem-demo', () => chooseQuickPickItem(page, 'gpumem-demo'));

        const lens = await s.step('the live CodeLens', () => waitForCodeLens(page, /live in gpumem-demo: 1 pod/, { timeoutMs: 90_000 }));
        const title = lens.items.find((item) => item.includes('live in gpumem-demo')) ?? '';
        const footprint = (history.workingSetPeak + history.gpuInRamPeak) / GiB;
        assert.ok(
          title.includes(
            `peak true footprint ${footprint} GiB (cgroup ${history.workingSetPeak / GiB} GiB + GPU memory in RAM ${history.gpuInRamPeak / GiB} GiB) vs limit 16Gi`,
          ),
          title,
        );
        assert.match(
          title,
          /1 OOM kill in 7d: 1 global with the GPU signature — raising the limit would not have prevented the global ones/,
        );
        assert.match(title, /Prometheus service monitoring\/prometheus-k8s/);
        assert.match(lens.lineBelow, /^\s*resources:\s*$/, 'under the static lens, on the resources line');
        await s.step('the status bar names the context', () =>
          waitFor(
            'the status bar',
            () => statusItem.innerText(),
            (text) => /gpumem: live · gpumem-demo$/.test(text.trim()),
          ),
        );

        await s.step('show Problems', () => showProblems(page));
        const before = await s.step('live findings beside the static ones', () =>
          waitForProblems(page, 'observed-footprint-over-limit, observed-oom-kills and uma-gpu-memory-undeclared', (rows) =>
            ['observed-footprint-over-limit', 'observed-oom-kills', 'uma-gpu-memory-undeclared'].every((code) =>
              codes(rows).includes(code),
            ),
          ),
        );
        const over = before.find((row) => row.code === 'observed-footprint-over-limit');
        assert.ok(over);
        assert.equal(over.severity, 'warning');
        assert.match(over.message, /above this memory request of 8Gi/);

        const text = await readFile(path.join(s.workspace, MANIFEST), 'utf8');
        const resourcesLine = text.split('\n').findIndex((line) => line.trim() === 'resources:') + 1;
        await s.step('hover the resources block', async () => {
          await goToPosition(page, resourcesLine + 2, 15);
          await page.keyboard.press('Control+K');
          await page.keyboard.press('Control+I');
        });
        const hover = await s.step('the pod table in the hover', () =>
          waitFor(
            'the live hover',
            () =>
              page
                .locator('.monaco-hover')
                .first()
                .innerText()
                .catch(() => ''),
            (shown) => shown.includes('Live in gpumem-demo'),
          ),
        );
        assert.match(hover, /StatefulSet default\/llama, container llama/);
        assert.match(hover, /llama-0/);
        assert.match(hover, /strix-node-1/);
        assert.match(hover, /global, GPU signature/);
        assert.match(hover, /the API's container status \(OOMKilled\)/);
        await publishScreenshot(await s.screenshot('live-hover'), 'live');
        await page.keyboard.press('Escape');

        await s.step(`apply "${FIX}"`, () => applyQuickFix(page, { line: over.line, column: over.column }, FIX));
        const after = await s.step('the footprint finding and the undeclared GPU memory are gone; drift says what the cluster runs', () =>
          waitForProblems(page, 'no observed-footprint-over-limit nor uma-gpu-memory-undeclared, manifest-drift present', (rows) => {
            const now = codes(rows);
            return (
              !now.includes('observed-footprint-over-limit') && !now.includes('uma-gpu-memory-undeclared') && now.includes('manifest-drift')
            );
          }),
        );
        const drift = after.filter((row) => row.code === 'manifest-drift').map((row) => row.message);
        assert.ok(
          drift.some((message) => message.startsWith('The cluster runs memory limit 16Gi, this file says ')),
          JSON.stringify(drift),
        );
        await s.step('save', () => saveActiveEditor(page));
        const saved = await readFile(path.join(s.workspace, MANIFEST), 'utf8');
        assert.match(
          saved,
          /# gpumem: resources set from what the pods used in gpumem-demo \(Prometheus service monitoring\/prometheus-k8s/,
        );
        assert.match(saved, /gpumem\.io\/gpu-memory: 30Gi/);
        const memory = /limits:\n\s+memory: (\d+)Gi/.exec(saved)?.[1];
        assert.equal(/requests:\n\s+cpu: "4"\n\s+memory: (\d+)Gi/.exec(saved)?.[1], memory, 'request = limit');
        assert.ok(Number(memory) * GiB >= footprint * GiB * 1.3, `${memory}Gi covers ${footprint} GiB with 30 % headroom`);
        assert.equal(
          (await readProblems(page)).filter((row) => row.source === 'gpumem' && row.severity === 'warning').length,
          0,
          'no warning left, static or live',
        );
      } finally {
        await history.stop();
      }
    });
  },
);
