// The Node.js version check dist/cli.js runs first (src/cli/nodeVersion.ts): the minimum is package.json's
// engines.node, and an older Node gets the one line, a newer or equal one none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MINIMUM_NODE, unsupportedNodeMessage } from '../../src/cli/nodeVersion.ts';

const engines = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).engines.node;

test("the minimum is package.json's engines.node", () => {
  assert.equal(engines, `>=${MINIMUM_NODE.major}.${MINIMUM_NODE.minor}`);
});

test('older versions get one line naming the minimum and the version found', () => {
  for (const version of ['20.20.2', '18.19.1', '22.18.0', '22.0.0', '12.22.9', '0.10.48']) {
    assert.equal(unsupportedNodeMessage(version), `gpumem needs Node.js ≥ 22.19; this is ${version}`);
  }
});

test('the minimum and newer versions pass', () => {
  for (const version of ['22.19.0', '22.23.3', '23.0.0', '24.1.0', '100.0.0']) assert.equal(unsupportedNodeMessage(version), undefined);
});

test('a version string it cannot read is not refused (Node decides)', () => {
  for (const version of ['', 'x.y', '22']) assert.equal(unsupportedNodeMessage(version), undefined);
});
