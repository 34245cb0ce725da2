import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  APPS_FIELDS,
  CONTAINER_GPU_FIELDS,
  NODE_GPU_FIELDS,
  parseSmiApps,
  parseSmiCsv,
  parseSmiGpus,
} from '../../src/core/probe/parsers/nvidiaSmi.ts';
import { CONTAINER_APPS_QUERY, CONTAINER_BODY, CONTAINER_GPU_QUERY } from '../../src/core/probe/scripts/containerScript.ts';
import { NODE_BODY } from '../../src/core/probe/scripts/nodeScript.ts';

// Provenance: test/fixtures/nvidia-smi/README.md (verbatim outputs from public GitHub threads).
const fixture = (name: string) => readFileSync(new URL(`../fixtures/nvidia-smi/${name}`, import.meta.url), 'utf8');

test('nvidia-smi: the field lists match the queries the probes run', () => {
  assert.ok(NODE_BODY.includes(`--query-gpu=${NODE_GPU_FIELDS.join(',')} `), 'node --query-gpu');
  assert.ok(NODE_BODY.includes(`--query-compute-apps=${APPS_FIELDS.join(',')} `), 'node --query-compute-apps');
  assert.equal(CONTAINER_GPU_QUERY, CONTAINER_GPU_FIELDS.join(','));
  assert.equal(CONTAINER_APPS_QUERY, APPS_FIELDS.join(','));
  assert.ok(CONTAINER_BODY.includes(`--query-gpu=${CONTAINER_GPU_QUERY} --format=csv,noheader,nounits`));
});

test('nvidia-smi: [N/A] and [Not Supported] are unavailable values with their reason (i3pystatus#776)', () => {
  const fields = ['memory.total', 'memory.free', 'memory.used', 'temperature.gpu', 'fan.speed', 'utilization.gpu', 'utilization.memory'];
  for (const [name, reason] of [
    ['i3pystatus-776-fan-na.csv', 'N/A'],
    ['i3pystatus-776-fan-not-supported.csv', 'Not Supported'],
  ] as const) {
    const result = parseSmiGpus(fixture(name), fields);
    assert.equal(result.rows.length, 1, name);
    const gpu = result.rows[0];
    assert.ok(gpu);
    assert.equal(gpu.memoryTotalMiB, 2004);
    assert.equal(gpu.memoryFreeMiB, 2004);
    assert.equal(gpu.memoryUsedMiB, 0);
    assert.equal(gpu.utilizationGpuPercent, 0);
    assert.equal(gpu.cells['fan.speed']?.value, undefined);
    assert.equal(gpu.cells['fan.speed']?.unavailable, reason);
    assert.equal(gpu.memoryUnreported, false);
    assert.deepEqual(result.problems, []);
  }
});

test('nvidia-smi: a wide row with a bare N/A and a GPU name with spaces (gpu-utils#83)', () => {
  const fields = [
    'power.limit',
    'power.min_limit',
    'power.max_limit',
    'memory.total',
    'vbios_version',
    'driver_version',
    'name',
    'gpu_uuid',
    'power.draw',
    'temperature.gpu',
    'temperature.memory',
    'clocks.current.graphics',
    'clocks.sm',
    'clocks.mem',
    'utilization.gpu',
    'utilization.memory',
    'fan.speed',
    'pcie.link.width.current',
    'pstate',
  ];
  const result = parseSmiGpus(fixture('gpu-utils-83-rtx2080.csv'), fields);
  const gpu = result.rows[0];
  assert.ok(gpu);
  assert.equal(gpu.name, 'GeForce RTX 2080');
  assert.equal(gpu.uuid, 'GPU-22b2c6ac-2d49-4863-197c-9c469071178a');
  assert.equal(gpu.driverVersion, '440.64');
  assert.equal(gpu.memoryTotalMiB, 7979);
  assert.equal(gpu.utilizationGpuPercent, 86);
  assert.equal(gpu.cells['temperature.memory']?.unavailable, 'N/A');
  assert.equal(gpu.cells['pstate']?.value, 'P2');
});

test('nvidia-smi: GB10 unified memory — memory.total [N/A] is flagged, compute-apps still report (llama-swap#782)', () => {
  const gpus = parseSmiGpus(fixture('llama-swap-782-gb10-gpu.csv'), ['memory.used', 'memory.total', 'utilization.memory']);
  const gpu = gpus.rows[0];
  assert.ok(gpu);
  assert.equal(gpu.memoryTotalMiB, undefined);
  assert.equal(gpu.memoryUsedMiB, undefined);
  assert.equal(gpu.memoryUnreported, true);
  assert.equal(gpus.problems.length, 1);
  assert.match(gpus.problems[0] ?? '', /unified-memory/);
  const apps = parseSmiApps(fixture('llama-swap-782-gb10-apps.csv'));
  assert.equal(apps.rows.length, 1);
  assert.equal(apps.rows[0]?.pid, 114687);
  assert.equal(apps.rows[0]?.processName, '/usr/local/bin/python');
  assert.equal(apps.rows[0]?.usedMemoryMiB, 19135);
  assert.equal(apps.rows[0]?.gpuUuid, 'GPU-...');
});

test('nvidia-smi: a header line (--format=csv) is recognised and its order trusted (unsloth#10283)', () => {
  // Queried in a different order on purpose: the header wins.
  const result = parseSmiGpus(fixture('unsloth-10283-gb10-header.csv'), CONTAINER_GPU_FIELDS);
  assert.deepEqual(result.fields, ['memory.free', 'memory.total', 'memory.used']);
  assert.equal(result.rows.length, 1);
  assert.equal(result.rows[0]?.memoryUnreported, true);
  assert.equal(result.rows[0]?.cells['memory.free']?.unavailable, 'N/A');
});

test('nvidia-smi: the header renames a queried field (dcgm-exporter#94: name → process_name)', () => {
  const result = parseSmiApps(fixture('dcgm-exporter-94-apps-header.csv'), ['gpu_uuid', 'name']);
  assert.deepEqual(result.fields, ['gpu_uuid', 'process_name']);
  assert.equal(result.rows.length, 3);
  assert.equal(result.rows[2]?.gpuUuid, 'GPU-777ead31-954e-837f-590f-6c4974d8e571');
  assert.equal(result.rows[2]?.processName, 'vgpu');
  assert.equal(result.rows[2]?.pid, undefined, 'pid was not queried');
});

test('nvidia-smi: two GPUs, name and free memory (CLIc#89)', () => {
  const result = parseSmiGpus(fixture('clic-89-two-gpus.csv'), ['gpu_name', 'memory.free']);
  assert.deepEqual(
    result.rows.map((row) => [row.name, row.memoryFreeMiB]),
    [
      ['NVIDIA GeForce GTX 1050 Ti', 2131],
      ['NVIDIA GeForce RTX 3080 Ti', 16000],
    ],
  );
});

test('nvidia-smi: driver and NVML failures are errors, not rows', () => {
  for (const name of ['ci-for-research-40-no-driver.txt', 'hami-1520-nvml-unknown-error.txt']) {
    const result = parseSmiGpus(fixture(name), NODE_GPU_FIELDS);
    assert.equal(result.rows.length, 0, name);
    assert.equal(result.errors.length, 1, name);
    assert.equal(result.errors[0], fixture(name).trim());
  }
  const invalid = parseSmiGpus('Field "memory.reserved" is not a valid field to query.\n\n', NODE_GPU_FIELDS);
  assert.equal(invalid.errors.length, 1);
});

test('nvidia-smi: HAMi-core lines printed on stderr by a preloaded libvgpu.so are set aside (HAMi#332 lines)', () => {
  const result = parseSmiGpus(fixture('hami-332-stderr-interleaved.txt'), CONTAINER_GPU_FIELDS);
  assert.equal(result.rows.length, 1);
  assert.equal(result.otherLines.length, 6);
  assert.ok(result.otherLines[1]?.includes('Initializing.....'));
  const gpu = result.rows[0];
  assert.equal(gpu?.index, 0);
  assert.equal(gpu?.memoryTotalMiB, 10240);
  assert.equal(gpu?.name, 'NVIDIA GeForce RTX 4090');
});

test('nvidia-smi: missing columns, extra separators in process names, units, empty output', () => {
  const short = parseSmiGpus('0, GPU-a, NVIDIA A100-SXM4-80GB, 81920\n', CONTAINER_GPU_FIELDS);
  assert.equal(short.rows[0]?.memoryTotalMiB, 81920);
  assert.equal(short.rows[0]?.memoryUsedMiB, undefined);
  assert.equal(short.rows[0]?.cells['memory.used']?.unavailable, 'missing');
  assert.equal(short.rows[0]?.memoryUnreported, false, 'a missing column is truncation, not unified memory');
  assert.match(short.problems[0] ?? '', /row has 4 of 6 columns/);

  const comma = parseSmiApps('GPU-a, 4242, /opt/my, app/run, 512\n');
  assert.equal(comma.rows[0]?.processName, '/opt/my, app/run');
  assert.equal(comma.rows[0]?.usedMemoryMiB, 512);
  assert.deepEqual(comma.problems, []);

  const units = parseSmiGpus('0, GPU-b, Tesla T4, 15360 MiB, 4 MiB, 15356 MiB\n', CONTAINER_GPU_FIELDS);
  assert.equal(units.rows[0]?.memoryUsedMiB, 4);

  assert.deepEqual(parseSmiApps('').rows, []);
  assert.deepEqual(parseSmiApps('\n\n').errors, []);
  assert.equal(parseSmiCsv('[Insufficient Permissions], 1\n', ['a', 'b']).rows[0]?.cells['a']?.unavailable, 'Insufficient Permissions');
});

test('nvidia-smi: fuzz — truncated and garbled output never throws', () => {
  const texts = [
    'gpu-utils-83-rtx2080.csv',
    'hami-332-stderr-interleaved.txt',
    'dcgm-exporter-94-apps-header.csv',
    'unsloth-10283-gb10-header.csv',
  ].map(fixture);
  for (const text of texts) {
    for (let cut = 0; cut <= text.length; cut += 5) {
      const gpus = parseSmiGpus(text.slice(0, cut), NODE_GPU_FIELDS);
      const apps = parseSmiApps(text.slice(cut));
      assert.ok(Array.isArray(gpus.rows) && Array.isArray(apps.rows));
      parseSmiGpus(text.slice(0, cut).replace(/,/g, ',,').replace(/\d/g, 'x'), CONTAINER_GPU_FIELDS);
    }
  }
});
