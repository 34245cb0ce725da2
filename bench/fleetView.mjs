// The Fleet view's benchmarks (issue #13, "Performance"), on a 5,000-node summary (bench/fleet.mjs reads it from a
// real Prometheus; alone, this file builds one of the same shape):
//   1. first paint ≤ 500 ms after the data arrives: the panel's page is open and has posted `ready` (as it is while
//      the fleet is read); from the summary in hand, the host's part (buildFleetViewModel and the message's JSON, as
//      webview.postMessage serialises it) plus the page's (the message parsed, the DOM built, the virtualised table
//      and the chart laid out) up to the frame after the first paint (the `fleet:painted` mark, two animation
//      frames after the render). Headless Chromium on the production bundle, under the panel's own CSP
//      (webviewPage.mjs); 7 runs, a fresh page each, median.
//   2. the extension host's memory for the 5,000-node summary ≤ 50 MiB, and released when the view closes: what the
//      FleetPanel holds while open (the summary and its view model, src/vscode/fleet/panel.ts) measured as heap
//      after GC with it held, against before; then dropped (as dispose() drops it) and measured again.
// Ratios and targets are printed; nothing here is a timed test. `node --expose-gc bench/fleetView.mjs` runs it alone.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { buildFleetViewModel } from '../src/core/fleet/fleetViewModel.ts';
import { summarizeFleet } from '../src/core/fleet/summary.ts';
import { fleetHtml } from '../src/vscode/fleet/html.ts';
import { median, MiB, mib, ms, list } from './stats.mjs';
import { productionBundle, startPageServer } from './webviewPage.mjs';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const RUNS = 7;
const PAINT_TARGET_MS = 500;
const MEMORY_TARGET = 50 * MiB;
/** Released: back within this of the heap before the summary was held. */
const RELEASED_WITHIN = 2 * MiB;
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : undefined;

/** The stand-in for the extension host: records `ready`; the bench posts the state itself, timed. */
function hostStub() {
  window.__ready = false;
  window.acquireVsCodeApi = () => ({
    postMessage(message) {
      if (message && message.type === 'ready') window.__ready = true;
    },
    getState: () => undefined,
    setState: () => {},
  });
}

async function benchPaint(browser, url, summary) {
  const runs = [];
  let checks;
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.addInitScript(hostStub);
    await page.goto(url);
    await page.waitForFunction(() => window.__ready === true, undefined, { timeout: 30_000 });
    // The data arrives: the host's part.
    const hostStart = performance.now();
    const viewModel = buildFleetViewModel(summary, { context: 'bench-5000' });
    const wire = JSON.stringify({ type: 'state', viewModel });
    const hostMs = performance.now() - hostStart;
    // The page's part: from the message's text to the frame after the first paint.
    const pageMs = await page.evaluate(
      (text) =>
        new Promise((resolve) => {
          const started = performance.now();
          new PerformanceObserver((list, observer) => {
            const mark = list.getEntries().find((entry) => entry.name === 'fleet:painted');
            if (!mark) return;
            observer.disconnect();
            const state = performance.getEntriesByName('fleet:state')[0];
            window.__split = {
              toState: (state?.startTime ?? Number.NaN) - started,
              toPainted: mark.startTime - (state?.startTime ?? Number.NaN),
            };
            resolve(mark.startTime - started);
          }).observe({ type: 'mark', buffered: false });
          window.postMessage(JSON.parse(text), '*');
        }),
      wire,
    );
    const split = await page.evaluate(() => window.__split);
    runs.push({ hostMs, pageMs, totalMs: hostMs + pageMs, bytes: wire.length, toStateMs: split.toState, renderMs: split.toPainted });
    if (run === RUNS - 1) {
      checks = await page.evaluate(() => ({
        rows: document.querySelectorAll('#node-scroll .node-row').length,
        hamiRows: document.querySelectorAll('#hami-table tbody tr').length,
        hamiMore: document.getElementById('hami-more')?.textContent ?? '',
        nodeCount: document.getElementById('node-count')?.textContent ?? '',
        verdict: document.getElementById('verdict-text')?.textContent ?? '',
        cspViolations: Number(document.getElementById('csp-violations')?.getAttribute('data-count') ?? -1),
      }));
      checks.pageErrors = errors;
    }
    await page.close();
  }
  const totals = runs.map((r) => r.totalMs);
  const medianMs = median(totals);
  return {
    runs,
    medianMs,
    medianHostMs: median(runs.map((r) => r.hostMs)),
    medianPageMs: median(runs.map((r) => r.pageMs)),
    messageBytes: runs[0].bytes,
    checks,
    target: PAINT_TARGET_MS,
    pass: medianMs <= PAINT_TARGET_MS && checks.cspViolations === 0 && checks.pageErrors.length === 0 && checks.rows > 0,
  };
}

const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** What an open FleetPanel holds for the summary, and what is left once it lets go (dispose). */
function benchMemory(makeSummary) {
  if (!gc) return { skipped: 'run with node --expose-gc' };
  // Once first, dropped: the code compiled on the first use stays, and is not what a panel holds.
  buildFleetViewModel(makeSummary(), { context: 'warm-up' });
  const before = heapAfterGc();
  let held = { summary: makeSummary() };
  held.model = buildFleetViewModel(held.summary, { context: 'bench-5000' });
  const open = heapAfterGc();
  const nodes = held.model.nodes.length;
  held = undefined;
  const closed = heapAfterGc();
  const heldBytes = open - before;
  const leftBytes = closed - before;
  return {
    nodes,
    heldBytes,
    leftBytes,
    target: MEMORY_TARGET,
    pass: heldBytes <= MEMORY_TARGET && leftBytes <= RELEASED_WITHIN,
  };
}

/**
 * `summaryOf()` makes the 5,000-node summary afresh (the memory run measures what making it leaves held);
 * bench/fleet.mjs passes one built from its Prometheus read.
 */
export async function runFleetViewBench(summaryOf) {
  const memory = benchMemory(summaryOf);
  if (!existsSync(CHROMIUM)) return { paint: { skipped: `${CHROMIUM} is missing` }, memory };
  const bundle = await productionBundle({ fleet: join(ROOT, 'webview', 'fleet', 'main.ts') });
  const { server, url } = await startPageServer({
    bundleDir: bundle,
    files: ['fleet.js', 'fleet.css'],
    html: (origin, nonce) =>
      fleetHtml({ cspSource: origin, scriptUri: `${origin}/dist/webview/fleet.js`, styleUri: `${origin}/dist/webview/fleet.css`, nonce }),
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    return { paint: await benchPaint(browser, url, summaryOf()), memory };
  } finally {
    await browser.close();
    server.close();
    rmSync(bundle, { recursive: true, force: true });
  }
}

export function formatFleetViewBench({ paint, memory }) {
  const lines = ['gpumem fleet view (issue #13):'];
  if (paint.skipped) lines.push(`SKIP fleet view first paint: ${paint.skipped}`);
  else
    lines.push(
      `  first paint after the data arrives: host ${ms(paint.medianHostMs)} (view model + JSON, ${mib(paint.messageBytes)}), page ${ms(paint.medianPageMs)}; per run ${list(
        paint.runs.map((r) => r.totalMs),
        0,
      )} ms`,
      `  of the page: the message parsed and checked ${ms(median(paint.runs.map((r) => r.toStateMs)))}, then the render to the painted frame ${ms(median(paint.runs.map((r) => r.renderMs)))}`,
      `  the page: ${paint.checks.rows} rows of the virtualised table rendered; "${paint.checks.nodeCount}"; ${paint.checks.hamiRows} HAMi rows${paint.checks.hamiMore ? ` ("${paint.checks.hamiMore}")` : ''}; CSP violations ${paint.checks.cspViolations}; page errors ${paint.checks.pageErrors.length}`,
      `${paint.pass ? 'PASS' : 'FAIL'} fleet view first paint: ${ms(paint.medianMs)} median (target ≤ ${paint.target} ms)`,
    );
  if (memory.skipped) lines.push(`SKIP fleet view memory: ${memory.skipped}`);
  else
    lines.push(
      `${memory.pass ? 'PASS' : 'FAIL'} fleet view memory: the ${memory.nodes}-node summary and its view model hold ${mib(memory.heldBytes)} of heap (target ≤ ${mib(memory.target)}); after the view closes ${mib(memory.leftBytes)} remain`,
    );
  return lines.join('\n');
}

/** A 5,000-node, 50,000-pod summary of the shape the Prometheus read gives (for this file run alone). */
export async function syntheticSummary() {
  const { syntheticFleetFacts } = await import('../test/helpers/fleetFacts.ts');
  return () => summarizeFleet(syntheticFleetFacts(5000, 10), 20);
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const result = await runFleetViewBench(await syntheticSummary());
  console.log(`\n${formatFleetViewBench(result)}`);
}
