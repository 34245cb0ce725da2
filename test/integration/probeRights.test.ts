// The node probe records its own rights on the machine it runs on: run for real on this machine (no chroot, so
// /proc/self/status and /proc/sys/kernel/dmesg_restrict are the kernel's) as nobody with and without CAP_SYS_PTRACE,
// through util-linux's setpriv. Each run takes a fraction of a second. Needs root (to drop to nobody) and setpriv.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { buildProbeScript, newNonce } from '../../src/core/probe/script.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';

const root = process.getuid?.() === 0;
const setpriv = spawnSync('setpriv', ['--version'], { encoding: 'utf8' }).status === 0;

function probeAsNobody(extraCaps: readonly string[], scope: 'node' | 'container' = 'node'): string {
  const script = buildProbeScript(scope === 'node' ? { scope, nonce: newNonce(), hostRoot: '' } : { scope, nonce: newNonce() });
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

// The container probe records the same, and its processes' refused maps and environ say why from it. Run on this
// machine's own processes (the probe's scope is its PID namespace): pid 1 belongs to root, so nobody is refused its
// maps without CAP_SYS_PTRACE, and its environ (mode 0400) with it too.
describe(
  'the container probe records its rights and says why it was refused',
  { skip: !root || !setpriv ? 'needs root and setpriv' : false },
  () => {
    const pid1 = statSync('/proc/1');
    const environMode = statSync('/proc/1/environ').mode & 0o777;

    test(
      "as nobody: CapEff 0, and the maps and environ of root's processes are an unread input with that cause",
      { timeout: 60_000 },
      () => {
        assert.equal(pid1.uid, 0, "oracle: pid 1 is root's");
        const text = probeAsNobody([], 'container');
        assert.match(text, /^cap_eff=0000000000000000$/m);
        const inspection = analyzeCaptureText(text, { target: 'nobody' });
        assert.deepEqual(inspection.container?.probeRights.capabilities, {
          kind: 'known',
          hex: '0000000000000000',
          sysPtrace: false,
          syslog: false,
        });
        const unread = inspection.sight.kind === 'partial' ? inspection.sight.unread : [];
        const maps = unread.find((input) => input.id === 'process-maps');
        assert.ok(maps, 'the refused maps are an unread input');
        assert.match(
          maps.why,
          /maps were refused \(pid 1[,)].*the probe ran as uid 65534 without CAP_SYS_PTRACE \(CapEff 0000000000000000\)/,
        );
        assert.ok(Array.isArray(maps.unknownVerdicts) && maps.unknownVerdicts.includes('hami.loaded'));
      },
    );

    test("as nobody with CAP_SYS_PTRACE: bit 19; pid 1's environ (owner-only) is still refused, and said so", { timeout: 60_000 }, () => {
      assert.equal(environMode, 0o400, 'oracle: environ is owner-only');
      const text = probeAsNobody(['--inh-caps=+sys_ptrace', '--ambient-caps=+sys_ptrace'], 'container');
      assert.match(text, /^cap_eff=0000000000080000$/m);
      const inspection = analyzeCaptureText(text, { target: 'nobody' });
      const maps = (inspection.sight.kind === 'partial' ? inspection.sight.unread : []).find((input) => input.id === 'process-maps');
      assert.ok(maps);
      assert.doesNotMatch(maps.why, /without CAP_SYS_PTRACE/);
      assert.match(maps.why, /environ were refused \(pid 1[,)].*mode 0400.*CAP_DAC_READ_SEARCH/);
    });
  },
);
