// `npm run test:e2e`: prepares once, then runs the end-to-end specs with Node's test runner.
//   1. Debian packages (chromium + code-server's build packages) when missing (root: apt-get;
//      otherwise the exact sudo command is printed and the run fails)
//   2. code-server 4.139.1 on Node 24 in .cache/ (installed once, ~2 minutes)
//   3. `npm run package` -> dist/gpumem.vsix (every run: the tests exercise what a user installs)
//   4. node --test test/e2e/*.e2e.test.ts, one file at a time, with GPUMEM_E2E_VSIX set
// Arguments: spec files to run instead of all; other --options are passed to node --test
// (e.g. --test-name-pattern=Restricted).
// Exit code: node --test's; 1 when preparation fails (the tests then cannot run, which is a failure).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, assertChromium, buildVsix, ensureCodeServer, ensureDebianPackages } from './code-server.mjs';

const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const artifacts = path.join(REPO_ROOT, 'test-artifacts');
mkdirSync(artifacts, { recursive: true });

// Type stripping (the specs are .ts) needs Node >= 22.18: prefer the project's pinned Node.
const [major, minor] = process.versions.node.split('.').map(Number);
const pinnedNode = path.join(REPO_ROOT, 'node_modules', 'node', 'bin', 'node');
const testNode = major > 22 || (major === 22 && minor >= 18) ? process.execPath : pinnedNode;
if (!existsSync(testNode)) {
  console.error(`e2e: Node ${process.versions.node} cannot run the .ts specs and ${pinnedNode} is missing: run npm ci first.`);
  process.exit(1);
}

const args = process.argv.slice(2);
const files = args.filter((arg) => !arg.startsWith('-'));
const passThrough = args.filter((arg) => arg.startsWith('-'));
const specDir = path.join(REPO_ROOT, 'test', 'e2e');
const specs =
  files.length > 0
    ? files.map((file) => path.resolve(file))
    : readdirSync(specDir)
        .filter((name) => name.endsWith('.e2e.test.ts'))
        .sort()
        .map((name) => path.join(specDir, name));
if (specs.length === 0) {
  console.error(`e2e: no *.e2e.test.ts in ${specDir}`);
  process.exit(1);
}

let vsix;
try {
  console.log('e2e: checking Debian packages (chromium, code-server build packages)');
  await ensureDebianPackages('all');
  assertChromium();
  const codeServer = await ensureCodeServer();
  console.log(
    `e2e: code-server ${codeServer.installedNow ? `installed in ${codeServer.seconds} s` : 'cached'} (${path.relative(REPO_ROOT, codeServer.dir)}) [${seconds()}]`,
  );
  console.log('e2e: npm run package -> dist/gpumem.vsix (log: test-artifacts/package.log)');
  vsix = await buildVsix({ logFile: path.join(artifacts, 'package.log') });
  console.log(`e2e: packaged ${path.relative(REPO_ROOT, vsix)} [${seconds()}]`);
} catch (error) {
  console.error(`e2e: preparation failed, no test can run:\n${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

// One spec file at a time: each scenario runs its own code-server and Chromium, and the machine has 2 cores.
const child = spawn(testNode, ['--test', '--test-concurrency=1', ...passThrough, ...specs], {
  cwd: REPO_ROOT,
  stdio: 'inherit',
  env: { ...process.env, GPUMEM_E2E_VSIX: vsix },
});
const forward = (signal) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
child.on('exit', (code, signal) => {
  console.log(`e2e: finished in ${seconds()}`);
  process.exit(code ?? (signal ? 1 : 0));
});
