// The public-corpus scorer (test/helpers/corpusScore.ts) on small hand-made label/result pairs, so the
// figures the corpus test prints and asserts mean what they say.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOWED_ON_NON_GPU, classesOf, formatScore, isGpuRule, precision, recall, scoreCorpus } from '../helpers/corpusScore.ts';
import type { ActualFile, ActualFinding, ExpectedContainer, ExpectedFile } from '../helpers/corpusScore.ts';

const OPTIONS = { isGpuRule, allowedOnNonGpu: ALLOWED_ON_NON_GPU };

const gpu = (container: string, rules: string[], name = 'train'): ExpectedContainer => ({
  kind: 'Job',
  name,
  role: 'spec.template.spec',
  container,
  via: [{ resource: 'nvidia.com/gpu' }],
  rules,
});
const finding = (
  ruleId: string,
  container: string | undefined,
  severity: ActualFinding['severity'] = 'warning',
  name = 'train',
): ActualFinding => ({ ruleId, severity, kind: 'Job', name, container, message: `${ruleId} on ${container}` });
const found = (containers: string[], findings: ActualFinding[], name = 'train'): ActualFile => ({
  gpuContainers: containers.map((container) => ({ kind: 'Job', name, container })),
  findings,
});

function score(files: ExpectedFile[], results: Record<string, ActualFile>) {
  return scoreCorpus(files, new Map(Object.entries(results)), OPTIONS);
}

describe('corpus scoring', () => {
  test('a result that matches the labels scores 1 everywhere and lists nothing', () => {
    const result = score([{ id: 'a', gpu: true, containers: [gpu('trainer', ['gpu-no-memory-limit'])] }], {
      a: found(['trainer'], [finding('gpu-no-memory-limit', 'trainer')]),
    });
    assert.deepEqual(result.detection, { truePositives: 1, falsePositives: 0, falseNegatives: 0 });
    assert.deepEqual(result.rules, { truePositives: 1, falsePositives: 0, falseNegatives: 0 });
    assert.equal(precision(result.rules), 1);
    assert.equal(recall(result.detection), 1);
    assert.deepEqual(
      [result.missedContainers, result.falseContainers, result.missedRules, result.falseRules, result.nonGpuFindings],
      [[], [], [], [], []],
    );
  });

  test('a missed GPU container costs recall and its rules; a container wrongly taken for GPU costs precision', () => {
    const result = score([{ id: 'a', gpu: true, containers: [gpu('trainer', ['gpu-no-memory-limit', 'gpu-shm-unbounded'])] }], {
      a: found(['sidecar'], [finding('gpu-no-memory-limit', 'sidecar')]),
    });
    assert.deepEqual(result.detection, { truePositives: 0, falsePositives: 1, falseNegatives: 1 });
    assert.deepEqual(result.rules, { truePositives: 0, falsePositives: 1, falseNegatives: 2 });
    assert.equal(precision(result.detection), 0);
    assert.equal(recall(result.rules), 0);
    assert.match(result.missedContainers[0] ?? '', /^a Job\/train\/trainer via nvidia\.com\/gpu$/);
    assert.deepEqual(result.falseContainers, ['a Job/train/sidecar']);
    assert.deepEqual(result.missedRules.sort(), ['a gpu-no-memory-limit Job/train/trainer', 'a gpu-shm-unbounded Job/train/trainer']);
    assert.match(result.falseRules[0] ?? '', /^a gpu-no-memory-limit Job\/train\/sidecar \(warning\)/);
  });

  test('the same container name in two pod templates is counted once per template', () => {
    const workers = [gpu('worker', []), { ...gpu('worker', []), role: 'spec.workerGroupSpecs[1].template.spec' }];
    const one = score([{ id: 'a', gpu: true, containers: workers }], { a: found(['worker'], []) });
    assert.deepEqual(one.detection, { truePositives: 1, falsePositives: 0, falseNegatives: 1 });
    const three = score([{ id: 'a', gpu: true, containers: workers }], { a: found(['worker', 'worker', 'worker'], []) });
    assert.deepEqual(three.detection, { truePositives: 2, falsePositives: 1, falseNegatives: 0 });
    assert.deepEqual(three.falseContainers, ['a Job/train/worker']);
  });

  test('a finding reported twice on one container (two volumes) is one rule hit', () => {
    const result = score([{ id: 'a', gpu: true, containers: [gpu('trainer', ['gpu-shm-unbounded'])] }], {
      a: found(['trainer'], [finding('gpu-shm-unbounded', 'trainer', 'info'), finding('gpu-shm-unbounded', 'trainer', 'info')]),
    });
    assert.deepEqual(result.rules, { truePositives: 1, falsePositives: 0, falseNegatives: 0 });
  });

  test('rules that are not GPU rules are not scored on GPU files', () => {
    const result = score([{ id: 'a', gpu: true, containers: [gpu('trainer', [])] }], {
      a: found(['trainer'], [finding('invalid-quantity', 'trainer', 'error'), finding('yaml-syntax', undefined)]),
    });
    assert.deepEqual(result.rules, { truePositives: 0, falsePositives: 0, falseNegatives: 0 });
    assert.deepEqual(result.nonGpuFindings, []);
  });

  test('a claim defined elsewhere expects information, whatever its rule id, and more than information is false', () => {
    const maybe: ExpectedContainer = { kind: 'Pod', name: 'p', container: 'ctr', maybe: { claim: 'gpu' } };
    const pod = (findings: ActualFinding[], containers: string[] = []): ActualFile => ({
      gpuContainers: containers.map((container) => ({ kind: 'Pod', name: 'p', container })),
      findings,
    });
    const on = (ruleId: string, severity: ActualFinding['severity']): ActualFinding => ({
      ruleId,
      severity,
      kind: 'Pod',
      name: 'p',
      container: 'ctr',
      message: '',
    });

    const informed = score([{ id: 'a', gpu: true, containers: [maybe] }], { a: pod([on('gpu-claim-unresolved', 'info')], ['ctr']) });
    assert.deepEqual(informed.rules, { truePositives: 1, falsePositives: 0, falseNegatives: 0 });
    assert.deepEqual(
      informed.detection,
      { truePositives: 0, falsePositives: 0, falseNegatives: 0 },
      'shown as GPU or not, a maybe is neither a hit nor a false container',
    );

    const silent = score([{ id: 'a', gpu: true, containers: [maybe] }], { a: pod([]) });
    assert.deepEqual(silent.rules, { truePositives: 0, falsePositives: 0, falseNegatives: 1 });
    assert.match(silent.missedRules[0] ?? '', /may get a GPU through claim gpu/);

    const warned = score([{ id: 'a', gpu: true, containers: [maybe] }], { a: pod([on('gpu-no-memory-limit', 'warning')]) });
    assert.deepEqual(warned.rules, { truePositives: 0, falsePositives: 1, falseNegatives: 1 });
  });

  test('non-GPU files may report syntax and template information only', () => {
    const result = score([{ id: 'n', gpu: false }], {
      n: {
        gpuContainers: [],
        findings: [
          finding('helm-template', undefined, 'info'),
          finding('yaml-syntax', undefined),
          finding('manifest-shape', 'web'),
          finding('gpu-docker-in-docker', 'web'),
        ],
      },
    });
    assert.equal(result.nonGpuFindings.length, 2);
    assert.match(result.nonGpuFindings[0] ?? '', /^n manifest-shape Job\/train\/web/);
    assert.deepEqual(
      result.rules,
      { truePositives: 0, falsePositives: 1, falseNegatives: 0 },
      'a GPU rule on a non-GPU file is also a false finding',
    );
  });

  test('a labelled file without a result counts as found nothing', () => {
    const result = score([{ id: 'a', gpu: true, containers: [gpu('trainer', ['gpu-no-memory-limit'])] }], {});
    assert.deepEqual(result.detection, { truePositives: 0, falsePositives: 0, falseNegatives: 1 });
    assert.deepEqual(result.rules, { truePositives: 0, falsePositives: 0, falseNegatives: 1 });
  });

  test('recall per class: each way of getting a GPU and each kind', () => {
    const claim: ExpectedContainer = {
      kind: 'Pod',
      name: 'p',
      container: 'ctr',
      via: [{ claim: 'gpu', deviceClass: 'gpu.nvidia.com' }],
      rules: [],
    };
    const annotated: ExpectedContainer = { kind: 'Pod', name: 'p', container: 'side', via: [{ annotation: 'gpu-fraction' }], rules: [] };
    assert.deepEqual(classesOf(claim), ['kind Pod', 'dra-claim', 'claim class gpu.nvidia.com']);
    const result = score([{ id: 'a', gpu: true, containers: [claim, annotated] }], {
      a: { gpuContainers: [{ kind: 'Pod', name: 'p', container: 'ctr' }], findings: [] },
    });
    assert.deepEqual(result.classes.get('dra-claim'), { expected: 1, found: 1 });
    assert.deepEqual(result.classes.get('scheduler-annotation'), { expected: 1, found: 0 });
    assert.deepEqual(result.classes.get('kind Pod'), { expected: 2, found: 1 });
    const text = formatScore(result);
    assert.match(text, /^GPU-container detection: precision 100\.0 %, recall 50\.0 % \(tp 1, fp 0, fn 1\)$/m);
    assert.match(text, /^ {2}scheduler-annotation: 0\/1 \(0\.0 %\)$/m);
    assert.match(text, /^Missed GPU containers: 1\n {2}a Pod\/p\/side via annotation gpu-fraction$/m);
  });

  test('with nothing expected and nothing found, precision and recall are 1, not NaN', () => {
    const empty = { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
    assert.equal(precision(empty), 1);
    assert.equal(recall(empty), 1);
  });

  test('GPU rules are recognised by their prefixes, including the ones other branches add', () => {
    for (const id of ['gpu-no-memory-limit', 'uma-headroom', 'hami-privileged', 'cuda-disable-control-present', 'gpu-claim-unresolved'])
      assert.ok(isGpuRule(id), id);
    for (const id of ['invalid-quantity', 'manifest-shape', 'yaml-syntax', 'helm-template', 'manifest-skipped'])
      assert.ok(!isGpuRule(id), id);
  });
});
