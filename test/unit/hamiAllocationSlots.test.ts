// HAMi's allocation annotations keep one slot per container, in position (Project-HAMi/HAMi
// pkg/device/devices.go Resourcereqs and DecodePodDevices): real values from public threads, each with the
// pod it was written for (test/fixtures/hami/pod-allocation-slots.json, provenance in its README).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { hamiPodQuotas } from '../../src/core/kube/hamiPodQuotas.ts';
import type { HamiContainerAllocation } from '../../src/core/kube/pods.ts';
import { hamiFactsFromPod, parseHamiPodDevices, summarizePod } from '../../src/core/kube/pods.ts';

interface SlotCase {
  readonly source: string;
  readonly pod: unknown;
  readonly annotation?: string;
  readonly expect: {
    readonly allocated: readonly [string | null, readonly [string, number, number][]][];
    readonly toAllocate?: readonly [string | null, readonly [string, number, number][]][];
    readonly problems: number;
  };
}

const fixture = JSON.parse(readFileSync(new URL('../fixtures/hami/pod-allocation-slots.json', import.meta.url), 'utf8')) as {
  cases: SlotCase[];
  pods: Record<string, { metadata: Record<string, unknown> }>;
};

function podOf(entry: SlotCase): unknown {
  if (typeof entry.pod !== 'string') return entry.pod;
  const base = structuredClone(fixture.pods[entry.pod]);
  assert.ok(base, entry.pod);
  base.metadata['annotations'] = { 'hami.io/vgpu-devices-allocated': entry.annotation };
  return base;
}

function shape(entries: readonly HamiContainerAllocation[] | undefined): unknown {
  return entries?.map((entry) => [
    entry.container ?? null,
    entry.devices.map((device) => [device.uuid, device.usedMemMiB, device.usedCores]),
  ]);
}

for (const entry of fixture.cases) {
  test(`HAMi slots stay with their containers: ${entry.source}`, () => {
    const summary = summarizePod(podOf(entry));
    assert.deepEqual(shape(summary.hami?.allocated), entry.expect.allocated);
    if (entry.expect.toAllocate) assert.deepEqual(shape(summary.hami?.toAllocate), entry.expect.toAllocate);
    assert.equal(summary.hami?.problems.length, entry.expect.problems, summary.hami?.problems.join('\n'));
  });
}

test('HAMi slots: a container without devices gets no quota, and a ,,0,0 placeholder is no device', () => {
  const issue991 = fixture.cases.find((entry) => entry.annotation?.startsWith(',,0,0'));
  assert.ok(issue991);
  const pod = podOf(issue991);
  assert.equal(hamiFactsFromPod(pod, 'qos-pod-3').allocatedDevices, undefined);
  assert.deepEqual(hamiFactsFromPod(pod, 'qos-pod-2').allocatedDevices, [
    { uuid: 'GPU-0aa6b97c-d386-26ba-a94a-b9d27c2e3a71', memMiB: 1000 },
  ]);
  assert.deepEqual([...(hamiPodQuotas([pod]).get('991')?.devices ?? [])], [['GPU-0aa6b97c-d386-26ba-a94a-b9d27c2e3a71', 1000]]);
});

test('HAMi slots: when the slots do not follow the containers, no container is given a quota', () => {
  const shifted = fixture.cases.find((entry) => entry.expect.problems > 0);
  assert.ok(shifted);
  const pod = podOf(shifted);
  // The first slot holds the device but qos-pod-1 requests no GPU: neither it nor qos-pod-2 is credited.
  assert.equal(hamiFactsFromPod(pod, 'qos-pod-1').allocatedDevices, undefined);
  assert.equal(hamiFactsFromPod(pod, 'qos-pod-2').allocatedDevices, undefined);
  assert.match(summarizePod(pod).hami?.problems[0] ?? '', /slot 0 holds devices but its container "qos-pod-1" requests no GPU/);
  // The pod's total is still known: the quota check compares per GPU, not per container.
  assert.equal(hamiPodQuotas([pod]).get('991')?.devices.get('GPU-0aa6b97c-d386-26ba-a94a-b9d27c2e3a71'), 1000);
});

test('HAMi slots: padding past the containers is dropped only when empty; a slot with devices is never dropped', () => {
  const containers = { all: ['init', 'main'], app: ['main'] };
  assert.deepEqual(
    parseHamiPodDevices(';;GPU-1,NVIDIA,500,3:;;', containers).entries.map((entry) => [entry.container ?? null, entry.devices.length]),
    [
      [null, 0],
      [null, 0],
      [null, 1],
    ],
  );
  assert.deepEqual(
    parseHamiPodDevices(';GPU-1,NVIDIA,500,3:;;;;', containers).entries.map((entry) => [entry.container ?? null, entry.devices.length]),
    [
      ['init', 0],
      ['main', 1],
    ],
  );
  // Without the pod's containers nothing is named and nothing is dropped.
  assert.equal(parseHamiPodDevices(';;;').entries.length, 3);
});
