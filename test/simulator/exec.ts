// The exec WebSocket, as the kubelet serves it behind the API server (k8s.io/kubelet/pkg/cri/streaming/
// remotecommand/websocket.go, wsstream), and the command run for real with `chroot <root> <argv…>`.
//
// Wire format (binary frames, first byte = channel): 0 stdin, 1 stdout, 2 stderr, 3 error/status, 4 resize.
// - Right after the upgrade the server writes an empty frame on the lowest writable channel (stdout, else
//   stderr, else the status channel) to tell the client the streams are set up; client-node skips it
//   (`handleStandardStreams` ignores a zero-length payload).
// - v4.channel.k8s.io and v5.channel.k8s.io end with the JSON of metav1.Status on channel 3, marshalled
//   without TypeMeta (no kind/apiVersion, `metadata: {}`, no code):
//     {"metadata":{},"status":"Success"}
//     {"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing
//      command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode",
//      "message":"3"}]}}
//   then the server closes the socket (1000).
// - channel.k8s.io (the pre-v4 protocol) writes nothing on success and only the message text on failure.
// - v5 adds the close signal: a client frame [255, n] closes the client's channel n (255,0 = EOF on stdin).
//   With v4 there is no way to close stdin alone: client-node closes the whole socket when its stdin ends.
// - A command the image does not hold fails to start: the status channel gets an InternalError (500) with
//   the OCI runtime's message, not an exit code.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { WsSocket } from './wsTypes.ts';
import { WS_OPEN } from './wsTypes.ts';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'channel.k8s.io'] as const;
export type ExecProtocol = (typeof EXEC_PROTOCOLS)[number];

export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

export interface ExecResult {
  /** The process's exit status (128 + signal number when killed by a signal); null when it never ran. */
  readonly exitCode: number | null;
  /** The socket was dropped by the fault injector. */
  readonly dropped: boolean;
  /** The client closed the socket while the command ran (it was killed). */
  readonly clientClosed: boolean;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  /** The InternalError message when the command could not start. */
  readonly error?: string;
  /** The status written on channel 3 (parsed), if any. */
  readonly status?: Record<string, unknown>;
}

export interface ExecOptions {
  readonly socket: WsSocket;
  readonly protocol: ExecProtocol;
  readonly argv: readonly string[];
  /** The chroot directory, or undefined when the container has no root (a distroless image). */
  readonly root: string | undefined;
  /** Why commands cannot run for real on this machine, when they cannot. */
  readonly unavailable?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  /** Fault: terminate the socket (no close frame) once this many stdout bytes were sent. */
  readonly dropAfterStdoutBytes?: number;
  /** A stable id for messages (`failed to start exec "<id>"`). */
  readonly execId: string;
  readonly onEnd: (result: ExecResult) => void;
}

export interface ExecSession {
  /** Kills the command (and its process group) and closes the socket. */
  kill(): void;
  readonly running: boolean;
}

const SIGNALS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 };

function frame(channel: number, data?: Buffer): Buffer {
  const out = Buffer.alloc(1 + (data?.length ?? 0));
  out[0] = channel;
  data?.copy(out, 1);
  return out;
}

/** Whether argv[0] resolves inside the root as the runtime would look it up (PATH, symlinks not followed). */
function resolvable(root: string, command: string, path: string): boolean {
  const exists = (p: string): boolean => {
    try {
      lstatSync(join(root, p));
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/')) return exists(command);
  return path.split(':').some((dir) => dir !== '' && exists(join(dir, command)));
}

export function successStatus(): Record<string, unknown> {
  return { metadata: {}, status: 'Success' };
}

export function exitStatus(argv: readonly string[], code: number): Record<string, unknown> {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${argv.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

export function internalErrorStatus(message: string): Record<string, unknown> {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

export function runExec(options: ExecOptions): ExecSession {
  const ws = options.socket;
  const spawned: { child?: ChildProcess } = {};
  let ended = false;
  let dropped = false;
  let clientClosed = false;
  let stdoutBytes = 0;
  let stderrBytes = 0;

  const send = (channel: number, data?: Buffer): void => {
    if (ws.readyState === WS_OPEN) ws.send(frame(channel, data));
  };
  const killGroup = (): void => {
    const child = spawned.child;
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
  };
  const finish = (result: Omit<ExecResult, 'dropped' | 'clientClosed' | 'stdoutBytes' | 'stderrBytes'>): void => {
    if (ended) return;
    ended = true;
    options.onEnd({ ...result, dropped, clientClosed, stdoutBytes, stderrBytes });
  };
  const writeStatus = (status: Record<string, unknown>): void => {
    if (options.protocol === 'channel.k8s.io') {
      if (status['status'] !== 'Success') send(CHANNEL.error, Buffer.from(String(status['message'] ?? '')));
    } else send(CHANNEL.error, Buffer.from(JSON.stringify(status)));
    if (ws.readyState === WS_OPEN) ws.close(1000);
  };

  // The streams are ready: an empty frame on the lowest writable channel.
  send(options.stdout ? CHANNEL.stdout : options.stderr ? CHANNEL.stderr : CHANNEL.error);

  const command = options.argv[0] ?? '';
  let startError: string | undefined;
  if (options.unavailable !== undefined)
    startError = `error executing command in container: the simulator cannot run commands here: ${options.unavailable}`;
  else if (options.root === undefined || !resolvable(options.root, command, options.env['PATH'] ?? '')) {
    startError = `error executing command in container: failed to exec in container: failed to start exec "${options.execId}": OCI runtime exec failed: exec failed: unable to start container process: exec: "${command}": executable file not found in $PATH: unknown`;
  }
  if (startError !== undefined) {
    const status = internalErrorStatus(startError);
    writeStatus(status);
    finish({ exitCode: null, error: startError, status });
    return { kill: () => undefined, running: false };
  }

  const proc = spawn('chroot', [options.root as string, ...options.argv], {
    env: { ...options.env },
    detached: true,
    stdio: [options.stdin ? 'pipe' : 'ignore', options.stdout ? 'pipe' : 'ignore', options.stderr ? 'pipe' : 'ignore'],
  });
  spawned.child = proc;
  proc.stdin?.on('error', () => undefined);
  proc.stdout?.on('data', (chunk: Buffer) => {
    if (dropped) return;
    const limit = options.dropAfterStdoutBytes;
    if (limit !== undefined && stdoutBytes + chunk.length >= limit) {
      const part = chunk.subarray(0, Math.max(0, limit - stdoutBytes));
      if (part.length > 0) send(CHANNEL.stdout, part);
      stdoutBytes += part.length;
      dropped = true;
      ws.terminate();
      killGroup();
      return;
    }
    stdoutBytes += chunk.length;
    send(CHANNEL.stdout, chunk);
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    if (dropped) return;
    stderrBytes += chunk.length;
    send(CHANNEL.stderr, chunk);
  });
  proc.on('error', (err) => {
    const message = `error executing command in container: ${err.message}`;
    const status = internalErrorStatus(message);
    if (!dropped) writeStatus(status);
    finish({ exitCode: null, error: message, status });
  });
  proc.on('close', (code, signal) => {
    const exitCode = code ?? (signal ? 128 + (SIGNALS[signal] ?? 9) : 1);
    if (dropped || clientClosed) {
      finish({ exitCode });
      return;
    }
    const status = exitCode === 0 ? successStatus() : exitStatus(options.argv, exitCode);
    writeStatus(status);
    finish({ exitCode, status });
  });

  ws.on('message', (data, isBinary) => {
    if (!isBinary || data.length === 0) return;
    const channel = data[0];
    if (channel === CHANNEL.stdin) {
      if (proc.stdin && !proc.stdin.writableEnded) proc.stdin.write(data.subarray(1));
    } else if (channel === CHANNEL.close && options.protocol === 'v5.channel.k8s.io') {
      if (data[1] === CHANNEL.stdin) proc.stdin?.end();
    }
    // Channel 4 (resize) is accepted and ignored: there is no terminal here.
  });
  ws.on('close', () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      clientClosed = !dropped;
      killGroup();
    }
  });
  ws.on('error', () => undefined);

  return {
    kill: () => {
      killGroup();
      if (ws.readyState === WS_OPEN) ws.close(1000);
    },
    get running() {
      return proc.exitCode === null && proc.signalCode === null;
    },
  };
}
