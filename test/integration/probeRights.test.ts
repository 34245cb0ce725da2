// The node probe records its own rights on the machine it runs on: run for real on this machine (no chroot, so
// /proc/self/status and /proc/sys/kernel/dmesg_restrict are the kernel's) as nobody with and without CAP_SYS_PTRACE,
// through util-linux's setpriv. Each run takes a fraction of a second. Needs root (to drop to nobody) and setpriv.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { buildProbeScript, newNonce } from '../../src/core/probe/script.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';

const root = process.getuid?.() === 0;
const setpriv = spawnSync('setpriv', ['--version'], { encoding: 'utf8' }).status === 0;

function probeAsNobody(extraCaps: readonly string[]): string {
  const script = buildProbeScript({ scope: 'node', nonce: newNonce(), hostRoot: '' });
  const run = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...extraCaps, 'sh', '-s'], {
    input: script,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

describe('the probe records dmesg_restrict and its capabilities', { skip: !root || !setpriv ? 'needs root and setpriv' : false }, () => {
  // The oracle: the sysctl as this test reads it, and CapEff as include/uapi/linux/capability.h numbers the bits.
  const restrict = Number(readFileSync('/proc/sys/kernel/dmesg_restrict', 'utf8').trim());

  test('as nobody: no capability, the sysctl as the kernel has it', { timeout: 60_000 }, () => {
    const text = probeAsNobody([]);
    assert.match(text, /^cap_eff=0000000000000000$/m);
    assert.match(text, new RegExp(`^dmesg_restrict=${restrict}$`, 'm'));
    const model = analyzeCaptureText(text, { target: 'nobody' }).node?.model;
    assert.deepEqual(model?.probeRights.capabilities, { kind: 'known', hex: '0000000000000000', sysPtrace: false, syslog: false });
    assert.equal(model?.probeRights.dmesgRestrict, restrict);
  });

  test('as nobody with CAP_SYS_PTRACE (ambient): bit 19, and the probe is not taken for fd-blind', { timeout: 60_000 }, () => {
    const text = probeAsNobody(['--inh-caps=+sys_ptrace', '--ambient-caps=+sys_ptrace']);
    assert.match(text, /^cap_eff=0000000000080000$/m);
    const inspection = analyzeCaptureText(text, { target: 'nobody' });
    assert.equal(
      inspection.node?.model.probeRights.capabilities.kind === 'known' && inspection.node.model.probeRights.capabilities.sysPtrace,
      true,
    );
    const unread = inspection.sight.kind === 'partial' ? inspection.sight.unread.map((input) => input.input) : [];
    assert.equal(
      unread.some((input) => input.startsWith("other processes' /proc")),
      false,
    );
  });
});
