// Runs the `gpumem` CLI from source (`node src/cli/main.ts …args`) as a child process, with the pinned Node that
// runs the tests and never through a shell; stdin from `input`.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** Default: the repository root. */
  readonly cwd?: string;
  readonly input?: string | Uint8Array;
  /** Default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** The child is killed after this. */
  readonly timeoutMs: number;
  /** Called with the running child, e.g. to send it SIGINT mid-run. */
  readonly onStart?: (child: ChildProcess) => void;
}

export function runCli(args: readonly string[], options: CliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    options.onStart?.(child);
  });
}

/** A throwaway HOME for CLI runs, with kubeconfig files in it; no ~/.kube/config or KUBECONFIG of this machine leaks in. */
export interface CliHome {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** The path of each kubeconfig written, by the name it was given. */
  readonly kubeconfigs: Readonly<Record<string, string>>;
  cleanup(): void;
}

export function makeCliHome(
  prefix: string,
  kubeconfigs: Readonly<Record<string, string>>,
  options: { readonly unset?: readonly string[] } = {},
): CliHome {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const paths: Record<string, string> = {};
  for (const [name, text] of Object.entries(kubeconfigs)) {
    paths[name] = join(dir, `${name}.yaml`);
    writeFileSync(paths[name], text);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir };
  for (const name of ['KUBECONFIG', ...(options.unset ?? [])]) delete env[name];
  return { dir, env, kubeconfigs: paths, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
