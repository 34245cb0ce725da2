// KFD eviction counters (kfd/proc/<pid>/stats_<gpu>/evicted_ms) per process and pod, and the verdicts on them:
// vram.overcommitted, vram.eviction-thrashing, dmem.protection. Captures are built like the node probe's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { parseCapture, sectionFiles } from '../../src/core/probe/capture.ts';
import { parseKfd, parseProcStat } from '../../src/core/probe/parsers/kfd.ts';
import { evictedBetween } from '../../src/core/inspectorPanel/evictionDelta.ts';
import { lifetimeEvictions, sampleEvictions } from '../../src/core/verdicts/eviction/kfdEviction.ts';
import { EVICTION_RATE_THRESHOLD } from '../../src/core/verdicts/eviction/vramEviction.ts';
import { sampleFromCapture, sampleWithBaseline, timeSeries } from '../../src/core/inspectorPanel/sample.ts';
import { containerDir, GiB, lightNodeCapture, nodeCapture, podUid, STRIX_HALO } from './helpers/nodeCapture.ts';
import type { NodeSpec } from './helpers/nodeCapture.ts';
import type { KfdProcSpec } from './helpers/kfdCapture.ts';
import { kfdFiles, procStat, withKfd, withRecords } from './helpers/kfdCapture.ts';

const GPU = 40087;
const UPTIME = 10_000;
const podA = { uid: podUid(1), qos: 'burstable' as const, current: 4 * GiB, max: 32 * GiB };
const podB = { uid: podUid(2), qos: 'burstable' as const, current: 4 * GiB, max: 32 * GiB };
const cg = (pod: typeof podA, index: number) => `0::${containerDir(pod, index + 1)}\n`;
/** A process started `age` seconds before the capture (uptime 10,000 s, 100 ticks per second). */
const proc = (
  pid: number,
  comm: string,
  pod: typeof podA,
  index: number,
  age: number,
  evicted: number | string,
  vram: number | string = 6 * GiB,
): KfdProcSpec => ({
  pid,
  comm,
  startTicks: (UPTIME - age) * 100,
  cgroup: cg(pod, index),
  gpus: { [GPU]: [vram, evicted] },
});
const names = new Map([
  [podA.uid, 'llm/vllm-a'],
  [podB.uid, 'llm/vllm-b'],
]);

function node(kernel: string, extra: Partial<NodeSpec> = {}): string {
  return nodeCapture({ kernel, memTotal: 128 * GiB, gpus: [STRIX_HALO], pods: [podA, podB], ...extra });
}

function kfdOf(text: string) {
  return parseKfd(sectionFiles(parseCapture(text), 'kfd'));
}

test('kfd section: topology, per-process VRAM and evicted_ms, start time and pod from the batched read', () => {
  const text = withKfd(node('7.3.0'), kfdFiles([[GPU, 'gfx1151']], [proc(4101, 'python3', podA, 0, 1000, 50_000)]), UPTIME);
  const kfd = kfdOf(text);
  assert.deepEqual(kfd.gpus, [{ gpuId: GPU, name: 'gfx1151' }]);
  assert.equal(kfd.processes.length, 1);
  assert.deepEqual(kfd.processes[0]?.gpus, [{ gpuId: GPU, vramBytes: 6 * GiB, evictedMs: 50_000 }]);
  assert.equal(kfd.processes[0]?.startTicks, (UPTIME - 1000) * 100);
  assert.equal(kfd.clockTicksRead, false);
  const evictions = lifetimeEvictions(kfd, UPTIME);
  assert.equal(evictions.pods[0]?.podUid, podA.uid);
  assert.equal(evictions.processes[0]?.ratePerSecond, 50);
  assert.equal(evictions.processes[0]?.seconds, 1000);
});

test('a hostile comm with ")", spaces and a newline neither moves the start time nor forges another pid’s cgroup', () => {
  const evil = `x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 999999999\n4102/cgroup:0::${containerDir(podB, 2)}`;
  assert.equal(parseProcStat(procStat(4101, evil, 12_345)).startTicks, 12_345);
  const text = withKfd(
    node('7.3.0'),
    kfdFiles([[GPU, 'gfx1151']], [proc(4101, evil, podA, 0, 1000, 10), { ...proc(4102, 'ok', podA, 0, 500, 10), cgroup: cg(podA, 0) }]),
    UPTIME,
  );
  const kfd = kfdOf(text);
  assert.equal(kfd.processes.find((p) => p.pid === 4101)?.startTicks, (UPTIME - 1000) * 100);
  // 4102's real cgroup is pod A's: the forged `4102/cgroup:` inside 4101's comm is a tab-joined part of one line.
  assert.equal(lifetimeEvictions(kfd, UPTIME).processes.find((p) => p.pid === 4102)?.podUid, podA.uid);
});

test('the per-file fallback (no grep -z) reads the same start times and cgroups', () => {
  const files = kfdFiles([[GPU, 'gfx1151']], [proc(4101, 'a b)', podA, 0, 1000, 30_000)], false);
  const evictions = lifetimeEvictions(kfdOf(withKfd(node('7.3.0'), files, UPTIME)), UPTIME);
  assert.equal(evictions.processes[0]?.ratePerSecond, 30);
  assert.equal(evictions.processes[0]?.podUid, podA.uid);
});

test(`vram.eviction-thrashing: two processes above ${EVICTION_RATE_THRESHOLD} ms/s on one GPU, named with their pods`, () => {
  const text = withKfd(
    node('7.3.0'),
    kfdFiles([[GPU, 'gfx1151']], [proc(4101, 'vllm-a', podA, 0, 1000, 50_000), proc(5202, 'vllm-b', podB, 1, 500, 20_000)]),
    UPTIME,
  );
  const verdicts = analyzeCaptureText(text, { target: 't', podNames: names }).verdicts.filter((v) => v.id === 'vram.eviction-thrashing');
  assert.equal(verdicts.length, 1);
  const verdict = verdicts[0];
  assert.ok(verdict);
  assert.equal(verdict.severity, 'warning');
  assert.match(verdict.title, /vllm-a \(pid 4101, llm\/vllm-a\) and vllm-b \(pid 5202, llm\/vllm-b\)/);
  assert.match(verdict.title, /50\.0 ms\/s and 40\.0 ms\/s/);
  assert.ok(verdict.evidence.some((line) => line.includes('evicted_ms 50000') && line.includes('1000 s since it started')));
  assert.ok(
    verdict.evidence.some((line) => /CLK_TCK/.test(line)),
    'the assumed clock rate is said',
  );
  assert.match(verdict.remedy, /dmem\.low/);
});

test('no thrashing verdict for one process above the threshold, or two below it', () => {
  for (const [a, b] of [
    [50_000, 1_000],
    [19_000, 9_000],
  ] as const) {
    const text = withKfd(
      node('7.3.0'),
      kfdFiles([[GPU, 'gfx1151']], [proc(4101, 'a', podA, 0, 1000, a), proc(5202, 'b', podB, 1, 500, b)]),
      UPTIME,
    );
    assert.equal(
      analyzeCaptureText(text, { target: 't' }).verdicts.filter((v) => v.id === 'vram.eviction-thrashing').length,
      0,
      `${a}, ${b}`,
    );
  }
});

test('getconf CLK_TCK, when read, sets the tick rate of the start times', () => {
  const files = [
    ...kfdFiles([[GPU, 'gfx1151']], [proc(4101, 'a', podA, 0, 1000, 50_000)]),
    ['/proc/kfd-clk-tck', '250\n'] as [string, string],
  ];
  const kfd = kfdOf(withKfd(node('7.3.0'), files, UPTIME));
  assert.equal(kfd.clockTicks, 250);
  assert.equal(kfd.clockTicksRead, true);
  // Start 900,000 ticks at 250/s is 3600 s after boot: 6400 s old.
  assert.equal(lifetimeEvictions(kfd, UPTIME).processes[0]?.seconds, 6400);
});

test('bad input: non-numeric and unreadable counters, a missing stat, a start after the uptime: left out with a problem, never NaN', () => {
  const files: [string, string][] = [
    ...kfdFiles(
      [[GPU, 'gfx1151']],
      [
        proc(4101, 'a', podA, 0, 1000, 'n/a'),
        proc(4102, 'b', podA, 0, -50, 900),
        proc(4103, 'c', podA, 0, 10, 'gpumem: permission denied'),
      ],
    ),
    ['/sys/class/kfd/kfd/proc/4104/stats_40087/evicted_ms', '1234\n'],
  ];
  const inspection = analyzeCaptureText(withKfd(node('7.3.0'), files, UPTIME), { target: 't' });
  const kfd = inspection.node?.kfd;
  assert.ok(kfd);
  assert.deepEqual(
    kfd.processes.map((p) => p.pid),
    [4102, 4104],
  );
  assert.equal(kfd.processes[0]?.ratePerSecond, undefined, 'a start time after the uptime gives no rate');
  assert.equal(kfd.processes[1]?.ratePerSecond, undefined, 'no stat: no lifetime');
  assert.ok(inspection.problems.some((p) => p.includes('4101/stats_40087/evicted_ms') && p.includes('"n/a"')));
  assert.ok(inspection.problems.some((p) => p.includes('4103') && p.includes('permission denied')));
  assert.ok(inspection.problems.some((p) => p.includes('KFD process 4102')));
  for (const row of [...kfd.processes, ...kfd.pods]) assert.ok(row.ratePerSecond === undefined || Number.isFinite(row.ratePerSecond));
});

test('two samples: the growth between them; a counter that went backwards or a new start time resets, never negative', () => {
  const before = kfdOf(
    withKfd(
      node('7.3.0'),
      kfdFiles(
        [[GPU, 'g']],
        [proc(4101, 'a', podA, 0, 1000, 50_000), proc(5202, 'b', podB, 1, 500, 20_000), proc(6303, 'c', podB, 1, 500, 7)],
      ),
      UPTIME,
    ),
  );
  const after = kfdOf(
    withKfd(
      node('7.3.0'),
      kfdFiles(
        [[GPU, 'g']],
        [
          proc(4101, 'a', podA, 0, 1000, 50_300),
          proc(5202, 'b', podB, 1, 500, 20_250),
          proc(6303, 'c', podB, 1, 2, 100),
          proc(7404, 'd', podA, 0, 3, 40),
        ],
      ),
      UPTIME + 5,
    ),
  );
  const window = sampleEvictions(before, after, 5);
  const rate = (pid: number) => window.processes.find((p) => p.pid === pid);
  assert.equal(rate(4101)?.ratePerSecond, 60);
  assert.equal(rate(5202)?.ratePerSecond, 50);
  assert.equal(rate(6303)?.reset, true, 'another start time: a restart');
  assert.equal(rate(6303)?.ratePerSecond, 20);
  assert.equal(rate(7404)?.ratePerSecond, undefined, 'a process new to the window has no rate');
  assert.deepEqual(
    evictedBetween({ pid: 1, gpuId: 2, startTicks: 5, evictedMs: 900 }, { pid: 1, gpuId: 2, startTicks: 5, evictedMs: 100 }),
    { ms: 100, reset: true },
  );
  assert.equal(
    sampleEvictions(before, after, 0).processes.every((p) => p.ratePerSecond === undefined),
    true,
  );
});

test('vram.overcommitted: VRAM near full while clients hold buffers that want VRAM elsewhere (amd-evicted-vram)', () => {
  const dgpu = {
    card: 'card0',
    vendor: '0x1002',
    device: '0x744c',
    vramTotal: 24 * GiB,
    vramUsed: 23.5 * GiB,
    gttTotal: 64 * GiB,
    gttUsed: 9 * GiB,
  };
  const fdinfo = (client: number, evicted: number, requested: number) =>
    `drm-driver:\tamdgpu\ndrm-client-id:\t${client}\ndrm-pdev:\t0000:03:00.0\ndrm-resident-vram:\t${requested - evicted}\ndrm-resident-gtt:\t${evicted}\namd-evicted-vram:\t${evicted / 1024} KiB\namd-requested-vram:\t${requested / 1024} KiB\n`;
  const text = withRecords(nodeCapture({ kernel: '7.3.0', memTotal: 128 * GiB, gpus: [dgpu], pods: [podA] }), 'fdinfo', [
    ['/proc/4101/cgroup', cg(podA, 0)],
    ['/proc/4101/comm', 'vllm\n'],
    ['/proc/4101/fdinfo/9', fdinfo(71, 3 * GiB, 16 * GiB)],
  ]);
  const verdict = analyzeCaptureText(text, { target: 't', podNames: names }).verdicts.find((v) => v.id === 'vram.overcommitted');
  assert.ok(verdict);
  assert.match(verdict.title, /card0 98 % full/);
  assert.ok(
    verdict.evidence.some((line) => line.includes('amd-evicted-vram 3 GiB of amd-requested-vram 16 GiB') && line.includes('llm/vllm-a')),
  );
  // Not full: no verdict, whatever the clients say.
  const roomy = text.replace(`mem_info_vram_used@@\n${23.5 * GiB}`, `mem_info_vram_used@@\n${12 * GiB}`);
  assert.notEqual(roomy, text);
  assert.equal(
    analyzeCaptureText(roomy, { target: 't' }).verdicts.some((v) => v.id === 'vram.overcommitted'),
    false,
  );
});

test('dmem.protection: 7.3 with dmem delegated and no dmem.low names the region and how to set it; with it, info; before 7.3, TTM ignores it', () => {
  const files = kfdFiles([[GPU, 'gfx1151']], [proc(4101, 'vllm-a', podA, 0, 1000, 50_000)]);
  const gpuProc = { pid: 4101, comm: 'vllm-a', fds: [{ fd: 9, client: '71', gtt: 1 * GiB, vram: 6 * GiB, pdev: '0000:c5:00.0' }] };
  const delegated = (dmem?: { low?: string }) =>
    withKfd(
      node('7.3.0', {
        controllers: 'cpuset cpu io memory pids dmem',
        subtree: { root: 'cpu memory dmem', kubepods: 'cpu memory dmem', burstable: 'cpu memory dmem' },
        dmemCapacity: 'drm/0000:c5:00.0/vram 536870912\n',
        pods: [{ ...podA, processes: [gpuProc], dmem: { current: `drm/0000:c5:00.0/vram ${6 * GiB}\n`, ...dmem } }, podB],
      }),
      files,
      UPTIME,
    );
  const bare = analyzeCaptureText(delegated(), { target: 't', podNames: names }).verdicts.find((v) => v.id === 'dmem.protection');
  assert.ok(bare);
  assert.equal(bare.severity, 'warning');
  assert.match(bare.title, /llm\/vllm-a .*no dmem\.low or dmem\.min on drm\/0000:c5:00\.0\/vram/);
  assert.match(bare.remedy, new RegExp(`echo "drm/0000:c5:00\\.0/vram ${6 * GiB}" > /sys/fs/cgroup/kubepods\\.slice/.*/dmem\\.low`));
  assert.match(bare.remedy, /memory\.high and memory\.low do not protect VRAM/);
  const held = analyzeCaptureText(delegated({ low: `drm/0000:c5:00.0/vram ${8 * GiB}\n` }), { target: 't' }).verdicts.find(
    (v) => v.id === 'dmem.protection',
  );
  assert.equal(held?.severity, 'info');
  assert.match(held?.title ?? '', /has dmem protection on drm\/0000:c5:00\.0\/vram/);
  const old = analyzeCaptureText(delegated().replace('kernel=7.3.0', 'kernel=6.17.0-8-generic'), { target: 't' }).verdicts.find(
    (v) => v.id === 'dmem.protection',
  );
  assert.equal(old?.severity, 'info');
  assert.match(old?.title ?? '', /predates 7\.3: dmem protection exists but TTM eviction ignores it/);
  // No evictions: nothing to say.
  const quiet = withKfd(node('7.3.0'), kfdFiles([[GPU, 'g']], [proc(4101, 'a', podA, 0, 1000, 0)]), UPTIME);
  assert.equal(
    analyzeCaptureText(quiet, { target: 't' }).verdicts.some((v) => v.id === 'dmem.protection'),
    false,
  );
});

test('reports: per-pod totals and rates in Markdown, text and the JSON (node.kfdEvictions), the comm escaped', () => {
  const text = withKfd(
    node('7.3.0'),
    kfdFiles([[GPU, 'gfx1151']], [proc(4101, 'vllm|a\u001b[31m', podA, 0, 1000, 50_000), proc(5202, 'vllm-b', podB, 1, 500, 20_000)]),
    UPTIME,
  );
  const inspection = analyzeCaptureText(text, { target: 't', podNames: names });
  const markdown = inspectionToMarkdown(inspection);
  assert.match(markdown, /## VRAM evictions \(KFD\)/);
  assert.match(markdown, /\| llm\/vllm-a \| 1 \| 50\.0 s \| 50\.0 ms\/s \| 6 GiB \|/);
  const row = markdown.split('\n').find((line) => line.includes('(4101) |'));
  assert.ok(row?.startsWith('| vllm\\|a'), `a | in a comm is escaped in its table cell: ${row}`);
  assert.equal(row?.split(/(?<!\\)\|/).length, 7, 'five cells');
  assert.match(markdown, /100 ticks\/s assumed/);
  const plain = inspectionToText(inspection);
  assert.match(plain, /llm\/vllm-b: 20\.0 s evicted, 40\.0 ms\/s \(1 process\)/);
  assert.ok(!plain.includes('\u001b'), 'no escape sequence reaches a terminal');
  const json = JSON.parse(JSON.stringify(inspectionToJson(inspection))) as {
    node: { kfdEvictions: { pods: { podName: string; evictedMs: number; ratePerSecond: number }[] } };
  };
  assert.deepEqual(
    json.node.kfdEvictions.pods.map((pod) => [pod.podName, pod.evictedMs, pod.ratePerSecond]),
    [
      ['llm/vllm-a', 50_000, 50],
      ['llm/vllm-b', 20_000, 40],
    ],
  );
  // The inspector's pods table: each pod's total and lifetime rate, sortable by the ms.
  const rows = buildInspectorViewModel(inspection).pods;
  assert.deepEqual(
    rows.map((row) => [row.pod, row.evicted?.value, row.evicted?.text]),
    [
      ['llm/vllm-a', 50_000, '50.0 s, 50.0 ms/s'],
      ['llm/vllm-b', 20_000, '20.0 s, 40.0 ms/s'],
    ],
  );
  // A node without KFD: no section, no column, and null in the JSON.
  const none = analyzeCaptureText(node('7.3.0'), { target: 't' });
  assert.ok(buildInspectorViewModel(none).pods.every((row) => row.evicted === undefined));
  assert.ok(!inspectionToMarkdown(none).includes('VRAM evictions'));
  assert.equal((inspectionToJson(none) as { node: { kfdEvictions: unknown } }).node.kfdEvictions, null);
});

test("live samples: each pod's evicted ms/s between two light captures; a restart counts from zero; the first sample has none", () => {
  const light = (procs: readonly KfdProcSpec[]) =>
    withKfd(
      lightNodeCapture({ kernel: '7.3.0', memTotal: 128 * GiB, gpus: [STRIX_HALO], pods: [podA, podB] }),
      kfdFiles([[GPU, 'gfx1151']], procs),
      UPTIME,
    );
  const first = sampleWithBaseline(light([proc(4101, 'a', podA, 0, 1000, 10_000), proc(5202, 'b', podB, 1, 1000, 0)]), 0, undefined);
  assert.ok(
    first.point.pods.every((pod) => pod.evictedRate === null),
    'no rate without a previous sample',
  );
  // 2 s later: A evicted 300 ms more (150 ms/s); B's process restarted (new start time) and has 40 ms since.
  const second = sampleWithBaseline(
    light([proc(4101, 'a', podA, 0, 1000, 10_300), { ...proc(5202, 'b', podB, 1, 1, 40), startTicks: (UPTIME - 1) * 100 }]),
    2000,
    first.baseline,
  );
  const rate = (uid: string) => second.point.pods.find((pod) => pod.podUid === uid)?.evictedRate;
  assert.equal(rate(podA.uid), 150);
  assert.equal(rate(podB.uid), 20, 'a restarted process counts from zero, never negative');
  const series = timeSeries([first.point, second.point], undefined);
  assert.deepEqual(
    series.evicted.map((p) => p.y),
    [null, 170],
  );
  assert.deepEqual(
    timeSeries([first.point, second.point], podA.uid).evicted.map((p) => p.y),
    [null, 150],
  );
  // A capture without KFD keeps rates unknown, and sampleFromCapture (no baseline) never invents one.
  assert.ok(
    sampleWithBaseline(lightNodeCapture({ kernel: '7.3.0', memTotal: 128 * GiB, pods: [podA] }), 4000, second.baseline).point.pods.every(
      (p) => p.evictedRate === null,
    ),
  );
  assert.ok(sampleFromCapture(light([proc(4101, 'a', podA, 0, 1000, 10_300)]), 0).pods.every((p) => p.evictedRate === null));
});
