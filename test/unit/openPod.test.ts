// The arguments of `gpumem.revealPod` (the inspector's "a click opens the pod"): any extension can run the
// command, so its argument is parsed; the pod name splits into namespace and name only when both are DNS names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOpenPodArgs, splitPodName } from '../../src/core/inspectorPanel/openPod.ts';

test('parseOpenPodArgs keeps a well-formed argument', () => {
  assert.deepEqual(parseOpenPodArgs({ podUid: 'c0ffee-1', podName: 'ml/llama-0', target: 'node strix' }), {
    podUid: 'c0ffee-1',
    podName: 'ml/llama-0',
    target: 'node strix',
  });
  assert.deepEqual(parseOpenPodArgs({ podUid: 'c0ffee-1' }), { podUid: 'c0ffee-1', podName: undefined, target: '' });
});

test('parseOpenPodArgs refuses what is not an OpenPodArgs', () => {
  for (const value of [
    undefined,
    null,
    'uid',
    42,
    [],
    {},
    { podUid: '' },
    { podUid: 7 },
    { podUid: 'x'.repeat(513) },
    { podUid: 'u', podName: 5 },
    { podUid: 'u', podName: 'n'.repeat(600) },
  ]) {
    assert.equal(parseOpenPodArgs(value), undefined, JSON.stringify(value));
  }
});

test('splitPodName splits namespace/name and nothing else', () => {
  assert.deepEqual(splitPodName('ml/llama-0'), { namespace: 'ml', name: 'llama-0' });
  assert.deepEqual(splitPodName('kube-system/hami-device-plugin.x7'), { namespace: 'kube-system', name: 'hami-device-plugin.x7' });
  for (const value of [
    undefined,
    '',
    'llama-0',
    'ml/',
    '/llama-0',
    'ML/llama',
    'ml/llama/0',
    'ml/<img src=x onerror=alert(1)>',
    'ml/-x',
    'ml/x-',
    '-ml/x',
  ]) {
    assert.deepEqual(splitPodName(value), {}, String(value));
  }
});
