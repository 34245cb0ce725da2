// End-to-end: gpumem: Right-Size Workloads… in the packaged extension in a real VS Code (code-server) driven through
// headless Chromium, against the API simulator's demo cluster (test/simulator/fixtures/: llama's StatefulSet on the
// Strix Halo APU, killed by the node's global OOM with the GPU signature; the embed-nightly CronJob's Job, an hour
// old, whose pod hit its memory limit) and a real Prometheus (Debian's package) named by gpumem.fleet.prometheusUrl,
// holding five hours of history made here and turned into TSDB blocks by `promtool tsdb create-blocks-from
// openmetrics` (cAdvisor's working set, the agent's GPU memory in RAM per pod and per container, its OOM-kill
// counters):
//   - the command (its one context taken, the context's namespace picked) opens the fleet panel's Recommendations;
//   - llama's row: request = limit = the peak true footprint (cgroup + GPU in RAM at the same sample) + the 30 %
//     headroom, and the gpumem.io/gpu-memory declaration of the GPU peak, computed here from the generated samples;
//     embed's row has no number and says why (an hour of samples);
//   - a click on a column header, and Enter on another, sorts (aria-sort);
//   - Copy patch puts llama's strategic-merge patch on the clipboard (read back from the browser);
//   - Open live manifest opens the live StatefulSet read-only;
//   - the README's picture media/screenshot-rightsizing.png is taken from this run.
// Needs root (the simulator's roots). Run with `npm run test:e2e -- test/e2e/rightsizing.e2e.test.ts`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { parse } from 'yaml';
import type { PrometheusProcess } from '../helpers/prometheusProcess.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';
import { freePort } from '../helpers/sshd.ts';
import { showClusters, withClusterWorkbench } from './harness/clusters.ts';
import { publishScreenshot } from './harness/readmeMedia.ts';
import {
  findWebviewFrame,
  openTabs,
  readVisibleEditorLines,
  runCommand,
  waitFor,
  waitForNotification,
  waitForQuickPick,
} from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 6 * 60_000;
const GiB = 1024 ** 3;
const STEP = 60;
const HEADROOM_PERCENT = 30;
/** The demo's llama-0 (test/simulator/fixtures/10-apu.yaml) and its node. */
const LLAMA = {
  namespace: 'default',
  pod: 'llama-0',
  container: 'llama',
  node: 'strix-node-1',
  uid: 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96',
};
const EMBED = {
  namespace: 'default',
  pod: 'embed-nightly-29420160-q7wzt',
  container: 'embed',
  node: 'strix-node-1',
  uid: '4e6a8c0e-2b4d-4f6a-9c1e-3b5d7f9a1c3e',
};

interface History {
  /** The largest cgroup + GPU-in-RAM of llama-0 at one sample time, and the GPU peak. */
  readonly llamaFootprintPeak: number;
  readonly llamaGpuPeak: number;
}

/**
 * Five hours of llama-0 (a working set around 6 GiB, GPU memory in RAM around 20 GiB, the two peaks at different
 * times, one global kill with the GPU signature) and an hour of the embed pod (a memcg kill), as OpenMetrics.
 */
function writeHistory(file: string, nowSeconds: number): History {
  const end = Math.floor(nowSeconds / STEP) * STEP - STEP;
  const lines: string[] = [];
  const ws: number[] = [];
  const gpu: number[] = [];
  const times: number[] = [];
  for (let t = end - 5 * 3600 + STEP, i = 0; t <= end; t += STEP, i++) {
    times.push(t);
    ws.push(6 * GiB + (i % 7) * 64 * 1024 ** 2 + (i === 100 ? GiB : 0));
    gpu.push(20 * GiB + (i % 5) * 128 * 1024 ** 2 + (i === 200 ? 4 * GiB : 0));
  }
  const killAt = times[210] ?? end;
  const label = (labels: Record<string, string>): string =>
    Object.entries(labels)
      .map(([key, value]) => `${key}="${value}"`)
      .join(',');
  const llamaContainer = label({ namespace: LLAMA.namespace, pod: LLAMA.pod, container: LLAMA.container });
  const llamaAgent = label({ node: LLAMA.node, namespace: LLAMA.namespace, pod: LLAMA.pod, uid: LLAMA.uid });
  const embedContainer = label({ namespace: EMBED.namespace, pod: EMBED.pod, container: EMBED.container });
  const embedAgent = label({ node: EMBED.node, namespace: EMBED.namespace, pod: EMBED.pod, uid: EMBED.uid });
  const embedTimes = times.slice(-60);
  lines.push('# TYPE container_memory_working_set_bytes gauge');
  times.forEach((t, i) => lines.push(`container_memory_working_set_bytes{${llamaContainer}} ${ws[i]} ${t}`));
  embedTimes.forEach((t, i) => lines.push(`container_memory_working_set_bytes{${embedContainer}} ${7 * GiB + i * 1024 ** 2} ${t}`));
  // The agent's GPU memory in RAM: the pod's, and the container's own (the one container holds all of it).
  lines.push('# TYPE gpumem_pod_unaccounted_bytes gauge');
  times.forEach((t, i) => lines.push(`gpumem_pod_unaccounted_bytes{${llamaAgent}} ${gpu[i]} ${t}`));
  lines.push('# TYPE gpumem_container_unaccounted_bytes gauge');
  times.forEach((t, i) => lines.push(`gpumem_container_unaccounted_bytes{${llamaAgent},container="${LLAMA.container}"} ${gpu[i]} ${t}`));
  lines.push('# TYPE gpumem_oom_kills counter');
  times.forEach((t) => lines.push(`gpumem_oom_kills_total{${llamaAgent},scope="global",gpu_signature="true"} ${t >= killAt ? 1 : 0} ${t}`));
  embedTimes.forEach((t, i) =>
    lines.push(`gpumem_oom_kills_total{${embedAgent},scope="memcg",gpu_signature="false"} ${i >= 30 ? 1 : 0} ${t}`),
  );
  lines.push('# EOF', '');
  writeFileSync(file, lines.join('\n'));
  return {
    llamaFootprintPeak: Math.max(...ws.map((value, i) => value + (gpu[i] ?? 0))),
    llamaGpuPeak: Math.max(...gpu),
  };
}

/** Whole Gi at or above `bytes` (gpumem's quantities from 4 GiB up). */
const wholeGi = (bytes: number): string => `${Math.ceil(bytes / GiB - 1e-9)}Gi`;

interface RowSeen {
  readonly workload: string;
  readonly container: string;
  readonly kind: string;
  readonly recommended: string;
  readonly reason: string;
  readonly kills: string;
  readonly data: string;
}

async function readRows(frame: FrameLocator): Promise<RowSeen[]> {
  return frame.locator('#recommendations-table tbody tr[data-workload]').evaluateAll((rows) =>
    rows.map((row) => ({
      workload: row.getAttribute('data-workload') ?? '',
      container: row.getAttribute('data-container') ?? '',
      kind: row.getAttribute('data-kind') ?? '',
      recommended: (row.querySelector('td.recommended')?.textContent ?? '').trim(),
      reason: (row.nextElementSibling?.querySelector('td.reason')?.textContent ?? '').replace(/^.*?Why: /, '').trim(),
      kills: (row.querySelector('td[data-kills]')?.textContent ?? '').trim(),
      data: (row.querySelector('td.data')?.textContent ?? '').trim(),
    })),
  );
}

const SKIP = prometheusUnavailable() ?? false;

test(
  'Right-Size Workloads on the demo cluster: rows, sorting, Copy patch, Open live manifest',
  { timeout: SCENARIO_TIMEOUT_MS, skip: SKIP },
  async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'gpumem-e2e-rightsizing-'));
    let prometheus: PrometheusProcess | undefined;
    try {
      // The port is chosen now (the setting names it); Prometheus starts once the workbench is up, so that the history
      // ends within a minute or two of the queries (an instant selector looks back 5 minutes).
      const port = await freePort();
      const settings = { 'gpumem.fleet.prometheusUrl': `http://127.0.0.1:${port}`, 'gpumem.lint.headroomPercent': HEADROOM_PERCENT };
      await withClusterWorkbench('rightsizing', { settings }, async (s) => {
        const { page } = s;
        const history = writeHistory(path.join(work, 'history.om'), Date.now() / 1000);
        const blocks = spawnSync(
          'promtool',
          ['tsdb', 'create-blocks-from', 'openmetrics', path.join(work, 'history.om'), path.join(work, 'tsdb')],
          {
            encoding: 'utf8',
          },
        );
        assert.equal(blocks.status, 0, blocks.stderr);
        prometheus = await s.step('start Prometheus on the history', () =>
          startPrometheus({ dir: work, tsdb: path.join(work, 'tsdb'), port }),
        );
        const expected = {
          memory: wholeGi((history.llamaFootprintPeak * (100 + HEADROOM_PERCENT)) / 100),
          gpuMemory: wholeGi(history.llamaGpuPeak),
        };
        // The cgroup and GPU peaks are at different samples: the true footprint is less than the sum of the two maxima.
        assert.ok(history.llamaFootprintPeak < history.llamaGpuPeak + 7.375 * GiB);
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
        await showClusters(s);
        await s.step('run gpumem: Right-Size Workloads…', () => runCommand(page, 'gpumem: Right-Size Workloads…', { opensInput: true }));
        const items = await s.step('the namespace pick', () => waitForQuickPick(page, /Namespaces whose workloads/, { timeoutMs: 60_000 }));
        assert.ok(
          items.some((item) => /All namespaces/.test(item.label)),
          JSON.stringify(items),
        );
        assert.ok(
          items.some((item) => item.label === 'default' && /context's namespace/.test(item.description)),
          JSON.stringify(items),
        );
        // The context's namespace is picked already: accept it.
        await page.keyboard.press('Enter');
        const frame = await s.step('the Recommendations section', () =>
          findWebviewFrame(page, '#recommendations-table tbody tr', { timeoutMs: 120_000 }),
        );
        const rows = await readRows(frame);
        const llama = rows.find((row) => row.workload === 'StatefulSet/default/llama');
        const embed = rows.find((row) => row.workload === 'CronJob/default/embed-nightly');
        assert.ok(llama && embed, `llama's and embed-nightly's rows: ${JSON.stringify(rows)}`);
        assert.equal(llama.container, 'llama');
        assert.equal(llama.kind, 'sized');
        assert.ok(llama.recommended.startsWith(expected.memory), `${llama.recommended} starts with ${expected.memory}`);
        assert.match(llama.recommended, new RegExp(`gpumem\\.io/gpu-memory: ${expected.gpuMemory}`));
        assert.match(llama.reason, /global OOM kill\(s\) with the GPU signature/);
        assert.match(llama.kills, /1 global with the GPU signature/);
        assert.match(llama.data, /^300 samples over/);
        assert.equal(embed.kind, 'too-little-data');
        assert.match(embed.recommended, /no number/);
        assert.match(embed.reason, /only 60 samples/);
        assert.deepEqual(
          rows.filter((row) => !row.workload.includes('/default/')),
          [],
          'only the picked namespace',
        );
        const source = await frame.locator('#recommendations-source').innerText();
        assert.match(
          source,
          /gpumem-demo · namespace default · from Prometheus at 127\.0\.0\.1:\d+ \(\d+ queries\) · window 14d · read .* UTC \(just now\) · headroom 30 %/,
        );
        assert.equal(await frame.locator('#csp-violations').getAttribute('data-count'), '0', 'no CSP violation');

        await s.step('sort by the recommendation (click): the sized row first, aria-sort descending', async () => {
          await frame.locator('button.sort[data-sort="recommended"]').click();
          await waitFor(
            'llama first',
            async () => (await readRows(frame))[0]?.workload,
            (first) => first === 'StatefulSet/default/llama',
            { timeoutMs: 5_000 },
          );
          assert.equal(
            await frame.locator('th', { has: frame.locator('button[data-sort="recommended"]') }).getAttribute('aria-sort'),
            'descending',
          );
        });
        await s.step('sort by workload with the keyboard (Enter on its header)', async () => {
          await frame.locator('button.sort[data-sort="workload"]').focus();
          await page.keyboard.press('Enter');
          await waitFor(
            'sorted by workload',
            async () => (await readRows(frame)).map((row) => row.workload),
            (order) => order.length === rows.length && order.join() === [...order].sort((a, b) => a.localeCompare(b, 'en')).join(),
            { timeoutMs: 5_000 },
          );
          assert.equal(
            await frame.locator('th', { has: frame.locator('button[data-sort="workload"]') }).getAttribute('aria-sort'),
            'ascending',
          );
        });
        assert.equal(
          await frame.locator('tr[data-workload="CronJob/default/embed-nightly"] + tr button[data-action="copy-patch"]').isDisabled(),
          true,
        );

        await s.step('Copy patch on llama', async () => {
          await frame.locator('tr[data-workload="StatefulSet/default/llama"] + tr button[data-action="copy-patch"]').click();
          await waitFor(
            'the status line',
            () => frame.locator('#recommendations-status').getAttribute('data-state'),
            (state) => state === 'copied' || state === 'failed',
            { timeoutMs: 15_000 },
          );
        });
        assert.equal(
          await frame.locator('#recommendations-status').innerText(),
          'The patch of StatefulSet default/llama is on the clipboard.',
        );
        await waitForNotification(page, /strategic-merge patch of StatefulSet default\/llama is on the clipboard/);
        const clipboard = String(await page.evaluate('navigator.clipboard.readText()'));
        assert.deepEqual(parse(clipboard), {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: { name: 'llama', namespace: 'default' },
          spec: {
            template: {
              metadata: { annotations: { 'gpumem.io/gpu-memory': expected.gpuMemory } },
              spec: {
                containers: [{ name: 'llama', resources: { requests: { memory: expected.memory }, limits: { memory: expected.memory } } }],
              },
            },
          },
        });
        // The picture from the table's left edge (the click may have scrolled it to the button).
        await frame.locator('.table-scroll').evaluate((element) => {
          (element as unknown as { scrollLeft: number }).scrollLeft = 0;
        });
        await frame.locator('#recommendations-heading').hover();
        await publishScreenshot(await s.screenshot('recommendations'), 'rightsizing');

        await s.step('Open live manifest of llama', async () => {
          await frame.locator('tr[data-workload="StatefulSet/default/llama"] + tr button[data-action="open"]').click();
          await waitFor(
            'the live StatefulSet in an editor',
            () => openTabs(page),
            (tabs) => tabs.some((tab) => tab.startsWith('llama.statefulset')),
            {
              timeoutMs: 30_000,
            },
          );
        });
        const text = (await readVisibleEditorLines(page)).join('\n');
        assert.match(text, /# Live manifest of StatefulSet default\/llama \(context gpumem-demo\), read-only/);
        assert.match(text, /kind: StatefulSet/);
      });
    } finally {
      await prometheus?.stop();
      rmSync(work, { recursive: true, force: true });
    }
  },
);
