// The one classification of failures the extension's reporter and the CLI's dispatch share: expected failures of
// the environment (by their cause) apart from cancels and bugs, the user's one sentence, and the log's whole error.
// The errors are built in the shapes the real throwers produce (client-node's ApiException: `code` and a Status
// `body`; undici's `TypeError('fetch failed')` with the socket error as `cause`; Node's fs errors; AbortSignal's
// TimeoutError DOMException; the transports' TransportError).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyFailure, errorDetails, ExplainedError, reportFailure } from '../../src/core/failureReport.ts';
import { TransportError } from '../../src/core/probe/transport.ts';

const FORBIDDEN = {
  code: 403,
  body: JSON.stringify({
    kind: 'Status',
    message: 'nodes "gpu-1" is forbidden: User "dev" cannot get resource "nodes" in API group "" at the cluster scope',
    reason: 'Forbidden',
    code: 403,
  }),
};

function fsError(): Error {
  return Object.assign(new Error("ENOENT: no such file or directory, open '/missing/x.json'"), {
    code: 'ENOENT',
    syscall: 'open',
    path: '/missing/x.json',
  });
}

describe('classifyFailure', () => {
  test('transport failures by kind', () => {
    assert.deepEqual(classifyFailure(new TransportError({ kind: 'cancelled' })), { kind: 'cancelled' });
    assert.deepEqual(classifyFailure(new TransportError({ kind: 'timeout', phase: 'command', ms: 5000 })), {
      kind: 'expected',
      cause: 'timeout',
      text: 'timed out after 5000 ms while running the probe',
    });
    assert.equal(classifyFailure(new TransportError({ kind: 'connect', detail: 'ECONNREFUSED' })).kind, 'expected');
    assert.deepEqual(
      (classifyFailure(new TransportError({ kind: 'auth', detail: 'all keys refused' })) as { cause: string }).cause,
      'credentials',
    );
  });

  test('Kubernetes failures: RBAC, unreachable, deadline', () => {
    assert.deepEqual(classifyFailure(FORBIDDEN), {
      kind: 'expected',
      cause: 'forbidden',
      text: `forbidden: cannot get nodes (nodes "gpu-1" is forbidden: User "dev" cannot get resource "nodes" in API group "" at the cluster scope)`,
    });
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }),
    });
    assert.deepEqual(classifyFailure(refused), {
      kind: 'expected',
      cause: 'unreachable',
      text: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:6443',
    });
    assert.deepEqual(classifyFailure(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), {
      kind: 'expected',
      cause: 'timeout',
      text: 'timeout: The operation was aborted due to timeout',
    });
  });

  test('a file the system refused is expected; a bug is internal', () => {
    assert.deepEqual(classifyFailure(fsError()), {
      kind: 'expected',
      cause: 'file',
      text: "ENOENT: no such file or directory, open '/missing/x.json'",
    });
    assert.deepEqual(classifyFailure(new TypeError("Cannot read properties of undefined (reading 'items')")), { kind: 'internal' });
    assert.deepEqual(classifyFailure(new RangeError('Invalid array length')), { kind: 'internal' });
    assert.deepEqual(classifyFailure('a string thrown'), { kind: 'internal' });
  });
});

describe('reportFailure: the one sentence the user reads', () => {
  test('an expected failure: the action and the cause, or the caller’s better words', () => {
    assert.deepEqual(reportFailure('Inspect node gpu-1', new TransportError({ kind: 'timeout', phase: 'connect', ms: 20000 })), {
      kind: 'expected',
      cause: 'timeout',
      sentence: 'Inspect node gpu-1 failed: timed out after 20000 ms while connecting.',
    });
    assert.deepEqual(reportFailure('Read node gpu-1', FORBIDDEN, 'Read node gpu-1: you may not get nodes in context lab'), {
      kind: 'expected',
      cause: 'forbidden',
      sentence: 'Read node gpu-1: you may not get nodes in context lab.',
    });
    assert.deepEqual(reportFailure('Analyse capture x.txt', new ExplainedError('not read: it is a directory')), {
      kind: 'expected',
      cause: 'input',
      sentence: 'Analyse capture x.txt failed: not read: it is a directory.',
    });
  });

  test('an internal failure says so, asks for a report, and keeps the engine text out', () => {
    const report = reportFailure('Analyze Capture', new TypeError("Cannot read properties of undefined (reading 'items')"), 'ignored');
    assert.deepEqual(report, {
      kind: 'internal',
      sentence: 'Analyze Capture failed because of an internal error in gpumem. Please report it with the log (Show Log).',
    });
  });

  test('a cancel is no failure to report', () => {
    assert.deepEqual(reportFailure('Inspect', new DOMException('aborted', 'AbortError')), { kind: 'cancelled' });
  });
});

describe('errorDetails: the whole error for the log', () => {
  test('the stack, then each cause', () => {
    const inner = new Error('socket closed');
    const outer = new TypeError('fetch failed', { cause: inner });
    const text = errorDetails(outer);
    assert.ok(text.startsWith('TypeError: fetch failed\n    at '), text);
    assert.match(text, /\ncaused by: Error: socket closed\n {4}at /);
    assert.equal(errorDetails('plain'), 'plain');
  });
});

describe('the extension shows no exception text as it is', () => {
  // Every notification of a failure goes through reportError (messages.ts) when it starts from a thrown error:
  // a call that shows gpumem's own sentence must not build it from an exception's text.
  const ROOT = fileURLToPath(new URL('../../src/vscode/', import.meta.url));
  const SHOWS = ['showFailure(', 'showError(', 'showErrorMessage(', 'showWarningMessage('];
  const FROM_EXCEPTION = /errorMessage\(|errorText\(|\berror\.message\b|String\(error\)|\.stack\b/;

  test('no showFailure/showError/show…Message call builds its text from an exception', () => {
    const offenders: string[] = [];
    for (const file of readdirSync(ROOT, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const show of SHOWS) {
        for (let at = text.indexOf(show); at >= 0; at = text.indexOf(show, at + show.length)) {
          const end = text.indexOf(';', at);
          const call = text.slice(at, end < 0 ? undefined : end);
          if (FROM_EXCEPTION.test(call)) offenders.push(`${file}: ${call.slice(0, 120)}`);
        }
      }
    }
    assert.deepEqual(offenders, []);
  });
});
