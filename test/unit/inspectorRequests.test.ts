// The inspector protocol's requests (src/core/inspector/protocol.ts) and the webview's pending-request
// bookkeeping (src/core/inspector/requests.ts): requests carry a correlation id and are validated by the host
// like commands; each is answered by one `response` notification, validated by the webview, whose result is
// checked against the request's method; a request the host never answers times out; a late answer still
// reaches its button. Messages go through JSON, as postMessage carries them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  command,
  errorResponse,
  INSPECTOR_PROTOCOL_VERSION,
  isRequestId,
  notification,
  parseHostNotification,
  parseRequestResult,
  parseWebviewMessage,
  parseWebviewRequest,
  request,
  REQUESTS,
  response,
} from '../../src/core/inspector/protocol.ts';
import type { ResponseParams, WebviewRequest, WebviewRequestMethod } from '../../src/core/inspector/protocol.ts';
import { PendingRequests, REQUEST_TIMEOUT_MS } from '../../src/core/inspector/requests.ts';
import type { RequestOutcome, Timers } from '../../src/core/inspector/requests.ts';

const v = INSPECTOR_PROTOCOL_VERSION;

/** What crosses postMessage. */
function wire<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** Timers driven by the test: `advance(ms)` runs what falls due, in order. */
class ManualTimers implements Timers {
  now = 0;
  #next = 0;
  readonly #tasks = new Map<number, { at: number; callback: () => void }>();

  set(callback: () => void, ms: number): unknown {
    const handle = ++this.#next;
    this.#tasks.set(handle, { at: this.now + ms, callback });
    return handle;
  }

  clear(handle: unknown): void {
    this.#tasks.delete(handle as number);
  }

  get scheduled(): number {
    return this.#tasks.size;
  }

  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.#tasks].filter(([, task]) => task.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#tasks.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
    }
    this.now = until;
  }
}

/** A PendingRequests whose sent messages go to `sent` (through JSON), with manual timers. */
function harness(idPrefix = 'page1') {
  const timers = new ManualTimers();
  const sent: unknown[] = [];
  const requests = new PendingRequests({ send: (message) => sent.push(wire(message)), idPrefix, timers });
  return { timers, sent, requests };
}

/** Whether a promise has settled (after the microtasks queued so far). */
async function settled<T>(promise: Promise<T>): Promise<{ done: boolean; value?: T }> {
  const marker = Symbol('pending');
  const value = await Promise.race([promise, new Promise<typeof marker>((resolve) => setImmediate(() => resolve(marker)))]);
  return value === marker ? { done: false } : { done: true, value: value as T };
}

/** The host's side: parse what the webview sent and answer it, through JSON. */
function hostAnswer(sent: unknown, answer: (message: WebviewRequest) => unknown): ResponseParams {
  const parsed = parseWebviewMessage(sent);
  assert.equal(parsed.kind, 'request', JSON.stringify(sent));
  const reply = parseHostNotification(wire(answer(parsed.message as WebviewRequest)));
  assert.ok(reply && reply.method === 'response', 'the answer is a valid response notification');
  return reply.params;
}

describe('inspector protocol: requests and responses', () => {
  test("a request round-trips through JSON and the host's validation, with its id", () => {
    const copy = request('r-1', 'copyText', { what: 'meminfo', text: 'MemTotal: 1 kB' });
    assert.deepEqual(copy, { v, id: 'r-1', method: 'copyText', params: { what: 'meminfo', text: 'MemTotal: 1 kB' } });
    assert.deepEqual(parseWebviewRequest(wire(copy)), copy);
    assert.deepEqual(parseWebviewMessage(wire(copy)), { kind: 'request', message: copy });
    for (const method of ['copyMarkdown', 'saveJson', 'saveCapture'] as const) {
      assert.deepEqual(parseWebviewMessage(wire(request('ab12:7', method, {}))), {
        kind: 'request',
        message: { v, id: 'ab12:7', method, params: {} },
      });
    }
    // Parameters are rebuilt from what is known: extra keys do not pass through.
    assert.deepEqual(
      parseWebviewRequest({ v, id: 'x', method: 'saveJson', params: { path: '/etc/passwd' }, extra: 1 }),
      request('x', 'saveJson', {}),
    );
    // Commands are still commands.
    assert.deepEqual(parseWebviewMessage(wire(command('openPod', { podUid: 'uid-1' }))), {
      kind: 'command',
      message: command('openPod', { podUid: 'uid-1' }),
    });
  });

  test('malformed ids are rejected, and such a request cannot be answered', () => {
    for (const id of ['', 'x'.repeat(65), 'a b', '<img src=x>', '../etc', 'r\n1', 'ünïcode', 42, null, true, {}, ['r1']]) {
      assert.equal(isRequestId(id), false, JSON.stringify(id));
      const message = { v, id, method: 'saveJson', params: {} };
      assert.equal(parseWebviewRequest(message), undefined, JSON.stringify(id));
      assert.deepEqual(parseWebviewMessage(message), { kind: 'invalid', id: undefined }, JSON.stringify(id));
    }
    assert.equal(isRequestId('x'.repeat(64)), true);
    assert.equal(isRequestId('0f3a9c41be22-12'), true);
  });

  test('unknown methods, commands sent as requests, bad parameters and other versions are rejected; a usable id is kept for the error answer', () => {
    assert.deepEqual(parseWebviewMessage({ v, id: 'r1', method: 'runShell', params: { command: 'rm -rf /' } }), {
      kind: 'invalid',
      id: 'r1',
    });
    assert.deepEqual(
      parseWebviewMessage({ v, id: 'r2', method: 'openPod', params: { podUid: 'uid' } }),
      { kind: 'invalid', id: 'r2' },
      'a command is not a request',
    );
    assert.deepEqual(parseWebviewMessage({ v, id: 'r3', method: 'copyText', params: { what: 'x', text: 42 } }), {
      kind: 'invalid',
      id: 'r3',
    });
    assert.deepEqual(parseWebviewMessage({ v, id: 'r4', method: 'copyText', params: { what: 'x'.repeat(513), text: '' } }), {
      kind: 'invalid',
      id: 'r4',
    });
    assert.deepEqual(parseWebviewMessage({ v, id: 'r5', params: {} }), { kind: 'invalid', id: 'r5' }, 'no method');
    assert.deepEqual(
      parseWebviewMessage({ v: v - 1, id: 'r6', method: 'saveJson', params: {} }),
      { kind: 'invalid', id: undefined },
      'another version is not answered',
    );
    assert.deepEqual(
      parseWebviewMessage({ v, method: 'saveJson', params: {} }),
      { kind: 'invalid', id: undefined },
      'a request without an id is not a command either',
    );
    assert.deepEqual(parseWebviewMessage('saveJson'), { kind: 'invalid', id: undefined });
    assert.deepEqual(parseWebviewMessage(null), { kind: 'invalid', id: undefined });
  });

  test('responses: built from the request, checked by the webview (id, ok, error), long errors cut', () => {
    const save = request('p-9', 'saveJson', {});
    const ok = response(save, { kind: 'saved', path: '/tmp/report.json' });
    assert.deepEqual(ok, { v, method: 'response', params: { id: 'p-9', ok: true, result: { kind: 'saved', path: '/tmp/report.json' } } });
    assert.deepEqual(parseHostNotification(wire(ok)), ok);
    const failed = errorResponse('p-9', 'EACCES: permission denied');
    assert.deepEqual(parseHostNotification(wire(failed)), {
      v,
      method: 'response',
      params: { id: 'p-9', ok: false, error: 'EACCES: permission denied' },
    });
    const long = errorResponse('p-9', 'e'.repeat(10_000));
    assert.equal(long.params.ok, false);
    assert.ok(!long.params.ok && long.params.error.length === 4096 && long.params.error.endsWith('…'));
    assert.ok(parseHostNotification(wire(long)), 'a cut error is still a valid response');

    const bad: unknown[] = [
      { v, method: 'response', params: { id: 'a b', ok: true, result: { kind: 'copied' } } },
      { v, method: 'response', params: { ok: true, result: { kind: 'copied' } } },
      { v, method: 'response', params: { id: 'r1', result: { kind: 'copied' } } },
      { v, method: 'response', params: { id: 'r1', ok: 'true', result: { kind: 'copied' } } },
      { v, method: 'response', params: { id: 'r1', ok: true } },
      { v, method: 'response', params: { id: 'r1', ok: false } },
      { v, method: 'response', params: { id: 'r1', ok: false, error: { message: 'x' } } },
      { v, method: 'response', params: { id: 'r1', ok: false, error: 'e'.repeat(4097) } },
      { v: v - 1, method: 'response', params: { id: 'r1', ok: true, result: { kind: 'copied' } } },
      { v, method: 'response' },
    ];
    for (const message of bad) assert.equal(parseHostNotification(message), undefined, JSON.stringify(message).slice(0, 120));
    // What is rebuilt drops anything else.
    assert.deepEqual(
      parseHostNotification({
        v,
        method: 'response',
        params: { id: 'r1', ok: false, error: 'x', result: { kind: 'copied' } },
        extra: true,
      }),
      errorResponse('r1', 'x'),
    );
  });

  test("results are checked against the request's method: wrong shapes are rejected", () => {
    assert.deepEqual(parseRequestResult('copyMarkdown', { kind: 'copied' }), { kind: 'copied' });
    assert.deepEqual(parseRequestResult('copyText', { kind: 'copied', extra: '<img>' }), { kind: 'copied' });
    assert.deepEqual(parseRequestResult('saveJson', { kind: 'saved', path: '/tmp/a.json' }), { kind: 'saved', path: '/tmp/a.json' });
    assert.deepEqual(parseRequestResult('saveCapture', { kind: 'cancelled', path: '/x' }), { kind: 'cancelled' });
    const wrong: [WebviewRequestMethod, unknown][] = [
      ['copyMarkdown', { kind: 'saved', path: '/tmp/a.md' }],
      ['copyMarkdown', { kind: 'cancelled' }],
      ['copyText', 'copied'],
      ['copyText', null],
      ['saveJson', { kind: 'copied' }],
      ['saveJson', { kind: 'saved' }],
      ['saveJson', { kind: 'saved', path: '' }],
      ['saveJson', { kind: 'saved', path: 42 }],
      ['saveCapture', { kind: 'saved', path: 'p'.repeat(4097) }],
      ['saveCapture', { kind: 'Saved', path: '/tmp/c.txt' }],
      ['saveCapture', [{ kind: 'cancelled' }]],
      ['saveCapture', undefined],
    ];
    for (const [method, value] of wrong) assert.equal(parseRequestResult(method, value), undefined, `${method} ${JSON.stringify(value)}`);
    assert.equal(parseRequestResult('runShell' as WebviewRequestMethod, { kind: 'copied' }), undefined, 'an unknown method has no result');
  });
});

describe('inspector webview: pending requests', () => {
  test('a request is sent with a fresh id, the host accepts it, and its response settles it', async () => {
    const { sent, requests, timers } = harness('0f3a9c');
    const first = requests.request('saveJson', {});
    const second = requests.request('copyText', { what: 'meminfo', text: 'MemTotal: 1 kB' });
    assert.equal(requests.size, 2);
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[0], { v, id: '0f3a9c-1', method: 'saveJson', params: {} });
    assert.deepEqual(sent[1], { v, id: '0f3a9c-2', method: 'copyText', params: { what: 'meminfo', text: 'MemTotal: 1 kB' } });
    // Answered out of order: each goes to its own request.
    assert.equal(
      requests.settle(hostAnswer(sent[1], (message) => response(message as WebviewRequest<'copyText'>, { kind: 'copied' }))),
      true,
    );
    assert.deepEqual((await settled(second)).value, { ok: true, result: { kind: 'copied' } });
    assert.equal((await settled(first)).done, false, 'the other is still waiting');
    assert.equal(
      requests.settle(
        hostAnswer(sent[0], (message) => response(message as WebviewRequest<'saveJson'>, { kind: 'saved', path: '/home/u/report.json' })),
      ),
      true,
    );
    assert.deepEqual(await first, { ok: true, result: { kind: 'saved', path: '/home/u/report.json' } });
    assert.equal(requests.size, 0);
    assert.equal(timers.scheduled, 0, 'the timeouts of answered requests are cleared');
    timers.advance(REQUEST_TIMEOUT_MS.saveJson * 2);
  });

  test("the host's error, a malformed result, an unknown or repeated id", async () => {
    const { sent, requests } = harness();
    const failing = requests.request('saveCapture', {});
    assert.equal(
      requests.settle(hostAnswer(sent[0], (message) => errorResponse(message.id, 'The capture of this panel was too large'))),
      true,
    );
    assert.deepEqual(await failing, { ok: false, reason: 'failed', error: 'The capture of this panel was too large' });

    const malformed = requests.request('copyMarkdown', {});
    const id = (sent[1] as { id: string }).id;
    assert.equal(requests.settle({ id, ok: true, result: { kind: 'saved', path: '/tmp/x' } }), true);
    const outcome = await malformed;
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.reason === 'malformed' && /copyMarkdown/.test(outcome.error), JSON.stringify(outcome));

    const waiting = requests.request('copyMarkdown', {});
    assert.equal(requests.settle({ id: 'page1-999', ok: true, result: { kind: 'copied' } }), false, 'an id this page never sent');
    assert.equal(requests.settle({ id, ok: true, result: { kind: 'copied' } }), false, 'an id already answered');
    assert.equal((await settled(waiting)).done, false);
    assert.equal(requests.size, 1);
  });

  test("a host that never answers: the request times out at its method's timeout; a late answer goes to onLate once", async () => {
    const { sent, requests, timers } = harness();
    const late: RequestOutcome<unknown>[] = [];
    const copy = requests.request('copyMarkdown', {}, { onLate: (outcome) => late.push(outcome) });
    timers.advance(REQUEST_TIMEOUT_MS.copyMarkdown - 1);
    assert.equal((await settled(copy)).done, false, 'not before its timeout');
    timers.advance(1);
    assert.deepEqual(await copy, {
      ok: false,
      reason: 'timeout',
      error: `No answer from the extension host after ${REQUEST_TIMEOUT_MS.copyMarkdown / 1000} s.`,
    });
    assert.equal(requests.size, 0);
    const answer = hostAnswer(sent[0], (message) => response(message as WebviewRequest<'copyMarkdown'>, { kind: 'copied' }));
    assert.equal(requests.settle(answer), true, 'the late answer is taken');
    assert.deepEqual(late, [{ ok: true, result: { kind: 'copied' } }]);
    assert.equal(requests.settle(answer), false, 'only once');

    // A save waits longer (a save dialog), and its own timeout can be set.
    const save = requests.request('saveJson', {});
    timers.advance(REQUEST_TIMEOUT_MS.copyMarkdown);
    assert.equal((await settled(save)).done, false);
    assert.ok(REQUEST_TIMEOUT_MS.saveJson > REQUEST_TIMEOUT_MS.copyMarkdown);
    const quick = requests.request('saveJson', {}, { timeoutMs: 500 });
    timers.advance(500);
    assert.deepEqual(await quick, { ok: false, reason: 'timeout', error: 'No answer from the extension host after 1 s.' });
  });

  test('timed-out requests are remembered for late answers only up to a bound', async () => {
    const { sent, requests, timers } = harness();
    const late: string[] = [];
    const outcomes = Array.from({ length: 17 }, (_unused, index) =>
      requests.request('copyText', { what: `s${index}`, text: '' }, { onLate: () => late.push(`s${index}`) }),
    );
    timers.advance(REQUEST_TIMEOUT_MS.copyText);
    assert.ok((await Promise.all(outcomes)).every((outcome) => !outcome.ok && outcome.reason === 'timeout'));
    const answer = (index: number): ResponseParams => ({ id: (sent[index] as { id: string }).id, ok: true, result: { kind: 'copied' } });
    assert.equal(requests.settle(answer(0)), false, 'the oldest was forgotten');
    assert.equal(requests.settle(answer(1)), true);
    assert.equal(requests.settle(answer(16)), true);
    assert.deepEqual(late, ['s1', 's16']);
  });

  test("two pages do not take each other's answers; a send that throws and a disposed page settle at once", async () => {
    const a = harness('aaaa');
    const b = harness('bbbb');
    const fromA = a.requests.request('copyMarkdown', {});
    b.requests.request('copyMarkdown', {});
    const answerToA = hostAnswer(a.sent[0], (message) => response(message as WebviewRequest<'copyMarkdown'>, { kind: 'copied' }));
    assert.equal(b.requests.settle(answerToA), false);
    assert.equal(a.requests.settle(answerToA), true);
    assert.deepEqual(await fromA, { ok: true, result: { kind: 'copied' } });

    const broken = new PendingRequests({
      send: () => {
        throw new Error('the webview is gone');
      },
      idPrefix: 'x',
      timers: new ManualTimers(),
    });
    assert.deepEqual(await broken.request('saveJson', {}), {
      ok: false,
      reason: 'failed',
      error: 'The request could not be sent: the webview is gone',
    });
    assert.equal(broken.size, 0);

    const waiting = b.requests.request('saveCapture', {});
    b.requests.dispose();
    assert.deepEqual(await waiting, { ok: false, reason: 'disposed', error: 'The panel is closing.' });
    const sentBefore = b.sent.length;
    assert.equal((await b.requests.request('copyMarkdown', {})).ok, false);
    assert.equal(b.sent.length, sentBefore, 'nothing is sent after dispose');
    assert.equal(b.timers.scheduled, 0);

    assert.throws(() => new PendingRequests({ send: () => undefined, idPrefix: 'a b' }), /prefix/);
    assert.throws(() => new PendingRequests({ send: () => undefined, idPrefix: '' }), /prefix/);
  });

  test('with the real timers: an unanswered request times out', async () => {
    const requests = new PendingRequests({ send: () => undefined, idPrefix: 'real' });
    const started = Date.now();
    const outcome = await requests.request('copyMarkdown', {}, { timeoutMs: 30 });
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.reason === 'timeout');
    assert.ok(Date.now() - started >= 25, 'not before its timeout');
  });

  test('the notification constructor and parse agree for every host notification kind', () => {
    assert.ok(parseHostNotification(wire(notification('notice', { text: 'x', tone: 'error' }))));
    assert.ok(parseHostNotification(wire(notification('response', { id: 'r', ok: true, result: { kind: 'copied' } }))));
  });
});

describe('request descriptors', () => {
  test('each request is named once: its key is its method, with a timeout and both checks', () => {
    for (const [key, descriptor] of Object.entries(REQUESTS)) {
      assert.equal(descriptor.method, key);
      assert.ok(descriptor.timeoutMs > 0 && REQUEST_TIMEOUT_MS[descriptor.method] === descriptor.timeoutMs, key);
      assert.equal(typeof descriptor.parseParams, 'function');
      assert.equal(typeof descriptor.parseResult, 'function');
    }
    assert.deepEqual(Object.keys(REQUEST_TIMEOUT_MS).sort(), Object.keys(REQUESTS).sort());
  });
});
