// "Inspect SSH Host…": the node probe over SSH. Unknown host keys are shown to the user to accept;
// changed keys are refused by the transport; passphrases are asked, never stored or logged.
import * as vscode from 'vscode';
import type { SshTransport } from '../../transports/ssh.ts';
import { sshTransportFromConfig } from '../../transports/sshFromConfig.ts';
import type { SshFromConfigOptions } from '../../transports/sshFromConfig.ts';
import type { Ctx } from '../ctx.ts';
import { reportError, showFailure } from '../messages.ts';
import type { SshHostItem } from '../sshHosts.ts';
import { configuredSshHosts } from '../sshHosts.ts';
import { requireTrust } from '../trust.ts';
import { runInspection } from '../inspectionRun/run.ts';

async function pickDestination(ctx: Ctx): Promise<string | undefined> {
  const hosts = configuredSshHosts(ctx.settings);
  const enter = { label: '$(add) Enter a host…', destination: '' };
  const picked = await vscode.window.showQuickPick(
    [
      ...hosts.map((host) => ({
        label: host.destination,
        description: host.source.kind === 'setting' ? 'gpumem.ssh.hosts' : '~/.ssh/config',
        destination: host.destination,
      })),
      enter,
    ],
    { placeHolder: 'SSH host to inspect (the node probe runs read-only, as the SSH user)' },
  );
  if (!picked) return undefined;
  if (picked !== enter) return picked.destination;
  return vscode.window.showInputBox({
    prompt: 'SSH destination: [user@]host[:port] or a Host alias from ~/.ssh/config',
    placeHolder: 'root@gpu-node-1',
    validateInput: (value) => (/^[A-Za-z0-9._@:[\]-]+$/.test(value.trim()) ? undefined : 'Use [user@]host[:port]'),
  });
}

/**
 * How VS Code reaches an SSH destination (Inspect SSH Host…, and Inspect Node with nodeProbe "ssh"): the user's
 * ~/.ssh/config, unknown host keys asked in a modal unless the config's StrictHostKeyChecking decides (yes
 * refuses; accept-new and no accept, with a warning naming the config entry, shown and logged), passphrases
 * asked, never stored or logged; changed and revoked keys are refused by the transport.
 */
export function vscodeSshOptions(ctx: Ctx): SshFromConfigOptions {
  return {
    // The config decides (ask: the modal below); a changed or revoked key is refused by the transport whatever the answer.
    hostKeyPolicy: () => ({ kind: 'from-config' }),
    hostKeyAcceptedByConfig: (message) => {
      void showFailure(ctx.output, message, 'warning');
    },
    confirmUnknownHost: async (host, keyType, fingerprint) => {
      const trust = 'Trust and Connect';
      const answer = await vscode.window.showWarningMessage(
        `The authenticity of host "${host}" can't be established.`,
        {
          modal: true,
          detail: `${keyType} key fingerprint is ${fingerprint}.\nCompare it with the host's key (ssh-keygen -lf /etc/ssh/ssh_host_${keyType.replace(/^ssh-/, '').replace(/-.*/, '')}_key.pub on the host) before trusting it. It will be added to your known_hosts.`,
        },
        trust,
      );
      return answer === trust;
    },
    passphrase: (keyFile, attempt) =>
      Promise.resolve(
        vscode.window.showInputBox({
          prompt: `Passphrase for ${keyFile}${attempt > 1 ? ` (attempt ${attempt})` : ''}`,
          password: true,
          ignoreFocusOut: true,
        }),
      ),
    log: (line) => ctx.output.info(`ssh: ${line}`),
    warn: (line) => ctx.output.warn(line),
  };
}

/** An SSH transport to `destination` (see vscodeSshOptions). Throws when the destination or the config is invalid. */
export function createSshTransport(ctx: Ctx, destination: string): SshTransport {
  return sshTransportFromConfig(destination, vscodeSshOptions(ctx));
}

export async function inspectSshHost(ctx: Ctx, item?: SshHostItem): Promise<void> {
  if (!requireTrust('Inspect SSH Host')) return;
  const destination = item?.destination ?? (await pickDestination(ctx));
  if (!destination) return;
  let transport: SshTransport;
  try {
    transport = createSshTransport(ctx, destination);
  } catch (error) {
    reportError(ctx.output, `Inspect SSH Host ${destination}`, error);
    return;
  }
  await runInspection(ctx, transport, `Inspecting ${transport.target}`, { liveSampling: true });
}
