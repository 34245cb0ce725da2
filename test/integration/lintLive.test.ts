// `gpumem lint --live` against the API simulator and Debian's Prometheus: a Deployment `llm` whose pod was killed by
// the node's global OOM with the GPU signature (its GPU memory in RAM, outside the cgroup, pushed the node over) and a
// StatefulSet `db` (no namespace in the file: the context's `ml`) whose pod hit its memory limit (a memcg kill). Six
// hours of their series, generated here, are turned into TSDB blocks by promtool; the workloads and pods are put in
// the simulator. The test asserts the live findings and the lens lines the CLI prints in text, JSON and SARIF (rule
// metadata and docs links), that a --config file's rule settings and a workload's ignore-check annotation apply to
// the live findings, the quick fix's edit (the editor's read-once source on the same cluster) and that after it the
// footprint finding is gone; and that an unreachable cluster costs one line and exit 3 while the static
// findings are still printed. Expected figures come from the generated samples, not from the code under test.
// Skips with the reason when the prometheus package is not installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { fixesOf } from '../../src/core/findings.ts';
import { lintText } from '../../src/core/lint.ts';
import { judgeLive } from '../../src/core/live/liveFindings.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { PrometheusClient } from '../../src/prometheus/client.ts';
import { ReadOnceSource } from '../../src/live/liveSource.ts';
import { runCli } from '../helpers/cli.ts';
import type { PrometheusProcess } from '../helpers/prometheusProcess.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';
import { completeFixtures, loadFixtures } from '../simulator/fixtures.ts';
import type { KubeObject } from '../simulator/objects.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const SKIP = prometheusUnavailable() ?? false;
const GiB = 1024 ** 3;
const STEP = 60;
const HOURS = 6;

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
  namespace: ml
spec:
  selector:
    matchLabels: { app: llm }
  template:
    metadata:
      labels: { app: llm }
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.11.0
          resources:
            requests:
              memory: 8Gi
            limits:
              memory: 8Gi
              amd.com/gpu: 1
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  selector:
    matchLabels: { app: db }
  template:
    metadata:
      labels: { app: db }
    spec:
      containers:
        - name: postgres
          image: postgres:17
          resources:
            requests:
              memory: 4Gi
            limits:
              memory: 4Gi
              nvidia.com/gpu: 1
`;

function owner(apiVersion: string, kind: string, name: string, uid: string) {
  return [{ apiVersion, kind, name, uid, controller: true }];
}

function oomKilledStatus(container: string, finishedAt: string) {
  return {
    phase: 'Running',
    containerStatuses: [
      {
        name: container,
        restartCount: 1,
        state: { running: {} },
        lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt } },
      },
    ],
  };
}

function liveObjects(killedAt: string): KubeObject[] {
  const template = (app: string, container: string, limits: Record<string, string>) => ({
    metadata: { labels: { app } },
    spec: { containers: [{ name: container, image: 'example', resources: { requests: { memory: limits['memory'] }, limits } }] },
  });
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ml' } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'llm', namespace: 'ml', uid: 'd-llm', annotations: { 'deployment.kubernetes.io/revision': '1' } },
      spec: { selector: { matchLabels: { app: 'llm' } }, template: template('llm', 'server', { memory: '8Gi', 'amd.com/gpu': '1' }) },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'llm-7d9f',
        namespace: 'ml',
        uid: 'rs-llm',
        annotations: { 'deployment.kubernetes.io/revision': '1' },
        ownerReferences: owner('apps/v1', 'Deployment', 'llm', 'd-llm'),
      },
      spec: { selector: { matchLabels: { app: 'llm' } }, template: template('llm', 'server', { memory: '8Gi', 'amd.com/gpu': '1' }) },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'llm-7d9f-a',
        namespace: 'ml',
        uid: 'uid-llm-7d9f-a',
        labels: { app: 'llm' },
        ownerReferences: owner('apps/v1', 'ReplicaSet', 'llm-7d9f', 'rs-llm'),
      },
      spec: { nodeName: 'strix-node-1', containers: [{ name: 'server', image: 'example' }] },
      status: oomKilledStatus('server', killedAt),
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'ml', uid: 's-db' },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: template('db', 'postgres', { memory: '4Gi', 'nvidia.com/gpu': '1' }),
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'db-0',
        namespace: 'ml',
        uid: 'uid-db-0',
        labels: { app: 'db' },
        ownerReferences: owner('apps/v1', 'StatefulSet', 'db', 's-db'),
      },
      spec: { nodeName: 'web-node-3', containers: [{ name: 'postgres', image: 'example' }] },
      status: oomKilledStatus('postgres', killedAt),
    },
  ] as unknown as KubeObject[];
}

/** Six hours of samples: the llm pod's working set and GPU memory in RAM peak together at 10 + 30 GiB, once. */
function writeHistory(file: string, now: number): { killAt: number } {
  const end = Math.floor(now / STEP) * STEP - STEP;
  const start = end - HOURS * 3600;
  const peakAt = end - 2 * 3600;
  const killAt = end - 3600;
  const lines: string[] = [];
  const family = (name: string, type: 'gauge' | 'counter', series: [Record<string, string>, (t: number) => number][]) => {
    lines.push(`# TYPE ${type === 'counter' ? name.slice(0, -'_total'.length) : name} ${type}`);
    for (const [labels, value] of series) {
      const text = Object.entries(labels)
        .map(([key, one]) => `${key}="${one}"`)
        .join(',');
      for (let t = start; t <= end; t += STEP) lines.push(`${name}{${text}} ${value(t)} ${t}`);
    }
  };
  const llm = { node: 'strix-node-1', namespace: 'ml', pod: 'llm-7d9f-a', uid: 'uid-llm-7d9f-a' };
  const db = { node: 'web-node-3', namespace: 'ml', pod: 'db-0', uid: 'uid-db-0' };
  family('container_memory_working_set_bytes', 'gauge', [
    [{ namespace: 'ml', pod: 'llm-7d9f-a', container: 'server' }, (t) => (t === peakAt ? 10 * GiB : 6 * GiB)],
    [{ namespace: 'ml', pod: 'db-0', container: 'postgres' }, (t) => (t === killAt ? 4 * GiB : 3 * GiB)],
  ]);
  // The agent exports GPU memory in RAM per pod and per container (docs/agent.md); the llm pod has one container.
  const gpu = (t: number) => (t === peakAt ? 30 * GiB : 16 * GiB);
  family('gpumem_pod_unaccounted_bytes', 'gauge', [[llm, gpu]]);
  family('gpumem_container_unaccounted_bytes', 'gauge', [[{ ...llm, container: 'server' }, gpu]]);
  family('gpumem_oom_kills_total', 'counter', [
    [{ ...llm, scope: 'global', gpu_signature: 'true' }, (t) => (t >= killAt ? 1 : 0)],
    [{ ...db, scope: 'memcg', gpu_signature: 'false' }, (t) => (t >= killAt ? 1 : 0)],
  ]);
  family('kube_pod_container_status_last_terminated_reason', 'gauge', [
    [{ namespace: 'ml', pod: 'db-0', container: 'postgres', reason: 'OOMKilled' }, (t) => (t >= killAt ? 1 : 0)],
  ]);
  lines.push('# EOF', '');
  writeFileSync(file, lines.join('\n'));
  return { killAt };
}

interface JsonFinding {
  readonly file: string;
  readonly line: number;
  readonly ruleId: string;
  readonly severity: string;
  readonly message: string;
  readonly name: string | null;
}

describe('gpumem lint --live against the simulator and a real Prometheus', { skip: SKIP }, () => {
  let sim: Simulator;
  let prometheus: PrometheusProcess | undefined;
  let work: string;
  let kubeconfig: string;
  let manifest: string;
  const env = () => ({ PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work });
  const live = (...args: string[]) => [
    'lint',
    '--live',
    '--kubeconfig',
    kubeconfig,
    '--prometheus',
    prometheus?.base ?? '',
    '--window',
    `${HOURS}h`,
    ...args,
  ];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-lint-live-'));
    const now = Math.floor(Date.now() / 1000);
    const { killAt } = writeHistory(join(work, 'history.om'), now);
    const blocks = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'history.om'), join(work, 'tsdb')], {
      encoding: 'utf8',
    });
    assert.equal(blocks.status, 0, blocks.stderr);
    prometheus = await startPrometheus({ dir: work, tsdb: join(work, 'tsdb') });
    sim = await startSimulator({ fixtures: completeFixtures(loadFixtures()), roots: false });
    for (const object of liveObjects(new Date(killAt * 1000).toISOString())) sim.state.put(object);
    kubeconfig = join(work, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig('admin', { namespace: 'ml' }), { mode: 0o600 });
    manifest = join(work, 'workloads.yaml');
    writeFileSync(manifest, MANIFEST);
  });

  after(async () => {
    await sim?.close();
    await prometheus?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('JSON: the footprint over the limit and the global kill of llm, the memcg kill of db (the context namespace)', async () => {
    const run = await runCli([...live('--format', 'json'), manifest], { env: env(), timeoutMs: 120_000 });
    assert.equal(run.code, 1, run.stderr);
    const findings = (JSON.parse(run.stdout) as JsonFinding[]).filter(
      (one) => one.ruleId.startsWith('observed-') || one.ruleId === 'manifest-drift',
    );
    const ids = findings.map((one) => `${one.name}:${one.ruleId}:${one.severity}`).sort();
    assert.deepEqual(
      ids,
      // db peaked at its 4 GiB limit: with 30 % headroom 5.2 GiB, over it too.
      [
        'db:observed-footprint-over-limit:warning',
        'db:observed-oom-kills:warning',
        'llm:observed-footprint-over-limit:warning',
        'llm:observed-oom-kills:info',
      ],
      run.stderr,
    );
    const over = findings.find((one) => one.ruleId === 'observed-footprint-over-limit' && one.name === 'llm');
    // 10 GiB working set + 30 GiB GPU memory in RAM at the same sample; 40 GiB × 1.3 = 52 GiB against the 8Gi limit.
    assert.match(over?.message ?? '', /peaked at 40 GiB true footprint \(cgroup 10 GiB \+ GPU memory in RAM 30 GiB/);
    assert.match(over?.message ?? '', /with 30 % headroom that is 52 GiB, above this memory (limit|request) of 8Gi/);
    assert.match(over?.message ?? '', new RegExp(`Prometheus at 127\\.0\\.0\\.1:${prometheus?.port}`));
    const globalKill = findings.find((one) => one.name === 'llm' && one.ruleId === 'observed-oom-kills');
    assert.match(
      globalKill?.message ?? '',
      /^1 OOM kill in 6h in gpumem-demo: 1 global with the GPU signature\. Raising the memory limit would not have prevented/,
    );
    const memcg = findings.find((one) => one.name === 'db' && one.ruleId === 'observed-oom-kills');
    assert.match(memcg?.message ?? '', /^1 OOM kill in 6h in gpumem-demo: 1 memcg \(limit hit\)/);
    assert.equal(memcg?.line, MANIFEST.split('\n').indexOf('        - name: postgres') + 1);
    assert.match(run.stderr, /gpumem lint: live: gpumem-demo: 2 containers matched, 0 not in the cluster/);
  });

  test('text: the findings, then one live lens line per container', async () => {
    const run = await runCli([...live(), manifest], { env: env(), timeoutMs: 120_000 });
    assert.equal(run.code, 1, run.stderr);
    const serverLine = MANIFEST.split('\n').indexOf('        - name: server') + 1;
    const lens = run.stdout.split('\n').find((line) => line.startsWith(`${manifest}:${serverLine}: live in gpumem-demo:`));
    assert.ok(lens, run.stdout);
    assert.match(
      lens,
      /: live in gpumem-demo: 1 pod · peak true footprint 40 GiB \(cgroup 10 GiB \+ GPU memory in RAM 30 GiB\) vs limit 8Gi · 1 OOM kill in 6h: 1 global with the GPU signature — raising the limit would not have prevented the global ones/,
    );
  });

  test('SARIF: the live results with their regions, and the live rules with their docs pages', async () => {
    const run = await runCli([...live('--format', 'sarif', '--docs-url', 'https://example.test/docs/rules'), manifest], {
      env: env(),
      timeoutMs: 120_000,
    });
    const sarif = JSON.parse(run.stdout) as {
      runs: {
        tool: { driver: { rules: { id: string; helpUri: string }[] } };
        results: {
          ruleId: string;
          ruleIndex?: number;
          locations: { physicalLocation: { region: { startLine: number } } }[];
          properties?: { fixes?: string[] };
        }[];
      }[];
    };
    const [only] = sarif.runs;
    const rules = only?.tool.driver.rules ?? [];
    const rule = rules.find((one) => one.id === 'observed-oom-kills');
    assert.equal(rule?.helpUri, 'https://example.test/docs/live/observed-oom-kills.md');
    const result = only?.results.find((one) => one.ruleId === 'observed-footprint-over-limit');
    assert.equal(rules[result?.ruleIndex ?? -1]?.id, 'observed-footprint-over-limit');
    assert.equal(result?.locations[0]?.physicalLocation.region.startLine, MANIFEST.split('\n').indexOf('        - name: server') + 1);
    // The quick fix, built for the report (the editor builds it only when the lightbulb asks).
    assert.deepEqual(result?.properties?.fixes, ['Set resources from what the pods used']);
  });

  test('--config turns observed-oom-kills off and makes manifest-drift a warning; an annotation silences drift on db only', async () => {
    // The file now says 9Gi for llm and 5Gi for db (the cluster runs 8Gi and 4Gi): drift on both, silenced on db.
    const changed = MANIFEST.replace(/memory: 8Gi/g, 'memory: 9Gi')
      .replace(/memory: 4Gi/g, 'memory: 5Gi')
      .replace('  name: db\n', '  name: db\n  annotations:\n    ignore-check.gpumem.io/manifest-drift: "resize rolling out"\n');
    const file = join(work, 'settings.yaml');
    writeFileSync(file, changed);
    const config = join(work, 'gpumem.yaml');
    writeFileSync(config, 'rules:\n  observed-oom-kills: "off"\n  manifest-drift: warning\n');
    const json = await runCli([...live('--format', 'json', '--config', config), file], { env: env(), timeoutMs: 120_000 });
    assert.equal(json.code, 1, json.stderr);
    assert.doesNotMatch(json.stderr, /ignoring config/, 'the live ids are known rule ids');
    const ids = (JSON.parse(json.stdout) as JsonFinding[])
      .filter((one) => one.ruleId.startsWith('observed-') || one.ruleId === 'manifest-drift')
      .map((one) => `${one.name}:${one.ruleId}:${one.severity}`);
    assert.deepEqual(
      [...new Set(ids)].sort(),
      ['db:observed-footprint-over-limit:warning', 'llm:manifest-drift:warning', 'llm:observed-footprint-over-limit:warning'],
      json.stdout,
    );
    const sarif = await runCli([...live('--format', 'sarif', '--config', config), file], { env: env(), timeoutMs: 120_000 });
    const results = (JSON.parse(sarif.stdout) as { runs: { results: { ruleId: string; level: string }[] }[] }).runs[0]?.results ?? [];
    assert.ok(!results.some((one) => one.ruleId === 'observed-oom-kills'), sarif.stdout);
    const drift = results.filter((one) => one.ruleId === 'manifest-drift');
    assert.ok(drift.length > 0 && drift.every((one) => one.level === 'warning'), sarif.stdout);
  });

  test("the quick fix's edit sets the recommendation, after which the footprint finding is gone", async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const client = new ClusterClient({ name: kc.getCurrentContext(), kubeConfig: kc });
    const source = new ReadOnceSource({
      client,
      window: { label: `${HOURS}h`, seconds: HOURS * 3600 },
      headroomPercent: 30,
      figuresFrom: {
        kind: 'prometheus',
        client: new PrometheusClient({ kind: 'url', url: prometheus?.base ?? '', auth: { kind: 'none' } }),
      },
    });
    try {
      source.setNamespaces(['ml']);
      await source.refresh();
      const snapshot = source.snapshot();
      assert.ok(snapshot, JSON.stringify(source.state()));
      const judged = judgeLive(lintText(MANIFEST).containers, snapshot, {
        headroomPercent: 30,
        rules: {},
        nowMs: Date.now(),
        text: MANIFEST,
      });
      const over = judged.findings.find((one) => one.ruleId === 'observed-footprint-over-limit');
      const [fix] = over ? fixesOf(over, MANIFEST) : [];
      assert.equal(fix?.title, 'Set resources from what the pods used');
      const [edit] = fix?.edits ?? [];
      assert.ok(edit);
      const fixed = MANIFEST.slice(0, edit.start) + edit.newText + MANIFEST.slice(edit.end);
      // Request and limit of `server` at least the peak with headroom (52 GiB), the GPU memory declared.
      const memories = [...fixed.matchAll(/^ +memory: (\d+)Gi$/gm)].map((match) => Number(match[1]));
      assert.ok(
        memories.slice(0, 2).every((gi) => gi >= 52),
        fixed,
      );
      assert.match(fixed, /gpumem\.io\/gpu-memory/);
      assert.ok(fixed.includes('memory: 4Gi'), "db's own fix is another finding's; this edit leaves it");
      const again = judgeLive(lintText(fixed).containers, snapshot, { headroomPercent: 30, rules: {}, nowMs: Date.now(), text: fixed });
      assert.equal(
        again.findings.filter((one) => one.ruleId === 'observed-footprint-over-limit' && one.object?.name === 'llm').length,
        0,
        'the footprint finding is gone',
      );
      const pod = snapshot.workloads.get(`Deployment\u0000ml\u0000llm`)?.podLines[0];
      assert.equal(pod?.gttPeak?.value, 30 * GiB);
      assert.equal(pod?.lastKill?.cause.value.kind, 'global-gpu');
    } finally {
      source.dispose();
      await client.dispose(0);
    }
  });

  test('a cluster that cannot be read: one line, the static findings still printed, exit 3', async () => {
    const broken = join(work, 'broken-kubeconfig');
    writeFileSync(broken, sim.kubeconfig('admin').replace(sim.url, 'https://127.0.0.1:1'), { mode: 0o600 });
    const run = await runCli(
      ['lint', '--live', '--kubeconfig', broken, '--prometheus', prometheus?.base ?? '', '--format', 'json', manifest],
      {
        env: env(),
        timeoutMs: 120_000,
      },
    );
    assert.equal(run.code, 3, run.stderr);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.filter((line) => line.includes('live comparison')).length, 1, run.stderr);
    assert.match(run.stderr, /gpumem lint: not analysed: the live comparison with gpumem-demo: /);
    const staticRun = await runCli(['lint', '--format', 'json', manifest], { env: env(), timeoutMs: 120_000 });
    assert.equal(run.stdout, staticRun.stdout, 'the static findings, as without --live');
  });
});
