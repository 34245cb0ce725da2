// Bundles the extension host code and the CLI with esbuild.
// - dist/extension.js: CommonJS, `vscode` left external (VS Code provides it at run time): the linter and the
//   registrations of every command and view; activation loads only this (issue 16, bench/activation.mjs).
// - dist/inspect.js: the inspector and the local inspection commands (src/inspect.ts); dist/remote.js:
//   Kubernetes and SSH (@kubernetes/client-node, ssh2; src/remote.ts). dist/extension.js requires each on
//   first use (src/vscode/lazyBundle.ts). esbuild cannot split CommonJS output, so these are bundles of their
//   own. State is passed to them in Ctx; the modules whose class identity every bundle tests (TransportError)
//   are not bundled again but read from dist/extension.js's `shared` export.
// - dist/cli.js: the `gpumem` executable (the CLI and the agent), a few lines built for old JavaScript that check
//   the Node.js version before anything else (src/cli/launcher.ts), then load dist/cli/main.mjs. The CLI itself is
//   ESM so that esbuild can split it: main.mjs is small and each command's code (src/cli/dispatch.ts imports it
//   dynamically) is a chunk of its own in dist/cli/chunks/, shared code in shared chunks, so `gpumem lint` never
//   parses the Kubernetes client or SSH (bench/cliStart.mjs). Its CommonJS dependencies `require` Node's
//   modules: the banner gives each chunk a `require` (esbuild's ESM output has none).
// ESM-only dependencies (such as @kubernetes/client-node) are bundled, so both outputs are plain CJS.
import * as esbuild from 'esbuild';
import { chmod, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// `--cli-only DIR`: the CLI alone, into DIR/cli.js and DIR/cli/ (the npm package: scripts/pack-cli.mjs).
const cliOnly = process.argv.includes('--cli-only') ? process.argv[process.argv.indexOf('--cli-only') + 1] : undefined;

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  sourcemap: production ? false : 'linked',
  minify: production,
  legalComments: 'none',
  logLevel: 'warning',
  // import.meta.url has no CJS equivalent; nothing in the bundle relies on it.
  define: { 'import.meta.url': 'undefined' },
  // ssh2's optional native crypto and cpu-features bindings are loaded in try/catch: leave them out,
  // so the bundle always uses ssh2's pure-JavaScript fallback.
  external: ['*.node'],
};

/** Source modules both bundles must share, by their name in src/extension.ts's `shared` export. */
const SHARED_WITH_EXTENSION = new Map([['src/core/probe/transport.ts', 'transport']]);

/** In a lazily loaded bundle, an import of a shared module reads dist/extension.js's instance of it. */
const shareWithExtension = {
  name: 'share-with-extension',
  setup(build) {
    build.onResolve({ filter: /\.ts$/ }, (args) => {
      const file = path.relative(process.cwd(), path.resolve(args.resolveDir, args.path)).split(path.sep).join('/');
      const name = SHARED_WITH_EXTENSION.get(file);
      return name === undefined ? undefined : { path: name, namespace: 'gpumem-shared' };
    });
    build.onLoad({ filter: /.*/, namespace: 'gpumem-shared' }, (args) => ({
      contents: `module.exports = require('./extension.js').shared.${args.path};`,
      loader: 'js',
    }));
    build.onResolve({ filter: /^\.\/extension\.js$/ }, () => ({ path: './extension.js', external: true }));
  },
};

/** The CLI's targets, into `out`: dist/ here; the npm package's staging directory (scripts/pack-cli.mjs). */
function cliTargets(out) {
  return [
    {
      ...common,
      entryPoints: ['src/cli/main.ts'],
      format: 'esm',
      splitting: true,
      outdir: `${out}/cli`,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      define: {},
      // CommonJS dependencies bundled into ES modules still read `require`, `__filename` and `__dirname` (ssh2's
      // poly1305 loader does at load time): each chunk gets them, for its own file.
      banner: {
        js: [
          "import { createRequire as __gpumemRequire } from 'node:module';",
          "import { fileURLToPath as __gpumemFileURLToPath } from 'node:url';",
          "import { dirname as __gpumemDirname } from 'node:path';",
          'const require = __gpumemRequire(import.meta.url);',
          'const __filename = __gpumemFileURLToPath(import.meta.url);',
          'const __dirname = __gpumemDirname(__filename);',
        ].join(' '),
      },
    },
    // Parsed by any Node.js since 14 (an older one gets one line, not a stack): no syntax newer than the target.
    {
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node14',
      entryPoints: ['src/cli/launcher.ts'],
      outfile: `${out}/cli.js`,
      banner: { js: '#!/usr/bin/env node' },
      legalComments: 'none',
      logLevel: 'warning',
    },
  ];
}

export const targets = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode', '*.node'] },
  { ...common, entryPoints: ['src/inspect.ts'], outfile: 'dist/inspect.js', external: ['vscode', '*.node'], plugins: [shareWithExtension] },
  { ...common, entryPoints: ['src/remote.ts'], outfile: 'dist/remote.js', external: ['vscode', '*.node'], plugins: [shareWithExtension] },
  ...cliTargets('dist'),
  // The inspector and fleet webviews (browser): dist/webview/{inspector,fleet}.js and the stylesheets they import,
  // dist/webview/{inspector,fleet}.css. Loaded by their panels under a strict CSP (no inline code or styles).
  {
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    entryPoints: { inspector: 'webview/inspector/main.ts', fleet: 'webview/fleet/main.ts' },
    outdir: 'dist/webview',
    sourcemap: production ? false : 'linked',
    minify: production,
    legalComments: 'none',
    logLevel: 'warning',
  },
];

if (cliOnly !== undefined) {
  if (!cliOnly || cliOnly.startsWith('-')) throw new Error('--cli-only needs an output directory');
  await rm(path.join(cliOnly, 'cli'), { recursive: true, force: true });
  await Promise.all(cliTargets(cliOnly).map((options) => esbuild.build(options)));
  await chmod(path.join(cliOnly, 'cli.js'), 0o755);
  process.exit(0);
}
await mkdir('dist', { recursive: true });
// No stale files (a development build's source maps) in dist/webview/, which the .vsix takes whole.
await rm('dist/webview', { recursive: true, force: true });
// Nor stale chunks in dist/cli/ (their names carry a content hash).
await rm('dist/cli', { recursive: true, force: true });
await rm('dist/cli.js.map', { force: true });
if (watch) {
  for (const options of targets) {
    const context = await esbuild.context(options);
    await context.watch();
  }
  console.log('esbuild: watching for changes');
} else {
  await Promise.all(targets.map((options) => esbuild.build(options)));
  await chmod('dist/cli.js', 0o755);
}
