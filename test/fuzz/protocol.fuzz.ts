// The inspector's message protocol validators (src/core/inspector/protocol.ts): both sides validate what they
// receive, so no JSON a webview or a saved state holds may throw, and what passes must re-validate to itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import {
  command,
  errorResponse,
  INSPECTOR_STATE_VERSION,
  notification,
  parseHostNotification,
  parseInspectorState,
  parseRequestResult,
  parseWebviewMessage,
  request,
  response,
} from '../../src/core/inspector/protocol.ts';
import { sampleFromCapture } from '../../src/core/inspectorPanel/sample.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { NODE_CAPTURES } from './corpus.ts';
import { fuzzTarget, numberViolations, RUNS, SEED } from './harness.ts';

const capture = NODE_CAPTURES[0] ?? '';
const model = buildInspectorViewModel(analyzeCaptureText(capture, { target: 'fuzz' }));
const source = {
  id: 'i-1',
  target: 'fuzz',
  captureText: capture,
  podNames: { 'a-b': 'ml/trainer-0' },
  // Every field of the saved cluster facts, so the mutations reach each of their checks.
  clusterFacts: {
    hamiQuotas: { 'a-b': { 'GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f': 8192 } },
    hamiCluster: {
      devicePluginPods: [{ name: 'hami-device-plugin-x7k2p', phase: 'Running', ready: true }],
      runtimeClassName: null,
      privileged: false,
      hamiVersion: 'v2.8.1',
      podEnv: { CUDA_DISABLE_CONTROL: 'true' },
      containerLog: '[HAMI-core Msg(1:2:libvgpu.c:836)]: Initializing.....\n',
      managedByHami: true,
      allocatedDevices: [{ uuid: 'GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f', memMiB: 8192 }],
      registeredDevices: [{ uuid: 'GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f', devmemMiB: 81559 }],
    },
  },
};
const copy = request('r-1', 'copyText', { what: 'kernel-log', text: 'line' });

const MESSAGES: readonly unknown[] = [
  command('ready', { restored: false }),
  command('openPod', { podUid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }),
  command('openDocs', { docsId: 'oom.global-gtt' }),
  command('setLive', { live: true }),
  request('r-0', 'saveJson', {}),
  copy,
  response(copy, { kind: 'copied' }),
  errorResponse('r-2', 'the save dialog failed'),
  notification('update', { model, source }),
  notification('sample', { point: sampleFromCapture(capture, 1767225600) }),
  notification('liveState', { state: { status: 'running', everySeconds: 5, samples: 3, detail: 'Sampling every 5 s.' } }),
  notification('notice', { text: 'Copied.', tone: 'info' }),
  { v: INSPECTOR_STATE_VERSION, model, source, ui: { sort: { column: 'headroom', descending: false }, rawFilter: 'gtt', livePod: '' } },
];

function validateAll(value: unknown): unknown {
  return {
    webview: parseWebviewMessage(value),
    host: parseHostNotification(value),
    state: parseInspectorState(value),
    saved: parseRequestResult('saveJson', value),
    copied: parseRequestResult('copyText', value),
  };
}

fuzzTarget({
  name: 'protocol.validators(JSON text)',
  corpus: MESSAGES.map((message) => JSON.stringify(message)),
  nest: 'json',
  run: (input) => {
    let value: unknown;
    try {
      value = JSON.parse(input);
    } catch {
      return { json: 'invalid' };
    }
    return validateAll(value);
  },
});

test('protocol: any value validates without throwing; what passes re-validates to an equal message', () => {
  fc.assert(
    fc.property(fc.oneof(fc.anything({ maxDepth: 4 }), fc.constantFrom(...MESSAGES), fc.jsonValue({ maxDepth: 6 })), (value) => {
      const parsed = parseWebviewMessage(value);
      if (parsed.kind !== 'invalid')
        assert.deepEqual(parseWebviewMessage(JSON.parse(JSON.stringify(parsed.message))), parsed, 'a valid message re-validates to itself');
      const host = parseHostNotification(value);
      if (host) assert.deepEqual(numberViolations(host), [], 'a host notification carries finite numbers');
      const state = parseInspectorState(value);
      if (state) assert.deepEqual(parseInspectorState(JSON.parse(JSON.stringify(state))), state);
    }),
    { seed: SEED, numRuns: RUNS * 10 },
  );
});
