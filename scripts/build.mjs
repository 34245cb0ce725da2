// Bundles the extension host code and the CLI with esbuild.
// - dist/extension.js: CommonJS, `vscode` left external (VS Code provides it at run time).
// - dist/cli.js: the `gpumem` executable.
// ESM-only dependencies (such as @kubernetes/client-node) are bundled, so both outputs are plain CJS.
import * as esbuild from 'esbuild';
import { chmod, mkdir, rm } from 'node:fs/promises';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

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

const targets = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode', '*.node'] },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // The inspector webview (browser): dist/webview/inspector.js and the stylesheet it imports,
  // dist/webview/inspector.css. Loaded by the panel under a strict CSP (no inline code or styles).
  {
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    entryPoints: { inspector: 'webview/inspector/main.ts' },
    outdir: 'dist/webview',
    sourcemap: production ? false : 'linked',
    minify: production,
    legalComments: 'none',
    logLevel: 'warning',
  },
];

await mkdir('dist', { recursive: true });
// No stale files (a development build's source maps) in dist/webview/, which the .vsix takes whole.
await rm('dist/webview', { recursive: true, force: true });
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
