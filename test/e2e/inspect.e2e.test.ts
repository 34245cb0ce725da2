// End-to-end: the inspection commands of the packaged extension in a real VS Code (code-server
// 4.139.1) driven through headless Chromium:
//   - "Inspect SSH Host…" against a real OpenSSH server on 127.0.0.1 (test/helpers/sshd.ts): the host
//     comes from ~/.ssh/config in the extension host's HOME, the unknown host key is shown in a modal
//     with its SHA256 fingerprint, and the report opens in the inspector panel;
//   - a changed host key is refused, with an error and no report;
//   - "Inspect Local Machine";
//   - "Explain OOM Kills in Selection / File" on a real kernel log.
// Needs root (sshd). Run with `npm run test:e2e -- test/e2e/inspect.e2e.test.ts`.
// Artifacts land in test-artifacts/ (inspect-ssh.png, inspect-local.png, explain-oom.png, …).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { generateKey, startSshd } from '../helpers/sshd.ts';
import type { KeyPair, SshdInstance } from '../helpers/sshd.ts';
import { gpumemLog } from './harness/outputLog.ts';
import { REPO_ROOT } from './harness/paths.ts';
import { withWorkbench } from './harness/session.ts';
import type { WorkbenchSession } from './harness/session.ts';
import {
  focusView,
  openFile,
  openTabs,
  readNotifications,
  readTreeItems,
  runCommand,
  SELECTORS,
  waitFor,
  waitForNotification,
  waitForTreeItem,
  webviewFrame,
} from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 5 * 60_000;
const HOST_ALIAS = 'gpumem-node';
const INSPECT_SSH = 'gpumem: Inspect SSH Host…';
const INSPECT_LOCAL = 'gpumem: Inspect Local Machine';
const EXPLAIN_OOM = 'gpumem: Explain OOM Kills in Selection / File';
/** A real kernel log with a global OOM kill of a pod (provenance in its .source.md). */
const KERNEL_LOG = path.join(REPO_ROOT, 'test', 'fixtures', 'kernel-logs', 'k3s-blog-syslog-global-pod.log');

/** VS Code's modal dialog (showWarningMessage with `modal: true`): the custom dialog of the web workbench. */
const DIALOG = '.monaco-dialog-box';

/** `SHA256:…` of a public key file, as OpenSSH prints it. */
function sshKeygenFingerprint(publicKeyPath: string): string {
  const out = execFileSync('ssh-keygen', ['-lf', publicKeyPath], { encoding: 'utf8' });
  const match = /SHA256:\S+/.exec(out);
  assert.ok(match, `ssh-keygen -lf printed a SHA256 fingerprint: ${out}`);
  return match[0];
}

/** The text of the active webview's document (the Markdown preview), or '' while it loads. */
async function readPreview(page: Page): Promise<string> {
  const body = webviewFrame(page).locator('body');
  return (await body.innerText({ timeout: 2000 })).replace(/\u00a0/g, ' ');
}

/** Waits for the Markdown preview to show every pattern; returns its text. */
async function waitForPreview(page: Page, patterns: RegExp[], timeoutMs: number): Promise<string> {
  return waitFor(
    `the Markdown preview to show ${patterns.join(', ')}`,
    () => readPreview(page),
    (text) => patterns.every((pattern) => pattern.test(text)),
    { timeoutMs, intervalMs: 500 },
  );
}

function quickInputRow(page: Page, label: string): Locator {
  return page
    .locator(SELECTORS.quickInputRow)
    .filter({ has: page.locator('.label-name').getByText(label, { exact: true }) })
    .first();
}

/**
 * Runs a palette command that opens a quick pick of its own, and picks `label` there. (The harness's
 * runCommand waits for the quick input to close, which such a command keeps open.) The palette only
 * lists commands known when it opens, so it reopens until the command shows up.
 */
async function runCommandAndPick(page: Page, title: string, label: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const widget = page.locator(SELECTORS.quickInput);
  const left = () => Math.max(1000, deadline - Date.now());
  for (;;) {
    if (await widget.isVisible()) await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Shift+P');
    await widget.waitFor({ state: 'visible', timeout: left() });
    await page.locator(SELECTORS.quickInputBox).fill(`>${title}`);
    const command = quickInputRow(page, title);
    if (
      await command.waitFor({ state: 'visible', timeout: Math.min(3000, left()) }).then(
        () => true,
        () => false,
      )
    ) {
      await command.click({ timeout: left() });
      break;
    }
    if (Date.now() > deadline) throw new Error(`the command palette does not offer "${title}"`);
  }
  const row = quickInputRow(page, label);
  await row.waitFor({ state: 'visible', timeout: left() }).catch(async (error: unknown) => {
    const rows = await page
      .locator(SELECTORS.quickInputRow)
      .locator('.label-name')
      .allInnerTexts()
      .catch(() => []);
    throw new Error(`"${title}" offered no "${label}"; rows: ${JSON.stringify(rows)}`, { cause: error });
  });
  await row.click({ timeout: left() });
  await widget.waitFor({ state: 'hidden', timeout: left() });
}

/** The workbench's webviews (the Markdown preview is one). */
async function webviewCount(page: Page): Promise<number> {
  return page.locator('iframe.webview').count();
}

interface SshSetup {
  sshd: SshdInstance;
  clientKey: KeyPair;
  /** the HOME given to code-server and the extension host */
  home: string;
  knownHosts: string;
  /** every temp dir made here (the sshd's own is removed by sshd.stop()) */
  cleanup(): Promise<void>;
}

/**
 * A real sshd on 127.0.0.1 that lets root in with a fresh key, and a HOME whose ~/.ssh has that key,
 * a config with `Host gpumem-node` pointing at the server, and `knownHostsContent` as known_hosts.
 */
async function setUpSsh(knownHostsContent: (sshd: SshdInstance, scratch: string) => string): Promise<SshSetup> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'gpumem-e2e-ssh-'));
  let sshd: SshdInstance | undefined;
  try {
    const home = path.join(base, 'home');
    const sshDir = path.join(home, '.ssh');
    const scratch = path.join(base, 'scratch');
    await mkdir(sshDir, { recursive: true, mode: 0o700 });
    await mkdir(scratch, { recursive: true });
    const clientKey = generateKey(sshDir, 'id_gpumem', 'ed25519');
    sshd = await startSshd({ authorizedKeys: [clientKey.publicLine] });
    const knownHosts = path.join(sshDir, 'known_hosts_gpumem');
    await writeFile(knownHosts, knownHostsContent(sshd, scratch), { mode: 0o600 });
    await writeFile(
      path.join(sshDir, 'config'),
      [
        `Host ${HOST_ALIAS}`,
        `  HostName 127.0.0.1`,
        `  Port ${sshd.port}`,
        `  User root`,
        `  IdentityFile ${clientKey.privateKeyPath}`,
        `  UserKnownHostsFile ${knownHosts}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const server = sshd;
    return {
      sshd: server,
      clientKey,
      home,
      knownHosts,
      cleanup: async () => {
        await server.stop();
        await rm(base, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await sshd?.stop();
    await rm(base, { recursive: true, force: true });
    throw error;
  }
}

/** Reveals the gpumem container's SSH Hosts view and waits for the alias from ~/.ssh/config. */
async function showSshHosts(s: WorkbenchSession): Promise<void> {
  await s.step('open the gpumem view (SSH Hosts)', () => focusView(s.page, 'SSH Hosts'));
  const item = await s.step(`the SSH Hosts tree lists ${HOST_ALIAS}`, () =>
    waitForTreeItem(s.page, 'SSH Hosts', new RegExp(`^${HOST_ALIAS}$`)),
  );
  assert.equal(item.description, '~/.ssh/config', `${HOST_ALIAS} comes from ~/.ssh/config: ${JSON.stringify(item)}`);
}

test(
  '"Inspect SSH Host…" against a real local sshd: trust the new host key, the report opens',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    const ssh = await setUpSsh(() => '');
    try {
      const { sshd } = ssh;
      const fingerprint = sshKeygenFingerprint(sshd.hostKey.publicKeyPath);
      const target = `ssh root@127.0.0.1:${sshd.port}`;
      await withWorkbench('inspect-ssh', { fixture: 'single', home: ssh.home, env: { SSH_AUTH_SOCK: '' } }, async (s) => {
        await showSshHosts(s);

        await s.step(
          `run "${INSPECT_SSH}" from the command palette and pick ${HOST_ALIAS}`,
          () => runCommandAndPick(s.page, INSPECT_SSH, HOST_ALIAS, 30_000),
          45_000,
        );

        const dialog = s.page.locator(DIALOG);
        const prompt = await s.step(
          'the unknown-host-key modal appears',
          async () => {
            await dialog.waitFor({ state: 'visible', timeout: 30_000 });
            return (await dialog.innerText()).trim();
          },
          45_000,
        );
        assert.match(prompt, /authenticity of host/, `the modal: ${prompt}`);
        assert.ok(prompt.includes(`[127.0.0.1]:${sshd.port}`), `the modal names the host [127.0.0.1]:${sshd.port}: ${prompt}`);
        assert.ok(prompt.includes(fingerprint), `the modal shows the host key's fingerprint ${fingerprint} (ssh-keygen -lf): ${prompt}`);
        assert.match(prompt, /ssh-ed25519/, `the modal names the key type: ${prompt}`);
        assert.equal(await readFile(ssh.knownHosts, 'utf8'), '', 'nothing is written to known_hosts before the user answers');
        await s.screenshot('trust-prompt');

        await s.step('click "Trust and Connect"', async () => {
          await dialog.getByRole('button', { name: 'Trust and Connect', exact: true }).click({ timeout: 10_000 });
          await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
        });

        const report = await s.step(
          'the inspector shows the SSH report',
          () =>
            waitForPreview(
              s.page,
              [
                new RegExp(`gpumem inspection: ${target.replace(/\./g, '\\.')}`),
                /Memory accounting/,
                /Kernel, driver and dmem/,
                /OOM timeline/,
              ],
              120_000,
            ),
          150_000,
        );
        assert.doesNotMatch(report, /Capture problems[\s\S]*host key/i, 'the capture has no host-key problem');

        const known = await readFile(ssh.knownHosts, 'utf8');
        assert.ok(
          known.split('\n').some((line) => line.trim() === sshd.knownHostsLine),
          `known_hosts has the host's key line "${sshd.knownHostsLine}": ${JSON.stringify(known)}`,
        );
        const errors = (await readNotifications(s.page)).filter((text) => /failed/i.test(text));
        assert.deepEqual(errors, [], 'no error notification');
        // The end state (test-artifacts/inspect-ssh.png) is the report.
      });
    } finally {
      await ssh.cleanup();
    }
  },
);

test('"Inspect SSH Host…" refuses a changed host key: an error, no prompt, no report', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  let otherKey: KeyPair | undefined;
  const ssh = await setUpSsh((sshd, scratch) => {
    otherKey = generateKey(scratch, 'other_host_key', 'ed25519', '', 'not-the-server');
    return `[127.0.0.1]:${sshd.port} ${otherKey.type} ${otherKey.base64}\n`;
  });
  try {
    const { sshd } = ssh;
    assert.ok(otherKey);
    const serverFingerprint = sshKeygenFingerprint(sshd.hostKey.publicKeyPath);
    const knownFingerprint = sshKeygenFingerprint(otherKey.publicKeyPath);
    assert.notEqual(serverFingerprint, knownFingerprint);
    const knownBefore = await readFile(ssh.knownHosts, 'utf8');
    await withWorkbench('ssh-changed-host-key', { fixture: 'single', home: ssh.home, env: { SSH_AUTH_SOCK: '' } }, async (s) => {
      await showSshHosts(s);
      // This time through the tree: a click on the host runs "Inspect SSH Host…" for it.
      await s.step(`click ${HOST_ALIAS} in the SSH Hosts view`, async () => {
        await readTreeItems(s.page, 'SSH Hosts');
        await s.page
          .locator('.pane-body .monaco-list-row[role="treeitem"]')
          .filter({ has: s.page.locator('.label-name').getByText(HOST_ALIAS, { exact: true }) })
          .first()
          .click();
      });

      const message = await s.step(
        'an error notification about the changed host key',
        () => waitForNotification(s.page, /host key .* CHANGED/, { timeoutMs: 45_000 }),
        60_000,
      );
      assert.match(message, /failed/, message);
      assert.ok(message.includes(`[127.0.0.1]:${sshd.port}`), `the error names the host: ${message}`);
      assert.ok(message.includes(serverFingerprint), `the error shows the server's key ${serverFingerprint}: ${message}`);
      assert.ok(message.includes(knownFingerprint), `the error shows the known key ${knownFingerprint}: ${message}`);
      assert.match(message, /refusing to connect/, message);
      await s.step('expand the error toast (for the screenshot)', async () => {
        const toast = s.page.locator('.notifications-toasts .notification-list-item').filter({ hasText: 'CHANGED' }).first();
        await toast.hover();
        const expand = toast.locator('.codicon-notifications-expand');
        if (await expand.isVisible()) await expand.click();
      });

      // Give a report that should not come a moment to appear anyway.
      await s.page.waitForTimeout(2000);
      assert.equal(await s.page.locator(DIALOG).isVisible(), false, 'no trust prompt for a changed key');
      assert.equal(await webviewCount(s.page), 0, 'no report (Markdown preview) opened');
      assert.ok(
        !(await openTabs(s.page)).some((tab) => /Preview|Untitled/.test(tab)),
        `no report tab: ${JSON.stringify(await openTabs(s.page))}`,
      );
      assert.equal(await readFile(ssh.knownHosts, 'utf8'), knownBefore, 'known_hosts is left alone');
      assert.doesNotMatch(sshd.log(), /Accepted publickey/, 'the client never authenticated');
    });
  } finally {
    await ssh.cleanup();
  }
});

test('"Inspect Local Machine": the report opens in the inspector', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  await withWorkbench('inspect-local', { fixture: 'single' }, async (s) => {
    await s.step(`run "${INSPECT_LOCAL}" from the command palette`, () => runCommand(s.page, INSPECT_LOCAL));
    const report = await s.step(
      'the inspector shows the local report',
      () => waitForPreview(s.page, [/gpumem inspection: local/, /Memory accounting/, /Kernel, driver and dmem/, /OOM timeline/], 120_000),
      150_000,
    );
    assert.match(
      report,
      new RegExp(`Kernel\\s+${os.release().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      "the report shows this machine's kernel",
    );
    // Light activation (issue 16): the inspector came with dist/inspect.js, loaded by this command; Kubernetes
    // and SSH (dist/remote.js) were not needed.
    const log = await s.step('the gpumem output names the bundle the command loaded', () =>
      waitFor(
        'the inspect.js line',
        () => gpumemLog(s),
        (text) => /loaded inspect\.js \(inspector, local inspection\) in \d+ ms, first used by command gpumem\.inspectLocal$/m.test(text),
        { timeoutMs: 20_000 },
      ),
    );
    assert.doesNotMatch(log, /loaded remote\.js/, 'Inspect Local Machine did not load dist/remote.js');
  });
});

test('"Explain OOM Kills in Selection / File" on a kernel log: a global kill explained', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
  await withWorkbench('explain-oom', { fixture: 'single' }, async (s) => {
    await s.step('put a real kernel log into the workspace as kern.log', () => copyFile(KERNEL_LOG, s.file('kern.log')));
    await s.step('open kern.log with Quick Open', () => openFile(s.page, 'kern.log', { timeoutMs: 30_000 }), 45_000);
    await s.step(`run "${EXPLAIN_OOM}" from the command palette`, () => runCommand(s.page, EXPLAIN_OOM));
    const report = await s.step(
      'the Markdown preview explains the kill',
      () =>
        waitForPreview(
          s.page,
          [/OOM kills explained: kern\.log/, /1 global/, /The node ran out of memory and the kernel killed entry \(pid 19227\)/],
          60_000,
        ),
      90_000,
    );
    assert.match(report, /under its own memory limit/, 'the verdict says the pod was under its own limit');
    assert.match(report, /Remedy/);
  });
});
