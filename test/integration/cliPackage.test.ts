// The `gpumem` npm package as a user gets it: scripts/pack-cli.mjs packs it (`npm pack` of a staged package), it is
// installed from the tarball into an empty prefix (`npm install -g --prefix`) and run through `npx --package`, with
// only the pinned Node on PATH: --help, --version, lint (text and SARIF), and analyze of a capture the package's own
// probe script took on this machine. The package declares no dependency (every one is in the bundle).
// On an older Node.js, the machine's own (Debian's nodejs), every entry point, the CLI and the agent, prints one line
// and exits 2 with no stack.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineNode } from '../helpers/machineNode.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const T = { timeout: 300_000 };
const MANIFEST = join(ROOT, 'test', 'fixtures', 'manifests', 'helm-rendered.yaml');
const MINIMUM = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node.replace(/^>=/, '');

describe('the gpumem npm package', () => {
  let work = '';
  let tarball = '';
  let prefix = '';
  /** Only the pinned Node and the system's tools: nothing of this checkout's node_modules/.bin. */
  let env: NodeJS.ProcessEnv = {};

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-package-'));
    tarball = execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack-cli.mjs'), '--out', work], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    const path = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
    env = { PATH: path, HOME: work, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' };
    prefix = join(work, 'prefix');
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball], {
      cwd: work,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  const gpumem = (args: readonly string[], input?: string) =>
    spawnSync(join(prefix, 'bin', 'gpumem'), args, { cwd: work, env, encoding: 'utf8', input: input ?? '', timeout: 120_000 });

  test('the tarball holds the bundle, the rule docs and a package.json with bin gpumem and no dependencies', T, () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    assert.ok(listing.includes('package/dist/cli.js') && listing.includes('package/dist/cli/main.mjs'), listing.join('\n'));
    assert.ok(listing.includes('package/docs/rules/gpu-no-memory-limit.md'));
    assert.ok(!listing.some((file) => file.endsWith('.map') || file.startsWith('package/src/')), 'no source maps, no sources');
    const installed = join(prefix, 'lib', 'node_modules', 'gpumem');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    assert.deepEqual(manifest.bin, { gpumem: 'dist/cli.js' });
    assert.equal(manifest.engines.node, `>=${MINIMUM}`);
    assert.equal(manifest.dependencies, undefined);
    assert.equal(manifest.contributes, undefined, 'none of the extension manifest');
    assert.equal(existsSync(join(installed, 'node_modules')), false, 'npm installed nothing beside the package');
    assert.match(basename(tarball), /^gpumem-\d+\.\d+\.\d+\.tgz$/);
  });

  test('--help and --version from the installed bin', T, () => {
    const help = gpumem(['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: gpumem <command>/);
    const version = gpumem(['--version']);
    assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });

  test("every command's chunk loads from the installed package (the cluster commands bundle ssh2 and client-node)", T, () => {
    // --help loads the command's own chunk and what it imports: a bundled CommonJS dependency that reads __dirname
    // or require at load time fails here, as it did for fleet, inspect and recommend once.
    for (const command of [
      'lint',
      'rules',
      'probe-script',
      'inspect',
      'analyze',
      'explain-oom',
      'hami-test',
      'hami-report',
      'agent',
      'fleet',
      'recommend',
    ]) {
      const help = gpumem([command, '--help']);
      assert.equal(help.status, 0, `${command} --help: ${help.stderr.slice(0, 400)}`);
      assert.match(help.stdout, new RegExp(`Usage: gpumem ${command}`), command);
    }
  });

  test('lint: the findings of a manifest, in text and SARIF with their rule docs in the package', T, () => {
    const text = gpumem(['lint', MANIFEST]);
    assert.equal(text.status, 1, text.stderr);
    assert.match(text.stdout, /warning \[gpu-no-memory-limit\]/);
    const sarif = gpumem(['lint', MANIFEST, '--format', 'sarif']);
    const log = JSON.parse(sarif.stdout);
    assert.equal(log.version, '2.1.0');
    const rule = log.runs[0].tool.driver.rules.find((r: { id: string }) => r.id === 'gpu-no-memory-limit');
    const docs = fileURLToPath(rule.helpUri);
    assert.ok(docs.startsWith(join(prefix, 'lib', 'node_modules', 'gpumem', 'docs', 'rules')), docs);
    assert.ok(existsSync(docs), docs);
  });

  test("analyze: a capture taken by the package's own probe script", T, () => {
    const script = gpumem(['probe-script']);
    assert.equal(script.status, 0, script.stderr);
    const capture = spawnSync('sh', ['-s'], { input: script.stdout, encoding: 'utf8', timeout: 120_000 });
    const file = join(work, 'capture.txt');
    writeFileSync(file, capture.stdout);
    const analysis = gpumem(['analyze', file, '--format', 'json']);
    assert.ok(analysis.status === 0 || analysis.status === 1, analysis.stderr);
    assert.ok(Array.isArray(JSON.parse(analysis.stdout).verdicts), analysis.stdout.slice(0, 400));
  });

  test('npx --package ./gpumem-….tgz gpumem runs it without installing it', T, () => {
    const npxDir = mkdtempSync(join(work, 'npx-'));
    const run = spawnSync('npx', ['--yes', '--offline', '--package', `./${basename(tarball)}`, 'gpumem', 'lint', MANIFEST], {
      cwd: work,
      env: { ...env, npm_config_cache: join(npxDir, 'cache') },
      encoding: 'utf8',
      timeout: 240_000,
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /2 findings \(0 errors, 2 warnings, 0 info\) in 1 of 1 file/);
    assert.deepEqual(readdirSync(npxDir), ['cache']);
  });

  test("on the machine's older Node.js every entry point prints one line and exits 2", T, (t) => {
    const old = machineNode();
    if (old === undefined) return t.skip('no Node.js on this machine but the pinned one (.ci/run installs Debian’s nodejs)');
    const [major = 0, minor = 0] = old.version.split('.').map(Number);
    const [needMajor = 0, needMinor = 0] = MINIMUM.split('.').map(Number);
    if (major > needMajor || (major === needMajor && minor >= needMinor)) return t.skip(`${old.path} is ${old.version}: new enough`);
    const cli = join(prefix, 'lib', 'node_modules', 'gpumem', 'dist', 'cli.js');
    for (const args of [['--help'], ['lint', MANIFEST], ['agent', '--listen', '127.0.0.1:0']]) {
      const run: SpawnSyncReturns<string> = spawnSync(old.path, [cli, ...args], { env, encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, `gpumem needs Node.js ≥ ${MINIMUM}; this is ${old.version}\n`);
    }
    // The repository's own dist/cli.js is built by the same targets; through the bin's shebang as well.
    const shebang = spawnSync(join(prefix, 'bin', 'gpumem'), ['--help'], {
      env: { ...env, PATH: `${dirname(old.path)}:/usr/bin:/bin` },
      encoding: 'utf8',
    });
    assert.equal(shebang.status, 2);
    assert.equal(shebang.stderr, `gpumem needs Node.js ≥ ${MINIMUM}; this is ${old.version}\n`);
  });
});
