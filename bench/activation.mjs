// gpumem activation benchmark (issue 16, "light activation"): loading dist/extension.js, what VS Code does first
// when a YAML file activates gpumem, against loading a bundle of the lint core alone (the Ctx, the LintService
// and the YAML providers, built here with the same esbuild options: bench/activationBundles.ts), each in a
// fresh Node process so nothing is cached.
// Target: the extension at most 1.3× the lint core, in CPU time; and neither the bundle's modules nor
// require.cache after loading it may contain code that loads on first use (dist/inspect.js: the inspector,
// the verdicts, the probe; dist/remote.js: Kubernetes and SSH).
// CPU time (process.cpuUsage around the require), not wall time, is the criterion: on a shared machine the wall
// time of a 20 ms load is mostly waiting for a CPU (rounds from 0.7× to 7× at a load average of 11 on 2 CPUs),
// while the CPU time is the work the load does. Both are printed.
// `bench/run.mjs` calls runActivationBench() (after scripts/build.mjs built dist/); `node bench/activation.mjs`
// runs it alone. Nothing here is a timed test: a missed target prints FAIL without changing the exit code.
// test/unit/activationBundle.test.ts checks what the bundles hold.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { bundleInputs, EXTENSION_OPTIONS, isLazyModule, LINT_CORE_ENTRY, ROOT } from './activationBundles.ts';
import { median } from './stats.mjs';

const EXTENSION = join(ROOT, 'dist', 'extension.js');
const ROUNDS = 15;
const TARGET_RATIO = 1.3;

// Run in a fresh process: `vscode` exists only inside VS Code, so a stand-in that answers every property,
// call and `new` with itself lets the bundle's top level run (esbuild's ESM interop reads the module's
// properties through an object whose prototype is the module's: hence the prototype trap); then the load is
// timed and require.cache listed. This is no test double: nothing of the extension is called.
const CHILD = `
const Module = require('node:module');
const answer = (_t, key) => (key === '__esModule' ? false : key === Symbol.toPrimitive ? () => '' : stub);
const proto = new Proxy({}, { get: answer });
const stub = new Proxy(function vscode() {}, { get: answer, apply: () => stub, construct: () => stub, getPrototypeOf: () => proto });
const load = Module._load;
Module._load = function (request) { return request === 'vscode' ? stub : load.apply(this, arguments); };
const cpu = process.cpuUsage();
const started = performance.now();
require(process.argv[1]);
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, cache: Object.keys(require.cache) }));
`;

function loadOnce(file) {
  return JSON.parse(execFileSync(process.execPath, ['-e', CHILD, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

export async function runActivationBench() {
  const dir = mkdtempSync(join(os.tmpdir(), 'gpumem-bench-activation-'));
  try {
    const lintCore = join(dir, 'lint-core.js');
    await esbuild.build({ ...EXTENSION_OPTIONS, stdin: LINT_CORE_ENTRY, outfile: lintCore });
    const lintCoreInputs = await bundleInputs({ stdin: LINT_CORE_ENTRY });
    const extensionInputs = await bundleInputs({ entryPoints: ['src/extension.ts'] });
    const bundled = [...extensionInputs.keys()].filter(isLazyModule);
    const beyondLintCore = [...extensionInputs].filter(([input]) => !lintCoreInputs.has(input)).sort((a, b) => b[1] - a[1]);
    const sum = (inputs) => [...inputs].reduce((total, [, bytes]) => total + bytes, 0);

    const extensionMs = [];
    const lintCoreMs = [];
    const extensionCpuMs = [];
    const lintCoreCpuMs = [];
    const ratios = [];
    const wallRatios = [];
    let cached = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating order, so load from other processes lands on both.
      const first = round % 2 === 0 ? loadOnce(EXTENSION) : loadOnce(lintCore);
      const second = round % 2 === 0 ? loadOnce(lintCore) : loadOnce(EXTENSION);
      const extension = round % 2 === 0 ? first : second;
      const core = round % 2 === 0 ? second : first;
      extensionMs.push(extension.ms);
      lintCoreMs.push(core.ms);
      extensionCpuMs.push(extension.cpuMs);
      lintCoreCpuMs.push(core.cpuMs);
      ratios.push(extension.cpuMs / core.cpuMs);
      wallRatios.push(extension.ms / core.ms);
      cached = extension.cache;
    }
    const lazyCached = cached.filter(isLazyModule);
    const ratio = median(ratios);
    const pass = ratio <= TARGET_RATIO && bundled.length === 0 && lazyCached.length === 0;
    console.log('\nActivation');
    console.log(
      `  require(dist/extension.js)   median ${median(extensionCpuMs).toFixed(1)} ms CPU, ${median(extensionMs).toFixed(1)} ms wall over ${ROUNDS} fresh processes`,
    );
    console.log(
      `  require(lint core bundle)    median ${median(lintCoreCpuMs).toFixed(1)} ms CPU, ${median(lintCoreMs).toFixed(1)} ms wall`,
    );
    console.log(`  per round, CPU               ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
    console.log(
      `  per round, wall              ${wallRatios.map((r) => r.toFixed(2)).join(' ')} (median ${median(wallRatios).toFixed(2)})`,
    );
    console.log(
      `  bundle sizes                 lint core ${kib(sum(lintCoreInputs))}; dist/extension.js ${kib(sum(extensionInputs))}, of which beyond the lint core ${kib(sum(beyondLintCore))}:`,
    );
    console.log(`                               ${beyondLintCore.map(([input, bytes]) => `${input} ${kib(bytes)}`).join(', ')}`);
    console.log(
      `  first-use modules            ${bundled.length === 0 ? 'none in dist/extension.js' : bundled.join(', ')}; ${lazyCached.length === 0 ? 'none in require.cache after loading it' : lazyCached.join(', ')}`,
    );
    console.log(
      `${pass ? 'PASS' : 'FAIL'} activation: dist/extension.js loads in ${ratio.toFixed(2)}× the lint core's CPU time (target ≤ ${TARGET_RATIO}×), no inspector, Kubernetes or SSH module loaded`,
    );
    return {
      rounds: ROUNDS,
      extensionMs,
      lintCoreMs,
      extensionCpuMs,
      lintCoreCpuMs,
      ratios,
      wallRatios,
      ratio,
      target: TARGET_RATIO,
      beyondLintCore: Object.fromEntries(beyondLintCore),
      bundledLazyModules: bundled,
      cachedLazyModules: lazyCached,
      pass,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runActivationBench();
