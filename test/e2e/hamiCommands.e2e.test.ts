// End-to-end: the two HAMi commands of a pod's context menu in the packaged extension, in a real VS Code
// (code-server) driven through headless Chromium, against the Kubernetes API simulator (issue #11):
//   - "Test HAMi Enforcement…" on a HAMi pod whose container root holds the CUDA test doubles
//     (test/helpers/hamiTestRoot.ts: a stub libcuda.so.1 and an interposer loaded through a real
//     /etc/ld.so.preload): the modal names the pod, the container, the quota and the amount, and that code runs
//     in the container; Cancel runs nothing; "Run the Test" runs one exec and the report says enforced; on the
//     pod with CUDA_DISABLE_CONTROL=true it says the bypass is proven;
//   - "Copy HAMi Report" on trainer-0: the issue bundle opens in the report view with its secrets redacted, and
//     the log says it was copied with how many values redacted.
// Needs root and a C compiler (the simulator's exec chroots into the roots; the test doubles are compiled).
// Run with `npm run test:e2e -- test/e2e/hamiCommands.e2e.test.ts`. Artifacts: test-artifacts/hami-commands-*.png.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { buildHamiTestRoot, hamiTestPod, hamiTestRootsUnavailable } from '../helpers/hamiTestRoot.ts';
import type { HamiTestRoot } from '../helpers/hamiTestRoot.ts';
import { emptyFixtures, loadFixtures, mergeFixtures } from '../simulator/fixtures.ts';
import type { Simulator } from '../simulator/server.ts';
import { openClusterNode, readPreview, runFromContextMenu, waitForClusterItem, withClusterWorkbench } from './harness/clusters.ts';
import { waitForLogLine } from './harness/outputLog.ts';
import { waitFor, waitForNotification } from './harness/workbench.ts';
import type { WorkbenchSession } from './harness/session.ts';

const SCENARIO_TIMEOUT_MS = 6 * 60_000;
const UNAVAILABLE = hamiTestRootsUnavailable();
/** VS Code's modal dialog (showWarningMessage with `modal: true`): the custom dialog of the web workbench. */
const DIALOG = '.monaco-dialog-box';
const TEST_ENFORCEMENT = 'Test HAMi Enforcement…';

const roots: HamiTestRoot[] = [];
after(() => {
  for (const root of roots.splice(0)) root.cleanup();
});

function hamiTestFixtures() {
  const root = buildHamiTestRoot();
  roots.push(root);
  const limit = { CUDA_DEVICE_MEMORY_LIMIT_0: '8192m' };
  const extra = emptyFixtures();
  for (const [name, env] of [
    ['enforced-0', limit],
    ['disabled-0', { ...limit, CUDA_DISABLE_CONTROL: 'true' }],
  ] as const) {
    extra.objects.push(hamiTestPod(name, env) as never);
    extra.containerRoots[`ml/${name}/main`] = { prebuilt: root.root };
  }
  return mergeFixtures(loadFixtures(), extra);
}

function execsOf(sim: Simulator, pod: string): number {
  return sim.state.execs.filter((e) => e.pod === pod).length;
}

/** Opens the modal from the pod's context menu; returns its text. */
async function openTestModal(s: WorkbenchSession, pod: string): Promise<string> {
  await s.step(`"${TEST_ENFORCEMENT}" from the context menu of ${pod}`, () => runFromContextMenu(s.page, pod, TEST_ENFORCEMENT));
  const dialog = s.page.locator(DIALOG);
  return s.step('the modal', async () => {
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    return (await dialog.innerText()).replace(/\s+/g, ' ').trim();
  });
}

async function answerModal(s: WorkbenchSession, button: string): Promise<void> {
  const dialog = s.page.locator(DIALOG);
  await s.step(`press "${button}"`, async () => {
    await dialog.getByRole('button', { name: button, exact: true }).click({ timeout: 10_000 });
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
  });
}

/** Opens the modal on `pod`, runs the test, and waits for the report whose text matches `verdict`; returns the text. */
async function runTestOn(s: WorkbenchSession, pod: string, verdict: RegExp): Promise<string> {
  await openTestModal(s, pod);
  await answerModal(s, 'Run the Test');
  return s.step(`the report on ${pod} matches ${verdict}`, () =>
    waitFor(
      `the test report of ${pod}`,
      () => readPreview(s.page),
      (text) => verdict.test(text),
      { timeoutMs: 60_000, intervalMs: 500 },
    ),
  );
}

test(
  '"Test HAMi Enforcement…": the modal names what runs, Cancel runs nothing, Run proves enforcement or the bypass',
  { timeout: SCENARIO_TIMEOUT_MS, skip: UNAVAILABLE ?? false },
  async () => {
    await withClusterWorkbench('hami-commands-test', { fixtures: hamiTestFixtures() }, async (s, sim) => {
      const { page } = s;
      await openClusterNode(s, 'gpu-node-7');
      await s.step('the HAMi test pods are listed', () => waitForClusterItem(page, 'enforced-0', 'listed', () => true));

      const modal = await openTestModal(s, 'enforced-0');
      assert.match(modal, /Test HAMi enforcement in pod ml\/enforced-0, container "main"\?/);
      assert.match(modal, /This runs code inside the container/);
      assert.match(modal, /allocates 8,256 MiB in one cuMemAlloc_v2 call on CUDA device 0, GPU-6f1d2c3b/);
      assert.match(modal, /whose HAMi quota is 8,192 MiB \(the hami\.io\/vgpu-devices-allocated annotation\)/);
      await s.screenshot('modal');
      await answerModal(s, 'Cancel');
      // Give a stray exec the time it would take to show up before saying there was none.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(execsOf(sim, 'enforced-0'), 0, 'Cancel runs nothing in the container');

      const enforced = await runTestOn(s, 'enforced-0', /HAMi enforcement test: enforced/);
      assert.match(enforced, /cuMemAlloc_v2 of 8,256 MiB returned CUDA_ERROR_OUT_OF_MEMORY \(2\) on a 8,192 MiB quota/);
      assert.equal(execsOf(sim, 'enforced-0'), 1, 'one exec');
      await s.screenshot('enforced');

      const bypassed = await runTestOn(s, 'disabled-0', /HAMi enforcement test: bypassed/);
      assert.match(bypassed, /Bypass proven/);
      assert.match(bypassed, /CUDA_DISABLE_CONTROL/);
    });
  },
);

test(
  '"Copy HAMi Report" on trainer-0: the issue bundle opens with its secrets redacted, and the log says it was copied',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    await withClusterWorkbench('hami-commands-report', {}, async (s, sim) => {
      const { page } = s;
      await openClusterNode(s, 'gpu-node-7');
      await s.step('trainer-0 is listed', () => waitForClusterItem(page, 'trainer-0', 'listed', () => true));
      const execs = sim.state.execs.length;
      await s.step('"Copy HAMi Report" from the context menu', () => runFromContextMenu(page, 'trainer-0', 'Copy HAMi Report'));
      const bundle = await s.step('the bundle opens', () =>
        waitFor(
          'the HAMi issue bundle',
          () => readPreview(page),
          (text) => /HAMi issue bundle: pod ml\/trainer-0/.test(text),
          {
            timeoutMs: 60_000,
            intervalMs: 500,
          },
        ),
      );
      assert.match(bundle, /HAMi version: v2\.8\.1/);
      assert.match(bundle, /hami\.io\/vgpu-devices-allocated/);
      assert.match(bundle, /Redacted \d+ value/);
      await s.step('the notification says it was copied', () => waitForNotification(page, /HAMi report copied \(\d+ values? redacted\)/));
      await waitForLogLine(
        s,
        'the report was copied',
        /HAMi report of ml\/trainer-0 \(context gpumem-demo\) copied; \d+ values redacted\./,
      );
      assert.equal(sim.state.execs.length, execs, 'the report reads the API only: no exec');
      await s.screenshot('report');
    });
  },
);
