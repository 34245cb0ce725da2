// The debug image setting and --debug-image: references in the distribution grammar, digests checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImageReference } from '../../src/core/kube/imageReference.ts';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

test('tags, registries with ports, and digests are valid; the digest is returned', () => {
  for (const ref of [
    'busybox',
    'busybox:1.36',
    'docker.io/library/busybox:1.36',
    'localhost:5000/tools/busybox',
    'registry.k8s.io/e2e-test-images/busybox:1.36.1-1',
    `busybox@${DIGEST}`,
    `ghcr.io/acme/debug:v2@${DIGEST}`,
  ]) {
    const parsed = parseImageReference(ref);
    assert.equal(parsed.kind, 'valid', `${ref}: ${parsed.kind === 'invalid' ? parsed.reason : ''}`);
  }
  const pinned = parseImageReference(`  busybox:1.36@${DIGEST} `);
  assert.deepEqual(pinned, { kind: 'valid', reference: `busybox:1.36@${DIGEST}`, digest: DIGEST });
  const tagged = parseImageReference('busybox:1.36');
  assert.equal(tagged.kind === 'valid' ? tagged.digest : 'invalid', undefined);
});

test('malformed references and digests are refused with the reason', () => {
  const reason = (ref: string): string => {
    const parsed = parseImageReference(ref);
    assert.equal(parsed.kind, 'invalid', ref);
    return parsed.kind === 'invalid' ? parsed.reason : '';
  };
  assert.match(reason(''), /empty/);
  assert.match(reason('busybox@sha256:abc'), /not a digest/);
  assert.match(reason(`busybox@sha256:${'A'.repeat(64)}`), /not a digest/);
  assert.match(reason(`busybox@md5:${'a'.repeat(32)}`), /not a digest/);
  assert.match(reason('Busybox:1'), /image name component/);
  assert.match(reason('busybox:1 2'), /image tag/);
  assert.match(reason('busybox:-x'), /image tag/);
  assert.match(reason('a//b'), /image name component/);
  assert.match(reason('--privileged'), /image name component/);
  assert.match(reason(`${'a'.repeat(600)}`), /longer than 512/);
});

test('long hostile input is refused with a reason (how the cost grows: bench/growth.mjs)', () => {
  for (const text of [`${'a.'.repeat(250)}!`, `${'a-'.repeat(250)}`, `x/${'a_'.repeat(250)}:`])
    assert.equal(parseImageReference(text).kind, 'invalid', text.slice(0, 12));
});
