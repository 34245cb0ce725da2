// An SSH transport to a destination as OpenSSH would reach it: HostName, User, Port, IdentityFile,
// ProxyJump, known_hosts files and StrictHostKeyChecking from the user's ssh config (~/.ssh/config by
// default, or a config given as text, for tests). The front ends differ only in how an unknown host key is
// decided, so they pass that policy and the prompts in: VS Code asks in a modal (Inspect SSH Host…,
// Inspect Node over SSH), the CLI refuses unless --accept-new (src/cli/sshTarget.ts).
// A changed or revoked host key is refused by the transport whatever the policy says.
import { SshTransport } from './ssh.ts';
import type { SshTransportOptions } from './ssh.ts';
import type { ResolveOptions, SshEnv, StrictHostKeyChecking } from './sshConfig.ts';
import { defaultSshEnv, readUserSshConfig, sshSettingsFromConfig } from './sshUserConfig.ts';

/** An ssh config as text, where it came from (for warnings), and how its Include lines are read. */
export interface SshConfigSource {
  readonly text: string;
  readonly path: string;
  readonly resolve: ResolveOptions;
}

export interface SshFromConfigOptions {
  /** The local user's environment; default defaultSshEnv(). */
  readonly env?: SshEnv;
  /** The config; default ~/.ssh/config of `env.home` (with its Include files read from disk). */
  readonly config?: SshConfigSource;
  /** Keys tried before the config's IdentityFile lines (the CLI's -i). */
  readonly extraIdentityFiles?: readonly string[];
  /** known_hosts files instead of the config's UserKnownHostsFile (the CLI's --known-hosts). */
  readonly knownHostsFiles?: readonly string[];
  /** The StrictHostKeyChecking to apply, given the config's ('ask' when it sets none). Default: the config's. */
  readonly hostKeyPolicy?: (configured: StrictHostKeyChecking) => StrictHostKeyChecking;
  /** Asked for an unknown key under 'ask'; without it an unknown key is refused. */
  readonly confirmUnknownHost?: SshTransportOptions['confirmUnknownHost'];
  readonly passphrase?: SshTransportOptions['passphrase'];
  readonly connectTimeoutMs?: number;
  /** Progress lines of the transport (never secrets). */
  readonly log?: (line: string) => void;
  /** The config's warnings (unknown keywords, an Include that failed), each prefixed with the config path. */
  readonly warn?: (line: string) => void;
}

/** Throws an Error with a message for the user when the destination is not `[user@]host[:port]` or an alias. */
export function sshTransportFromConfig(destination: string, options: SshFromConfigOptions = {}): SshTransport {
  const env = options.env ?? defaultSshEnv();
  const config = options.config ?? readUserSshConfig(env);
  const { settings, warnings } = sshSettingsFromConfig(destination.trim(), config.text, env, config.resolve, options.extraIdentityFiles ?? []);
  for (const warning of warnings) options.warn?.(`${config.path}: ${warning}`);
  const configured = settings.strictHostKeyChecking ?? 'ask';
  return new SshTransport({
    ...settings,
    ...(options.knownHostsFiles ? { knownHostsFiles: options.knownHostsFiles } : {}),
    strictHostKeyChecking: options.hostKeyPolicy ? options.hostKeyPolicy(configured) : configured,
    ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: Math.min(options.connectTimeoutMs, settings.connectTimeoutMs ?? options.connectTimeoutMs) } : {}),
    ...(options.confirmUnknownHost ? { confirmUnknownHost: options.confirmUnknownHost } : {}),
    ...(options.passphrase ? { passphrase: options.passphrase } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
}
