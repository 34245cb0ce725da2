// `npm start`: the one-command demo. gpumem, packaged as a user installs it, in a real VS Code
// (code-server) with demo/workspace/ open, served on 127.0.0.1 only.
//   1. Debian packages code-server's native modules build against (root: apt-get; otherwise the
//      exact `sudo apt-get install ...` command is printed)
//   2. `npm ci` when node_modules/ is missing
//   3. code-server 4.139.1 + Node 24 into .cache/ (once, ~2 minutes)
//   4. `npm run package` -> dist/gpumem.vsix, installed into the demo profile .cache/demo-profile/
//   5. the demo cluster: the Kubernetes API simulator with test/simulator/fixtures/ on a free 127.0.0.1
//      port (scripts/demo-cluster.mjs), SIMULATED and labelled so; its kubeconfig .cache/demo-kubeconfig.yaml
//      reaches the extension through KUBECONFIG and the demo profile's settings, never ~/.kube/config
//   6. code-server on 127.0.0.1:<free port or --port>, prints the URL; Ctrl-C stops everything.
// Runs on the Node that npm finds first (plain JavaScript, no dependencies): on a fresh clone that
// may be an older system Node, before the project's pinned Node is installed.
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  REPO_ROOT,
  buildVsix,
  cleanEnv,
  ensureCodeServer,
  ensureDebianPackages,
  installExtension,
  run,
  startCodeServer,
  workbenchUrl,
  writeUserSettings,
} from './e2e/code-server.mjs';
import { DEMO_CONTEXT, isRoot, setKubeconfigSetting, startDemoCluster } from './demo-cluster.mjs';
import { exitOnSignals } from './e2e/processGroups.mjs';

const usage = `Usage: npm start [-- --port <port>] [--no-build] [--folder <dir>] [--no-cluster]
  --port <port>   serve on 127.0.0.1:<port> (default: a free port)
  --no-build      reuse dist/gpumem.vsix instead of running npm run package
  --folder <dir>  open another folder instead of demo/workspace/
  --no-cluster    no simulated demo cluster (the extension then reads KUBECONFIG or ~/.kube/config)`;

function parseArgs(argv) {
  const options = { port: 0, build: true, cluster: true, folder: path.join(REPO_ROOT, 'demo', 'workspace') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      console.log(usage);
      process.exit(0);
    } else if (arg === '--port' || arg.startsWith('--port=')) {
      const value = arg.includes('=') ? arg.slice('--port='.length) : argv[++i];
      const port = Number(value);
      if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`--port needs a port number, got ${value}`);
      options.port = port;
    } else if (arg === '--no-build') {
      options.build = false;
    } else if (arg === '--no-cluster') {
      options.cluster = false;
    } else if (arg === '--folder' || arg.startsWith('--folder=')) {
      const value = arg.includes('=') ? arg.slice('--folder='.length) : argv[++i];
      if (!value) fail('--folder needs a directory');
      options.folder = path.resolve(value);
    } else {
      fail(`unknown argument ${arg}\n${usage}`);
    }
  }
  return options;
}

function fail(message) {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

const step = (text) => console.log(`\n==> ${text}`);

const options = parseArgs(process.argv.slice(2));
let server;
let cluster;
let stopping = false;
async function stopAll() {
  await Promise.all([server?.stop(), cluster?.stop()]);
}
exitOnSignals(async () => {
  stopping = true;
  if (server || cluster) {
    console.log(`\nStopping ${[server && 'code-server', cluster && 'the demo cluster'].filter(Boolean).join(' and ')} ...`);
    await stopAll();
    console.log('Stopped.');
  }
});

try {
  step('Debian packages for code-server');
  await ensureDebianPackages('build');

  if (!existsSync(path.join(REPO_ROOT, 'node_modules', '.package-lock.json'))) {
    step('npm ci (node_modules/ is missing)');
    await run('npm', ['ci', '--foreground-scripts', '--no-audit', '--no-fund'], {
      cwd: REPO_ROOT,
      env: cleanEnv(),
      timeoutMs: 15 * 60_000,
      echo: true,
    });
  }

  step('code-server');
  const codeServer = await ensureCodeServer();
  console.log(`code-server ${codeServer.installedNow ? 'installed' : 'cached'} in ${path.relative(REPO_ROOT, codeServer.dir)}/`);

  const vsix = path.join(REPO_ROOT, 'dist', 'gpumem.vsix');
  if (options.build || !existsSync(vsix)) {
    step('npm run package -> dist/gpumem.vsix');
    await buildVsix({ echo: true });
  }

  step('Installing dist/gpumem.vsix into the demo profile (.cache/demo-profile/)');
  const profile = path.join(REPO_ROOT, '.cache', 'demo-profile');
  const userDataDir = path.join(profile, 'user-data');
  const extensionsDir = path.join(profile, 'extensions');
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  if (!existsSync(settingsFile)) await writeUserSettings(userDataDir);
  await installExtension(codeServer, { vsix, extensionsDir, userDataDir, logFile: path.join(profile, 'install-extension.log') });

  if (!existsSync(options.folder)) fail(`${options.folder} does not exist`);
  const codeServerEnv = {};
  if (options.cluster) {
    step('Demo cluster (Kubernetes API simulator with test/simulator/fixtures/)');
    if (!isRoot()) {
      console.log('Not running as root: the simulator starts with --no-roots. The Clusters view lists its nodes and pods,');
      console.log('but probes over the API (pod exec, node debug pod) fail with "the simulator cannot run commands here".');
    }
    try {
      cluster = await startDemoCluster({ logFile: path.join(profile, 'demo-cluster.log') });
      codeServerEnv.KUBECONFIG = cluster.kubeconfig;
      console.log(
        `Simulator on ${cluster.url} (${cluster.version ?? `no answer to GET /version: ${cluster.versionError}`}), ${cluster.roots ? `with chroot roots: probes over the API run, and a gpumem agent on each fixture node for the Fleet view${cluster.prometheus ? ', scraped by a real Prometheus (monitoring/prometheus-k8s)' : ''}` : 'no roots (--no-roots)'}`,
      );
      console.log(`Kubeconfig ${path.relative(REPO_ROOT, cluster.kubeconfig)}: contexts ${cluster.contexts.join(', ')}`);
    } catch (error) {
      cluster = undefined;
      console.log(`The demo cluster did not start, the demo goes on without it: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // The demo profile's extension reads the demo kubeconfig (the setting, and KUBECONFIG in code-server's
  // environment for its extension host); without a demo cluster the setting is removed again.
  if (!setKubeconfigSetting(settingsFile, cluster?.kubeconfig)) {
    console.log(
      `${path.relative(REPO_ROOT, settingsFile)} is not plain JSON; left as it is${cluster ? ' (KUBECONFIG still points at the demo cluster)' : ''}`,
    );
  }

  step(`Starting code-server with ${path.relative(REPO_ROOT, options.folder) || '.'}/`);
  const logFile = path.join(profile, 'code-server.log');
  server = await startCodeServer(codeServer, {
    folder: options.folder,
    port: options.port,
    userDataDir,
    extensionsDir,
    trustWorkspace: true,
    logFile,
    timeoutMs: 60_000,
    env: codeServerEnv,
  });
} catch (error) {
  await stopAll();
  fail(error instanceof Error ? error.message : String(error));
}

const url = workbenchUrl(server, options.folder);
const clusterLine = cluster
  ? `\n\nDemo cluster (simulated, not a real cluster): ${cluster.url}, context ${DEMO_CONTEXT}
  kubeconfig ${path.relative(REPO_ROOT, cluster.kubeconfig)} (given to code-server; ~/.kube/config is not used), log ${path.relative(REPO_ROOT, cluster.logFile)}`
  : '';
console.log(`
gpumem demo is running (code-server log: ${path.relative(REPO_ROOT, server.logFile)})

    ${url}

Open that URL in a browser on this machine (127.0.0.1 only; forward the port to reach it from elsewhere,
e.g. ssh -L ${server.port}:127.0.0.1:${server.port} <this host>). Press Ctrl-C to stop.${clusterLine}`);

cluster?.exited.then(({ code, signal }) => {
  if (!stopping)
    console.error(
      `The demo cluster exited on its own (code ${code}, signal ${signal}); see ${cluster.logFile}. code-server keeps running.`,
    );
});
const { code, signal } = await server.exited;
if (stopping) await new Promise(() => {}); // the signal handler exits
console.error(`code-server exited on its own (code ${code}, signal ${signal}); see ${server.logFile}`);
stopping = true;
await cluster?.stop();
process.exit(1);
