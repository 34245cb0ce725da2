// Kernel log lines behind prefixes: journalctl in other locales and output modes, RFC 5424 and RFC 3164
// syslog, a syslog with no host name or an unpadded day, busybox's facility, and prefixes nobody documents
// (a hypervisor's guest log). Fixtures in test/fixtures/kernel-logs/, provenance in each <name>.source.md.
// The kill is found by its body; a prefix that cannot be read leaves the time unknown, never the kill lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { KernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import { parseKernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import { splitLogLine } from '../../src/core/probe/parsers/logLine.ts';
import type { OomEvent } from '../../src/core/probe/parsers/oomReportLines.ts';

function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/kernel-logs/${name}`, import.meta.url), 'utf8');
}

function at(log: KernelLog, index: number): OomEvent {
  const event = log.events[index];
  assert.ok(event, `no event ${index}`);
  return event;
}

/** The two events of the eks-ami#419 report (see its test in kernelLog.test.ts), whatever the prefix. */
function assertEks419(block: string, label: string): KernelLog {
  const log = parseKernelLog(block);
  assert.equal(log.events.length, 2, label);
  const kubelet = at(log, 0);
  assert.equal(kubelet.scope, 'memcg', label);
  assert.equal(kubelet.oomMemcg, '/podruntime.slice', label);
  assert.deepEqual(
    [kubelet.killed?.pid, kubelet.killed?.comm, kubelet.killed?.reason],
    [989, 'kubelet', 'Memory cgroup out of memory'],
    label,
  );
  assert.equal(at(log, 1).invoker?.comm, 'exe', label);
  assert.equal(at(log, 1).invoker?.gfpMask, '0xc40(GFP_NOFS)', label);
  return log;
}

test('journalctl in ru, de, fr, es and zh locales and in short-full, short-unix, short-iso-precise: the same two events', () => {
  const blocks = fixture('derived-journalctl-locales-eks-419.log').split('\n\n');
  const expectedTimes = [
    'дек 07 10:10:34',
    'Dez 07 10:10:34.000000',
    'déc. 07 10:10:34',
    'dic 07 10:10:34',
    '12月 07 10:10:34',
    'Sat 2019-12-07 10:10:34 UTC',
    '1575713434.000000',
    '2019-12-07T10:10:34.000000+0000',
  ];
  assert.equal(blocks.length, expectedTimes.length);
  blocks.forEach((block, index) => {
    const log = assertEks419(block, `block ${index + 1}`);
    assert.equal(at(log, 0).timestamp, expectedTimes[index], `block ${index + 1}`);
  });
});

test('util-linux logger: RFC 5424 with and without structured data, RFC 3164 with <PRI>, rsyslog RFC 5424 files', () => {
  const blocks = fixture('derived-logger-syslog-eks-419.log').split('\n\n');
  assert.equal(blocks.length, 4);
  blocks.forEach((block, index) => {
    const log = assertEks419(block, `block ${index + 1}`);
    assert.match(at(log, 0).timestamp ?? '', index === 2 ? /^Dec {2}7 \d\d:\d\d:\d\d$/ : /^2026-12-07T\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  });
  const [structured] = blocks;
  const first = splitLogLine(structured?.split('\n')[0] ?? '');
  assert.equal(first.kernel, true);
  assert.ok(first.message.startsWith('oom-kill:constraint=CONSTRAINT_MEMCG'), first.message);
  // Another program's RFC 5424 message is not the kernel's.
  assert.equal(splitLogLine('<11>1 2026-12-07T16:24:12.008441+00:00 vm oomd 77 - - Killed process 5 (x)').kernel, false);
  assert.equal(splitLogLine('2022-12-26T07:44:45.000000+01:00 server02 sshd 812 - - Accepted publickey').kernel, false);
});

test('vmware/photon#1535 (a hypervisor prefix before <level>[seconds]): the kills are found and timed by the kernel', () => {
  const log = parseKernelLog(fixture('photon-1535-vmware-guest-log.log'));
  assert.equal(log.events.length, 2);
  const ratelimited = at(log, 0);
  assert.deepEqual([ratelimited.killed?.pid, ratelimited.killed?.comm], [2625, 'node']);
  assert.equal(ratelimited.scope, 'memcg');
  assert.equal(ratelimited.monotonic, '39290745.072552');
  const next = at(log, 1);
  assert.equal(next.invoker?.comm, 'node');
  assert.equal(next.invoker?.oomScoreAdj, 999);
  assert.equal(next.monotonic, '39291577.009300');
  assert.equal(next.timestamp, '2023-12-04T10:49:30.125Z');
  assert.equal(
    next.memcgStatsFor,
    '/kubepods/burstable/podfe3f7a38-b3f7-48aa-8997-a697ae3d0741/c7ebf4d756b284f6226cce820771afcf706a4e37afb77f052c61ece86d3b61f0',
  );
});

test("Server Fault 762017 (syslog, `Mar 7` with one space): the task name is the kernel's, the time is read", () => {
  const log = parseKernelLog(fixture('serverfault-762017-syslog-unpadded-day.log'));
  assert.equal(log.format, 'syslog');
  assert.equal(log.events.length, 1);
  const event = at(log, 0);
  assert.equal(event.invoker?.comm, 'memcheck-amd64-');
  assert.equal(event.timestamp, 'Mar 7 02:43:11');
  assert.equal(event.cpuset, '/');
});

test('a /var/log/messages line with no host name: `Jul 27 13:29:54 kernel: Out of memory: Kill process …`', () => {
  const log = parseKernelLog(fixture('ecomnet-messages-no-host.log'));
  assert.equal(log.events.length, 1);
  const event = at(log, 0);
  assert.equal(event.timestamp, 'Jul 27 13:29:54');
  assert.equal(event.scope, 'global');
  assert.deepEqual([event.candidate?.pid, event.candidate?.comm, event.candidate?.score], [17982, 'java', 77]);
});

test('busybox syslogd and OpenWrt logread put the facility before the tag; an unread prefix keeps its time of day', () => {
  const busybox = splitLogLine('Dec  7 10:10:34 router kern.warn kernel: [ 1234.567890] Out of memory: Killed process 77 (dnsmasq)');
  assert.deepEqual(
    [busybox.timestamp, busybox.monotonic, busybox.kernel, busybox.message],
    ['Dec  7 10:10:34', '1234.567890', true, 'Out of memory: Killed process 77 (dnsmasq)'],
  );
  const logread = parseKernelLog(
    'Mon Dec  7 10:10:34 2026 kern.err kernel: [ 1234.567890] Out of memory: Killed process 77 (dnsmasq) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB',
  );
  assert.equal(at(logread, 0).killed?.comm, 'dnsmasq');
  assert.equal(at(logread, 0).monotonic, '1234.567890');
  assert.equal(at(logread, 0).timestamp, 'Mon Dec  7 10:10:34');
  // Text with no time at all: the kill is kept, its time unknown.
  const pasted = parseKernelLog('node-3 | Memory cgroup out of memory: Killed process 4 (python3) total-vm:1kB, anon-rss:1kB');
  assert.deepEqual([at(pasted, 0).killed?.pid, at(pasted, 0).scope, at(pasted, 0).timestamp], [4, 'memcg', undefined]);
});
