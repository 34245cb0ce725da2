// The kernel's own RAM outside pods (memory.kernel-allocations) and overcommit (memory.overcommit), from
// captures built like the node probe's: /proc/meminfo, /proc/sys/vm, the kubepods cgroup's memory.stat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { GiB, MiB } from '../helpers/fixtureRoot.ts';
import { nodeCapture, podUid, STRIX_HALO } from './helpers/nodeCapture.ts';
import { captureText } from './helpers/captureText.ts';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { podResidentMemory } from '../../src/core/verdicts/memory/podRss.ts';

const kB = (bytes: number) => `${Math.round(bytes / 1024)} kB`;

function apu(extra: { meminfo?: string; vm?: string; kubepodsStat?: string } = {}) {
  const text = nodeCapture({
    kernel: '6.17.0-8-generic',
    memTotal: 128 * GiB,
    memAvailable: 60 * GiB,
    gpus: [STRIX_HALO],
    pods: [{ uid: podUid(1), qos: 'burstable', current: 6 * GiB, max: 32 * GiB }],
    meminfoExtra: [
      `SUnreclaim:     ${kB(9.2 * GiB)}`,
      `VmallocUsed:    ${kB(600 * MiB)}`,
      `PageTables:     ${kB(300 * MiB)}`,
      `KernelStack:    ${kB(40 * MiB)}`,
      `Percpu:         ${kB(20 * MiB)}`,
      `CommitLimit:    ${kB(64 * GiB)}`,
      `Committed_AS:   ${kB(61 * GiB)}`,
      extra.meminfo ?? '',
    ].join('\n'),
    ...(extra.vm !== undefined ? { procFiles: [['/proc/sys/vm/overcommit_memory', extra.vm]] } : {}),
    ...(extra.kubepodsStat !== undefined ? { kubepodsStat: extra.kubepodsStat } : {}),
  });
  return analyzeCaptureText(text, { target: 'fixture' });
}

test('GTT and unreclaimable slab outside pods: the kernel-allocations warning names both, with the pods’ charged share', () => {
  const inspection = apu({
    kubepodsStat: `slab_unreclaimable ${1 * GiB}\nvmalloc ${100 * MiB}\npagetables ${200 * MiB}\nkernel_stack 0\n`,
  });
  const verdict = inspection.verdicts.find((v) => v.id === 'memory.kernel-allocations');
  assert.ok(verdict);
  assert.equal(verdict.severity, 'warning', '38 GiB + 8.2 GiB is over a quarter of 128 GiB');
  assert.match(verdict.title, /^GTT in use 38 GiB and SUnreclaim 8\.2 GiB: 46\.\d GiB that no pod's memory\.current shows \(37 %/);
  assert.ok(verdict.evidence.some((line) => line.includes('slab_unreclaimable in /kubepods.slice/memory.stat')));
  const kernel = inspection.node?.kernel;
  assert.ok(kernel);
  assert.deepEqual(
    kernel.parts.map((part) => [part.key, part.outsidePods]),
    [
      ['gpu', 38 * GiB],
      ['slab-unreclaimable', Math.round((9.2 * GiB) / 1024) * 1024 - GiB],
      ['vmalloc', 500 * MiB],
      ['page-tables', 100 * MiB],
      ['kernel-stack', 40 * MiB],
      ['percpu', 20 * MiB],
    ],
  );
  assert.equal(kernel.chargedFrom, '/kubepods.slice');
  // Every report shows the breakdown.
  assert.match(
    inspectionToMarkdown(inspection),
    /## Kernel memory outside pods[\s\S]*\| SUnreclaim \(grows with GPU use\) \| 9\.2 GiB \| 1 GiB \| 8\.2 GiB \|/,
  );
  assert.match(inspectionToText(inspection), /kernel memory outside pods: 46\.\d GiB\n {2}GTT in use {3}38 GiB/);
  const json = JSON.parse(JSON.stringify(inspectionToJson(inspection))) as { node: { kernelMemory: { outsidePods: number } } };
  assert.equal(json.node.kernelMemory.outsidePods, kernel.outsidePods);
  // The inspector's node bar: the kernel's parts are a segment of their own, split in the tooltip and the data table.
  const chartNode = buildInspectorViewModel(inspection).chart.node;
  const details = chartNode?.details ?? [];
  const at = details.findIndex((line) => line.startsWith('kernel memory outside pods: '));
  assert.ok(at >= 0, details.join('\n'));
  assert.match(details[at + 1] ?? '', /^ {2}SUnreclaim: [\d,]+ bytes \(8\.2 GiB\)/);
  assert.match(details.at(-1) ?? '', /^other RAM in use \(system services, page cache\)/);
  const nonGpu = kernel.parts.filter((part) => part.key !== 'gpu').reduce((total, part) => total + part.outsidePods, 0);
  assert.equal(chartNode?.segments.kernel, nonGpu, 'the kernel segment is the parts outside pods, GTT aside');
  assert.equal(
    details.some((line) => line.includes('GTT in use:')),
    false,
    'GTT has its own segment',
  );
});

test('without a kubepods memory.stat (cgroup v1 or none), the pods’ share is unknown and all of it counts as outside', () => {
  const inspection = apu();
  const slab = inspection.node?.kernel?.parts.find((part) => part.key === 'slab-unreclaimable');
  assert.equal(slab?.chargedToPods, undefined);
  assert.equal(slab?.outsidePods, Math.round((9.2 * GiB) / 1024) * 1024);
  assert.ok(inspection.verdicts.find((v) => v.id === 'memory.kernel-allocations')?.evidence.some((line) => line.includes('not known')));
});

test('a quiet node (this machine’s /proc/meminfo, no GPU): the breakdown is kept, and no verdict is raised', () => {
  // test/fixtures/proc/meminfo: this development machine's /proc/meminfo (24 GiB, no GPU).
  const meminfo = readFileSync(new URL('../fixtures/proc/meminfo', import.meta.url), 'utf8');
  const text = nodeCapture({ kernel: '6.1.0', memTotal: 0, pods: [] }).replace(/(file \/proc\/meminfo@@\n)[^@]*/, `$1${meminfo}`);
  const inspection = analyzeCaptureText(text, { target: 'this machine' });
  assert.equal(inspection.node?.kernel?.parts.find((part) => part.key === 'slab-unreclaimable')?.bytes, 56844 * 1024);
  assert.equal(
    inspection.verdicts.some((v) => v.id === 'memory.kernel-allocations' || v.id === 'memory.overcommit'),
    false,
    'no GPU, kernel share small, Committed_AS 4 GiB of 23.5 GiB: a normal node',
  );
});

test('strict overcommit (vm.overcommit_memory = 2) near CommitLimit is a warning; heuristic mode is not', () => {
  const strict = apu({ vm: '2\n' }).verdicts.find((v) => v.id === 'memory.overcommit');
  assert.equal(strict?.severity, 'warning');
  assert.match(strict?.title ?? '', /^Strict overcommit: 61 GiB committed of a 64 GiB limit \(95 %\)/);
  assert.ok(strict?.evidence.includes('vm.overcommit_memory = 2 (never)'));
  assert.equal(
    apu({ vm: '0\n' }).verdicts.some((v) => v.id === 'memory.overcommit'),
    false,
    '61 GiB of 128: nothing to say',
  );
  const committed = `Committed_AS: ${kB(200 * GiB)}`;
  const heuristic = apu({ vm: '0\n', meminfo: committed }).verdicts.find((v) => v.id === 'memory.overcommit');
  assert.equal(heuristic?.severity, 'info');
  assert.match(heuristic?.title ?? '', /^Overcommit heuristic: 200 GiB committed, 156 % of RAM and swap/);
  // A sysctl file that is not one integer is not used.
  for (const garbage of ['two\n', '-1\n', '99999999999999999999\n', '1 2\n'])
    assert.match(
      apu({ vm: garbage, meminfo: committed }).verdicts.find((v) => v.id === 'memory.overcommit')?.title ?? '',
      /mode not read/,
      garbage,
    );
});

test('implausible or missing counters give no verdict and never NaN', () => {
  const none = analyzeCaptureText(nodeCapture({ kernel: '6.17.0', memTotal: 64 * GiB, pods: [] }), { target: 'x' });
  assert.equal(none.node?.kernel, undefined, 'no SUnreclaim line: nothing to break down');
  assert.equal(
    none.verdicts.some((v) => v.id === 'memory.kernel-allocations' || v.id === 'memory.overcommit'),
    false,
  );
  const zeroLimit = apu({ meminfo: 'CommitLimit: 0 kB' });
  assert.equal(
    zeroLimit.verdicts.some((v) => v.id === 'memory.overcommit'),
    false,
    'CommitLimit 0 is no limit to compare with',
  );
  const charged = apu({ kubepodsStat: `slab_unreclaimable ${999 * GiB}\n` }).node?.kernel?.parts.find(
    (p) => p.key === 'slab-unreclaimable',
  );
  assert.equal(charged?.outsidePods, 0, 'pods charged more than the node holds: clamped, never negative');
});

test('pod-rss records: only kubepods processes with a VmRSS count, forged and garbage lines are dropped', () => {
  const pod = podUid(1);
  const cgroup = `0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${pod.replace(/-/g, '_')}.slice/cri-containerd-${'ab'.repeat(32)}.scope\t`;
  const text = captureText('node', {
    'pod-rss': {
      files: [
        ['/proc/pod-cgroups', `11/cgroup:${cgroup}\n12/cgroup:${cgroup}\n13/cgroup:0::/system.slice/x.service\t\nx/cgroup:${cgroup}\n`],
        [
          '/proc/pod-status',
          [
            '11/status:VmRSS:\t 1048576 kB',
            '11/status:RssAnon:\t  524288 kB',
            '12/status:VmRSS:\t99999999999999999999 kB', // not a number the kernel prints: dropped
            '13/status:VmRSS:\t 1048576 kB', // not in a pod
            '11/status:VmRSS: -5 kB',
            'garbage',
          ].join('\n'),
        ],
      ],
    },
  });
  const resident = podResidentMemory(parseCapture(text));
  assert.deepEqual([...resident.values()], [{ podUid: pod, processes: 1, rss: GiB, anon: 512 * MiB, file: 0, shmem: 0 }]);
  assert.equal(podResidentMemory(parseCapture(captureText('node', {}))).size, 0);
});
