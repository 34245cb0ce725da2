// The demo cluster's gpumem agents (`npm start`; test/simulator/main.ts --agents): one real `gpumem agent` process
// per node that has a fixture root, probing that root through chroot as the DaemonSet probes /host. Each agent's
// pod is put in gpumem-system (labelled as deploy/agent labels it) and its /metrics set behind the simulator's pod
// proxy, so the Fleet view and `gpumem fleet` read the agents exactly as in a cluster with deploy/agent installed.
// Needs the simulator's roots (root, chroot); without them there is no agent, and the Fleet view offers its scan.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { CLI, REPO_ROOT } from '../helpers/cli.ts';
import type { KubeObject } from './objects.ts';
import type { Simulator } from './server.ts';

const AGENT_NAMESPACE = 'gpumem-system';
/** The container port the DaemonSet names `metrics` (deploy/agent/base/daemonset.yaml). */
const METRICS_PORT = 9400;
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 8_000;

export interface DemoAgents {
  /** The nodes that run an agent, with the local address of its /metrics. */
  readonly agents: readonly { readonly node: string; readonly url: string }[];
  stop(): Promise<void>;
}

/** `gpumem agent` on one node root; resolves with its port once it serves. */
function startAgent(
  node: string,
  root: string,
  kubeconfigFile: string,
  intervalSeconds: number,
): Promise<{ child: ChildProcess; port: number }> {
  const args = [
    CLI,
    'agent',
    '--listen',
    '127.0.0.1:0',
    '--interval',
    String(intervalSeconds),
    '--node-name',
    node,
    '--probe-command',
    JSON.stringify(['chroot', root, '/bin/sh', '-s']),
    '--kubeconfig',
    kubeconfigFile,
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: tmpdir() },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`the agent on ${node} did not serve within ${START_TIMEOUT_MS / 1000} s: ${stderr.slice(-400)}`));
    }, START_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 65_536) stderr += chunk.toString('utf8');
      const match = /serving http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the agent on ${node} exited ${code}: ${stderr.slice(-400)}`));
    });
  });
}

function agentPod(node: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `gpumem-agent-${node}`,
      namespace: AGENT_NAMESPACE,
      labels: { 'app.kubernetes.io/name': 'gpumem-agent', 'app.kubernetes.io/part-of': 'gpumem' },
    },
    spec: {
      nodeName: node,
      containers: [
        { name: 'agent', image: 'ghcr.io/gpumem/gpumem-agent:0.1.0', ports: [{ name: 'metrics', containerPort: METRICS_PORT }] },
      ],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as KubeObject;
}

/** Starts an agent on every node with a fixture root; stops those it started if one fails. */
export async function startDemoAgents(sim: Simulator, kubeconfigFile: string, intervalSeconds = 15): Promise<DemoAgents> {
  const running: { node: string; child: ChildProcess; url: string }[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      running.splice(0).map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    if (!sim.state.list('namespaces').some((ns) => ns.metadata.name === AGENT_NAMESPACE))
      sim.state.store.put('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: AGENT_NAMESPACE } } as KubeObject);
    for (const node of sim.state.list('nodes').map((object) => String(object.metadata.name))) {
      const root = sim.nodeRoot(node);
      if (root === undefined) continue;
      const { child, port } = await startAgent(node, root, kubeconfigFile, intervalSeconds);
      const url = `http://127.0.0.1:${port}`;
      running.push({ node, child, url });
      sim.state.store.put('pods', agentPod(node));
      sim.setPodProxy(AGENT_NAMESPACE, `gpumem-agent-${node}`, METRICS_PORT, url);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { agents: running.map(({ node, url }) => ({ node, url })), stop };
}
