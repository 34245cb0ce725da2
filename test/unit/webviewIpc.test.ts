// The shared webview protocol (src/core/webviewIpc/) on a protocol of its own, independent of the panels': its
// version, the methods it names and nothing else (no prototype names), params checked by their parser, requests with
// a usable id answered even when invalid, `response` kept for itself, and the pending requests' timeouts from the
// descriptors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineRequest, hasExactly, noParams, WebviewProtocol } from '../../src/core/webviewIpc/protocol.ts';
import { PendingRequests } from '../../src/core/webviewIpc/requests.ts';

const REQUESTS = {
  count: defineRequest<'count', { readonly of: string }, number>({
    method: 'count',
    timeoutMs: 250,
    parseParams: (params) => (hasExactly(params, ['of']) && typeof params.of === 'string' ? { of: params.of } : undefined),
    parseResult: (value) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined),
  }),
};

const TEST = new WebviewProtocol({
  version: 7,
  commands: {
    ping: noParams,
    pick: (params): { readonly item: number } | undefined =>
      hasExactly(params, ['item']) && Number.isInteger(params.item) ? { item: params.item as number } : undefined,
  },
  notifications: {
    shown: (params): { readonly text: string } | undefined => (typeof params.text === 'string' ? { text: params.text } : undefined),
  },
  requests: REQUESTS,
});

test('commands: the version, the method and the params, each checked', () => {
  assert.deepEqual(TEST.parseWebviewMessage({ v: 7, method: 'pick', params: { item: 3 } }), {
    kind: 'command',
    message: { v: 7, method: 'pick', params: { item: 3 } },
  });
  assert.deepEqual(TEST.parseWebviewCommand({ v: 7, method: 'ping' }), { v: 7, method: 'ping', params: {} });
  for (const bad of [
    { v: 6, method: 'ping', params: {} },
    { v: 7, method: 'ping', params: { x: 1 } },
    { v: 7, method: 'pick', params: { item: 1.5 } },
    { v: 7, method: 'pick', params: { item: 1, more: 2 } },
    { v: 7, method: 'constructor', params: {} },
    { v: 7, method: 'hasOwnProperty', params: {} },
    { v: 7, method: 'shown', params: { text: 'a notification is no command' } },
    { v: 7, params: {} },
  ])
    assert.equal(TEST.parseWebviewCommand(bad), undefined, JSON.stringify(bad));
});

test('requests: an invalid one with a usable id carries it, so the host can answer it', () => {
  assert.deepEqual(TEST.parseWebviewMessage({ v: 7, id: 'p-1', method: 'count', params: { of: 'pods' } }), {
    kind: 'request',
    message: { v: 7, id: 'p-1', method: 'count', params: { of: 'pods' } },
  });
  assert.deepEqual(TEST.parseWebviewMessage({ v: 7, id: 'p-2', method: 'count', params: {} }), { kind: 'invalid', id: 'p-2' });
  assert.deepEqual(TEST.parseWebviewMessage({ v: 7, id: 'p-3', method: 'ping', params: {} }), { kind: 'invalid', id: 'p-3' });
  assert.deepEqual(TEST.parseWebviewMessage({ v: 6, id: 'p-4', method: 'count', params: { of: 'x' } }), { kind: 'invalid', id: undefined });
  assert.deepEqual(TEST.parseWebviewMessage({ v: 7, id: 'has space', method: 'count', params: { of: 'x' } }), {
    kind: 'invalid',
    id: undefined,
  });
  assert.equal(TEST.errorResponse('p-2', 'x'.repeat(10_000)).params.ok, false);
  const cut = TEST.errorResponse('p-2', 'x'.repeat(10_000)).params;
  assert.ok(!cut.ok && cut.error.length === 4096 && cut.error.endsWith('…'));
});

test("notifications: the protocol's own and `response`; `response` cannot be redefined", () => {
  assert.deepEqual(TEST.parseHostNotification({ v: 7, method: 'shown', params: { text: 'hi' } }), {
    v: 7,
    method: 'shown',
    params: { text: 'hi' },
  });
  assert.equal(TEST.parseHostNotification({ v: 7, method: 'shown', params: { text: 1 } }), undefined);
  assert.equal(TEST.parseHostNotification({ v: 7, method: 'shown' }), undefined);
  assert.deepEqual(TEST.parseHostNotification({ v: 7, method: 'response', params: { id: 'p-1', ok: true, result: 4 } })?.params, {
    id: 'p-1',
    ok: true,
    result: 4,
  });
  assert.equal(TEST.parseHostNotification({ v: 7, method: 'response', params: { id: 'p-1', ok: 'yes', result: 4 } }), undefined);
  assert.throws(
    () => new WebviewProtocol({ version: 1, commands: {}, notifications: { response: noParams }, requests: {} }),
    /`response` is the protocol’s own notification/,
  );
});

test('pending requests: the timeout is the descriptor’s, the result checked by it', async () => {
  const sent: unknown[] = [];
  const handlers: (() => void)[] = [];
  const requests = new PendingRequests<typeof REQUESTS>({
    protocol: TEST,
    send: (message) => sent.push(message),
    idPrefix: 'page',
    timers: { set: (callback) => handlers.push(callback), clear: () => undefined },
  });
  assert.deepEqual(TEST.requestTimeouts, { count: 250 });
  const answered = requests.request('count', { of: 'pods' });
  assert.deepEqual(sent, [{ v: 7, id: 'page-1', method: 'count', params: { of: 'pods' } }]);
  assert.equal(requests.settle({ id: 'page-1', ok: true, result: 12 }), true);
  assert.deepEqual(await answered, { ok: true, result: 12 });
  const malformed = requests.request('count', { of: 'nodes' });
  requests.settle({ id: 'page-2', ok: true, result: 'twelve' });
  assert.equal((await malformed).ok, false);
  const late = requests.request('count', { of: 'kills' });
  handlers.at(-1)?.();
  assert.deepEqual(await late, { ok: false, reason: 'timeout', error: 'No answer from the extension host after 0 s.' });
});
