// One end-to-end scenario = one isolated code-server + one headless Chromium:
//   prepare()       code-server in .cache/ (installed once) and the packaged dist/gpumem.vsix
//   withWorkbench() copies a fixture workspace to a temp dir, installs the .vsix into an isolated
//                   extensions dir, starts code-server on 127.0.0.1, opens the folder in Chromium,
//                   runs the scenario step by step, and always stops what it started.
// Artifacts (test-artifacts/): <scenario>.png and other screenshots the scenario takes,
// <scenario>-FAILED.png on failure, <scenario>-code-server.log, <scenario>-browser.log and
// <scenario>-logs/ (VS Code's logs: extension host, the extension's output channels).
import { cp, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createWriteStream, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserServer, Page } from 'playwright-core';
import {
  assertChromium,
  buildVsix,
  ensureCodeServer,
  ensureDebianPackages,
  installExtension,
  startCodeServer,
  workbenchUrl,
  writeUserSettings,
} from '../../../scripts/e2e/code-server.mjs';
import { exitOnSignals, killGroup } from '../../../scripts/e2e/processGroups.mjs';
import type { CodeServerInstall, RunningCodeServer } from '../../../scripts/e2e/code-server.mjs';
import { ARTIFACTS_DIR, FIXTURES_DIR, REPO_ROOT } from './paths.ts';
import { screenshot, waitForWorkbench } from './workbench.ts';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

// A test process stopped by a signal still runs its 'exit' hooks: code-server's process groups are
// killed there (code-server.mjs), Chromium's here.
const liveChromiumGroups = new Set<number>();
const liveTempDirs = new Set<string>();
process.on('exit', () => {
  for (const pid of liveChromiumGroups) killGroup(pid, 'SIGKILL');
  if (!process.env.GPUMEM_E2E_KEEP) for (const dir of liveTempDirs) rmSync(dir, { recursive: true, force: true });
});
exitOnSignals();

export interface Prepared {
  codeServer: CodeServerInstall;
  vsix: string;
  chromium: string;
}

let preparing: Promise<Prepared> | undefined;

/**
 * Once per process: Debian packages (when root), code-server (cached in .cache/), the .vsix.
 * scripts/e2e/run-e2e.mjs does this before the test processes start and passes the .vsix in
 * GPUMEM_E2E_VSIX; a spec file run on its own builds it here.
 */
export function prepare(): Promise<Prepared> {
  preparing ??= (async () => {
    await ensureDebianPackages('all', (line) => console.log(line));
    const chromiumPath = assertChromium();
    const codeServer = await ensureCodeServer({ log: (line) => console.log(line) });
    let vsix = process.env.GPUMEM_E2E_VSIX;
    if (!vsix) {
      await mkdir(ARTIFACTS_DIR, { recursive: true });
      vsix = await buildVsix({ logFile: path.join(ARTIFACTS_DIR, 'package.log') });
    }
    return { codeServer, vsix, chromium: chromiumPath };
  })();
  return preparing;
}

export interface WorkbenchOptions {
  /** folder under test/e2e/fixtures/ copied as the workspace */
  fixture: string;
  /** false: no --disable-workspace-trust, the folder opens in Restricted Mode */
  trusted?: boolean;
  /** extra user settings */
  settings?: Record<string, unknown>;
  viewport?: { width: number; height: number };
  /**
   * HOME of code-server and the extension host: by default an empty folder in the session dir, so
   * that nothing of the machine's ~/.ssh, ~/.kube or ~/.config leaks into a test. Tests can fill it
   * (`session.home`) or pass their own.
   */
  home?: string;
  /** more environment variables for code-server and the extension host */
  env?: Record<string, string>;
}

export interface WorkbenchSession {
  scenario: string;
  page: Page;
  server: RunningCodeServer;
  /** the temp copy of the fixture that the window has open */
  workspace: string;
  /** HOME of code-server and the extension host */
  home: string;
  /** absolute path of a workspace file */
  file(relative: string): string;
  /** runs one named step with a timeout; a failure names the step */
  step<T>(name: string, body: () => Promise<T>, timeoutMs?: number): Promise<T>;
  /** test-artifacts/<scenario>[-<suffix>].png */
  screenshot(suffix?: string): Promise<string>;
}

class StepError extends Error {
  override name = 'StepError';
}

async function withTimeout<T>(what: string, timeoutMs: number, body: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([body(), timeout]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new StepError(`Step "${what}" failed: ${message}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** Copies VS Code's log files (extension host, output channels) out of the profile. */
async function collectLogs(userDataDir: string, target: string): Promise<void> {
  const logsRoot = path.join(userDataDir, 'logs');
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith('.log')) found.push(full);
    }
  };
  await walk(logsRoot);
  if (found.length === 0) return;
  await rm(target, { recursive: true, force: true });
  for (const file of found) {
    const relative = path.relative(logsRoot, file).split(path.sep).slice(1).join('__');
    await mkdir(target, { recursive: true });
    await cp(file, path.join(target, relative || path.basename(file)));
  }
}

/**
 * Runs `body` against a fresh workbench and tears everything down afterwards, pass or fail.
 * On failure the error names the step, and test-artifacts/ keeps a screenshot and the logs.
 */
export async function withWorkbench(
  scenario: string,
  options: WorkbenchOptions,
  body: (session: WorkbenchSession) => Promise<void>,
): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  // Artifacts of an earlier run of this scenario would be mistaken for this run's.
  for (const name of await readdir(ARTIFACTS_DIR)) {
    if (name === `${scenario}.png` || name.startsWith(`${scenario}-`))
      await rm(path.join(ARTIFACTS_DIR, name), { recursive: true, force: true });
  }
  const base = await mkdtemp(path.join(os.tmpdir(), 'gpumem-e2e-'));
  liveTempDirs.add(base);
  const workspace = path.join(base, 'workspace');
  const userDataDir = path.join(base, 'profile', 'user-data');
  const extensionsDir = path.join(base, 'profile', 'extensions');
  const home = options.home ?? path.join(base, 'home');
  const codeServerLog = path.join(ARTIFACTS_DIR, `${scenario}-code-server.log`);
  const browserLog = createWriteStream(path.join(ARTIFACTS_DIR, `${scenario}-browser.log`), { flags: 'w' });
  let server: RunningCodeServer | undefined;
  let browserServer: BrowserServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let currentStep = 'prepare';

  const step = async <T>(name: string, run: () => Promise<T>, timeoutMs = 60_000): Promise<T> => {
    currentStep = name;
    const started = Date.now();
    const result = await withTimeout(name, timeoutMs, run);
    browserLog.write(`[harness] step "${name}" ok in ${Date.now() - started} ms\n`);
    currentStep = `after step "${name}"`;
    return result;
  };

  try {
    const prepared = await step('prepare code-server and the .vsix', () => prepare(), 20 * 60_000);
    await step('copy the fixture workspace', async () => {
      const source = path.join(FIXTURES_DIR, options.fixture);
      await stat(source);
      await cp(source, workspace, { recursive: true });
      await mkdir(home, { recursive: true });
    });
    await step(
      'install the .vsix into an isolated extensions dir',
      async () => {
        // No sticky scroll: it overlays the editor's first lines in screenshots.
        await writeUserSettings(userDataDir, { 'editor.stickyScroll.enabled': false, ...options.settings });
        await installExtension(prepared.codeServer, {
          vsix: prepared.vsix,
          extensionsDir,
          userDataDir,
          logFile: path.join(ARTIFACTS_DIR, `${scenario}-install-extension.log`),
          timeoutMs: 120_000,
        });
      },
      150_000,
    );
    server = await step(
      'start code-server',
      () =>
        startCodeServer(prepared.codeServer, {
          folder: workspace,
          userDataDir,
          extensionsDir,
          trustWorkspace: options.trusted !== false,
          logFile: codeServerLog,
          timeoutMs: 60_000,
          env: { HOME: home, ...options.env },
        }),
      90_000,
    );
    const running = server;
    const chromiumTmp = path.join(base, 'chromium-tmp');
    await mkdir(chromiumTmp, { recursive: true });
    browserServer = await step(
      'launch Chromium',
      () =>
        chromium.launchServer({
          executablePath: prepared.chromium,
          headless: true,
          args: CHROMIUM_ARGS,
          // Keeps Chromium's crash-report folder out of $HOME and its temp files in the session dir.
          env: {
            ...process.env,
            XDG_CONFIG_HOME: path.join(base, 'chromium-config'),
            XDG_CACHE_HOME: path.join(base, 'chromium-cache'),
            TMPDIR: chromiumTmp,
          },
          timeout: 60_000,
        }),
      90_000,
    );
    const chromiumPid = browserServer.process().pid;
    if (chromiumPid) liveChromiumGroups.add(chromiumPid);
    const endpoint = browserServer.wsEndpoint();
    browser = await step('connect to Chromium', () => chromium.connect(endpoint, { timeout: 30_000 }));
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1400, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('console', (message) => browserLog.write(`[console.${message.type()}] ${message.text()}\n`));
    page.on('pageerror', (error) => browserLog.write(`[pageerror] ${error.stack ?? error.message}\n`));
    const opened = page;
    await step(
      'load the workbench',
      async () => {
        await opened.goto(workbenchUrl(running, workspace), { timeout: 60_000 });
        await waitForWorkbench(opened, { timeoutMs: 60_000 });
      },
      90_000,
    );

    const session: WorkbenchSession = {
      scenario,
      page: opened,
      server: running,
      workspace,
      home,
      file: (relative) => path.join(workspace, relative),
      step,
      screenshot: (suffix) => screenshot(opened, suffix ? `${scenario}-${suffix}` : scenario),
    };
    await body(session);
    currentStep = 'final screenshot';
    await screenshot(opened, scenario);
  } catch (error) {
    if (page) await screenshot(page, `${scenario}-FAILED`).catch(() => undefined);
    await writeFile(
      path.join(ARTIFACTS_DIR, `${scenario}-FAILED.txt`),
      `${currentStep}\n${error instanceof Error ? error.stack : String(error)}\n`,
    ).catch(() => undefined);
    const message =
      error instanceof StepError
        ? error.message
        : `Failed ${currentStep.startsWith('after') ? currentStep : `in step "${currentStep}"`}: ${error instanceof Error ? error.message : String(error)}`;
    throw new Error(
      `[${scenario}] ${message}\n  artifacts: ${path.relative(REPO_ROOT, ARTIFACTS_DIR)}/${scenario}-FAILED.png, ${path.relative(REPO_ROOT, codeServerLog)}, ${scenario}-logs/`,
      { cause: error },
    );
  } finally {
    // Browser first (it holds websockets to the server), then the server, each bounded in time.
    const teardown = Date.now();
    if (browser) await withTimeout('close the browser connection', 10_000, () => browser!.close()).catch(() => undefined);
    if (browserServer) {
      const chromiumProcess = browserServer.process();
      await withTimeout('close Chromium', 10_000, () => browserServer!.close()).catch(() => undefined);
      // Chromium runs in its own process group; make sure nothing of it is left.
      killGroup(chromiumProcess.pid, 'SIGKILL');
      if (chromiumProcess.pid) liveChromiumGroups.delete(chromiumProcess.pid);
    }
    const browserClosed = Date.now();
    if (server) await withTimeout('stop code-server', 15_000, () => server!.stop()).catch(() => undefined);
    browserLog.write(`[harness] teardown: browser ${browserClosed - teardown} ms, code-server ${Date.now() - browserClosed} ms\n`);
    await collectLogs(userDataDir, path.join(ARTIFACTS_DIR, `${scenario}-logs`)).catch(() => undefined);
    if (!process.env.GPUMEM_E2E_KEEP) {
      await rm(base, { recursive: true, force: true }).catch(() => undefined);
      liveTempDirs.delete(base);
    } else {
      console.log(`[${scenario}] kept ${base}`);
    }
    await new Promise((resolve) => browserLog.end(resolve));
  }
}
