// The inspector's pure parts: Inspection → view model (banner, chart, tables, raw sections), the typed
// message protocol, the light probe and its samples, and a parsed capture written back for "Save probe
// capture". Captures are built in memory in the node probe's format (test/unit/helpers/nodeCapture.ts):
// a Strix Halo APU node whose pod holds more GTT than its limit leaves room for, a node with 50 GPU pods,
// and captures full of hostile names.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import type { Inspection } from '../../src/core/inspectionRun/analyze.ts';
import {
  command,
  INSPECTOR_PROTOCOL_VERSION,
  notification,
  parseHostNotification,
  parseInspectorState,
  parseWebviewCommand,
} from '../../src/core/inspector/protocol.ts';
import { serializeCapture } from '../../src/core/probe/captureWriter.ts';
import { appendBounded, MAX_SAMPLES, sampleFromCapture, timeSeries } from '../../src/core/inspectorPanel/sample.ts';
import type { SamplePoint } from '../../src/core/inspectorPanel/sample.ts';
import { verdictDocs } from '../../src/core/inspectorPanel/banner.ts';
import { MAX_STATE_LOG_CHARS, parseClusterFactsState } from '../../src/core/inspectorPanel/clusterFactsState.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { DEFAULT_TOP_PODS } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import type { ChartRow, InspectorViewModel } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { buildProbeScript } from '../../src/core/probe/script.ts';
import { buildLightProbeScript, LIGHT_BODY } from '../../src/core/probe/scripts/lightScript.ts';
import { NODE_BODY } from '../../src/core/probe/scripts/nodeScript.ts';
import { formatBytes } from '../../src/core/sizing.ts';
import { inspectorHtml } from '../../src/vscode/inspectorPanel/html.ts';
import { contentSecurityPolicy, newCspNonce } from '../../src/vscode/webview/html.ts';
import { captureText, procRecord } from './helpers/captureText.ts';
import type { NodeSpec } from './helpers/nodeCapture.ts';
import { containerDir, GiB, lightNodeCapture, manyPodsNode, MiB, nodeCapture, podUid, STRIX_HALO } from './helpers/nodeCapture.ts';
import { bundledWebviewCss } from './helpers/webviewCss.ts';

const GTT_POD = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const SMALL_POD = '6f9619ff-8b86-4011-b42d-00c04fc964ff';
const HOSTILE_IMG = '<img src=x onerror=alert(1)>';
const HOSTILE_SCRIPT = '</script><script>alert(2)</script>';

/** Strix Halo, 128 GiB: one pod at 6 GiB memory.current with 30 GiB of GTT under a 32 GiB limit, one small pod. */
function apuNode(extra: Partial<NodeSpec> = {}): NodeSpec {
  return {
    kernel: '6.17.0-1-generic',
    memTotal: 128 * GiB,
    memAvailable: 70 * GiB,
    gpus: [{ ...STRIX_HALO, gttUsed: 31 * GiB }],
    pods: [
      {
        uid: GTT_POD,
        current: 6 * GiB,
        max: 32 * GiB,
        processes: [{ pid: 4242, comm: 'python3', fds: [{ fd: 7, client: '11', gtt: 30 * GiB, vram: 256 * MiB }] }],
      },
      {
        uid: SMALL_POD,
        current: 1 * GiB,
        max: 8 * GiB,
        processes: [{ pid: 5151, comm: 'llama-server', fds: [{ fd: 9, client: '12', gtt: 1 * GiB }] }],
      },
    ],
    ...extra,
  };
}

function inspect(spec: NodeSpec, podNames?: ReadonlyMap<string, string>): Inspection {
  return analyzeCaptureText(nodeCapture(spec), { target: 'ssh root@gpu-node-1:22', ...(podNames ? { podNames } : {}) });
}

/** Every string anywhere in a value. */
function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) allStrings(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) allStrings(item, out);
  return out;
}

describe('inspector view model: the APU node with a GTT-heavy pod', () => {
  const inspection = inspect(apuNode(), new Map([[GTT_POD, 'ml/trainer-0']]));
  const model = buildInspectorViewModel(inspection);

  test('the banner says the pod is over its limit in reality, with its remedy and docs anchor', () => {
    const banner = model.banner;
    assert.equal(banner.tone, 'error');
    assert.equal(banner.headline, 'A pod is over its memory limit in reality');
    assert.equal(banner.docsId, 'memory.pod-over-limit-in-reality');
    assert.match(
      banner.sentence,
      /^ml\/trainer-0 holds 30 GiB of GTT that its cgroup does not count: it accounts 6 GiB, its true footprint is 36 GiB, above its 32 GiB limit\.$/,
    );
    assert.equal(banner.sentence.split(/[.!?](?:\s|$)/).filter(Boolean).length, 1, 'one sentence');
    // A 36 GiB true footprint × 1.3 = 46.8 GiB, rounded up to the whole Gi a manifest takes.
    assert.match(banner.remedy, /at least 47Gi/);
    assert.ok(banner.counts.error >= 1);
    assert.equal(banner.more, inspection.verdicts.length - 1);
    assert.deepEqual(verdictDocs(banner.docsId ?? ''), { file: 'docs/probes.md', anchor: 'node-verdicts' });
    assert.equal(model.verdicts[0]?.id, 'memory.pod-over-limit-in-reality');
  });

  test('the chart stacks accounted, GTT, free and VRAM per pod with the limit as a line; the node row adds up to MemTotal', () => {
    assert.equal(model.chart.available, true);
    const [first, second] = model.chart.pods;
    assert.ok(first && second);
    assert.equal(first.label, 'ml/trainer-0');
    assert.equal(first.podUid, GTT_POD);
    assert.deepEqual(first.segments, { accounted: 6 * GiB, gtt: 30 * GiB, free: 0, kernel: 0, other: 0, vram: 256 * MiB });
    assert.equal(first.limit, 32 * GiB);
    assert.ok(
      first.details.some((line) => line === 'limit: 34,359,738,368 bytes (32 GiB)'),
      first.details.join('\n'),
    );
    assert.ok(first.details.some((line) => line.startsWith('true footprint: 38,654,705,664 bytes (36 GiB)')));
    assert.equal(second.label, `pod ${SMALL_POD}`);
    assert.deepEqual(second.segments, { accounted: 1 * GiB, gtt: 1 * GiB, free: 6 * GiB, kernel: 0, other: 0, vram: 0 });
    const node = model.chart.node;
    assert.ok(node);
    // MemTotal = pods + GPU memory no cgroup counts + other used + MemAvailable (VRAM is apart).
    assert.equal(node.segments.accounted + node.segments.gtt + node.segments.other + node.segments.free, 128 * GiB);
    assert.equal(node.segments.gtt, 31 * GiB);
    assert.equal(node.limit, 128 * GiB);
    assert.match(model.chart.summary, /2 pods; 1 pod is over its limit once GTT is counted/);
  });

  test('pods table rows: limit, memory.current, GTT, true footprint, headroom, last OOM, container and processes', () => {
    assert.equal(model.pods.length, 2);
    const row = model.pods.find((pod) => pod.podUid === GTT_POD);
    assert.ok(row);
    assert.equal(row.pod, 'ml/trainer-0');
    assert.equal(row.named, true);
    assert.equal(row.limit.value, 32 * GiB);
    assert.equal(row.current.text, '6 GiB');
    assert.equal(row.gtt.value, 30 * GiB);
    assert.equal(row.footprint.value, 36 * GiB);
    assert.equal(row.headroom.value, -4 * GiB);
    assert.equal(row.headroom.text, '-4 GiB');
    assert.equal(row.headroomTone, 'error');
    assert.equal(row.lastOom.text, 'none');
    assert.equal(row.container, containerDir({ uid: GTT_POD }, 1).split('cri-containerd-')[1]?.slice(0, 12));
    assert.deepEqual(row.processes, ['python3 (4242)']);
    const small = model.pods.find((pod) => pod.podUid === SMALL_POD);
    assert.equal(small?.pod, SMALL_POD, 'an unnamed pod shows its UID');
    assert.equal(small?.headroomTone, 'ok');
  });

  test('kernel panel, OOM timeline without a kernel log, raw sections', () => {
    assert.ok(model.kernel.checks.some((check) => check.id === 'kernel.gtt-memcg' && check.status === 'fail'));
    assert.ok(model.kernel.facts.some((fact) => fact.label === 'Unified memory' && fact.value.startsWith('yes')));
    assert.equal(model.oom.available, false);
    assert.match(model.oom.summary, /No kernel log/);
    const names = model.raw.map((section) => section.name);
    assert.deepEqual(names.slice(0, 3), ['meta', 'os-release', 'proc']);
    const proc = model.raw.find((section) => section.name === 'proc');
    assert.match(proc?.text ?? '', /^==> \/proc\/meminfo <==\nMemTotal: +134217728 kB/);
    assert.equal(model.hami, null);
    assert.equal(model.live.possible, true);
    assert.deepEqual(
      model.live.pods.map((pod) => pod.podUid),
      [GTT_POD, SMALL_POD],
    );
    assert.equal(model.header.scope, 'node');
    assert.equal(model.header.title, 'gpumem inspection: ssh root@gpu-node-1:22', 'the target names the host already');
    const other = buildInspectorViewModel({ ...inspection, target: 'ssh root@10.0.4.7:22' });
    assert.equal(other.header.title, 'gpumem inspection: ssh root@10.0.4.7:22 (gpu-node-1)', 'the host name the target does not say');
    const prefix = buildInspectorViewModel({ ...inspection, target: 'ssh root@gpu-node-10:22' });
    assert.equal(prefix.header.title, 'gpumem inspection: ssh root@gpu-node-10:22 (gpu-node-1)', 'gpu-node-10 is not gpu-node-1');
  });

  test('the view model survives JSON (postMessage, setState) unchanged', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(model)), model);
  });
});

describe('inspector view model: 50 GPU pods', () => {
  const spec = manyPodsNode(50);
  const inspection = inspect(spec);
  const model = buildInspectorViewModel(inspection);

  test('the chart stays bounded: the top pods by true footprint plus one "others" row that sums the rest', () => {
    assert.equal(model.chart.totalPods, 50);
    assert.equal(model.chart.shownPods, DEFAULT_TOP_PODS);
    assert.equal(model.chart.pods.length, DEFAULT_TOP_PODS + 1);
    const others = model.chart.pods[model.chart.pods.length - 1];
    assert.ok(others);
    assert.equal(others.kind, 'others');
    assert.equal(others.podCount, 50 - DEFAULT_TOP_PODS);
    assert.equal(others.label, `${50 - DEFAULT_TOP_PODS} other pods`);
    assert.equal(others.limit, null);
    const pods = inspection.node?.pods ?? [];
    const footprints = model.chart.pods.filter((row) => row.kind === 'pod').map((row) => row.segments.accounted + row.segments.gtt);
    assert.deepEqual(
      footprints,
      [...footprints].sort((a, b) => b - a),
      'sorted by true footprint, largest first',
    );
    const smallestShown = Math.min(...footprints);
    const shown = new Set(model.chart.pods.map((row) => row.podUid));
    for (const pod of pods)
      if (!shown.has(pod.podUid)) assert.ok((pod.trueFootprint ?? 0) <= smallestShown, 'only smaller pods go to others');
    // Nothing is lost: accounted and GTT over all rows equal the pods' totals.
    const sum = (pick: (row: ChartRow) => number) => model.chart.pods.reduce((total, row) => total + pick(row), 0);
    assert.equal(
      sum((row) => row.segments.accounted),
      pods.reduce((total, pod) => total + (pod.accounted ?? 0), 0),
    );
    assert.equal(
      sum((row) => row.segments.gtt),
      pods.reduce((total, pod) => total + pod.gtt, 0),
    );
    assert.match(model.chart.summary, /50 pods, the 12 largest shown and 38 summed as others/);
  });

  test('topPods bounds the bars; one leftover pod gets its own bar instead of an "others" row', () => {
    assert.equal(buildInspectorViewModel(inspection, { topPods: 5 }).chart.pods.length, 6);
    const thirteen = buildInspectorViewModel(inspect(manyPodsNode(13)));
    assert.equal(thirteen.chart.pods.length, 13);
    assert.ok(thirteen.chart.pods.every((row) => row.kind === 'pod'));
  });

  test('the pods table keeps every pod, with numbers for sorting', () => {
    assert.equal(model.pods.length, 50);
    assert.equal(new Set(model.pods.map((pod) => pod.podUid)).size, 50);
    assert.ok(model.pods.every((pod) => pod.footprint.value !== null && pod.gtt.value !== null));
    const unlimited = model.pods.filter((pod) => pod.limit.value === null);
    assert.ok(unlimited.length > 0 && unlimited.every((pod) => pod.limit.text === 'none' && pod.headroom.value === null));
    assert.ok(model.pods.some((pod) => pod.headroomTone === 'error') && model.pods.some((pod) => pod.headroomTone === 'ok'));
  });

  test('the view model of 50 pods stays small enough for postMessage and setState', () => {
    const bytes = JSON.stringify(model).length;
    assert.ok(bytes < 512 * 1024, `${bytes} bytes`);
  });
});

describe('inspector view model: hostile names stay plain strings', () => {
  const uid = '0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f';
  const taskMemcg = containerDir({ uid }, 1);
  const kernelLog =
    [
      `Mar  1 10:00:00 gpu-node-1 kernel: [100.000001] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=${taskMemcg},task=${HOSTILE_IMG},pid=4242,uid=0`,
      `Mar  1 10:00:00 gpu-node-1 kernel: [100.000002] Out of memory: Killed process 4242 (${HOSTILE_IMG}) total-vm:1656kB, anon-rss:120kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:48kB oom_score_adj:1000`,
    ].join('\n') + '\n';
  const spec = apuNode({
    hostname: `${HOSTILE_SCRIPT}`,
    os: HOSTILE_IMG,
    kernelLog,
    pods: [
      {
        uid,
        current: 2 * GiB,
        max: 4 * GiB,
        events: 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\noom_group_kill 0\n',
        processes: [
          { pid: 4242, comm: HOSTILE_IMG, fds: [{ fd: 3, client: '1', gtt: 3 * GiB }] },
          { pid: 4343, comm: HOSTILE_SCRIPT, fds: [{ fd: 4, client: '2', gtt: 1 * GiB }] },
        ],
      },
    ],
  });
  const names = new Map([[uid, `ns/${HOSTILE_IMG}`]]);
  const model = buildInspectorViewModel(inspect(spec, names));

  test('process, pod and host names reach the view model verbatim (the webview sets them as text)', () => {
    const strings = allStrings(model);
    assert.ok(
      strings.some((text) => text.includes(HOSTILE_IMG)),
      'the <img> name is there, literally',
    );
    assert.ok(
      strings.some((text) => text.includes(HOSTILE_SCRIPT)),
      'the </script> name is there, literally',
    );
    assert.ok(!strings.some((text) => /&lt;|&gt;|&amp;lt;|\\</.test(text)), 'nothing is HTML- or Markdown-escaped');
    const row = model.pods[0];
    assert.ok(row);
    assert.equal(row.pod, `ns/${HOSTILE_IMG}`);
    assert.deepEqual(row.processes, [`${HOSTILE_IMG} (4242)`, `${HOSTILE_SCRIPT} (4343)`]);
    assert.equal(model.chart.pods[0]?.label, `ns/${HOSTILE_IMG}`);
    assert.ok(model.header.title.includes(HOSTILE_SCRIPT));
    assert.ok(model.header.facts.some((fact) => fact.value === HOSTILE_IMG));
  });

  test('the OOM timeline: a global kill of the pod, its victim and evidence lines with line numbers', () => {
    assert.equal(model.oom.available, true);
    assert.equal(model.oom.source, 'dmesg');
    const kill = model.oom.rows[0];
    assert.ok(kill);
    assert.equal(kill.kind, 'global');
    assert.match(kill.kindLabel, /^global/);
    assert.equal(kill.victim, `${HOSTILE_IMG} (pid 4242)`);
    assert.equal(kill.podUid, uid);
    assert.equal(kill.pod, `ns/${HOSTILE_IMG}`);
    assert.deepEqual(
      kill.evidence.map((line) => line.line),
      [1, 2],
    );
    assert.ok(kill.evidence[1]?.text.includes(`Killed process 4242 (${HOSTILE_IMG})`));
    assert.equal(model.pods[0]?.lastOom.tone, 'error');
    assert.match(model.pods[0]?.lastOom.text ?? '', /global OOM/);
  });

  test('a hostile view model passes the protocol checks unchanged', () => {
    const message = notification('update', {
      model,
      source: { id: '1', target: HOSTILE_SCRIPT, captureText: null, podNames: Object.fromEntries(names), clusterFacts: null },
    });
    const parsed = parseHostNotification(JSON.parse(JSON.stringify(message)));
    assert.ok(parsed && parsed.method === 'update');
    assert.deepEqual(parsed.params.model, model);
  });
});

describe('inspector view model: a container capture', () => {
  test('no node chart or pods; the HAMi checklist rows with status, command and evidence', () => {
    const text = captureText('container', {
      meta: 'hostname=train-0\nkernel=6.8.0-45-generic\nmachine=x86_64\nuid=0\nself=999\n',
      env: 'source=proc\nCUDA_DEVICE_MEMORY_LIMIT_0=4096m\n',
      procs: {
        files: [
          procRecord({
            pid: 42,
            comm: HOSTILE_SCRIPT,
            maps: 'libvgpu=0 libcuda=1 ld-musl=0 ld-linux=1 lines=40',
            nvidiaFd: '1',
            env: ['CUDA_DEVICE_MEMORY_LIMIT_0=4096m'],
          }),
          ['summary', 'count=1\nlimit=500\ntruncated=0\n'],
        ],
      },
    });
    const model = buildInspectorViewModel(analyzeCaptureText(text, { target: 'capture c.txt' }));
    assert.equal(model.header.scope, 'container');
    assert.equal(model.chart.available, false);
    assert.deepEqual(model.pods, []);
    assert.equal(model.live.possible, false);
    assert.ok(model.hami);
    assert.ok(model.hami.rows.length >= 7);
    const loaded = model.hami.rows.find((row) => row.id === 'hami.loaded');
    assert.ok(loaded);
    assert.equal(loaded.status, 'fail');
    assert.match(loaded.command, /maps \| grep libvgpu/);
    assert.ok(loaded.remedy);
    assert.ok(model.hami.rows.filter((row) => row.status === 'pass').every((row) => row.remedy === null));
    assert.equal(model.banner.tone, 'error');
    assert.deepEqual(verdictDocs(model.banner.docsId ?? ''), { file: 'docs/probes.md', anchor: 'container-verdicts-hami' });
  });

  test('no verdicts: the banner says so, and what was not read', () => {
    const model = buildInspectorViewModel(
      analyzeCaptureText(nodeCapture({ kernel: '7.3.0', memTotal: 64 * GiB, gpuActive: 0, kernelLog: '' }), { target: 'local' }),
    );
    assert.ok(model.banner.tone === 'ok' || model.banner.tone === 'info', model.banner.sentence);
    assert.deepEqual(model.banner.unread, []);
    // Without a readable kernel log the OOM verdicts are unknown: not an all-clear.
    const blind = buildInspectorViewModel(
      analyzeCaptureText(nodeCapture({ kernel: '7.3.0', memTotal: 64 * GiB, gpuActive: 0 }), { target: 'local' }),
    );
    assert.equal(blind.banner.tone, 'warning');
    assert.deepEqual(
      blind.banner.unread.map((row) => row.input),
      ['the kernel log (OOM kills)'],
    );
  });
});

describe('inspector: the saved capture and the raw sections', () => {
  test('a parsed capture written back parses to the same sections (gpumem analyze reads it)', () => {
    const text = nodeCapture(apuNode({ kernelLog: 'line one\n\nline three\n' }));
    const capture = parseCapture(text);
    const again = parseCapture(serializeCapture(capture));
    assert.deepEqual([...again.sections.entries()], [...capture.sections.entries()]);
    assert.equal(again.complete, true);
    assert.deepEqual(again.problems, capture.problems);
    const inspection = analyzeCaptureText(serializeCapture(capture), { target: 'x' });
    assert.deepEqual(
      inspection.verdicts.map((v) => v.id),
      analyzeCaptureText(text, { target: 'x' }).verdicts.map((v) => v.id),
    );
  });

  test('a cut-off capture stays cut off; a section over the cap is truncated in the panel only', () => {
    const cut = captureText(
      'node',
      { meta: 'hostname=a\n', proc: { files: [['/proc/meminfo', 'MemTotal: 1 kB\n']], cut: true } },
      { done: false },
    );
    const capture = parseCapture(cut);
    const again = parseCapture(serializeCapture(capture));
    assert.equal(again.complete, false);
    assert.equal(again.sections.get('proc')?.complete, false);
    const big = buildInspectorViewModel(analyzeCaptureText(nodeCapture(apuNode({ kernelLog: 'x'.repeat(5000) })), { target: 'x' }), {
      maxRawSectionChars: 1000,
    });
    const log = big.raw.find((section) => section.name === 'kernel-log');
    assert.ok(log?.truncated);
    assert.match(log.text, /more characters: save the probe capture/);
  });
});

describe('inspector: the light probe and live samples', () => {
  test("the light probe reuses the prelude and the full probe's fdinfo and NVIDIA blocks, and nothing else heavy", () => {
    const script = buildLightProbeScript({ nonce: 'feedfacefeedface0001' });
    const full = buildProbeScript({ scope: 'node', nonce: 'feedfacefeedface0001' });
    const sweep = NODE_BODY.slice(NODE_BODY.indexOf('begin fdinfo\n'), NODE_BODY.indexOf('finish fdinfo\n') + 'finish fdinfo\n'.length);
    assert.ok(LIGHT_BODY.includes(sweep), 'the very fdinfo block of the node probe');
    assert.ok(script.includes("printf '@@gpumem-probe v=1 scope=node nonce=%s root=%s@@\\n'"));
    assert.ok(full.includes(script.split('\n').slice(4, 10).join('\n')), 'the same prelude');
    const nvidia = NODE_BODY.slice(NODE_BODY.indexOf('# NVIDIA: the two CSV queries'), NODE_BODY.indexOf('files nvidia-driver '));
    assert.ok(LIGHT_BODY.includes(nvidia), "the very NVIDIA block of the node probe (VRAM per pod), nothing more of nvidia's");
    for (const heavy of ['dmesg', 'journalctl', 'nvidia-driver', 'nvidia-smi -q', 'hami.caches', 'kubelet', 'memory.stat'])
      assert.ok(!LIGHT_BODY.includes(heavy), heavy);
    // The fdinfo and NVIDIA blocks (with the NVIDIA block's fallback loop for a grep without -z) are about 60 % of
    // the full probe's text; everything else of it stays out.
    assert.ok(script.length < full.length * 0.65, `${script.length} of ${full.length}`);
    assert.throws(() => buildLightProbeScript({ nonce: 'nothex' }), /nonce/);
    assert.throws(() => buildLightProbeScript({ nonce: 'feedfacefeedface0001', hostRoot: '/host/../etc' }), /host root/);
    assert.ok(buildLightProbeScript({ nonce: 'feedfacefeedface0001', hostRoot: '/host' }).includes("GPUMEM_ROOT='/host'"));
  });

  test("a light capture gives one point: each pod's memory.current, GTT and VRAM, the node's MemAvailable", () => {
    const spec = apuNode();
    const point = sampleFromCapture(lightNodeCapture(spec, 1767225605), 1000);
    assert.equal(point.t, 1000);
    assert.equal(point.targetTime, 1767225605);
    assert.equal(point.memAvailable, 70 * GiB);
    assert.equal(point.memTotal, 128 * GiB);
    assert.deepEqual(point.problems, []);
    assert.deepEqual(point.pods, [
      { podUid: GTT_POD, current: 6 * GiB, gtt: 30 * GiB, vram: GiB / 4, evictedRate: null },
      { podUid: SMALL_POD, current: 1 * GiB, gtt: 1 * GiB, vram: 0, evictedRate: null },
    ]);
  });

  test('history is bounded; the time series follows one pod or all pods summed', () => {
    const history: SamplePoint[] = [];
    for (let i = 0; i < MAX_SAMPLES + 50; i++) {
      appendBounded(history, {
        t: i * 2000,
        targetTime: null,
        memAvailable: 10 * GiB - i,
        memTotal: 16 * GiB,
        pods: [
          { podUid: 'a', current: i, gtt: 2 * i, vram: 3 * i },
          { podUid: 'b', current: 1, gtt: 1, vram: 0 },
        ],
        problems: [],
      });
    }
    assert.equal(history.length, MAX_SAMPLES);
    assert.equal(history[0]?.t, 50 * 2000, 'the oldest points went first');
    const one = timeSeries(history, 'a');
    assert.equal(one.current.length, MAX_SAMPLES);
    assert.deepEqual(one.current[0], { x: 0, y: 50 });
    assert.deepEqual(one.gtt[1], { x: 2, y: 102 });
    assert.deepEqual(one.vram[1], { x: 2, y: 153 });
    const all = timeSeries(history, undefined);
    assert.deepEqual(all.current[0], { x: 0, y: 51 });
    assert.deepEqual(all.vram[0], { x: 0, y: 150 });
    assert.equal(timeSeries(history, 'gone').current[0]?.y, null);
  });

  test('50 pods in a light capture', () => {
    const point = sampleFromCapture(lightNodeCapture(manyPodsNode(50)), 0);
    assert.equal(point.pods.length, 50);
    assert.ok(point.pods.every((pod) => pod.current !== null && pod.current > 0));
    assert.ok(point.pods.filter((pod) => pod.gtt > 0).length >= 45);
    assert.ok(point.pods.some((pod) => pod.podUid === podUid(49)));
  });
});

describe('inspector protocol', () => {
  test('commands from the webview are checked: version, method and parameters', () => {
    assert.deepEqual(
      parseWebviewCommand({ v: INSPECTOR_PROTOCOL_VERSION, method: 'openPod', params: { podUid: GTT_POD } }),
      command('openPod', { podUid: GTT_POD }),
    );
    const v = INSPECTOR_PROTOCOL_VERSION;
    assert.deepEqual(parseWebviewCommand(command('setLive', { live: false })), { v, method: 'setLive', params: { live: false } });
    assert.deepEqual(parseWebviewCommand({ v, method: 'ready' }), command('ready', { restored: false }));
    assert.equal(parseWebviewCommand({ v: v - 1, method: 'ready', params: {} }), undefined, 'another version');
    assert.equal(
      parseWebviewCommand({ v, method: 'saveJson', params: {} }),
      undefined,
      'a request is not a command (test/unit/inspectorRequests.test.ts)',
    );
    assert.equal(parseWebviewCommand({ v, method: 'runShell', params: {} }), undefined, 'an unknown method');
    assert.equal(parseWebviewCommand({ v, method: 'openPod', params: { podUid: 42 } }), undefined);
    assert.equal(parseWebviewCommand({ v, method: 'openDocs', params: { docsId: '../../etc/passwd' } }), undefined);
    assert.equal(parseWebviewCommand({ v, method: 'setLive', params: { live: 'yes' } }), undefined);
    assert.equal(parseWebviewCommand('ready'), undefined);
    assert.equal(parseWebviewCommand(null), undefined);
  });

  test('notifications and the saved state are checked too; the UI state gets defaults', () => {
    assert.equal(parseHostNotification({ v: INSPECTOR_PROTOCOL_VERSION, method: 'update', params: { model: {}, source: {} } }), undefined);
    assert.ok(
      parseHostNotification(notification('liveState', { state: { status: 'running', everySeconds: 5, samples: 3, detail: 'every 5 s' } })),
    );
    const model: InspectorViewModel = buildInspectorViewModel(inspect(apuNode()));
    const state = parseInspectorState({
      v: 1,
      model,
      source: { id: 'i1', target: 'local', captureText: 'x', podNames: { a: 'ns/a', b: 3 } },
    });
    assert.ok(state);
    assert.deepEqual(state.source.podNames, { a: 'ns/a' });
    assert.deepEqual(state.ui, { sort: { column: 'footprint', descending: true }, rawFilter: '', livePod: '' });
    assert.equal(
      parseInspectorState({ v: 1, model: { v: 99 }, source: { id: 'i', target: 'x', captureText: null, podNames: {} } }),
      undefined,
    );
    assert.equal(parseInspectorState({ v: 1, model, source: { target: 'x', captureText: null, podNames: {} } }), undefined, 'no source id');
    assert.equal(parseInspectorState(undefined), undefined);
    assert.equal(state.source.clusterFacts, null, 'a state saved before cluster facts were kept has none');
  });

  test('the saved cluster facts are checked field by field: what is malformed is dropped, never the prototype', () => {
    const hostile = JSON.parse(
      '{"hamiQuotas":{"__proto__":{"GPU-1":1},"pod-a":{"GPU-1":4000,"GPU-2":-5,"GPU-3":1.5,"GPU-4":"8192"},"pod-b":7},' +
        '"hamiCluster":{"devicePluginPods":[{"name":"p","phase":"Running","ready":"yes"},{"name":3}],"runtimeClassName":5,' +
        '"privileged":"true","podEnv":{"A":"1","B":2},"managedByHami":true,"allocatedDevices":[{"uuid":"GPU-1","memMiB":1e400}],' +
        '"registeredDevices":{"uuid":"GPU-1"},"containerLog":' +
        JSON.stringify('x'.repeat(MAX_STATE_LOG_CHARS + 10)) +
        '}}',
    ) as unknown;
    const parsed = parseClusterFactsState(hostile);
    assert.ok(parsed);
    assert.equal(Object.getPrototypeOf(parsed.hamiQuotas), Object.prototype, 'the prototype is untouched');
    assert.deepEqual(Object.keys(parsed.hamiQuotas ?? {}), ['__proto__', 'pod-a'], '"__proto__" stays a key');
    assert.deepEqual(parsed.hamiQuotas?.['pod-a'], { 'GPU-1': 4000 });
    const cluster = parsed.hamiCluster;
    assert.deepEqual(cluster?.devicePluginPods, [{ name: 'p', phase: 'Running' }]);
    assert.equal(cluster?.runtimeClassName, undefined);
    assert.equal(cluster?.privileged, undefined);
    assert.deepEqual(cluster?.podEnv, { A: '1' });
    assert.equal(cluster?.managedByHami, true);
    assert.deepEqual(cluster?.allocatedDevices, [], 'Infinity MiB is no allocation');
    assert.equal(cluster?.registeredDevices, undefined);
    assert.equal(cluster?.containerLog?.length, MAX_STATE_LOG_CHARS, 'the newest 256 KiB of the log');
    for (const junk of [null, 3, 'x', [], {}]) assert.equal(parseClusterFactsState(junk), null, JSON.stringify(junk));
  });

  test("formatBytes agrees with the banner's numbers", () => {
    assert.equal(formatBytes(36 * GiB), '36 GiB');
  });
});

describe('inspector panel HTML and webview sources', () => {
  const webviewDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'webview', 'inspector');

  test('the strict CSP with a fresh nonce; one external script with that nonce; no inline script or style', () => {
    const nonce = newCspNonce();
    assert.notEqual(newCspNonce(), nonce, 'a new nonce each time');
    const source = 'https://file+.vscode-resource.vscode-cdn.net';
    const html = inspectorHtml({
      cspSource: source,
      scriptUri: `${source}/ext/dist/webview/inspector.js`,
      styleUri: `${source}/ext/dist/webview/inspector.css`,
      nonce,
    });
    const policy = contentSecurityPolicy(source, nonce);
    assert.equal(
      policy,
      `default-src 'none'; img-src ${source} data:; style-src ${source}; font-src ${source}; script-src 'nonce-${nonce}';`,
    );
    assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="${policy}">`));
    assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|https?:\/\/(?!file\+)/);
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    assert.deepEqual(scripts, [`<script nonce="${nonce}" src="${source}/ext/dist/webview/inspector.js">`]);
    assert.match(html, /<script[^>]*><\/script>/, 'the script tag is empty: no inline code');
    assert.doesNotMatch(html, /<style|style=/);
    assert.throws(() => inspectorHtml({ cspSource: source, scriptUri: 'x', styleUri: 'y', nonce: "x' 'unsafe-inline" }), /nonce/);
  });

  test('the webview puts text on the page only as text: no innerHTML, no eval, no inline styles', () => {
    const files = readdirSync(webviewDir).filter((name) => name.endsWith('.ts'));
    assert.ok(files.includes('main.ts') && files.includes('podsSection.ts') && files.includes('widgets.ts'));
    for (const name of files) {
      const text = readFileSync(path.join(webviewDir, name), 'utf8').replace(/^\s*\/\/.*$/gm, '');
      assert.doesNotMatch(
        text,
        /\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setAttribute\(\s*['"]style['"]/,
        name,
      );
    }
    // With the shared page stylesheet it @imports (inlined by the build): no other import and no remote url() remain.
    const css = bundledWebviewCss(path.join(webviewDir, 'inspector.css'));
    assert.match(css, /color-scheme: light dark/, 'the shared page stylesheet is part of it');
    assert.doesNotMatch(css, /@import|url\(\s*['"]?https?:/, 'no remote resources in the stylesheet');
  });
});
