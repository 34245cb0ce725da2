// The node probe's NVIDIA part, end to end: the real script in a chroot fixture root (the HAMi NVIDIA node
// of fixtureRoot.ts) with a stub nvidia-smi that prints recorded output (test/helpers/nvidiaSmiRoot.ts),
// through LocalTransport, then the analysis. Runs as root (chroot, mknod), like nodeProbe.test.ts.
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Inspection } from '../../src/core/inspectionRun/analyze.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { sectionFiles } from '../../src/core/probe/capture.ts';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { parseSmiPids } from '../../src/core/probe/parsers/nvidiaSmiPids.ts';
import { LocalTransport } from '../../src/transports/local.ts';
import { sampleFromCapture } from '../../src/core/inspectorPanel/sample.ts';
import { buildLightProbeScript } from '../../src/core/probe/scripts/lightScript.ts';
import { newNonce } from '../../src/core/probe/script.ts';
import type { Fixture, FixtureShell } from '../helpers/fixtureRoot.ts';
import { fixtureRootsUnavailable, MiB } from '../helpers/fixtureRoot.ts';
import type { HamiNvidiaFacts, NvidiaSmiMode } from '../helpers/nvidiaSmiRoot.ts';
import { buildHamiNvidiaNode } from '../helpers/nvidiaSmiRoot.ts';

const SKIP = fixtureRootsUnavailable() ?? false;
const T = { timeout: 120_000 };
const cleanups: Array<() => void> = [];
after(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function fixture(mode: NvidiaSmiMode, shell: FixtureShell = 'busybox'): Fixture<HamiNvidiaFacts> {
  const built = buildHamiNvidiaNode(mode, { shell });
  cleanups.push(() => built.cleanup());
  return built;
}

async function probe(root: Fixture<HamiNvidiaFacts>): Promise<{ text: string; stderr: string; inspection: Inspection }> {
  const transport = new LocalTransport({ command: ['chroot', root.root, '/bin/sh', '-s'], env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
  try {
    const run = await runProbe(transport, { scope: 'node', hostRoot: root.hostRoot, timeoutMs: 90_000 });
    return { text: run.captureText, stderr: run.exec.stderr, inspection: analyzeCaptureText(run.captureText, { target: 'fixture' }) };
  } finally {
    await transport.close();
  }
}

/** The environ of every pid came from the one grep: HAMi's variables only, nothing forged, grep's rc 0. */
function assertOneGrep(capture: ReturnType<typeof parseCapture>, root: Fixture<HamiNvidiaFacts>, prefix = ''): void {
  const pids = sectionFiles(capture, 'nvidia-smi.pids');
  const { enforced, bypassed } = root.facts;
  assert.equal(
    pids.get(`${prefix}/proc/environ-keys`),
    [
      `${enforced.hostPid}/environ:CUDA_DEVICE_MEMORY_LIMIT_0=8192m`,
      `${enforced.hostPid}/environ:CUDA_DEVICE_MEMORY_SHARED_CACHE=/usr/local/vgpu/${enforced.podUid}.cache`,
      `${bypassed.hostPid}/environ:CUDA_DEVICE_MEMORY_LIMIT_0=8192m`,
      `${bypassed.hostPid}/environ:CUDA_DISABLE_CONTROL=true`,
      '',
    ].join('\n'),
  );
  assert.equal(pids.get(`${prefix}/proc/environ-status`), 'rc 0\n');
  assert.match(pids.get(`${prefix}/proc/pid-cgroups`) ?? '', new RegExp(`^${enforced.hostPid}/cgroup:0::/kubepods\\.slice/.*\\t\\n`, 'm'));
  assert.equal(pids.get(`${prefix}/proc/${enforced.hostPid}/environ`), undefined, 'no per-pid environ record');
}

/** The quota verdicts of the HAMi NVIDIA node: one exceeded (the bypassed pod), one held. */
function assertQuotaVerdicts(inspection: Inspection): void {
  assert.deepEqual(
    inspection.verdicts
      .filter((v) => v.id.startsWith('hami.quota-'))
      .map((v) => v.id)
      .sort(),
    ['hami.quota-exceeded', 'hami.quota-held'],
  );
}

describe('node probe with nvidia-smi (stub) on a HAMi node', { skip: SKIP }, () => {
  for (const shell of ['busybox', 'dash'] as const) {
    test(`${shell}: per-pod VRAM from nvidia-smi, quota exceeded and held, no secret leaves the node`, T, async () => {
      const root = fixture('host', shell);
      const run = await probe(root);
      assert.equal(run.stderr, '', 'the script wrote to stderr');
      const capture = parseCapture(run.text);
      assert.equal(capture.complete, true);
      assert.deepEqual(capture.problems, []);
      for (const secret of root.facts.secrets) assert.equal(run.text.includes(secret), false, `${secret} left the node`);
      assert.equal(run.text.includes('99999m'), false, 'a newline in a value cannot forge a limit line');
      assertOneGrep(capture, root);
      assert.equal(capture.sections.has('nvidia-smi.table'), false, 'the queries worked: no table');

      const node = run.inspection.node;
      assert.ok(node);
      assert.equal(node.nvidia.node.kind, 'read');
      const enforced = node.pods.find((pod) => pod.podUid === root.facts.enforced.podUid);
      const bypassed = node.pods.find((pod) => pod.podUid === root.facts.bypassed.podUid);
      assert.equal(enforced?.vram, root.facts.enforcedUsedMiB * MiB);
      assert.equal(bypassed?.vram, root.facts.bypassedUsedMiB * MiB);
      assert.equal(enforced?.gtt, 0, 'a discrete GPU: VRAM, not GTT');
      assert.deepEqual(
        node.nvidia.nodeProcesses.map((p) => p.pid),
        [root.facts.hostPid],
        'the host service is the node’s',
      );

      const exceeded = run.inspection.verdicts.filter((v) => v.id === 'hami.quota-exceeded');
      assert.equal(exceeded.length, 1);
      assert.match(exceeded[0]?.title ?? '', /uses 12\.5 GiB of its 8 GiB quota on GPU 0/);
      assert.ok(
        exceeded[0]?.evidence.some((line) => line.includes('CUDA_DISABLE_CONTROL=true')),
        'the bypass evidence',
      );
      assert.ok(
        exceeded[0]?.evidence.some((line) => line.startsWith('node: ')),
        'the node-side HAMi facts join it',
      );
      const held = run.inspection.verdicts.filter((v) => v.id === 'hami.quota-held');
      assert.equal(held.length, 1);
      assert.match(held[0]?.title ?? '', /uses 6 GiB of its 8 GiB quota on GPU 0: within it, 2 GiB left/);
      assert.equal(run.inspection.verdicts[0]?.id, 'hami.quota-exceeded', 'the error comes first');

      // Every report carries the table of HAMi pods and the per-pod GPU memory.
      const markdown = inspectionToMarkdown(run.inspection);
      assert.match(markdown, /HAMi quotas on this node/);
      assert.match(markdown, /exceeded/);
      assert.match(inspectionToText(run.inspection), /GPU 0: 12\.5 GiB of 8 GiB quota/);
      const json = JSON.parse(JSON.stringify(inspectionToJson(run.inspection))) as {
        node: { hamiQuotas: { status: string }[]; nvidia: { kind: string } };
      };
      assert.deepEqual(json.node.hamiQuotas.map((row) => row.status).sort(), ['exceeded', 'held']);
      assert.equal(json.node.nvidia.kind, 'read');
    });
  }

  test('this machine’s dash, GNU grep and coreutils read the fixture’s /proc the same way', T, async () => {
    const root = fixture('host');
    const transport = new LocalTransport({
      command: ['/bin/sh', '-s'],
      env: { PATH: `/usr/sbin:/usr/bin:/sbin:/bin:${join(root.root, 'usr/bin')}` },
    });
    try {
      const run = await runProbe(transport, { scope: 'node', hostRoot: root.root, timeoutMs: 90_000 });
      const capture = parseCapture(run.captureText);
      assert.equal(capture.complete, true);
      for (const secret of root.facts.secrets) assert.equal(run.captureText.includes(secret), false, `${secret} left the node`);
      assert.equal(run.captureText.includes('99999m'), false, 'a newline in a value cannot forge a limit line');
      assertOneGrep(capture, root, root.root);
      assertQuotaVerdicts(analyzeCaptureText(run.captureText, { target: 'fixture' }));
    } finally {
      await transport.close();
    }
  });

  test('a grep without -z: one tr | grep per pid, the same variables and verdicts', T, async () => {
    const root = fixture('host');
    // A TEST DOUBLE of an older grep that has no -z (toybox's before 0.8, some embedded builds).
    mkdirSync(join(root.root, 'usr/sbin'), { recursive: true });
    writeFileSync(
      join(root.root, 'usr/sbin/grep'),
      '#!/bin/sh\n# TEST DOUBLE: a grep without -z.\ncase " $* " in *" -z "*|*" -"[!-]*z*) echo "grep: invalid option -- z" >&2; exit 2 ;; esac\nexec busybox grep "$@"\n',
      { mode: 0o755 },
    );
    const run = await probe(root);
    assert.equal(run.stderr, '', 'the script wrote to stderr');
    const pids = sectionFiles(parseCapture(run.text), 'nvidia-smi.pids');
    assert.equal(pids.has('/proc/environ-keys'), false);
    assert.equal(pids.get(`/proc/${root.facts.bypassed.hostPid}/environ`), 'CUDA_DEVICE_MEMORY_LIMIT_0=8192m\nCUDA_DISABLE_CONTROL=true\n');
    assert.equal(run.text.includes('99999m'), false, 'a newline in a value cannot forge a limit line');
    for (const secret of root.facts.secrets) assert.equal(run.text.includes(secret), false, `${secret} left the node`);
    assertQuotaVerdicts(run.inspection);
  });

  test('no awk on the node (dash: busybox ash would run its applet): the loop over the pids, the same verdicts', T, async () => {
    const root = fixture('host', 'dash');
    for (const dir of ['bin', 'usr/bin', 'sbin', 'usr/sbin']) rmSync(join(root.root, dir, 'awk'), { force: true });
    const run = await probe(root);
    assert.equal(run.stderr, '', 'the script wrote to stderr');
    const pids = sectionFiles(parseCapture(run.text), 'nvidia-smi.pids');
    assert.equal(pids.has('/proc/environ-keys'), false);
    assert.equal(pids.get(`/proc/${root.facts.enforced.hostPid}/environ`)?.startsWith('CUDA_DEVICE_MEMORY_LIMIT_0=8192m\n'), true);
    assertQuotaVerdicts(run.inspection);
  });

  test('more compute processes than the limit: the first 1000 are read, the rest named, absent pids are absent', T, async () => {
    const root = fixture('host');
    const rows = Array.from({ length: 1003 }, (_, i) => `${root.facts.gpuUuid}, ${900000 + i}, python3, 10`).join('\n');
    // A TEST DOUBLE of nvidia-smi listing 1003 processes this /proc does not have (another PID namespace).
    writeFileSync(
      join(root.root, 'usr/bin/nvidia-smi'),
      `#!/bin/sh\n# TEST DOUBLE of nvidia-smi: 1003 compute processes.\ncase "$*" in\n  *--query-compute-apps=*) cat <<'EOF'\n${rows}\nEOF\n  ;;\n  *) echo '0, ${root.facts.gpuUuid}, NVIDIA H100 80GB HBM3, 00000000:1B:00.0, 565.57.01, 81559, 454, 19400, 61705, 37, Default, Disabled' ;;\nesac\n`,
      { mode: 0o755 },
    );
    const run = await probe(root);
    const capture = parseCapture(run.text);
    const section = capture.sections.get('nvidia-smi.pids');
    const pids = parseSmiPids(sectionFiles(capture, 'nvidia-smi.pids'), section?.missing ?? []);
    assert.equal(pids.truncated, true);
    assert.equal(pids.absent.length, 1000);
    assert.equal(pids.absent.includes(900999), true);
    assert.equal(pids.absent.includes(901000), false, 'past the limit: not read');
    assert.equal(pids.records.size, 0);
  });

  test('an environ grep may not read: that pid is unreadable, the others are still read', T, async () => {
    const root = fixture('host');
    // The probe runs as nobody; of the 0400 root-owned environ files only the enforced pod's is nobody's.
    chownSync(join(root.root, `proc/${root.facts.enforced.hostPid}/environ`), 65534, 65534);
    const transport = new LocalTransport({
      command: ['chroot', '--userspec=65534:65534', root.root, '/bin/sh', '-s'],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    try {
      const run = await runProbe(transport, { scope: 'node', hostRoot: root.hostRoot, timeoutMs: 90_000 });
      const capture = parseCapture(run.captureText);
      const files = sectionFiles(capture, 'nvidia-smi.pids');
      assert.match(files.get('/proc/environ-status') ?? '', /^(grep: \d+\/environ: Permission denied\n){2}rc 2\n$/);
      const pids = parseSmiPids(files);
      for (const pid of [root.facts.bypassed.hostPid, root.facts.hostPid]) {
        assert.equal(pids.records.get(pid)?.environUnreadable, true, `pid ${pid}`);
        assert.equal(pids.records.get(pid)?.env, undefined, `pid ${pid}`);
      }
      assert.equal(pids.records.get(root.facts.enforced.hostPid)?.env?.get('CUDA_DEVICE_MEMORY_LIMIT_0'), '8192m');
      assert.ok(analyzeCaptureText(run.captureText, { target: 'fixture' }).verdicts.some((v) => v.id === 'hami.quota-held'));
    } finally {
      await transport.close();
    }
  });

  test('a containerised nvidia-smi that lists no process: the quotas are unknown, and it says why', T, async () => {
    const root = fixture('containerised');
    const run = await probe(root);
    const unknown = run.inspection.verdicts.filter((v) => v.id === 'hami.quota-unknown');
    assert.equal(unknown.length, 2, 'both HAMi pods (known from their caches)');
    for (const verdict of unknown) assert.match(verdict.title, /lists no compute process.*host PID namespace/);
    assert.equal(
      run.inspection.verdicts.some((v) => v.id === 'hami.quota-exceeded' || v.id === 'hami.quota-held'),
      false,
    );
  });

  test('query flags that fail: the default table is read instead, and nothing is taken for 0', T, async () => {
    const root = fixture('query-fails');
    const run = await probe(root);
    const capture = parseCapture(run.text);
    assert.ok(capture.sections.has('nvidia-smi.table'), 'the fallback table');
    const nvidia = run.inspection.node?.nvidia.node;
    assert.equal(nvidia?.kind, 'read');
    if (nvidia?.kind !== 'read') return;
    assert.equal(nvidia.source, 'table');
    assert.equal(nvidia.gpus.length, 8);
    assert.equal(nvidia.gpus[0]?.memoryTotalMiB, 81559);
    assert.ok(run.inspection.verdicts.some((v) => v.id === 'hami.quota-unknown'));
  });

  for (const shell of ['busybox', 'dash'] as const) {
    test(`${shell}: the live-sampling light probe reads the same NVIDIA block: VRAM per pod in each sample`, T, async () => {
      const root = fixture('host', shell);
      const transport = new LocalTransport({
        command: ['chroot', root.root, '/bin/sh', '-s'],
        env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      });
      try {
        const run = await transport.run({
          script: buildLightProbeScript({ nonce: newNonce(), hostRoot: root.hostRoot }),
          timeoutMs: 60_000,
          maxOutputBytes: 16 * MiB,
        });
        assert.equal(run.stderr, '', 'the script wrote to stderr');
        const capture = parseCapture(run.stdout);
        assert.equal(capture.complete, true);
        assert.deepEqual(capture.problems, []);
        for (const secret of root.facts.secrets) assert.equal(run.stdout.includes(secret), false, `${secret} left the node`);
        const point = sampleFromCapture(run.stdout, Date.now());
        const vram = (podUid: string): number | undefined => point.pods.find((pod) => pod.podUid === podUid)?.vram;
        assert.equal(vram(root.facts.enforced.podUid), root.facts.enforcedUsedMiB * MiB);
        assert.equal(vram(root.facts.bypassed.podUid), root.facts.bypassedUsedMiB * MiB);
      } finally {
        await transport.close();
      }
    });
  }
});
