// CLI start-up benchmark: `gpumem lint` on one small manifest (dist/cli.js, as an installed `gpumem` runs) against a
// bare `node -e 0`, each a fresh process of the pinned Node, paired and alternating within each round so the load of
// other processes on the machine lands on both. Target: the median per-round ratio ≤ 3×, in CPU time (user + system,
// from bash's `times`) as bench/activation.mjs does: on a shared machine a 50 ms process's wall time is mostly waiting
// for a CPU. Wall times are printed too.
// Before the CLI was split per command (scripts/build.mjs) every command parsed the whole 7.8 MB bundle: about 10×.
// It also lists the files the lint run loads (NODE_DEBUG=esm is not stable; the run's --cpu-prof would be heavy), by
// asking the same Node for the ESM graph of dist/cli/main.mjs's lint command: what `import` statements reach.
// `bench/run.mjs` calls runCliStartBench() after scripts/build.mjs built dist/; `node bench/cliStart.mjs` runs it
// alone (build first). A missed target prints FAIL without changing the exit code.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { median } from './stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const MANIFEST = join(ROOT, 'test', 'fixtures', 'manifests', 'helm-rendered.yaml');
const ROUNDS = 21;
const TARGET_RATIO = 3;

// bash's `times` prints the CPU time of the children it waited for: the command's own user and system time, which
// Node's spawnSync does not report. The command's output goes to /dev/null; `times` writes to bash's stdout.
const TIMED = '"$0" "$@" > /dev/null; status=$?; times; exit $status';

/** The wall and CPU milliseconds of one fresh `node …args` process. */
function timed(args) {
  const started = performance.now();
  const run = spawnSync('bash', ['-c', TIMED, process.execPath, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - started;
  if (run.status === null || run.status > 1) throw new Error(`${args.join(' ')}: exit ${run.status}: ${run.stderr}`);
  // The second line is the children's "0m0.012s 0m0.004s" (user, system).
  const children = run.stdout.trim().split('\n')[1] ?? '';
  const cpuMs = [...children.matchAll(/(\d+)m(\d+(?:\.\d+)?)s/g)].reduce((sum, m) => sum + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0);
  return { ms, cpuMs };
}

/** The .mjs files reachable by static imports from `file` (what loading it parses). */
function staticGraph(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/from ?"(\.\/[^"]+\.mjs)"/g)) staticGraph(join(dirname(file), match[1]), seen);
  return seen;
}

export function runCliStartBench() {
  const bareMs = [];
  const lintMs = [];
  const bareCpuMs = [];
  const lintCpuMs = [];
  const ratios = [];
  const wallRatios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const lintFirst = round % 2 === 0;
    const first = timed(lintFirst ? [CLI, 'lint', MANIFEST] : ['-e', '0']);
    const second = timed(lintFirst ? ['-e', '0'] : [CLI, 'lint', MANIFEST]);
    const [lint, bare] = lintFirst ? [first, second] : [second, first];
    bareMs.push(bare.ms);
    lintMs.push(lint.ms);
    bareCpuMs.push(bare.cpuMs);
    lintCpuMs.push(lint.cpuMs);
    ratios.push(lint.cpuMs / bare.cpuMs);
    wallRatios.push(lint.ms / bare.ms);
  }
  const main = join(ROOT, 'dist', 'cli', 'main.mjs');
  const lintChunk = readFileSync(main, 'utf8').match(/import\("(\.\/chunks\/lintCommand-[^"]+\.mjs)"\)/);
  const loaded = [CLI, ...staticGraph(main), ...(lintChunk ? staticGraph(join(dirname(main), lintChunk[1])) : [])];
  const loadedBytes = [...new Set(loaded)].reduce((sum, file) => sum + statSync(file).size, 0);
  const ratio = median(ratios);
  const pass = ratio <= TARGET_RATIO;
  console.log('\nCLI start-up');
  console.log(
    `  gpumem lint (1 file)   median ${median(lintCpuMs).toFixed(1)} ms CPU, ${median(lintMs).toFixed(1)} ms wall over ${ROUNDS} fresh processes`,
  );
  console.log(`  node -e 0              median ${median(bareCpuMs).toFixed(1)} ms CPU, ${median(bareMs).toFixed(1)} ms wall`);
  console.log(`  per round, CPU         ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
  console.log(`  per round, wall        ${wallRatios.map((r) => r.toFixed(2)).join(' ')} (median ${median(wallRatios).toFixed(2)})`);
  console.log(`  loaded by lint         ${new Set(loaded).size} files, ${(loadedBytes / 1024).toFixed(0)} KiB`);
  console.log(
    `${pass ? 'PASS' : 'FAIL'} cli start: gpumem lint on one file takes ${ratio.toFixed(2)}× a bare node -e 0's CPU time (target ≤ ${TARGET_RATIO}×)`,
  );
  return {
    rounds: ROUNDS,
    bareMs,
    lintMs,
    bareCpuMs,
    lintCpuMs,
    ratios,
    wallRatios,
    ratio,
    target: TARGET_RATIO,
    loadedFiles: new Set(loaded).size,
    loadedBytes,
    pass,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runCliStartBench();
