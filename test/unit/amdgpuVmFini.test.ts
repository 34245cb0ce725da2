// The GPU teardown signature of a global OOM (issue 17, class 7): a victim whose RSS is tiny next to its
// total-vm, followed by amdgpu's "VM memory stats for proc … is non-zero when fini" line for its pid.
// Fixture: test/fixtures/kernel-logs/derived-course-global-amdgpu-vm-fini.log (derived; see its .source.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAmdgpuVmFini } from '../../src/core/probe/parsers/amdgpuVmFini.ts';
import { parseKernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import type { GlobalOomVerdict, OomVerdict } from '../../src/core/verdicts/oom/oomVerdictTypes.ts';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import { oomToText } from '../../src/core/report/oomReport.ts';
import { runsOnLargeInput } from '../helpers/growth.ts';

const FIXTURE = readFileSync(new URL('../fixtures/kernel-logs/derived-course-global-amdgpu-vm-fini.log', import.meta.url), 'utf8');
const VICTIM_FINI =
  '[ 3457.702398] amdgpu 0000:03:00.0: amdgpu: VM memory stats for proc prometheus-conf(10843) task prometheus-conf(10843) is non-zero when fini';

function global(verdict: OomVerdict | undefined): GlobalOomVerdict {
  assert.ok(verdict, 'no verdict');
  assert.equal(verdict.kind, 'global', `${verdict.kind}: ${verdict.title}`);
  return verdict as GlobalOomVerdict;
}

test('parses the real fini lines of a ROCm journal, placeholder pids included', () => {
  const real = parseAmdgpuVmFini(
    'amdgpu 0000:03:00.0: amdgpu: VM memory stats for proc firefox(2852) task firefox:cs0(2770) is non-zero when fini',
    7,
    'raw',
  );
  assert.deepEqual(real, { procName: 'firefox', procPid: 2852, taskName: 'firefox:cs0', taskPid: 2770, line: 7, text: 'raw' });
  const placeholder = parseAmdgpuVmFini('amdgpu 0000:03:00.0: amdgpu: VM memory stats for proc (0) task (0) is non-zero when fini', 1, '');
  assert.equal(placeholder?.procPid, 0);
  assert.equal(placeholder?.procName, '');
});

test('names may hold spaces, brackets and the word task', () => {
  const spaced = parseAmdgpuVmFini('VM memory stats for proc RDD Process(12593) task RDD Process(12601) is non-zero when fini ', 1, '');
  assert.equal(spaced?.procName, 'RDD Process');
  assert.equal(spaced?.taskPid, 12601);
  const odd = parseAmdgpuVmFini('VM memory stats for proc a(1) task b(2)(3) task c (4)(5) is non-zero when fini', 1, '');
  assert.equal(odd?.procName, 'a(1) task b(2)');
  assert.equal(odd?.procPid, 3);
  assert.equal(odd?.taskName, 'c (4)');
  assert.equal(odd?.taskPid, 5);
});

test('malformed fini lines are not taken', () => {
  for (const message of [
    'VM memory stats is non-zero when fini',
    'VM memory stats for proc x task y is non-zero when fini',
    'VM memory stats for proc x(1) task y(99999999) is non-zero when fini',
    'VM memory stats for proc x(-1) task y(2) is non-zero when fini',
    'VM memory stats for proc x(1) task y(2) is zero when fini',
    'VM memory stats for proc  is non-zero when fini',
  ])
    assert.equal(parseAmdgpuVmFini(message, 1, ''), undefined, message);
});

test('the kernel log keeps fini lines after a kill, with the device', () => {
  const log = parseKernelLog(FIXTURE);
  assert.equal(log.amdgpuVmFini.length, 2);
  assert.equal(log.amdgpuVmFini[1]?.device, '0000:03:00.0');
  assert.equal(log.amdgpuVmFini[1]?.line, 6);
  // A teardown before any kill cannot be about a victim.
  const before = parseKernelLog(`${VICTIM_FINI}\n${FIXTURE}`);
  assert.equal(before.amdgpuVmFini.length, 2);
  assert.equal(before.amdgpuVmFini[0]?.line, 6);
});

test('a victim with tiny RSS and its fini line: the GPU signature, with the line as evidence', () => {
  const { verdicts, summary } = explainKernelLogText(FIXTURE);
  assert.equal(verdicts.length, 1);
  const verdict = global(verdicts[0]);
  assert.equal(verdict.id, 'oom.global-gtt:1');
  assert.equal(verdict.gpuTeardown?.fini.procPid, 10843);
  assert.equal(verdict.gpuTeardown?.rssKb, 5064);
  assert.equal(verdict.gpuTeardown?.totalVmKb, 719984);
  assert.equal(verdict.gtt?.strength, 'likely');
  assert.match(verdict.title, /signature of GPU \(GTT\) memory/);
  assert.match(verdict.explanation, /RSS was 5 MiB of 703 MiB total-vm \(0\.7 %\), and line 6/);
  assert.deepEqual(verdict.evidenceLines.at(-1), { line: 6, text: VICTIM_FINI });
  assert.equal(summary.victims[0]?.gtt, 'likely');
  const text = oomToText(explainKernelLogText(FIXTURE), 'fixture');
  assert.match(text, /\n {2}gpu: The victim's RSS was 5 MiB/);
  assert.match(text, /\n {7}6 \| \[ 3457\.702398\] amdgpu/);
});

test('a fini line for another pid gives no signature', () => {
  const other = FIXTURE.replace(VICTIM_FINI, VICTIM_FINI.replaceAll('10843', '10844'));
  const verdict = global(explainKernelLogText(other).verdicts[0]);
  assert.equal(verdict.gpuTeardown, undefined);
  assert.equal(verdict.id, 'oom.global:1');
  assert.equal(verdict.gtt?.strength, 'possible');
  assert.ok(!verdict.evidence.some((line) => line.includes('non-zero when fini')));
});

test('the same pid under another name (a reused pid) gives no signature', () => {
  const renamed = FIXTURE.replace(VICTIM_FINI, VICTIM_FINI.replaceAll('prometheus-conf', 'sshd'));
  assert.equal(global(explainKernelLogText(renamed).verdicts[0]).gpuTeardown, undefined);
});

test('a victim whose RSS is large gets no signature from this rule', () => {
  const large = FIXTURE.replaceAll('anon-rss:5064kB', 'anon-rss:700000kB');
  const verdict = global(explainKernelLogText(large).verdicts[0]);
  assert.equal(verdict.gpuTeardown, undefined);
  assert.equal(verdict.id, 'oom.global:1');
});

test("a fini line before the kill, or after the next report, is not the victim's", () => {
  const lines = FIXTURE.trimEnd().split('\n');
  const moved = [lines[0], lines[5], ...lines.slice(1, 5)].join('\n');
  assert.equal(global(explainKernelLogText(moved).verdicts[0]).gpuTeardown, undefined);
  const nextReport =
    '[ 3460.691578] Out of memory: Killed process 115727 (memory_leak) total-vm:15469196kB, anon-rss:11724804kB, file-rss:1272kB, shmem-rss:0kB, UID:1000 pgtables:30128kB oom_score_adj:200';
  const nextSummary =
    '[ 3460.691564] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=user.slice,mems_allowed=0,global_oom,task_memcg=/user.slice/user-1000.slice,task=memory_leak,pid=115727,uid=1000';
  const later = [...lines.slice(0, 5), nextSummary, nextReport, lines[5]].join('\n');
  const verdicts = explainKernelLogText(later).verdicts;
  assert.equal(verdicts.length, 2);
  assert.equal(global(verdicts[0]).gpuTeardown, undefined);
});

test('a process outside any pod: the signature is named too', () => {
  // The whole summary line (the fixture's is cut by a pager): a complete path outside the pod tree.
  const host = FIXTURE.replace(
    /task_memcg=\S*/,
    'task_memcg=/user.slice/user-1000.slice/session-3.scope,task=prometheus-conf,pid=10843,uid=1000',
  )
    .split('\n')
    .filter((line) => !line.includes('Tasks in '))
    .join('\n');
  const verdict = global(explainKernelLogText(host).verdicts[0]);
  assert.equal(verdict.victim.inKubepods, false);
  assert.equal(verdict.id, 'oom.global-gtt:1');
  assert.match(verdict.title, /outside any pod that held GPU memory its RSS did not show/);
  assert.match(verdict.explanation, /amdgpu driver tearing down its GPU VM/);
});

test('hostile input: a 1 MiB fini line and thousands of fini lines stay bounded', () => {
  const huge = `${FIXTURE}[ 3457.8] amdgpu: VM memory stats for proc ${'x('.repeat(512 * 1024)}1) task y(2) is non-zero when fini\n`;
  const log = parseKernelLog(huge);
  assert.ok(log.problems.some((problem) => problem.includes('were cut')));
  assert.equal(global(explainKernelLogText(huge).verdicts[0]).gpuTeardown?.fini.line, 6);

  const many = (n: number): string =>
    `${FIXTURE}${'[ 3457.9] amdgpu 0000:03:00.0: amdgpu: VM memory stats for proc (0) task (0) is non-zero when fini\n'.repeat(n)}`;
  const flood = explainKernelLogText(many(10000));
  assert.ok(flood.log.amdgpuVmFini.length <= 4096);
  assert.ok(flood.summary.problems.some((problem) => problem.includes('non-zero when fini')));
  assert.equal(global(flood.verdicts[0]).gpuTeardown?.fini.line, 6);
  // 16,000 fini lines (bench/growth.mjs measures how the cost grows): the same verdict, the same bound.
  const manyMore = runsOnLargeInput('amdgpu VM fini lines', many, (text) => explainKernelLogText(text), 2000);
  assert.ok(manyMore.log.amdgpuVmFini.length <= 4096);
  assert.equal(global(manyMore.verdicts[0]).gpuTeardown?.fini.line, 6);
  const longNames = (n: number): string => `VM memory stats for proc ${') task '.repeat(n)}(1) task y(2) is non-zero when fini`;
  runsOnLargeInput('amdgpu VM fini name', longNames, (text) => parseAmdgpuVmFini(text, 1, ''), 20000);
});
