// The SSH transport: one ssh2 connection per inspection (through ProxyJump hops when configured), on which
// each run() opens a session channel, execs the constant command `sh -s` and writes the script to its stdin.
// Authentication lives in sshAuth.ts, reading ~/.ssh/config in sshUserConfig.ts.
//
// Security rules (host keys: sshHostKeys.ts; one hop: sshHop.ts):
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
// user is being asked something (a host key or a passphrase; pausableTimer.ts); keepalives detect a dead
// peer. The command timeout, the output cap and cancellation are execRun.ts's; they stop what the script
// started on the target as sshRemoteStop.ts describes.
import type { Duplex } from 'node:stream';
import type { Client as SshClient, ClientChannel } from 'ssh2';
import type { ExecRequest, ExecResult, Transport, TransportFailure } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { errorMessage } from '../core/errorMessage.ts';
import { ExecRun } from './execRun.ts';
import { PausableTimer } from './pausableTimer.ts';
import { connectHop, endClient, forwardTo } from './sshHop.ts';
import type { HopContext } from './sshHop.ts';
import type { SshHop, SshTransportOptions } from './sshOptions.ts';
import { describeHop, REMOTE_COMMAND } from './sshOptions.ts';
import { closeChannel, REAP_WAIT_MS, runReaper, sendKillSignal } from './sshRemoteStop.ts';

const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;

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
  readonly #hopContext: HopContext;

  constructor(options: SshTransportOptions) {
    this.#options = options;
    this.#hopContext = {
      options,
      log: (line) => this.#log(line),
      onDropped: (client, detail) => this.#onDropped(client, detail),
    };
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
          client = await connectHop(this.#hopContext, hop, role, sock, timer, clients, () => done);
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
          run.fail(
            /No response from server|Not connected/i.test(err.message)
              ? { kind: 'disconnected', detail: err.message }
              : { kind: 'spawn', detail: `the server refused to run "${REMOTE_COMMAND}": ${err.message}` },
          );
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
