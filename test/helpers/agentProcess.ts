// A real `gpumem agent` process (src/cli/main.ts agent) probing a chroot node root, as the tests, the e2e fleet
// scenario and `npm start`'s demo agents (test/simulator/demoAgents.ts) run it: it listens on 127.0.0.1, its log
// names the port it bound, and it stops on SIGTERM.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { CLI, REPO_ROOT } from './cli.ts';

const SERVE_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 8_000;
/** The log kept for assertions; a demo agent runs for hours. */
const MAX_LOG_CHARS = 1024 * 1024;

export interface AgentProcessOptions {
  readonly node: string;
  /** The node root the agent's probe runs in: `chroot <root> /bin/sh -s`. */
  readonly root: string;
  /** --host-root, where the root holds the node's / (fixtures built with hostRoot '/host'); default the root's /. */
  readonly hostRoot?: string;
  /** --kubeconfig: pod names from the API; without it the agent has no API (off-cluster, no service account). */
  readonly kubeconfig?: string;
  /** --listen's port (0: any free one). */
  readonly port?: number;
  readonly intervalSeconds?: number;
  readonly events?: boolean;
  /** More `gpumem agent` options, e.g. `['--gpu-watch-interval', '1']`. */
  readonly extraArgs?: readonly string[];
}

export interface AgentProcess {
  readonly node: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Its log (stderr) so far. */
  stderr(): string;
  /** Its exit code once it has exited (null when a signal ended it). */
  readonly exited: Promise<number | null>;
}

/** The options deploy/agent/Dockerfile's ENTRYPOINT gives node before the CLI (test/unit/agentDeploy.test.ts checks). */
export const IMAGE_NODE_FLAGS: readonly string[] = ['--no-concurrent-recompilation'];

/** Starts the agent; resolves once it serves, rejects if it exits first or does not serve within a minute. */
export function startAgentProcess(options: AgentProcessOptions): Promise<AgentProcess> {
  const args = [
    ...IMAGE_NODE_FLAGS,
    CLI,
    'agent',
    '--listen',
    `127.0.0.1:${options.port ?? 0}`,
    '--interval',
    String(options.intervalSeconds ?? 1),
    ...(options.hostRoot !== undefined ? ['--host-root', options.hostRoot] : []),
    '--node-name',
    options.node,
    '--probe-command',
    JSON.stringify(['chroot', options.root, '/bin/sh', '-s']),
    ...(options.kubeconfig !== undefined ? ['--kubeconfig', options.kubeconfig] : []),
    ...(options.events ? ['--events'] : []),
    ...(options.extraArgs ?? []),
  ];
  // No KUBERNETES_SERVICE_HOST: without --kubeconfig the agent has no API.
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: tmpdir() },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`the agent on ${options.node} did not serve within ${SERVE_TIMEOUT_MS / 1000} s: ${log.slice(-400)}`));
    }, SERVE_TIMEOUT_MS);
    let serving = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      if (log.length < MAX_LOG_CHARS) log += chunk.toString('utf8');
      if (serving) return;
      const match = /serving http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(log);
      if (!match?.[1]) return;
      serving = true;
      clearTimeout(timer);
      resolve({ node: options.node, port: Number(match[1]), child, stderr: () => log, exited });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the agent on ${options.node} exited ${code}: ${log.slice(-400)}`));
    });
  });
}

/** SIGTERM, then SIGKILL after a grace period; resolves with its exit code. */
export function stopAgentProcess(agent: AgentProcess): Promise<number | null> {
  if (agent.child.exitCode === null && agent.child.signalCode === null) {
    const kill = setTimeout(() => agent.child.kill('SIGKILL'), STOP_GRACE_MS);
    void agent.exited.then(() => clearTimeout(kill));
    agent.child.kill('SIGTERM');
  }
  return agent.exited;
}
