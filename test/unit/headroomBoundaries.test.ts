// Issue 17, class 9 and "Tests that can fail": GPUReclaim is reclaimable but not in MemAvailable, and is not used
// when it exceeds MemTotal; the node's unaccounted-memory warning starts at exactly 25 % of MemTotal.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { buildNodeModel } from '../../src/core/probe/nodeModel.ts';
import { nodeAccounting, unaccountedMemoryVerdicts } from '../../src/core/verdicts/memory/unaccountedMemory.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { inspectionToMarkdown } from '../../src/core/report/inspectionReport.ts';
import { GiB, MiB, nodeCapture } from './helpers/nodeCapture.ts';

const model = (gpuActive: number, reclaimLine?: string) => {
  let text = nodeCapture({ kernel: '7.1.0-39-generic', memTotal: 128 * GiB, memAvailable: 40 * GiB, gpuActive, gpus: [], pods: [] });
  if (reclaimLine !== undefined) text = text.replace(/GPUReclaim:\s+\d+ kB/, reclaimLine);
  return buildNodeModel(parseCapture(text));
};

describe('node unaccounted memory: the 25 % boundary', () => {
  const severity = (gpuActive: number) =>
    unaccountedMemoryVerdicts(model(gpuActive)).find((v) => v.id === 'memory.unaccounted-node')?.severity;
  test('exactly 25 % of MemTotal is a warning; one MiB below is info', () => {
    assert.equal(severity(32 * GiB), 'warning');
    assert.equal(severity(32 * GiB - MiB), 'info');
    assert.equal(severity(32 * GiB + MiB), 'warning');
  });
});

describe('GPUReclaim (7.1+)', () => {
  test('plausible: counted as reclaimable on top of MemAvailable, and said so', () => {
    const m = model(40 * GiB, 'GPUReclaim:     25165824 kB');
    const node = nodeAccounting(m);
    assert.equal(node.gpuReclaimCheck.kind, 'plausible');
    assert.equal(node.gpuReclaim, 24 * GiB);
    assert.equal(node.availableWithReclaim, 64 * GiB);
    const verdict = unaccountedMemoryVerdicts(m).find((v) => v.id === 'memory.unaccounted-node');
    assert.ok(
      verdict?.evidence.some((line) => /GPUReclaim: .* is reclaimable but not in MemAvailable: 64 GiB is really available/.test(line)),
      verdict?.evidence.join('\n'),
    );
  });

  test('above MemTotal (field report): flagged implausible and not used', () => {
    const m = model(40 * GiB, 'GPUReclaim:     268435456 kB');
    const node = nodeAccounting(m);
    assert.equal(node.gpuReclaimCheck.kind, 'implausible');
    assert.equal(node.gpuReclaim, undefined);
    assert.equal(node.availableWithReclaim, 40 * GiB);
    const verdict = unaccountedMemoryVerdicts(m).find((v) => v.id === 'memory.unaccounted-node');
    assert.ok(verdict?.evidence.some((line) => /above MemTotal: an implausible counter/.test(line)));
  });
});

describe('GPUReclaim in the Markdown report', () => {
  const report = (reclaimLine: string) => {
    const text = nodeCapture({
      kernel: '7.1.0-39-generic',
      memTotal: 128 * GiB,
      memAvailable: 40 * GiB,
      gpuActive: 40 * GiB,
      gpus: [],
      pods: [],
    }).replace(/GPUReclaim:\s+\d+ kB/, reclaimLine);
    return inspectionToMarkdown(analyzeCaptureText(text, { target: 'capture c.txt' }));
  };
  test('plausible: the reclaimable pool and what is really available', () => {
    const markdown = report('GPUReclaim:     25165824 kB');
    assert.match(markdown, /\| GPUReclaim \(7\.1\+, reclaimable\) \| 24 GiB/);
    assert.match(markdown, /\| Available incl\. GPUReclaim \| 64 GiB/);
  });
  test('above MemTotal: shown as not used, and not added to what is available', () => {
    const markdown = report('GPUReclaim:     268435456 kB');
    assert.match(markdown, /above MemTotal: not used/);
    assert.doesNotMatch(markdown, /Available incl\. GPUReclaim/);
  });
});

describe('QoS: a memory-only pod is not Guaranteed', () => {
  test('memory limit = request but no cpu: Burstable, naming the missing cpu limit', async () => {
    const { qosClass } = await import('../../src/core/rules/memoryRules.ts');
    const { lintText } = await import('../../src/core/lint.ts');
    const text =
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: m\n  annotations:\n    gpumem.io/gpu-memory: "8Gi"\nspec:\n  nodeSelector:\n    amd.com/gpu.device-id: "1586"\n  containers:\n    - name: c\n      image: x\n      resources:\n        limits: {amd.com/gpu: 1, memory: 16Gi}\n        requests: {memory: 16Gi}\n';
    const result = lintText(text);
    const finding = result.findings.find((f) => f.ruleId === 'uma-not-guaranteed');
    assert.ok(finding, result.findings.map((f) => f.ruleId).join(', '));
    assert.match(finding.message, /Burstable/);
    assert.match(finding.message, /no cpu limit/);
    assert.equal(typeof qosClass, 'function');
  });
});
