// The Clusters view's commands, each a small function of the shared Ctx and the tree (rust-analyzer's
// commands-as-functions): run from a tree item's context menu they act on that item; from the command palette
// they ask for the context, the node and the pod with quick picks. All of them need workspace trust.
// - Inspect Node: the node probe in a debug pod (or over SSH to the node's InternalIP, setting
//   gpumem.kubernetes.nodeProbe = ssh), with the node's pod names and HAMi device-plugin pods for the report;
// - Inspect Pod: the container probe through pod exec (a container pick when several);
// - Run HAMi Checklist on Pod: the container probe plus the cluster-side HAMi checks;
// - Explain OOM Kills on Node: the node probe's kernel log plus the node's SystemOOM events;
// - Copy Probe Command: the kubectl line to run the same probe by hand;
// - Open Manifest: the live pod YAML, read-only, linted.
// RBAC refusals are explained with the refused verb and resource (failureMessages.ts).
import * as vscode from 'vscode';
import type { V1Pod } from '@kubernetes/client-node';
import type { Inspection } from '../../core/inspection/analyze.ts';
import { explainKubeFailure, explainProbeFailure } from '../../core/kube/failureMessages.ts';
import type { FailurePlace } from '../../core/kube/failureMessages.ts';
import type { GpuNodeSummary } from '../../core/kube/nodes.ts';
import type { GpuPodSummary } from '../../core/kube/pods.ts';
import { hamiFactsFromPod, podHealth, summarizePod } from '../../core/kube/pods.ts';
import { nodeProbeCommand, podProbeCommand } from '../../core/kube/probeCommand.ts';
import type { ProbeCommand } from '../../core/kube/probeCommand.ts';
import { contextTreeItem, nodeTreeItem, plainText, podTreeItem } from '../../core/kube/treeItems.ts';
import { buildProbeScript, newNonce } from '../../core/probe/script.ts';
import { TransportError } from '../../core/probe/transport.ts';
import type { Transport } from '../../core/probe/transport.ts';
import { nodeEventsMarkdown, hamiClusterMarkdown } from '../../core/report/clusterReport.ts';
import type { HamiClusterSection } from '../../core/report/clusterReport.ts';
import { inspectionToMarkdown, md } from '../../core/report/inspectionReport.ts';
import { oomToMarkdown } from '../../core/report/oomReport.ts';
import type { ClusterClient } from '../../kube/clusterClient.ts';
import { HAMI_DEVICE_PLUGIN_SELECTOR, KubeRequestError } from '../../kube/clusterClient.ts';
import { DebugPodTransport } from '../../kube/debugPodTransport.ts';
import { isHamiManaged, listNodeGpuPods, nodeMemoryEventsOf, podContainers, podHamiFacts, podNamesOf } from '../../kube/explorer.ts';
import { PodExecTransport } from '../../kube/podExecTransport.ts';
import type { Ctx } from '../ctx.ts';
import { inspectWithTransport } from '../commands/inspectLocal.ts';
import { createSshTransport } from '../commands/inspectSsh.ts';
import { showMarkdownReport } from '../reportView.ts';
import { requireTrust } from '../trust.ts';
import type { ClusterElement, ClusterTreeProvider, ContextElement, NodeElement, PodElement } from './clusterTree.ts';
import { manifestUri } from './manifestProvider.ts';
import type { PodManifestProvider } from './manifestProvider.ts';

export const CLUSTER_COMMANDS = {
  refresh: 'gpumem.refreshClusters',
  showAllContexts: 'gpumem.showAllContexts',
  inspectNode: 'gpumem.inspectNode',
  inspectPod: 'gpumem.inspectPod',
  hamiChecklist: 'gpumem.hamiChecklistPod',
  explainNodeOom: 'gpumem.explainNodeOom',
  copyProbeCommand: 'gpumem.copyProbeCommand',
  openManifest: 'gpumem.openPodManifest',
} as const;

interface NodeTarget {
  readonly context: ContextElement;
  readonly client: ClusterClient;
  readonly node: GpuNodeSummary;
}

interface PodTarget {
  readonly context: ContextElement;
  readonly client: ClusterClient;
  readonly pod: V1Pod;
  readonly summary: GpuPodSummary;
}

const isElement = (value: unknown, kind: ClusterElement['kind']): boolean =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === kind && typeof (value as { id?: unknown }).id === 'string';

function errorText(error: unknown, place: FailurePlace): string {
  if (error instanceof TransportError) return explainProbeFailure(error.failure, place);
  if (error instanceof KubeRequestError) return explainKubeFailure(error.failure, place);
  return error instanceof Error ? error.message : String(error);
}

function showError(ctx: Ctx, text: string): void {
  ctx.output.error(text);
  void vscode.window.showErrorMessage(`gpumem: ${text}`);
}

// -------------------------------------------------------------------------------------------------
// Picking a target (palette) or taking it from the tree item

async function pickContext(tree: ClusterTreeProvider): Promise<ContextElement | undefined> {
  const contexts = await tree.ensureLoaded();
  if (contexts.length === 0) {
    void vscode.window.showInformationMessage('gpumem: no Kubernetes context found (KUBECONFIG, ~/.kube/config or the gpumem.kubeconfig setting).');
    return undefined;
  }
  if (contexts.length === 1) return contexts[0];
  const picked = await vscode.window.showQuickPick(
    contexts.map((context) => ({ label: plainText(context.info.name), description: contextTreeItem(context.info, context.state, { connecting: false }).description, context })),
    { placeHolder: 'Kubernetes context (from your kubeconfig; gpumem never changes its current context)' },
  );
  return picked?.context;
}

async function pickNode(ctx: Ctx, tree: ClusterTreeProvider, context: ContextElement): Promise<NodeElement | undefined> {
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `gpumem: listing the nodes of ${context.info.name}` }, () => tree.loadContext(context));
  if (context.state.kind !== 'Reachable') {
    showError(ctx, context.state.kind === 'Forbidden'
      ? explainKubeFailure({ kind: 'forbidden', verb: context.state.verb, resource: context.state.resource, message: '' }, { context: context.info.name })
      : `context "${context.info.name}": ${context.state.kind === 'Unreachable' ? context.state.reason : 'not reachable'}`);
    return undefined;
  }
  const now = Date.now();
  const picked = await vscode.window.showQuickPick(
    (context.nodes ?? []).map((node) => ({ label: plainText(node.summary.name), description: nodeTreeItem(node.summary, node.events, now).description, node })),
    { placeHolder: `Node of ${context.info.name} (GPU nodes first)`, matchOnDescription: true },
  );
  return picked?.node;
}

async function pickPod(ctx: Ctx, tree: ClusterTreeProvider, node: NodeElement): Promise<PodTarget | undefined> {
  const client = tree.client(node.context);
  let pods;
  try {
    pods = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `gpumem: listing the pods on ${node.summary.name}` }, () => listNodeGpuPods(client, node.summary.name));
  } catch (error) {
    showError(ctx, errorText(error, { context: node.context.info.name, action: `Pods on ${node.summary.name}` }));
    return undefined;
  }
  if (pods.gpuPods.length === 0) {
    void vscode.window.showInformationMessage(`gpumem: no GPU pod runs on ${node.summary.name}.`);
    return undefined;
  }
  const now = Date.now();
  const picked = await vscode.window.showQuickPick(
    pods.gpuPods.map((pod) => ({ label: plainText(pod.summary.name), description: podTreeItem(pod.summary, now).description, pod })),
    { placeHolder: `GPU pod on ${node.summary.name}`, matchOnDescription: true },
  );
  return picked ? { context: node.context, client, pod: picked.pod.raw, summary: picked.pod.summary } : undefined;
}

async function nodeTarget(ctx: Ctx, tree: ClusterTreeProvider, arg: unknown): Promise<NodeTarget | undefined> {
  let node: NodeElement | undefined;
  if (isElement(arg, 'node')) node = arg as NodeElement;
  else if (isElement(arg, 'pod')) node = (arg as PodElement).node;
  else {
    const context = await pickContext(tree);
    node = context ? await pickNode(ctx, tree, context) : undefined;
  }
  return node ? { context: node.context, client: tree.client(node.context), node: node.summary } : undefined;
}

async function podTarget(ctx: Ctx, tree: ClusterTreeProvider, arg: unknown): Promise<PodTarget | undefined> {
  if (isElement(arg, 'pod')) {
    const pod = arg as PodElement;
    return { context: pod.node.context, client: tree.client(pod.node.context), pod: pod.raw, summary: pod.summary };
  }
  if (isElement(arg, 'node')) return pickPod(ctx, tree, arg as NodeElement);
  const context = await pickContext(tree);
  const node = context ? await pickNode(ctx, tree, context) : undefined;
  return node ? pickPod(ctx, tree, node) : undefined;
}

/** The container to probe: asked when the pod has several app containers (GPU ones first). */
async function pickContainer(pod: V1Pod): Promise<{ container: string | undefined } | undefined> {
  const containers = podContainers(pod);
  if (containers.length <= 1) return { container: containers[0]?.name };
  const summary = summarizePod(pod);
  const picked = await vscode.window.showQuickPick(
    containers.map((c) => ({
      label: plainText(c.name),
      description: c.gpu ? `GPU: ${summary.gpuContainers.find((g) => g.container === c.name)?.resources.map((r) => `${r.name} ${r.request ?? r.limit ?? ''}`).join(', ') ?? ''}` : plainText(c.image ?? ''),
      name: c.name,
    })),
    { placeHolder: `Container of ${pod.metadata?.namespace}/${pod.metadata?.name} to probe` },
  );
  return picked ? { container: picked.name } : undefined;
}

// -------------------------------------------------------------------------------------------------
// Node probes

function nodeAddress(node: GpuNodeSummary): string | undefined {
  for (const type of ['InternalIP', 'ExternalIP', 'Hostname']) {
    const address = node.addresses.find((a) => a.type === type)?.address;
    if (address) return address;
  }
  return undefined;
}

/** Runs the node probe (debug pod or SSH) with the cluster's pod names; `show` presents the result. */
async function runNodeProbe(ctx: Ctx, tree: ClusterTreeProvider, target: NodeTarget, action: string, show?: (inspection: Inspection) => Promise<void>): Promise<Inspection | undefined> {
  const settings = tree.kubeSettings;
  const name = target.node.name;
  let transport: Transport;
  let hostRoot: string;
  let place: FailurePlace;
  if (settings.nodeProbe === 'ssh') {
    const address = nodeAddress(target.node);
    if (!address) {
      showError(ctx, `${action} ${name}: the node reports no InternalIP, ExternalIP or Hostname to reach over SSH (gpumem.kubernetes.nodeProbe is "ssh").`);
      return undefined;
    }
    try {
      transport = createSshTransport(ctx, address);
    } catch (error) {
      showError(ctx, `${action} ${name}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    hostRoot = '';
    place = { context: target.context.info.name, action: `${action} ${name}` };
  } else {
    const debug = new DebugPodTransport({
      client: target.client,
      node: name,
      namespace: settings.debugNamespace,
      image: settings.debugImage,
      log: (line) => ctx.output.info(line),
    });
    transport = debug;
    hostRoot = debug.hostRoot;
    place = { context: target.context.info.name, namespace: settings.debugNamespace, action: `${action} ${name}` };
  }
  const inspection = await inspectWithTransport(ctx, transport, `${action} ${name} (context ${target.context.info.name})`, {
    probe: { scope: 'node', hostRoot },
    analysis: async (signal) => {
      const { pods } = await target.client.listPodsOnNode(name, { signal });
      const plugins = target.node.hami ? pods.filter((pod) => pod.metadata?.labels?.['app.kubernetes.io/component'] === HAMI_DEVICE_PLUGIN_SELECTOR.split('=')[1]) : [];
      return { podNames: podNamesOf(pods), ...(target.node.hami ? { hamiCluster: { devicePluginPods: plugins.map((pod) => podHealth(pod)) } } : {}) };
    },
    ...(show ? { show } : {}),
    explainError: (error) => errorText(error, place),
  });
  if (transport instanceof DebugPodTransport && transport.cleanupFailures.length > 0) {
    void vscode.window.showWarningMessage(`gpumem: ${transport.cleanupFailures.join(' ')}`);
  }
  return inspection;
}

export function inspectNode(ctx: Ctx, tree: ClusterTreeProvider) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Inspect Node')) return;
    const target = await nodeTarget(ctx, tree, arg);
    if (target) await runNodeProbe(ctx, tree, target, 'Inspecting node');
  };
}

export function explainNodeOom(ctx: Ctx, tree: ClusterTreeProvider) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Explain OOM Kills on Node')) return;
    const target = await nodeTarget(ctx, tree, arg);
    if (!target) return;
    const name = target.node.name;
    // The node's events are read while the probe runs.
    const events = nodeMemoryEventsOf(target.client, name).then(
      (list) => ({ list, problem: undefined as string | undefined }),
      (error: unknown) => ({ list: [], problem: errorText(error, { context: target.context.info.name, namespace: 'default', action: 'Node events' }) }),
    );
    await runNodeProbe(ctx, tree, target, 'Explaining OOM kills on node', async (inspection) => {
      const { list, problem } = await events;
      const source = `kernel log of node ${name} (${inspection.target})`;
      const oom = inspection.node?.oom;
      const head = oom ? oomToMarkdown(oom, source) : `# OOM kills explained: ${md(source)}\n\nNo kernel log was readable on the node (dmesg needs CAP_SYSLOG; /var/log/kern.log may be absent).\n`;
      await showMarkdownReport(`${head}\n${nodeEventsMarkdown(name, list, problem)}`, `gpumem OOM kills ${name}`);
    });
  };
}

// -------------------------------------------------------------------------------------------------
// Pod probes

async function runPodProbe(ctx: Ctx, target: PodTarget, action: string, hami: boolean): Promise<void> {
  const choice = await pickContainer(target.pod);
  if (!choice) return;
  const { namespace, name } = target.summary;
  const place: FailurePlace = { context: target.context.info.name, namespace, action: `${action} ${namespace}/${name}` };
  const transport = new PodExecTransport({
    kubeConfig: target.client.kubeConfig,
    namespace,
    pod: name,
    client: target.client,
    ...(choice.container !== undefined ? { container: choice.container } : {}),
  });
  let section: HamiClusterSection | undefined;
  await inspectWithTransport(ctx, transport, `${action} ${namespace}/${name}${choice.container ? ` (${choice.container})` : ''}`, {
    probe: { scope: 'container' },
    analysis: async (signal) => {
      // Cluster facts only for a pod HAMi manages: for another pod the container's evidence decides (not-hami).
      if (!hami) return isHamiManaged(target.summary) ? { hamiCluster: hamiFactsFromPod(target.pod, choice.container) } : {};
      const facts = await podHamiFacts(target.client, target.pod, choice.container, { signal });
      section = facts.section;
      return facts.facts ? { hamiCluster: facts.facts } : {};
    },
    ...(hami
      ? {
          show: async (inspection: Inspection) => {
            const extra = section ? hamiClusterMarkdown(section) : '';
            await showMarkdownReport(`${inspectionToMarkdown(inspection)}\n${extra}`, `gpumem HAMi checklist ${namespace}/${name}`);
          },
        }
      : {}),
    explainError: (error) => errorText(error, place),
  });
}

export function inspectPod(ctx: Ctx, tree: ClusterTreeProvider) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Inspect Pod')) return;
    const target = await podTarget(ctx, tree, arg);
    if (target) await runPodProbe(ctx, target, 'Inspecting pod', false);
  };
}

export function hamiChecklistOnPod(ctx: Ctx, tree: ClusterTreeProvider) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Run HAMi Checklist on Pod')) return;
    const target = await podTarget(ctx, tree, arg);
    if (target) await runPodProbe(ctx, target, 'HAMi checklist on pod', true);
  };
}

// -------------------------------------------------------------------------------------------------
// By hand, and the manifest

export function copyProbeCommand(ctx: Ctx, tree: ClusterTreeProvider) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Copy Probe Command')) return;
    let command: ProbeCommand | undefined;
    if (isElement(arg, 'pod') || isElement(arg, 'node')) {
      command = isElement(arg, 'pod') ? podCommand(arg as PodElement, (arg as PodElement).node.context) : nodeCommand(tree, arg as NodeElement);
    } else {
      const context = await pickContext(tree);
      const node = context ? await pickNode(ctx, tree, context) : undefined;
      if (!node) return;
      const which = await vscode.window.showQuickPick(
        [
          { label: `Node ${plainText(node.summary.name)}`, description: 'kubectl debug node/… (node probe from a debug pod)', pod: false },
          { label: 'A GPU pod on this node…', description: 'kubectl exec … (container probe)', pod: true },
        ],
        { placeHolder: 'Probe the node or one of its pods?' },
      );
      if (!which) return;
      if (!which.pod) command = nodeCommand(tree, node);
      else {
        const pod = await pickPod(ctx, tree, node);
        if (!pod) return;
        command = podProbeCommand({ context: pod.context.info.name, namespace: pod.summary.namespace, pod: pod.summary.name, container: (await pickContainer(pod.pod))?.container });
      }
    }
    if (!command) return;
    await vscode.env.clipboard.writeText(command.command);
    ctx.output.info(`Probe command: ${command.command}\n  ${command.notes.join('\n  ')}`);
    const save = 'Save probe.sh…';
    const answer = await vscode.window.showInformationMessage(`gpumem: probe command copied. ${command.notes[0] ?? ''}`, save);
    if (answer !== save) return;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri = await vscode.window.showSaveDialog({ saveLabel: 'Save probe script', ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, 'probe.sh') } : {}), filters: { 'Shell script': ['sh'] } });
    if (!uri) return;
    const script = buildProbeScript({ scope: command.script.scope, nonce: newNonce(), hostRoot: command.script.hostRoot });
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(script));
  };
}

function nodeCommand(tree: ClusterTreeProvider, node: NodeElement): ProbeCommand {
  const settings = tree.kubeSettings;
  return nodeProbeCommand({ context: node.context.info.name, node: node.summary.name, namespace: settings.debugNamespace, image: settings.debugImage });
}

function podCommand(pod: PodElement, context: ContextElement): ProbeCommand {
  const gpu = pod.summary.gpuContainers.find((c) => c.role === 'app')?.container;
  const container = gpu ?? pod.raw.spec?.containers?.[0]?.name;
  return podProbeCommand({ context: context.info.name, namespace: pod.summary.namespace, pod: pod.summary.name, container });
}

export function openPodManifest(ctx: Ctx, tree: ClusterTreeProvider, manifests: PodManifestProvider) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Open Manifest')) return;
    const target = await podTarget(ctx, tree, arg);
    if (!target) return;
    const uri = manifestUri(target.context.info.name, target.summary.namespace, target.summary.name);
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `gpumem: reading pod ${target.summary.name}` }, () => manifests.fetch(uri));
    } catch (error) {
      showError(ctx, errorText(error, { context: target.context.info.name, namespace: target.summary.namespace, action: `Open Manifest ${target.summary.namespace}/${target.summary.name}` }));
      return;
    }
    const document = await vscode.workspace.openTextDocument(uri);
    const yaml = document.languageId === 'yaml' ? document : await vscode.languages.setTextDocumentLanguage(document, 'yaml');
    await vscode.window.showTextDocument(yaml, { preview: false });
  };
}

/** Registers every Clusters command. */
export function registerClusterCommands(ctx: Ctx, tree: ClusterTreeProvider, manifests: PodManifestProvider): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(CLUSTER_COMMANDS.refresh, (arg?: unknown) => tree.refresh(isElement(arg, 'context') || isElement(arg, 'node') ? (arg as ClusterElement) : undefined)),
    vscode.commands.registerCommand(CLUSTER_COMMANDS.showAllContexts, () => tree.showAllContexts()),
    vscode.commands.registerCommand(CLUSTER_COMMANDS.inspectNode, inspectNode(ctx, tree)),
    vscode.commands.registerCommand(CLUSTER_COMMANDS.inspectPod, inspectPod(ctx, tree)),
    vscode.commands.registerCommand(CLUSTER_COMMANDS.hamiChecklist, hamiChecklistOnPod(ctx, tree)),
    vscode.commands.registerCommand(CLUSTER_COMMANDS.explainNodeOom, explainNodeOom(ctx, tree)),
    vscode.commands.registerCommand(CLUSTER_COMMANDS.copyProbeCommand, copyProbeCommand(ctx, tree)),
    vscode.commands.registerCommand(CLUSTER_COMMANDS.openManifest, openPodManifest(ctx, tree, manifests)),
  ];
}
