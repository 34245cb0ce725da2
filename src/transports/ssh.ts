// The SSH transport: one ssh2 connection per inspection (through ProxyJump hops when configured), on which
// each run() opens a session channel, execs the constant command `sh -s` and writes the script to its stdin.
// Authentication lives in sshAuth.ts, reading ~/.ssh/config in sshUserConfig.ts.
//
// Security rules:
// - Host keys are checked against known_hosts (user files, then global ones) for every hop. A changed or
//   @revoked key is always refused, under `no` too (OpenSSH would connect "with restrictions"; gpumem never
//   does). An unknown key is refused with StrictHostKeyChecking=yes, accepted with accept-new/no (and then
//   `onUnknownKeyAccepted` is told, for the front end's loud line), and with ask (the default) accepted only
//   when `confirmUnknownHost` says so; only then is the line appended to the first user known_hosts file.
// - Authentication is by public key only: the IdentityFile keys in order, then the agent, as OpenSSH does.
//   An encrypted key whose public half is known (from `<key>.pub` or the key file's clear header) is offered
//   first and the passphrase is asked only if the server accepts that key; otherwise it is asked up front.
// - Passphrases and key material never reach a log line or an error message.
//
// Limits: the connect timeout covers TCP, key exchange and authentication of all hops but stops while the
// user is being asked something (a host key or a passphrase); keepalives detect a dead peer. The command
// timeout, the output cap and cancellation stop what the script started on the target, then close the
// channel (cancellation also closes the connection). Closing a channel alone does not do it: without a
// pty, sshd neither signals nor kills the session's processes, and a `sleep` would outlive us. So:
// 1. an SSH "signal" request (KILL): OpenSSH >= 7.9 answers it with killpg() on the session, but only
//    for sessions under privilege separation, i.e. not for root logins ("session signalling requires
//    privilege separation");
// 2. then, for every login, the constant REAPER_SCRIPT on a second channel of the same connection: it
//    finds its own sshd connection process in /proc and kills every process of the other sessions of
//    that connection. It runs while the target channel is still open, so the session leader is alive and
//    its session id leads to all its children. All runs of this connection that are still in flight are
//    stopped with it (an inspection runs one at a time).
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { Client as SshClient, ClientChannel, ConnectConfig } from 'ssh2';
import type { ExecRequest, ExecResult, Transport, TransportFailure } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { ExecRun } from './execRun.ts';
import { appendKnownHost, blobKeyType, checkHostKey, fingerprintSha256, knownHostName, knownKeyTypes } from './knownHosts.ts';
import type { HostKeyCheck } from './knownHosts.ts';
import type { StrictHostKeyChecking } from './sshConfig.ts';
import { AuthPlan } from './sshAuth.ts';

const { Client } = ssh2;

/** The constant remote command. The script goes to its stdin; nothing from data reaches a command line. */
export const REMOTE_COMMAND = 'sh -s';

/**
 * Sent to `sh -s` on a second channel to stop a cancelled, timed-out or overflowing run (see the header).
 * Constant: it takes no data. Linux /proc only; elsewhere it exits quietly. It walks up from itself to the
 * nearest `sshd` process (the connection's), collects the session ids of that process's other children
 * (each exec'd command is a session leader: sshd calls setsid), and SIGKILLs every process in them.
 */
export const REAPER_SCRIPT = `# gpumem: stop the other sessions of this SSH connection
fields() {
  l=
  { read -r l < "/proc/$1/stat"; } 2>/dev/null || return 1
  set -- \${l##*) }
  f_ppid=$2
  f_sid=$4
  [ -n "$f_sid" ]
}
fields "$$" || exit 0
mysid=$f_sid
p=$$
conn=
n=0
while [ -z "$conn" ] && [ "$n" -lt 16 ]; do
  n=$((n + 1))
  fields "$p" || exit 0
  pp=$f_ppid
  [ "$pp" -gt 1 ] 2>/dev/null || exit 0
  c=
  { read -r c < "/proc/$pp/comm"; } 2>/dev/null
  case $c in sshd*) conn=$pp ;; esac
  p=$pp
done
[ -n "$conn" ] || exit 0
sids=' '
for d in /proc/[0-9]*; do
  fields "\${d#/proc/}" || continue
  [ "$f_ppid" = "$conn" ] || continue
  [ "$f_sid" = "$mysid" ] && continue
  sids="$sids$f_sid "
done
[ "$sids" = ' ' ] && exit 0
for pass in 1 2 3; do
  for d in /proc/[0-9]*; do
    fields "\${d#/proc/}" || continue
    case $sids in *" $f_sid "*) kill -9 "\${d#/proc/}" 2>/dev/null ;; esac
  done
done
exit 0
`;

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

const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;
const DEFAULT_KEEPALIVE_MS = 15_000;
const DEFAULT_KEEPALIVE_COUNT = 3;
const HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];

export function describeHop(hop: Pick<SshHop, 'host' | 'port' | 'user'>): string {
  const host = hop.host.includes(':') ? `[${hop.host}]` : hop.host;
  return `${hop.user}@${host}:${hop.port}`;
}

export class SshTransport implements Transport {
  readonly target: string;
  readonly #options: SshTransportOptions;
  readonly #hops: readonly SshHop[];
  #clients: SshClient[] = [];
  #ready: Promise<SshClient> | undefined;
  #closed = false;
  #dropped: TransportFailure | undefined;
  readonly #inFlight = new Set<(failure: TransportFailure) => void>();
  #reaping: Promise<void> = Promise.resolve();
  #abortConnect: (() => void) | undefined;

  constructor(options: SshTransportOptions) {
    this.#options = options;
    this.#hops = [...(options.jumps ?? []), options.target];
    const jumps = options.jumps ?? [];
    this.target = `ssh ${describeHop(options.target)}${jumps.length > 0 ? ` via ${jumps.map(describeHop).join(', ')}` : ''}`;
  }

  /** Connects now (run() connects on first use otherwise). Throws TransportError. */
  async connect(signal?: AbortSignal): Promise<void> {
    await this.#connection(signal);
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (request.signal?.aborted) throw new TransportError({ kind: 'cancelled' });
    let client: SshClient;
    try {
      client = await this.#connection(request.signal);
    } catch (err) {
      if (request.signal?.aborted) {
        void this.close();
        throw new TransportError({ kind: 'cancelled' });
      }
      throw err;
    }
    return this.#exec(client, request);
  }

  /** Ends the connection (after any remote clean-up in progress, bounded to a few seconds). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#abortConnect?.();
    await Promise.race([this.#reaping, delay(REAP_WAIT_MS)]);
    await this.#endClients();
  }

  async #endClients(): Promise<void> {
    const clients = [...this.#clients].reverse();
    this.#clients = [];
    await Promise.all(clients.map((c) => endClient(c)));
  }

  /**
   * Stops what a run started on the target: the SSH signal request, then the reaper on a second channel
   * (serialised: reapers spare only their own session), then the channel is closed.
   */
  #stopRemote(client: SshClient, channel: ClientChannel): Promise<void> {
    sendKillSignal(channel);
    const next = this.#reaping.then(() => runReaper(client, (line) => this.#log(line)));
    this.#reaping = next;
    return next.then(() => closeChannel(channel));
  }

  #connection(signal?: AbortSignal): Promise<SshClient> {
    if (this.#closed) return Promise.reject(new TransportError({ kind: 'disconnected', detail: 'the connection was closed' }));
    if (this.#dropped) return Promise.reject(new TransportError(this.#dropped));
    if (!this.#ready) {
      this.#ready = this.#establish(signal);
      this.#ready.catch(() => {
        this.#ready = undefined;
      });
    }
    return this.#ready;
  }

  #log(line: string): void {
    this.#options.log?.(line);
  }

  #establish(signal?: AbortSignal): Promise<SshClient> {
    const ms = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    return new Promise<SshClient>((resolve, reject) => {
      let done = false;
      const clients: SshClient[] = [];
      const finish = (): void => {
        done = true;
        timer.clear();
        signal?.removeEventListener('abort', onAbort);
        this.#abortConnect = undefined;
      };
      const fail = (failure: TransportFailure): void => {
        if (done) return;
        finish();
        for (const c of clients.reverse()) c.destroy();
        reject(new TransportError(failure));
      };
      const timer = new PausableTimer(ms, () => fail({ kind: 'timeout', phase: 'connect', ms }));
      const onAbort = (): void => fail({ kind: 'cancelled' });
      if (signal?.aborted) {
        fail({ kind: 'cancelled' });
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#abortConnect = () => fail({ kind: 'disconnected', detail: 'the transport was closed while connecting' });

      const chain = async (): Promise<SshClient> => {
        let sock: Duplex | undefined;
        let client: SshClient | undefined;
        for (let i = 0; i < this.#hops.length; i++) {
          const hop = this.#hops[i] as SshHop;
          const role = i === this.#hops.length - 1 ? 'target' : 'jump';
          client = await this.#connectHop(hop, role, sock, timer, clients, () => done);
          const next = this.#hops[i + 1];
          if (next) sock = await forwardTo(client, hop, next);
        }
        return client as SshClient;
      };
      chain().then(
        (client) => {
          if (done) return;
          finish();
          this.#clients = clients;
          resolve(client);
        },
        (err: unknown) => fail(err instanceof TransportError ? err.failure : { kind: 'connect', detail: errorMessage(err) }),
      );
    });
  }

  #connectHop(
    hop: SshHop,
    role: 'target' | 'jump',
    sock: Duplex | undefined,
    timer: PausableTimer,
    clients: SshClient[],
    abandoned: () => boolean,
  ): Promise<SshClient> {
    const label = role === 'jump' ? `jump host ${describeHop(hop)}` : describeHop(hop);
    return new Promise<SshClient>((resolve, reject) => {
      const client = new Client();
      clients.push(client);
      let phase: 'connect' | 'auth' | 'ready' = 'connect';
      let hostKeyFailure: TransportFailure | undefined;
      let settled = false;
      const settle = (failure: TransportFailure): void => {
        if (settled) return;
        settled = true;
        reject(new TransportError(failure));
      };
      const auth = new AuthPlan(hop, this.#options, timer, (line) => this.#log(`${label}: ${line}`));

      client.on('handshake', () => {
        phase = 'auth';
      });
      client.on('ready', () => {
        phase = 'ready';
        settled = true;
        this.#log(`${label}: authenticated`);
        resolve(client);
      });
      client.on('error', (err: Error & { level?: string; code?: unknown }) => {
        if (phase === 'ready') {
          this.#onDropped(client, `${role === 'jump' ? `${label}: ` : ''}${dropDetail(err)}`);
          return;
        }
        if (err.level === 'agent' || (err.level === 'client-authentication' && !/All configured authentication methods failed/.test(err.message))) {
          auth.noteError(err.message);
          return;
        }
        settle(hostKeyFailure ?? mapConnectError(err, hop, label, phase, auth));
      });
      client.on('close', () => {
        if (phase === 'ready') {
          this.#onDropped(client, `${role === 'jump' ? `${label}: ` : ''}the server closed the connection`);
          return;
        }
        settle(hostKeyFailure ?? {
          kind: 'connect',
          detail: `${label}: the connection closed during ${phase === 'connect' ? 'the key exchange' : 'authentication'}`,
        });
      });

      const verifier = (key: Buffer, verify: (ok: boolean) => void): void => {
        this.#verifyHostKey(hop, key, timer).then(
          (failure) => {
            if (failure) hostKeyFailure = failure;
            if (!abandoned()) verify(failure === undefined);
          },
          (err: unknown) => {
            hostKeyFailure = { kind: 'connect', detail: `${label}: could not check the host key: ${errorMessage(err)}` };
            verify(false);
          },
        );
      };

      void this.#hostKeyAlgorithms(hop).then((serverHostKey) => {
        if (abandoned()) return;
        const config: ConnectConfig = {
          host: hop.host,
          port: hop.port,
          username: hop.user,
          readyTimeout: 0, // our own timer, which stops while the user is asked something
          keepaliveInterval: this.#options.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_MS,
          keepaliveCountMax: this.#options.keepaliveCountMax ?? DEFAULT_KEEPALIVE_COUNT,
          hostVerifier: verifier as unknown as ConnectConfig['hostVerifier'],
          authHandler: auth.handler,
          algorithms: { serverHostKey: serverHostKey as NonNullable<NonNullable<ConnectConfig['algorithms']>['serverHostKey']> },
        };
        if (sock) config.sock = sock;
        this.#log(`${label}: connecting`);
        try {
          client.connect(config);
        } catch (err) {
          settle({ kind: 'connect', detail: `${label}: ${errorMessage(err)}` });
        }
      });
    });
  }

  /** Host key algorithms with the types known_hosts already holds for this host first (as OpenSSH orders them). */
  async #hostKeyAlgorithms(hop: SshHop): Promise<string[]> {
    const known: string[] = [];
    for (const file of this.#knownHostsFiles()) {
      for (const t of knownKeyTypes(await readTextOrEmpty(file), hop.host, hop.port)) if (!known.includes(t)) known.push(t);
    }
    const first: string[] = [];
    for (const t of known) {
      const algos = t === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [t];
      for (const a of algos) if (HOST_KEY_ALGORITHMS.includes(a) && !first.includes(a)) first.push(a);
    }
    return [...first, ...HOST_KEY_ALGORITHMS.filter((a) => !first.includes(a))];
  }

  #knownHostsFiles(): string[] {
    return [...this.#options.knownHostsFiles, ...(this.#options.globalKnownHostsFiles ?? [])];
  }

  /** undefined when the key is acceptable, else the failure to report. */
  async #verifyHostKey(hop: SshHop, keyBlob: Buffer, timer: PausableTimer): Promise<TransportFailure | undefined> {
    const name = knownHostName(hop.host, hop.port);
    const keyType = blobKeyType(keyBlob) ?? 'unknown';
    const keyBase64 = keyBlob.toString('base64');
    const fingerprint = fingerprintSha256(keyBlob);
    let changed: { check: Extract<HostKeyCheck, { kind: 'changed' }>; file: string } | undefined;
    let known = false;
    for (const file of this.#knownHostsFiles()) {
      const check = checkHostKey(await readTextOrEmpty(file), hop.host, hop.port, keyType, keyBase64);
      if (check.kind === 'revoked') {
        this.#log(`${name}: host key ${fingerprint} is marked @revoked in ${file}`);
        return { kind: 'host-key-changed', host: name, fingerprint, expected: `no key: this key is @revoked in ${file}` };
      }
      if (check.kind === 'known') known = true;
      if (check.kind === 'changed' && !changed) changed = { check, file };
    }
    if (known) return undefined;
    if (changed) {
      const where = `${changed.file}:${changed.check.lines.join(',')}`;
      const despite = this.#options.strictHostKeyChecking === 'no' ? ' (refused although StrictHostKeyChecking is no: gpumem never connects to a changed key)' : '';
      this.#log(`${name}: host key CHANGED (${keyType} ${fingerprint}); known_hosts has ${changed.check.expectedFingerprints.join(', ')} at ${where}${despite}`);
      return { kind: 'host-key-changed', host: name, fingerprint, expected: `${changed.check.expectedFingerprints.join(', ')} (${where})` };
    }
    const policy = this.#options.strictHostKeyChecking ?? 'ask';
    const acceptedByPolicy = policy === 'accept-new' || policy === 'no';
    let accept = acceptedByPolicy;
    if (policy === 'ask' && this.#options.confirmUnknownHost) {
      timer.pause();
      try {
        accept = await this.#options.confirmUnknownHost(name, keyType, fingerprint);
      } finally {
        timer.resume();
      }
    }
    if (!accept) {
      this.#log(`${name}: unknown host key ${keyType} ${fingerprint} refused`);
      return { kind: 'host-key-unknown', host: name, fingerprint, keyType };
    }
    if (acceptedByPolicy) {
      this.#log(`${name}: unknown host key ${keyType} ${fingerprint} accepted by StrictHostKeyChecking ${policy}`);
      this.#options.onUnknownKeyAccepted?.(name, keyType, fingerprint);
    }
    const file = this.#options.knownHostsFiles[0];
    if (file) {
      try {
        const line = appendKnownHost(hop.host, hop.port, keyType, keyBase64, { hash: this.#options.hashKnownHosts ?? false });
        await mkdir(dirname(file), { recursive: true, mode: 0o700 });
        const existing = await readTextOrEmpty(file);
        await appendFile(file, `${existing !== '' && !existing.endsWith('\n') ? '\n' : ''}${line}\n`, { mode: 0o600 });
        this.#log(`${name}: added ${keyType} ${fingerprint} to ${file}`);
      } catch (err) {
        this.#log(`${name}: could not add the host key to ${file}: ${errorMessage(err)}`);
      }
    }
    return undefined;
  }

  /** A hop of the established connection failed or closed (while connecting, the chain reports it). */
  #onDropped(client: SshClient, detail: string): void {
    if (this.#closed || this.#dropped || !this.#clients.includes(client)) return;
    this.#dropped = { kind: 'disconnected', detail };
    const failure = this.#dropped;
    for (const notify of [...this.#inFlight]) notify(failure);
    this.#log(`connection lost: ${detail}`);
    void this.#endClients();
  }

  #exec(client: SshClient, request: ExecRequest): Promise<ExecResult> {
    let channel: ClientChannel | undefined;
    const onDrop = (failure: TransportFailure): void => run.fail(failure);
    // After an overflow the channel closes once the remote clean-up is done; the deadline and a cancel
    // still bound that wait. A cancel also ends the connection.
    const run: ExecRun = new ExecRun({
      request,
      afterOverflow: 'await-end-within-deadline',
      stop: (reason) => {
        if (channel) void this.#stopRemote(client, channel);
        if (reason === 'cancelled') void this.close();
      },
      onSettled: () => this.#inFlight.delete(onDrop),
    });
    this.#inFlight.add(onDrop);

    let exitCode: number | null = null;
    try {
      client.exec(REMOTE_COMMAND, (err, ch) => {
        if (err) {
          run.fail(/No response from server|Not connected/i.test(err.message)
            ? { kind: 'disconnected', detail: err.message }
            : { kind: 'spawn', detail: `the server refused to run "${REMOTE_COMMAND}": ${err.message}` });
          return;
        }
        channel = ch;
        if (run.settled) {
          void this.#stopRemote(client, ch);
          return;
        }
        ch.on('data', (chunk: Buffer) => run.take('stdout', chunk));
        ch.stderr.on('data', (chunk: Buffer) => run.take('stderr', chunk));
        ch.on('exit', (code: number | null) => {
          exitCode = typeof code === 'number' ? code : null;
        });
        ch.on('error', () => undefined);
        ch.on('close', () => run.finish(exitCode));
        ch.end(request.script, 'utf8');
      });
    } catch (err) {
      run.fail({ kind: 'disconnected', detail: errorMessage(err) });
    }
    return run.result;
  }
}

/**
 * Sends the SSH "signal" request (KILL). ssh2's Channel.signal() refuses once stdin is at EOF (it checks
 * `writable`), but the protocol allows the request until the channel closes, so it goes through the
 * connection's protocol object. OpenSSH honours it for privilege-separated sessions (not root logins).
 */
function sendKillSignal(channel: ClientChannel): void {
  const internal = channel as unknown as {
    outgoing?: { id?: number; state?: string };
    _client?: { _protocol?: { signal?: (id: number, name: string) => void } };
  };
  try {
    const id = internal.outgoing?.id;
    const state = internal.outgoing?.state;
    const protocol = internal._client?._protocol;
    if (typeof id === 'number' && (state === 'open' || state === 'eof') && typeof protocol?.signal === 'function') {
      protocol.signal(id, 'KILL');
    } else {
      channel.signal('KILL');
    }
  } catch {
    // the channel is already closing
  }
}

function closeChannel(channel: ClientChannel): void {
  try {
    channel.close();
  } catch {
    // already closed
  }
}

const REAP_WAIT_MS = 5000;

/** Runs REAPER_SCRIPT on a new channel; resolves when it is done, failed, or after REAP_WAIT_MS. */
function runReaper(client: SshClient, log: (line: string) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      log('the remote clean-up did not finish in time');
      resolve();
    }, REAP_WAIT_MS);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    try {
      client.exec(REMOTE_COMMAND, (err, ch) => {
        if (err) {
          log(`could not start the remote clean-up: ${err.message}`);
          done();
          return;
        }
        ch.on('error', () => undefined);
        ch.on('data', () => undefined);
        ch.stderr.on('data', () => undefined);
        ch.on('close', done);
        ch.end(REAPER_SCRIPT, 'utf8');
      });
    } catch (err) {
      log(`could not start the remote clean-up: ${errorMessage(err)}`);
      done();
    }
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function forwardTo(client: SshClient, via: SshHop, next: SshHop): Promise<Duplex> {
  return new Promise<Duplex>((resolve, reject) => {
    client.forwardOut('127.0.0.1', 0, next.host, next.port, (err, stream) => {
      if (err) {
        reject(new TransportError({
          kind: 'connect',
          detail: `jump host ${describeHop(via)} could not open a connection to ${next.host}:${next.port}: ${err.message.replace(/^\(SSH\) /, '')}`,
        }));
        return;
      }
      resolve(stream);
    });
  });
}

function endClient(client: SshClient): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(() => {
      client.destroy();
      resolve();
    }, 2000);
    client.once('close', () => {
      clearTimeout(t);
      resolve();
    });
    try {
      client.end();
    } catch {
      clearTimeout(t);
      resolve();
    }
  });
}

function dropDetail(err: Error & { level?: string }): string {
  if (/Keepalive timeout/i.test(err.message)) return 'the server stopped answering keepalives';
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNRESET') return 'connection reset by the server';
  return err.message;
}

function mapConnectError(
  err: Error & { level?: string; code?: unknown },
  hop: SshHop,
  label: string,
  phase: 'connect' | 'auth' | 'ready',
  auth: AuthPlan,
): TransportFailure {
  if (err.level === 'client-authentication') return { kind: 'auth', detail: `${label}: ${auth.describe()}` };
  if (err.level === 'client-socket' || err.level === 'client-dns') return { kind: 'connect', detail: `${label}: ${socketDetail(err, hop)}` };
  if (err.level === 'client-timeout') return { kind: 'connect', detail: `${label}: ${err.message}` };
  if (typeof err.code === 'number') {
    // A DISCONNECT message from the server.
    return phase === 'auth'
      ? { kind: 'auth', detail: `${label}: the server disconnected during authentication: ${err.message}; ${auth.describe()}` }
      : { kind: 'connect', detail: `${label}: the server disconnected: ${err.message}` };
  }
  return { kind: 'connect', detail: `${label}: ${err.message}` };
}

function socketDetail(err: Error, hop: SshHop): string {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${hop.host}:${hop.port}`;
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${where} (ECONNREFUSED): is sshd running on that port?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `cannot resolve the host name "${hop.host}" (${code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} is unreachable (${code})`;
    case 'ETIMEDOUT':
      return `the TCP connection to ${where} timed out (ETIMEDOUT)`;
    case 'ECONNRESET':
      return `connection reset by ${where} (ECONNRESET)`;
    default:
      return `${where}: ${err.message}`;
  }
}

// ------------------------------------------------------------------------------------------------
// Helpers

export class PausableTimer {
  readonly #onFire: () => void;
  #remaining: number;
  #startedAt = 0;
  #handle: ReturnType<typeof setTimeout> | undefined;
  #pauses = 0;
  #cleared = false;

  constructor(ms: number, onFire: () => void) {
    this.#onFire = onFire;
    this.#remaining = ms;
    if (ms > 0) this.#start();
    else this.#cleared = true;
  }

  #start(): void {
    this.#startedAt = Date.now();
    this.#handle = setTimeout(() => {
      this.#cleared = true;
      this.#onFire();
    }, Math.max(0, this.#remaining));
  }

  pause(): void {
    if (this.#cleared) return;
    if (this.#pauses++ === 0 && this.#handle !== undefined) {
      clearTimeout(this.#handle);
      this.#handle = undefined;
      this.#remaining -= Date.now() - this.#startedAt;
    }
  }

  resume(): void {
    if (this.#cleared || this.#pauses === 0) return;
    if (--this.#pauses === 0) this.#start();
  }

  clear(): void {
    this.#cleared = true;
    if (this.#handle !== undefined) clearTimeout(this.#handle);
    this.#handle = undefined;
  }
}

async function readTextOrEmpty(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return '';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
