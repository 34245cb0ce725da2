// The node probe's `debugfs` section, run for real (busybox ash and dash, chroot) against APU fixture roots with
// amdgpu debugfs readable, huge (100,000 buffers), root-only (run as nobody), an empty mount point, and absent.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Inspection } from '../../src/core/inspectionRun/analyze.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { parseCapture, sectionFiles } from '../../src/core/probe/capture.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { LocalTransport } from '../../src/transports/local.ts';
import type { ApuFacts, ApuOptions, Fixture } from '../helpers/fixtureRoot.ts';
import { APU_DEBUGFS, buildApuNode, fixtureRootsUnavailable, GiB, MiB } from '../helpers/fixtureRoot.ts';
import { ttmPoolPages } from '../helpers/amdgpuDebugfsFiles.ts';

const skip = fixtureRootsUnavailable();
const T = { skip: skip ?? false, timeout: 180_000 };
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function root(options: ApuOptions): Fixture<ApuFacts> {
  const fixture = buildApuNode(options);
  cleanups.push(() => fixture.cleanup());
  return fixture;
}

async function probe(
  fixture: Fixture<ApuFacts>,
  chroot: readonly string[] = [],
): Promise<{ text: string; stderr: string; inspection: Inspection }> {
  const transport = new LocalTransport({
    command: ['chroot', ...chroot, fixture.root, '/bin/sh', '-s'],
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  try {
    const run = await runProbe(transport, { scope: 'node', hostRoot: fixture.hostRoot, timeoutMs: 120_000 });
    return { text: run.captureText, stderr: run.exec.stderr, inspection: analyzeCaptureText(run.captureText, { target: 'fixture' }) };
  } finally {
    await transport.close();
  }
}

function driverOf(inspection: Inspection) {
  const driver = inspection.node?.driver;
  assert.ok(driver, 'the debugfs section was analysed');
  return driver;
}

describe('node probe: amdgpu debugfs', () => {
  for (const shell of ['busybox', 'dash'] as const) {
    test(`readable (${shell}): per-client GTT attributed to the pod, the allocator's totals, the pool, no decoy read`, T, async () => {
      const fixture = root({ shell, debugfs: 'readable' });
      const run = await probe(fixture);
      assert.equal(run.stderr, '', 'the script wrote nothing to stderr');
      for (const decoy of ['DECOY-EVICTED-VRAM', 'DECOY-GPU-RESET', 'DECOY-SHRUNK'])
        assert.equal(run.text.includes(decoy), false, `${decoy}: a file that acts when read was read`);
      const driver = driverOf(run.inspection);
      assert.equal(driver.debugfs.access.kind, 'mounted');
      assert.equal(driver.complete, true);
      assert.equal(driver.debugfs.devices.length, 1, 'the render minor (no amdgpu files) is skipped');
      assert.equal(driver.debugfs.devices[0]?.pdev, fixture.facts.pdev);
      const byPid = new Map(driver.processes.map((process) => [process.pid, process]));
      assert.equal(byPid.get(4101)?.gtt, 18 * GiB);
      assert.equal(byPid.get(4101)?.vram, 96 * MiB);
      assert.equal(byPid.get(4101)?.command, `python3 "a" 'b'`);
      assert.equal(byPid.get(4102)?.gtt, 12 * GiB - APU_DEBUGFS.pid4102GttShort);
      assert.equal(byPid.get(4102)?.command, 'llama-server/llama.cpp');
      assert.equal(byPid.get(4102)?.shared, 11 * GiB, 'exported buffers are counted as shared');
      assert.equal(byPid.get(2210)?.gtt, 64 * MiB);
      assert.equal(byPid.get(2210)?.podUid, undefined, 'the exporter is in no pod');
      assert.equal(byPid.has(4105), false, 'the newline comm forged no buffer');
      assert.equal(driver.podGtt.get(fixture.facts.podUid), 30 * GiB - APU_DEBUGFS.pid4102GttShort);
      assert.equal(driver.managerGtt, fixture.facts.gttUsed);
      assert.equal(driver.unheldGtt, fixture.facts.gttUsed - (30 * GiB - APU_DEBUGFS.pid4102GttShort + 64 * MiB));
      assert.equal(driver.managerVram, 402653184);
      assert.equal(driver.poolPages, ttmPoolPages(APU_DEBUGFS.pool));
      assert.equal(driver.largest[0]?.bytes, 16 * GiB);
      assert.equal(driver.largest[0]?.pid, 4101);
      // The capture keeps totals and the largest buffers, not all 1,200 lines.
      const gem = sectionFiles(parseCapture(run.text), 'debugfs').get(`${fixture.hostRoot}/sys/kernel/debug/dri/0/amdgpu_gem_info`) ?? '';
      assert.ok(gem.split('\n').length < 60, `${gem.split('\n').length} lines of gem_info kept`);
      assert.match(gem, /^gpumem-end clients 4 bos 1170 rc 0$/m);
      // fdinfo says 12 GiB for pid 4102, gem_info 800 MiB less: over 5 %, flagged with both numbers.
      const disagree = run.inspection.verdicts.find((verdict) => verdict.id === 'memory.gtt-sources-disagree');
      assert.ok(disagree, 'the disagreement is a verdict');
      assert.match(disagree.title, /pid 4102 \(llama-server\/llama\.cpp\)/);
      assert.match(disagree.evidence[0] ?? '', /fdinfo GTT 12 GiB, amdgpu_gem_info GTT 11\.2 GiB/);
      assert.deepEqual(
        driver.disagreements.map((process) => process.pid),
        [4102],
        'pid 4101 and 2210 agree',
      );
      assert.equal(
        run.inspection.verdicts.some((verdict) => verdict.id === 'memory.debugfs-unavailable'),
        false,
      );
      // The pod keeps its fdinfo GTT (fdinfo reports GTT) and shows the debugfs figure next to it.
      const pod = run.inspection.node?.pods.find((candidate) => candidate.podUid === fixture.facts.podUid);
      assert.equal(pod?.gtt, fixture.facts.podGtt);
      assert.equal(pod?.debugfsGtt, 30 * GiB - APU_DEBUGFS.pid4102GttShort);
      // Reports carry it.
      const markdown = inspectionToMarkdown(run.inspection);
      assert.match(markdown, /## Driver books \(amdgpu debugfs\)/);
      assert.match(markdown, /\| 4102 \| llama-server\/llama\.cpp \|/);
      assert.match(inspectionToText(run.inspection), /amdgpu_gtt_mm usage/);
      const json = JSON.parse(JSON.stringify(inspectionToJson(run.inspection))) as {
        node: { debugfs: { access: string; processes: { pid: number; gtt: number }[] } };
      };
      assert.equal(json.node.debugfs.access, 'mounted');
      assert.equal(json.node.debugfs.processes.find((process) => process.pid === 4101)?.gtt, 18 * GiB);
    });
  }

  test('100,000 buffers: the section stays small and the totals exact', T, async () => {
    const fixture = root({ debugfs: 'huge' });
    const run = await probe(fixture);
    assert.equal(run.stderr, '');
    const gem = sectionFiles(parseCapture(run.text), 'debugfs').get(`${fixture.hostRoot}/sys/kernel/debug/dri/0/amdgpu_gem_info`) ?? '';
    assert.ok(Buffer.byteLength(gem) < 16 * 1024, `${Buffer.byteLength(gem)} bytes of gem_info kept`);
    const driver = driverOf(run.inspection);
    assert.equal(driver.complete, true);
    const storm = driver.processes.find((process) => process.pid === APU_DEBUGFS.hugePid);
    assert.equal(storm?.gtt, APU_DEBUGFS.hugeBuffers * APU_DEBUGFS.hugeBufferBytes);
    assert.equal(
      driver.debugfs.devices[0]?.gem?.kind === 'read' ? driver.debugfs.devices[0].gem.buffers : 0,
      1170 + APU_DEBUGFS.hugeBuffers,
    );
  });

  test('root-only debugfs, probe run as nobody: refused, said so, with the remedy', T, async () => {
    const fixture = root({ debugfs: 'root-only' });
    const run = await probe(fixture, ['--userspec=65534:65534']);
    const driver = driverOf(run.inspection);
    assert.equal(driver.debugfs.access.kind, 'refused');
    assert.match(driver.debugfs.access.kind === 'refused' ? driver.debugfs.access.detail : '', /Permission denied/);
    const verdict = run.inspection.verdicts.find((candidate) => candidate.id === 'memory.debugfs-unavailable');
    assert.ok(verdict);
    assert.match(verdict.title, /access refused/);
    assert.match(verdict.remedy, /root/);
  });

  test('an empty mount point: unmounted, and gpumem does not mount it', T, async () => {
    const fixture = root({ debugfs: 'unmounted' });
    const run = await probe(fixture);
    const driver = driverOf(run.inspection);
    assert.equal(driver.debugfs.access.kind, 'unmounted');
    const verdict = run.inspection.verdicts.find((candidate) => candidate.id === 'memory.debugfs-unavailable');
    assert.match(verdict?.title ?? '', /not mounted/);
    assert.match(verdict?.remedy ?? '', /mount -t debugfs none \/sys\/kernel\/debug/);
  });

  test('no debugfs at all: absent; the pod accounting is unchanged', T, async () => {
    const fixture = root({});
    const run = await probe(fixture);
    const driver = driverOf(run.inspection);
    assert.equal(driver.debugfs.access.kind, 'absent');
    assert.equal(driver.clientsGtt, undefined);
    const pod = run.inspection.node?.pods.find((candidate) => candidate.podUid === fixture.facts.podUid);
    assert.equal(pod?.gtt, fixture.facts.podGtt);
    assert.equal(pod?.debugfsGtt, undefined);
    assert.match(run.inspection.verdicts.find((candidate) => candidate.id === 'memory.debugfs-unavailable')?.title ?? '', /does not exist/);
  });
});
