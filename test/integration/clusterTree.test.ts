// The Clusters view against the simulator, WITHOUT VS Code, in two parts:
// - the tree itself: src/clusters/clusterTreeContent.ts (what the view's thin adapter, src/vscode/clusters/clusterTree.ts,
//   hands to VS Code) over the real ClusterModel, asked for rows as VS Code asks when rows are expanded: contexts →
//   nodes → GPU pods, with the names the fixture's own objects imply, a context refused the node list, a node refused
//   its pod list, an unreachable context and the "all unreachable" welcome state;
// - the row builders in src/core/kube/ fed by src/kube/explorer.ts through the real @kubernetes/client-node
//   ClusterClient, in detail: every context of a multi-file KUBECONFIG at once, the RBAC messages (a user that may list
//   nothing, the restricted node the `limited` user cannot debug), an unreachable and a silent context (never
//   blocking longer than the probe timeout), server-side pod selection, the watch feeding the node's children,
//   hostile strings rendered as text, the "Copy Probe Command" lines, the HAMi cluster facts and the live
//   manifest that "Open Manifest" lints.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { V1Pod } from '@kubernetes/client-node';
import { explainForbidden, explainKubeFailure, explainProbeFailure } from '../../src/core/kube/failureMessages.ts';
import { nodeProbeCommand, podProbeCommand, shellQuote } from '../../src/core/kube/probeCommand.ts';
import { contextTreeItem } from '../../src/core/kube/contextTreeItem.ts';
import { noGpuPodsItem, otherPodsItem } from '../../src/core/kube/messageTreeItems.ts';
import { nodeTreeItem } from '../../src/core/kube/nodeTreeItem.ts';
import { podTreeItem } from '../../src/core/kube/podTreeItem.ts';
import { markdownText, plainLabel } from '../../src/core/text/escape.ts';
import type { ContextInfo } from '../../src/core/kube/contextTreeItem.ts';
import type { TreeItemModel } from '../../src/core/kube/treeItemModel.ts';
import { lintText } from '../../src/core/lint.ts';
import { DEFAULT_UNIFIED_MEMORY_LABELS } from '../../src/core/config.ts';
import { parseKubeSettings } from '../../src/core/settings.ts';
import { ClusterModel } from '../../src/clusters/clusterModel.ts';
import type { ContextElement, NodeElement } from '../../src/clusters/clusterModel.ts';
import { ClusterTreeContent } from '../../src/clusters/clusterTreeContent.ts';
import type { ClusterElement } from '../../src/clusters/clusterTreeContent.ts';
import { hamiClusterMarkdown, nodeEventsMarkdown } from '../../src/core/report/clusterReport.ts';
import { TransportError } from '../../src/core/probe/transport.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { DebugPodTransport } from '../../src/kube/debugPodTransport.ts';
import type { ContextNodes, ExplorerNode, NodePods } from '../../src/kube/explorer.ts';
import {
  listNodeGpuPods,
  loadContextNodes,
  nodeMemoryEventsOf,
  podContainers,
  podHamiFacts,
  podManifestYaml,
  splitGpuPods,
} from '../../src/kube/explorer.ts';
import { loadKubeconfigs } from '../../src/kube/kubeconfig.ts';
import type { LoadedContext, LoadedKubeconfig } from '../../src/kube/kubeconfig.ts';
import { fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { DEMO_GIT_VERSION, startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();
const T = { timeout: 60_000 };
const DEBUG_NS = 'gpumem-debug';

function infoOf(context: LoadedContext, current: string | undefined): ContextInfo {
  return {
    name: context.name,
    cluster: context.cluster,
    user: context.user,
    namespace: context.namespace,
    server: context.server,
    proxyUrl: context.proxyUrl,
    execCommand: context.execCommand,
    file: context.file,
    problem: context.problem,
    current: context.name === current,
  };
}

function node(nodes: ContextNodes, name: string): ExplorerNode {
  const found = nodes.nodes.find((n) => n.summary.name === name);
  assert.ok(found, `node ${name} is listed: ${nodes.nodes.map((n) => n.summary.name).join(', ')}`);
  return found;
}

function nodeItem(nodes: ContextNodes, name: string, now = Date.now()): TreeItemModel {
  return nodeTreeItem(node(nodes, name).summary, nodes.events.get(name) ?? [], now);
}

function podItem(pods: NodePods, name: string, now = Date.now()): TreeItemModel {
  const found = pods.gpuPods.find((p) => p.summary.name === name);
  assert.ok(found, `GPU pod ${name} is listed: ${pods.gpuPods.map((p) => p.summary.name).join(', ')}`);
  return podTreeItem(found.summary, now);
}

/** A tooltip as the reader sees it: the Markdown escapes and entities of markdownText() removed. */
function text(markdown: string): string {
  return markdown
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Markdown that came from cluster values must carry no live syntax: no HTML, link, image or autolink. */
function assertInert(markdown: string, hostile: readonly string[]): void {
  for (const text of hostile)
    assert.ok(!markdown.includes(text), `the tooltip does not contain ${JSON.stringify(text)} verbatim:\n${markdown}`);
  assert.doesNotMatch(markdown, /(^|[^\\])<[a-z]/i, 'no raw HTML tag');
  assert.doesNotMatch(markdown, /(^|[^\\])\]\(/, 'no link or image');
  assert.doesNotMatch(markdown, /(^|[^\\])https?:\/\//, 'no autolinked URL');
}

// ------------------------------------------------------------------------------------------------------------------
// The tree: ClusterTreeContent over ClusterModel, as the view asks for rows.

/** A fixture object's fields this part reads (the simulator serves the fixture's objects as they are). */
interface FixtureObject {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly annotations?: Record<string, string> };
  readonly spec?: {
    readonly nodeName?: string;
    readonly containers?: readonly { readonly resources?: { readonly limits?: Record<string, string> } }[];
  };
  readonly status?: { readonly capacity?: Record<string, string> };
}

// What the fixture implies, by rules written here rather than taken from the code under test: a GPU node has a
// vendor device plugin's GPU resource in its capacity; a GPU pod has a container whose limits name one; HAMi manages a
// pod when HAMi's scheduler annotated its allocation. Nodes show GPU ones first, each group by name; pods by name.
const GPU_RESOURCES = ['nvidia.com/gpu', 'amd.com/gpu'];
const FIXTURE = loadFixtures().objects as unknown as readonly FixtureObject[];
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const fixtureNodes = FIXTURE.filter((o) => o.kind === 'Node');
const isGpuNode = (o: FixtureObject): boolean => GPU_RESOURCES.some((r) => Number(o.status?.capacity?.[r] ?? 0) > 0);
const EXPECTED_NODES = [
  ...fixtureNodes
    .filter(isGpuNode)
    .map((o) => o.metadata.name)
    .sort(byName),
  ...fixtureNodes
    .filter((o) => !isGpuNode(o))
    .map((o) => o.metadata.name)
    .sort(byName),
];
const podsOn = (node: string) => FIXTURE.filter((o) => o.kind === 'Pod' && o.spec?.nodeName === node);
const isGpuPod = (o: FixtureObject): boolean =>
  (o.spec?.containers ?? []).some((c) => GPU_RESOURCES.some((r) => Number(c.resources?.limits?.[r] ?? 0) > 0));

function expectedPodRows(node: string): { readonly gpu: readonly string[]; readonly others: number; readonly hami: readonly string[] } {
  const pods = podsOn(node);
  const gpu = pods.filter(isGpuPod);
  return {
    gpu: gpu.map((o) => o.metadata.name).sort(byName),
    others: pods.length - gpu.length,
    hami: gpu.filter((o) => o.metadata.annotations?.['hami.io/vgpu-devices-allocated'] !== undefined).map((o) => o.metadata.name),
  };
}

describe('the Clusters tree (ClusterTreeContent over ClusterModel) against the simulator', () => {
  let sim: Simulator;
  let dir: string;
  let closedPort: number;
  const lines: string[] = [];

  function modelFor(kubeconfigText: string, file: string): { model: ClusterModel; tree: ClusterTreeContent } {
    const path = join(dir, file);
    writeFileSync(path, kubeconfigText, { mode: 0o600 });
    const settings = parseKubeSettings((key) => (key === 'gpumem.kubeconfig' ? path : undefined), {
      debugImage: 'busybox:1.36',
      liveDebugPodDeadlineSeconds: 3600,
      liveDebugPodIdleMs: 120_000,
    });
    const log = (line: string) => void lines.push(line);
    const model = new ClusterModel({
      readSettings: () => settings,
      unifiedMemoryLabels: () => DEFAULT_UNIFIED_MEMORY_LABELS,
      log: { debug: log, info: log, warn: log, error: log },
    });
    return { model, tree: new ClusterTreeContent(model) };
  }

  /** One kubeconfig: the simulator's admin and nobody users, and a context whose server is a closed port. */
  function kubeconfigWithOffline(users: readonly string[]): string {
    const config = parseYaml(sim.kubeconfig(users)) as {
      clusters: unknown[];
      users: { name: string; user: unknown }[];
      contexts: { name: string; context: unknown }[];
    };
    config.clusters.push({ name: 'offline', cluster: { server: `https://127.0.0.1:${closedPort}`, 'insecure-skip-tls-verify': true } });
    config.contexts.push({ name: 'staging-offline', context: { cluster: 'offline', user: config.users[0]?.name } });
    return stringifyYaml(config);
  }

  const labels = (tree: ClusterTreeContent, rows: readonly ClusterElement[]): string[] =>
    rows.map((row) => tree.item(row, Date.now()).label);

  /** The rows under a row once its load settled: asks (which starts the load), waits, asks again. */
  async function settledChildren(tree: ClusterTreeContent, element: ContextElement | NodeElement): Promise<ClusterElement[]> {
    const first = tree.children(element);
    await waitFor(`${element.id} loaded`, () =>
      element.kind === 'context' ? !element.connecting : element.pods !== undefined || element.podsError !== undefined,
    );
    return first.some((row) => row.kind === 'message' && /^(Connecting|Loading)/.test(row.model.label)) ? tree.children(element) : first;
  }

  before(async () => {
    sim = await startSimulator({ fixtures: loadFixtures(), roots: false });
    dir = mkdtempSync(join(tmpdir(), 'gpumem-tree-content-'));
    closedPort = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
  });

  after(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('contexts → nodes → GPU pods, a refused node list, a refused pod list, an unreachable context', T, async () => {
    const { model, tree } = modelFor(kubeconfigWithOffline(['admin', 'nobody']), 'three.yaml');
    try {
      assert.deepEqual(await tree.root({ trusted: false, showUnreachable: false }), { kind: 'empty', state: 'restricted' });
      const root = await tree.root({ trusted: true, showUnreachable: false });
      assert.equal(root.kind, 'contexts', lines.join('\n'));
      if (root.kind !== 'contexts') return;
      assert.equal(root.message, undefined);
      assert.deepEqual(labels(tree, root.contexts), ['gpumem-demo', 'gpumem-demo-nobody', 'staging-offline']);
      const [demo, nobody, offline] = root.contexts;
      assert.ok(demo && nobody && offline);

      // The current context: "Connecting…" while its nodes are listed, then the Fleet item and the nodes.
      const connecting = tree.children(demo);
      assert.deepEqual(labels(tree, connecting), [`Connecting to ${sim.url}…`]);
      const demoRows = await settledChildren(tree, demo);
      assert.deepEqual(labels(tree, demoRows), ['Fleet', ...EXPECTED_NODES], lines.join('\n'));
      assert.equal(tree.item(demoRows[0] ?? assert.fail(), Date.now()).contextValue, 'gpumem.fleet');
      const demoItem = tree.item(demo, Date.now());
      const gpuNodes = fixtureNodes.filter(isGpuNode).length;
      assert.equal(demoItem.description, `current · ${DEMO_GIT_VERSION} · ${fixtureNodes.length} nodes, ${gpuNodes} GPU`);
      assert.equal(demoItem.contextValue, 'gpumem.context');
      assert.equal(demoItem.collapsible, true);

      // Each node: its row, then its GPU pods (and the count of the others) once its watch delivered them.
      const nodeRows = demoRows.filter((row): row is NodeElement => row.kind === 'node');
      for (const node of nodeRows) {
        const name = node.summary.name;
        assert.equal(tree.parent(node), demo);
        const item = tree.item(node, Date.now());
        assert.equal(item.contextValue, 'gpumem.node');
        assert.equal(item.collapsible, true);
        if (!EXPECTED_NODES.slice(0, gpuNodes).includes(name)) {
          assert.equal(item.description, 'no GPU');
          assert.equal(item.icon.id, 'server');
        }
        assert.deepEqual(labels(tree, tree.children(node)), ['Loading pods…'], `${name} before its pods arrive`);
        const rows = await settledChildren(tree, node);
        const expected = expectedPodRows(name);
        const podLabels = expected.gpu.length === 0 ? [] : expected.gpu;
        const note =
          expected.gpu.length === 0
            ? [expected.others === 0 ? 'No pods' : `No GPU pods (${expected.others} other pod${expected.others === 1 ? '' : 's'})`]
            : expected.others === 0
              ? []
              : [`${expected.others} pod${expected.others === 1 ? '' : 's'} without GPUs`];
        assert.deepEqual(labels(tree, rows), [...podLabels, ...note], name);
        for (const row of rows) {
          assert.equal(tree.parent(row), node);
          const rowItem = tree.item(row, Date.now());
          if (row.kind === 'pod') {
            assert.equal(
              rowItem.contextValue,
              expected.hami.includes(row.summary.name) ? 'gpumem.hamiPod' : 'gpumem.gpuPod',
              row.summary.name,
            );
            assert.ok(
              rowItem.description.startsWith(`${podsOn(name).find((o) => o.metadata.name === row.summary.name)?.metadata.namespace} · `),
            );
            assert.equal(rowItem.collapsible, false);
          } else {
            assert.equal(rowItem.contextValue, 'gpumem.message');
          }
        }
      }
      assert.deepEqual(
        [...model.watchedNodes].sort(byName),
        EXPECTED_NODES.map((n) => `gpumem-demo/${n}`).sort(byName),
        'a watch per expanded node',
      );

      // A node whose pod list the API server refuses: one row that says so, with the lock icon.
      const refusedNode = nodeRows.find((n) => n.summary.name === 'secure-node-1') ?? assert.fail('secure-node-1');
      model.refresh(refusedNode);
      sim.setFault({ forceStatus: [{ path: /^\/api\/v1\/pods\?.*secure-node-1/, code: 403 }] });
      try {
        const refused = await settledChildren(tree, refusedNode);
        assert.deepEqual(labels(tree, refused), ['forbidden: list pods']);
        const refusedItem = tree.item(refused[0] ?? assert.fail(), Date.now());
        assert.deepEqual(refusedItem.icon, { id: 'lock', color: 'list.warningForeground' });
        assert.match(text(refusedItem.tooltip), /kubectl auth can-i list pods/);
        assert.ok(!model.watchedNodes.includes('gpumem-demo/secure-node-1'), 'a refused watch is not retried');
      } finally {
        sim.setFault(null);
      }

      // A user bound to nothing: the node list is refused, and the rows say what to ask for.
      const nobodyRows = await settledChildren(tree, nobody);
      const [refusal, whatToDo] = labels(tree, nobodyRows);
      assert.equal(nobodyRows.length, 2);
      assert.equal(refusal, 'Forbidden: list nodes');
      assert.match(
        whatToDo ?? '',
        /^Your credentials for context "gpumem-demo-nobody" may not list nodes \(RBAC\)\. Check with: kubectl auth can-i/,
      );
      assert.match(
        text(tree.item(nobodyRows[1] ?? assert.fail(), Date.now()).tooltip),
        /kubectl auth can-i list nodes --context=gpumem-demo-nobody\./,
      );
      assert.equal(tree.item(nobodyRows[0] ?? assert.fail(), Date.now()).icon.id, 'lock');
      assert.equal(tree.item(nobody, Date.now()).description, 'forbidden: list nodes');

      // A closed port: unreachable, with the network advice; nothing under it but these two rows.
      const offlineRows = await settledChildren(tree, offline);
      const [error, advice] = labels(tree, offlineRows);
      assert.equal(offlineRows.length, 2);
      assert.match(error ?? '', /^Unreachable: .*ECONNREFUSED/);
      assert.match(advice ?? '', /could not be reached/);
      assert.deepEqual(tree.item(offline, Date.now()).icon, { id: 'debug-disconnect', color: 'list.errorForeground' });
    } finally {
      model.dispose();
    }
    await waitFor('the watches closed', () => sim.state.openWatches() === 0);
  });

  test('no context answers: the welcome state, and the contexts once asked to show them anyway', T, async () => {
    const only = parseYaml(kubeconfigWithOffline(['admin'])) as { contexts: { name: string }[]; ['current-context']?: string };
    only.contexts = only.contexts.filter((c) => c.name === 'staging-offline');
    only['current-context'] = 'staging-offline';
    const { model, tree } = modelFor(stringifyYaml(only), 'offline.yaml');
    try {
      await tree.root({ trusted: true, showUnreachable: false });
      await waitFor('the background probe', () => model.contexts.every((c) => c.state.kind === 'Unreachable'));
      assert.deepEqual(await tree.root({ trusted: true, showUnreachable: false }), { kind: 'empty', state: 'allUnreachable' });
      const shown = await tree.root({ trusted: true, showUnreachable: true });
      assert.deepEqual(shown.kind === 'contexts' ? labels(tree, shown.contexts) : shown, ['staging-offline']);
    } finally {
      model.dispose();
    }
  });

  test('no kubeconfig context: the welcome state and one line for the log naming the file', T, async () => {
    const { tree } = modelFor('apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n', 'empty.yaml');
    const root = await tree.root({ trusted: true, showUnreachable: false });
    assert.equal(root.kind === 'empty' ? root.state : root.kind, 'noKubeconfig');
    assert.match(
      root.kind === 'empty' && root.state === 'noKubeconfig' ? root.logLine : '',
      /no kubeconfig context in .*empty\.yaml \(setting\)/,
    );
  });
});

describe('the Clusters view against the simulator', () => {
  let sim: Simulator;
  let dir: string;
  let silent: Server;
  const silentSockets = new Set<Socket>();
  let loaded: LoadedKubeconfig;
  let admin: ClusterClient;
  let adminNodes: ContextNodes;

  function contextNamed(name: string): LoadedContext {
    const found = loaded.contexts.find((c) => c.name === name);
    assert.ok(found, `context ${name}: ${loaded.contexts.map((c) => c.name).join(', ')}`);
    return found;
  }

  before(async () => {
    sim = await startSimulator({ fixtures: loadFixtures(), roots: !NO_ROOTS });
    dir = mkdtempSync(join(tmpdir(), 'gpumem-tree-'));
    silent = createServer((socket) => {
      silentSockets.add(socket);
      socket.on('close', () => silentSockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    // Two files in KUBECONFIG, as kubectl merges them: the simulator's four users, and two contexts that
    // cannot answer (a closed port, a server that accepts and never replies).
    const simFile = join(dir, 'sim.yaml');
    writeFileSync(simFile, sim.kubeconfig(['admin', 'limited', 'viewer', 'nobody']));
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
    const user = (parseYaml(sim.kubeconfig('viewer')) as { users: { user: unknown }[] }).users[0]?.user;
    const offline = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'offline', cluster: { server: `https://127.0.0.1:${closed}`, 'insecure-skip-tls-verify': true } },
        { name: 'blackhole', cluster: { server: `https://127.0.0.1:${silentPort}`, 'insecure-skip-tls-verify': true } },
      ],
      users: [{ name: 'token', user }],
      contexts: [
        { name: 'staging-offline', context: { cluster: 'offline', user: 'token' } },
        { name: 'blackhole', context: { cluster: 'blackhole', user: 'token' } },
      ],
    };
    const offlineFile = join(dir, 'offline.yaml');
    writeFileSync(offlineFile, stringifyYaml(offline));
    loaded = await loadKubeconfigs({ env: { KUBECONFIG: [simFile, offlineFile].join(delimiter) }, home: dir });
    admin = new ClusterClient(contextNamed('gpumem-demo'));
    adminNodes = await loadContextNodes(admin);
  });

  after(async () => {
    for (const socket of silentSockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every context of every KUBECONFIG file is listed at once, the current one marked', T, () => {
    assert.deepEqual(
      loaded.contexts.map((c) => c.name),
      ['gpumem-demo', 'gpumem-demo-limited', 'gpumem-demo-viewer', 'gpumem-demo-nobody', 'staging-offline', 'blackhole'],
    );
    const item = contextTreeItem(infoOf(contextNamed('gpumem-demo'), loaded.currentContext), adminNodes.state, {
      connecting: false,
      nodes: { total: adminNodes.nodes.length, gpu: adminNodes.nodes.filter((n) => n.summary.isGpuNode).length },
    });
    assert.equal(item.label, 'gpumem-demo');
    assert.equal(item.description, `current · ${DEMO_GIT_VERSION} · 5 nodes, 4 GPU`);
    assert.equal(item.icon.id, 'vm-active');
    assert.equal(item.contextValue, 'gpumem.context');
    assert.equal(item.collapsible, true);
    const other = contextTreeItem(
      infoOf(contextNamed('gpumem-demo-viewer'), loaded.currentContext),
      { kind: 'Unknown' },
      { connecting: false },
    );
    assert.equal(other.description, 'not checked');
    assert.equal(
      contextTreeItem(infoOf(contextNamed('gpumem-demo-viewer'), loaded.currentContext), { kind: 'Unknown' }, { connecting: true }).icon.id,
      'loading~spin',
    );
  });

  test('nodes: GPU nodes first, each with vendor, unified memory, capacity, HAMi, pressure, taints, SystemOOM', T, () => {
    assert.equal(adminNodes.state.kind, 'Reachable');
    assert.deepEqual(
      adminNodes.nodes.map((n) => n.summary.name),
      ['gpu-node-7', 'gpu-node-8', 'secure-node-1', 'strix-node-1', 'web-node-3'],
    );
    const now = Date.now();

    const apu = nodeItem(adminNodes, 'strix-node-1', now);
    assert.equal(apu.label, 'strix-node-1');
    assert.equal(apu.description, 'AMD · unified memory · amd.com/gpu 1 · MemoryPressure · 2 taints · 1 SystemOOM');
    assert.deepEqual(apu.icon, { id: 'warning', color: 'list.warningForeground' });
    assert.equal(apu.contextValue, 'gpumem.node');
    assert.match(apu.tooltip, /\*\*MemoryPressure\*\* since/);
    assert.match(text(apu.tooltip), /GPU memory is system RAM \(label amd\.com\/gpu\.device-id=1586/);
    assert.match(text(apu.tooltip), /\*\*SystemOOM\*\* 20m ago: global OOM kill of llama-server \(pid 398211\)/);
    assert.match(text(apu.tooltip), /\*\*amd\.com\/gpu:\*\* capacity 1, allocatable 1/);

    const hamiJson = nodeItem(adminNodes, 'gpu-node-7', now);
    assert.equal(hamiJson.description, 'NVIDIA · nvidia.com/gpu 10 · HAMi 1 GPU, 79.6 GiB, split 10 (JSON, HAMi ≥ 2.8)');
    assert.equal(hamiJson.icon.id, 'circuit-board');
    assert.match(
      text(hamiJson.tooltip),
      /GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f: NVIDIA-NVIDIA H100 80GB HBM3, 79\.6 GiB, split 10, 100% cores, healthy, hami-core/,
    );
    assert.match(text(hamiJson.tooltip), /\*\*hami\.io\/node-handshake:\*\* Requesting_2026-11-29 21:30:04/);

    const hamiCsv = nodeItem(adminNodes, 'gpu-node-8', now);
    assert.equal(hamiCsv.description, 'NVIDIA · nvidia.com/gpu 20 · HAMi 2 GPUs, 80 GiB, split 10 (CSV, HAMi ≤ 2.7)');

    const restricted = nodeItem(adminNodes, 'secure-node-1', now);
    assert.equal(restricted.description, 'NVIDIA · nvidia.com/gpu 4 · 1 taint');
    assert.match(text(restricted.tooltip), /\*\*Taint:\*\* security\.example\.com\/zone=restricted:NoSchedule/);

    const plain = nodeItem(adminNodes, 'web-node-3', now);
    assert.equal(plain.description, 'no GPU');
    assert.equal(plain.icon.id, 'server');
    assert.equal(adminNodes.eventsProblem, undefined);
  });

  test("a node's GPU pods: selected by the API server, with requests, QoS, OOMKilled restarts and HAMi allocation", T, async () => {
    const mark = sim.state.requests.length;
    const now = Date.now();
    const apu = await listNodeGpuPods(admin, 'strix-node-1');
    assert.deepEqual(
      apu.gpuPods.map((p) => p.summary.name),
      ['embed-nightly-29420160-q7wzt', 'llama-0'],
    );
    assert.equal(apu.otherPods, 1, 'node-exporter is not a GPU pod');
    const embed = podItem(apu, 'embed-nightly-29420160-q7wzt', now);
    assert.equal(embed.description, 'default · amd.com/gpu 1 · Burstable · 1 restart, OOMKilled 39m ago');
    assert.match(text(embed.tooltip), /\*\*Owner:\*\* Job\/embed-nightly-29420160/);
    const llama = podItem(apu, 'llama-0', now);
    assert.equal(llama.description, 'default · amd.com/gpu 1 · Burstable · 1 restart, OOMKilled 20m ago');
    assert.deepEqual(llama.icon, { id: 'warning', color: 'list.warningForeground' });
    assert.equal(llama.contextValue, 'gpumem.gpuPod');
    assert.equal(llama.collapsible, false);
    assert.match(text(llama.tooltip), /⚠️ \*\*OOMKilled:\*\* container llama \(exit 137, 20m ago\)/);
    assert.match(text(llama.tooltip), /\*\*Owner:\*\* StatefulSet\/llama/);
    assert.equal(otherPodsItem(apu.otherPods).label, '1 pod without GPUs');

    const hami = await listNodeGpuPods(admin, 'gpu-node-7');
    assert.deepEqual(
      hami.gpuPods.map((p) => p.summary.name),
      ['static-infer-0', 'trainer-0'],
    );
    assert.equal(hami.otherPods, 1, 'the device-plugin pod');
    assert.equal(
      podItem(hami, 'trainer-0', now).description,
      'ml · nvidia.com/gpu 1, gpucores 50, gpumem 8192 · Burstable · HAMi 8192 MiB, 50% cores on GPU-6f1d2c3b-8a…',
    );
    assert.equal(
      podItem(hami, 'static-infer-0', now).description,
      'ml · nvidia.com/gpu 1, gpumem 8192 · Burstable · HAMi 8192 MiB, 0% cores on GPU-6f1d2c3b-8a…',
    );
    assert.match(text(podItem(hami, 'trainer-0', now).tooltip), /\*\*HAMi allocated to trainer:\*\* GPU-6f1d2c3b/);

    const plain = await listNodeGpuPods(admin, 'web-node-3');
    assert.deepEqual(plain.gpuPods, []);
    assert.equal(noGpuPodsItem(plain.otherPods).label, 'No GPU pods (3 other pods)', 'api, worker and the HAMi scheduler');

    const restricted = await listNodeGpuPods(admin, 'secure-node-1');
    assert.equal(podItem(restricted, 'notebook-0', now).description, 'research · nvidia.com/gpu 1 · Burstable');

    const podLists = sim.state.requests.slice(mark).filter((r) => r.method === 'GET' && /\/pods(\?|$)/.test(r.path));
    assert.equal(podLists.length, 4);
    for (const request of podLists)
      assert.match(decodeURIComponent(request.path), /fieldSelector=spec\.nodeName=/, `selected on the server: ${request.path}`);
  });

  test('the node watch feeds the children: a new GPU pod appears, a deleted one goes', T, async () => {
    const seen: NodePods[] = [];
    const stop = admin.watchPodsOnNode('strix-node-1', (pods) => seen.push(splitGpuPods(pods)));
    try {
      await waitFor('the first list', () => seen.length > 0);
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'whisper-0', namespace: 'default', uid: 'c0ffee00-0000-4000-8000-000000000001' },
        spec: {
          nodeName: 'strix-node-1',
          containers: [
            { name: 'whisper', image: 'example/whisper', resources: { limits: { 'amd.com/gpu': '1', memory: '4Gi', cpu: '1' } } },
          ],
        },
        status: { phase: 'Running', qosClass: 'Burstable' },
      };
      sim.state.put(pod as never);
      await waitFor("whisper-0 in the node's children", () => seen.at(-1)?.gpuPods.some((p) => p.summary.name === 'whisper-0'));
      const whisper = seen.at(-1)?.gpuPods.find((p) => p.summary.name === 'whisper-0');
      assert.ok(whisper);
      const item = podTreeItem(whisper.summary, Date.now());
      assert.equal(item.description, 'default · amd.com/gpu 1 · Burstable');
      sim.state.remove('pods', 'default', 'whisper-0');
      await waitFor('whisper-0 gone', () => !seen.at(-1)?.gpuPods.some((p) => p.summary.name === 'whisper-0'));
    } finally {
      stop();
    }
    await waitFor('the watch closed', () => sim.state.openWatches() === 0);
  });

  test('RBAC: a user who may list nothing gets Forbidden(list, nodes) with what to do', T, async () => {
    const nobody = new ClusterClient(contextNamed('gpumem-demo-nobody'));
    const result = await loadContextNodes(nobody);
    assert.deepEqual(result.state, { kind: 'Forbidden', verb: 'list', resource: 'nodes' });
    assert.deepEqual(result.nodes, []);
    const item = contextTreeItem(infoOf(contextNamed('gpumem-demo-nobody'), loaded.currentContext), result.state, { connecting: false });
    assert.equal(item.description, 'forbidden: list nodes');
    assert.equal(item.icon.id, 'lock');
    assert.match(text(item.tooltip), /may not list nodes/);
    assert.match(text(item.tooltip), /Check with: kubectl auth can-i list nodes --context=gpumem-demo-nobody\./);
    assert.equal(
      explainForbidden('list', 'nodes', { context: 'gpumem-demo-nobody' }),
      'Your credentials for context "gpumem-demo-nobody" may not list nodes (RBAC). Check with: kubectl auth can-i list nodes --context=gpumem-demo-nobody. Ask a cluster administrator for a role that allows "list" on "nodes", or run the probe by hand with other credentials ("Copy Probe Command").',
    );
    // A user who may list nodes but not events: the nodes still show, the events problem is explained.
    const viewer = await loadContextNodes(new ClusterClient(contextNamed('gpumem-demo-viewer')));
    assert.equal(viewer.state.kind, 'Reachable');
    assert.equal(viewer.nodes.length, 5);
  });

  test('RBAC: "Inspect Node" on the restricted node as the limited user names create pods in gpumem-debug', T, async () => {
    const limited = new ClusterClient(contextNamed('gpumem-demo-limited'));
    const created = sim.state.createdPods.length;
    const transport = new DebugPodTransport({ client: limited, node: 'secure-node-1', namespace: DEBUG_NS });
    let failure;
    try {
      await transport.run({ script: 'true', timeoutMs: 10_000, maxOutputBytes: 1024 });
      assert.fail('the debug pod was created');
    } catch (error) {
      assert.ok(error instanceof TransportError, String(error));
      failure = error.failure;
    } finally {
      await transport.close();
    }
    assert.equal(sim.state.createdPods.length, created, 'nothing was created');
    const message = explainProbeFailure(failure, {
      context: 'gpumem-demo-limited',
      namespace: DEBUG_NS,
      action: 'Inspecting node secure-node-1',
    });
    assert.match(
      message,
      /^Inspecting node secure-node-1: Your credentials for context "gpumem-demo-limited" may not create pods in namespace "gpumem-debug" \(RBAC\)\./,
    );
    assert.match(message, /Check with: kubectl auth can-i create pods -n gpumem-debug --context=gpumem-demo-limited\./);
    assert.match(message, /The node debug pod needs create, get, watch and delete on pods, and create on pods\/exec\./);
    assert.match(
      message,
      /\(API server: pods is forbidden: User "limited" cannot create resource "pods" in API group "" in the namespace "gpumem-debug"\)$/,
    );
    // exec into a pod outside `ml` is refused too, as create pods/exec
    assert.match(
      explainProbeFailure(
        { kind: 'forbidden', verb: 'create', resource: 'pods/exec', detail: 'x' },
        { context: 'c', namespace: 'research' },
      ),
      /kubectl auth can-i create pods --subresource=exec -n research --context=c/,
    );
  });

  test('unreachable contexts: a closed port is Unreachable(network) at once, a silent server within the probe timeout', T, async () => {
    const closed = await loadContextNodes(new ClusterClient(contextNamed('staging-offline')));
    assert.equal(closed.state.kind, 'Unreachable');
    assert.equal(closed.state.kind === 'Unreachable' && closed.state.cause, 'network');
    const item = contextTreeItem(infoOf(contextNamed('staging-offline'), loaded.currentContext), closed.state, { connecting: false });
    assert.equal(item.description, 'unreachable');
    assert.deepEqual(item.icon, { id: 'debug-disconnect', color: 'list.errorForeground' });
    assert.match(text(item.tooltip), /context "staging-offline": ECONNREFUSED/);
    assert.match(text(item.tooltip), /Check the server address in the kubeconfig, the VPN or network/);

    const started = Date.now();
    const silentResult = await loadContextNodes(new ClusterClient(contextNamed('blackhole'), { probeTimeoutMs: 800 }));
    const elapsed = Date.now() - started;
    assert.equal(silentResult.state.kind === 'Unreachable' && silentResult.state.cause, 'timeout');
    assert.ok(elapsed < 5_000, `a silent server holds a context for the probe timeout only (${elapsed} ms)`);
    assert.equal(
      contextTreeItem(infoOf(contextNamed('blackhole'), undefined), silentResult.state, { connecting: false }).description,
      'unreachable',
    );
  });

  test('hostile strings from the cluster render as text: plain labels, inert Markdown tooltips', T, async () => {
    const hostile = [
      '<img src=x onerror=alert(1)>',
      '[click](command:workbench.action.terminal.new)',
      'https://evil.example/x',
      '![i](https://evil.example/i.png)',
    ];
    sim.state.put({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'evil-node',
        labels: { 'nvidia.com/gpu.present': 'true' },
        annotations: {
          'hami.io/node-handshake': hostile.join(' '),
          'hami.io/node-nvidia-register': `${hostile[0]},1,1024,100,${hostile[1]},0,true:`,
        },
      },
      spec: { taints: [{ key: 'evil', value: hostile[2], effect: 'NoSchedule' }] },
      status: {
        capacity: { 'nvidia.com/gpu': '1' },
        allocatable: { 'nvidia.com/gpu': '1' },
        conditions: [{ type: 'MemoryPressure', status: 'True', message: `${hostile[3]}\n# heading` }],
      },
    } as never);
    sim.state.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'evil-pod',
        namespace: 'default',
        annotations: { 'hami.io/vgpu-node': 'evil-node', 'hami.io/bind-phase': `${hostile[1]}\u0007\nfailed` },
      },
      spec: {
        nodeName: 'evil-node',
        schedulerName: hostile[0],
        containers: [{ name: 'c', image: 'x', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
      },
      status: { phase: 'Running' },
    } as never);
    try {
      const nodes = await loadContextNodes(admin);
      const item = nodeItem(nodes, 'evil-node');
      assertInert(item.tooltip, hostile);
      assert.match(item.tooltip, /&lt;img src=x onerror=alert\(1\)&gt;/, 'the text is still there, escaped');
      const pods = await listNodeGpuPods(admin, 'evil-node');
      const pod = podItem(pods, 'evil-pod');
      assertInert(pod.tooltip, hostile);
      assert.doesNotMatch(pod.description, /[\u0000-\u001f]/, 'no control character in the description');
      assert.match(
        pod.description,
        /bind-phase \[click\]\(command:workbench\.action\.terminal\.new\) failed/,
        'plain text, shown literally',
      );
      assert.equal(plainLabel(`a\nb\u0007c${'x'.repeat(400)}`).length, 160);
      assert.equal(markdownText('**x** <b>'), '\\*\\*x\\*\\* &lt;b&gt;');
    } finally {
      sim.state.remove('pods', 'default', 'evil-pod');
      sim.state.remove('nodes', undefined, 'evil-node');
    }
  });

  test('"Copy Probe Command": kubectl lines whose names survive the shell as single arguments', T, () => {
    const nodeCommand = nodeProbeCommand({ context: 'gpumem-demo', node: 'strix-node-1', namespace: 'default', image: 'busybox:1.36' });
    assert.equal(
      nodeCommand.command,
      'kubectl --context=gpumem-demo -n default debug node/strix-node-1 --image=busybox:1.36 -i --profile=sysadmin -- sh -s < probe.sh > capture.txt',
    );
    assert.deepEqual(nodeCommand.script, { scope: 'node', hostRoot: '/host' });
    const podCommand = podProbeCommand({ context: 'gpumem-demo', namespace: 'default', pod: 'llama-0', container: 'llama' });
    assert.equal(podCommand.command, 'kubectl --context=gpumem-demo exec -i -n default llama-0 -c llama -- sh -s < probe.sh > capture.txt');
    assert.deepEqual(podCommand.script, { scope: 'container', hostRoot: '' });

    const evil = `prod; rm -rf ~ $(id) 'quoted' \`x\``;
    const quoted = podProbeCommand({ context: evil, namespace: 'ml', pod: 'p', container: 'c' }).command;
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
    // The shell itself splits the line: run it with printf instead of kubectl, without the redirections.
    const words = quoted.replace(/^kubectl /, '').replace(/ < probe\.sh > capture\.txt$/, '');
    const out = spawnSync('sh', ['-c', `printf '%s\\n' ${words}`], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    assert.deepEqual(out.stdout.split('\n').slice(0, -1), [
      `--context=${evil}`,
      'exec',
      '-i',
      '-n',
      'ml',
      'p',
      '-c',
      'c',
      '--',
      'sh',
      '-s',
    ]);
  });

  test('"Run HAMi Checklist on Pod": the cluster facts of the bypassed pod', T, async () => {
    const pod: V1Pod = await admin.readPod('ml', 'static-infer-0');
    const { facts, section } = await podHamiFacts(admin, pod, undefined);
    assert.equal(facts.managedByHami, true);
    assert.equal(section.managed, true);
    assert.deepEqual(facts.devicePluginPods, [{ name: 'hami-device-plugin-x7k2p', phase: 'Running', ready: true }]);
    assert.equal(facts.hamiVersion, 'v2.8.1');
    assert.equal(facts.runtimeClassName, null);
    assert.equal(facts.privileged, false);
    assert.deepEqual(facts.podEnv, { CUDA_DISABLE_CONTROL: 'true' });
    // The quota and the physical size for the NVML check: the pod's allocation, the node's JSON registration.
    assert.deepEqual(facts.allocatedDevices, [{ uuid: 'GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f', memMiB: 8192 }]);
    assert.deepEqual(facts.registeredDevices, [{ uuid: 'GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f', devmemMiB: 81559 }]);
    assert.deepEqual(section.schedulerPods, [{ namespace: 'kube-system', name: 'hami-scheduler-6d9c7b8f5-q8w2r', phase: 'Running' }]);
    const markdown = hamiClusterMarkdown(section);
    assert.match(text(markdown), /\| ✅ \| HAMi device plugin on gpu-node-7 \| hami-device-plugin-x7k2p: Running, ready \|/);
    assert.match(text(markdown), /\| ✅ \| HAMi scheduler \| kube-system\/hami-scheduler-6d9c7b8f5-q8w2r \(Running\) \|/);
    assert.match(text(markdown), /\| ✅ \| Pod's scheduler \| hami-scheduler \|/);
    assert.match(text(markdown), /\| ❌ \| CUDA_DISABLE_CONTROL in the spec \| true: HAMi skips the ld.so.preload mount \|/);
    assert.deepEqual(
      podContainers(pod).map((c) => c.name),
      ['static-infer'],
    );

    // The crash-looping device plugin on gpu-node-8, seen from a pod there.
    const onEight = {
      ...pod,
      metadata: { ...pod.metadata, name: 'x' },
      spec: { ...pod.spec, nodeName: 'gpu-node-8', containers: pod.spec?.containers ?? [] },
    } as V1Pod;
    const eight = await podHamiFacts(admin, onEight, undefined);
    assert.deepEqual(eight.facts.devicePluginPods, [{ name: 'hami-device-plugin-m4t9z', phase: 'Running', ready: false }]);
    assert.deepEqual(
      eight.facts.registeredDevices?.map((device) => device.devmemMiB),
      [40960, 40960],
      "gpu-node-8's CSV registration (HAMi < 2.8)",
    );
    assert.match(
      text(hamiClusterMarkdown(eight.section)),
      /\| ❌ \| HAMi device plugin on gpu-node-8 \| hami-device-plugin-m4t9z: Running, not ready \|/,
    );

    // A pod HAMi does not manage (the AMD APU pod): the facts say so (the checklist then lets the container's
    // evidence decide instead of reading the missing device plugin as a bypass), and so does the section.
    const llama = await podHamiFacts(admin, await admin.readPod('default', 'llama-0'), undefined);
    assert.equal(llama.facts.managedByHami, false);
    assert.deepEqual(llama.facts.devicePluginPods, []);
    assert.equal(llama.facts.registeredDevices, undefined, 'no node read for a pod HAMi does not manage');
    assert.equal(llama.section.managed, false);
    assert.match(text(hamiClusterMarkdown(llama.section)), /\*\*HAMi does not manage this pod:\*\*/);
  });

  test('"Run HAMi Checklist on Pod": the handler of the pod\'s RuntimeClass and the GPU Operator\'s version', T, async () => {
    const pod: V1Pod = await admin.readPod('ml', 'static-infer-0');
    const withClass = (name: string) =>
      ({ ...pod, spec: { ...pod.spec, runtimeClassName: name, containers: pod.spec?.containers ?? [] } }) as V1Pod;
    // HAMi's chart class: named as the user likes, handler nvidia (05-runtimeclasses.yaml).
    const hami = await podHamiFacts(admin, withClass('hami-vgpu'), undefined);
    assert.deepEqual(hami.facts.runtimeClass, { kind: 'found', name: 'hami-vgpu', handler: 'nvidia' });
    assert.equal(hami.facts.gpuOperatorVersion, undefined, 'no GPU Operator runs in the fixtures');
    const gone = await podHamiFacts(admin, withClass('nvidia-gone'), undefined);
    assert.deepEqual(gone.facts.runtimeClass, { kind: 'missing', name: 'nvidia-gone' });
    // The GPU Operator's version is its operator pod's image tag (the chart's label finds it in any namespace).
    await admin.createPod('kube-system', {
      metadata: { name: 'gpu-operator-7b9c5d8f4-k2x7q', labels: { app: 'gpu-operator', 'app.kubernetes.io/component': 'gpu-operator' } },
      spec: { containers: [{ name: 'gpu-operator', image: 'nvcr.io/nvidia/gpu-operator:v25.10.0', command: ['gpu-operator'] }] },
    });
    try {
      const operated = await podHamiFacts(admin, pod, undefined);
      assert.equal(operated.facts.gpuOperatorVersion, 'v25.10.0');
      assert.deepEqual(operated.section.problems, []);
    } finally {
      await admin.deletePod('kube-system', 'gpu-operator-7b9c5d8f4-k2x7q', { gracePeriodSeconds: 0 });
    }
  });

  test('"Explain OOM Kills on Node": the node\'s SystemOOM event next to the kernel log', T, async () => {
    const events = await nodeMemoryEventsOf(admin, 'strix-node-1');
    assert.deepEqual(
      events.map((e) => e.kind),
      ['SystemOOM', 'NodeHasInsufficientMemory'],
    );
    const markdown = nodeEventsMarkdown('strix-node-1', events);
    assert.match(
      text(markdown),
      /\| SystemOOM \| 1 \| llama-server \(pid 398211\) \| System OOM encountered, victim process: llama-server, pid: 398211 \|/,
    );
    assert.match(
      text(nodeEventsMarkdown('web-node-3', await nodeMemoryEventsOf(admin, 'web-node-3'))),
      /No SystemOOM, OOMKilling or memory-eviction events about node web-node-3/,
    );
    const nobody = new ClusterClient(contextNamed('gpumem-demo-nobody'));
    try {
      await nodeMemoryEventsOf(nobody, 'strix-node-1');
      assert.fail('nobody may list events');
    } catch (error) {
      const failure = (error as { failure?: Parameters<typeof explainKubeFailure>[0] }).failure;
      assert.ok(failure);
      assert.match(
        explainKubeFailure(failure, { context: 'gpumem-demo-nobody', namespace: 'default' }),
        /may not list events in namespace "default"/,
      );
    }
  });

  test('"Open Manifest": the live pod as wire YAML, without managedFields, linted like a file', T, async () => {
    const pod = await admin.readPod('default', 'llama-0');
    const yaml = podManifestYaml(pod);
    const doc = parseYaml(yaml) as {
      apiVersion: string;
      kind: string;
      metadata: Record<string, unknown>;
      status: { containerStatuses: { lastState: { terminated: { finishedAt: unknown } } }[] };
    };
    assert.equal(doc.apiVersion, 'v1');
    assert.equal(doc.kind, 'Pod');
    assert.ok(yaml.startsWith('apiVersion: v1\nkind: Pod\n'));
    assert.equal(doc.metadata['managedFields'], undefined);
    assert.equal(
      typeof doc.status.containerStatuses[0]?.lastState.terminated.finishedAt,
      'string',
      'times as RFC 3339 text, as the API sends them',
    );
    const findings = lintText(yaml).findings.map((f) => f.ruleId);
    assert.ok(
      findings.some((id) => id.startsWith('uma-')),
      `the unified-memory rules see the APU pod: ${findings.join(', ')}`,
    );
  });
});

async function waitFor(what: string, check: () => boolean | undefined, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`watchdog: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
