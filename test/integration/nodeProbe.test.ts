// The real node probe script, run with `chroot <root> /bin/sh -s` through LocalTransport in fixture roots
// (test/helpers/fixtureRoot.ts) under busybox ash and dash, then parsed and analysed: an APU node with a
// GTT-heavy pod, the same pod on cgroup v1, a HAMi NVIDIA node, a plain node; a read-only bind mount of a
// root; this machine itself (no chroot); and bad input: truncated and garbled captures, a process that
// vanished mid-sweep, a 20 MB kernel log, a run as `nobody` (permission denied), a root without od/timeout.
//
// Needs root (chroot, mknod, mount). Every root and mount is removed in after(), on failure too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import { severityRank } from '../../src/core/findings.ts';
import type { Capture } from '../../src/core/probe/capture.ts';
import { parseCapture, sectionFiles } from '../../src/core/probe/capture.ts';
import type { Inspection } from '../../src/core/inspectionRun/analyze.ts';
import { analyzeCaptureText, StreamingAnalysis } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { LocalTransport } from '../../src/transports/local.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { assembleProbeScript, newNonce } from '../../src/core/probe/script.ts';
import { FDINFO_LIMIT, NODE_BODY } from '../../src/core/probe/scripts/nodeScript.ts';
import {
  buildApuNode,
  buildHamiNode,
  buildPlainNode,
  CACHE_FILE_SIZE,
  fixtureRootsUnavailable,
  GiB,
  MiB,
  NodeTree,
  readOnlyBind,
  tryWrite,
} from '../helpers/fixtureRoot.ts';
import type { ApuFacts, Fixture, FixtureShell, HamiFacts, PlainFacts } from '../helpers/fixtureRoot.ts';
import { mulberry32 } from '../helpers/random.ts';

const SKIP = fixtureRootsUnavailable() ?? false;
const SHELLS: readonly FixtureShell[] = ['busybox', 'dash'];
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
const T = { timeout: 120_000 };

interface ProbeRun {
  readonly text: string;
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly capture: Capture;
  readonly inspection: Inspection;
}

/** Runs the node probe through LocalTransport with the given argv (default: `chroot <root> /bin/sh -s`). */
async function probe(command: readonly string[] | undefined, hostRoot: string): Promise<ProbeRun> {
  const transport = command ? new LocalTransport({ command, env: ENV }) : new LocalTransport();
  try {
    // The output as the agent takes it, piece by piece from the pipe into a StreamingAnalysis, and kept whole as well:
    // every run checks that the streaming analysis reads what the whole text's does.
    const pieces: string[] = [];
    const streaming = new StreamingAnalysis();
    const run = await runProbe(transport, {
      scope: 'node',
      hostRoot,
      timeoutMs: 90_000,
      onOutput: (piece) => {
        pieces.push(piece);
        streaming.push(piece);
      },
    });
    const text = pieces.join('');
    const inspection = analyzeCaptureText(text, { target: transport.target });
    const { capture: _streamedCapture, ...streamed } = streaming.finish({ target: transport.target });
    const { capture: _wholeCapture, ...whole } = inspection;
    assert.deepEqual(streamed, whole, `the streaming analysis of ${pieces.length} pieces reads what the whole capture's does`);
    return { text, stderr: run.exec.stderr, exitCode: run.exec.exitCode, capture: parseCapture(text), inspection };
  } finally {
    await transport.close();
  }
}

function probeFixture(fixture: Fixture<unknown>, chrootOptions: readonly string[] = []): Promise<ProbeRun> {
  return probe(['chroot', ...chrootOptions, fixture.root, '/bin/sh', '-s'], fixture.hostRoot);
}

/** A complete capture with no problems, no shell errors, exit status 0. */
function assertClean(run: ProbeRun, label: string): void {
  assert.equal(run.exitCode, 0, `${label}: exit status; stderr: ${run.stderr}`);
  assert.equal(run.stderr, '', `${label}: the script wrote to stderr`);
  assert.equal(run.capture.complete, true, `${label}: capture incomplete: ${run.capture.problems.join('; ')}`);
  assert.deepEqual(run.capture.problems, [], `${label}: capture problems`);
  assert.deepEqual(run.inspection.problems, [], `${label}: model problems`);
  for (const section of run.capture.sections.values()) {
    assert.equal(section.complete, true, `${label}: section ${section.name} incomplete`);
    const paths = section.records.flatMap((record) => (record.path === undefined ? [] : [record.path]));
    const repeated = paths.filter((path, i) => paths.indexOf(path) !== i);
    assert.deepEqual(repeated.slice(0, 3), [], `${label}: section ${section.name} prints ${repeated.length} files twice`);
  }
}

/**
 * The kubepods section reads the cgroup directories' files with head in batches (nodeScript.ts); split back by
 * sectionFiles, every file must be what the disk holds (as onefile records it: trailing empty lines dropped),
 * and every candidate file of a directory the probe listed must be there.
 */
function assertKubepodsFilesAsOnDisk(run: ProbeRun, fixture: Fixture<unknown>, label: string): void {
  const records = run.capture.sections.get('cgroup.kubepods')?.records ?? [];
  const heads = records.filter((record) => /\/\.gpumem-heads-\d+$/.test(record.path ?? ''));
  assert.equal(heads.length, 1, `${label}: the kubepods files are read in batches, into one record`);
  const files = sectionFiles(run.capture, 'cgroup.kubepods');
  const asRecorded = (text: string) => text.replace(/\n*$/, '') + (text.replace(/\n*$/, '') === '' ? '' : '\n');
  for (const [path, body] of files) {
    if (body === 'gpumem: permission denied\n') continue;
    assert.equal(body, asRecorded(readFileSync(join(fixture.root, path), 'utf8')), `${label}: ${path}`);
  }
  const dirs = new Set([...files.keys()].map((path) => path.slice(0, path.lastIndexOf('/'))));
  assert.ok(dirs.size >= 3, `${label}: QoS, pod and container directories`);
  for (const dir of dirs)
    for (const name of ['memory.current', 'memory.max', 'memory.stat', 'memory.events', 'memory.usage_in_bytes', 'memory.limit_in_bytes'])
      if (existsSync(join(fixture.root, dir, name))) assert.ok(files.has(`${dir}/${name}`), `${label}: ${dir}/${name}`);
}

function node(run: ProbeRun) {
  const inspection = run.inspection.node;
  assert.ok(inspection, 'a node inspection');
  return inspection;
}

function check(run: ProbeRun, id: string) {
  const found = node(run).kernelChecks.find((candidate) => candidate.id === id);
  assert.ok(found, `kernel check ${id}`);
  return found;
}

function podOf(run: ProbeRun, uid: string) {
  const pod = node(run).pods.find((candidate) => candidate.podUid === uid);
  assert.ok(
    pod,
    `pod ${uid} in the accounting (pods: ${node(run)
      .pods.map((p) => p.podUid)
      .join(', ')})`,
  );
  return pod;
}

const cleanups: Array<() => void> = [];
after(() => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch {
      // keep cleaning the rest
    }
  }
});

function keep<F>(fixture: Fixture<F>): Fixture<F> {
  cleanups.push(() => fixture.cleanup());
  return fixture;
}

// ------------------------------------------------------------------------------------------------
// What every APU run must show (v2 or v1; chroot, debug-pod layout or read-only mount).

function assertApuPod(run: ProbeRun, facts: ApuFacts): void {
  const pod = podOf(run, facts.podUid);
  assert.equal(pod.cgroupPath, facts.podCgroupPath);
  assert.equal(pod.accounted, facts.memoryCurrent, 'memory.current / usage_in_bytes');
  assert.equal(pod.limit, facts.memoryMax, 'memory.max / limit_in_bytes');
  assert.equal(pod.gtt, facts.podGtt, `GTT counted once per DRM client: ${pod.gtt / GiB} GiB`);
  assert.equal(pod.vram, facts.podVram);
  assert.equal(pod.trueFootprint, facts.memoryCurrent + facts.podGtt);
  assert.equal(pod.headroom, facts.memoryMax - facts.memoryCurrent - facts.podGtt);
  assert.deepEqual(
    pod.processes.map((p) => p.pid).sort((a, b) => a - b),
    [...facts.gpuPids],
  );
  assert.deepEqual(pod.processes.find((p) => p.pid === facts.forkPid)?.sharedWith, [facts.dupPid], "the fork shares its parent's client");
  const verdict = run.inspection.verdicts.find((v) => v.id === 'memory.pod-over-limit-in-reality');
  assert.ok(verdict, `verdict memory.pod-over-limit-in-reality (got ${run.inspection.verdicts.map((v) => v.id).join(', ')})`);
  assert.equal(verdict.severity, 'error');
  assert.match(verdict.title, /holds 30 GiB of GTT .* true footprint is 32 GiB, above its 16 GiB limit/);
  assert.ok(
    verdict.evidence.some((line) => line.startsWith(`${facts.podCgroupPath}:`)),
    'evidence names the pod cgroup',
  );
  const ranks = run.inspection.verdicts.map((v) => severityRank[v.severity]);
  assert.deepEqual(
    ranks,
    [...ranks].sort((a, b) => b - a),
    'verdicts worst first',
  );
  // Only the pod's own processes count: the exporter outside any pod holds a client too.
  assert.ok(node(run).model.gpuProcesses.some((p) => p.pid === facts.systemGpuPid));
  const others = node(run).pods.filter((p) => p.podUid !== facts.podUid);
  assert.ok(
    others.every((p) => p.gtt === 0),
    'no GTT leaks into other pods',
  );
}

function assertApuNode(run: ProbeRun, facts: ApuFacts): void {
  const model = node(run).model;
  assert.equal(model.cgroupMode, facts.cgroupMode);
  assert.equal(model.kernel, facts.kernel, 'the kernel release comes from <root>/proc/sys/kernel/osrelease');
  assert.equal(model.hostname, facts.hostname);
  assert.equal(model.os, 'Ubuntu 26.04 LTS');
  assert.equal(model.meminfo.get('MemTotal'), facts.memTotal);
  assert.equal(model.meminfo.get('GPUActive'), facts.gpuActive);
  assert.equal(model.meminfo.get('GPUReclaim'), facts.gpuReclaim);
  assert.equal(model.vmstat.get('nr_gpu_active'), facts.gpuActive / 4096);
  assert.equal(model.vmstat.get('oom_kill'), 1);
  assert.equal(model.kernelLog?.source, `${run.capture.root}/var/log/kern.log`, 'no dmesg or journalctl in the root: kern.log');
  // GPU and driver state.
  assert.equal(model.gpus.length, 1, 'card0 only: card0-DP-1 is a connector');
  const gpu = model.gpus[0];
  assert.equal(gpu?.vendorId, '0x1002');
  assert.equal(gpu?.deviceId, '0x1586');
  assert.equal(gpu?.driver, 'amdgpu');
  assert.equal(gpu?.gttTotal, facts.gttTotal);
  assert.equal(gpu?.gttUsed, facts.gttUsed);
  assert.equal(model.moduleParams.get('ttm')?.get('pages_limit'), '25165824');
  // The fdinfo sweep: DRM fds only, one client per drm-client-id within a process.
  const procs = model.gpuProcesses;
  assert.deepEqual(
    procs.map((p) => p.pid),
    [facts.systemGpuPid, ...facts.gpuPids],
  );
  const hostile = procs.find((p) => p.pid === facts.hostilePid);
  assert.equal(hostile?.comm, facts.hostileComm, 'a comm with spaces and quotes survives');
  assert.equal(hostile?.clients.length, 1, 'fd 5 and its dup fd 9 are one client');
  assert.equal(hostile?.byRegion.get('gtt'), 18 * GiB);
  const fdinfo = sectionFiles(run.capture, 'fdinfo');
  const r = run.capture.root;
  assert.deepEqual(
    run.capture.sections.get('fdinfo')?.records.map((record) => record.path),
    [`${r}/proc/.gpumem-heads-8192`],
    'one record: the files read by head in batches',
  );
  assert.ok(fdinfo.has(`${r}/proc/${facts.dupPid}/fdinfo/9`), 'the dup fd was read');
  assert.equal(fdinfo.get(`${r}/proc/${facts.hostilePid}/comm`), `${facts.hostileComm}\n`);
  for (const fd of [0, 1, 3, 4, 6, 8])
    assert.equal(fdinfo.has(`${r}/proc/${facts.dupPid}/fdinfo/${fd}`), false, `non-DRM fd ${fd} skipped`);
  // The process that vanished between `ls` and `head`: tolerated, not counted.
  assert.equal(fdinfo.has(`${r}/proc/${facts.vanishedPid}/fdinfo/5`), false);
  assert.equal(
    procs.some((p) => p.pid === facts.vanishedPid),
    false,
  );
  // Node accounting and its verdict.
  const accounting = node(run).accounting;
  assert.equal(accounting.memTotal, facts.memTotal);
  assert.equal(accounting.gpuActive, facts.gpuActive);
  assert.equal(accounting.gttUsed, facts.gttUsed);
  assert.equal(accounting.unaccounted, Math.max(facts.gttUsed, facts.gpuActive));
  assert.equal(accounting.unifiedMemory, true);
  const unaccounted = run.inspection.verdicts.find((v) => v.id === 'memory.unaccounted-node');
  assert.ok(unaccounted, 'node unaccounted-memory verdict');
  assert.ok(unaccounted.evidence.includes(`GPUActive: ${facts.gpuActive} (30.2 GiB)`), unaccounted.evidence.join(' | '));
  // Kernel and driver alignment.
  assert.equal(check(run, 'kernel.gpu-active-counters').status, 'pass');
  assert.equal(check(run, 'kernel.gtt-memcg').status, 'fail');
  assert.equal(check(run, 'kernel.gtt-size').status, 'pass');
  // The pod and its OOM history.
  assertApuPod(run, facts);
  const pod = model.pods.find((p) => p.podUid === facts.podUid);
  assert.ok(pod);
  assert.equal(
    pod.containers.some((c) => c.containerId === facts.containerId),
    true,
    'the container below the pod',
  );
  // The kernel log holds a global OOM kill of that pod; with the pod's memory.events (oom_kill 1, max 0,
  // oom 0) and its fdinfo GTT joined in, it is the GTT signature.
  const oom = node(run).oom;
  assert.equal(oom?.summary.global, 1);
  assert.equal(oom?.summary.victims[0]?.podUid, facts.podUid);
  assert.equal(oom?.summary.victims[0]?.pid, facts.oomVictimPid);
  assert.equal(oom?.summary.victims[0]?.gtt, 'strong');
  const oomVerdict = run.inspection.verdicts.find((v) => v.id.startsWith('oom.'));
  assert.equal(oomVerdict?.severity, 'error', `an OOM verdict (got ${run.inspection.verdicts.map((v) => v.id).join(', ')})`);
  // Hostile names: the spaced directory is read, the newline names are skipped without breaking the format.
  assert.ok(
    model.kubepodsLevels.some((level) => level.path === facts.spacedCgroup && level.current === 4096),
    `level "${facts.spacedCgroup}"`,
  );
  assert.equal(run.text.includes('bad\nname'), false, 'a path with a newline was printed');
  assert.equal(run.text.includes('forged'), false, 'a file named with a newline was printed');
  // Node configuration.
  assert.equal(model.kubelet?.systemReserved, 2 * GiB);
  assert.equal(model.containerdDefaultRuntime?.runtime, 'runc');
}

// ------------------------------------------------------------------------------------------------
// The four scenarios under each shell.

for (const shell of SHELLS) {
  describe(`node probe in fixture roots, /bin/sh = ${shell}`, { skip: SKIP }, () => {
    let apu: Fixture<ApuFacts>;
    let v1: Fixture<ApuFacts>;
    let hami: Fixture<HamiFacts>;
    let plain: Fixture<PlainFacts>;
    before(() => {
      apu = keep(buildApuNode({ shell }));
      v1 = keep(buildApuNode({ shell, cgroup: 'v1' }));
      hami = keep(buildHamiNode({ shell }));
      plain = keep(buildPlainNode({ shell }));
    });

    test('the root has the right shell and no dmesg/journalctl', () => {
      const sh = join(apu.root, 'bin/sh');
      assert.ok(existsSync(sh));
      assert.equal(readFileSync(sh).subarray(0, 4).toString('latin1'), '\x7fELF');
      assert.equal(existsSync(join(apu.root, 'bin/dash')), shell === 'dash');
      assert.equal(existsSync(join(apu.root, 'bin/dmesg')), false);
      assert.equal(existsSync(join(apu.root, 'bin/journalctl')), false);
    });

    test('APU node (Strix Halo, kernel 7.1, cgroup v2): a GTT-heavy pod over its limit in reality', T, async () => {
      const run = await probeFixture(apu);
      assertClean(run, 'apu');
      assert.equal(run.capture.root, '');
      assertKubepodsFilesAsOnDisk(run, apu, 'apu');
      assertApuNode(run, apu.facts);
      const model = node(run).model;
      // memory.events: oom_kill rose in the pod while max and oom did not (the GTT signature).
      const pod = model.pods.find((p) => p.podUid === apu.facts.podUid);
      assert.equal(pod?.events.get('oom_kill'), 1);
      assert.equal(pod?.events.get('max'), 0);
      assert.equal(pod?.events.get('oom'), 0);
      // dmem: available, capacity read, but not delegated below kubepods.slice.
      assert.deepEqual(model.dmemCapacity.get(apu.facts.dmemRegion), { kind: 'bytes', bytes: 512 * MiB });
      assert.equal(check(run, 'kernel.dmem-available').status, 'pass');
      const delegated = check(run, 'kernel.dmem-delegated');
      assert.equal(delegated.status, 'fail');
      assert.match(delegated.detail, new RegExp(`dmem is not in ${apu.facts.dmemGapLevel}'s cgroup\\.subtree_control`));
      assert.equal(check(run, 'kernel.ttm-protection').status, 'info', '7.1 predates the 7.3 TTM protection');
      for (const id of ['kernel.dmem-delegated', 'kernel.gtt-memcg'])
        assert.ok(
          run.inspection.verdicts.some((v) => v.id === id),
          `verdict ${id}`,
        );
      // Resident memory: the pod's three processes with a status (4199 vanished, 3001 is the sandbox's pause) hold 5 GiB resident
      // against a 2 GiB memory.current: the mmap'd model file was charged elsewhere.
      const resident = node(run).resident.get(apu.facts.podUid);
      assert.deepEqual(
        [resident?.processes, resident?.rss, resident?.anon, resident?.file, resident?.shmem],
        [3, 5 * GiB, 1 * GiB + 960 * MiB, 3 * GiB, 64 * MiB],
      );
      const rss = run.inspection.verdicts.find((v) => v.id === 'memory.rss-divergence');
      assert.match(rss?.title ?? '', /resident memory 5 GiB is 3 GiB above memory\.current \(2 GiB\)/);
      assert.ok(
        rss?.evidence.some((line) => line.startsWith('VmRSS of 3 processes: 5 GiB (RssAnon 1.9 GiB, RssFile 3 GiB, RssShmem 64 MiB)')),
      );
    });

    test('cgroup v1 node: the same pod numbers from the v1 files', T, async () => {
      const run = await probeFixture(v1);
      assertClean(run, 'v1');
      assertKubepodsFilesAsOnDisk(run, v1, 'v1');
      assertApuNode(run, v1.facts);
      const model = node(run).model;
      assert.equal(model.rootControllers, undefined);
      assert.equal(v1.facts.podCgroupPath, `/kubepods/burstable/pod${v1.facts.podUid}`);
      const pod = model.pods.find((p) => p.podUid === v1.facts.podUid);
      assert.equal(pod?.oomControl.get('oom_kill'), 1, 'memory.oom_control');
      assert.equal(pod?.peak, 2469396480, 'memory.max_usage_in_bytes');
      assert.deepEqual(model.pods.find((p) => p.podUid === v1.facts.besteffortPodUid)?.max, { kind: 'max' }, 'the v1 "no limit" value');
      const dmem = check(run, 'kernel.dmem-available');
      assert.equal(dmem.status, 'fail');
      assert.match(dmem.detail, /cgroup v1/);
    });

    test('plain node (no GPU, only a BMC display adapter): no GPU verdicts', T, async () => {
      const run = await probeFixture(plain);
      assertClean(run, 'plain');
      const model = node(run).model;
      assert.equal(model.cgroupMode, 'v2');
      assert.equal(model.kernel, plain.facts.kernel);
      assert.equal(model.meminfo.get('MemTotal'), plain.facts.memTotal);
      assert.equal(model.meminfo.has('GPUActive'), false);
      assert.deepEqual(
        model.gpus.map((gpu) => gpu.vendorId),
        ['0x1a03'],
        'the ASPEED BMC adapter is a DRM card',
      );
      assert.deepEqual(model.gpuProcesses, []);
      for (const expected of plain.facts.pods) {
        const pod = podOf(run, expected.uid);
        assert.equal(pod.accounted, expected.current);
        assert.equal(pod.limit, expected.max === 'max' ? undefined : expected.max);
        assert.equal(
          pod.qos,
          ({ burstable: 'Burstable', guaranteed: 'Guaranteed', besteffort: 'BestEffort' } as const)[expected.qos],
          "the QoS class of the pod's cgroup",
        );
        assert.equal(pod.gtt, 0);
      }
      assert.deepEqual(
        run.inspection.verdicts.map((v) => `${v.id} (${v.severity})`),
        [],
        'no verdicts on a node without a GPU',
      );
      assert.ok(node(run).kernelChecks.every((c) => c.status !== 'fail' && c.status !== 'warn'));
    });

    test("HAMi NVIDIA node: preload, library and both pods' caches in the capture", T, async () => {
      const run = await probeFixture(hami);
      assertClean(run, 'hami');
      const model = node(run).model;
      const host = sectionFiles(run.capture, 'hami.host');
      assert.equal(host.get('/usr/local/vgpu/ld.so.preload'), `${hami.facts.preload}\n`);
      const listing = host.get('/usr/local/vgpu/ls') ?? '';
      for (const name of ['containers', 'ld.so.preload', 'libvgpu.so', 'libvgpu.so.v2.10.0'])
        assert.match(listing, new RegExp(` ${name.replace(/\./g, '\\.')}$`, 'm'));
      const caches = sectionFiles(run.capture, 'hami.caches');
      assert.deepEqual([...caches.keys()].sort(), [hami.facts.bypassed.cachePath, hami.facts.enforced.cachePath].sort());
      const enforced = caches.get(hami.facts.enforced.cachePath) ?? '';
      assert.match(enforced, new RegExp(`^size=${CACHE_FILE_SIZE}$`, 'm'));
      assert.match(enforced, /^header= 19920718 1 2 1 ?$/m, 'magic, major 1, minor 2, sm_init_flag');
      assert.match(enforced, /^device_num=1$/m);
      assert.match(enforced, new RegExp(`^limits= ${hami.facts.enforced.limit}( 0){15} ?$`, 'm'));
      assert.match(enforced, /^proc_num=1$/m);
      assert.match(enforced, new RegExp(`^slot0= 1 ${hami.facts.enforced.hostPid} status=1 used=${hami.facts.enforced.used}$`, 'm'));
      const bypassed = caches.get(hami.facts.bypassed.cachePath) ?? '';
      assert.match(bypassed, new RegExp(`^limits= ${hami.facts.bypassed.limit}( 0){15} ?$`, 'm'));
      assert.match(bypassed, /^proc_num=0$/m);
      assert.match(bypassed, /^slot0= 7 0 status=0 used=0$/m, 'only a dead slot: the running process never registered');
      assert.equal((bypassed.match(/status=1/g) ?? []).length, 0);
      // nvidia-smi is not in the root; the driver version file is.
      assert.deepEqual(run.capture.sections.get('nvidia-smi.gpu')?.missing, ['nvidia-smi']);
      assert.match(
        sectionFiles(run.capture, 'nvidia-driver').get('/proc/driver/nvidia/version') ?? '',
        /^NVRM version: NVIDIA UNIX Open Kernel Module for x86_64 {2}570\.133\.20/,
      );
      assert.equal(model.containerdDefaultRuntime?.runtime, 'nvidia');
      // /dev/nvidia* are character devices but not DRM: the fdinfo sweep skips them.
      assert.deepEqual([...sectionFiles(run.capture, 'fdinfo').keys()], []);
      assert.deepEqual(
        model.gpus.map((gpu) => [gpu.vendorId, gpu.driver]),
        [['0x10de', 'nvidia']],
      );
      assert.deepEqual(model.pods.map((p) => p.podUid).sort(), [hami.facts.bypassed.podUid, hami.facts.enforced.podUid].sort());
      assert.ok(run.inspection.hami, 'a node with HAMi installed gets the checklist');
    });
  });
}

// ------------------------------------------------------------------------------------------------
// Layouts and kernels

describe('node probe: other layouts and kernels', { skip: SKIP }, () => {
  test('a node debug pod: the node under /host ($R), busybox and /dev in the pod', T, async () => {
    const fixture = keep(buildApuNode({ hostRoot: '/host' }));
    assert.equal(existsSync(join(fixture.root, 'proc')), false, 'nothing of the node outside /host');
    const run = await probeFixture(fixture);
    assertClean(run, 'debug pod');
    assert.equal(run.capture.root, '/host');
    assertApuNode(run, fixture.facts);
  });

  test('kernel 7.3 with dmem.peak: TTM protection passes', T, async () => {
    const fixture = keep(buildApuNode({ kernel: '7.3.0-1-generic', shell: 'dash' }));
    const run = await probeFixture(fixture);
    assertClean(run, '7.3');
    assert.equal(node(run).model.kernel, '7.3.0-1-generic');
    assert.equal(check(run, 'kernel.ttm-protection').status, 'pass');
    const kubepods = node(run).model.kubepodsLevels.find((level) => level.path === '/kubepods.slice');
    assert.deepEqual(kubepods?.dmem.peak.get(fixture.facts.dmemRegion), { kind: 'bytes', bytes: 134217728 });
    assertApuPod(run, fixture.facts);
  });
});

// ------------------------------------------------------------------------------------------------
// Read-only

for (const shell of SHELLS) {
  describe(`node probe on a read-only root (${shell})`, { skip: SKIP }, () => {
    let fixture: Fixture<ApuFacts>;
    let mount: { path: string; cleanup(): void };
    before(() => {
      fixture = keep(buildApuNode({ shell }));
      mount = readOnlyBind(fixture.root);
      cleanups.push(() => mount.cleanup());
    });

    test('the script completes with done and writes nothing', T, async () => {
      assert.equal(tryWrite(join(mount.path, 'etc/hostname')), 'EROFS', 'the bind mount is read-only');
      assert.equal(tryWrite(join(mount.path, 'tmp-probe-write-check')), 'EROFS');
      const run = await probe(['chroot', mount.path, '/bin/sh', '-s'], '');
      assertClean(run, 'read-only');
      assert.match(run.text, /@@gpumem:[0-9a-f]+:done@@\n?$/);
      assert.doesNotMatch(`${run.text}${run.stderr}`, /Read-only file system/);
      assertApuPod(run, fixture.facts);
    });
  });
}

// ------------------------------------------------------------------------------------------------
// This machine

/** The cgroup mode, decided independently of the script from this machine's /sys/fs/cgroup. */
function thisMachineCgroupMode(): string {
  if (existsSync('/sys/fs/cgroup/cgroup.controllers')) return 'v2';
  if (existsSync('/sys/fs/cgroup/memory')) return existsSync('/sys/fs/cgroup/unified/cgroup.controllers') ? 'hybrid' : 'v1';
  return 'unknown';
}

describe('node probe on this machine through the Local transport (sh -s, no chroot)', () => {
  test("the capture is complete, with this machine's cgroup mode, MemTotal and kernel", T, async () => {
    const run = await probe(undefined, '');
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(run.capture.complete, true, run.capture.problems.join('; '));
    assert.deepEqual(run.capture.problems, []);
    const model = node(run).model;
    const expectedMode = thisMachineCgroupMode();
    assert.equal(model.cgroupMode, expectedMode);
    if (existsSync('/sys/fs/cgroup/memory'))
      assert.ok(model.cgroupMode === 'hybrid' || model.cgroupMode === 'v1', `this machine is cgroup v1/hybrid, got ${model.cgroupMode}`);
    const memTotalKb = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]);
    assert.equal(model.meminfo.get('MemTotal'), memTotalKb * 1024);
    assert.equal(model.kernel, release());
    assert.ok(model.kernelLog, `a kernel log source (missing: ${model.missing.join(', ')})`);
  });
});

// ------------------------------------------------------------------------------------------------
// Bad input

describe('node probe: bad input gives partial results with reasons, never a crash', { skip: SKIP }, () => {
  let apu: Fixture<ApuFacts>;
  let apuRun: ProbeRun;
  before(async () => {
    apu = keep(buildApuNode());
    apuRun = await probeFixture(apu);
    assertClean(apuRun, 'apu baseline');
  });

  test('the capture truncated at every 1000th byte', () => {
    const text = apuRun.text;
    const endProc = text.indexOf(':end proc@@');
    const endFdinfo = text.indexOf(':end fdinfo@@');
    assert.ok(endProc > 0 && endFdinfo > endProc);
    let withMeminfo = 0;
    let withPodGtt = 0;
    for (let cut = 0; cut < text.length; cut += 1000) {
      const partial = text.slice(0, cut);
      const capture = parseCapture(partial);
      const inspection = analyzeCaptureText(partial, { target: `cut at ${cut}` });
      assert.equal(capture.complete, false, `cut at ${cut}`);
      assert.ok(capture.problems.length > 0, `cut at ${cut}: problems`);
      assert.ok(inspection.problems.length > 0, `cut at ${cut}: inspection problems`);
      if (cut > endProc + 64) {
        assert.equal(inspection.node?.model.meminfo.get('MemTotal'), apu.facts.memTotal, `cut at ${cut}: meminfo kept`);
        withMeminfo++;
      }
      if (cut > endFdinfo + 64) {
        assert.equal(
          inspection.node?.pods.find((p) => p.podUid === apu.facts.podUid)?.gtt,
          apu.facts.podGtt,
          `cut at ${cut}: pod GTT kept`,
        );
        withPodGtt++;
      }
    }
    assert.ok(withMeminfo > 10 && withPodGtt > 0, `${withMeminfo} / ${withPodGtt} partial captures checked`);
  });

  test("random garbage lines between the capture's lines", () => {
    const nonce = /nonce=([0-9a-f]+)/.exec(apuRun.text)?.[1] ?? '';
    assert.ok(nonce);
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = mulberry32(seed);
      const pick = <V>(values: readonly V[]): V => values[Math.floor(random() * values.length)] as V;
      const junk = (): string => {
        switch (Math.floor(random() * 6)) {
          case 0:
            return Array.from({ length: Math.floor(random() * 120) }, () => String.fromCharCode(32 + Math.floor(random() * 95))).join('');
          case 1:
            return Array.from({ length: Math.floor(random() * 40) }, () => String.fromCharCode(Math.floor(random() * 256)))
              .join('')
              .replace(/\n/g, '');
          case 2:
            return `@@gpumem:${'f'.repeat(24)}:${pick(['end fdinfo', 'done', 'begin proc', 'file /proc/meminfo'])}@@`;
          case 3:
            return `@@gpumem:${nonce}:frobnicate ${Math.floor(random() * 1000)}@@`;
          case 4:
            return `@@gpumem:${nonce}:end nosuchsection@@`;
          default:
            return `@@gpumem:${nonce}:begin`;
        }
      };
      const lines = apuRun.text.split('\n');
      for (let i = 0; i < 300; i++) lines.splice(1 + Math.floor(random() * (lines.length - 2)), 0, junk());
      const garbled = lines.join('\n');
      const inspection = analyzeCaptureText(garbled, { target: `garbage seed ${seed}` });
      assert.equal(inspection.capture.complete, true, `seed ${seed}: the real done marker is still there`);
      assert.ok(
        inspection.capture.problems.some((p) => p.startsWith('unknown marker "frobnicate"')),
        `seed ${seed}: ${inspection.capture.problems.slice(0, 3).join('; ')}`,
      );
      assert.ok(inspection.capture.problems.includes('unexpected end of section "nosuchsection"'), `seed ${seed}`);
      assert.equal(inspection.node?.model.meminfo.get('MemTotal'), apu.facts.memTotal, `seed ${seed}: line-wise meminfo survives`);
      assert.equal(inspection.node?.model.cgroupMode, 'v2', `seed ${seed}`);
    }
  });

  test('a process that vanished mid-sweep (fd/ symlinks, no fdinfo) is tolerated', () => {
    const files = sectionFiles(apuRun.capture, 'fdinfo');
    assert.equal(files.has(`/proc/${apu.facts.vanishedPid}/fdinfo/5`), false);
    assert.ok(files.has(`/proc/${apu.facts.dupPid}/fdinfo/9`), 'the sweep went on past it');
    assert.equal(
      node(apuRun).model.gpuProcesses.some((p) => p.pid === apu.facts.vanishedPid),
      false,
    );
    assert.equal(apuRun.capture.sections.get('fdinfo')?.complete, true);
  });

  test('a 20 MB kernel log is bounded by the script to the last MiB', T, async () => {
    const fixture = keep(buildApuNode({ hugeKernelLog: true }));
    assert.ok(fixture.facts.kernLogBytes > 20_000_000, `${fixture.facts.kernLogBytes} bytes of kern.log`);
    const run = await probeFixture(fixture);
    assertClean(run, 'huge log');
    const section = run.capture.sections.get('kernel-log');
    const body = section?.records[0]?.body ?? '';
    const bytes = Buffer.byteLength(body);
    assert.ok(bytes <= 1024 * 1024 + 64, `${bytes} bytes of kernel log in the capture`);
    assert.ok(bytes >= 1024 * 1024 - 4096, `${bytes} bytes: the last MiB, not less`);
    assert.ok(Buffer.byteLength(run.text) < 2 * 1024 * 1024, 'the whole capture stays small');
    assert.equal(body.includes(fixture.facts.kernLogFirstLine), false, 'the head of the log is dropped');
    assert.match(body, /Out of memory: Killed process 398211 \(llama-server\)/);
    assert.equal(node(run).oom?.summary.global, 1, 'the report at the end of the log is explained');
    assertApuPod(run, fixture.facts);
  });

  test('permission denied: the script run as nobody records it and completes', T, async () => {
    const run = await probeFixture(apu, ['--userspec=65534:65534']);
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(run.capture.complete, true, run.capture.problems.join('; '));
    assert.deepEqual(run.capture.problems, []);
    const model = node(run).model;
    assert.equal(model.probeUid, '65534');
    // The CIS-mode kubelet config (0600) cannot be read: recorded, not fatal.
    assert.equal(sectionFiles(run.capture, 'kubelet').get('/var/lib/kubelet/config.yaml'), 'gpumem: permission denied\n');
    // kern.log is root:adm 0640 and dmesg is absent: no kernel log, and the capture says so.
    assert.ok(run.capture.sections.get('kernel-log')?.missing.includes('kernel-log'));
    assert.equal(model.kernelLog, undefined);
    // /proc/<pid>/fd is dr-x------: no fd can be listed.
    assert.deepEqual([...sectionFiles(run.capture, 'fdinfo').keys()], []);
    // What is world-readable is still read.
    assert.equal(model.meminfo.get('MemTotal'), apu.facts.memTotal);
    assert.equal(podOf(run, apu.facts.podUid).accounted, apu.facts.memoryCurrent);
    // The pod's GTT went unseen: every report says first what was not read and which verdicts it leaves unknown.
    const sight = run.inspection.sight;
    assert.equal(sight.kind, 'partial');
    const unread = sight.kind === 'partial' ? sight.unread : [];
    assert.deepEqual(
      unread.map((input) => input.input),
      ['the kernel log (OOM kills)', "other processes' /proc/<pid>/fd and fdinfo (GPU memory per process and pod)"],
    );
    assert.ok(unread[1]?.unknownVerdicts.includes('memory.pod-gtt'));
    const text = inspectionToText(run.inspection);
    assert.equal(text.includes('No problems found'), false);
    assert.ok(text.indexOf('NOT READ the kernel log') < text.indexOf('kernel, driver and dmem'));
    assert.match(text, /the probe ran as uid 65534, not root/);
    assert.match(inspectionToMarkdown(run.inspection), /^## ❔ Not read$/m);
    assert.equal((inspectionToJson(run.inspection) as { sight: { kind: string } }).sight.kind, 'partial');
  });

  for (const missing of ['grep', 'xargs'] as const) {
    test(`no ${missing}: the fdinfo sweep finds the same processes and bytes`, T, async () => {
      // dash: busybox ash runs its own applets (xargs among them) even where no link is installed.
      const root = keep(buildApuNode({ shell: 'dash', omitTools: [missing] }));
      assert.equal(existsSync(join(root.root, `bin/${missing}`)), false);
      const run = await probeFixture(root);
      assert.equal(run.capture.sections.get('fdinfo')?.complete, true);
      const paths = run.capture.sections.get('fdinfo')?.records.map((record) => record.path) ?? [];
      const records = sectionFiles(run.capture, 'fdinfo');
      if (missing === 'xargs') {
        // No batches without xargs: each file is its own record, read by the shell loop.
        assert.equal(paths.includes('/proc/.gpumem-heads-8192'), false);
        assert.ok(paths.includes(`/proc/${root.facts.dupPid}/fdinfo/9`), 'one record per fd');
        assert.match(records.get(`/proc/${root.facts.vanishedPid}/fdinfo/5`) ?? '', /No such file/);
      } else {
        // awk filters ls's whole listing itself.
        assert.deepEqual(paths, ['/proc/.gpumem-heads-8192']);
      }
      const batched = node(apuRun).model.gpuProcesses;
      const other = node(run).model.gpuProcesses;
      assert.deepEqual(
        other.map((p) => [p.pid, p.comm, p.cgroup, [...p.byRegion]]),
        batched.map((p) => [p.pid, p.comm, p.cgroup, [...p.byRegion]]),
      );
      assert.ok(other.length >= 2);
    });
  }

  for (const shell of SHELLS) {
    test(`${shell}: past its fd limit the sweep reads that many fds and says there were more`, T, async () => {
      // The node probe with its fdinfo limit at 3 (NODE_BODY's FDINFO_LIMIT, as awk and the marker use it): awk stops
      // the list there and its exit status comes back on fd 4 while the heads go on to the output.
      const fixture = keep(buildApuNode({ shell }));
      const body = NODE_BODY.replaceAll(`max=${FDINFO_LIMIT}`, 'max=3').replaceAll(`beyond ${FDINFO_LIMIT}`, 'beyond 3');
      assert.notEqual(body, NODE_BODY);
      const transport = new LocalTransport({ command: ['chroot', fixture.root, '/bin/sh', '-s'], env: ENV });
      try {
        const script = assembleProbeScript({ nonce: newNonce(), hostRoot: fixture.hostRoot, scope: 'node', comment: '# limit test', body });
        const result = await transport.run({ script, timeoutMs: 90_000, maxOutputBytes: 64 * 1024 * 1024 });
        assert.equal(result.exitCode, 0, result.stderr);
        const capture = parseCapture(result.stdout);
        const section = capture.sections.get('fdinfo');
        assert.equal(section?.complete, true);
        assert.deepEqual(section?.missing, ['fds beyond 3']);
        const fds = [...sectionFiles(capture, 'fdinfo').keys()].filter((path) => path.includes('/fdinfo/'));
        assert.equal(fds.length, 3, fds.join(', '));
        // The sections after it are whole: the probe went on.
        assert.equal(capture.sections.get('pod-rss')?.complete, true);
        assert.equal(capture.complete, true);
      } finally {
        await transport.close();
      }
    });
  }

  for (const shell of SHELLS) {
    test(`${shell}: eight cards and a hundred module parameters are read in one batch each`, T, async () => {
      // An 8-GPU node has a card per GPU and amdgpu has about a hundred parameters: a head per file was a process each.
      const fixture = keep(buildApuNode({ shell }));
      const tree = Object.assign(Object.create(NodeTree.prototype) as NodeTree, { root: fixture.root, hostRoot: fixture.hostRoot });
      for (let card = 1; card < 8; card++) {
        const dev = `/sys/class/drm/card${card}/device`;
        tree.file(`${dev}/vendor`, '0x1002\n', 0o444);
        tree.file(`${dev}/device`, '0x74a1\n', 0o444);
        tree.file(`${dev}/mem_info_vram_total`, `${(card * 16 + 176) * GiB}\n`, 0o444);
        tree.file(`${dev}/mem_info_vram_used`, `${card * GiB}\n`, 0o444);
        tree.link(`${dev}/driver`, '../../../../bus/pci/drivers/amdgpu');
      }
      for (let i = 0; i < 100; i++) tree.file(`/sys/module/amdgpu/parameters/bench_param_${i}`, `${i}\n`, 0o444);
      const run = await probeFixture(fixture);
      assertClean(run, `${shell} eight cards`);
      const model = node(run).model;
      assert.deepEqual(
        model.gpus.map((gpu) => [gpu.card, gpu.driver, gpu.vramTotal]),
        Array.from({ length: 8 }, (_, card) => [`card${card}`, 'amdgpu', card === 0 ? model.gpus[0]?.vramTotal : (card * 16 + 176) * GiB]),
      );
      const params = model.moduleParams.get('amdgpu');
      for (let i = 0; i < 100; i++) assert.equal(params?.get(`bench_param_${i}`), String(i));
      assert.equal(params?.get('gttsize'), '-1', "the fixture's own parameters too");
      assert.equal(model.moduleParams.get('ttm')?.get('pages_limit'), '25165824');
      for (const section of ['drm', 'modparams']) {
        const paths = run.capture.sections.get(section)?.records.map((record) => record.path) ?? [];
        assert.equal(paths.filter((path) => path?.endsWith('/.gpumem-heads-262144')).length, 1, `${section}: ${paths.join(', ')}`);
      }
    });
  }

  test('no find: the kubepods cgroups are read by the shell loop instead, with the same pods and numbers', T, async () => {
    // dash: busybox ash would run its own find applet even without a link.
    const root = keep(buildApuNode({ shell: 'dash', omitTools: ['find'] }));
    assert.equal(existsSync(join(root.root, 'bin/find')), false);
    const run = await probeFixture(root);
    assert.equal(run.capture.sections.get('cgroup.kubepods')?.complete, true);
    const pods = (r: ProbeRun) =>
      node(r)
        .pods.map((pod) => [pod.podUid, pod.accounted, pod.limit, pod.gtt, pod.trueFootprint])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(pods(run), pods(apuRun));
    assert.ok(pods(run).length >= 2);
    assert.equal(podOf(run, root.facts.podUid).accounted, root.facts.memoryCurrent);
  });

  test('missing tools: a root without od and timeout still completes', T, async () => {
    const noToolsApu = keep(buildApuNode({ omitTools: ['od', 'timeout'] }));
    const noToolsHami = keep(buildHamiNode({ shell: 'dash', omitTools: ['od', 'timeout'] }));
    for (const fixture of [noToolsApu, noToolsHami]) {
      assert.equal(existsSync(join(fixture.root, 'bin/od')), false);
      assert.equal(existsSync(join(fixture.root, 'bin/timeout')), false);
    }
    const apuNoTools = await probeFixture(noToolsApu);
    assertClean(apuNoTools, 'apu without od/timeout');
    assertApuPod(apuNoTools, noToolsApu.facts);
    const hamiNoTools = await probeFixture(noToolsHami);
    assertClean(hamiNoTools, 'hami without od/timeout');
    const caches = sectionFiles(hamiNoTools.capture, 'hami.caches');
    assert.equal(caches.size, 2);
    for (const body of caches.values()) {
      assert.match(body, new RegExp(`^size=${CACHE_FILE_SIZE}$`, 'm'));
      assert.match(body, /^od-missing$/m);
      assert.doesNotMatch(body, /^header=/m);
    }
  });
});
