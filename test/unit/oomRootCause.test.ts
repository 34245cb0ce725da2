// The OOM root cause, on the real kernel logs of test/fixtures/kernel-logs/ (provenance in the
// .source.md files) and on the synthetic GTT report built from the documented 7.1 format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { parseCapture, sectionFiles, sectionText } from '../../src/core/probe/capture.ts';
import { parseKernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import type { PodCgroupData } from '../../src/core/verdicts/oom/oomPodCgroups.ts';
import { podCgroupDataFromFiles } from '../../src/core/verdicts/oom/oomPodCgroups.ts';
import type { GlobalOomVerdict, MemcgOomVerdict, OomVerdict } from '../../src/core/verdicts/oom/oomVerdictTypes.ts';
import { explainWithinBudget } from '../../src/core/verdicts/oom/oomVerdicts.ts';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import { parseMemoryCounters } from '../../src/core/probe/parsers/cgroupMemory.ts';

const parseMemoryEvents = (text: string): Record<string, number> => Object.fromEntries(parseMemoryCounters(text));

const DIR = new URL('../fixtures/kernel-logs/', import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, DIR), 'utf8');
}

const GTT_POD = '1d7e0c6a-5b0f-4c5e-9d33-0e6f2ad2a1b9';
const GTT_POD_CGROUP =
  '/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1d7e0c6a_5b0f_4c5e_9d33_0e6f2ad2a1b9.slice';

function global(verdict: OomVerdict | undefined): GlobalOomVerdict {
  assert.ok(verdict, 'no verdict');
  assert.equal(verdict.kind, 'global', `${verdict.kind}: ${verdict.title}`);
  return verdict as GlobalOomVerdict;
}

function memcg(verdict: OomVerdict | undefined): MemcgOomVerdict {
  assert.ok(verdict, 'no verdict');
  assert.equal(verdict.kind, 'memcg', `${verdict.kind}: ${verdict.title}`);
  return verdict as MemcgOomVerdict;
}

function assertOneSentence(title: string): void {
  assert.ok(title.endsWith('.'), title);
  assert.ok(!title.includes('\n'), title);
  assert.doesNotMatch(title, /\.\s+[A-Z]/, `more than one sentence: ${title}`);
}

// ------------------------------------------------------------------------------------------------
// The GTT signature.

test('GTT signature, strong: a global kill of a pod whose memory.events shows oom_kill without max or oom, and a large gpu_active', () => {
  const text = fixture('synthetic-gtt-apu-7.1.log');
  const pods: PodCgroupData[] = [
    {
      podUid: GTT_POD,
      memoryEvents: parseMemoryEvents('low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\noom_group_kill 0\n'),
      memoryCurrent: 2 * 1024 ** 3,
      memoryMax: { kind: 'bytes', bytes: 16 * 1024 ** 3 },
      cgroupVersion: 2,
    },
  ];
  const { verdicts, summary } = explainKernelLogText(text, { pods, podNames: { [GTT_POD]: 'ai/llama-0' } });
  assert.equal(verdicts.length, 1);
  const verdict = global(verdicts[0]);
  assert.equal(verdict.severity, 'error');
  assert.equal(verdict.constraint, 'CONSTRAINT_NONE');
  assert.equal(verdict.id, 'oom.global-gtt:4');
  assert.equal(verdict.gtt?.strength, 'strong');
  assert.equal(verdict.gtt?.gpuActiveKb, 94371840);
  assert.equal(verdict.gtt?.gttMiB, 98304);
  assert.deepEqual(verdict.gtt?.against, []);
  assert.deepEqual(verdict.victim, {
    pid: 412877,
    comm: 'llama-server',
    taskMemcg:
      '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1d7e0c6a_5b0f_4c5e_9d33_0e6f2ad2a1b9.slice/cri-containerd-5e1c0a0f3b3d4c2e9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f.scope',
    inKubepods: true,
    placement: { kind: 'pod' },
    podUid: GTT_POD,
    qos: 'Burstable',
    containerId: '5e1c0a0f3b3d4c2e9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f',
    runtime: 'containerd',
    podName: 'ai/llama-0',
    anonRssKb: 1883420,
    fileRssKb: 15072,
    shmemRssKb: 0,
    totalVmKb: 37748736,
    oomScoreAdj: 969,
    uid: 1000,
  });
  assertOneSentence(verdict.title);
  assert.match(verdict.title, /llama-server \(pid 412877\) in pod ai\/llama-0/);
  assert.match(verdict.title, /GTT/);
  assert.match(verdict.explanation, /oom_kill 1 while max and oom are 0/);
  assert.match(verdict.explanation, /gpu_active:94371840kB/);
  // Evidence: the report's own lines, verbatim, with their numbers.
  const lines = text.split('\n');
  assert.deepEqual(
    verdict.evidenceLines.map((line) => line.line),
    [4, 21, 25, 26],
  );
  assert.deepEqual(verdict.evidence, [lines[3], lines[20], lines[24], lines[25]]);
  // Remedy: 1.3 × (2 GiB in the cgroup + 90 GiB of GPU buffers) = 119.6 GiB → 120Gi.
  assert.match(verdict.remedy, /at least 120Gi/);
  assert.match(verdict.remedy, /with 30 % headroom/);
  assert.match(verdict.remedy, /gpumem\.io\/gpu-memory/);
  assert.match(verdict.remedy, /Guaranteed/);
  assert.match(verdict.remedy, /dedicated \(tainted\)/);
  assert.equal(summary.globalPodKills, 1);
  assert.equal(summary.gttMiB, 98304);
  assert.deepEqual(summary.victims, [
    {
      kind: 'global',
      comm: 'llama-server',
      pid: 412877,
      podUid: GTT_POD,
      podName: 'ai/llama-0',
      containerId: '5e1c0a0f3b3d4c2e9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f',
      timestamp: '86231.502113',
      gtt: 'strong',
    },
  ]);
});

test('GTT signature without pod data rests on gpu_active alone (likely); counters that show the limit was hit speak against it', () => {
  const text = fixture('synthetic-gtt-apu-7.1.log');
  const bare = global(explainKernelLogText(text).verdicts[0]);
  assert.equal(bare.gtt?.strength, 'likely');
  assert.match(bare.remedy, /gpu_active, node-wide: an upper bound/);
  const hitLimit = global(
    explainKernelLogText(text, { pods: [{ podUid: GTT_POD, memoryEvents: { max: 3, oom: 1, oom_kill: 1 } }] }).verdicts[0],
  );
  assert.equal(hitLimit.gtt?.strength, 'likely');
  assert.match(hitLimit.gtt?.against.join(' ') ?? '', /max 3 and oom 1/);
  const notYet = global(
    explainKernelLogText(text, { pods: [{ podUid: GTT_POD, memoryEvents: { max: 0, oom: 0, oom_kill: 0 } }] }).verdicts[0],
  );
  assert.match(notYet.gtt?.against.join(' ') ?? '', /oom_kill 0/);
  // fdinfo-attributed GTT (from another analysis) counts as strong evidence too, and sizes the remedy.
  const withFdinfo = global(
    explainKernelLogText(text, { pods: [{ podUid: GTT_POD, memoryCurrent: 2 * 1024 ** 3, gttBytes: 60 * 1024 ** 3 }] }).verdicts[0],
  );
  assert.equal(withFdinfo.gtt?.strength, 'strong');
  assert.match(withFdinfo.remedy, /at least 81Gi/);
});

test('a small gpu_active speaks against the GTT signature', () => {
  const text = fixture('synthetic-gtt-apu-7.1.log').replace('gpu_active:94371840kB', 'gpu_active:2048kB');
  const verdict = global(explainKernelLogText(text).verdicts[0]);
  assert.equal(verdict.gtt?.strength, 'possible');
  assert.match(verdict.gtt?.against.join(' ') ?? '', /gpu_active is only 2 MiB/);
});

test('k3s blog: a global kill of a BestEffort pod with no GPU evidence is only a possible GTT signature', () => {
  const verdict = global(explainKernelLogText(fixture('k3s-blog-syslog-global-pod.log')).verdicts[0]);
  assert.equal(verdict.gtt?.strength, 'possible');
  assert.equal(verdict.id, 'oom.global:1');
  assert.equal(verdict.victim.podUid, 'be1e663f-f7a1-4b90-bdfd-bb30afdf7c37');
  assert.equal(verdict.victim.qos, 'BestEffort');
  assert.equal(verdict.victim.containerId, '53463dbb01e95cfa79e16677e4a67317688384cc5b6c54d416b48dce0f406b4c');
  assert.equal(verdict.victim.runtime, undefined);
  assert.equal(verdict.severity, 'error');
  assert.doesNotMatch(verdict.title, /GTT/);
  assert.match(verdict.title, /under its own memory limit/);
  assert.match(verdict.explanation, /cannot tell GPU memory outside the cgroup from ordinary node overcommit/);
  assert.match(verdict.remedy, /kube-reserved/);
  assert.match(verdict.remedy, /If the pod uses a GPU/);
  assert.match(verdict.explanation, /invoked oom-killer/, 'says what the log lacks');
});

test('a global kill whose task_memcg is cut short finds the pod through memory.oom.group', () => {
  const { verdicts } = explainKernelLogText(fixture('course-dmesg-global-oom-group-6.1.log'));
  assert.equal(verdicts.length, 2);
  const pod = global(verdicts[0]);
  assert.equal(pod.victim.podUid, '3902af1e-8ce1-42e1-a2a5-dc04f4240c4f');
  assert.equal(pod.victim.inKubepods, true);
  assert.ok(pod.gtt);
  const host = global(verdicts[1]);
  assert.equal(host.gtt, undefined);
  assert.equal(host.victim.inKubepods, false);
  // The pager cut its path too (`…/vte>`): the log cannot say it was outside every pod.
  assert.deepEqual(host.victim.placement, {
    kind: 'unknown',
    why: 'its cgroup path is cut short in the log (/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte>)',
  });
  assert.match(host.title, /memory_leak \(pid 115727\); the log does not say whether it ran in a pod/);
  assert.match(host.remedy, /system-reserved/);
});

test('a global report cut before the victim still gives a global verdict', () => {
  const verdict = global(explainKernelLogText(fixture('k3s-12028-dmesg-global-6.14.log')).verdicts[0]);
  assert.equal(verdict.victim.pid, undefined);
  assert.match(verdict.title, /does not say which process was killed/);
  assert.match(verdict.explanation, /StreamTrans #72/);
  assert.match(verdict.explanation, /weak hint/);
});

// ------------------------------------------------------------------------------------------------
// Memory-cgroup kills, by the level of the limit.

test('container limit (istio#42734, "Task in" form): usage, limit and a concrete new limit', () => {
  const verdict = memcg(explainKernelLogText(fixture('istio-42734-syslog-task-in.log')).verdicts[0]);
  assert.equal(verdict.limitLevel, 'container');
  assert.equal(verdict.severity, 'warning');
  assert.equal(verdict.usageKb, 1048576);
  assert.equal(verdict.limitKb, 1048576);
  assert.equal(verdict.victim.podUid, '0330b2c1-a15b-4cdd-b5e5-72d4a90bee82');
  assert.equal(verdict.victim.runtime, 'docker');
  assertOneSentence(verdict.title);
  assert.match(verdict.title, /its container reached its memory limit \(usage 1 GiB of a 1 GiB limit\)/);
  // 1.3 × 1 GiB = 1331.2 MiB → 1332Mi.
  assert.match(verdict.remedy, /resources\.limits\.memory/);
  assert.match(verdict.remedy, /at least 1332Mi/);
});

test('pod-level limit (gpud#70) and the name map', () => {
  const uid = 'eded8c65-6e8e-4c6e-a889-3e427565c740';
  const verdict = memcg(
    explainKernelLogText(fixture('gpud-70-journal-precise-memcg.log'), { podNames: new Map([[uid, 'train/job-7']]) }).verdicts[0],
  );
  assert.equal(verdict.limitLevel, 'pod');
  assert.equal(verdict.victim.podName, 'train/job-7');
  assert.equal(verdict.victim.comm, 'pt_main_thread');
  assert.equal(verdict.victim.pid, 461754);
  assert.match(verdict.title, /pod-level memory limit/);
  assert.match(verdict.title, /pod train\/job-7/);
});

test("a node service's own slice (eks-ami#419): not a pod, and an error because it is the kubelet", () => {
  const { verdicts } = explainKernelLogText(fixture('eks-ami-419-dmesg-podruntime.log'));
  const kubelet = memcg(verdicts[0]);
  assert.equal(kubelet.limitLevel, 'outside-kubepods');
  assert.equal(kubelet.severity, 'error');
  assert.equal(kubelet.oomMemcg, '/podruntime.slice');
  assert.match(kubelet.title, /kubelet \(pid 989\).*\/podruntime\.slice.*not a pod/);
  assert.match(kubelet.remedy, /\/podruntime\.slice/);
  // The cut report after it: memcg only by its call trace.
  const cut = memcg(verdicts[1]);
  assert.equal(cut.limitLevel, 'unknown');
  assert.match(cut.explanation, /exe asking for memory/);
});

test('the whole pod tree (oom_memcg=/kubepods.slice, as an AKS node prints it) is an error about node allocatable', () => {
  // Built from the documented summary format with the kubepods root as the cgroup that ran out.
  const text = [
    '[ 8341.856856] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-178ec18073cc6ac7be2de8d9869daf162a6349dd056b6535849112c53ec3102a.scope,mems_allowed=0,oom_memcg=/kubepods.slice,task_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod10d16a28_60ff_475f_a631_510d9792219f.slice/cri-containerd-178ec18073cc6ac7be2de8d9869daf162a6349dd056b6535849112c53ec3102a.scope,task=stress,pid=68061,uid=0',
    '[ 8341.856870] Memory cgroup out of memory: Killed process 68061 (stress) total-vm:4195088kB, anon-rss:2884696kB, file-rss:288kB, shmem-rss:0kB, UID:0 pgtables:5696kB oom_score_adj:872',
  ].join('\n');
  const verdict = memcg(explainKernelLogText(text).verdicts[0]);
  assert.equal(verdict.limitLevel, 'kubepods');
  assert.equal(verdict.severity, 'error');
  assert.equal(verdict.victim.podUid, '10d16a28-60ff-475f-a631-510d9792219f');
  assert.match(verdict.title, /allocatable/);
  const qos = memcg(
    explainKernelLogText(text.replace('oom_memcg=/kubepods.slice,', 'oom_memcg=/kubepods.slice/kubepods-burstable.slice,')).verdicts[0],
  );
  assert.equal(qos.limitLevel, 'qos');
});

test('pre-5.0 "sacrifice child": the explanation names the child that died', () => {
  const { verdicts } = explainKernelLogText(fixture('docker-for-linux-1001-syslog-sacrifice-child.log'));
  assert.equal(verdicts.length, 2);
  const first = memcg(verdicts[0]);
  assert.equal(first.victim.pid, 4254);
  assert.equal(first.victim.comm, 'python3');
  assert.match(first.explanation, /chose python3 \(pid 4142\) and killed its child pid 4254/);
});

test("a torn victim line does not borrow the candidate's name (kubedirector#356)", () => {
  const verdict = memcg(explainKernelLogText(fixture('kubedirector-356-dmesg-torn.log')).verdicts[0]);
  assert.equal(verdict.victim.pid, 62769);
  assert.equal(verdict.victim.comm, undefined);
  assert.equal(verdict.limitLevel, 'container');
  assert.equal(verdict.victim.qos, 'Guaranteed');
  assert.match(verdict.remedy, /at least 666Mi/);
});

test('cgroups outside Kubernetes (cAdvisor data): a Docker container is a warning, with --memory in the remedy', () => {
  const { verdicts, summary } = explainKernelLogText(fixture('cadvisor-oomparser-bare-legacy.log'));
  assert.deepEqual(
    verdicts.map((v) => v.kind),
    ['memcg', 'global', 'memcg'],
  );
  const docker = memcg(verdicts[2]);
  assert.equal(docker.limitLevel, 'outside-kubepods');
  assert.equal(docker.severity, 'warning');
  assert.match(docker.remedy, /--memory/);
  assert.equal(summary.kills, 3);
  assert.equal(summary.global, 1);
  assert.equal(summary.memcg, 2);
  assert.equal(summary.globalPodKills, 0);
  assert.equal(
    summary.text,
    '3 OOM kill reports: 1 global (0 of a pod), 2 memory-cgroup, 0 unclassified; victims: memorymonster (pid 13536), badsysprogram (pid 1532), gunpowder-memho (pid 1381).',
  );
});

test('a report too cut to classify is unclassified, with a remedy that says how to get the rest', () => {
  const verdict = explainKernelLogText(fixture('docker-for-linux-1001-dmesg-T-kmem.log')).verdicts[0];
  assert.equal(verdict?.kind, 'unknown');
  assert.equal(verdict?.severity, 'warning');
  assert.match(verdict?.explanation ?? '', /python3 invoking the OOM killer \(gfp_mask=0x0\(\), order=0\)/);
  assert.match(verdict?.remedy ?? '', /journalctl -k/);
});

test('no OOM in the log: no verdicts and a summary that says so (this CI machine)', () => {
  const { verdicts, summary } = explainKernelLogText(fixture('ci-machine-dmesg-no-oom.log'));
  assert.equal(verdicts.length, 0);
  assert.equal(summary.kills, 0);
  assert.match(summary.text, /^No OOM kill reports in \d+ lines of kernel log\.$/);
});

// ------------------------------------------------------------------------------------------------
// Cgroup data from the node probe.

test('parseMemoryEvents keeps known and unknown keys and skips garbage', () => {
  assert.deepEqual(
    parseMemoryEvents('low 0\nhigh 12\nmax 3\noom 1\noom_kill 2\noom_group_kill 0\nsock_throttled 5\n\ngarbage line\nmax\n'),
    {
      low: 0,
      high: 12,
      max: 3,
      oom: 1,
      oom_kill: 2,
      oom_group_kill: 0,
      sock_throttled: 5,
    },
  );
  assert.deepEqual(parseMemoryEvents(''), {});
});

test('podCgroupDataFromFiles reads a node capture: cgroup v2 pod level, cgroup v1, containers only', () => {
  const nonce = 'a1b2c3d4e5f60718';
  const m = (verb: string): string => `@@gpumem:${nonce}:${verb}@@`;
  const v1Pod = '/host/sys/fs/cgroup/memory/kubepods/burstable/pod95387fa4-da9c-11e7-9d36-5254b24cbf5e';
  const containerOnly =
    '/host/sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podbe1e663f_f7a1_4b90_bdfd_bb30afdf7c37.slice';
  const capture = [
    `@@gpumem-probe v=1 scope=node nonce=${nonce} root=/host@@`,
    m('begin cgroup.kubepods'),
    m(`file /host${GTT_POD_CGROUP}/memory.events`),
    'low 0',
    'high 0',
    'max 0',
    'oom 0',
    'oom_kill 1',
    'oom_group_kill 0',
    m(`file /host${GTT_POD_CGROUP}/memory.current`),
    '2147483648',
    m(`file /host${GTT_POD_CGROUP}/memory.max`),
    '17179869184',
    m(`file /host${GTT_POD_CGROUP}/cri-containerd-5e1c0a0f3b3d4c2e9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f.scope/memory.events`),
    'max 0',
    'oom 0',
    'oom_kill 1',
    m(`file ${v1Pod}/memory.oom_control`),
    'oom_kill_disable 0',
    'under_oom 0',
    'oom_kill 4',
    m(`file ${v1Pod}/memory.failcnt`),
    '164324',
    m(`file ${v1Pod}/memory.limit_in_bytes`),
    '9223372036854771712',
    m(`file ${v1Pod}/memory.usage_in_bytes`),
    '536739840',
    m(`file ${containerOnly}/cri-containerd-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.scope/memory.events`),
    'max 0',
    'oom_kill 1',
    m(`file ${containerOnly}/cri-containerd-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.scope/memory.events`),
    'max 2',
    'oom_kill 3',
    m('file /host/sys/fs/cgroup/kubepods.slice/memory.events'),
    'oom_kill 9',
    m('end cgroup.kubepods'),
    m('begin kernel-log'),
    'source=dmesg',
    ...fixture('synthetic-gtt-apu-7.1.log').trimEnd().split('\n'),
    m('end kernel-log'),
    m('done'),
  ].join('\n');
  const parsed = parseCapture(capture);
  assert.deepEqual(parsed.problems, []);
  const pods = podCgroupDataFromFiles(sectionFiles(parsed, 'cgroup.kubepods'));
  const byUid = new Map(pods.map((pod) => [pod.podUid, pod]));
  assert.equal(pods.length, 3, 'the kubepods root is not a pod');
  const gtt = byUid.get(GTT_POD);
  assert.deepEqual(
    gtt?.memoryEvents,
    { low: 0, high: 0, max: 0, oom: 0, oom_kill: 1, oom_group_kill: 0 },
    'the pod level wins over its container',
  );
  assert.equal(gtt?.memoryCurrent, 2147483648);
  assert.deepEqual(gtt?.memoryMax, { kind: 'bytes', bytes: 17179869184 });
  assert.equal(gtt?.cgroupVersion, 2);
  const v1 = byUid.get('95387fa4-da9c-11e7-9d36-5254b24cbf5e');
  assert.deepEqual(v1?.memoryEvents, { oom_kill: 4, max: 164324 });
  assert.deepEqual(v1?.memoryMax, { kind: 'max' });
  assert.equal(v1?.memoryCurrent, 536739840);
  assert.equal(v1?.cgroupVersion, 1);
  assert.deepEqual(byUid.get('be1e663f-f7a1-4b90-bdfd-bb30afdf7c37')?.memoryEvents, { max: 2, oom_kill: 4 }, 'containers summed');

  // The whole flow: capture → kernel log + cgroup data → a strong GTT verdict.
  const log = sectionText(parsed, 'kernel-log') ?? '';
  const { verdicts, log: kernelLog } = explainKernelLogText(log, { pods });
  assert.equal(kernelLog.source, 'dmesg');
  const verdict = global(verdicts[0]);
  assert.equal(verdict.gtt?.strength, 'strong');
  assert.match(verdict.explanation, /memory\.current is 2 GiB of a 16 GiB limit \(13 %\)/);
  // Line numbers count from the section's first line (source=).
  assert.equal(verdict.evidenceLines[0]?.line, 5);
});

// ------------------------------------------------------------------------------------------------
// Every fixture, every verdict.

test('every fixture: one verdict per event, unique ids, one-sentence titles, verbatim evidence, a remedy', () => {
  const names = readdirSync(DIR).filter((name) => name.endsWith('.log'));
  assert.ok(names.length >= 15, `${names.length} fixtures`);
  for (const name of names) {
    const text = fixture(name);
    const lines = text.split('\n');
    const log = parseKernelLog(text);
    const { verdicts } = explainWithinBudget(log.events, undefined, undefined);
    assert.equal(verdicts.length, log.events.length, name);
    assert.equal(new Set(verdicts.map((v) => v.id)).size, verdicts.length, `${name}: ids repeat`);
    for (const verdict of verdicts) {
      assert.match(verdict.id, /^oom\.(global-gtt|global|memcg|unclassified):\d+(\.\d+)?$/);
      assertOneSentence(verdict.title);
      assert.ok(verdict.explanation.length > 40, `${name}: ${verdict.explanation}`);
      assert.ok(verdict.remedy.length > 40, `${name}: ${verdict.remedy}`);
      assert.ok(['error', 'warning', 'info'].includes(verdict.severity));
      assert.ok(verdict.evidence.length > 0, `${name}: no evidence`);
      verdict.evidenceLines.forEach((line, i) => {
        // A record folded over several physical lines (kubedirector-356 is cut at 120 columns) is one evidence line.
        assert.ok(line.text.startsWith(lines[line.line - 1] ?? '\u0000'), `${name}: line ${line.line}`);
        assert.equal(verdict.evidence[i], line.text);
      });
    }
  }
});

test('fuzz: explaining mutated fixtures and random context never throws', () => {
  let seed = 42;
  const random = (): number => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 0x100000000;
  };
  const names = readdirSync(DIR).filter((name) => name.endsWith('.log'));
  for (let round = 0; round < 300; round++) {
    const name = names[round % names.length] ?? '';
    let text = fixture(name);
    const a = Math.floor(random() * text.length);
    text = random() < 0.5 ? text.slice(a) : text.slice(0, a) + '\u0000oom-kill:global_oom,task_memcg=/kubepods/pod' + text.slice(a);
    const pods: PodCgroupData[] = [
      {
        podUid: GTT_POD,
        memoryEvents: { oom_kill: Math.floor(random() * 3), max: Math.floor(random() * 2) },
        memoryCurrent: random() * 1e12,
        memoryMax: random() < 0.5 ? { kind: 'max' } : { kind: 'bytes', bytes: random() * 1e12 },
      },
    ];
    const result = explainKernelLogText(text, { pods, podNames: {} });
    // A verdict may stand for several kills alike (oomRepeats.ts).
    assert.equal(
      result.verdicts.reduce((sum, verdict) => sum + (verdict.repeats?.count ?? 1), 0),
      result.summary.kills,
    );
    assert.equal(result.summary.global + result.summary.memcg + result.summary.unknown, result.summary.kills);
  }
  assert.equal(explainKernelLogText(undefined as unknown as string).verdicts.length, 0);
});

test('a NUMA-constrained kill (CONSTRAINT_CPUSET) names the constraint and the NUMA node, with per-NUMA remedies', () => {
  const verdict = global(explainKernelLogText(fixture('derived-k3s-numa-cpuset.log')).verdicts[0]);
  assert.equal(verdict.constraint, 'CONSTRAINT_CPUSET');
  assert.equal(verdict.victim.podUid, 'be1e663f-f7a1-4b90-bdfd-bb30afdf7c37');
  assert.match(verdict.title, /^The memory of NUMA node 1 ran out, not the whole node's: .*cpuset\.mems\) \(CONSTRAINT_CPUSET\)/);
  assert.doesNotMatch(verdict.title, /The node ran out of memory/);
  assert.match(verdict.explanation, /Memory Manager \(Static policy\) or a single-numa-node Topology Manager policy/);
  assert.match(verdict.remedy, /--reserved-memory/);
  assert.match(verdict.remedy, /\/sys\/devices\/system\/node\/node\*\/meminfo/);
  assert.doesNotMatch(verdict.remedy, /Set the memory requests of the pods on this node/, 'not the node-wide remedy');
});

test('a memory-policy kill (CONSTRAINT_MEMORY_POLICY) names the nodemask', () => {
  const text = fixture('derived-k3s-numa-cpuset.log').replace(
    'constraint=CONSTRAINT_CPUSET,nodemask=(null),',
    'constraint=CONSTRAINT_MEMORY_POLICY,nodemask=0-1,',
  );
  const verdict = global(explainKernelLogText(text).verdicts[0]);
  assert.match(
    verdict.title,
    /^The memory of NUMA nodes 0-1 ran out, .*memory policy \(mbind \/ set_mempolicy\) \(CONSTRAINT_MEMORY_POLICY\)/,
  );
});

test('an unconstrained global kill keeps the node-wide words', () => {
  const verdict = global(explainKernelLogText(fixture('k3s-blog-syslog-global-pod.log')).verdicts[0]);
  assert.doesNotMatch(verdict.title, /NUMA/);
});
