// What a `kubectl kustomize DIR` run gave, told apart (src/core/manifest/kustomizeRender.ts). The stderr below is
// kubectl v1.32.4 (kustomize v5.5.0, Debian's kubectl) refusing an overlay whose kustomization lists `../a.yaml`,
// captured on 2026-12-08; the header is read back with the yaml package, which must see it as a comment only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { TransportError } from '../../src/core/probe/transport.ts';
import type { ExecResult } from '../../src/core/probe/transport.ts';
import { kustomizeCause, renderFailureOf, renderedHeader, renderedOf } from '../../src/core/manifest/kustomizeRender.ts';

const LOAD_RESTRICTOR_STDERR = `E1208 00:09:26.059123    1091 run.go:72] "command failed" err="accumulating resources: accumulation err='accumulating resources from '../a.yaml': security; file '/tmp/lr/a.yaml' is not in or below '/tmp/lr/o'': must build at directory: '/tmp/lr/a.yaml': file is not directory"\n`;

const result = (over: Partial<ExecResult>): ExecResult =>
  ({ stdout: '', stderr: '', exitCode: 0, truncated: false, ...over }) as ExecResult;

test('a finished run is its text; a cut one is too large; a refusal keeps its cause and, for the load restrictor, the way out', () => {
  assert.deepEqual(renderedOf(result({ stdout: 'kind: Pod\n' })), { kind: 'rendered', text: 'kind: Pod\n' });
  assert.deepEqual(renderedOf(result({ stdout: 'kind: P', truncated: true })), { kind: 'too-large' });
  const refused = renderedOf(result({ exitCode: 1, stderr: LOAD_RESTRICTOR_STDERR }));
  assert.equal(refused.kind, 'failed');
  assert.ok(refused.kind === 'failed' && refused.reason.startsWith('kubectl kustomize failed: E1208'));
  assert.ok(refused.kind === 'failed' && refused.reason.includes("file '/tmp/lr/a.yaml' is not in or below '/tmp/lr/o'"));
  assert.ok(
    refused.kind === 'failed' && refused.reason.endsWith('kubectl kustomize --load-restrictor LoadRestrictionsNone DIR | gpumem lint -)'),
  );
  assert.deepEqual(renderedOf(result({ exitCode: 3 })), { kind: 'failed', reason: 'kubectl exited with status 3' });
});

test("kustomize's cause is its last line, without deprecation warnings, and with no way out when none is needed", () => {
  assert.equal(
    kustomizeCause('# Warning: x is deprecated\n\nError: no kustomization file\n'),
    'kubectl kustomize failed: Error: no kustomization file',
  );
});

test('a spawn failure is kubectl missing, a timeout and a cancel are said as such, anything else is a failure', () => {
  assert.deepEqual(renderFailureOf(new TransportError({ kind: 'spawn', detail: 'kubectl: not found (ENOENT)' })), {
    kind: 'no-kubectl',
    detail: 'kubectl: not found (ENOENT)',
  });
  assert.deepEqual(renderFailureOf(new TransportError({ kind: 'timeout', phase: 'command', ms: 120_000 })), {
    kind: 'failed',
    reason: 'kubectl kustomize did not finish within 120 s',
  });
  assert.deepEqual(renderFailureOf(new TransportError({ kind: 'cancelled' })), { kind: 'cancelled' });
  assert.deepEqual(renderFailureOf(new Error('boom')), { kind: 'failed', reason: 'Error: boom' });
});

test('the header is one comment line naming the directory and the time, even for a name with line breaks', () => {
  const at = new Date(Date.UTC(2026, 11, 8, 0, 9, 26));
  for (const directory of ['/w/overlays/hami-debug', '/w/odd\nkind: Secret\r\u2028x']) {
    const header = renderedHeader(directory, at);
    assert.equal(header.split('\n').length, 2, 'one line and its break');
    assert.ok(header.startsWith('# gpumem: kubectl kustomize /w/'));
    assert.ok(header.includes('2026-12-08T00:09:26.000Z'));
    const documents = parseAllDocuments(`${header}kind: Pod\n`);
    assert.equal(documents.length, 1);
    assert.deepEqual(documents[0]?.toJS(), { kind: 'Pod' });
  }
});
