// Kernel logs as they reach a ticket, and the victim's pod through them. Every variant is derived from a real log in
// test/fixtures/kernel-logs (provenance in its .source.md): the printk caller field of a CONFIG_PRINTK_CALLER kernel
// (kernel/printk/printk.c, print_caller), Markdown and e-mail quote markers, records folded at a fixed width into
// column 0 (`fold -w`, a terminal copy), and lines cut at the terminal width (journalctl's pager, `less -S`). The
// property versions of these are in test/fuzz/kernelLog.fuzz.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import { oomToJson, oomToMarkdown, oomToText } from '../../src/core/report/oomReport.ts';
import type { OomVerdict } from '../../src/core/verdicts/oom/oomVerdictTypes.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/kernel-logs/${name}`, import.meta.url), 'utf8');
const COURSE = fixture('course-dmesg-global-oom-group-6.1.log');
const K3S = fixture('k3s-blog-syslog-global-pod.log');
const GPUD = fixture('gpud-70-journal-precise-memcg.log').trim();

const victims = (text: string) =>
  explainKernelLogText(text).verdicts.map(
    (v) => `${v.kind} ${v.victim.pid} ${v.victim.comm} ${v.victim.podUid ?? v.victim.placement.kind}`,
  );

test('the printk caller field after the time ([ T45678], [    C3]) is not part of the message', () => {
  const expected = victims(COURSE);
  assert.deepEqual(expected, ['global 10843 prometheus-conf 3902af1e-8ce1-42e1-a2a5-dc04f4240c4f', 'global 115727 memory_leak unknown']);
  let n = 0;
  const withCaller = (glue: string) =>
    COURSE.split('\n')
      .map((line) =>
        line.replace(
          /^(\[ *\d+\.\d+\])( ?)/,
          (_all, time: string) => `${time}${glue}[${`${n++ % 2 ? 'C' : 'T'}${4567 + n}`.padStart(6)}] `,
        ),
      )
      .join('\n');
  // The kernel's console format has no blank between the two brackets; util-linux dmesg prints one.
  assert.deepEqual(victims(withCaller('')), expected);
  assert.deepEqual(victims(withCaller(' ')), expected);
  // /dev/kmsg carries the caller in the record's header.
  assert.deepEqual(
    victims(
      '6,2001,147377885,-,caller=T45678;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice,task=a,pid=7,uid=0',
    ),
    ['global 7 a outside-pods'],
  );
});

test('Markdown and e-mail quote markers (> , >, > > ) are taken off every line', () => {
  const expected = victims(K3S);
  assert.deepEqual(expected, ['global 19227 entry be1e663f-f7a1-4b90-bdfd-bb30afdf7c37']);
  const lines = K3S.split('\n');
  assert.deepEqual(victims(lines.map((line) => `> ${line}`).join('\n')), expected);
  assert.deepEqual(victims(lines.map((line) => `>${line}`).join('\n')), expected);
  assert.deepEqual(victims(lines.map((line) => `> > ${line}`).join('\n')), expected);
  assert.deepEqual(victims(['> ```', ...lines.map((line) => `> ${line}`), '> ```'].join('\n')), expected);
  // Quoted after an editor re-wrapped the long records (continuations indented inside the quote).
  const rewrapped = lines.flatMap((line) => {
    const pieces = [line.slice(0, 90)];
    for (let at = 90; at < line.length; at += 86) pieces.push(`    ${line.slice(at, at + 86)}`);
    return pieces;
  });
  assert.deepEqual(victims(rewrapped.map((line) => `> ${line}`).join('\n')), expected);
});

test('records folded at a fixed width into column 0 are joined back', () => {
  const expected = victims(COURSE);
  for (const width of [80, 100, 132]) {
    const folded = COURSE.split('\n')
      .flatMap((line) => {
        const pieces: string[] = [];
        for (let at = 0; at < line.length; at += width) pieces.push(line.slice(at, at + width));
        return pieces.length > 0 ? pieces : [''];
      })
      .join('\n');
    assert.deepEqual(victims(folded), expected, `folded at ${width}`);
  }
});

test('a summary line cut at the terminal width: the pod is named, unnamed or unknown, never "outside any pod"', () => {
  const [summary, ...rest] = K3S.split('\n');
  const cutAt = (width: number) => [summary?.slice(0, width), ...rest].join('\n');
  const placementAt = (width: number) => explainKernelLogText(cutAt(width)).verdicts[0]?.victim.placement.kind;
  const line = summary ?? '';
  const path = line.indexOf('task_memcg=/kubepods') + 'task_memcg='.length;
  // Past the pod UID: the pod is named; inside the kubepods path: a pod the log does not name; before it: unknown.
  assert.equal(placementAt(line.indexOf(',task=')), 'pod');
  assert.equal(placementAt(path + '/kubepods/besteffort/podbe1e663f'.length), 'pod-unnamed');
  assert.equal(placementAt(path + 4), 'unknown');
  assert.equal(placementAt(line.indexOf(',task_memcg=')), 'unknown');
  const unknown = explainKernelLogText(cutAt(path + 4)).verdicts[0];
  assert.match(unknown?.title ?? '', /the log does not say whether it ran in a pod \(its cgroup path is cut short in the log \(\/kub\)\)/);
  assert.doesNotMatch(unknown?.title ?? '', /outside any pod/);
  // journalctl --no-full ellipsizes instead.
  assert.equal(explainKernelLogText([`${line.slice(0, path + 4)}…`, ...rest].join('\n')).verdicts[0]?.victim.placement.kind, 'unknown');
});

test('a cut path with the cpuset of a Kubernetes container or a kubelet oom_score_adj: in a pod, or probably', () => {
  // gpud#70's memcg line cut before oom_memcg: its cpuset is the container's scope (the allocating task is the victim in a memcg kill).
  const memcg = explainKernelLogText(GPUD.slice(0, GPUD.indexOf(',oom_memcg='))).verdicts[0];
  assert.equal(memcg?.victim.placement.kind, 'pod-unnamed');
  assert.match(
    memcg?.victim.placement.kind === 'pod-unnamed' ? memcg.victim.placement.why : '',
    /cpuset cri-containerd-ec9ee26695de.*\.scope is a Kubernetes container's/,
  );
  // The course log's first kill, its summary cut before task_memcg (a narrower pager), the oom.group line left out:
  // oom_score_adj 997 is a Burstable/BestEffort pod's score, so "probably in a pod", not "outside any pod".
  const lines = COURSE.split('\n');
  const first = [(lines[0] ?? '').slice(0, (lines[0] ?? '').indexOf(',task_memcg=')), lines[1]].join('\n');
  const global = explainKernelLogText(first).verdicts[0];
  assert.equal(global?.victim.placement.kind, 'unknown');
  assert.match(
    global?.title ?? '',
    /probably in a pod: its oom_score_adj 997 is in the range the kubelet gives Burstable and BestEffort pods/,
  );
  assert.doesNotMatch(global?.title ?? '', /outside any pod/);
});

/** Thirty restarts of one container, each killed at its limit: gpud#70's real line with a new time, pid and container id each time. */
function crashLoop(kills: number): string {
  const out: string[] = [];
  for (let i = 0; i < kills; i++) {
    const id = (i.toString(16) + 'ec9ee26695deb4cc72bc665efff1cf3a03fdfb12f1303e02fe9252985e084a95').slice(0, 64);
    out.push(
      GPUD.replace('06:58:55', `06:${String(10 + i).padStart(2, '0')}:55`)
        .replaceAll('ec9ee26695deb4cc72bc665efff1cf3a03fdfb12f1303e02fe9252985e084a95', id)
        .replace('pid=461754', `pid=${461754 + i * 7}`),
    );
  }
  return out.join('\n');
}

test('thirty kills of one container are one verdict with the count, the first and the last time, in every format', () => {
  const explanation = explainKernelLogText(crashLoop(30));
  assert.equal(explanation.summary.kills, 30);
  assert.equal(explanation.verdicts.length, 1);
  const verdict = explanation.verdicts[0] as OomVerdict;
  assert.deepEqual(
    { count: verdict.repeats?.count, first: verdict.repeats?.first, last: verdict.repeats?.last },
    { count: 30, first: 'Aug 30 06:10:55.050705', last: 'Aug 30 06:39:55.050705' },
  );
  assert.match(verdict.title, /\(30 such kills, first at Aug 30 06:10:55\.050705, last at Aug 30 06:39:55\.050705\)\.$/);
  const text = oomToText(explanation, 'loop.log');
  const markdown = oomToMarkdown(explanation, 'loop.log');
  const json = JSON.stringify(oomToJson(explanation, 'loop.log'));
  for (const [name, out] of [
    ['text', text],
    ['Markdown', markdown],
  ] as const) {
    assert.equal(out.split('30 such kills').length - 1, 1, name);
    assert.equal(out.split(/remedy:|\*\*Remedy:\*\*/).length - 1, 1, `${name}: one remedy`);
  }
  assert.match(json, /"repeats":\{"count":30,"first":"Aug 30 06:10:55\.050705","last":"Aug 30 06:39:55\.050705","lines":\[1,2,3,/);
  // Two different pods are two verdicts.
  const other = crashLoop(2).replaceAll('eded8c65', 'fdfd8c65').replaceAll('eded8c65'.replaceAll('_', '-'), 'fdfd8c65');
  assert.equal(explainKernelLogText(`${crashLoop(3)}\n${other}`).verdicts.length, 2);
});
