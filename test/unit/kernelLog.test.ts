// The kernel log parser on real OOM reports (test/fixtures/kernel-logs/, provenance in each
// <name>.source.md), on every line format it claims, on truncated and garbled input, and on 100 MB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { KernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import { parseKernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import { splitLogLine } from '../../src/core/probe/parsers/logLine.ts';
import type { OomEvent } from '../../src/core/probe/parsers/oomReportLines.ts';
import { parseOomKillSummary } from '../../src/core/probe/parsers/oomReportLines.ts';

function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/kernel-logs/${name}`, import.meta.url), 'utf8');
}

const FIXTURES = [
  'cadvisor-oomparser-bare-legacy.log',
  'ci-machine-dmesg-no-oom.log',
  'course-dmesg-global-oom-group-6.1.log',
  'derived-journal-short-monotonic-eks-419.log',
  'docker-for-linux-1001-dmesg-T-kmem.log',
  'docker-for-linux-1001-syslog-sacrifice-child.log',
  'eks-ami-419-dmesg-podruntime.log',
  'gpud-70-journal-precise-memcg.log',
  'gpud-testdata-dmesg-decode-iso.log',
  'harvester-2419-syslog-comm-with-space.log',
  'harvester-9724-syslog-memcg-usage.log',
  'istio-42734-syslog-task-in.log',
  'k3s-12028-dmesg-global-6.14.log',
  'k3s-blog-syslog-global-pod.log',
  'kubedirector-356-dmesg-torn.log',
  'kubernetes-56891-dmesg-T-cgroupv1.log',
  'ollama-16983-dmesg-decoded-ctime-apu.log',
  'ollama-5471-dmesg-amdgpu-gtt.log',
  'reportportal-203-dmesg-ratelimited.log',
  'synthetic-gtt-apu-7.1.log',
];

/** Every evidence line must be the text's own line, verbatim, at the number it claims. */
function assertEvidenceVerbatim(text: string, log: KernelLog, label: string): void {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  for (const event of log.events) {
    let previous = 0;
    for (const evidence of event.evidence) {
      assert.ok(evidence.line >= 1 && evidence.line <= lines.length, `${label}: line ${evidence.line} out of range`);
      assert.ok(evidence.line > previous, `${label}: evidence out of order`);
      previous = evidence.line;
      const actual = lines[evidence.line - 1] ?? '';
      const expected = actual.length > 4096 ? actual.slice(0, 4096) : actual;
      // A record re-wrapped onto indented lines is quoted joined (logUnwrap.ts): it starts with its first line.
      if (evidence.text !== expected)
        assert.ok(
          evidence.text.length > expected.trim().length && evidence.text.startsWith(expected.trimStart().slice(0, 4096)),
          `${label}: line ${evidence.line}: ${evidence.text.slice(0, 200)}`,
        );
    }
  }
  for (const line of log.amdgpu) {
    const actual = lines[line.evidence.line - 1] ?? '';
    if (line.evidence.text !== actual)
      assert.ok(line.evidence.text.startsWith(actual.trimStart()), `${label}: amdgpu line ${line.evidence.line}`);
  }
}

function only(log: KernelLog): OomEvent {
  assert.equal(log.events.length, 1, `expected one event, got ${log.events.length}`);
  const event = log.events[0];
  assert.ok(event);
  return event;
}

function at(log: KernelLog, index: number): OomEvent {
  const event = log.events[index];
  assert.ok(event, `no event ${index}`);
  return event;
}

// ------------------------------------------------------------------------------------------------
// Line formats.

test('splitLogLine: raw dmesg, priority prefixes, /dev/kmsg records and a torn timestamp', () => {
  assert.deepEqual(splitLogLine('[  147.358790] oom-kill:constraint=CONSTRAINT_MEMCG'), {
    message: 'oom-kill:constraint=CONSTRAINT_MEMCG',
    timestamp: '147.358790',
    monotonic: '147.358790',
    format: 'dmesg',
    kernel: true,
  });
  const priority = splitLogLine('<6>[  147.358790] Out of memory: Killed process 1 (x)');
  assert.equal(priority.message, 'Out of memory: Killed process 1 (x)');
  assert.equal(priority.monotonic, '147.358790');
  assert.equal(splitLogLine('<4>oom_reaper: reaped process 1 (x)').message, 'oom_reaper: reaped process 1 (x)');
  // The record format of /dev/kmsg (`dmesg -r` style header), as in leptonai/gpud's tests.
  const kmsg = splitLogLine('6,22743,6115623303887,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null)');
  assert.equal(kmsg.message, 'oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null)');
  assert.equal(kmsg.format, 'kmsg');
  // bluek8s/kubedirector#356 lost the `[` of a line.
  const torn = splitLogLine('5193605.506728] Task in /kubepods/x killed as a result of limit of /kubepods/x');
  assert.equal(torn.message, 'Task in /kubepods/x killed as a result of limit of /kubepods/x');
  assert.equal(torn.timestamp, '5193605.506728');
});

test('splitLogLine: dmesg -T in any locale, dmesg -x, dmesg --time-format iso', () => {
  const ctime = splitLogLine('[Thu Dec  7 00:05:15 2017] Killed process 28438 (java) total-vm:20255636kB');
  assert.equal(ctime.timestamp, 'Thu Dec  7 00:05:15 2017');
  assert.equal(ctime.message, 'Killed process 28438 (java) total-vm:20255636kB');
  assert.equal(ctime.format, 'dmesg-ctime');
  const decoded = splitLogLine('kern  :warn  : [qua jul  8 09:49:25 2026] Mem-Info:');
  assert.deepEqual(decoded, { message: 'Mem-Info:', timestamp: 'qua jul  8 09:49:25 2026', format: 'dmesg-decoded', kernel: true });
  const iso = splitLogLine('kern  :warn  : 2025-01-21T08:46:30,287197+00:00 oom-kill:constraint=CONSTRAINT_MEMCG');
  assert.equal(iso.timestamp, '2025-01-21T08:46:30,287197+00:00');
  assert.equal(iso.message, 'oom-kill:constraint=CONSTRAINT_MEMCG');
  const isoPlain = splitLogLine('2025-01-21T08:46:30,287197+00:00 amdgpu 0000:c5:00.0: amdgpu: 98304M of GTT memory ready.');
  assert.equal(isoPlain.format, 'dmesg-iso');
  assert.equal(isoPlain.kernel, true);
  assert.equal(isoPlain.message, 'amdgpu 0000:c5:00.0: amdgpu: 98304M of GTT memory ready.');
  const isoDrm = splitLogLine('2025-05-03T10:00:02,719064+00:00 [drm] amdgpu: 11867M of GTT memory ready.');
  assert.equal(isoDrm.kernel, true);
  assert.equal(isoDrm.message, '[drm] amdgpu: 11867M of GTT memory ready.');
  assert.equal(splitLogLine('2025-05-03T10:00:02,719064+00:00 usb usb1: New USB device found').message, 'usb usb1: New USB device found');
  const decodedRaw = splitLogLine('kern  :info  : [    4.118707] amdgpu 0000:c5:00.0: amdgpu: 98304M of GTT memory ready.');
  assert.equal(decodedRaw.format, 'dmesg-decoded');
  assert.equal(decodedRaw.monotonic, '4.118707');
});

test('splitLogLine: journalctl short, short-precise, short-iso, short-monotonic and syslog with host names', () => {
  const short = splitLogLine(
    'Jun 23 10:10:34 hv kernel: CPU 2/KVM invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=872',
  );
  assert.deepEqual(short, {
    message: 'CPU 2/KVM invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=872',
    timestamp: 'Jun 23 10:10:34',
    monotonic: undefined,
    format: 'syslog',
    kernel: true,
  });
  const precise = splitLogLine('Aug 30 06:58:55.050705 ... kernel: oom-kill:constraint=CONSTRAINT_MEMCG');
  assert.equal(precise.timestamp, 'Aug 30 06:58:55.050705');
  assert.equal(precise.message, 'oom-kill:constraint=CONSTRAINT_MEMCG');
  const shortIso = splitLogLine(
    '2025-01-17T17:10:43+0000 exp03-ft-896z-1-lan.exp03-ft-896z-job-svc kernel: IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready',
  );
  assert.equal(shortIso.format, 'syslog-iso');
  assert.equal(shortIso.message, 'IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready');
  const monotonic = splitLogLine('[  147.377885] ip-10-0-0-12 kernel: Memory cgroup out of memory: Killed process 989 (kubelet)');
  assert.equal(monotonic.format, 'journal-monotonic');
  assert.equal(monotonic.message, 'Memory cgroup out of memory: Killed process 989 (kubelet)');
  // rsyslog's kern.log keeps the kernel's own [seconds].
  const kernLog = splitLogLine('Dec 30 18:08:17 front kernel: [606280.177828] Out of memory: Killed process 19227 (entry)');
  assert.equal(kernLog.timestamp, 'Dec 30 18:08:17');
  assert.equal(kernLog.monotonic, '606280.177828');
  assert.equal(kernLog.message, 'Out of memory: Killed process 19227 (entry)');
  // Other programs' lines are not kernel messages, even when they quote one.
  const npd = splitLogLine(
    'Jun 24 18:49:43 aks-nodepool1-31060421-vmss000002 node-problem-detector-startup.sh[6018]: I0624 Memory cgroup out of memory: Killed process 68061 (stress)',
  );
  assert.equal(npd.kernel, false);
  assert.equal(
    splitLogLine('[  147.9] ip-10 systemd[1]: kubelet.service: A process of this unit has been killed by the OOM killer.').kernel,
    false,
  );
  const rsyslogIso = splitLogLine(
    '2026-09-02T00:54:21.619844+00:00 Server1 systemd[1]: kubelet.service: A process of this unit has been killed by the OOM killer.',
  );
  assert.equal(rsyslogIso.format, 'syslog-iso');
  assert.equal(rsyslogIso.kernel, false);
  // journal output with time and host cut away.
  assert.equal(splitLogLine('kernel: Out of memory and no killable processes...').message, 'Out of memory and no killable processes...');
});

test('parseOomKillSummary: the documented order, other orders, renamed and unknown keys, missing keys', () => {
  const documented = parseOomKillSummary(
    'constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/kubepods.slice/x.scope,task=argocd-dex,pid=2630150,uid=1001',
  );
  assert.equal(documented.constraint, 'CONSTRAINT_NONE');
  assert.equal(documented.nodemask, '(null)');
  assert.equal(documented.cpuset, '/');
  assert.equal(documented.memsAllowed, '0');
  assert.equal(documented.globalOom, true);
  assert.equal(documented.oomMemcg, undefined);
  assert.equal(documented.taskMemcg, '/kubepods.slice/x.scope');
  assert.equal(documented.task, 'argocd-dex');
  assert.equal(documented.pid, 2630150);
  assert.equal(documented.uid, 1001);
  const reordered = parseOomKillSummary(
    'task=python3,pid=7,uid=0,oom_memcg=/a,task_memcg=/a/b,constraint=CONSTRAINT_BPF,mems_allowed_effective=0-1,new_key=v',
  );
  assert.equal(reordered.constraint, 'CONSTRAINT_BPF');
  assert.equal(reordered.oomMemcg, '/a');
  assert.equal(reordered.globalOom, false);
  assert.equal(reordered.memsAllowed, '0-1');
  assert.equal(reordered.fields.new_key, 'v');
  assert.equal(reordered.pid, 7);
  const sparse = parseOomKillSummary('constraint=CONSTRAINT_MEMCG,nodemask=(null),');
  assert.equal(sparse.constraint, 'CONSTRAINT_MEMCG');
  assert.equal(sparse.task, undefined);
  assert.equal(sparse.pid, undefined);
  // A value holding a comma (a cpuset name can) stays whole.
  const comma = parseOomKillSummary('constraint=CONSTRAINT_CPUSET,cpuset=a,b,mems_allowed=0,global_oom,task=x,pid=notanumber');
  assert.equal(comma.cpuset, 'a,b');
  assert.equal(comma.pid, undefined);
});

// ------------------------------------------------------------------------------------------------
// Real reports, one fixture at a time.

test('synthetic GTT report (documented 7.1 format): a global kill of a pod, gpu_active, amdgpu lines', () => {
  const text = fixture('synthetic-gtt-apu-7.1.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'synthetic');
  const event = only(log);
  assert.equal(event.scope, 'global');
  assert.equal(event.scopeSource, 'summary');
  assert.equal(event.constraint, 'CONSTRAINT_NONE');
  assert.equal(event.globalOom, true);
  assert.equal(event.timestamp, '86231.502113');
  assert.deepEqual(event.invoker, {
    comm: 'llama-server',
    gfpMask: '0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP)',
    order: 0,
    oomScoreAdj: 969,
  });
  assert.equal(
    event.taskMemcg,
    '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1d7e0c6a_5b0f_4c5e_9d33_0e6f2ad2a1b9.slice/cri-containerd-5e1c0a0f3b3d4c2e9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f.scope',
  );
  assert.equal(event.summary?.task, 'llama-server');
  assert.equal(event.summary?.pid, 412877);
  assert.equal(event.summary?.uid, 1000);
  assert.deepEqual(event.killed, {
    reason: 'Out of memory',
    pid: 412877,
    comm: 'llama-server',
    totalVmKb: 37748736,
    anonRssKb: 1883420,
    fileRssKb: 15072,
    shmemRssKb: 0,
    pgtablesKb: 7168,
    uid: 1000,
    oomScoreAdj: 969,
    line: 26,
  });
  assert.equal(event.gpuActiveKb, 94371840);
  assert.equal(event.gpuReclaimKb, 524288);
  assert.equal(event.traceMemcg, false);
  assert.deepEqual(event.missing, []);
  assert.deepEqual(
    event.evidence.map((line) => line.line),
    [4, 21, 25, 26],
  );
  assert.deepEqual(
    log.amdgpu.map((line) => [line.kind, line.mib, line.device, line.evidence.line]),
    [
      ['vram-ready', 512, '0000:c5:00.0', 1],
      ['gtt-cap', 98304, '0000:c5:00.0', 2],
      ['gtt-ready', 98304, '0000:c5:00.0', 3],
    ],
  );
  assert.equal(log.format, 'dmesg');
});

test('k3s blog (syslog kern.log with [seconds]): a global kill of a BestEffort pod; other programs ignored', () => {
  const text = fixture('k3s-blog-syslog-global-pod.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'k3s-blog');
  const event = only(log);
  assert.equal(event.scope, 'global');
  assert.equal(event.timestamp, 'Dec 30 18:08:17');
  assert.equal(event.monotonic, '606280.177800');
  assert.equal(event.cpuset, 'system.slice');
  assert.equal(
    event.taskMemcg,
    '/kubepods/besteffort/podbe1e663f-f7a1-4b90-bdfd-bb30afdf7c37/53463dbb01e95cfa79e16677e4a67317688384cc5b6c54d416b48dce0f406b4c',
  );
  assert.equal(event.killed?.pid, 19227);
  assert.equal(event.killed?.comm, 'entry');
  assert.equal(event.killed?.anonRssKb, 120);
  assert.equal(event.killed?.uid, undefined, 'this kernel did not print UID: yet');
  assert.equal(event.invoker, undefined);
  assert.ok(event.missing.some((part) => part.includes('invoked oom-killer')));
  assert.equal(log.format, 'syslog');
});

test('dmesg of a 6.1 kernel: memory.oom.group repeats the victim; a line cut by a pager keeps what it has', () => {
  const text = fixture('course-dmesg-global-oom-group-6.1.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'course');
  assert.equal(log.events.length, 2);
  const first = at(log, 0);
  assert.equal(first.scope, 'global');
  assert.equal(first.taskMemcg, '/kubepods/burstable/pod3902af1e-8c>');
  assert.equal(
    first.oomGroup,
    '/kubepods/burstable/pod3902af1e-8ce1-42e1-a2a5-dc04f4240c4f/ed9dcd836d0c7e3e379b2387ef5e15e70f1c932dbce0fce685606bb2f4d62036',
  );
  assert.equal(first.killed?.comm, 'prometheus-conf');
  assert.equal(first.killed?.pgtablesKb, 108);
  assert.deepEqual(first.groupKills, [], 'the repeated victim is not a second kill');
  assert.deepEqual(
    first.evidence.map((line) => line.line),
    [1, 2, 3, 4],
  );
  const second = at(log, 1);
  assert.equal(second.invoker?.comm, 'tailscaled');
  assert.equal(second.killed?.comm, 'memory_leak');
  assert.equal(second.killed?.anonRssKb, 11724804);
  assert.ok(second.taskMemcg?.startsWith('/user.slice/'));
});

test('leptonai/gpud#70 (journalctl short-precise): a memcg summary line alone is a partial event', () => {
  const text = fixture('gpud-70-journal-precise-memcg.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'gpud-70');
  const event = only(log);
  assert.equal(event.scope, 'memcg');
  assert.equal(event.scopeSource, 'summary');
  assert.equal(event.timestamp, 'Aug 30 06:58:55.050705');
  assert.equal(
    event.oomMemcg,
    '/lxc.payload....-lxc/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podeded8c65_6e8e_4c6e_a889_3e427565c740.slice',
  );
  assert.ok(event.taskMemcg?.endsWith('cri-containerd-ec9ee26695deb4cc72bc665efff1cf3a03fdfb12f1303e02fe9252985e084a95.scope'));
  assert.equal(event.summary?.task, 'pt_main_thread');
  assert.equal(event.summary?.pid, 461754);
  assert.equal(event.summary?.uid, 0);
  assert.equal(event.memsAllowed, '0-1');
  assert.equal(event.killed, undefined);
  assert.equal(event.missing.length, 2);
});

test('awslabs/amazon-eks-ami#419 (dmesg, 5.4): kubelet killed by its own slice; the next report is cut', () => {
  const text = fixture('eks-ami-419-dmesg-podruntime.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'eks');
  assert.equal(log.events.length, 2);
  const kubelet = at(log, 0);
  assert.equal(kubelet.scope, 'memcg');
  assert.equal(kubelet.oomMemcg, '/podruntime.slice');
  assert.equal(kubelet.taskMemcg, '/podruntime.slice/kubelet.service');
  assert.deepEqual(
    [kubelet.killed?.reason, kubelet.killed?.pid, kubelet.killed?.comm, kubelet.killed?.oomScoreAdj, kubelet.killed?.uid],
    ['Memory cgroup out of memory', 989, 'kubelet', -999, 0],
  );
  const cut = at(log, 1);
  assert.equal(cut.invoker?.comm, 'exe');
  assert.equal(cut.invoker?.gfpMask, '0xc40(GFP_NOFS)');
  assert.equal(cut.invoker?.oomScoreAdj, -999);
  assert.equal(cut.scope, 'memcg');
  assert.equal(cut.scopeSource, 'call-trace');
  assert.equal(cut.killed, undefined);
});

test("journalctl -o short-monotonic (the probe's format; EKS lines re-prefixed): same events, systemd lines ignored", () => {
  const text = fixture('derived-journal-short-monotonic-eks-419.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'short-monotonic');
  assert.equal(log.format, 'journal-monotonic');
  assert.equal(log.events.length, 2);
  assert.equal(at(log, 0).killed?.comm, 'kubelet');
  assert.equal(at(log, 0).timestamp, '147.358790');
  assert.equal(at(log, 1).invoker?.comm, 'exe');
  assert.deepEqual(
    at(log, 1).evidence.map((line) => line.line),
    [4],
  );
});

test('reportportal/kubernetes#203 (dmesg, 5.4): a rate-limited kill keeps only its reason line', () => {
  const text = fixture('reportportal-203-dmesg-ratelimited.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'reportportal');
  assert.equal(log.events.length, 2);
  const lone = at(log, 0);
  assert.equal(lone.scope, 'memcg');
  assert.equal(lone.scopeSource, 'reason');
  assert.equal(lone.killed?.comm, 'uwsgi');
  assert.equal(lone.killed?.shmemRssKb, 92);
  assert.equal(lone.killed?.fileRssKb, 52176);
  assert.equal(lone.killed?.oomScoreAdj, 986);
  assert.equal(lone.invoker, undefined);
  assert.equal(at(log, 1).invoker?.comm, 'uwsgi');
  assert.equal(at(log, 1).traceMemcg, true);
});

test('google/cadvisor test data (bare messages, 3.13/4.8 kernels): "Task in", "sacrifice child", a docker cgroup', () => {
  const text = fixture('cadvisor-oomparser-bare-legacy.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'cadvisor');
  assert.equal(log.format, 'bare');
  assert.equal(log.events.length, 3);
  const monster = at(log, 0);
  assert.equal(monster.scope, 'memcg');
  assert.deepEqual(monster.legacyTaskIn, { task: '/mem2', limitOf: '/mem2' });
  assert.equal(monster.oomMemcg, '/mem2');
  assert.equal(monster.cpuset, '/');
  assert.equal(monster.memsAllowed, '0');
  assert.deepEqual(monster.memcgUsage, { usageKb: 980, limitKb: 980, failcnt: 4152239 });
  assert.deepEqual([monster.candidate?.pid, monster.candidate?.comm, monster.candidate?.score], [13536, 'memorymonster', 996]);
  assert.equal(monster.killed?.reason, 'Memory cgroup out of memory');
  assert.equal(monster.killed?.totalVmKb, 33558652);
  const system = at(log, 1);
  assert.equal(system.scope, 'global');
  assert.equal(system.killed?.reason, 'Out of memory');
  assert.equal(system.killed?.anonRssKb, 1595164);
  assert.equal(system.invoker?.gfpMask, '0x280da');
  const docker = at(log, 2);
  assert.equal(docker.taskMemcg, '/docker/2e088fe462e25e60be1dafafe2c05c47bda1a97978648d10ad2b7484fc0b8f50');
  assert.equal(docker.killed?.shmemRssKb, 0);
});

test('kubernetes/kubernetes#56891 (dmesg -T, RHEL 7 3.10, cgroup v1): fragments split by time, Guaranteed pods', () => {
  const text = fixture('kubernetes-56891-dmesg-T-cgroupv1.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, '56891');
  assert.equal(log.format, 'dmesg-ctime');
  assert.equal(log.events.length, 4);
  const first = at(log, 0);
  assert.equal(first.timestamp, 'Wed Dec  6 23:54:11 2017');
  assert.equal(first.invoker?.comm, 'java');
  assert.equal(first.cpuset, 'bf2d7043c1267b4dfd8fdb356653a73070a8db8dfd7e2e4d74700edcaef7b548');
  assert.equal(first.traceMemcg, true, 'mem_cgroup_oom_synchronize in the trace');
  // Eleven minutes later: a different report, even though its header is missing.
  const second = at(log, 1);
  assert.equal(second.timestamp, 'Thu Dec  7 00:05:14 2017');
  assert.equal(
    second.memcgStatsFor,
    '/kubepods/pod95387fa4-da9c-11e7-9d36-5254b24cbf5e/6895a3e13439535852d3184ac2aadd26d7363cc035f171545ec7d4ce74073b0b',
  );
  assert.equal(second.oomMemcg, second.memcgStatsFor);
  assert.deepEqual(
    [second.candidate?.pid, second.killed?.pid, second.killed?.comm, second.killed?.anonRssKb],
    [24572, 28438, 'java', 466160],
  );
  assert.equal(at(log, 2).invoker?.comm, 'java');
  const last = at(log, 3);
  assert.equal(
    last.legacyTaskIn?.task,
    '/kubepods/pod95387fa4-da9c-11e7-9d36-5254b24cbf5e/e84ed2eecf157a08df53ca510418796ccf5173f5d71e42133320e9178b9c8447',
  );
  assert.deepEqual(last.memcgUsage, { usageKb: 524092, limitKb: 524288, failcnt: 164324 });
  assert.deepEqual(
    [last.candidate?.pid, last.candidate?.comm, last.candidate?.score],
    [3068, 'java', 0],
    'the line is cut after "sacrifice c"',
  );
  assert.equal(last.killed, undefined);
});

test('istio/istio#42734 (syslog with host name): "Task in" with a docker scope, no kill line', () => {
  const text = fixture('istio-42734-syslog-task-in.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'istio');
  const event = only(log);
  assert.equal(event.scope, 'memcg');
  assert.equal(event.scopeSource, 'legacy-task-in');
  assert.equal(event.timestamp, 'Jan  5 02:12:02');
  assert.ok(event.taskMemcg?.endsWith('docker-b27201334a41cd0749d053b18378d7ea65617b8e26277197ea25c974da1a5a8a.scope'));
  assert.deepEqual(event.memcgUsage, { usageKb: 1048576, limitKb: 1048576, failcnt: 189 });
  assert.deepEqual(
    event.evidence.map((line) => line.line),
    [1, 2, 5],
  );
  assert.ok(event.missing.some((part) => part.includes('Killed process')));
});

test('bluek8s/kubedirector#356 (dmesg pasted with wrapped lines): a torn "limit of" falls back to the stats line', () => {
  const text = fixture('kubedirector-356-dmesg-torn.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'kubedirector');
  const event = only(log);
  assert.equal(event.legacyTaskIn?.limitOf, '/kubepo');
  assert.equal(
    event.oomMemcg,
    '/kubepods/pod951f6bc5-c5a5-11ea-8707-80e455f266a2/024952d653ef1cd852f875a61bd27cf45cb1fd6cab3659ca7e5f12f037d99aa9',
  );
  assert.deepEqual([event.candidate?.pid, event.candidate?.comm], [62685, 'bash']);
  assert.equal(event.killed?.pid, 62769);
  assert.equal(event.killed?.comm, undefined, 'the line ends at "("');
  assert.equal(event.timestamp, '5193605.506728');
});

test('harvester/harvester#2419 and #9724 (syslog): a task name with a space and a slash; usage without a header', () => {
  const kvm = parseKernelLog(fixture('harvester-2419-syslog-comm-with-space.log'));
  assert.equal(only(kvm).invoker?.comm, 'CPU 2/KVM');
  assert.equal(only(kvm).invoker?.oomScoreAdj, 872);
  assert.equal(only(kvm).scope, 'memcg');
  const text = fixture('harvester-9724-syslog-memcg-usage.log');
  const usage = parseKernelLog(text);
  assertEvidenceVerbatim(text, usage, 'harvester-9724');
  const event = only(usage);
  assert.equal(event.scopeSource, 'memcg-usage');
  assert.deepEqual(event.memcgUsage, { usageKb: 131076, limitKb: 131072, failcnt: 28873 });
  assert.equal(event.memcgStatsFor, '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8a5f1d39_5a43_4d2a_998d_43fcafa4f');
});

test('docker/for-linux#1001: dmesg -T with Mem-Info continuation lines; syslog with two "sacrifice child" kills', () => {
  const kmem = parseKernelLog(fixture('docker-for-linux-1001-dmesg-T-kmem.log'));
  const event = only(kmem);
  assert.equal(event.invoker?.comm, 'python3');
  assert.equal(event.invoker?.gfpMask, '0x0()');
  assert.equal(event.scope, undefined);
  assert.equal(kmem.format, 'dmesg-ctime');
  const text = fixture('docker-for-linux-1001-syslog-sacrifice-child.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'docker-syslog');
  assert.equal(log.events.length, 2);
  assert.deepEqual(
    log.events.map((e) => [e.candidate?.pid, e.killed?.pid, e.scope, e.monotonic]),
    [
      [4142, 4254, 'memcg', '152.700479'],
      [4142, 4255, 'memcg', '152.821448'],
    ],
  );
  assert.equal(at(log, 1).cpuset, undefined, '"python3 cpuset=a742" belongs to no open report');
});

test('k3s-io/k3s#12028 (dmesg, 6.14): a global report cut after the call trace', () => {
  const event = only(parseKernelLog(fixture('k3s-12028-dmesg-global-6.14.log')));
  assert.equal(event.invoker?.comm, 'StreamTrans #72');
  assert.equal(event.invoker?.gfpMask, '0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO)');
  assert.equal(event.scope, 'global');
  assert.equal(event.scopeSource, 'call-trace');
});

test('leptonai/gpud test data (dmesg -x --time-format iso, hand-edited lines): unknown constraints are kept', () => {
  const text = fixture('gpud-testdata-dmesg-decode-iso.log');
  const log = parseKernelLog(text);
  assertEvidenceVerbatim(text, log, 'gpud-testdata');
  assert.equal(log.format, 'dmesg-decoded');
  assert.equal(log.events.length, 4);
  const lxc = at(log, 2);
  assert.equal(lxc.summary?.task, 'node');
  assert.equal(lxc.summary?.pid, 863987);
  const other = at(log, 3);
  assert.equal(other.constraint, 'OTHER_CONSTRAINT');
  assert.equal(other.scope, undefined, 'an unknown constraint does not decide the scope');
});

test('ollama/ollama#16983 and #5471 (APU dmesg): no OOM events, amdgpu GTT lines found', () => {
  const decoded = parseKernelLog(fixture('ollama-16983-dmesg-decoded-ctime-apu.log'));
  assert.equal(decoded.events.length, 0);
  assert.equal(decoded.format, 'dmesg-decoded');
  const gtt = parseKernelLog(fixture('ollama-5471-dmesg-amdgpu-gtt.log'));
  assert.deepEqual(
    gtt.amdgpu.map((line) => [line.kind, line.mib, line.device]),
    [
      ['vram-ready', 8192, undefined],
      ['gtt-ready', 11867, undefined],
    ],
  );
});

test('this CI machine (no OOM): no events, every line counted', () => {
  const text = fixture('ci-machine-dmesg-no-oom.log');
  const log = parseKernelLog(text);
  assert.equal(log.events.length, 0);
  assert.equal(log.lineCount, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
  assert.equal(log.format, 'dmesg');
  assert.deepEqual(log.problems, []);
});

test("the probe's kernel-log section: `source=` on the first line, CRLF line ends", () => {
  const body = fixture('eks-ami-419-dmesg-podruntime.log');
  const log = parseKernelLog(`source=journalctl\n${body}`);
  assert.equal(log.source, 'journalctl');
  assert.equal(at(log, 0).evidence[0]?.line, 2, 'line numbers count the source line');
  const crlf = parseKernelLog(body.replace(/\n/g, '\r\n'));
  assert.equal(at(crlf, 0).killed?.comm, 'kubelet');
  assert.equal(at(crlf, 0).evidence[0]?.text.endsWith('\r'), false);
  assert.equal(parseKernelLog('').events.length, 0);
  assert.equal(parseKernelLog('').lineCount, 0);
});

test('a reason line quoted by another program does not make a second event', () => {
  const text = [
    'Jun 24 18:49:43 aks-nodepool1-31060421-vmss000002 kernel: [ 8341.856870] Memory cgroup out of memory: Killed process 68061 (stress) total-vm:4195088kB, anon-rss:2884696kB, file-rss:288kB, shmem-rss:0kB, UID:0 pgtables:5696kB oom_score_adj:872',
    'Jun 24 18:49:43 aks-nodepool1-31060421-vmss000002 node-problem-detector-startup.sh[6018]: I0624 18:49:43.983472    6018 log_monitor.go:159] New status generated: &{Source:kernel-monitor Events:[{Severity:warn Reason:OOMKilling Message:Memory cgroup out of memory: Killed process 68061 (stress) total-vm:4195088kB}]}',
  ].join('\n');
  const log = parseKernelLog(text);
  assert.equal(log.events.length, 1);
  assert.deepEqual(
    at(log, 0).evidence.map((line) => line.line),
    [1],
  );
  // A program that logs the kernel's words verbatim is still not the kernel.
  assert.equal(
    parseKernelLog(
      'Jun 24 18:49:50 host oom-notifier[77]: Out of memory: Killed process 5 (x) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB',
    ).events.length,
    0,
  );
});

test('a memory.oom.group kill with several victims keeps each once', () => {
  const text = [
    '[  10.000001] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/kubepods/burstable/pod1d7e0c6a-5b0f-4c5e-9d33-0e6f2ad2a1b9,task_memcg=/kubepods/burstable/pod1d7e0c6a-5b0f-4c5e-9d33-0e6f2ad2a1b9/abc123abc123,task=a,pid=10,uid=0',
    '[  10.000002] Memory cgroup out of memory: Killed process 10 (a) total-vm:100kB, anon-rss:50kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0',
    '[  10.000003] Tasks in /kubepods/burstable/pod1d7e0c6a-5b0f-4c5e-9d33-0e6f2ad2a1b9 are going to be killed due to memory.oom.group set',
    '[  10.000004] Memory cgroup out of memory: Killed process 10 (a) total-vm:100kB, anon-rss:50kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0',
    '[  10.000005] Memory cgroup out of memory: Killed process 11 (b) total-vm:100kB, anon-rss:50kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0',
    '[  10.000006] Memory cgroup out of memory: Killed process 11 (b) total-vm:100kB, anon-rss:50kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0',
    '[  10.000007] Memory cgroup out of memory: Killed process 12 (c d) total-vm:100kB, anon-rss:50kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0',
  ].join('\n');
  const event = only(parseKernelLog(text));
  assert.equal(event.killed?.pid, 10);
  assert.deepEqual(
    event.groupKills.map((kill) => [kill.pid, kill.comm]),
    [
      [11, 'b'],
      [12, 'c d'],
    ],
  );
  assert.equal(event.evidence.length, 7);
});

test('the event cap keeps the most recent events and says how many it dropped', () => {
  const lines: string[] = [];
  for (let i = 0; i < 50; i++)
    lines.push(
      `[${100 + i}.000000] Out of memory: Killed process ${1000 + i} (p${i}) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB`,
    );
  const log = parseKernelLog(lines.join('\n'), { maxEvents: 10 });
  assert.ok(log.events.length >= 10 && log.events.length < 20, `${log.events.length}`);
  assert.equal(log.events[log.events.length - 1]?.killed?.pid, 1049);
  assert.equal(log.events[0]?.killed?.pid, 1000 + 50 - log.events.length);
  assert.match(log.problems.join(' '), /older OOM events were dropped/);
});

// ------------------------------------------------------------------------------------------------
// Bad input.

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
}

const GARBAGE = [
  '\u0000\u0001\u0002',
  '[',
  ']',
  '[ 12.3',
  'oom-kill:',
  'oom-kill:,,,,====,global_oom,',
  'Out of memory: Killed process',
  'Out of memory: Killed process 99999999999999999999999 (',
  'Memory cgroup out of memory: Kill process x (y) score z or sacrifice child',
  'Task in  killed as a result of limit of ',
  'memory: usage kB, limit kB, failcnt',
  ' invoked oom-killer:',
  'x invoked oom-killer: gfp_mask=, order=, oom_score_adj=',
  'Node 0 gpu_active:kB gpu_reclaim:18446744073709551615kB',
  'Tasks in  are going to be killed due to memory.oom.group set',
  '\ud800\udfff\uffff',
  'Jun 99 99:99:99 host kernel: ',
  '<999>',
  '1,2,3,-;',
  'kern  :warn  : ',
];

test('fuzz: random truncation and injected garbage in every fixture never throw, and evidence stays verbatim', () => {
  const random = prng(0xc0ffee);
  for (const name of FIXTURES) {
    const original = fixture(name);
    for (let round = 0; round < 60; round++) {
      let text = original;
      const kind = round % 4;
      if (kind === 0) {
        // Cut both ends at random offsets (mid-line included).
        const a = Math.floor(random() * text.length);
        const b = a + Math.floor(random() * (text.length - a + 1));
        text = text.slice(a, b);
      } else if (kind === 1) {
        // Inject garbage lines and fragments at random places.
        for (let i = 0; i < 8; i++) {
          const at = Math.floor(random() * (text.length + 1));
          const junk = GARBAGE[Math.floor(random() * GARBAGE.length)] ?? '';
          text = text.slice(0, at) + (random() < 0.5 ? `\n${junk}\n` : junk) + text.slice(at);
        }
      } else if (kind === 2) {
        // Drop random lines (a rate-limited or lossy log).
        text = text
          .split('\n')
          .filter(() => random() > 0.3)
          .join('\n');
      } else {
        // Flip random characters.
        const chars = [...text];
        for (let i = 0; i < 20 && chars.length > 0; i++)
          chars[Math.floor(random() * chars.length)] = String.fromCharCode(Math.floor(random() * 0x3000));
        text = chars.join('');
      }
      const log = parseKernelLog(text);
      assertEvidenceVerbatim(text, log, `${name} round ${round}`);
      for (const event of log.events) {
        assert.ok(event.evidence.length > 0, `${name}: an event without evidence`);
        assert.ok(event.scope === undefined || event.scope === 'global' || event.scope === 'memcg');
      }
    }
  }
});

test('adversarial lines: very long, many brackets, many commas; bounded, no exception', () => {
  const long = `Out of memory: Killed process 1 (${'('.repeat(200_000)}`;
  const log = parseKernelLog(`${long}\noom-kill:${','.repeat(100_000)}global_oom\n${'[ '.repeat(100_000)}\nx cpuset=${' '.repeat(50_000)}`);
  assert.ok(log.events.length >= 1);
  assert.match(log.problems.join(' '), /longer than/);
  assert.ok((log.events[0]?.evidence[0]?.text.length ?? 0) <= 4096);
  // Long runs that a careless pattern would scan quadratically.
  const runs = [
    `Out of memory: Killed process 1 (x) ${'a'.repeat(60_000)}`,
    `[drm] amdgpu: ${'1'.repeat(60_000)} memory ready`,
    `x invoked oom-killer: ${'gfp_mask='.repeat(6_000)}`,
    `x invoked oom-killer: gfp_mask=0x0, order=0, oom_score_adj=0\nx${' cpuset='.repeat(7_000)}`,
    `Task in ${'/'.repeat(60_000)}`,
    `Jun 23 10:10:34 ${'h'.repeat(60_000)}`,
  ];
  for (const run of runs) parseKernelLog(run);
  // Not a string at all.
  assert.equal(parseKernelLog(undefined as unknown as string).events.length, 0);
});

test('a 100 MB kernel log generated in memory parses, with the right counts and line numbers', () => {
  const report = fixture('synthetic-gtt-apu-7.1.log').split('\n').slice(3, 26);
  const noise = fixture('ci-machine-dmesg-no-oom.log').split('\n').slice(0, 60);
  const block = [...noise, ...report];
  // Give each copy its own seconds so the reports stay apart, and its own pid.
  const chunks: string[] = [];
  let bytes = 0;
  let copies = 0;
  while (bytes < 100 * 1024 * 1024) {
    const base = 100 + copies * 100;
    const lines = block.map((line) =>
      line.replace(/^\[ *\d+\.(\d+)\]/, (_m, frac: string) => `[${base}.${frac}]`).replace(/412877/g, String(100000 + copies)),
    );
    const chunk = lines.join('\n') + '\n';
    chunks.push(chunk);
    bytes += chunk.length;
    copies++;
  }
  const text = chunks.join('');
  assert.ok(text.length >= 100 * 1024 * 1024);
  const log = parseKernelLog(text, { maxEvents: 1000 });
  assert.equal(log.lineCount, copies * block.length);
  assert.ok(log.events.length >= 1000 && log.events.length < 2000);
  const last = log.events[log.events.length - 1];
  assert.equal(last?.killed?.pid, 100000 + copies - 1);
  assert.equal(last?.gpuActiveKb, 94371840);
  const firstLine = (copies - 1) * block.length + noise.length + 1;
  assert.equal(last?.evidence[0]?.line, firstLine);
  assert.match(log.problems.join(' '), /dropped/);
});
