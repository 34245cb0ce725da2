// One hop of an SSH connection (the target, or a ProxyJump host reached through the previous hop): the ssh2
// client with our host-key check, public-key authentication (sshAuth.ts) and keepalives, and the failures
// it can end in, worded for the user.
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { Client as SshClient, ConnectConfig } from 'ssh2';
import type { TransportFailure } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { errorMessage } from '../core/errorMessage.ts';
import type { PausableTimer } from './pausableTimer.ts';
import { AuthPlan } from './sshAuth.ts';
import { hostKeyAlgorithms, verifyHostKey } from './sshHostKeys.ts';
import type { SshHop, SshTransportOptions } from './sshOptions.ts';
import { describeHop } from './sshOptions.ts';

const { Client } = ssh2;

const DEFAULT_KEEPALIVE_MS = 15_000;
const DEFAULT_KEEPALIVE_COUNT = 3;

/** What a hop needs from its transport. */
export interface HopContext {
  readonly options: SshTransportOptions;
  readonly log: (line: string) => void;
  /** A hop of the established connection failed or closed. */
  readonly onDropped: (client: SshClient, detail: string) => void;
}

export function connectHop(
  context: HopContext,
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
    const auth = new AuthPlan(hop, context.options, timer, (line) => context.log(`${label}: ${line}`));

    client.on('handshake', () => {
      phase = 'auth';
    });
    client.on('ready', () => {
      phase = 'ready';
      settled = true;
      context.log(`${label}: authenticated`);
      resolve(client);
    });
    client.on('error', (err: Error & { level?: string; code?: unknown }) => {
      if (phase === 'ready') {
        context.onDropped(client, `${role === 'jump' ? `${label}: ` : ''}${dropDetail(err)}`);
        return;
      }
      if (
        err.level === 'agent' ||
        (err.level === 'client-authentication' && !/All configured authentication methods failed/.test(err.message))
      ) {
        auth.noteError(err.message);
        return;
      }
      settle(hostKeyFailure ?? mapConnectError(err, hop, label, phase, auth));
    });
    client.on('close', () => {
      if (phase === 'ready') {
        context.onDropped(client, `${role === 'jump' ? `${label}: ` : ''}the server closed the connection`);
        return;
      }
      settle(
        hostKeyFailure ?? {
          kind: 'connect',
          detail: `${label}: the connection closed during ${phase === 'connect' ? 'the key exchange' : 'authentication'}`,
        },
      );
    });

    const verifier = (key: Buffer, verify: (ok: boolean) => void): void => {
      verifyHostKey(context.options, context.log, hop, key, timer).then(
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

    void hostKeyAlgorithms(context.options, hop).then((serverHostKey) => {
      if (abandoned()) return;
      const config: ConnectConfig = {
        host: hop.host,
        port: hop.port,
        username: hop.user,
        readyTimeout: 0, // our own timer, which stops while the user is asked something
        keepaliveInterval: context.options.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_MS,
        keepaliveCountMax: context.options.keepaliveCountMax ?? DEFAULT_KEEPALIVE_COUNT,
        hostVerifier: verifier as unknown as ConnectConfig['hostVerifier'],
        authHandler: auth.handler,
        algorithms: { serverHostKey: serverHostKey as NonNullable<NonNullable<ConnectConfig['algorithms']>['serverHostKey']> },
      };
      if (sock) config.sock = sock;
      context.log(`${label}: connecting`);
      try {
        client.connect(config);
      } catch (err) {
        settle({ kind: 'connect', detail: `${label}: ${errorMessage(err)}` });
      }
    });
  });
}

export function forwardTo(client: SshClient, via: SshHop, next: SshHop): Promise<Duplex> {
  return new Promise<Duplex>((resolve, reject) => {
    client.forwardOut('127.0.0.1', 0, next.host, next.port, (err, stream) => {
      if (err) {
        reject(
          new TransportError({
            kind: 'connect',
            detail: `jump host ${describeHop(via)} could not open a connection to ${next.host}:${next.port}: ${err.message.replace(/^\(SSH\) /, '')}`,
          }),
        );
        return;
      }
      resolve(stream);
    });
  });
}

export function endClient(client: SshClient): Promise<void> {
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
  if (err.level === 'client-socket' || err.level === 'client-dns')
    return { kind: 'connect', detail: `${label}: ${socketDetail(err, hop)}` };
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
