// The `gpumem` npm package: `node scripts/pack-cli.mjs [--out DIR]` writes DIR/gpumem-<version>.tgz (default DIR:
// dist/) and prints its path. The repository's package.json is the VS Code extension's manifest (its `dependencies`
// are bundled, its `contributes` mean nothing to npm), so the package is staged apart: the production CLI bundle
// (scripts/build.mjs --cli-only: dist/cli.js and dist/cli/, every dependency inside), the rule docs the findings
// link to (docs/rules; dist/cli.js finds them at ../docs/rules), the CLI's docs as README.md, LICENSE, and a
// package.json written here with `bin: gpumem` and no dependencies. CI packs and installs it
// (test/integration/cliPackage.test.ts); the release workflow publishes the tarball this writes.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const outIndex = process.argv.indexOf('--out');
const out = resolve(outIndex === -1 ? join(ROOT, 'dist') : (process.argv[outIndex + 1] ?? ''));

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The npm package's manifest: what npm and a user need, nothing of the extension's. */
export function cliManifest(extension) {
  return {
    name: extension.name,
    version: extension.version,
    description:
      'Lint Kubernetes manifests for GPU-memory risks (unified-memory APUs, HAMi vGPU), inspect GPU nodes, and export their memory to Prometheus.',
    license: extension.license,
    keywords: extension.keywords,
    ...(extension.repository === undefined ? {} : { repository: extension.repository }),
    bin: { gpumem: 'dist/cli.js' },
    engines: { node: extension.engines.node },
    files: ['dist/', 'docs/rules/'],
  };
}

const staging = mkdtempSync(join(tmpdir(), 'gpumem-pack-'));
try {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--production', '--cli-only', join(staging, 'dist')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  cpSync(join(ROOT, 'docs', 'rules'), join(staging, 'docs', 'rules'), { recursive: true });
  cpSync(join(ROOT, 'docs', 'cli.md'), join(staging, 'README.md'));
  cpSync(join(ROOT, 'LICENSE'), join(staging, 'LICENSE'));
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify(cliManifest(manifest), null, 2)}\n`);
  mkdirSync(out, { recursive: true });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
      cwd: staging,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  console.log(join(out, packed[0].filename));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
