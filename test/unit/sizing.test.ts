// The sizing module (src/core/sizing.ts), and the user's headroom reaching every remedy: a user who sets 25 % gets
// 25 % from the linter's message and quick fix, from the OOM verdicts and from the unaccounted-memory verdicts.
// Every expected size below is worked out by hand from the input's own numbers, never by calling sizing.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { parseMemoryCounters } from '../../src/core/probe/parsers/cgroupMemory.ts';
import { parseFleetSettings, parseSettings } from '../../src/core/settings.ts';
import { summarizeFleet } from '../../src/core/fleet/summary.ts';
import { syntheticFleetFacts } from '../helpers/fleetFacts.ts';
import {
  DEFAULT_HEADROOM_PERCENT,
  formatKb,
  headroomFactorText,
  isHeadroomPercent,
  suggestedMemoryQuantity,
  withHeadroom,
} from '../../src/core/sizing.ts';
import type { PodCgroupData } from '../../src/core/verdicts/oom/oomPodCgroups.ts';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import { findingsOf, fixOf, lint } from './helpers/lint.ts';
import { GiB, MiB, nodeCapture, STRIX_HALO } from './helpers/nodeCapture.ts';

const KERNEL_LOGS = new URL('../fixtures/kernel-logs/', import.meta.url);

describe('sizing', () => {
  test('the default is 30 %, and the accepted range is 0 to 1000 %', () => {
    assert.equal(DEFAULT_HEADROOM_PERCENT, 30);
    for (const value of [0, 25, 12.5, 1000]) assert.equal(isHeadroomPercent(value), true, String(value));
    for (const value of [-1, 1000.5, Number.NaN, Infinity, '25', undefined, null])
      assert.equal(isHeadroomPercent(value), false, String(value));
  });

  test('withHeadroom adds the percentage and rounds up to a byte', () => {
    assert.equal(withHeadroom(100, 30), 130);
    assert.equal(withHeadroom(48 * GiB, 25), 60 * GiB);
    assert.equal(withHeadroom(10, 25), 13); // 12.5 → 13
    assert.equal(withHeadroom(1000, 0), 1000);
  });

  test('headroomFactorText', () => {
    assert.deepEqual([30, 25, 12.5, 0, 100].map(headroomFactorText), ['1.3', '1.25', '1.125', '1', '2']);
  });

  test('suggestedMemoryQuantity: whole Mi below 4 GiB (Gi when whole), whole Gi from 4 GiB, never below the need', () => {
    const rows: ReadonlyArray<readonly [number, string | undefined]> = [
      [1, '1Mi'],
      [512 * MiB, '512Mi'],
      [1996.8 * MiB, '1997Mi'],
      [GiB, '1Gi'],
      [GiB + 1, '1025Mi'],
      [4 * GiB - MiB, '4095Mi'],
      [4 * GiB, '4Gi'],
      [4 * GiB + 1, '5Gi'],
      [62.4 * GiB, '63Gi'],
      [2 ** 64, undefined],
    ];
    for (const [bytes, text] of rows) assert.equal(suggestedMemoryQuantity(bytes), text, String(bytes));
  });

  test('formatKb is formatBytes of KiB: one decimal at most, no trailing .0', () => {
    assert.deepEqual([1048576, 1887436.8, 512, 2048].map(formatKb), ['1 GiB', '1.8 GiB', '512 KiB', '2 MiB']);
  });
});

describe('a user who sets 25 % headroom gets 25 % everywhere', () => {
  const settings = parseSettings((key) => (key === 'gpumem.lint.headroomPercent' ? 25 : undefined));

  test('the setting is parsed into the lint configuration', () => {
    assert.equal(settings.lint.headroomPercent, 25);
    assert.deepEqual(settings.problems, []);
  });

  test('the linter: 48 GiB of declared GPU memory needs 60 GiB, and the quick fix writes 60Gi', () => {
    const text = `apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 48Gi
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: server
      image: rocm/vllm:latest
      resources:
        limits:
          amd.com/gpu: 1
`;
    const [finding] = findingsOf(lint(text, settings.lint), 'gpu-no-memory-limit');
    assert.ok(finding);
    // 48 GiB × 1.25 = 60 GiB exactly.
    assert.match(finding.message, /It needs about 60 GiB \(GPU 48 GiB \+ 25 %\)/);
    assert.equal(fixOf(finding, /^Set memory limit to /).title, 'Set memory limit to 60Gi (GPU 48 GiB + 25 % headroom)');
  });

  test('a memory-cgroup kill: the new limit is 25 % over the 1 GiB the container hit', () => {
    const text = readFileSync(new URL('istio-42734-syslog-task-in.log', KERNEL_LOGS), 'utf8');
    const [verdict] = explainKernelLogText(text, { headroomPercent: settings.lint.headroomPercent }).verdicts;
    // 1 GiB × 1.25 = 1280 MiB.
    assert.match(verdict?.remedy ?? '', /to at least 1280Mi \(25 % over the 1 GiB it hit\)/);
  });

  test('a global kill with the GTT signature: 25 % over cgroup memory + GTT', () => {
    const text = readFileSync(new URL('synthetic-gtt-apu-7.1.log', KERNEL_LOGS), 'utf8');
    const pods: PodCgroupData[] = [
      {
        podUid: '1d7e0c6a-5b0f-4c5e-9d33-0e6f2ad2a1b9',
        memoryEvents: Object.fromEntries(parseMemoryCounters('max 0\noom 0\noom_kill 1\n')),
        memoryCurrent: 2 * GiB,
        memoryMax: { kind: 'bytes', bytes: 16 * GiB },
        cgroupVersion: 2,
      },
    ];
    const [verdict] = explainKernelLogText(text, { pods, headroomPercent: 25 }).verdicts;
    // (2 GiB in the cgroup + 90 GiB of gpu_active, 94371840 kB) × 1.25 = 115 GiB.
    assert.match(verdict?.remedy ?? '', /with 25 % headroom: about 2 GiB \+ 90 GiB .*at least 115Gi\./);
  });

  test('the unaccounted-memory verdict: 25 % over a 32 GiB true footprint', () => {
    const pod = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
    const capture = nodeCapture({
      kernel: '7.1.0-39-generic',
      memTotal: 128 * GiB,
      gpuActive: 40 * GiB,
      gpus: [STRIX_HALO],
      pods: [
        {
          uid: pod,
          current: 2 * GiB,
          max: 8 * GiB,
          processes: [{ pid: 4242, comm: 'llama-server', fds: [{ fd: 7, client: '4181', gtt: 30 * GiB, vram: 256 * MiB }] }],
        },
      ],
    });
    const verdict = analyzeCaptureText(capture, { target: 'test', headroomPercent: 25 }).verdicts.find(
      (candidate) => candidate.id === 'memory.pod-over-limit-in-reality',
    );
    // 2 GiB accounted + 30 GiB of GTT = 32 GiB; × 1.25 = 40 GiB.
    assert.match(verdict?.remedy ?? '', /at least 40Gi \(true footprint \+ 25 %\)/);
  });

  test('the fleet: the settings carry it, and the pods-over-limit remedy says 25 %', () => {
    const fleet = parseFleetSettings((key) => (key === 'gpumem.lint.headroomPercent' ? 25 : undefined));
    assert.equal(fleet.headroomPercent, 25);
    assert.equal(parseFleetSettings((key) => (key === 'gpumem.lint.headroomPercent' ? -3 : undefined)).headroomPercent, 30);
    const facts = syntheticFleetFacts(2, 3);
    const summary = summarizeFleet({ ...facts, podCounts: { ...facts.podCounts, overLimit: 1 } }, 20, fleet.headroomPercent);
    const remedy = summary.verdicts.find((verdict) => verdict.id === 'fleet.pods-over-limit')?.remedy;
    assert.match(remedy ?? '', /with 25 % headroom\.$/);
  });
});
