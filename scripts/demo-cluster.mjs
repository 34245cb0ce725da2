// The "demo cluster" of `npm start`: the Kubernetes API simulator (test/simulator/main.ts) serving the repo's
// cluster fixtures (test/simulator/fixtures/) on a free 127.0.0.1 port. It is SIMULATED, not a real cluster;
// its kubeconfig goes to .cache/demo-kubeconfig.yaml (context `gpumem-demo`, labelled as simulated in a
// comment at its top) and the demo's code-server gets it through KUBECONFIG and the user settings of the demo
// profile. The user's ~/.kube/config is never read for it nor written.
//
// - As root, the simulator builds chroot roots, so probes over the API (pod exec, node debug pod) really run,
//   and runs a gpumem agent on each fixture node (--agents), which the Fleet view reads through the pod proxy,
//   and, when Debian's prometheus is installed, a real Prometheus scraping them (--prometheus), which the Fleet
//   view finds as the cluster's monitoring/prometheus-k8s service and reads with PromQL.
//   Otherwise it runs with --no-roots: listing works, and an exec answers "the simulator cannot run commands
//   here: roots are disabled for this simulator".
// - stop() sends SIGTERM to the simulator, which ends its execs, unmounts the debug pods' /host binds and
//   removes its roots and keys (test/simulator/main.ts); SIGKILL to its process group after 8 s. The
//   kubeconfig is removed too: its keys die with the simulator.
//
// Plain JavaScript, like scripts/start.mjs. The simulator itself is TypeScript, run by the project's pinned
// Node (node_modules/node, installed by `npm ci`), which strips the types.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { request } from 'node:https';
import path from 'node:path';
import { REPO_ROOT, cleanEnv } from './e2e/code-server.mjs';
import { startServerProcess, withLogTail } from './e2e/serverProcess.mjs';

export const DEMO_CONTEXT = 'gpumem-demo';
export const DEMO_KUBECONFIG = path.join(REPO_ROOT, '.cache', 'demo-kubeconfig.yaml');
export const DEMO_FIXTURES = path.join(REPO_ROOT, 'test', 'simulator', 'fixtures');
/** The extension's kubeconfig-path setting (package.json). */
export const KUBECONFIG_SETTING = 'gpumem.kubeconfig';

const SIMULATOR = path.join(REPO_ROOT, 'test', 'simulator', 'main.ts');
// Agents and Prometheus included: the simulator prints its address once Prometheus has scraped every agent.
const START_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 8_000;

export const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Debian's prometheus package is installed (the demo's Prometheus is optional). */
const hasPrometheus = () => spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0;

/** A Node that runs TypeScript (type stripping, Node ≥ 22.18): the project's pinned one, else this one. */
function simulatorNode() {
  const pinned = path.join(REPO_ROOT, 'node_modules', 'node', 'bin', 'node');
  if (existsSync(pinned)) return pinned;
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 18)) return process.execPath;
  throw new Error(`the simulator needs Node ≥ 22.18 (npm ci installs it into node_modules/node); this is ${process.version}`);
}

/**
 * @typedef {object} DemoCluster
 * @property {string} url           https://127.0.0.1:<port>
 * @property {string} kubeconfig    the kubeconfig file
 * @property {string[]} contexts    gpumem-demo first
 * @property {boolean} roots        whether execs really run (chroot roots)
 * @property {boolean} prometheus   whether a Prometheus scrapes the demo's agents (monitoring/prometheus-k8s)
 * @property {string} logFile
 * @property {string | undefined} version  /version gitVersion, asked with the kubeconfig's credentials
 * @property {string | undefined} versionError  why GET /version failed, when it did
 * @property {Promise<{code: number | null, signal: string | null}>} exited
 * @property {() => Promise<void>} stop
 */

/**
 * Starts the simulator and resolves once it listens and its kubeconfig is written.
 * @param {{roots?: boolean, prometheus?: boolean, kubeconfig?: string, fixtures?: string, logFile: string}} options
 * @returns {Promise<DemoCluster>}
 */
export async function startDemoCluster(options) {
  const roots = options.roots ?? isRoot();
  const prometheus = roots && (options.prometheus ?? hasPrometheus());
  const kubeconfig = options.kubeconfig ?? DEMO_KUBECONFIG;
  await mkdir(path.dirname(kubeconfig), { recursive: true });
  await mkdir(path.dirname(options.logFile), { recursive: true });
  rmSync(kubeconfig, { force: true }); // a stale one would name a dead port and keys
  const args = [
    SIMULATOR,
    '--fixtures',
    options.fixtures ?? DEMO_FIXTURES,
    '--write-kubeconfig',
    kubeconfig,
    // With roots, a real gpumem agent runs on each fixture node, behind the pod proxy: the Fleet view reads them,
    // through a real Prometheus (found as the cluster's monitoring/prometheus-k8s) when Debian's package is here.
    ...(roots ? ['--agents'] : ['--no-roots']),
    ...(prometheus ? ['--prometheus'] : []),
  ];
  const server = await startServerProcess({
    label: 'demo cluster simulator',
    command: simulatorNode(),
    args,
    cwd: REPO_ROOT,
    env: cleanEnv(),
    logFile: options.logFile,
    listening: /listening on (https:\/\/127\.0\.0\.1:\d+)/,
    timeoutMs: START_TIMEOUT_MS,
    graceMs: STOP_GRACE_MS,
    // The simulator alone first: it stops its execs and unmounts before it exits.
    terminate: 'leader',
  });
  const url = server.address;
  const { output } = server;
  let stopped;
  const stop = () => {
    stopped ??= server.stop().then(() => rmSync(kubeconfig, { force: true }));
    return stopped;
  };
  if (!existsSync(kubeconfig)) {
    await stop();
    throw withLogTail(new Error(`the simulator listens but did not write ${kubeconfig}`), options.logFile, output());
  }

  try {
    const text = readFileSync(kubeconfig, 'utf8');
    // `yaml` is a dependency of the extension: there by now (npm ci ran before), not when start.mjs loads.
    const { parse } = await import('yaml');
    const config = parse(text);
    const contexts = (config.contexts ?? []).map((c) => c.name);
    const header = [
      '# gpumem DEMO CLUSTER: SIMULATED, NOT A REAL CLUSTER.',
      `# The Kubernetes API simulator (test/simulator/) that \`npm start\` runs on ${url}, serving the fixtures of`,
      '# test/simulator/fixtures/. Its keys are throwaway ones; this file is removed when `npm start` stops.',
      `# Context ${DEMO_CONTEXT} is its admin; the ${DEMO_CONTEXT}-<user> contexts are users with fewer rights (RBAC).`,
      '',
    ].join('\n');
    writeFileSync(kubeconfig, `${header}${text}`, { mode: 0o600 });

    const version = await getVersion(config, url).then(
      (gitVersion) => ({ gitVersion, versionError: undefined }),
      (error) => ({ gitVersion: undefined, versionError: error instanceof Error ? error.message : String(error) }),
    );
    return {
      url,
      kubeconfig,
      contexts: contexts.length > 0 ? contexts : [DEMO_CONTEXT],
      roots,
      prometheus,
      logFile: options.logFile,
      version: version.gitVersion,
      versionError: version.versionError,
      exited: server.exited,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** GET /version with the CA and the first user's client certificate of the kubeconfig (a self-check). */
function getVersion(config, url) {
  const data = (value) => (value ? Buffer.from(value, 'base64') : undefined);
  const user = config.users?.[0]?.user ?? {};
  const ca = data(config.clusters?.[0]?.cluster?.['certificate-authority-data']);
  const cert = data(user['client-certificate-data']);
  const key = data(user['client-key-data']);
  return new Promise((resolve, reject) => {
    const req = request(new URL('/version', url), { ca, cert, key, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${body.slice(0, 200)}`));
        try {
          resolve(JSON.parse(body).gitVersion);
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Points the demo profile's user settings at `kubeconfig` (or removes the setting when undefined). Returns
 * false when settings.json is not plain JSON (a hand-edited file with comments): it is left alone then, and
 * KUBECONFIG in code-server's environment still points the extension at the demo cluster.
 */
export function setKubeconfigSetting(settingsFile, kubeconfig) {
  let settings = {};
  if (existsSync(settingsFile)) {
    try {
      settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    } catch {
      return false;
    }
    if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) return false;
  }
  if (kubeconfig === undefined) delete settings[KUBECONFIG_SETTING];
  else settings[KUBECONFIG_SETTING] = kubeconfig;
  writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
  return true;
}
