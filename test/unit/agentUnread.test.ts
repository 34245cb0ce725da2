// The agent says what its probe could not read: gpumem_probe_input_unread{input} is 1 for each input the last good
// cycle missed, 0 for the others, from the same account the reports state first (src/core/inspectionRun/sight.ts).
// The blind cycle is a real capture of this machine's probe run as nobody holding CAP_SYS_PTRACE
// (test/fixtures/captures/this-machine-nobody-sys-ptrace.source.md): its kernel log was refused, its fdinfo was not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AgentSnapshot } from '../../src/core/agent/agentSamples.ts';
import { renderAgentMetrics } from '../../src/core/agent/agentSamples.ts';
import { EMPTY_LEDGER } from '../../src/core/agent/oomLedger.ts';
import { parsePromText } from '../../src/core/agent/promText.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { unreadOf } from '../../src/core/inspectionRun/sight.ts';
import { GiB, nodeCapture } from './helpers/nodeCapture.ts';

const BLIND = readFileSync(new URL('../fixtures/captures/this-machine-nobody-sys-ptrace.txt', import.meta.url), 'utf8');

function unreadGauge(captureText: string | undefined): Map<string, number> {
  const inspection = captureText === undefined ? undefined : analyzeCaptureText(captureText, { target: 'node' });
  const snapshot: AgentSnapshot = {
    status: {
      nodeName: 'vm',
      version: '0.1.0',
      cycles: 1,
      errors: new Map(),
      lastDurationSeconds: 0.3,
      lastSuccessSeconds: 1_767_225_600,
      api: { kind: 'connected' },
    },
    node: undefined,
    ledger: EMPTY_LEDGER,
    identities: new Map(),
    ...(inspection ? { unread: new Set(unreadOf(inspection.sight).map((input) => input.id)) } : {}),
  };
  const samples = parsePromText(renderAgentMetrics(snapshot).text).samples.filter((sample) => sample.name === 'gpumem_probe_input_unread');
  return new Map(samples.map((sample) => [sample.labels['input'] ?? '', sample.value]));
}

test('a probe refused the kernel log: input="kernel-log" is 1, the inputs it read are 0', () => {
  assert.deepEqual(Object.fromEntries(unreadGauge(BLIND)), { 'kernel-log': 1, fdinfo: 0, capture: 0 });
});

test('a probe that read everything: every input is 0; a cut capture: input="capture" is 1', () => {
  const whole = nodeCapture({ kernel: '6.18.0', memTotal: 64 * GiB, kernelLog: '' });
  assert.deepEqual(Object.fromEntries(unreadGauge(whole)), { 'kernel-log': 0, fdinfo: 0, capture: 0 });
  const cut = BLIND.slice(0, BLIND.indexOf('begin cgroup.mode'));
  assert.equal(unreadGauge(cut).get('capture'), 1);
});

test('before the first good cycle the gauge is absent, not 0: nothing has been looked at yet', () => {
  assert.equal(unreadGauge(undefined).size, 0);
});
