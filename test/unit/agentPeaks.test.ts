// The agent's per-container series and its GPU memory maxima between scrapes: the container figures of a real
// analysis (working set as cAdvisor computes it, the GTT of the container's own processes), the sliding-window
// maximum against a brute-force oracle, the watch's decision to sweep, and the watch capture's level.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderAgentMetrics } from '../../src/core/agent/agentSamples.ts';
import type { GpuLevels, PodGpuLevel } from '../../src/core/agent/gpuLevels.ts';
import { PeakWindow } from '../../src/core/agent/gpuPeaks.ts';
import { GpuWatch, WATCH_RISE_BYTES, watchReading } from '../../src/core/agent/gpuWatch.ts';
import { sweepLevels } from '../../src/core/agent/gpuSweep.ts';
import { nodeGpuLevels, nodeMetricFacts, nodeSamples } from '../../src/core/agent/nodeSamples.ts';
import { podIdentities } from '../../src/core/agent/podIdentities.ts';
import { EMPTY_LEDGER } from '../../src/core/agent/oomLedger.ts';
import { parsePromText } from '../../src/core/agent/promText.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { captureText } from './helpers/captureText.ts';
import { GiB, MiB, nodeCapture, STRIX_HALO } from './helpers/nodeCapture.ts';

const TRAINER = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const IDLE = '0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f';
// nodeCapture names pod N's one container scope cri-containerd-<N as 4 hex digits × 16>.scope.
const TRAINER_CONTAINER = '0001'.repeat(16);
const IDLE_CONTAINER = '0002'.repeat(16);

function strixCapture(trainerGtt: number): string {
  return nodeCapture({
    hostname: 'strix-1',
    kernel: '7.1.0-gpumem',
    memTotal: 128 * GiB,
    memAvailable: 41 * GiB,
    gpus: [{ ...STRIX_HALO, gttUsed: trainerGtt + 2 * GiB }],
    pods: [
      {
        uid: TRAINER,
        current: 6 * GiB,
        max: 32 * GiB,
        processes: [{ pid: 4242, comm: 'python3', fds: [{ fd: 7, client: '11', gtt: trainerGtt, vram: 256 * MiB, pdev: '0000:c5:00.0' }] }],
      },
      { uid: IDLE, current: 1 * GiB, max: 'max' },
    ],
  });
}

function nodeOf(text: string) {
  const node = analyzeCaptureText(text, { target: 'test' }).node;
  assert.ok(node, 'a node capture');
  return node;
}

const identities = podIdentities([
  {
    metadata: { uid: TRAINER, name: 'trainer-0', namespace: 'ml' },
    status: { containerStatuses: [{ name: 'trainer', containerID: `containerd://${TRAINER_CONTAINER}` }] },
  },
  // The API lists no container with the cgroup's ID: that cgroup is the pod's sandbox, not a workload container.
  { metadata: { uid: IDLE, name: 'idle-0', namespace: 'ml' }, status: { containerStatuses: [] } },
]);

test('per container: working set (usage less inactive file), the GTT its processes hold; the sandbox left out', () => {
  const samples = nodeSamples(nodeOf(strixCapture(30 * GiB)), 'strix-1', identities);
  const of = (name: string) => samples.filter((sample) => sample.name === name);
  // nodeCapture writes memory.current = pod current − 4096 for the container and no memory.stat: no inactive file.
  assert.deepEqual(
    of('gpumem_container_memory_working_set_bytes').map((sample) => [sample.labels, sample.value]),
    [[{ node: 'strix-1', namespace: 'ml', pod: 'trainer-0', uid: TRAINER, container: 'trainer' }, 6 * GiB - 4096]],
  );
  assert.deepEqual(
    of('gpumem_container_unaccounted_bytes').map((sample) => [sample.labels['container'], sample.value]),
    [['trainer', 30 * GiB]],
  );
  // Without the API's view, containers are labelled by the ID's first 12 characters, the sandbox included.
  const bare = nodeSamples(nodeOf(strixCapture(30 * GiB)), 'strix-1', new Map());
  assert.deepEqual(
    bare.filter((sample) => sample.name === 'gpumem_container_memory_working_set_bytes').map((sample) => sample.labels['container']),
    // In pod UID order, as every pod series: IDLE's UID sorts first.
    [IDLE_CONTAINER.slice(0, 12), TRAINER_CONTAINER.slice(0, 12)],
  );
});

test('working set subtracts inactive_file as cAdvisor does, and memory.peak is the kernel high-water mark', () => {
  const dir = '/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b4e28ba_2fa1_11d2_883f_0016d3cca427.slice';
  const scope = `${dir}/cri-containerd-${TRAINER_CONTAINER}.scope`;
  const text = captureText('node', {
    meta: 'hostname=n\nkernel=6.12.0\n',
    'cgroup.mode': 'v2\n',
    'cgroup.kubepods': {
      files: [
        [`${dir}/memory.current`, `${8 * GiB}\n`],
        [`${dir}/memory.max`, 'max\n'],
        [`${scope}/memory.current`, `${8 * GiB}\n`],
        [`${scope}/memory.peak`, `${31 * GiB}\n`],
        [`${scope}/memory.stat`, `anon ${5 * GiB}\nfile ${3 * GiB}\ninactive_file ${2 * GiB}\nactive_file ${1 * GiB}\n`],
      ],
    },
  });
  const samples = nodeSamples(nodeOf(text), 'n', new Map());
  const value = (name: string) => samples.find((sample) => sample.name === name)?.value;
  assert.equal(value('gpumem_container_memory_working_set_bytes'), 8 * GiB - 2 * GiB);
  assert.equal(value('gpumem_container_memory_peak_bytes'), 31 * GiB);
});

test('the maxima between scrapes: a spike a sweep saw outlives it for the peak window, then expires', () => {
  const window = new PeakWindow(60_000);
  const base = nodeOf(strixCapture(30 * GiB));
  window.record(0, nodeGpuLevels(base));
  // A sweep at t = 10 s sees the trainer at 50 GiB; the next full cycle at 30 s sees it back at 30.
  window.record(10_000, sweepLevels(strixCapture(50 * GiB)).levels);
  window.record(30_000, nodeGpuLevels(base));
  const render = (now: number) =>
    parsePromText(
      renderAgentMetrics({
        status: {
          nodeName: 'strix-1',
          version: 't',
          cycles: 2,
          errors: new Map(),
          lastDurationSeconds: 1,
          lastSuccessSeconds: 30,
          api: { kind: 'connected' },
        },
        node: nodeMetricFacts(base),
        ledger: EMPTY_LEDGER,
        identities,
        peaks: window.maxima(now),
      }).text,
    ).samples;
  const at40 = render(40_000);
  const get = (samples: ReturnType<typeof render>, name: string) =>
    samples.find((sample) => sample.name === name && sample.labels['uid'] === TRAINER)?.value;
  assert.equal(get(at40, 'gpumem_pod_unaccounted_bytes'), 30 * GiB, 'the current value is the last cycle');
  assert.equal(get(at40, 'gpumem_pod_unaccounted_max_bytes'), 50 * GiB, 'the spike the sweep saw');
  // True footprint at the same look: memory.current (6 GiB) + the spike, not a sum of two maxima.
  assert.equal(get(at40, 'gpumem_pod_true_footprint_max_bytes'), 6 * GiB + 50 * GiB);
  assert.equal(
    at40.find((sample) => sample.name === 'gpumem_container_unaccounted_max_bytes' && sample.labels['container'] === 'trainer')?.value,
    50 * GiB,
  );
  // 71 s: the sweep's point (10 s) is out of the 60 s window; the cycle at 30 s remains.
  assert.equal(get(render(71_000), 'gpumem_pod_unaccounted_max_bytes'), 30 * GiB);
  // 91 s: nothing left in the window for a pod no look has seen since: its maxima are gone.
  assert.equal(get(render(91_000), 'gpumem_pod_unaccounted_max_bytes'), undefined);
});

function levelsOf(values: Readonly<Record<string, number>>): GpuLevels {
  const pods = new Map<string, PodGpuLevel>();
  for (const [uid, value] of Object.entries(values))
    pods.set(uid, {
      accounted: 0,
      unaccounted: value,
      trueFootprint: value,
      vram: new Map([['', value / 2]]),
      containers: new Map([['c', value]]),
    });
  return { pods };
}

test('the sliding maximum equals the brute-force maximum of the looks inside the window (property)', () => {
  const look = fc.record({
    dt: fc.integer({ min: 0, max: 20_000 }),
    a: fc.option(fc.integer({ min: 0, max: 1e12 })),
    b: fc.option(fc.integer({ min: 0, max: 1e12 })),
  });
  fc.assert(
    fc.property(
      fc.array(look, { maxLength: 200 }),
      fc.integer({ min: 1, max: 90_000 }),
      fc.integer({ min: 0, max: 90_000 }),
      (looks, windowMs, lateMs) => {
        const window = new PeakWindow(windowMs);
        const recorded: { t: number; uid: string; value: number }[] = [];
        let t = 0;
        for (const { dt, a, b } of looks) {
          t += dt;
          const values: Record<string, number> = {};
          if (a !== null) values['a'] = a;
          if (b !== null) values['b'] = b;
          window.record(t, levelsOf(values));
          for (const [uid, value] of Object.entries(values)) recorded.push({ t, uid, value });
        }
        const now = t + lateMs;
        const maxima = window.maxima(now);
        for (const uid of ['a', 'b']) {
          const inside = recorded.filter((point) => point.uid === uid && point.t >= now - windowMs).map((point) => point.value);
          const expected = inside.length > 0 ? Math.max(...inside) : undefined;
          assert.equal(maxima.get(uid)?.unaccounted, expected);
          assert.equal(maxima.get(uid)?.containers.get('c'), expected);
          assert.equal(maxima.get(uid)?.vram.get(''), expected === undefined ? undefined : expected / 2);
        }
      },
    ),
    { seed: 4242, numRuns: 300 },
  );
});

test('the watch sweeps on a rise of at least 64 MiB over the low point since the last attributing look', () => {
  const watch = new GpuWatch();
  watch.attributed(10 * GiB);
  assert.equal(watch.observe(10 * GiB + WATCH_RISE_BYTES - 1), false, 'under the threshold');
  assert.equal(watch.observe(10 * GiB + WATCH_RISE_BYTES), true, 'at the threshold');
  watch.attributed(10 * GiB + WATCH_RISE_BYTES);
  assert.equal(watch.observe(10 * GiB + WATCH_RISE_BYTES), false, 'a plateau after the sweep');
  // One pod frees 4 GiB, another takes 3: the level ends below the last sweep but rose from the low point.
  assert.equal(watch.observe(6 * GiB), false);
  assert.equal(watch.observe(9 * GiB), true);
  // Before any attributing look the first reading only sets the low point.
  const fresh = new GpuWatch();
  assert.equal(fresh.observe(50 * GiB), false);
  assert.equal(fresh.observe(60 * GiB), true);
});

test('the watch level: cards, NVIDIA memory.used, or the node RAM in use when NVML cannot say (unified memory)', () => {
  const card = (name: string, gtt: string, vram: string) =>
    [
      [`/sys/class/drm/${name}/device/mem_info_gtt_used`, `${gtt}\n`],
      [`/sys/class/drm/${name}/device/mem_info_vram_used`, `${vram}\n`],
    ] as const;
  const meminfo = ['/proc/meminfo', 'MemTotal:       131072000 kB\nMemAvailable:    31072000 kB\n'] as const;
  assert.deepEqual(
    watchReading(
      captureText('node', { proc: { files: [meminfo] }, drm: { files: [...card('card0', '1000', '24'), ...card('card1', '500', '0')] } }),
    ),
    {
      kind: 'level',
      bytes: 1524,
      source: 'gpu',
    },
  );
  assert.deepEqual(
    watchReading(captureText('node', { proc: { files: [meminfo] }, drm: { files: [] }, 'nvidia-smi.watch': '0, 1024\n1, 512\n' })),
    {
      kind: 'level',
      bytes: 1536 * MiB,
      source: 'gpu',
    },
  );
  assert.deepEqual(
    watchReading(captureText('node', { proc: { files: [meminfo] }, drm: { files: [] }, 'nvidia-smi.watch': '0, [N/A]\n' })),
    {
      kind: 'level',
      bytes: (131072000 - 31072000) * 1024,
      source: 'node-ram',
    },
  );
  assert.equal(watchReading(captureText('node', { proc: { files: [meminfo] }, drm: { files: [] } })).kind, 'none');
  assert.equal(watchReading('garbage \u0000 not a capture').kind, 'none');
});
