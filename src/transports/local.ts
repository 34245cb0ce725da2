// The local transport: runs `sh -s` (or another fixed argv) as a child process and writes the probe
// script to its standard input. No shell string is ever built: the argv is an array handed to spawn()
// without the `shell` option.
//
// Limits, as the Transport contract asks:
// - Output: each stream keeps at most `maxOutputBytes`. When either stream overflows, the result is
//   marked `truncated`, the rest is dropped and the process group is killed at once: a probe that
//   overflows its budget has nothing more to say, and a runaway producer (`yes`) must not keep the
//   machine busy until the timeout. The result then has `exitCode: null`.
// - Time: after `timeoutMs` the whole process group is killed (the child is spawned `detached`, so it
//   leads its own group, and `process.kill(-pid)` reaches the script's children too) and run() throws
//   TransportError {kind:'timeout', phase:'command'} at once.
// - A background process that outlives the shell while holding its stdout (e.g. started with setsid)
//   cannot delay the result by more than 2 s after the shell exits.
// - Cancellation: aborting `signal` kills the process group and run() throws {kind:'cancelled'}.
// - A command that cannot be started (missing binary, not executable) throws {kind:'spawn'}.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { ExecRequest, ExecResult, Transport } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { OutputBuffer } from './outputBuffer.ts';

export interface LocalTransportOptions {
  /** The argv to run; the script goes to its stdin. Default `['sh', '-s']`. E.g. `['busybox', 'sh', '-s']`,
   *  `['/bin/dash', '-s']` or `['chroot', root, '/bin/sh', '-s']`. */
  readonly command?: readonly string[];
  /** Environment of the child. Default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** For reports. Default `local` (or `local: <argv>` when a command is given). */
  readonly target?: string;
}

export const DEFAULT_LOCAL_COMMAND: readonly string[] = ['sh', '-s'];
const EXIT_GRACE_MS = 2000;

export class LocalTransport implements Transport {
  readonly target: string;
  readonly #command: readonly string[];
  readonly #env: NodeJS.ProcessEnv | undefined;
  readonly #cwd: string | undefined;
  readonly #running = new Set<ChildProcess>();

  constructor(options: LocalTransportOptions = {}) {
    const command = options.command ?? DEFAULT_LOCAL_COMMAND;
    if (command.length === 0 || command[0] === '') throw new Error('LocalTransport: command must not be empty');
    this.#command = [...command];
    this.#env = options.env;
    this.#cwd = options.cwd;
    this.target = options.target ?? (options.command ? `local: ${command.join(' ')}` : 'local');
  }

  run(request: ExecRequest): Promise<ExecResult> {
    if (request.signal?.aborted) return Promise.reject(new TransportError({ kind: 'cancelled' }));
    return new Promise<ExecResult>((resolve, reject) => {
      const [file, ...args] = this.#command as [string, ...string[]];
      let child: ChildProcess;
      try {
        child = spawn(file, args, {
          detached: true,
          stdio: ['pipe', 'pipe', 'pipe'],
          env: this.#env ?? process.env,
          cwd: this.#cwd,
          windowsHide: true,
        });
      } catch (err) {
        reject(new TransportError({ kind: 'spawn', detail: spawnDetail(file, err) }));
        return;
      }
      this.#running.add(child);

      const stdout = new OutputBuffer(request.maxOutputBytes);
      const stderr = new OutputBuffer(request.maxOutputBytes);
      let outcome: 'running' | 'timeout' | 'cancelled' | 'overflow' | 'spawn-error' = 'running';
      let spawnError: unknown;
      let settled = false;

      const killGroup = (): void => {
        if (child.pid === undefined) return;
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          try {
            child.kill('SIGKILL');
          } catch {
            // already gone
          }
        }
      };

      // Timeout and cancellation settle at once, without waiting for the pipes to close: a process that
      // left the group (setsid) could hold them open.
      const timer = setTimeout(() => {
        if (outcome !== 'running') return;
        outcome = 'timeout';
        killGroup();
        finish(null);
      }, Math.max(0, request.timeoutMs));

      const onAbort = (): void => {
        if (outcome !== 'running') return;
        outcome = 'cancelled';
        killGroup();
        finish(null);
      };
      let exitGrace: ReturnType<typeof setTimeout> | undefined;
      request.signal?.addEventListener('abort', onAbort, { once: true });

      const finish = (exitCode: number | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(exitGrace);
        child.stdout?.destroy();
        child.stderr?.destroy();
        request.signal?.removeEventListener('abort', onAbort);
        this.#running.delete(child);
        switch (outcome) {
          case 'timeout':
            reject(new TransportError({ kind: 'timeout', phase: 'command', ms: request.timeoutMs }));
            return;
          case 'cancelled':
            reject(new TransportError({ kind: 'cancelled' }));
            return;
          case 'spawn-error':
            reject(new TransportError({ kind: 'spawn', detail: spawnDetail(file, spawnError) }));
            return;
          default:
            resolve({
              stdout: stdout.text(),
              stderr: stderr.text(),
              exitCode: outcome === 'overflow' ? null : exitCode,
              truncated: stdout.truncated || stderr.truncated,
            });
        }
      };

      const onData = (buffer: OutputBuffer) => (chunk: Buffer): void => {
        if (!buffer.push(chunk) && outcome === 'running') {
          outcome = 'overflow';
          killGroup();
        }
      };
      child.stdout?.on('data', onData(stdout));
      child.stderr?.on('data', onData(stderr));
      // The script may stop reading early (exit 3 on line 1): a broken pipe on stdin is not an error.
      child.stdin?.on('error', () => undefined);

      child.once('error', (err) => {
        // 'error' without a pid: the process never started. With a pid: a kill failed; ignore.
        if (child.pid === undefined) {
          if (outcome === 'running') outcome = 'spawn-error';
          spawnError = err;
          finish(null);
        }
      });
      child.once('close', (code) => finish(code));
      // Normally 'close' follows 'exit' as soon as the pipes drain. If a process that escaped the group
      // still holds them, the result is taken EXIT_GRACE_MS after the shell exited.
      child.once('exit', (code) => {
        exitGrace = setTimeout(() => finish(code), EXIT_GRACE_MS);
      });

      if (child.pid !== undefined) child.stdin?.end(request.script, 'utf8');
    });
  }

  /** Kills whatever is still running (a run in flight is then reported as cancelled by its caller's signal,
   *  or with exitCode null). */
  close(): Promise<void> {
    for (const child of this.#running) {
      if (child.pid === undefined) continue;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    return Promise.resolve();
  }
}

function spawnDetail(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `${file}: not found (ENOENT)`;
    case 'EACCES':
      return `${file}: permission denied (EACCES)`;
    default:
      return `${file}: ${err instanceof Error ? err.message : String(err)}`;
  }
}
