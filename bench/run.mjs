// gpumem benchmarks: lint throughput against the bare YAML parser, re-lint latency of a 300-line manifest, and
// peak memory. Run with `npm run bench` (pinned Node 22, --expose-gc). Results are ratios and percentiles
// measured in one run on one machine; nothing here is a timed test. The exit code is 0 even when a target is
// missed: the FAIL lines and bench/results/latest.json say what happened.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import os from 'node:os';
import { parseAllDocuments } from 'yaml';
import { lintText } from '../src/core/lint.ts';
import { indexClaims, mayUseClaims } from '../src/core/crossFile.ts';
import { ClaimIndex } from '../src/core/manifest/draClaims.ts';
import { draDeployment, draTemplate, generateCorpus, generateManifest, prng } from './corpus.mjs';
import { runProbeBench } from './probe.mjs';
import { formatNvidiaBench, runNvidiaBench } from './nvidiaProbe.mjs';
import { runInspectorBench } from './inspector.mjs';
import { runClusterBench } from './cluster.mjs';
import { runLiveCacheBench } from './liveCache.mjs';
import { formatLargeLint, runLargeLintBench } from './lintLarge.mjs';
import { formatLiveRelint, runLiveRelintBench } from './liveRelint.mjs';
import { formatGrowth, runGrowthBench } from './growth.mjs';
import { runActivationBench } from './activation.mjs';
import { runCliStartBench } from './cliStart.mjs';
import { runAgentBench } from './agent.mjs';
import { runFleetBench } from './fleet.mjs';
import { formatRecommendBench, runRecommendBench } from './recommend.mjs';
import { median, percentile, MiB, mib } from './stats.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SEED = 0x6770756d; // "gpum"
const MIN_DOCUMENTS = 5000;
const THROUGHPUT_WARMUP_ROUNDS = 2;
const THROUGHPUT_ROUNDS = 7;
const BLOCK = 8;
const RELINT_LINES = 300;
const RELINT_WARMUP = 200;
const RELINT_RUNS = 1000;
const TARGET_RATIO = 0.75;
const TARGET_P95_MS = 5;
const CROSS_FILE_SMALL = 200;
const CROSS_FILE_ROUNDS = 3;
const TARGET_CROSS_FILE_RATIO = 1.5;

const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};

// ---- memory sampling ------------------------------------------------------------------------------------------
// The benchmarks are synchronous, so a timer would never fire inside them: sample explicitly between units of work
// (outside the timed regions where it could skew them) and keep the maxima.
const peak = { rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0, samples: 0 };
function sampleMemory() {
  const usage = process.memoryUsage();
  peak.rss = Math.max(peak.rss, usage.rss);
  peak.heapUsed = Math.max(peak.heapUsed, usage.heapUsed);
  peak.external = Math.max(peak.external, usage.external);
  peak.arrayBuffers = Math.max(peak.arrayBuffers, usage.arrayBuffers);
  peak.samples++;
  return usage;
}

// ---- helpers --------------------------------------------------------------------------------------------------
const rate = (bytesPerSecond) => `${(bytesPerSecond / MiB).toFixed(2)} MiB/s`;

let sink = 0; // results feed this so no work can be optimised away

/**
 * One round over the corpus, in blocks of BLOCK files: each block is parsed and linted back to back, in alternating
 * order, so a burst of load from other processes lands on both measurements instead of skewing one of them.
 * Returns the seconds spent in each.
 */
function throughputRound(files, round) {
  let lint = 0;
  let parse = 0;
  for (let i = 0, block = 0; i < files.length; i += BLOCK, block++) {
    const end = Math.min(files.length, i + BLOCK);
    const lintFirst = (block + round) % 2 === 0;
    for (let pass = 0; pass < 2; pass++) {
      const start = performance.now();
      if ((pass === 0) === lintFirst) {
        for (let j = i; j < end; j++) sink += lintText(files[j]).findings.length;
        lint += performance.now() - start;
      } else {
        for (let j = i; j < end; j++) sink += parseAllDocuments(files[j]).length;
        parse += performance.now() - start;
      }
    }
  }
  return { lint: lint / 1000, parse: parse / 1000 };
}

// ---- corpus ---------------------------------------------------------------------------------------------------
const loadAtStart = os.loadavg()[0];
const runStart = performance.now();
const cpuAtStart = process.cpuUsage();
gc();
const baseline = sampleMemory();
const generateStart = performance.now();
const corpus = generateCorpus(SEED, MIN_DOCUMENTS);
const manifest = generateManifest(SEED + 1, RELINT_LINES);
const generateMs = performance.now() - generateStart;
const corpusBytes = corpus.files.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
const corpusLines = corpus.files.reduce((sum, text) => sum + text.split('\n').length - 1, 0);

// ---- throughput: lintText vs bare parseAllDocuments over the same bytes ---------------------------------------
// Warm both up (so both run optimised code), then measure several rounds and take the medians.
for (let i = 0; i < THROUGHPUT_WARMUP_ROUNDS; i++) throughputRound(corpus.files, i);
const lintSeconds = [];
const parseSeconds = [];
const roundRatios = [];
for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
  gc();
  const times = throughputRound(corpus.files, round);
  sampleMemory();
  lintSeconds.push(times.lint);
  parseSeconds.push(times.parse);
  roundRatios.push(times.parse / times.lint);
}
const lintBps = corpusBytes / median(lintSeconds);
const parseBps = corpusBytes / median(parseSeconds);
// The headline is the median of the per-round ratios: each round pairs lint and parse closely in time, so its
// ratio is robust to load that changes between rounds. The ratio of the two medians is reported alongside.
const ratio = median(roundRatios);
const ratioOfMedians = lintBps / parseBps;

// ---- memory: one untimed pass over the corpus, sampled after every file ---------------------------------------
gc();
const beforeMemoryPass = sampleMemory();
let corpusFindings = 0;
const findingsByRule = {};
for (const text of corpus.files) {
  const result = lintText(text);
  corpusFindings += result.findings.length;
  for (const finding of result.findings) findingsByRule[finding.ruleId] = (findingsByRule[finding.ruleId] ?? 0) + 1;
  sampleMemory();
}

// ---- cross-file DRA claim resolution: N and 10N files, each pod claiming the template of the next file ---------
// What `gpumem lint` and Lint Workspace do: index every file's claims, then lint the files that use claims
// against the index. Linear means the time per document stays the same at 10N.
function crossFileFiles(count) {
  const r = prng(SEED + count);
  const files = [];
  for (let i = 0; i < count; i++) {
    const template = draTemplate(r, `t${i}`, 'ml').join('\n');
    const pod = draDeployment(r, `app-${i}`, 'ml', `t${(i + 1) % count}`).join('\n');
    files.push(`${template}\n---\n${pod}\n`);
  }
  return files;
}
function crossFileRun(files) {
  const start = performance.now();
  const index = new ClaimIndex();
  for (const text of files) indexClaims(text, index);
  let resolved = 0;
  for (const text of files) {
    if (!mayUseClaims(text)) continue;
    resolved += lintText(text, undefined, { claims: index }).containers.length;
  }
  return { seconds: (performance.now() - start) / 1000, resolved };
}
const crossFile = [];
for (const count of [CROSS_FILE_SMALL, CROSS_FILE_SMALL * 10]) {
  const files = crossFileFiles(count);
  crossFileRun(files); // warm-up
  const seconds = [];
  let resolved = 0;
  for (let round = 0; round < CROSS_FILE_ROUNDS; round++) {
    gc();
    const run = crossFileRun(files);
    seconds.push(run.seconds);
    resolved = run.resolved;
  }
  crossFile.push({
    files: count,
    documents: count * 2,
    resolvedGpuContainers: resolved,
    seconds,
    perDocumentMs: (median(seconds) * 1000) / (count * 2),
  });
  sampleMemory();
}
const crossFileRatio = crossFile[1].perDocumentMs / crossFile[0].perDocumentMs;
const crossFilePass = crossFileRatio <= TARGET_CROSS_FILE_RATIO && crossFile.every((run) => run.resolvedGpuContainers === run.files);

// ---- re-lint latency of one 300-line manifest -----------------------------------------------------------------
for (let i = 0; i < RELINT_WARMUP; i++) sink += lintText(manifest).findings.length;
gc();
const relint = new Float64Array(RELINT_RUNS);
const relintCpu = new Float64Array(RELINT_RUNS);
for (let i = 0; i < RELINT_RUNS; i++) {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  sink += lintText(manifest).findings.length;
  relint[i] = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  relintCpu[i] = (cpu.user + cpu.system) / 1000;
  if (i % 50 === 0) sampleMemory();
}
const relintSorted = [...relint].sort((a, b) => a - b);
const relintCpuSorted = [...relintCpu].sort((a, b) => a - b);
const relintStats = {
  runs: RELINT_RUNS,
  minMs: relintSorted[0],
  p50Ms: percentile(relintSorted, 50),
  p95Ms: percentile(relintSorted, 95),
  p99Ms: percentile(relintSorted, 99),
  maxMs: relintSorted[relintSorted.length - 1],
  meanMs: relintSorted.reduce((sum, value) => sum + value, 0) / RELINT_RUNS,
  // Process CPU time per run (all threads, so GC helpers count): what the lint costs without the time the
  // process spent descheduled on a busy machine. Informational; the target applies to wall-clock time.
  cpuP50Ms: percentile(relintCpuSorted, 50),
  cpuP95Ms: percentile(relintCpuSorted, 95),
  cpuP99Ms: percentile(relintCpuSorted, 99),
};
const manifestFindings = lintText(manifest).findings.length;

// The same measurement for the bare parser on the same text, right after (informational): it shows how much of
// the tail is the YAML parser and the machine rather than gpumem's own work.
for (let i = 0; i < RELINT_WARMUP; i++) sink += parseAllDocuments(manifest).length;
gc();
const reparse = new Float64Array(RELINT_RUNS);
for (let i = 0; i < RELINT_RUNS; i++) {
  const start = performance.now();
  sink += parseAllDocuments(manifest).length;
  reparse[i] = performance.now() - start;
}
const reparseSorted = [...reparse].sort((a, b) => a - b);
const reparseStats = { p50Ms: percentile(reparseSorted, 50), p95Ms: percentile(reparseSorted, 95), p99Ms: percentile(reparseSorted, 99) };

sampleMemory();
const runSeconds = (performance.now() - runStart) / 1000;
const runCpu = process.cpuUsage(cpuAtStart);
const runCpuSeconds = (runCpu.user + runCpu.system) / 1e6;
const loadAtEnd = os.loadavg()[0];
const maxRssBytes = process.resourceUsage().maxRSS * 1024; // maxRSS is in KiB

// ---- report ---------------------------------------------------------------------------------------------------
const require = createRequire(import.meta.url);
const yamlVersion = require('yaml/package.json').version;
const throughputPass = ratio >= TARGET_RATIO;
const latencyPass = relintStats.p95Ms <= TARGET_P95_MS;

const rows = [
  [
    'Machine load',
    `1-min load average ${loadAtStart.toFixed(2)} at start, ${loadAtEnd.toFixed(2)} at end on ${os.cpus().length} CPUs; process CPU ${runCpuSeconds.toFixed(1)} s in ${runSeconds.toFixed(1)} s wall`,
  ],
  [
    'Corpus',
    `${corpus.files.length} files, ${corpus.documents} documents, ${corpusLines} lines, ${mib(corpusBytes)} (seed ${SEED}, generated in ${generateMs.toFixed(0)} ms)`,
  ],
  [
    'Kinds',
    Object.entries(corpus.kinds)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', '),
  ],
  ['Findings in corpus', `${corpusFindings}`],
  ['', ''],
  ['yaml.parseAllDocuments', `${rate(parseBps)} (median of ${THROUGHPUT_ROUNDS} rounds: ${(median(parseSeconds) * 1000).toFixed(0)} ms)`],
  ['lintText', `${rate(lintBps)} (median of ${THROUGHPUT_ROUNDS} rounds: ${(median(lintSeconds) * 1000).toFixed(0)} ms)`],
  ['Throughput ratio', `${ratio.toFixed(3)}× of the bare parser, median of the per-round ratios (target ≥ ${TARGET_RATIO}×)`],
  ['  per round', roundRatios.map((r) => r.toFixed(3)).join(' ')],
  ['  ratio of the medians', `${ratioOfMedians.toFixed(3)}×`],
  ['', ''],
  [
    'Cross-file claim resolution',
    crossFile
      .map(
        (run) =>
          `${run.documents} documents: ${run.perDocumentMs.toFixed(3)} ms/document, ${run.resolvedGpuContainers}/${run.files} claims resolved`,
      )
      .join('; '),
  ],
  ['  time per document at 10N / N', `${crossFileRatio.toFixed(3)} (target ≤ ${TARGET_CROSS_FILE_RATIO}: linear)`],
  ['', ''],
  [`Re-lint ${RELINT_LINES}-line manifest`, `${RELINT_RUNS} runs after ${RELINT_WARMUP} warm-up runs, ${manifestFindings} findings each`],
  [
    '  p50 / p95 / p99',
    `${relintStats.p50Ms.toFixed(3)} / ${relintStats.p95Ms.toFixed(3)} / ${relintStats.p99Ms.toFixed(3)} ms (target p95 ≤ ${TARGET_P95_MS} ms)`,
  ],
  ['  min / mean / max', `${relintStats.minMs.toFixed(3)} / ${relintStats.meanMs.toFixed(3)} / ${relintStats.maxMs.toFixed(3)} ms`],
  [
    '  CPU time p50 / p95 / p99',
    `${relintStats.cpuP50Ms.toFixed(3)} / ${relintStats.cpuP95Ms.toFixed(3)} / ${relintStats.cpuP99Ms.toFixed(3)} ms (informational)`,
  ],
  [
    '  bare parse p50 / p95 / p99',
    `${reparseStats.p50Ms.toFixed(3)} / ${reparseStats.p95Ms.toFixed(3)} / ${reparseStats.p99Ms.toFixed(3)} ms (yaml.parseAllDocuments of the same text, informational)`,
  ],
  ['', ''],
  ['Memory at start', `rss ${mib(baseline.rss)}, heapUsed ${mib(baseline.heapUsed)}`],
  ['Peak rss (sampled)', mib(peak.rss)],
  [
    'Peak heapUsed (sampled)',
    `${mib(peak.heapUsed)} (${peak.samples} samples; after GC before the memory pass: ${mib(beforeMemoryPass.heapUsed)})`,
  ],
  ['Peak external / arrayBuffers', `${mib(peak.external)} / ${mib(peak.arrayBuffers)}`],
  ['resourceUsage().maxRSS', mib(maxRssBytes)],
];
const width = Math.max(...rows.map(([label]) => label.length));
console.log(
  `\ngpumem bench · node ${process.version} · yaml ${yamlVersion} · ${os.cpus()[0]?.model ?? 'unknown CPU'} × ${os.cpus().length}${typeof globalThis.gc === 'function' ? '' : ' · (no --expose-gc: GC not forced between phases)'}\n`,
);
for (const [label, value] of rows) console.log(label === '' ? '' : `${label.padEnd(width)}  ${value}`);
console.log('');
console.log(
  `${throughputPass ? 'PASS' : 'FAIL'} throughput: lintText at ${ratio.toFixed(3)}× of yaml.parseAllDocuments (target ≥ ${TARGET_RATIO}×)`,
);
console.log(
  `${crossFilePass ? 'PASS' : 'FAIL'} cross-file claim resolution: ${crossFileRatio.toFixed(3)}× the time per document at ${crossFile[1].documents} documents as at ${crossFile[0].documents} (target ≤ ${TARGET_CROSS_FILE_RATIO}×, every claim resolved)`,
);
console.log(
  `${latencyPass ? 'PASS' : 'FAIL'} re-lint latency: p95 ${relintStats.p95Ms.toFixed(3)} ms for ${RELINT_LINES} lines (target ≤ ${TARGET_P95_MS} ms)`,
);
console.log(`INFO peak memory: rss ${mib(peak.rss)} sampled, maxRSS ${mib(maxRssBytes)}, heapUsed ${mib(peak.heapUsed)}`);

const results = {
  date: new Date().toISOString(),
  node: process.version,
  yaml: yamlVersion,
  cpu: { model: os.cpus()[0]?.model ?? null, count: os.cpus().length },
  gcExposed: typeof globalThis.gc === 'function',
  load: {
    cpus: os.cpus().length,
    loadAverage1mStart: loadAtStart,
    loadAverage1mEnd: loadAtEnd,
    wallSeconds: runSeconds,
    processCpuSeconds: runCpuSeconds,
  },
  corpus: {
    seed: SEED,
    files: corpus.files.length,
    documents: corpus.documents,
    lines: corpusLines,
    bytes: corpusBytes,
    kinds: corpus.kinds,
    findings: corpusFindings,
    findingsByRule,
  },
  throughput: {
    rounds: THROUGHPUT_ROUNDS,
    blockFiles: BLOCK,
    warmupRounds: THROUGHPUT_WARMUP_ROUNDS,
    lintSeconds,
    parseSeconds,
    lintBytesPerSecond: lintBps,
    parseBytesPerSecond: parseBps,
    ratio,
    ratioOfMedians,
    roundRatios,
    target: TARGET_RATIO,
    pass: throughputPass,
  },
  crossFile: { runs: crossFile, ratio: crossFileRatio, target: TARGET_CROSS_FILE_RATIO, pass: crossFilePass },
  relint: {
    lines: RELINT_LINES,
    warmup: RELINT_WARMUP,
    findings: manifestFindings,
    ...relintStats,
    bareParse: reparseStats,
    targetP95Ms: TARGET_P95_MS,
    pass: latencyPass,
  },
  memory: {
    startRssBytes: baseline.rss,
    startHeapUsedBytes: baseline.heapUsed,
    peakRssBytes: peak.rss,
    peakHeapUsedBytes: peak.heapUsed,
    peakExternalBytes: peak.external,
    peakArrayBuffersBytes: peak.arrayBuffers,
    maxRssBytes,
    samples: peak.samples,
  },
  sink,
};

// ---- one pod of 150,000 containers (bench/lintLarge.mjs): lint vs bare parse of the same file, peak memory ------
results.largePod = runLargeLintBench();
console.log(`\n${formatLargeLint(results.largePod)}`);

results.growth = runGrowthBench();
console.log(`\n${formatGrowth(results.growth)}`);

// ---- live mode (bench/liveRelint.mjs): the LintService's re-lint with the live layer on, against without it -------
results.liveRelint = await runLiveRelintBench();
console.log(`\n${formatLiveRelint(results.liveRelint)}`);

// ---- probe benchmarks (bench/probe.mjs): they print their own section and are stored under `probe` ----------
results.probe = await runProbeBench();
// ---- NVIDIA probe benchmark (bench/nvidiaProbe.mjs): 8 GPUs × 400 compute processes against a plain shell ----
results.nvidia = await runNvidiaBench();
console.log(`\n${formatNvidiaBench(results.nvidia)}`);
// ---- inspector benchmarks (bench/inspector.mjs): first paint with 50 GPU pods, live-sampling heap ---------------
results.inspector = await runInspectorBench();

// ---- cluster benchmarks (bench/cluster.mjs): they print their own section and are stored under `cluster` ----
results.cluster = await runClusterBench();
results.liveCache = await runLiveCacheBench();

// ---- activation benchmark (bench/activation.mjs): dist/extension.js against the lint core, no Kubernetes/SSH --
results.activation = await runActivationBench();

// ---- CLI start-up (bench/cliStart.mjs): `gpumem lint` on one small file against a bare `node -e 0` ----------------
results.cliStart = runCliStartBench();

// ---- agent benchmarks (bench/agent.mjs): cycle CPU against a cat, 1,000 replayed cycles' memory, /metrics scaling --
results.agent = await runAgentBench();

// ---- fleet benchmarks (bench/fleet.mjs): 5,000 nodes from Prometheus against the bare queries; a 200-node scan ----
results.fleet = await runFleetBench();

// ---- right-sizing (bench/recommend.mjs): 5,000 workloads / 50,000 pods from Prometheus against the bare queries ----
results.recommend = await runRecommendBench().catch((error) => ({ skipped: `failed: ${error.message}` }));
console.log(`\n${formatRecommendBench(results.recommend).join('\n')}`);
delete results.recommend.keepAlive;

const out = join(HERE, 'results', 'latest.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nWrote ${out}`);
