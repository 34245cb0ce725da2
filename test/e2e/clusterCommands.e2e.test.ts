// End-to-end: the Clusters commands on pods, from the tree and from the command palette, in the packaged
// extension in a real VS Code (code-server 4.139.1) driven through headless Chromium, against the Kubernetes
// API simulator (test/simulator) running in this process (issue #5):
//   - "Inspect Pod" from the context menu of the GTT-heavy pod llama-0 opens the inspector panel on the
//     container probe of default/llama-0, container llama (its cgroup: 2 GiB of 16 GiB); the simulator saw
//     one exec, into that container;
//   - "Inspect Pod" on a GPU pod with two app containers (a log-shipper sidecar listed first in the spec, the
//     GPU inference server second) asks which container, the GPU one first and described by its GPU request;
//     Escape runs nothing (no exec, no panel); choosing the sidecar probes the sidecar (the exec log and the
//     panel's cgroup say so);
//   - from the palette, without ever opening the Clusters view: "gpumem: Inspect Pod" → context → node (GPU
//     nodes first) → pod opens the panel; "gpumem: Inspect Node" on the offline context says what failed and
//     what to do, on the context of a user bound to nothing names the refused verb and resource;
//   - "gpumem: Run HAMi Checklist on Pod" from the palette (one context: no context pick) on the bypassed HAMi
//     pod opens the Markdown report with the verdict "bypassed".
// Needs root (the simulator's exec runs the probe in chroot fixture roots). Run with
// `npm run test:e2e -- test/e2e/clusterCommands.e2e.test.ts`. Artifacts: test-artifacts/cluster-commands-*.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { KUBECTL_MISSING, kubectlOnPath } from '../helpers/kubectl.ts';
import type { ExecRecord, Simulator } from '../simulator/server.ts';
import {
  CLUSTERS_VIEW,
  clustersPane,
  fixturesWith,
  openClusterNode,
  readPreview,
  runFromContextMenu,
  selectedClusterRow,
  waitForClusterItem,
  withClusterWorkbench,
} from './harness/clusters.ts';
import {
  chooseQuickPickItem,
  dismissQuickPick,
  inspectorPanel,
  openTabs,
  readNotifications,
  readQuickPick,
  readTreeItems,
  runCommand,
  waitFor,
  waitForNotification,
  waitForQuickPick,
  webviewFrame,
} from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 6 * 60_000;
const PROBE_TIMEOUT_MS = 90_000;
const INSPECT_POD = 'gpumem: Inspect Pod';
const INSPECT_NODE = 'gpumem: Inspect Node';
const HAMI_CHECKLIST = 'gpumem: Run HAMi Checklist on Pod';
const CONTEXT_PICK = /^Kubernetes context \(from your kubeconfig/;

// A GPU pod with two app containers on the APU node: a log-shipper sidecar (first in the spec) and the
// inference server holding the GPU. Each has a root for exec, with its own cgroup figures, so the panel
// shows which one was probed: 6 GiB of 24 GiB for the server, 64 MiB of 256 MiB for the sidecar.
const TWO_CONTAINER_POD = `
apiVersion: v1
kind: Pod
metadata:
  name: rag-server-0
  namespace: default
  creationTimestamp: '@now-2d'
  labels:
    app: rag-server
spec:
  nodeName: strix-node-1
  tolerations:
    - {key: amd.com/gpu, operator: Exists, effect: NoSchedule}
  containers:
    - name: log-shipper
      image: cr.fluentbit.io/fluent/fluent-bit:4.0.3
      resources:
        requests: {cpu: 100m, memory: 128Mi}
        limits: {memory: 256Mi}
    - name: inference
      image: docker.io/rocm/vllm:rocm7.0.0_vllm_0.10.1
      resources:
        requests: {cpu: "4", memory: 12Gi, amd.com/gpu: "1"}
        limits: {memory: 24Gi, amd.com/gpu: "1"}
---
apiVersion: sim.gpumem.dev/v1
kind: ContainerRoot
metadata:
  name: rag-server-0-inference
spec:
  namespace: default
  pod: rag-server-0
  container: inference
  files:
    - {path: /etc/hostname, content: "rag-server-0\\n"}
    - {path: /proc/self/cgroup, content: "0::/\\n"}
    - {path: /sys/fs/cgroup/cgroup.controllers, content: "cpuset cpu io memory hugetlb pids rdma misc dmem\\n"}
    - {path: /sys/fs/cgroup/memory.current, content: "6442450944\\n"}
    - {path: /sys/fs/cgroup/memory.max, content: "25769803776\\n"}
    - {path: /sys/fs/cgroup/memory.events, content: "low 0\\nhigh 0\\nmax 0\\noom 0\\noom_kill 0\\noom_group_kill 0\\n"}
    - {path: /sys/fs/cgroup/memory.stat, content: "anon 5368709120\\nfile 1073741824\\n"}
  processes:
    - pid: 1
      comm: python3
      cmdline: [python3, -m, vllm.entrypoints.openai.api_server, --model, /models/qwen3-8b]
      environ: [PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin, HOSTNAME=rag-server-0]
      maps: [/usr/bin/python3.12, /usr/lib/x86_64-linux-gnu/libc.so.6, /opt/rocm/lib/libamdhip64.so.7]
      exe: /bin/dash
      fds: [/dev/kfd, /dev/dri/renderD128]
---
apiVersion: sim.gpumem.dev/v1
kind: ContainerRoot
metadata:
  name: rag-server-0-log-shipper
spec:
  namespace: default
  pod: rag-server-0
  container: log-shipper
  files:
    - {path: /etc/hostname, content: "rag-server-0\\n"}
    - {path: /proc/self/cgroup, content: "0::/\\n"}
    - {path: /sys/fs/cgroup/cgroup.controllers, content: "cpuset cpu io memory hugetlb pids rdma misc dmem\\n"}
    - {path: /sys/fs/cgroup/memory.current, content: "67108864\\n"}
    - {path: /sys/fs/cgroup/memory.max, content: "268435456\\n"}
    - {path: /sys/fs/cgroup/memory.events, content: "low 0\\nhigh 0\\nmax 0\\noom 0\\noom_kill 0\\noom_group_kill 0\\n"}
    - {path: /sys/fs/cgroup/memory.stat, content: "anon 50331648\\nfile 16777216\\n"}
  processes:
    - pid: 1
      comm: fluent-bit
      cmdline: [/fluent-bit/bin/fluent-bit, -c, /fluent-bit/etc/fluent-bit.conf]
      environ: [PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin, HOSTNAME=rag-server-0]
      maps: [/fluent-bit/bin/fluent-bit, /usr/lib/x86_64-linux-gnu/libc.so.6]
      exe: /bin/busybox
`;

interface PanelText {
  title: string;
  facts: Record<string, string>;
  headline: string;
  counts: string;
}

async function readPanel(frame: FrameLocator): Promise<PanelText> {
  const facts = await frame
    .locator('dl.facts > div')
    .evaluateAll((rows) =>
      rows.map(
        (row) =>
          [(row.querySelector('dt')?.textContent ?? '').trim(), (row.querySelector('dd')?.textContent ?? '').trim()] as [string, string],
      ),
    );
  return {
    title: (await frame.locator('#title').innerText()).trim(),
    facts: Object.fromEntries(facts),
    headline: (await frame.locator('.banner-headline').innerText()).trim(),
    counts: (await frame.locator('.banner-counts').innerText()).trim(),
  };
}

/** The execs the simulator recorded since `mark`, once each has finished. */
async function finishedExecs(sim: Simulator, mark: number): Promise<ExecRecord[]> {
  return waitFor(
    'the execs to finish',
    async () => sim.state.execs.slice(mark),
    (execs) => execs.length > 0 && execs.every((e) => e.result !== undefined),
    { timeoutMs: 20_000 },
  );
}

async function closeEditors(page: Page): Promise<void> {
  await runCommand(page, 'View: Close All Editors');
  await waitFor(
    'no editor open',
    () => openTabs(page),
    (tabs) => tabs.length === 0,
    { timeoutMs: 10_000 },
  );
}

test(
  'Inspect Pod from the tree: llama-0 opens the inspector on its container; a two-container pod asks which container (GPU first), Escape runs nothing, the choice is what is probed',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    await withClusterWorkbench('cluster-commands-tree', { fixtures: fixturesWith(TWO_CONTAINER_POD) }, async (s, sim) => {
      const { page } = s;
      await openClusterNode(s, 'strix-node-1');
      await s.step('llama-0 appears', () =>
        waitForClusterItem(page, 'llama-0', 'with its description', (i) => /OOMKilled/.test(i.description)),
      );
      const rag = await s.step('rag-server-0 appears', () =>
        waitForClusterItem(page, 'rag-server-0', 'with its description', (i) => i.description !== ''),
      );
      assert.match(rag.description, /^default · amd\.com\/gpu 1 · Burstable/);

      // 1. "Inspect Pod" on llama-0 (one container: no pick) → the inspector panel on its container probe.
      let mark = sim.state.execs.length;
      const menu = await s.step('run "Inspect Pod" from the context menu of llama-0', () =>
        runFromContextMenu(page, 'llama-0', 'Inspect Pod'),
      );
      for (const title of ['Inspect Pod', 'Run HAMi Checklist on Pod', 'Open Manifest', 'Copy Probe Command'])
        assert.ok(menu.includes(title), `the pod's menu offers ${title}: ${JSON.stringify(menu)}`);
      let frame = await s.step('the inspector panel opens', () => inspectorPanel(page, PROBE_TIMEOUT_MS), PROBE_TIMEOUT_MS + 30_000);
      let panel = await readPanel(frame);
      assert.equal(
        panel.title,
        'gpumem inspection: pod default/llama-0 -c llama (context gpumem-demo)',
        'the panel names the pod, the container and the context',
      );
      assert.equal(
        panel.facts['cgroup memory'],
        '2 GiB of 16 GiB (v2)',
        `llama's own cgroup (its fixture root): ${JSON.stringify(panel.facts)}`,
      );
      assert.equal(panel.facts['Processes'], '1');
      assert.equal(panel.headline, 'No problems found', 'inside the container the GTT is not visible: nothing to flag');
      assert.equal(panel.counts, '0 errors, 0 warnings, 0 notes');
      let execs = await finishedExecs(sim, mark);
      assert.deepEqual(
        execs.map((e) => [e.namespace, e.pod, e.container, e.command.join(' '), e.user]),
        [['default', 'llama-0', 'llama', 'sh -s', 'admin']],
        'one exec, into llama-0/llama',
      );
      assert.equal(execs[0]?.result?.exitCode, 0);
      assert.deepEqual(
        (await readNotifications(page)).filter((text) => /failed/i.test(text)),
        [],
        'no error notification',
      );
      await s.screenshot('llama-0');
      await s.step('close the panel', () => closeEditors(page));

      // 2. A pod with two app containers: the container pick, GPU first; Escape runs nothing.
      mark = sim.state.execs.length;
      await s.step('run "Inspect Pod" on rag-server-0', () => runFromContextMenu(page, 'rag-server-0', 'Inspect Pod'));
      const containers = await s.step('the container pick', () => waitForQuickPick(page, /^Container of default\/rag-server-0 to probe$/));
      assert.deepEqual(
        containers,
        [
          { label: 'inference', description: 'GPU: amd.com/gpu 1' },
          { label: 'log-shipper', description: 'cr.fluentbit.io/fluent/fluent-bit:4.0.3' },
        ],
        'both app containers, the GPU one first (second in the spec) with its GPU request, the sidecar with its image',
      );
      await s.screenshot('container-pick');
      await s.step('Escape in the container pick', () => dismissQuickPick(page));
      await page.waitForTimeout(3000);
      assert.equal(
        sim.state.execs.length,
        mark,
        `Escape: no exec (${JSON.stringify(sim.state.execs.slice(mark).map((e) => `${e.pod}/${e.container}`))})`,
      );
      assert.deepEqual(await openTabs(page), [], 'Escape: no panel');
      assert.equal(
        await page.locator('.notifications-toasts .notification-list-item-message').filter({ hasText: 'rag-server-0' }).count(),
        0,
        'Escape: no progress, no error',
      );

      // Choosing the sidecar probes the sidecar, not the GPU container the API server would default to.
      await s.step('run "Inspect Pod" on rag-server-0 again', () => runFromContextMenu(page, 'rag-server-0', 'Inspect Pod'));
      await s.step('the container pick again', () => waitForQuickPick(page, /^Container of default\/rag-server-0 to probe$/));
      await s.step('choose log-shipper', () => chooseQuickPickItem(page, 'log-shipper'));
      frame = await s.step(
        'the inspector panel opens on the sidecar',
        () => inspectorPanel(page, PROBE_TIMEOUT_MS),
        PROBE_TIMEOUT_MS + 30_000,
      );
      panel = await readPanel(frame);
      assert.equal(panel.title, 'gpumem inspection: pod default/rag-server-0 -c log-shipper (context gpumem-demo)');
      assert.equal(
        panel.facts['cgroup memory'],
        '64 MiB of 256 MiB (v2)',
        `the sidecar's cgroup, not the server's 6 GiB of 24 GiB: ${JSON.stringify(panel.facts)}`,
      );
      execs = await finishedExecs(sim, mark);
      assert.deepEqual(
        execs.map((e) => `${e.pod}/${e.container}`),
        ['rag-server-0/log-shipper'],
        'the exec went into the chosen container',
      );
      assert.equal(execs[0]?.result?.exitCode, 0);
      // The end state (test-artifacts/cluster-commands-tree.png): the sidecar's panel beside the tree.
    });
  },
);

test(
  'Clusters commands from the palette: Inspect Pod picks context → node (GPU first) → pod; Inspect Node on an offline context and on a forbidden one explains',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    await withClusterWorkbench(
      'cluster-commands-palette',
      { kubeconfig: { users: ['admin', 'nobody'], offline: true } },
      async (s, sim) => {
        const { page } = s;
        // The Clusters view is never opened: the palette loads the kubeconfig itself.
        const mark = sim.state.execs.length;
        await s.step(
          `run "${INSPECT_POD}" from the palette`,
          () => runCommand(page, INSPECT_POD, { opensInput: true, timeoutMs: 30_000 }),
          45_000,
        );
        const contexts = await s.step('the context pick', () => waitForQuickPick(page, CONTEXT_PICK));
        assert.deepEqual(
          contexts.map((c) => c.label),
          ['gpumem-demo', 'gpumem-demo-nobody', 'staging-offline'],
          'every context of the kubeconfig, in file order',
        );
        assert.match(contexts[0]?.description ?? '', /^current\b/, JSON.stringify(contexts));
        await s.step('choose gpumem-demo', () => chooseQuickPickItem(page, 'gpumem-demo'));

        const nodes = await s.step('the node pick', () =>
          waitForQuickPick(page, /^Node of gpumem-demo \(GPU nodes first\)$/, { timeoutMs: 30_000 }),
        );
        assert.deepEqual(
          nodes.map((n) => n.label),
          ['gpu-node-7', 'gpu-node-8', 'secure-node-1', 'strix-node-1', 'web-node-3'],
          'GPU nodes first, the CPU node last',
        );
        const byName = new Map(nodes.map((n) => [n.label, n.description]));
        assert.equal(byName.get('strix-node-1'), 'AMD · unified memory · amd.com/gpu 1 · MemoryPressure · 2 taints · 1 SystemOOM');
        assert.equal(byName.get('gpu-node-7'), 'NVIDIA · nvidia.com/gpu 10 · HAMi 1 GPU, 79.6 GiB, split 10 (JSON, HAMi ≥ 2.8)');
        assert.equal(byName.get('web-node-3'), 'no GPU', 'the CPU node, last');
        await s.screenshot('node-pick');
        await s.step('choose strix-node-1', () => chooseQuickPickItem(page, 'strix-node-1'));

        const pods = await s.step('the pod pick', () => waitForQuickPick(page, /^GPU pod on strix-node-1$/, { timeoutMs: 30_000 }));
        assert.deepEqual(
          pods.map((p) => p.label),
          ['embed-nightly-29420160-q7wzt', 'llama-0'],
          'only the GPU pods (node-exporter requests no GPU)',
        );
        const llamaItem = pods.find((p) => p.label === 'llama-0');
        assert.match(llamaItem?.description ?? '', /^default · amd\.com\/gpu 1 · Burstable · 1 restart, OOMKilled \d+m ago$/);
        await s.step('choose llama-0', () => chooseQuickPickItem(page, 'llama-0'));
        const frame = await s.step('the inspector panel opens', () => inspectorPanel(page, PROBE_TIMEOUT_MS), PROBE_TIMEOUT_MS + 30_000);
        const panel = await readPanel(frame);
        assert.equal(panel.title, 'gpumem inspection: pod default/llama-0 -c llama (context gpumem-demo)');
        assert.equal(panel.facts['cgroup memory'], '2 GiB of 16 GiB (v2)');
        const execs = await finishedExecs(sim, mark);
        assert.deepEqual(
          execs.map((e) => `${e.pod}/${e.container}`),
          ['llama-0/llama'],
        );
        await s.screenshot('pod');
        await s.step('close the panel', () => closeEditors(page));

        // "Inspect Node" on the offline context: what failed, and what to do; no node pick, no debug pod.
        const created = sim.state.createdPods.length;
        await s.step(
          `run "${INSPECT_NODE}" from the palette`,
          () => runCommand(page, INSPECT_NODE, { opensInput: true, timeoutMs: 30_000 }),
          45_000,
        );
        await s.step('the context pick', () => waitForQuickPick(page, CONTEXT_PICK));
        await s.step('choose staging-offline', () => chooseQuickPickItem(page, 'staging-offline'));
        const offline = await s.step('the error notification', () => waitForNotification(page, /staging-offline/, { timeoutMs: 30_000 }));
        assert.match(offline, /^gpumem: context "staging-offline": ECONNREFUSED\b.*127\.0\.0\.1:\d+/, 'what failed, and where');
        assert.match(
          offline,
          /The API server could not be reached\. Check the server address in the kubeconfig, the VPN or network, and whether the cluster is running; then refresh\.$/,
          'what to do',
        );
        assert.equal((await readQuickPick(page)).visible, false, 'no node pick for an unreachable context');
        await s.screenshot('unreachable');
        await s.step('clear the notifications', () => runCommand(page, 'Notifications: Clear All Notifications'));

        // …and on the context of a user bound to nothing: the refused verb and resource, and how to check.
        await s.step(`run "${INSPECT_NODE}" again`, () => runCommand(page, INSPECT_NODE, { opensInput: true, timeoutMs: 30_000 }), 45_000);
        await s.step('the context pick', () => waitForQuickPick(page, CONTEXT_PICK));
        await s.step('choose gpumem-demo-nobody', () => chooseQuickPickItem(page, 'gpumem-demo-nobody'));
        const forbidden = await s.step('the error notification', () =>
          waitForNotification(page, /gpumem-demo-nobody/, { timeoutMs: 30_000 }),
        );
        assert.match(
          forbidden,
          /^gpumem: Your credentials for context "gpumem-demo-nobody" may not list nodes \(RBAC\)\./,
          'the verb and the resource',
        );
        assert.match(forbidden, /Check with: kubectl auth can-i list nodes --context=gpumem-demo-nobody\./);
        assert.match(forbidden, /Ask a cluster administrator for a role that allows "list" on "nodes"/);
        assert.equal((await readQuickPick(page)).visible, false, 'no node pick for a forbidden context');
        assert.equal(sim.state.createdPods.length, created, 'no debug pod was created');
        assert.ok(
          sim.state.requests.some((r) => r.user === 'nobody' && r.code === 403 && /\/api\/v1\/nodes/.test(r.path)),
          "the simulator refused nobody's list of nodes",
        );
        // The end state (test-artifacts/cluster-commands-palette.png): the RBAC notification.
      },
    );
  },
);

test(
  '"Run HAMi Checklist on Pod" from the palette on the bypassed HAMi pod: the report says bypassed',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    await withClusterWorkbench('cluster-commands-hami', {}, async (s, sim) => {
      const { page } = s;
      const mark = sim.state.execs.length;
      await s.step(
        `run "${HAMI_CHECKLIST}" from the palette`,
        () => runCommand(page, HAMI_CHECKLIST, { opensInput: true, timeoutMs: 30_000 }),
        45_000,
      );
      // One context in the kubeconfig: no context pick, the nodes straight away.
      const nodes = await s.step('the node pick', () =>
        waitForQuickPick(page, /^Node of gpumem-demo \(GPU nodes first\)$/, { timeoutMs: 30_000 }),
      );
      assert.equal(nodes[0]?.label, 'gpu-node-7');
      await s.step('choose gpu-node-7', () => chooseQuickPickItem(page, 'gpu-node-7'));
      const pods = await s.step('the pod pick', () => waitForQuickPick(page, /^GPU pod on gpu-node-7$/, { timeoutMs: 30_000 }));
      assert.deepEqual(pods.map((p) => p.label).sort(), ['static-infer-0', 'trainer-0'], 'the two HAMi pods (not the device plugin)');
      assert.match(
        pods.find((p) => p.label === 'static-infer-0')?.description ?? '',
        /^ml · nvidia\.com\/gpu 1\b.* · Burstable · HAMi 8192 MiB, 0% cores/,
      );
      await s.screenshot('pod-pick');
      await s.step('choose static-infer-0', () => chooseQuickPickItem(page, 'static-infer-0'));

      const report = await s.step(
        'the checklist report opens',
        () =>
          waitFor(
            'the HAMi checklist of static-infer-0',
            () => readPreview(page),
            (text) =>
              /gpumem inspection: pod ml\/static-infer-0 -c static-infer \(context gpumem-demo\)/.test(text) &&
              /HAMi cluster checks/.test(text),
            { timeoutMs: PROBE_TIMEOUT_MS, intervalMs: 500 },
          ),
        PROBE_TIMEOUT_MS + 30_000,
      );
      assert.match(
        report,
        /HAMi enforcement checklist\s+bypassed — CUDA_DISABLE_CONTROL=true in the container env, PID 1 and the pod spec: HAMi's limits are off; libvgpu\.so is not mapped in 1 of 1 CUDA process \(infer-static\); infer-static is a static executable: ld\.so\.preload cannot load libvgpu\.so/,
        "the checklist's verdict",
      );
      assert.match(report, /the device plugin did not mount \/etc\/ld\.so\.preload, so libvgpu\.so is never loaded/);
      assert.match(report, /libvgpu\.so is not mapped in 1 of 1 CUDA process \(infer-static\)[\s|]+pid 1 is not limited/);
      assert.match(report, /the same cause as step 1, counted there/, 'the per-process CUDA_DISABLE_CONTROL check, named once');
      assert.match(report, /hami-device-plugin-x7k2p: Running, ready/, "the cluster-side check of the node's device plugin");
      const execs = await finishedExecs(sim, mark);
      assert.deepEqual(
        execs.map((e) => `${e.namespace}/${e.pod}/${e.container}`),
        ['ml/static-infer-0/static-infer'],
      );
      assert.equal(await webviewFrame(page).locator('#banner').count(), 0, 'a Markdown report, not the inspector panel');
      // The end state (test-artifacts/cluster-commands-hami.png): the report.
    });
  },
);

// The Clusters view is never opened before the reveal: the context and node the pickers loaded are changes the
// hidden view held back. Flushed only once the reveal opened the view, they refreshed the context in the middle
// of VS Code's expansion of the parent chain ("No tree item with id '1/[\"node\",…]' found", nothing selected);
// ClusterTreeProvider.reveal hands them to VS Code first.
test(
  '"Inspect Node" from the palette, then a click on a pod in the inspector selects that pod in the Clusters view',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    await withClusterWorkbench('cluster-commands-reveal', {}, async (s) => {
      const { page } = s;
      // The Clusters view is not opened first: revealing the pod loads its context, node and pods itself.
      await s.step(
        `run "${INSPECT_NODE}" from the palette`,
        () => runCommand(page, INSPECT_NODE, { opensInput: true, timeoutMs: 30_000 }),
        45_000,
      );
      await s.step('the node pick', () => waitForQuickPick(page, /^Node of gpumem-demo \(GPU nodes first\)$/, { timeoutMs: 30_000 }));
      await s.step('choose strix-node-1', () => chooseQuickPickItem(page, 'strix-node-1'));
      const frame = await s.step('the inspector panel opens', () => inspectorPanel(page, PROBE_TIMEOUT_MS), PROBE_TIMEOUT_MS + 30_000);
      const link = frame.locator('#pods-table button.pod-link').filter({ hasText: 'default/llama-0' });
      await s.step('the pods table lists default/llama-0', () => link.waitFor({ state: 'visible', timeout: 20_000 }));
      assert.equal(
        await clustersPane(page).locator('.monaco-list-row[aria-selected="true"]').count(),
        0,
        'nothing is selected in the Clusters view yet',
      );

      await s.step('click default/llama-0 in the pods table', () => link.click());
      const selected = await s.step('llama-0 is selected in the Clusters view', () => selectedClusterRow(page, 'llama-0', 30_000), 45_000);
      assert.deepEqual(selected, ['llama-0']);
      const rows = await readTreeItems(page, CLUSTERS_VIEW);
      assert.deepEqual(
        rows.filter((r) => r.level <= 2 && r.expanded).map((r) => r.label),
        ['gpumem-demo', 'strix-node-1'],
        'its context and node were expanded to show it',
      );
      assert.equal(
        (await openTabs(page)).filter((label) => /gpumem-pod-/.test(label)).length,
        0,
        'no Markdown fallback: the pod was found in the cluster',
      );
      // The end state (test-artifacts/cluster-commands-reveal.png): the panel with the pod selected in the tree.
    });
  },
);

const KUBECTL = kubectlOnPath();

test(
  '"Inspect Pod" with gpumem.kubernetes.execMode "kubectl": the probe goes through the real kubectl binary, the reads stay on client-node',
  { timeout: SCENARIO_TIMEOUT_MS, skip: KUBECTL ? false : KUBECTL_MISSING },
  async () => {
    const settings = { 'gpumem.kubernetes.execMode': 'kubectl', 'gpumem.kubernetes.kubectlPath': KUBECTL };
    await withClusterWorkbench('cluster-commands-kubectl', { settings }, async (s, sim) => {
      const { page } = s;
      const execMark = sim.state.execs.length;
      const requestMark = sim.state.requests.length;
      await s.step(
        `run "${INSPECT_POD}" from the palette`,
        () => runCommand(page, INSPECT_POD, { opensInput: true, timeoutMs: 30_000 }),
        45_000,
      );
      await s.step('the node pick', () => waitForQuickPick(page, /^Node of gpumem-demo \(GPU nodes first\)$/, { timeoutMs: 30_000 }));
      await s.step('choose strix-node-1', () => chooseQuickPickItem(page, 'strix-node-1'));
      await s.step('the pod pick', () => waitForQuickPick(page, /^GPU pod on strix-node-1$/, { timeoutMs: 30_000 }));
      await s.step('choose llama-0', () => chooseQuickPickItem(page, 'llama-0'));
      const frame = await s.step('the inspector panel opens', () => inspectorPanel(page, PROBE_TIMEOUT_MS), PROBE_TIMEOUT_MS + 30_000);
      const panel = await readPanel(frame);
      assert.equal(
        panel.title,
        'gpumem inspection: kubectl exec pod default/llama-0 -c llama (context gpumem-demo)',
        'the target names the kubectl transport',
      );
      assert.equal(panel.facts['cgroup memory'], '2 GiB of 16 GiB (v2)', 'the container probe ran in llama-0/llama');
      const execs = await finishedExecs(sim, execMark);
      assert.deepEqual(
        execs.map((e) => [e.pod, e.container, e.command.join(' '), e.user, e.result?.exitCode]),
        [['llama-0', 'llama', 'sh -s', 'admin', 0]],
      );
      const requests = sim.state.requests.slice(requestMark);
      const exec = requests.filter((r) => /^\/api\/v1\/namespaces\/default\/pods\/llama-0\/exec\b/.test(r.path));
      assert.equal(exec.length, 1, 'one exec request');
      assert.match(exec[0]?.userAgent ?? '', /^kubectl\//, `the exec came from kubectl: ${exec[0]?.userAgent}`);
      const lists = requests.filter((r) => r.method === 'GET' && /^\/api\/v1\/nodes(\?|$)/.test(r.path));
      assert.ok(
        lists.length > 0 && lists.every((r) => !/^kubectl\//.test(r.userAgent ?? '')),
        'the node list (the pickers) came from client-node, not kubectl',
      );
      // The end state (test-artifacts/cluster-commands-kubectl.png): the panel of llama-0 probed through kubectl.
    });
  },
);
