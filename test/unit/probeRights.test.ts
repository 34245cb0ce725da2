// What the probe recorded about its own rights (kernel.dmesg_restrict, CapEff) and what the reports say from it
// instead of guessing: a real capture of this machine taken as nobody holding CAP_SYS_PTRACE
// (test/fixtures/captures/this-machine-nobody-sys-ptrace.source.md), and the older capture without those lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { unreadOf } from '../../src/core/inspectionRun/sight.ts';
import { probeRightsOf } from '../../src/core/probe/probeRights.ts';
import { inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { nodeCapture, podUid } from './helpers/nodeCapture.ts';

const capture = (name: string) => readFileSync(new URL(`../fixtures/captures/${name}`, import.meta.url), 'utf8');
const PTRACE = capture('this-machine-nobody-sys-ptrace.txt');
const OLDER = capture('this-machine-as-nobody.txt');
const GiB = 1024 ** 3;

test('the meta lines are read: dmesg_restrict, and CapEff with CAP_SYS_PTRACE (bit 19) and CAP_SYSLOG (bit 34)', () => {
  const model = analyzeCaptureText(PTRACE, { target: 'nobody' }).node?.model;
  assert.equal(model?.probeUid, '65534');
  assert.deepEqual(model?.probeRights, {
    dmesgRestrict: 1,
    capabilities: { kind: 'known', hex: '0000000000080000', sysPtrace: true, syslog: false },
  });
  // A root with every capability this kernel knows (this machine's root shell: CapEff 000001fffeffffff).
  assert.deepEqual(probeRightsOf(new Map([['cap_eff', '000001fffeffffff']])).capabilities, {
    kind: 'known',
    hex: '000001fffeffffff',
    sysPtrace: true,
    syslog: true,
  });
  // An older probe's capture records neither; a malformed value is not trusted.
  assert.deepEqual(analyzeCaptureText(OLDER, { target: 'nobody' }).node?.model.probeRights, {
    dmesgRestrict: undefined,
    capabilities: { kind: 'unrecorded' },
  });
  assert.deepEqual(
    probeRightsOf(
      new Map([
        ['cap_eff', '80000'],
        ['dmesg_restrict', 'yes'],
      ]),
    ),
    {
      dmesgRestrict: undefined,
      capabilities: { kind: 'unrecorded' },
    },
  );
});

test('the unread kernel log says what the probe recorded: dmesg_restrict=1 read, CAP_SYSLOG missing', () => {
  const inspection = analyzeCaptureText(PTRACE, { target: 'nobody' });
  const unread = unreadOf(inspection.sight);
  assert.equal(unread[0]?.input, 'the kernel log (OOM kills)');
  assert.match(
    unread[0]?.why ?? '',
    /^dmesg was refused: kernel\.dmesg_restrict is 1 on this machine \(read from \/proc\/sys\/kernel\/dmesg_restrict\) and the probe's processes lack CAP_SYSLOG \(CapEff 0000000000080000 \(the probe ran as uid 65534, not root\)\)/,
  );
  // No GPU and no pod here: the fd sweep has nothing to miss.
  assert.equal(unread.length, 1);
});

/** A node with a GPU pod, its meta lines those of a probe run as `uid` with CapEff `capEff` (or none recorded). */
function podNode(uid: string, capEff: string | undefined): string {
  const text = nodeCapture({
    kernel: '6.18.0',
    memTotal: 64 * GiB,
    kernelLog: '',
    pods: [{ uid: podUid(1), current: 2 * GiB, max: 8 * GiB }],
  });
  return text.replace('uid=0\n', `uid=${uid}\n${capEff !== undefined ? `cap_eff=${capEff}\n` : ''}`);
}

test('a non-root probe with CAP_SYS_PTRACE is not called fd-blind; one without, or root without it, is', () => {
  const fdUnread = (text: string) =>
    unreadOf(analyzeCaptureText(text, { target: 'node' }).sight).find((input) => input.input.startsWith("other processes' /proc"));
  // CapEff as this machine's nobody-with-CAP_SYS_PTRACE run recorded it.
  const recorded = /^cap_eff=(\w+)$/m.exec(PTRACE)?.[1];
  assert.equal(recorded, '0000000000080000');
  assert.equal(fdUnread(podNode('65534', recorded)), undefined);
  assert.match(fdUnread(podNode('65534', '0000000000000000'))?.why ?? '', /uid 65534 without CAP_SYS_PTRACE \(CapEff 0000000000000000\)/);
  // The general debug profile: root with the default container capabilities, no CAP_SYS_PTRACE (bit 19 clear).
  const general = fdUnread(podNode('0', '00000000a80425fb'));
  assert.match(general?.why ?? '', /root without CAP_SYS_PTRACE \(CapEff 00000000a80425fb\)/);
  assert.match(general?.remedy ?? '', /--profile=sysadmin/);
  // Not recorded (an older probe): as before, uid alone decides.
  assert.match(fdUnread(podNode('65534', undefined))?.why ?? '', /uid 65534, not root/);
  assert.equal(fdUnread(podNode('0', undefined)), undefined);
  assert.doesNotMatch(inspectionToText(analyzeCaptureText(podNode('65534', recorded), { target: 'node' })), /NOT READ other processes/);
});
