// An SSH transport to a destination as OpenSSH would reach it: HostName, User, Port, IdentityFile,
// ProxyJump, known_hosts files and StrictHostKeyChecking from the user's ssh config (~/.ssh/config by
// default, or a config given as text, for tests). The front ends differ only in how an unknown host key is
// decided, so they pass that policy and the prompts in: VS Code asks in a modal (Inspect SSH Host…,
// Inspect Node over SSH), the CLI refuses unless --accept-new (src/cli/sshTarget.ts).
// The config's own StrictHostKeyChecking is followed as ssh_config(5) describes it for new keys: `yes`
// refuses an unknown key, `accept-new` and `no` add it to known_hosts without asking. Whenever a key is
// accepted because of that entry, `hostKeyAcceptedByConfig` gets one loud line naming it (file:line, Host
// block) so nobody trusts a key without knowing why. A changed or revoked host key is refused by the
// transport whatever the policy says, `no` included: OpenSSH would connect to a changed key "subject to some
// restrictions"; gpumem never does (the probe's output is what the user would act on).
import { SshTransport } from './ssh.ts';
import { parseSshDestination } from './sshConfig.ts';
import type { SshTransportOptions } from './sshOptions.ts';
import type { ResolveOptions, SshConfigOrigin, SshEnv, StrictHostKeyChecking } from './sshConfig.ts';
import { defaultSshEnv, readUserSshConfig, sshSettingsFromConfig } from './sshUserConfig.ts';

/**
 * How a front end decides unknown host keys: as the ssh config's StrictHostKeyChecking says (`ask` asks
 * through confirmUnknownHost), or by a policy of its own (the CLI's --accept-new, or "the CLI cannot ask").
 */
export type HostKeyPolicy = { readonly kind: 'from-config' } | { readonly kind: 'override'; readonly policy: StrictHostKeyChecking };

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
  /** How unknown keys are decided, given the config's StrictHostKeyChecking ('ask' when it sets none). Default: from-config. */
  readonly hostKeyPolicy?: (configured: StrictHostKeyChecking) => HostKeyPolicy;
  /**
   * The loud line (one sentence, no secrets) when an unknown key was trusted only because the ssh config said
   * `StrictHostKeyChecking accept-new|no`: the CLI prints it on stderr, VS Code shows a warning and logs it.
   */
  readonly hostKeyAcceptedByConfig?: (message: string) => void;
  /**
   * `config` (default): a `HostName` of the matching Host block redirects the connection, as ssh does for an
   * alias. `destination`: the destination's host is dialled as given (a node's address from the API server);
   * the config still supplies User, Port, keys, ProxyJump and known_hosts, and a HostName it sets is
   * ignored with a warning, so a name that happens to match a `Host` alias never sends the probe elsewhere.
   */
  readonly hostName?: 'config' | 'destination';
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
  const resolve: ResolveOptions = { ...config.resolve, configPath: config.path };
  const { settings, warnings, hostKeyOrigin } = sshSettingsFromConfig(
    destination.trim(),
    config.text,
    env,
    resolve,
    options.extraIdentityFiles ?? [],
  );
  for (const warning of warnings) options.warn?.(`${config.path}: ${warning}`);
  const asGiven = options.hostName === 'destination' ? parseSshDestination(destination.trim())?.host : undefined;
  let target = settings.target;
  if (asGiven !== undefined && target.host !== asGiven) {
    options.warn?.(`${config.path}: HostName ${target.host} for ${asGiven} is not followed: ${asGiven} is dialled as given`);
    target = { ...target, host: asGiven };
  }
  const configured = settings.strictHostKeyChecking ?? 'ask';
  const decision = options.hostKeyPolicy?.(configured) ?? { kind: 'from-config' };
  const policy = decision.kind === 'override' ? decision.policy : configured;
  const knownHostsFiles = options.knownHostsFiles ?? settings.knownHostsFiles;
  const byConfig = decision.kind === 'from-config' && (policy === 'accept-new' || policy === 'no');
  const announce = options.hostKeyAcceptedByConfig;
  return new SshTransport({
    ...settings,
    target,
    knownHostsFiles,
    strictHostKeyChecking: policy,
    ...(byConfig && announce
      ? {
          onUnknownKeyAccepted: (host: string, keyType: string, fingerprint: string) =>
            announce(acceptedByConfigMessage(host, keyType, fingerprint, policy, hostKeyOrigin, knownHostsFiles[0])),
        }
      : {}),
    ...(options.connectTimeoutMs !== undefined
      ? { connectTimeoutMs: Math.min(options.connectTimeoutMs, settings.connectTimeoutMs ?? options.connectTimeoutMs) }
      : {}),
    ...(options.confirmUnknownHost ? { confirmUnknownHost: options.confirmUnknownHost } : {}),
    ...(options.passphrase ? { passphrase: options.passphrase } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
}

/** "trusted the unknown host key … because of StrictHostKeyChecking accept-new at ~/.ssh/config:3 (Host gpu-*)". */
export function acceptedByConfigMessage(
  host: string,
  keyType: string,
  fingerprint: string,
  policy: StrictHostKeyChecking,
  origin: SshConfigOrigin | undefined,
  knownHostsFile: string | undefined,
): string {
  const where = origin ? ` at ${origin.file}:${origin.line} (${origin.block ?? 'before any Host line: every host'})` : '';
  const added = knownHostsFile ? `, and added it to ${knownHostsFile}` : '';
  return `WARNING: trusted the unknown host key of ${host} (${keyType} ${fingerprint}) without asking, because of "StrictHostKeyChecking ${policy}"${where}${added}. Compare the fingerprint with the host's own key; remove that entry to be asked.`;
}
