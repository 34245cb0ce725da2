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
import { ExecRun } from './execRun.ts';
import { errorMessage } from '../core/errorMessage.ts';

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
      return Promise.reject(new TransportError({ kind: 'spawn', detail: spawnDetail(file, err) }));
    }
    this.#running.add(child);

    let exitGrace: ReturnType<typeof setTimeout> | undefined;
    // Timeout and cancellation settle at once, without waiting for the pipes to close: a process that
    // left the group (setsid) could hold them open. After an overflow the group is killed and its close
    // (or the exit grace) settles the run.
    const run = new ExecRun({
      request,
      afterOverflow: 'await-end',
      stop: () => killGroup(child),
      onSettled: () => {
        clearTimeout(exitGrace);
        child.stdout?.destroy();
        child.stderr?.destroy();
        this.#running.delete(child);
      },
    });
    child.stdout?.on('data', (chunk: Buffer) => run.take('stdout', chunk));
    child.stderr?.on('data', (chunk: Buffer) => run.take('stderr', chunk));
    // The script may stop reading early (exit 3 on line 1): a broken pipe on stdin is not an error.
    child.stdin?.on('error', () => undefined);

    child.once('error', (err) => {
      // 'error' without a pid: the process never started. With a pid: a kill failed; ignore.
      if (child.pid === undefined) run.fail({ kind: 'spawn', detail: spawnDetail(file, err) });
    });
    child.once('close', (code) => run.finish(code));
    // Normally 'close' follows 'exit' as soon as the pipes drain. If a process that escaped the group
    // still holds them, the result is taken EXIT_GRACE_MS after the shell exited.
    child.once('exit', (code) => {
      exitGrace = setTimeout(() => run.finish(code), EXIT_GRACE_MS);
    });

    if (child.pid !== undefined) child.stdin?.end(request.script, 'utf8');
    return run.result;
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

/** Kills the child's process group (it leads one: spawned `detached`), or the child alone when that fails. */
function killGroup(child: ChildProcess): void {
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
}

function spawnDetail(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `${file}: not found (ENOENT)`;
    case 'EACCES':
      return `${file}: permission denied (EACCES)`;
    default:
      return `${file}: ${errorMessage(err)}`;
  }
}
