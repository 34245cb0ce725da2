// The exec state machine every transport shares (src/transports/execRun.ts), driven by hand: no process,
// channel or socket, only the events a transport reports and the stops the machine asks for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExecRun } from '../../src/transports/execRun.ts';
import type { AfterOverflow, ExecStopReason } from '../../src/transports/execRun.ts';
import { TransportError } from '../../src/core/probe/transport.ts';
import type { ExecRequest, TransportFailure } from '../../src/core/probe/transport.ts';

function harness(extra: Partial<ExecRequest> & { afterOverflow?: AfterOverflow; connectTimeoutMs?: number } = {}) {
  const stops: ExecStopReason[] = [];
  let settledCalls = 0;
  const { afterOverflow = 'await-end', connectTimeoutMs, ...request } = extra;
  const run = new ExecRun({
    request: { script: 'true', timeoutMs: 10_000, maxOutputBytes: 8, ...request },
    afterOverflow,
    ...(connectTimeoutMs !== undefined ? { connectTimeoutMs } : {}),
    stop: (reason) => stops.push(reason),
    onSettled: () => settledCalls++,
  });
  return { run, stops, settledCalls: () => settledCalls };
}

async function failureOf(promise: Promise<unknown>): Promise<TransportFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TransportError, `not a TransportError: ${String(error)}`);
    return error.failure;
  }
  assert.fail('the run resolved');
}

test('finish() resolves with the collected output and the exit status', async () => {
  const { run, stops, settledCalls } = harness();
  assert.equal(run.state.kind, 'running');
  run.take('stdout', Buffer.from('out'));
  run.take('stderr', Buffer.from('err'));
  run.finish(3);
  assert.deepEqual(await run.result, { stdout: 'out', stderr: 'err', exitCode: 3, truncated: false });
  assert.equal(run.state.kind, 'settled');
  assert.deepEqual(stops, []);
  assert.equal(settledCalls(), 1);
});

test('the command deadline stops the run and fails it with a command timeout', async () => {
  const { run, stops } = harness({ timeoutMs: 20 });
  assert.deepEqual(await failureOf(run.result), { kind: 'timeout', phase: 'command', ms: 20 });
  assert.deepEqual(stops, ['timeout']);
});

test('the connect deadline applies until started(), then the command deadline', async () => {
  const connecting = harness({ connectTimeoutMs: 20, timeoutMs: 10_000 });
  assert.equal(connecting.run.state.kind, 'connecting');
  assert.deepEqual(await failureOf(connecting.run.result), { kind: 'timeout', phase: 'connect', ms: 20 });
  assert.deepEqual(connecting.stops, ['timeout']);

  const started = harness({ connectTimeoutMs: 20, timeoutMs: 60 });
  started.run.started();
  assert.equal(started.run.state.kind, 'running');
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(started.run.settled, false, 'the connect deadline was cleared by started()');
  assert.deepEqual(await failureOf(started.run.result), { kind: 'timeout', phase: 'command', ms: 60 });
});

test('an already aborted signal settles as cancelled without stopping anything', async () => {
  const controller = new AbortController();
  controller.abort();
  const { run, stops, settledCalls } = harness({ signal: controller.signal });
  assert.deepEqual(await failureOf(run.result), { kind: 'cancelled' });
  assert.deepEqual(stops, []);
  assert.equal(settledCalls(), 1);
});

test('an abort while connecting or running stops the run and settles it as cancelled', async () => {
  for (const connectTimeoutMs of [10_000, undefined]) {
    const controller = new AbortController();
    const { run, stops } = harness({ signal: controller.signal, ...(connectTimeoutMs !== undefined ? { connectTimeoutMs } : {}) });
    controller.abort();
    assert.deepEqual(await failureOf(run.result), { kind: 'cancelled' });
    assert.deepEqual(stops, ['cancelled']);
  }
});

test('an abort after the run settled changes nothing', async () => {
  const controller = new AbortController();
  const { run, stops } = harness({ signal: controller.signal });
  run.finish(0);
  controller.abort();
  assert.equal((await run.result).exitCode, 0);
  assert.deepEqual(stops, []);
});

test('reaching the cap with afterOverflow settle: stopped and resolved at once, truncated, exitCode null', async () => {
  const { run, stops } = harness({ afterOverflow: 'settle' });
  run.take('stdout', Buffer.from('12345'));
  run.take('stdout', Buffer.from('6789'));
  assert.deepEqual(stops, ['overflow']);
  assert.deepEqual(await run.result, { stdout: '12345678', stderr: '', exitCode: null, truncated: true });
});

test('reaching the cap with await-end: stopped once, settled by the end, deadline and abort ignored', async () => {
  const controller = new AbortController();
  const { run, stops } = harness({ afterOverflow: 'await-end', timeoutMs: 10, signal: controller.signal });
  run.take('stderr', Buffer.from('123456789'));
  run.take('stderr', Buffer.from('more'));
  assert.deepEqual(run.state, { kind: 'stopping', reason: 'overflow' });
  controller.abort();
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(run.settled, false);
  run.finish(137);
  assert.deepEqual(await run.result, { stdout: '', stderr: '12345678', exitCode: null, truncated: true });
  assert.deepEqual(stops, ['overflow']);
});

test('reaching the cap with await-end-within-deadline: the deadline still ends the wait', async () => {
  const { run, stops } = harness({ afterOverflow: 'await-end-within-deadline', timeoutMs: 20 });
  run.take('stdout', Buffer.from('123456789'));
  assert.deepEqual(await failureOf(run.result), { kind: 'timeout', phase: 'command', ms: 20 });
  assert.deepEqual(stops, ['overflow', 'timeout']);
});

test('settles once: a second finish, a fail or a timeout after the first settlement is ignored', async () => {
  const { run, settledCalls } = harness({ timeoutMs: 10 });
  run.finish(0);
  run.finish(1);
  run.fail({ kind: 'disconnected', detail: 'late' });
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal((await run.result).exitCode, 0);
  assert.equal(settledCalls(), 1);
});

test('an error after a failure keeps the first failure', async () => {
  const { run, stops } = harness();
  run.fail({ kind: 'spawn', detail: 'sh: not found' });
  run.fail({ kind: 'disconnected', detail: 'the socket closed' });
  run.finish(0);
  run.take('stdout', Buffer.from('ignored output past the cap'));
  assert.deepEqual(await failureOf(run.result), { kind: 'spawn', detail: 'sh: not found' });
  assert.deepEqual(stops, []);
});
