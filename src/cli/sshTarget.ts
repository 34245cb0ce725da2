// Turns the CLI's --ssh destination into an SSH transport through ~/.ssh/config, as OpenSSH would.
// An unknown host key is refused unless --accept-new; a changed key is always refused (by the transport).
import type { Transport } from '../core/probe/transport.ts';
import { SshTransport } from '../transports/ssh.ts';
import { defaultSshEnv, readUserSshConfig, sshSettingsFromConfig } from '../transports/sshUserConfig.ts';
import { UsageError } from './args.ts';
import type { CliIo } from './io.ts';

export interface SshTargetOptions {
  readonly identityFile?: string;
  readonly knownHostsFile?: string;
  readonly acceptNew: boolean;
  readonly timeoutMs: number;
  readonly io: CliIo;
}

export async function openSshTransport(destination: string, options: SshTargetOptions): Promise<Transport> {
  const env = defaultSshEnv();
  const config = readUserSshConfig(env);
  let resolved;
  try {
    resolved = sshSettingsFromConfig(destination, config.text, env, config.resolve, options.identityFile ? [options.identityFile] : []);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const warning of resolved.warnings) options.io.stderr(`gpumem: ${config.path}: ${warning}\n`);
  const { settings } = resolved;
  return new SshTransport({
    ...settings,
    ...(options.knownHostsFile ? { knownHostsFiles: [options.knownHostsFile] } : {}),
    // The CLI cannot ask: 'ask' becomes a refusal; the user's own accept-new or no in ~/.ssh/config is honoured.
    strictHostKeyChecking: options.acceptNew ? 'accept-new' : settings.strictHostKeyChecking === 'no' || settings.strictHostKeyChecking === 'accept-new' ? settings.strictHostKeyChecking : 'yes',
    connectTimeoutMs: Math.min(options.timeoutMs, settings.connectTimeoutMs ?? 20_000),
    log: (line) => options.io.stderr(`gpumem ssh: ${line}\n`),
  });
}
