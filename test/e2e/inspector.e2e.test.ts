// End-to-end: the inspector webview of the packaged extension in a real VS Code (code-server 4.139.1)
// driven through headless Chromium:
//   - "Inspect Local Machine" opens the panel; its banner says what the same probe and analysis say when
//     run here; the memory chart's canvas is not blank (its pixels are read in the webview frame); live
//     sampling adds points, pauses and resumes on the button, pauses while the panel is hidden, comes back
//     with the panel (state kept), and
//     stops when the panel is closed (the host logs one line per exec; the count stops); "Save JSON report"
//     and "Save probe capture" write files through the save dialog, and `gpumem analyze` reads the capture;
//   - "Analyze Probe Capture…" on a capture full of hostile names (`<img src=x onerror=alert(1)>`,
//     `</script>`): no <img> appears, the text shows literally, no dialog, no CSP violation;
//   - a Strix Halo capture with GTT-heavy pods in the dark, light and high-contrast themes
//     (test-artifacts/inspector-{dark,light,hc}.png, published to media/screenshot-inspector-*.png); sortable
//     headers with aria-sort; in the dark session the panel follows a theme change and a click on a pod
//     opens it; in the light session the panel survives a window reload (the serializer restores it from
//     its state and the exports work again);
//   - the exports as requests: a button is busy (aria-busy, "Waiting for the save dialog…") while the host
//     waits for the dialog, then shows the saved path, or "cancelled" when the dialog is dismissed.
// Run with `npm run test:e2e -- test/e2e/inspector.e2e.test.ts`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { containerDir, GiB, MiB, nodeCapture, STRIX_HALO } from '../unit/helpers/nodeCapture.ts';
import type { NodeSpec } from '../unit/helpers/nodeCapture.ts';
import { kfdFiles } from '../unit/helpers/kfdCapture.ts';
import { withKfd } from '../unit/helpers/kfdCapture.ts';
import { amdgpuGemInfo, amdgpuGttMm } from '../helpers/amdgpuDebugfsFiles.ts';
import { gpumemLog, liveSampleLines } from './harness/outputLog.ts';
import { ARTIFACTS_DIR, REPO_ROOT } from './harness/paths.ts';
import { publishScreenshot } from './harness/readmeMedia.ts';
import { withWorkbench } from './harness/session.ts';
import type { WorkbenchSession } from './harness/session.ts';
import { inspectorPanel, openFile, openTabs, reloadWindow, runCommand, SELECTORS, waitFor, webviewFrame } from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 6 * 60_000;
const INSPECT_LOCAL = 'gpumem: Inspect Local Machine';
const ANALYZE_CAPTURE = 'gpumem: Analyze Probe Capture…';
const HOSTILE_IMG = '<img src=x onerror=alert(1)>';
const HOSTILE_SCRIPT = '</script><script>alert(2)</script>';

/** The little of the DOM the page functions use (the project compiles without lib.dom). */
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

// ---------------------------------------------------------------------------------------------------
// Captures

const TRAINER = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const SERVER = '6f9619ff-8b86-4011-b42d-00c04fc964ff';
const VICTIM = '0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f';

function oomLines(uid: string, comm: string, pid: number): string {
  return [
    `Mar  1 10:00:00 strix-1 kernel: [100.000001] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=${containerDir({ uid }, 3)},task=${comm},pid=${pid},uid=0`,
    `Mar  1 10:00:00 strix-1 kernel: [100.000002] Out of memory: Killed process ${pid} (${comm}) total-vm:41656kB, anon-rss:2120kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:48kB oom_score_adj:1000`,
  ].join('\n');
}

/** A Strix Halo node (128 GiB, Linux 7.1): a trainer 4 GiB over its limit in reality, a server short of headroom, a killed pod. */
function strixHaloNode(): NodeSpec {
  return {
    hostname: 'strix-1',
    kernel: '7.1.0-gpumem',
    memTotal: 128 * GiB,
    memAvailable: 41 * GiB,
    gpuActive: 55 * GiB,
    gpus: [{ ...STRIX_HALO, gttUsed: 54 * GiB }],
    pods: [
      {
        uid: TRAINER,
        current: 6 * GiB,
        max: 32 * GiB,
        processes: [{ pid: 4242, comm: 'python3', fds: [{ fd: 7, client: '11', gtt: 30 * GiB, vram: 256 * MiB }] }],
      },
      {
        uid: SERVER,
        current: 3 * GiB,
        max: 24 * GiB,
        processes: [{ pid: 5151, comm: 'llama-server', fds: [{ fd: 9, client: '12', gtt: 17 * GiB }] }],
      },
      {
        uid: VICTIM,
        current: 2 * GiB,
        max: 16 * GiB,
        events: 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\noom_group_kill 0\n',
        processes: [{ pid: 6161, comm: 'vllm-worker', fds: [{ fd: 4, client: '13', gtt: 6 * GiB }] }],
      },
      {
        uid: '2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7d',
        current: 1 * GiB,
        max: 4 * GiB,
        processes: [{ pid: 7171, comm: 'embedder', fds: [{ fd: 5, client: '14', gtt: 512 * MiB }] }],
      },
      { uid: '3d6fb5d1-5178-42fa-9cbe-ac2efc5e4c8e', current: 512 * MiB, max: 2 * GiB },
    ],
    kernelLog: `${oomLines(VICTIM, 'vllm-worker', 6161)}\n`,
    // The kernel's own share (its node-bar segment) and the driver's debugfs books, agreeing with fdinfo (the column).
    meminfoExtra: 'SUnreclaim:      3145728 kB\nVmallocUsed:      524288 kB\n',
    debugfs: [
      ['/sys/kernel/debug', 'mounted\n'],
      ['/sys/kernel/debug/dri/1/name', 'amdgpu dev=0000:c5:00.0 unique=0000:c5:00.0\n'],
      [
        '/sys/kernel/debug/dri/1/amdgpu_gem_info',
        `${amdgpuGemInfo([
          { pid: 4242, command: 'python3', buffers: [{ bytes: 30 * GiB, placement: 'GTT' }] },
          { pid: 5151, command: 'llama-server', buffers: [{ bytes: 17 * GiB, placement: 'GTT' }] },
          { pid: 6161, command: 'vllm-worker', buffers: [{ bytes: 6 * GiB, placement: 'GTT' }] },
          { pid: 7171, command: 'embedder', buffers: [{ bytes: 512 * MiB, placement: 'GTT' }] },
        ])}gpumem-rc 0\n`,
      ],
      ['/sys/kernel/debug/dri/1/amdgpu_gtt_mm', amdgpuGttMm(96 * GiB, 54 * GiB)],
    ],
  };
}

/**
 * The Strix Halo node's capture with its KFD counters (the column): the trainer evicted 120 s over its 40 000 s
 * (3.00 ms/s), the server 8 s over 4000 s, both below the thrashing threshold, so the banner stays the OOM kill.
 */
function strixHaloCapture(): string {
  const uptime = 50_000;
  const proc = (pid: number, comm: string, pod: string, age: number, evictedMs: number) => ({
    pid,
    comm,
    startTicks: (uptime - age) * 100,
    cgroup: `0::${containerDir({ uid: pod }, 1)}\n`,
    gpus: { 40087: [GiB / 4, evictedMs] as const },
  });
  return withKfd(
    nodeCapture(strixHaloNode()),
    kfdFiles([[40087, 'gfx1151']], [proc(4242, 'python3', TRAINER, 40_000, 120_000), proc(5151, 'llama-server', SERVER, 4000, 8000)]),
    uptime,
  );
}

function hostileNode(): NodeSpec {
  return {
    hostname: HOSTILE_SCRIPT,
    os: HOSTILE_IMG,
    kernel: '6.17.0-1-generic',
    memTotal: 128 * GiB,
    memAvailable: 60 * GiB,
    gpus: [{ ...STRIX_HALO, gttUsed: 20 * GiB }],
    pods: [
      {
        uid: VICTIM,
        current: 2 * GiB,
        max: 4 * GiB,
        events: 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\noom_group_kill 0\n',
        processes: [
          { pid: 4242, comm: HOSTILE_IMG, fds: [{ fd: 3, client: '1', gtt: 3 * GiB }] },
          { pid: 4343, comm: HOSTILE_SCRIPT, fds: [{ fd: 4, client: '2', gtt: 1 * GiB }] },
        ],
      },
    ],
    kernelLog: `${oomLines(VICTIM, HOSTILE_IMG, 4242)}\n`,
  };
}

// ---------------------------------------------------------------------------------------------------
// Helpers

/** The banner of a global OOM kill of a pod under its own limit: the GTT signature (docs/verdicts oom.global-gtt). */
function globalGttOomBanner(comm: string, pid: number, podUid: string): { headline: string; sentence: string } {
  return {
    headline: 'A pod was killed by a global OOM (GTT signature)',
    sentence: `The node ran out of memory and the kernel killed ${comm} (pid ${pid}) in pod ${podUid} while the pod was under its own limit: the signature of GPU (GTT) memory that no cgroup counts.`,
  };
}

/** No kubepods cgroup (v2 or v1), no AMD or NVIDIA DRM card, and no OOM kill in a readable kernel log. */
function bareMachine(): boolean {
  const cgroups = [
    '/sys/fs/cgroup/kubepods.slice',
    '/sys/fs/cgroup/kubepods',
    '/sys/fs/cgroup/memory/kubepods',
    '/sys/fs/cgroup/memory/kubepods.slice',
  ];
  if (cgroups.some((dir) => existsSync(dir))) return false;
  const cards = existsSync('/sys/class/drm') ? readdirSync('/sys/class/drm').filter((name) => /^card\d+$/.test(name)) : [];
  const gpu = cards.some((card) => {
    const vendorFile = `/sys/class/drm/${card}/device/vendor`;
    return existsSync(vendorFile) && ['0x1002', '0x10de'].includes(readFileSync(vendorFile, 'utf8').trim());
  });
  if (gpu) return false;
  try {
    return !/Out of memory|oom-kill:/.test(execFileSync('dmesg', { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return true; // An unreadable kernel log gives no OOM verdict either.
  }
}

async function bannerText(frame: FrameLocator): Promise<{ headline: string; sentence: string }> {
  return {
    headline: (await frame.locator('.banner-headline').innerText()).trim(),
    sentence: (await frame.locator('#banner-sentence').innerText()).trim(),
  };
}

/** Pixels of a canvas in the frame that are not transparent (the page background shows through them). */
async function paintedPixels(frame: FrameLocator, selector: string): Promise<{ width: number; height: number; painted: number }> {
  return frame.locator(selector).evaluate((element) => {
    const canvas = element as unknown as CanvasLike;
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) painted++;
    return { width: canvas.width, height: canvas.height, painted };
  });
}

async function dataPoints(frame: FrameLocator): Promise<number> {
  return Number((await frame.locator('#live-chart').getAttribute('data-points', { timeout: 2000 })) ?? '0');
}

async function liveSamplesLogged(s: WorkbenchSession): Promise<number> {
  return (await liveSampleLines(s)).length;
}

/**
 * Answers code-server's simple file dialog (a quick input holding a path): types `file` and accepts.
 * Used for both the save dialog (Save JSON report / Save probe capture) and the open dialog (Analyze Probe Capture…).
 */
async function answerFileDialog(page: Page, file: string): Promise<void> {
  const widget = page.locator(SELECTORS.quickInput);
  await widget.waitFor({ state: 'visible', timeout: 20_000 });
  const input = page.locator(SELECTORS.quickInputBox);
  // The dialog fills in its starting folder (and, to save, the default name) after it shows: type after that.
  await waitFor(
    "the file dialog's starting path",
    () => input.inputValue(),
    (value) => value.startsWith('/'),
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  await page.waitForTimeout(300);
  await waitFor(
    `the file dialog to hold ${file}`,
    async () => {
      if ((await input.inputValue()) !== file) await input.fill(file);
      await page.waitForTimeout(300);
      return input.inputValue();
    },
    (value) => value === file,
    { timeoutMs: 10_000, intervalMs: 100 },
  );
  // The dialog can still be reading the folder and set its path again after the fill (seen once under load, the
  // High Contrast run): while it stays open, put the file back and press Enter again.
  await waitFor(
    `the file dialog to accept ${file}`,
    async () => {
      if (!(await widget.isVisible())) return true;
      if ((await input.inputValue()) !== file) {
        await input.fill(file);
        await page.waitForTimeout(300);
      }
      await input.press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
      return !(await widget.isVisible());
    },
    (closed) => closed,
    { timeoutMs: 20_000, intervalMs: 200 },
  );
}

async function clickInFrame(frame: FrameLocator, selector: string): Promise<void> {
  await frame.locator(selector).click({ timeout: 10_000 });
}

/** The state of a request button's answer (`#<id>-status`): idle, busy, done, cancelled, error or timeout. */
async function requestState(frame: FrameLocator, button: string): Promise<string> {
  return (await frame.locator(`${button}-status`).getAttribute('data-state', { timeout: 2000 })) ?? '';
}

async function waitForFile(file: string, timeoutMs = 20_000): Promise<string> {
  return waitFor(
    `the file ${file}`,
    () => readFile(file, 'utf8'),
    (text) => text.length > 0,
    { timeoutMs, intervalMs: 300 },
  );
}

async function analyzeInWorkbench(s: WorkbenchSession, file: string): Promise<FrameLocator> {
  await s.step(
    `run "${ANALYZE_CAPTURE}" and open ${path.basename(file)}`,
    async () => {
      await runCommand(s.page, ANALYZE_CAPTURE, { opensInput: true });
      await answerFileDialog(s.page, file);
    },
    60_000,
  );
  return s.step('the inspector panel opens', () => inspectorPanel(s.page));
}

/** Runs a palette command that opens a quick input (a dialog) of its own; the harness's runCommand waits for it to close. */
async function themeScreenshot(s: WorkbenchSession, frame: FrameLocator, theme: 'dark' | 'light' | 'hc'): Promise<void> {
  await frame.locator('#title').scrollIntoViewIfNeeded();
  await frame.locator('#memory-chart-pods canvas').waitFor({ state: 'visible' });
  const pixels = await paintedPixels(frame, '#memory-chart-pods canvas');
  assert.ok(pixels.painted > 2000, `the pod chart is drawn in the ${theme} theme: ${JSON.stringify(pixels)}`);
  const shot = await s.screenshot(`theme-${theme}`);
  const target = path.join(ARTIFACTS_DIR, `inspector-${theme}.png`);
  await copyFile(shot, target);
  await publishScreenshot(target, `inspector-${theme}`);
}

// ---------------------------------------------------------------------------------------------------

test(
  '"Inspect Local Machine" opens the inspector: banner, chart pixels, live sampling (hidden, shown, closed), exports',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    // What the panel must say, from this machine's facts rather than from the analysis: a machine with no
    // Kubernetes pods (no kubepods cgroup), no AMD/NVIDIA GPU and no OOM kill in its kernel log (CI and the dev
    // containers) has nothing to judge, and says so rather than "No problems found" (with the kernel log listed as
    // not read when the probe could not read it). On another machine only the banner's presence is checked.
    const bare = bareMachine();

    await withWorkbench(
      'inspector-local',
      { fixture: 'single', settings: { 'workbench.colorTheme': 'Default Dark Modern', 'gpumem.inspector.sampleSeconds': 1 } },
      async (s) => {
        await s.step(`run "${INSPECT_LOCAL}"`, () => runCommand(s.page, INSPECT_LOCAL));
        let frame = await s.step('the inspector panel opens', () => inspectorPanel(s.page, 120_000), 150_000);
        const banner = await bannerText(frame);
        if (bare) {
          assert.ok(
            ['No GPU and no pods', 'Not everything could be read'].includes(banner.headline),
            `a bare machine: ${JSON.stringify(banner)}`,
          );
          assert.match(banner.sentence, /^No GPU .* and no Kubernetes pod .*: nothing for the GPU memory verdicts to judge\./);
        } else assert.ok(banner.headline !== '' && banner.sentence !== '', `a banner: ${JSON.stringify(banner)}`);
        assert.match(await frame.locator('#title').innerText(), /^gpumem inspection: local/);
        const tab = s.page.locator(SELECTORS.anyTab).filter({ hasText: 'gpumem: local' });
        assert.equal(await tab.count(), 1, 'one panel tab "gpumem: local"');

        const node = await s.step('the node chart canvas is drawn', () =>
          waitFor(
            'painted pixels in the node chart',
            () => paintedPixels(frame, '#memory-chart-node canvas'),
            (p) => p.painted > 1000,
            { timeoutMs: 15_000 },
          ),
        );
        assert.ok(node.width > 100 && node.height > 50, JSON.stringify(node));
        assert.equal(await frame.locator('#memory-chart-node canvas').getAttribute('role'), 'img');
        assert.ok(
          ((await frame.locator('#memory-chart-node canvas').getAttribute('aria-label')) ?? '').startsWith('Memory accounting of node'),
          'the chart has an aria-label summary',
        );
        assert.ok((await frame.locator('table.chart-data').count()) >= 1, 'a visually-hidden data table next to the chart');
        assert.equal(await frame.locator('#csp-violations').getAttribute('data-count'), '0', 'no CSP violation');

        // Live sampling every second (the session setting): points arrive.
        const points = await s.step(
          'live sampling adds points',
          () =>
            waitFor(
              '3 live points',
              () => dataPoints(frame),
              (n) => n >= 3,
              { timeoutMs: 30_000, intervalMs: 500 },
            ),
          45_000,
        );
        assert.ok(points >= 3);
        assert.equal(await frame.locator('#live-debug').getAttribute('data-status'), 'running');
        const livePixels = await paintedPixels(frame, '#live-chart canvas');
        assert.ok(livePixels.painted > 500, `the live chart is drawn: ${JSON.stringify(livePixels)}`);

        // Pause and resume (the button posts setLive).
        await s.step('pause live sampling', async () => {
          await clickInFrame(frame, '#live-toggle');
          await waitFor(
            'the paused state',
            () => frame.locator('#live-debug').getAttribute('data-status'),
            (status) => status === 'paused',
            { timeoutMs: 10_000 },
          );
        });
        await s.page.waitForTimeout(1500);
        const pausedAt = await liveSamplesLogged(s);
        await s.page.waitForTimeout(3000);
        assert.ok((await liveSamplesLogged(s)) - pausedAt <= 0, 'no samples while paused');
        assert.match(await frame.locator('#live-status').innerText(), /^Paused after \d+ samples\.$/);
        await s.step('resume live sampling', async () => {
          await clickInFrame(frame, '#live-toggle');
          await waitFor(
            'samples again',
            () => liveSamplesLogged(s),
            (count) => count > pausedAt,
            { timeoutMs: 10_000 },
          );
        });
        const resumedPoints = await dataPoints(frame);

        // Hidden: another editor in the same group; sampling pauses.
        await s.step(
          'open a file over the panel (the panel is hidden)',
          () => openFile(s.page, 'hami-dind-trainer.yaml', { timeoutMs: 30_000 }),
          45_000,
        );
        await s.page.waitForTimeout(1500);
        const whileHiddenStart = await liveSamplesLogged(s);
        await s.page.waitForTimeout(3500);
        const whileHiddenEnd = await liveSamplesLogged(s);
        assert.ok(whileHiddenEnd - whileHiddenStart <= 1, `no samples while hidden (${whileHiddenStart} → ${whileHiddenEnd})`);

        // Shown again: the webview is re-created, renders from its state, gets the history, and sampling resumes.
        await s.step('back to the panel', () => tab.click());
        frame = await s.step('the panel is back', () => inspectorPanel(s.page));
        assert.deepEqual(await bannerText(frame), banner, 'the same banner after hide/show');
        const shown = await s.step('sampling resumes with the history kept', () =>
          waitFor(
            'more points than before',
            () => dataPoints(frame),
            (n) => n > resumedPoints,
            { timeoutMs: 20_000, intervalMs: 500 },
          ),
        );
        assert.ok(shown > resumedPoints);

        // Exports through the save dialog.
        const jsonFile = s.file('inspector-report.json');
        await s.step('Save JSON report', async () => {
          await clickInFrame(frame, '#action-save-json');
          await answerFileDialog(s.page, jsonFile);
        });
        const report = JSON.parse(await waitForFile(jsonFile)) as { target: string; node: { kernel: string } | null; verdicts: unknown[] };
        assert.equal(report.target, 'local');
        assert.ok(report.node && report.node.kernel.length > 0);
        const captureFile = s.file('inspector-capture.txt');
        await s.step('Save probe capture', async () => {
          await clickInFrame(frame, '#action-save-capture');
          await answerFileDialog(s.page, captureFile);
        });
        const captureText = await waitForFile(captureFile);
        assert.match(captureText, /^@@gpumem-probe v=1 scope=node nonce=[0-9a-f]+ root=@@$/m);
        const again = analyzeCaptureText(captureText, { target: 'local' });
        assert.equal(again.scope, 'node');
        const cli = execFileSync(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli.js'), 'analyze', captureFile, '--format', 'json'], {
          encoding: 'utf8',
        });
        assert.equal((JSON.parse(cli) as { scope: string }).scope, 'node', '`gpumem analyze` reads the saved capture');
        await s.step('Copy report as Markdown', async () => {
          await clickInFrame(frame, '#action-copy-markdown');
          await waitFor(
            'the answer next to the button',
            () => requestState(frame, '#action-copy-markdown'),
            (state) => state !== 'idle' && state !== 'busy',
            { timeoutMs: 10_000 },
          );
        });
        assert.equal(
          (await frame.locator('#action-copy-markdown-status').innerText()).trim(),
          'The report is on the clipboard as Markdown.',
        );
        await s.screenshot('exports');

        // Closed: the panel disposes, the transport closes, no more execs.
        const beforeClose = await liveSamplesLogged(s);
        assert.ok(beforeClose >= 4, `live samples were logged: ${beforeClose}`);
        await s.step('close the panel', async () => {
          await tab.click();
          await runCommand(s.page, 'View: Close Editor');
          await tab.waitFor({ state: 'detached', timeout: 10_000 });
        });
        await s.page.waitForTimeout(1500);
        const afterClose = await liveSamplesLogged(s);
        await s.page.waitForTimeout(4000);
        assert.equal(await liveSamplesLogged(s), afterClose, 'no exec after the panel closed');
        assert.ok(afterClose - beforeClose <= 2, `at most an in-flight sample after the close (${beforeClose} → ${afterClose})`);
        assert.match(await gpumemLog(s), /inspector: panel of local closed after \d+ live samples; closing the connection/);
      },
    );
  },
);

test(
  '"Analyze Probe Capture…" on hostile names: the text stays text (no <img>, no script, no dialog)',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    const capture = nodeCapture(hostileNode());
    // From the capture's facts: a global_oom kill of pid 4242 (the <img> comm) in the VICTIM pod, whose
    // memory.current (2 GiB) is under its memory.max (4 GiB) while its processes hold 4 GiB of GTT.
    const expected = globalGttOomBanner(HOSTILE_IMG, 4242, VICTIM);
    await withWorkbench(
      'inspector-hostile',
      { fixture: 'single', settings: { 'workbench.colorTheme': 'Default Dark Modern' } },
      async (s) => {
        const dialogs: string[] = [];
        s.page.on('dialog', (dialog) => {
          dialogs.push(dialog.message());
          void dialog.dismiss();
        });
        await writeFile(s.file('hostile-capture.txt'), capture);
        const frame = await analyzeInWorkbench(s, s.file('hostile-capture.txt'));
        assert.deepEqual(await bannerText(frame), { headline: expected.headline, sentence: expected.sentence });
        assert.ok(expected.sentence.includes(HOSTILE_IMG), `the banner names the hostile victim: ${expected.sentence}`);

        // The names are on the page, literally, as text.
        const processes = await frame.locator('#pods-table .sub').allInnerTexts();
        assert.ok(processes.includes(`${HOSTILE_IMG} (4242)`), `the <img> process name shows as text: ${JSON.stringify(processes)}`);
        assert.ok(processes.includes(`${HOSTILE_SCRIPT} (4343)`), `the </script> process name shows as text: ${JSON.stringify(processes)}`);
        assert.ok((await frame.locator('#title').innerText()).includes(HOSTILE_SCRIPT));
        assert.equal(await frame.locator('#pods-table [data-column="debugfsGtt"]').count(), 0, 'no debugfs in this capture: no column');
        assert.ok((await frame.locator('#oom-timeline .victim').first().innerText()).includes(HOSTILE_IMG));
        const bodyText = await frame.locator('body').evaluate((body) => (body as unknown as { textContent: string }).textContent);
        assert.ok(bodyText.includes(HOSTILE_IMG) && bodyText.includes(HOSTILE_SCRIPT));

        // …and nothing of them became markup.
        const markup = await frame.locator('body').evaluate(() => {
          type El = { getAttribute(n: string): string | null; textContent: string | null };
          const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<El> } }).document;
          const scripts = Array.from(doc.querySelectorAll('script'));
          return {
            imgs: doc.querySelectorAll('img').length,
            onerror: doc.querySelectorAll('[onerror]').length,
            // Ours (the bundle, with the nonce) and the one VS Code's webview host injects (acquireVsCodeApi).
            sources: scripts.map((script) => script.getAttribute('src') ?? ''),
            alertInScripts: scripts.some((script) => (script.textContent ?? '').includes('alert(')),
          };
        });
        assert.equal(markup.imgs, 0, 'no <img> element');
        assert.equal(markup.onerror, 0, 'no onerror attribute');
        assert.equal(markup.alertInScripts, false, 'no script element holds the hostile text');
        assert.equal(markup.sources.filter((src) => src !== '').length, 1, JSON.stringify(markup.sources));
        assert.ok(
          markup.sources.some((src) => /dist\/webview\/inspector\.js$/.test(src)),
          JSON.stringify(markup.sources),
        );
        await s.page.waitForTimeout(1000);
        assert.deepEqual(dialogs, [], 'no alert() ran');
        assert.equal(await frame.locator('#csp-violations').getAttribute('data-count'), '0', 'no CSP violation');
        // A capture has no connection: live sampling says so.
        await frame.locator('#live-status').waitFor({ timeout: 10_000 });
        assert.match(await frame.locator('#live-status').innerText(), /No open connection/);
        await s.screenshot('panel');
      },
    );
  },
);

for (const theme of [
  { key: 'dark', name: 'Default Dark Modern' },
  { key: 'light', name: 'Default Light Modern' },
  { key: 'hc', name: 'Default High Contrast' },
] as const) {
  test(
    `the inspector in the ${theme.name} theme (test-artifacts/inspector-${theme.key}.png)${theme.key === 'light' ? ', and after a window reload' : ''}`,
    { timeout: SCENARIO_TIMEOUT_MS },
    async () => {
      const capture = strixHaloCapture();
      // From the capture's facts: a global_oom kill of vllm-worker (pid 6161) in the VICTIM pod, 2 GiB of
      // memory.current under a 16 GiB memory.max, 6 GiB of GTT in its process's fdinfo.
      const expected = globalGttOomBanner('vllm-worker', 6161, VICTIM);
      await withWorkbench(
        `inspector-theme-${theme.key}`,
        { fixture: 'single', settings: { 'workbench.colorTheme': theme.name } },
        async (s) => {
          await writeFile(s.file('strix-1-capture.txt'), capture);
          let frame = await analyzeInWorkbench(s, s.file('strix-1-capture.txt'));
          assert.deepEqual(await bannerText(frame), { headline: expected.headline, sentence: expected.sentence });
          const themeClass = await frame.locator('body').getAttribute('class');
          assert.match(
            themeClass ?? '',
            theme.key === 'dark' ? /vscode-dark/ : theme.key === 'light' ? /vscode-light/ : /vscode-high-contrast/,
          );
          // Pods table: sortable, with aria-sort; the debugfs GTT column because this capture read debugfs.
          assert.equal(await frame.locator('#pods-table th[aria-sort="descending"] button').innerText(), 'True footprint ▼');
          assert.equal(await frame.locator('#pods-table button.sort[data-column="debugfsGtt"]').innerText(), 'debugfs GTT');
          // The KFD counters' column: the trainer's total and its lifetime rate.
          assert.equal(await frame.locator('#pods-table button.sort[data-column="evicted"]').innerText(), 'Evicted (KFD)');
          const trainerCells = frame.locator(`#pods-table tbody tr[data-pod-uid="${TRAINER}"] td`);
          assert.ok((await trainerCells.allInnerTexts()).includes('120.0 s, 3.00 ms/s'), 'the trainer evicted 120 s over 40 000 s');
          await frame.locator('#pods-table button.sort[data-column="headroom"]').click();
          assert.equal(await frame.locator('#pods-table th[aria-sort="ascending"] button').innerText(), 'Headroom ▲');
          const firstPod = await frame.locator('#pods-table tbody tr').first().getAttribute('data-pod-uid');
          assert.equal(firstPod, TRAINER, 'the least headroom first (the trainer, 4 GiB over)');
          await frame.locator('#pods-table button.sort[data-column="footprint"]').click();
          await themeScreenshot(s, frame, theme.key);
          if (theme.key === 'dark') {
            // The pod chart by keyboard: Home and End highlight the first and last bar, each announced (aria-live).
            await s.step('the pod chart by keyboard: Home, ArrowRight, End announce their bars', async () => {
              const labels = await frame.locator('#memory-chart-pods + table.chart-data tbody th').allInnerTexts();
              assert.ok(labels.length >= 2, `the pod chart has bars: ${labels.join(', ')}`);
              const announced = () => frame.locator('#chart-announcer').innerText();
              await frame.locator('#memory-chart-pods canvas').focus();
              for (const [key, label] of [
                ['Home', labels[0]],
                ['ArrowRight', labels[1]],
                ['End', labels.at(-1)],
              ] as const) {
                await s.page.keyboard.press(key);
                await waitFor(`${key} announces ${label}`, announced, (text) => text.startsWith(`${label}.`), { timeoutMs: 5_000 });
              }
            });
            // A theme change while the panel is open: the charts read the new colours and are drawn again.
            assert.equal(await frame.locator('html').getAttribute('data-theme'), 'dark');
            await s.step('Preferences: Color Theme → Default Light Modern', async () => {
              await runCommand(s.page, 'Preferences: Color Theme', { opensInput: true });
              await s.page.locator(SELECTORS.quickInput).waitFor({ state: 'visible', timeout: 10_000 });
              // The picker labels the theme "Light Modern" (its settings id is "Default Light Modern").
              await s.page.locator(SELECTORS.quickInputBox).fill('Light Modern');
              const row = s.page
                .locator(SELECTORS.quickInputRow)
                .filter({ has: s.page.locator('.label-name').getByText(/^(Default )?Light Modern$/) })
                .first();
              await row.click({ timeout: 10_000 });
              await s.page.locator(SELECTORS.quickInput).waitFor({ state: 'hidden', timeout: 10_000 });
            });
            await s.step(
              'the panel follows the theme change',
              () =>
                waitFor(
                  'data-theme="light" in the panel',
                  () => frame.locator('html').getAttribute('data-theme'),
                  (kind) => kind === 'light',
                  { timeoutMs: 30_000 },
                ),
              45_000,
            );
            const redrawn = await paintedPixels(frame, '#memory-chart-pods canvas');
            assert.ok(redrawn.painted > 2000, `the pod chart is drawn again: ${JSON.stringify(redrawn)}`);
            await s.screenshot('theme-switched');
            // A click on a pod opens it: without a Kubernetes view that reveals it, its own Markdown report.
            await s.step('click the first pod', () => frame.locator('#pods-table button.pod-link').first().click());
            await s.step('the pod report opens', () =>
              waitFor(
                'a tab with the pod report',
                () => openTabs(s.page),
                (tabs) => tabs.some((label) => /gpumem-pod-/.test(label)),
                { timeoutMs: 20_000 },
              ),
            );
            const report = await s.step('the pod report shows the pod', () =>
              waitFor(
                'a Markdown preview with the pod',
                async () => {
                  const count = await s.page.locator(SELECTORS.webviewOuter).count();
                  for (let i = 0; i < count; i++) {
                    const text = await webviewFrame(s.page, i)
                      .locator('body')
                      .innerText({ timeout: 2000 })
                      .catch(() => '');
                    if (text.includes(`Pod ${TRAINER}`)) return text;
                  }
                  return '';
                },
                (text) => /true footprint\s+38,654,705,664 bytes \(36 GiB\)/.test(text),
                { timeoutMs: 30_000, intervalMs: 500 },
              ),
            );
            assert.match(report, /headroom\s+-4,294,967,296 bytes \(-4 GiB\)/);
            await s.screenshot('pod-report');
          }
          if (theme.key !== 'light') return;

          // Window reload: the serializer restores the panel from the webview state, without the file.
          await writeFile(s.file('strix-1-capture.txt'), 'gone');
          await s.step('Developer: Reload Window, and the workbench back', () => reloadWindow(s.page), 120_000);
          frame = await s.step('the inspector panel is restored', () => inspectorPanel(s.page, 60_000), 90_000);
          assert.deepEqual(
            await bannerText(frame),
            { headline: expected.headline, sentence: expected.sentence },
            'the same banner after the reload',
          );
          const jsonFile = s.file('after-reload.json');
          await s.step('Save JSON report after the reload', async () => {
            await clickInFrame(frame, '#action-save-json');
            await answerFileDialog(s.page, jsonFile);
          });
          const report = JSON.parse(await waitForFile(jsonFile)) as { target: string; verdicts: { id: string }[] };
          assert.equal(report.target, 'capture strix-1-capture.txt');
          assert.ok(report.verdicts.some((verdict) => verdict.id === 'memory.pod-over-limit-in-reality'));
          await s.screenshot('after-reload');
        },
      );
    },
  );
}

test(
  'the exports answer next to their buttons: busy while the save dialog is open, then the saved path, or cancelled',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    const capture = strixHaloCapture();
    await withWorkbench(
      'inspector-requests',
      { fixture: 'single', settings: { 'workbench.colorTheme': 'Default Dark Modern' } },
      async (s) => {
        await writeFile(s.file('strix-1-capture.txt'), capture);
        const frame = await analyzeInWorkbench(s, s.file('strix-1-capture.txt'));
        assert.equal(await requestState(frame, '#action-save-json'), 'idle');

        // Save JSON report: busy (disabled, aria-busy, a status) while the host waits for the dialog.
        const jsonFile = s.file('requests-report.json');
        await s.step('Save JSON report: busy until the dialog is answered', async () => {
          await clickInFrame(frame, '#action-save-json');
          await s.page.locator(SELECTORS.quickInput).waitFor({ state: 'visible', timeout: 20_000 });
          assert.equal(await requestState(frame, '#action-save-json'), 'busy');
          assert.equal(await frame.locator('#action-save-json').getAttribute('aria-busy'), 'true');
          assert.equal((await frame.locator('#action-save-json-status').innerText()).trim(), 'Waiting for the save dialog…');
          await answerFileDialog(s.page, jsonFile);
          await waitFor(
            'the saved path next to the button',
            () => requestState(frame, '#action-save-json'),
            (state) => state === 'done',
            { timeoutMs: 20_000 },
          );
        });
        assert.equal((await frame.locator('#action-save-json-status').innerText()).trim(), `Saved ${jsonFile}.`);
        assert.equal(await frame.locator('#action-save-json').getAttribute('aria-busy'), null, 'not busy any more');
        assert.equal((JSON.parse(await waitForFile(jsonFile)) as { target: string }).target, 'capture strix-1-capture.txt');

        // Save probe capture, dialog cancelled: the answer says so, and no file is written.
        await s.step('Save probe capture, then cancel the dialog', async () => {
          await clickInFrame(frame, '#action-save-capture');
          const widget = s.page.locator(SELECTORS.quickInput);
          await widget.waitFor({ state: 'visible', timeout: 20_000 });
          assert.equal(await requestState(frame, '#action-save-capture'), 'busy');
          await s.page.keyboard.press('Escape');
          await widget.waitFor({ state: 'hidden', timeout: 10_000 });
          await waitFor(
            'the cancelled answer',
            () => requestState(frame, '#action-save-capture'),
            (state) => state === 'cancelled',
            { timeoutMs: 20_000 },
          );
        });
        assert.equal((await frame.locator('#action-save-capture-status').innerText()).trim(), 'Not saved: the dialog was cancelled.');
        assert.equal(
          (await frame.locator('#action-save-json-status').innerText()).trim(),
          `Saved ${jsonFile}.`,
          'each button keeps its own answer',
        );
        assert.equal(await frame.locator('#csp-violations').getAttribute('data-count'), '0', 'no CSP violation');
        await s.screenshot('request-answers');
      },
    );
  },
);
