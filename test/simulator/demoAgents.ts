// The demo cluster's gpumem agents (`npm start`; test/simulator/main.ts --agents): one real `gpumem agent` process
// per node that has a fixture root, probing that root through chroot as the DaemonSet probes /host. Each agent's
// pod is put in gpumem-system (labelled as deploy/agent labels it) and its /metrics set behind the simulator's pod
// proxy, so the Fleet view and `gpumem fleet` read the agents exactly as in a cluster with deploy/agent installed.
// Needs the simulator's roots (root, chroot); without them there is no agent, and the Fleet view offers its scan.
import { randomUUID } from 'node:crypto';
import type { AgentProcess } from '../helpers/agentProcess.ts';
import { startAgentProcess, stopAgentProcess } from '../helpers/agentProcess.ts';
import { waitFor } from '../helpers/waitFor.ts';
import type { KubeObject } from './objects.ts';
import type { Simulator } from './server.ts';

const AGENT_NAMESPACE = 'gpumem-system';
/** The container port the DaemonSet names `metrics` (deploy/agent/base/daemonset.yaml). */
const METRICS_PORT = 9400;

export interface DemoAgents {
  /** The nodes that run an agent, with the local address of its /metrics. */
  readonly agents: readonly { readonly node: string; readonly url: string }[];
  stop(): Promise<void>;
}

function agentPod(node: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `gpumem-agent-${node}`,
      namespace: AGENT_NAMESPACE,
      uid: randomUUID(),
      creationTimestamp: new Date().toISOString(),
      labels: { 'app.kubernetes.io/name': 'gpumem-agent', 'app.kubernetes.io/part-of': 'gpumem' },
    },
    // As deploy/agent/base/daemonset.yaml makes it: the node's / at /host (so Inspect Node execs its probe here).
    spec: {
      nodeName: node,
      hostPID: true,
      volumes: [{ name: 'host-root', hostPath: { path: '/', type: 'Directory' } }],
      containers: [
        {
          name: 'agent',
          image: 'ghcr.io/gpumem/gpumem-agent:0.1.0',
          ports: [{ name: 'metrics', containerPort: METRICS_PORT }],
          volumeMounts: [{ name: 'host-root', mountPath: '/host', readOnly: true }],
        },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'agent', ready: true, restartCount: 0, state: { running: { startedAt: new Date().toISOString() } } }],
    },
  } as KubeObject;
}

/** Starts an agent on every node with a fixture root; stops those it started if one fails. */
export async function startDemoAgents(sim: Simulator, kubeconfigFile: string, intervalSeconds = 15): Promise<DemoAgents> {
  const running: AgentProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(running.splice(0).map((agent) => stopAgentProcess(agent)));
  };
  const agents: { node: string; url: string }[] = [];
  try {
    if (!sim.state.list('namespaces').some((ns) => ns.metadata.name === AGENT_NAMESPACE))
      sim.state.store.put('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: AGENT_NAMESPACE } } as KubeObject);
    for (const node of sim.state.list('nodes').map((object) => String(object.metadata.name))) {
      const root = sim.nodeRoot(node);
      if (root === undefined) continue;
      const agent = await startAgentProcess({ node, root, kubeconfig: kubeconfigFile, intervalSeconds });
      running.push(agent);
      const url = `http://127.0.0.1:${agent.port}`;
      agents.push({ node, url });
      sim.state.store.put('pods', agentPod(node));
      sim.setPodProxy(AGENT_NAMESPACE, `gpumem-agent-${node}`, METRICS_PORT, url);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { agents, stop };
}

/**
 * Until the agent of `node` reports `pod` by name with its per-container series: an agent names a pod once its watch
 * of the API is current, and until then its series carry no pod name.
 */
export async function agentReportsPod(agents: DemoAgents, node: string, pod: string): Promise<void> {
  const agent = agents.agents.find((one) => one.node === node);
  if (!agent) throw new Error(`no demo agent on ${node}`);
  await waitFor(
    `the agent on ${node} to report ${pod} by name`,
    async () => {
      const text = await fetch(`${agent.url}/metrics`).then(
        (answer) => answer.text(),
        () => '',
      );
      return text.includes('gpumem_container_memory_working_set_bytes{') && text.includes(`pod="${pod}"`) ? true : undefined;
    },
    { timeoutMs: 60_000, pollMs: 250 },
  );
}
