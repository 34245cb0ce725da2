// A claim template that an NVIDIA ComputeDomain creates gives the pod an IMEX channel, not a GPU: the pod's claim
// resolves to the channel class and is no "possible GPU". Fixtures: NVIDIA/k8s-dra-driver-gpu demo/specs/imex
// (test/fixtures/manifests/dra/compute-domain/README.md).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { indexClaims } from '../../src/core/crossFile.ts';
import { lintText } from '../../src/core/lint.ts';
import { ClaimIndex } from '../../src/core/manifest/draClaims.ts';
import { fixture, lint, ruleIds } from './helpers/lint.ts';

describe('ComputeDomain IMEX channels', () => {
  test('a pod that only uses the channel is no GPU pod, and no claim is unresolved', () => {
    const result = lint(fixture('dra/compute-domain/channel-injection.yaml'));
    assert.deepEqual(ruleIds(result), []);
    assert.deepEqual(result.containers, [], 'the channel is not a GPU');
  });

  test('an MPIJob worker with GPUs and the channel: the GPUs count, the channel is not a possible GPU', () => {
    const result = lint(fixture('dra/compute-domain/nvbandwidth-test-job-1.yaml'));
    assert.deepEqual(ruleIds(result), ['gpu-no-memory-limit']);
    assert.deepEqual(
      result.containers.map((container) => container.title.split(' · ')[0]),
      ['GPU: nvidia.com/gpu 2'],
    );
  });

  test('the ComputeDomain in another file of the run resolves the claim too', () => {
    const [domain = '', pod = ''] = fixture('dra/compute-domain/channel-injection.yaml')
      .split(/^---$/m)
      .filter((part) => part.trim() !== '');
    assert.ok(domain.includes('kind: ComputeDomain') && pod.includes('kind: Pod'));
    assert.deepEqual(ruleIds(lintText(pod)), ['gpu-claim-unresolved'], 'alone, the template is unknown');
    const index = new ClaimIndex();
    indexClaims(domain, index);
    assert.deepEqual(ruleIds(lintText(pod, undefined, { claims: index })), []);
  });
});
