// The CLI's SSH options (-i, --known-hosts, --accept-new, --timeout) as the options of an SSH transport built
// from ~/.ssh/config as OpenSSH would (src/transports/sshFromConfig.ts), for --ssh and --node-probe ssh.
// The CLI cannot ask: an unknown host key is refused unless --accept-new or the user's own ssh config says
// accept-new or no (OpenSSH's meaning for new keys); a key trusted because of the config is announced on
// stderr with the config entry (file:line, Host block). A changed or revoked key is always refused (by the
// transport), under StrictHostKeyChecking no too.
import type { StrictHostKeyChecking } from '../transports/sshConfig.ts';
import type { HostKeyPolicy } from '../transports/sshFromConfig.ts';
import type { SshTransport } from '../transports/ssh.ts';
import { sshTransportFromConfig } from '../transports/sshFromConfig.ts';
import type { SshFromConfigOptions } from '../transports/sshFromConfig.ts';
import { UsageError } from './args.ts';
import type { CliIo } from './io.ts';

export interface CliSshFlags {
  readonly identityFile: string | undefined;
  readonly knownHostsFile: string | undefined;
  readonly acceptNew: boolean;
  readonly timeoutMs: number;
  readonly io: CliIo;
}

export function cliSshOptions(flags: CliSshFlags): SshFromConfigOptions {
  const policy = (configured: StrictHostKeyChecking): HostKeyPolicy => {
    if (flags.acceptNew) return { kind: 'override', policy: 'accept-new' };
    if (configured === 'no' || configured === 'accept-new' || configured === 'yes') return { kind: 'from-config' };
    return { kind: 'override', policy: 'yes' }; // 'ask', and the CLI cannot ask
  };
  return {
    ...(flags.identityFile !== undefined ? { extraIdentityFiles: [flags.identityFile] } : {}),
    ...(flags.knownHostsFile !== undefined ? { knownHostsFiles: [flags.knownHostsFile] } : {}),
    hostKeyPolicy: policy,
    hostKeyAcceptedByConfig: (message) => flags.io.stderr(`gpumem: ${message}\n`),
    connectTimeoutMs: Math.min(flags.timeoutMs, 20_000),
    log: (line) => flags.io.stderr(`gpumem ssh: ${line}\n`),
    warn: (line) => flags.io.stderr(`gpumem: ${line}\n`),
  };
}

/** A destination that is not `[user@]host[:port]` or an alias is a usage error. */
export function openSshTransport(destination: string, options: SshFromConfigOptions): SshTransport {
  try {
    return sshTransportFromConfig(destination, options);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
