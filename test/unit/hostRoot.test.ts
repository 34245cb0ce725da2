// The probe's host root: `/` is the machine's own root, as the default is (`gpumem agent --host-root /`,
// `gpumem probe-script --host-root /` were refused as "not an absolute path"); a trailing slash is the same
// directory; `.` and `..` segments and shell characters are still refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProbeScript } from '../../src/core/probe/script.ts';

const NONCE = '0123456789abcdef';
const rootOf = (script: string) => /\nGPUMEM_ROOT='([^']*)'\n/.exec(script)?.[1];

test('`/` is the default root, `/host/` is `/host`', () => {
  const byDefault = rootOf(buildProbeScript({ scope: 'node', nonce: NONCE }));
  assert.equal(byDefault, '');
  assert.equal(rootOf(buildProbeScript({ scope: 'node', nonce: NONCE, hostRoot: '/' })), byDefault);
  assert.equal(rootOf(buildProbeScript({ scope: 'node', nonce: NONCE, hostRoot: '//' })), byDefault);
  assert.equal(rootOf(buildProbeScript({ scope: 'node', nonce: NONCE, hostRoot: '/host/' })), '/host');
});

test('`.` and `..` segments, relative paths and shell characters are still refused', () => {
  for (const hostRoot of ['/host/..', '/.', '/./', 'host', '/host;id', "/'", '/host dir'])
    assert.throws(() => buildProbeScript({ scope: 'node', nonce: NONCE, hostRoot }), /must be an absolute path/, hostRoot);
});
