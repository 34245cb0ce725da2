// gpumem activation benchmark (issue 16, "light activation"): loading dist/extension.js, what VS Code does first
// when a YAML file activates gpumem, against loading a bundle of the lint core alone (the LintService and the
// YAML providers, built here with the same esbuild options), each in a fresh Node process so nothing is cached.
// Target: the extension at most 1.3× the lint core; and neither the bundle's modules nor require.cache after
// loading it may contain Kubernetes or SSH code (that is dist/remote.js, loaded on first use).
// `bench/run.mjs` calls runActivationBench() (after scripts/build.mjs built dist/); `node bench/activation.mjs`
// runs it alone. Nothing here is a timed test: a missed target prints FAIL without changing the exit code.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { median } from './stats.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const EXTENSION = join(ROOT, 'dist', 'extension.js');
const ROUNDS = 15;
const TARGET_RATIO = 1.3;
/** Module paths (esbuild metafile inputs, require.cache keys) that are Kubernetes or SSH code. */
const REMOTE_MODULE = /node_modules\/(@kubernetes\/client-node|ssh2)\/|\/src\/transports\/ssh\.ts$|dist\/remote\.js$/;

/** The esbuild options of dist/extension.js (scripts/build.mjs), development build. */
const OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  legalComments: 'none',
  logLevel: 'warning',
  define: { 'import.meta.url': 'undefined' },
  external: ['vscode', '*.node'],
  absWorkingDir: ROOT,
};

/** What a YAML file needs: the lint service, its providers and the lint commands. */
const LINT_CORE_ENTRY = [
  './src/vscode/ctx.ts',
  './src/vscode/lintService.ts',
  './src/vscode/codeLens.ts',
  './src/vscode/codeActions.ts',
  './src/vscode/hover.ts',
  './src/vscode/commands/lintActiveFile.ts',
  './src/vscode/commands/lintWorkspace.ts',
  './src/vscode/commands/applyFix.ts',
]
  .map((file, i) => `export * as m${i} from '${file}';`)
  .join('\n');

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
const started = performance.now();
require(process.argv[1]);
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, cache: Object.keys(require.cache) }));
`;

function loadOnce(file) {
  return JSON.parse(execFileSync(process.execPath, ['-e', CHILD, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
}

export async function runActivationBench() {
  const dir = mkdtempSync(join(os.tmpdir(), 'gpumem-bench-activation-'));
  try {
    const lintCore = join(dir, 'lint-core.js');
    await esbuild.build({
      ...OPTIONS,
      stdin: { contents: LINT_CORE_ENTRY, resolveDir: ROOT, sourcefile: 'lint-core-entry.ts', loader: 'ts' },
      outfile: lintCore,
    });
    const { metafile } = await esbuild.build({ ...OPTIONS, entryPoints: ['src/extension.ts'], write: false, metafile: true });
    const bundled = Object.keys(metafile.inputs).filter((input) => REMOTE_MODULE.test(`/${input}`));

    const extensionMs = [];
    const lintCoreMs = [];
    const ratios = [];
    let cached = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating order, so load from other processes lands on both.
      const first = round % 2 === 0 ? loadOnce(EXTENSION) : loadOnce(lintCore);
      const second = round % 2 === 0 ? loadOnce(lintCore) : loadOnce(EXTENSION);
      const extension = round % 2 === 0 ? first : second;
      const core = round % 2 === 0 ? second : first;
      extensionMs.push(extension.ms);
      lintCoreMs.push(core.ms);
      ratios.push(extension.ms / core.ms);
      cached = extension.cache;
    }
    const remoteCached = cached.filter((key) => REMOTE_MODULE.test(key));
    const ratio = median(ratios);
    const pass = ratio <= TARGET_RATIO && bundled.length === 0 && remoteCached.length === 0;
    console.log('\nActivation');
    console.log(`  require(dist/extension.js)   median ${median(extensionMs).toFixed(1)} ms over ${ROUNDS} fresh processes`);
    console.log(`  require(lint core bundle)    median ${median(lintCoreMs).toFixed(1)} ms`);
    console.log(`  per round                    ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
    console.log(
      `  Kubernetes or SSH modules    ${bundled.length === 0 ? 'none in dist/extension.js' : bundled.join(', ')}; ${remoteCached.length === 0 ? 'none in require.cache after loading it' : remoteCached.join(', ')}`,
    );
    console.log(
      `${pass ? 'PASS' : 'FAIL'} activation: dist/extension.js loads in ${ratio.toFixed(2)}× the lint core's time (target ≤ ${TARGET_RATIO}×), no Kubernetes or SSH module loaded`,
    );
    return {
      rounds: ROUNDS,
      extensionMs,
      lintCoreMs,
      ratios,
      ratio,
      target: TARGET_RATIO,
      bundledRemoteModules: bundled,
      cachedRemoteModules: remoteCached,
      pass,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runActivationBench();
