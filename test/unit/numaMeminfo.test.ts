// Per-NUMA-node memory (/sys/devices/system/node/node<N>/meminfo), read by the node probe's `numa` section, and the
// NUMA-constrained OOM verdict that compares the kill's NUMA nodes with it. The node file is this machine's, as the
// real probe captured it (test/fixtures/captures/this-machine-as-nobody.txt, provenance beside it); the two-node
// machine is that file twice, the second renumbered `Node 1` (a symmetric two-socket machine).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { sectionFiles } from '../../src/core/probe/capture.ts';
import { buildNodeModel } from '../../src/core/probe/nodeModel.ts';
import { parseNodeList, parseNumaMeminfo } from '../../src/core/probe/parsers/numaMeminfo.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import type { GlobalOomVerdict } from '../../src/core/verdicts/oom/oomVerdictTypes.ts';
import { nodeCapture } from './helpers/nodeCapture.ts';

const CAPTURE = readFileSync(new URL('../fixtures/captures/this-machine-as-nobody.txt', import.meta.url), 'utf8');
const NUMA_KILL = readFileSync(new URL('../fixtures/kernel-logs/derived-k3s-numa-cpuset.log', import.meta.url), 'utf8');
const GiB = 1024 ** 3;

/** The node file as captured, and its MemTotal/MemFree read with a pattern of this test's own. */
function realNodeFile(): { path: string; text: string; totalKb: number; freeKb: number } {
  const files = sectionFiles(parseCapture(CAPTURE), 'numa');
  const [path, text] = [...files][0] ?? ['', ''];
  const kb = (key: string) => Number(new RegExp(`^Node 0 ${key}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1]);
  return { path, text, totalKb: kb('MemTotal'), freeKb: kb('MemFree') };
}

test("the real probe's numa section (this machine, node0) is read into the node model", () => {
  const node = realNodeFile();
  assert.equal(node.path, '/sys/devices/system/node/node0/meminfo');
  assert.ok(node.totalKb > 1_000_000, 'the fixture has a MemTotal');
  const model = buildNodeModel(parseCapture(CAPTURE));
  assert.equal(model.numaNodes.length, 1);
  assert.equal(model.numaNodes[0]?.node, 0);
  assert.equal(model.numaNodes[0]?.totalBytes, node.totalKb * 1024);
  assert.equal(model.numaNodes[0]?.freeBytes, node.freeKb * 1024);
  assert.equal(model.numaNodes[0]?.meminfo.get('HugePages_Total'), 0, 'unit-less counts stay counts');
});

test('node lists as the kernel prints them (%*pbl): ranges, commas; anything else is not a list', () => {
  assert.deepEqual(parseNodeList('1'), [1]);
  assert.deepEqual(parseNodeList('0-1'), [0, 1]);
  assert.deepEqual(parseNodeList('0,2-3'), [0, 2, 3]);
  for (const bad of ['(null)', '', '1-', '3-1', '0-99999', 'a', '1,,2', undefined])
    assert.equal(parseNodeList(bad), undefined, String(bad));
  assert.equal(parseNodeList('0-1023')?.length, 1024);
  assert.equal(parseNodeList('0-1023,0'), undefined, 'more numbers than MAX_NUMNODES');
});

test('a CONSTRAINT_CPUSET kill on NUMA node 1 is compared with node 1 of a two-node capture', () => {
  const node = realNodeFile();
  const node1 = node.text.replaceAll('Node 0 ', 'Node 1 ');
  const numa: Array<[string, string]> = [
    [node.path, node.text],
    ['/sys/devices/system/node/node1/meminfo', node1],
  ];
  const inspection = analyzeCaptureText(nodeCapture({ kernel: '6.14.0', memTotal: 64 * GiB, kernelLog: NUMA_KILL, numa }), {
    target: 'ssh root@gpu-node-1:22',
  });
  const verdict = inspection.node?.oom?.verdicts[0] as GlobalOomVerdict;
  assert.equal(verdict.constraint, 'CONSTRAINT_CPUSET');
  // The oracle: node 1 is half of the two nodes, MemTotal and MemFree from the file, in formatBytes' units (GiB, 1 decimal).
  const gib = (kb: number) => `${((kb * 1024) / GiB).toFixed(1)} GiB`;
  assert.ok(
    verdict.explanation.includes(
      `The NUMA node the kill was confined to hold ${gib(node.totalKb)} (50 % of the ${gib(node.totalKb * 2)} of all 2 NUMA nodes) by the probe's per-node meminfo (/sys/devices/system/node/node*/meminfo, read when the probe ran, not at the kill: node 1: ${gib(node.totalKb)}, ${gib(node.freeKb)} free).`,
    ),
    verdict.explanation,
  );
  // The victim's 124 kB resident (anon 120 + file 4) is named against it.
  assert.match(verdict.explanation, /The victim held 124 KiB resident, 0 % of that\./);
  // Without the numa section, the verdict says what it can from the log alone.
  const blind = explainKernelLogText(NUMA_KILL).verdicts[0] as GlobalOomVerdict;
  assert.doesNotMatch(blind.explanation, /per-node meminfo/);
  // A kill on a node the capture does not have (node 3) is not compared with the wrong node.
  const other = explainKernelLogText(NUMA_KILL.replace('mems_allowed=1', 'mems_allowed=3'), {
    numaNodes: parseNumaMeminfo(new Map(numa)),
  }).verdicts[0] as GlobalOomVerdict;
  assert.doesNotMatch(other.explanation, /per-node meminfo/);
});
