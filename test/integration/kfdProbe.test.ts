// The real node probe's `kfd` section (src/core/probe/scripts/nodeScript.ts) under busybox ash and dash in an APU
// fixture root (test/helpers/fixtureRoot.ts) to which this test adds what a KFD node has: per-process evicted_ms
// and each KFD process's /proc/<pid>/stat (one with a comm that holds `)`, spaces and a newline). The counters
// advance between two probe runs (the files are rewritten in between, as the node's kernel would), one of them
// backwards with a new start time (a restart); the light probe of live sampling reads the same section.
//
// Needs root (chroot, mknod). Every root is removed in after().
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseCapture, sectionFiles } from '../../src/core/probe/capture.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { parseKfd } from '../../src/core/probe/parsers/kfd.ts';
import { buildLightProbeScript } from '../../src/core/probe/scripts/lightScript.ts';
import { newNonce } from '../../src/core/probe/script.ts';
import { sampleEvictions } from '../../src/core/verdicts/eviction/kfdEviction.ts';
import { LocalTransport } from '../../src/transports/local.ts';
import { buildApuNode, fixtureRootsUnavailable, MiB } from '../helpers/fixtureRoot.ts';
import type { ApuFacts, Fixture, FixtureShell } from '../helpers/fixtureRoot.ts';
import { procStat } from '../unit/helpers/kfdCapture.ts';

const SKIP = fixtureRootsUnavailable() ?? false;
const SHELLS: readonly FixtureShell[] = ['busybox', 'dash'];
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
const T = { timeout: 120_000 };
/** The fixture's /proc/uptime: 1986431.82 s. */
const UPTIME = 1986431;
const OTHER_POD =
  '0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0c3d9e1f_2a4b_4c5d_8e6f_7a8b9c0d1e2f.slice/cri-containerd-' +
  'b'.repeat(64) +
  '.scope\n';
const EVIL = 'evil) R 1 2\n5202/cgroup:0::/forged';

function write(fixture: Fixture<ApuFacts>, path: string, text: string): void {
  const file = join(fixture.root, fixture.hostRoot, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, { mode: 0o444 });
}

/** KFD state: 4101 (the fixture's pod process) and 5202 (another pod), with evicted_ms and start times. */
function kfdState(fixture: Fixture<ApuFacts>, state: { a: number; b: number; bAge: number }): void {
  write(fixture, '/sys/class/kfd/kfd/proc/4101/stats_40087/evicted_ms', `${state.a}\n`);
  write(fixture, '/proc/4101/stat', procStat(4101, EVIL, (UPTIME - 3600) * 100));
  write(fixture, '/sys/class/kfd/kfd/proc/5202/vram_40087', `${64 * MiB}\n`);
  write(fixture, '/sys/class/kfd/kfd/proc/5202/stats_40087/evicted_ms', `${state.b}\n`);
  write(fixture, '/proc/5202/stat', procStat(5202, 'llama-server', (UPTIME - state.bAge) * 100));
  write(fixture, '/proc/5202/cgroup', OTHER_POD);
}

async function probe(fixture: Fixture<ApuFacts>, script?: string) {
  const transport = new LocalTransport({ command: ['chroot', fixture.root, '/bin/sh', '-s'], env: ENV });
  try {
    if (script !== undefined) return (await transport.run({ script, timeoutMs: 60_000, maxOutputBytes: 8 * 1024 * 1024 })).stdout;
    return (await runProbe(transport, { scope: 'node', hostRoot: fixture.hostRoot, timeoutMs: 90_000 })).captureText;
  } finally {
    await transport.close();
  }
}

for (const shell of SHELLS) {
  describe(`kfd section in a fixture root, /bin/sh = ${shell}`, { skip: SKIP }, () => {
    let fixture: Fixture<ApuFacts>;
    before(() => {
      fixture = buildApuNode({ shell });
    });
    after(() => fixture?.cleanup());

    test('one capture: lifetime rates per process and pod, the hostile comm forges nothing, ping-pong named', T, async () => {
      kfdState(fixture, { a: 180_000, b: 90_000, bAge: 1800 });
      const text = await probe(fixture);
      const capture = parseCapture(text);
      const files = sectionFiles(capture, 'kfd');
      assert.ok(
        [...files.keys()].some((path) => path.endsWith('/proc/kfd-pids')),
        `the batched read: ${[...files.keys()].join(', ')}`,
      );
      const kfd = parseKfd(files);
      assert.deepEqual(kfd.problems, []);
      const inspection = analyzeCaptureText(text, { target: 'fixture' });
      const rows = inspection.node?.kfd.processes ?? [];
      const a = rows.find((row) => row.pid === 4101);
      const b = rows.find((row) => row.pid === 5202);
      assert.equal(a?.podUid, fixture.facts.podUid);
      assert.equal(a?.comm, EVIL.replace('\n', '\t'));
      assert.ok(a?.ratePerSecond !== undefined && Math.abs(a.ratePerSecond - 50) < 0.1, `4101: ${a?.ratePerSecond}`);
      assert.equal(b?.podUid, '0c3d9e1f-2a4b-4c5d-8e6f-7a8b9c0d1e2f', 'the forged cgroup line in 4101’s comm is not 5202’s');
      assert.ok(b?.ratePerSecond !== undefined && Math.abs(b.ratePerSecond - 50) < 0.1);
      const verdict = inspection.verdicts.find((v) => v.id === 'vram.eviction-thrashing');
      assert.ok(verdict, inspection.verdicts.map((v) => v.id).join(', '));
      assert.match(verdict.title, /pid 4101/);
      assert.match(verdict.title, /pid 5202/);
    });

    test('two samples: the counters advance between them, a restart resets; the light probe reads the section too', T, async () => {
      kfdState(fixture, { a: 180_000, b: 90_000, bAge: 1800 });
      const first = parseKfd(sectionFiles(parseCapture(await probe(fixture)), 'kfd'));
      kfdState(fixture, { a: 180_400, b: 30, bAge: 2 });
      const light = await probe(fixture, buildLightProbeScript({ nonce: newNonce(), hostRoot: fixture.hostRoot }));
      const second = parseKfd(sectionFiles(parseCapture(light), 'kfd'));
      const window = sampleEvictions(first, second, 5);
      const a = window.processes.find((row) => row.pid === 4101);
      const b = window.processes.find((row) => row.pid === 5202);
      assert.equal(a?.windowMs, 400);
      assert.equal(a?.ratePerSecond, 80);
      assert.equal(b?.reset, true);
      assert.equal(b?.windowMs, 30);
      assert.ok(window.processes.every((row) => row.ratePerSecond === undefined || row.ratePerSecond >= 0));
    });
  });
}
