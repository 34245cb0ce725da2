// Regressions for what the long fuzz run (`npm run fuzz`, seeds 891298768, 1951117220, 2030648912, 168661840) found: counts,
// pids, versions and sizes printed as digit runs of any length became Infinity, and nvidia-smi's -1 became a
// negative memory amount. Each is now "no value" (undefined), never Infinity or negative.
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { parseLsLine, parseMountInfoLine } from '../../src/core/probe/parsers/containerFiles.ts';
import { classifyHamiMessage, parseHamiLogLine } from '../../src/core/probe/parsers/hamiLog.ts';
import { parseProcesses } from '../../src/core/probe/parsers/containerProcesses.ts';
import { sampleFromCapture } from '../../src/core/inspectorPanel/sample.ts';
import { captureText } from './helpers/captureText.ts';
import { nodeCapture } from './helpers/nodeCapture.ts';
import { parseHamiPodDevices } from '../../src/core/kube/pods.ts';
import { parseKernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import { parseBoundedNumber } from '../../src/core/probe/parsers/kernelNumber.ts';
import { parseKernelVersion } from '../../src/core/probe/parsers/keyValue.ts';
import { parseSmiGpus } from '../../src/core/probe/parsers/nvidiaSmi.ts';
import { MAX_KUBELET_CONFIG_CHARS, parseKubeletReservations } from '../../src/core/probe/parsers/nodeConfig.ts';
import { INSPECTOR_STATE_VERSION, notification, parseHostNotification, parseInspectorState } from '../../src/core/inspector/protocol.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';

const HUGE = '9'.repeat(400);

test('parseBoundedNumber: whole numbers up to 2^53, anything else undefined', () => {
  assert.equal(parseBoundedNumber('0'), 0);
  assert.equal(parseBoundedNumber('31337'), 31337);
  assert.equal(parseBoundedNumber('9007199254740991'), Number.MAX_SAFE_INTEGER);
  for (const text of [HUGE, '9007199254740993', '-1', '1.5', '', ' 1', undefined])
    assert.equal(parseBoundedNumber(text), undefined, String(text));
});

test('a capture header with a 400-digit version is an unknown version (0), with a problem, never Infinity', () => {
  const capture = parseCapture(`@@gpumem-probe v=${HUGE} scope=node nonce=feedfacefeedface0001 root=/@@\n`);
  assert.equal(capture.version, 0);
  assert.ok(
    capture.problems.some((problem) => problem.includes('newer than this gpumem understands')),
    capture.problems.join('\n'),
  );
});

test('a kernel release with a 400-digit major is not a version', () => {
  assert.equal(parseKernelVersion(`${HUGE}.1.0-generic`), undefined);
  assert.deepEqual(parseKernelVersion('7.1.0-39-generic'), { major: 7, minor: 1, patch: 0 });
});

test('nvidia-smi memory of -1 MiB is unknown, not a negative amount', () => {
  const [gpu] = parseSmiGpus('0, GPU-22b2c6ac-2d49-4863-197c-9c469071178a, GeForce RTX 2080, -1, 5, 10\n', [
    'index',
    'uuid',
    'name',
    'memory.total',
    'memory.used',
    'memory.free',
  ]).rows;
  assert.ok(gpu);
  assert.equal(gpu.memoryTotalMiB, undefined);
  assert.equal(gpu.memoryUsedMiB, 5);
});

test('HAMi-core log lines, ls and mountinfo lines with 400-digit numbers give no value', () => {
  assert.equal(parseHamiLogLine(`[HAMI-core Msg(${HUGE}:2:libvgpu.c:836)]: Initializing.....`)?.pid, undefined);
  assert.equal(parseLsLine(`-rw-r--r--    1 0        0        ${HUGE} Aug 21 10:00 /etc/ld.so.preload`)?.size, undefined);
  assert.equal(parseMountInfoLine(`${HUGE} 1015 0:289 / / rw,relatime - overlay overlay rw`)?.mountId, undefined);
  // Seed 168661840's siblings: the device index and CUDA result codes of HAMi-core's messages.
  assert.equal(classifyHamiMessage(`Device ${HUGE} OOM 1 / 2`).details.device, undefined);
  assert.equal(classifyHamiMessage(`Illegal device id: -${HUGE}`).details.device, undefined);
  assert.equal(classifyHamiMessage(`cuInit failed: ${HUGE}`).details.result, undefined);
  assert.equal(classifyHamiMessage('cuInit failed: -3').details.result, -3);
});

test('a light-probe capture whose clock is a 400-digit now= gives no target time, never Infinity (seed 168661840)', () => {
  const meta = (now: string): string => captureText('node', { meta: `hostname=strix-1\nnow=${now}\n` });
  assert.equal(sampleFromCapture(meta(HUGE), 1).targetTime, null);
  assert.equal(sampleFromCapture(meta('1764676800'), 1).targetTime, 1764676800);
});

test('a hami.io/vgpu-devices-allocated device with a 400-digit memory is 0 MiB (as HAMi reads it), never Infinity', () => {
  const { entries } = parseHamiPodDevices(`GPU-1,NVIDIA,${HUGE},50:;`);
  assert.equal(entries[0]?.devices[0]?.usedMemMiB, 0);
  assert.equal(parseHamiPodDevices('GPU-1,NVIDIA,+8192,50:;').entries[0]?.devices[0]?.usedMemMiB, 8192);
});

test('a container capture record for /proc/<400 digits> is no process, never pid Infinity', () => {
  const capture = parseCapture(captureText('container', { processes: { files: [[`/proc/${HUGE}`, 'comm=python3\n']] } }));
  assert.deepEqual(parseProcesses(capture.sections.get('processes')), []);
});

test('a liveState notification whose numbers are not finite is refused', () => {
  const ok = notification('liveState', { state: { status: 'running', everySeconds: 5, samples: 1, detail: 'Sampling' } });
  assert.ok(parseHostNotification(JSON.parse(JSON.stringify(ok))));
  const bad = JSON.parse(JSON.stringify(ok).replace('"everySeconds":5', '"everySeconds":1e999'));
  assert.equal(parseHostNotification(bad), undefined);
});

// FUZZ_SEED=821962911 (kernelLog.fuzz.ts): "total-vm:-1kB" gave a victim of -1 kB. The kernel prints these sizes
// with %lu (mm/oom_kill.c, __oom_kill_process), so a minus sign is no size at all.
test('a Killed process line with a negative size gives no size, never a negative one', () => {
  const line =
    '[ 3457.652078] Out of memory: Killed process 10843 (prometheus-conf) total-vm:-1kB, anon-rss:5064kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:108kB oom_score_adj:-997\n';
  const killed = parseKernelLog(line).events[0]?.killed;
  assert.equal(killed?.totalVmKb, undefined);
  assert.equal(killed?.anonRssKb, 5064);
  assert.equal(killed?.oomScoreAdj, -997, 'oom_score_adj is signed');
});

// FUZZ_SEED=1523120325 (parsers.fuzz.ts): the kubelet config read with yaml's parse() built an error object, stack
// included, per stray token, and the fuzz process ran out of a 4 GB heap. It shares the bounded reader of the
// kubeconfig now (src/core/text/boundedYaml.ts).
test('a kubelet config of a megabyte of stray brackets gives the flags alone, within a small heap', () => {
  const module = new URL('../../src/core/probe/parsers/nodeConfig.ts', import.meta.url).href;
  const script = `import { parseKubeletReservations } from ${JSON.stringify(module)};
const config = 'kind: KubeletConfiguration\\nkubeReserved: {memory: 1Gi}}' + '['.repeat(1 << 20) + '\\n';
const result = parseKubeletReservations(config, '/usr/bin/kubelet --system-reserved=memory=1Gi');
console.log(JSON.stringify(result));`;
  const child = spawnSync(process.execPath, ['--max-old-space-size=96', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(
    child.status,
    0,
    `exit ${child.status} ${child.signal ?? ''}: ${child.stderr.split('\n').find((line) => /heap|Error/.test(line)) ?? ''}`,
  );
  const result = JSON.parse(child.stdout) as { source: string; systemReserved?: number };
  assert.equal(result.source, 'kubelet command line');
  assert.equal(result.systemReserved, 1024 ** 3);
});

// FUZZ_SEED=168661840 (parsers.fuzz.ts): a kubelet config of a few MiB of nested YAML took the yaml library past a
// 1.2 GB heap. A kubelet config is a few KiB: past MAX_KUBELET_CONFIG_CHARS it is read as unreadable (the flags stand).
test('a kubelet config past 256 KiB is not parsed: the flags alone; a real one is still read', () => {
  const real = 'kind: KubeletConfiguration\nkubeReserved: {memory: 2Gi}\n';
  assert.equal(parseKubeletReservations(real, undefined)?.kubeReserved, 2 * 1024 ** 3);
  const padded = `${real}${'# padding\n'.repeat(Math.ceil(MAX_KUBELET_CONFIG_CHARS / 10))}`;
  assert.ok(padded.length > MAX_KUBELET_CONFIG_CHARS);
  const result = parseKubeletReservations(padded, '/usr/bin/kubelet --system-reserved=memory=1Gi');
  assert.equal(result?.kubeReserved, undefined);
  assert.equal(result?.systemReserved, 1024 ** 3);
  assert.equal(result?.source, 'kubelet command line');
});

test('a saved inspector state or update whose view model holds 1e999 (Infinity after JSON.parse) is refused (seed 168661840)', () => {
  const model = buildInspectorViewModel(analyzeCaptureText(captureText('node', { meta: 'hostname=n\n' }), { target: 'x' }));
  const source = { id: 'i', target: 'x', captureText: null, podNames: {}, clusterFacts: null };
  const text = JSON.stringify({ v: INSPECTOR_STATE_VERSION, model, source, ui: {} });
  assert.ok(parseInspectorState(JSON.parse(text)), 'the state as saved');
  const infinite = JSON.parse(text.replace(/"error":\d+/, '"error":1e999')) as unknown;
  assert.equal(parseInspectorState(infinite), undefined);
  assert.equal(parseHostNotification(notification('update', { model: (infinite as { model: never }).model, source })), undefined);
});

test('an update whose chart segment or sample is a negative amount of memory is refused (seed 695546592)', () => {
  const model = buildInspectorViewModel(
    analyzeCaptureText(nodeCapture({ kernel: '6.17.0', memTotal: 64 * 1024 ** 3, pods: [] }), { target: 'x' }),
  );
  const source = { id: 'i', target: 'x', captureText: null, podNames: {}, clusterFacts: null };
  const text = JSON.stringify({ model, source });
  assert.ok(parseHostNotification(notification('update', JSON.parse(text))), 'the update as built');
  const negative = JSON.parse(text.replace(/"accounted":\d+/, '"accounted":-9223372036854776000')) as { model: never };
  assert.notEqual(JSON.stringify(negative), text, 'the fixture has an accounted segment');
  assert.equal(parseHostNotification(notification('update', { model: negative.model, source })), undefined);
  const point = (current: number) => ({
    t: 1,
    targetTime: null,
    memAvailable: 1,
    memTotal: 2,
    pods: [{ podUid: 'u', current, gtt: 0, vram: 0 }],
    problems: [],
  });
  assert.ok(parseHostNotification(notification('sample', { point: point(1) })));
  assert.equal(parseHostNotification(notification('sample', { point: point(-1) })), undefined);
});
