// What an SSH transport is told: the hops to dial and the policies and prompts of the front end. A leaf
// module, so the connection (ssh.ts, sshHop.ts), authentication (sshAuth.ts) and host-key checks
// (sshHostKeys.ts) share these types without importing each other.
import type { StrictHostKeyChecking } from './sshConfig.ts';

/** The constant remote command. The script goes to its stdin; nothing from data reaches a command line. */
export const REMOTE_COMMAND = 'sh -s';

export interface SshHop {
  /** Where to connect: the HostName (known_hosts is checked under this name and port). */
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** Private key files, in the order to try them. Missing files are skipped. */
  readonly identityFiles: readonly string[];
  /** The agent socket (SSH_AUTH_SOCK); undefined for none. */
  readonly agent?: string | undefined;
  /** IdentitiesOnly: do not use the agent. */
  readonly identitiesOnly?: boolean;
}

export interface SshTransportOptions {
  readonly target: SshHop;
  /** ProxyJump hops, in dialling order: the first is reached directly, each next one through the previous. */
  readonly jumps?: readonly SshHop[];
  /** User known_hosts files, read in order; an accepted key is appended to the first. */
  readonly knownHostsFiles: readonly string[];
  /** Read-only known_hosts files (/etc/ssh/ssh_known_hosts). */
  readonly globalKnownHostsFiles?: readonly string[];
  /** Default 'ask'. */
  readonly strictHostKeyChecking?: StrictHostKeyChecking;
  /** Write accepted keys hashed, like HashKnownHosts yes. */
  readonly hashKnownHosts?: boolean;
  /**
   * Asked for an unknown host key when strictHostKeyChecking is 'ask'. `host` is the known_hosts name
   * (`host` or `[host]:port`), `fingerprint` is `SHA256:…`. Without it, unknown keys are refused.
   */
  readonly confirmUnknownHost?: (host: string, keyType: string, fingerprint: string) => Promise<boolean>;
  /** Told when an unknown key was accepted by the policy (accept-new/no) rather than by confirmUnknownHost. */
  readonly onUnknownKeyAccepted?: (host: string, keyType: string, fingerprint: string) => void;
  /** Asked for the passphrase of an encrypted key (attempt 1..3); undefined declines. */
  readonly passphrase?: (keyFile: string, attempt: number) => Promise<string | undefined>;
  /** TCP + key exchange + authentication of all hops, excluding time spent asking the user. Default 20 s. */
  readonly connectTimeoutMs?: number;
  /** SSH keepalive interval; 0 disables. Default 15 s. */
  readonly keepaliveIntervalMs?: number;
  /** Unanswered keepalives before the connection is declared dead. Default 3. */
  readonly keepaliveCountMax?: number;
  /** Progress and diagnostics, one line each; never contains secrets. */
  readonly log?: (line: string) => void;
}

export function describeHop(hop: Pick<SshHop, 'host' | 'port' | 'user'>): string {
  const host = hop.host.includes(':') ? `[${hop.host}]` : hop.host;
  return `${hop.user}@${host}:${hop.port}`;
}
