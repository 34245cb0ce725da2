// The right-sizer's recording rules: promtool checks them and runs their unit tests (the true footprint summed at the
// same instant, the kills by cause), and every gpumem series they read is in the agent's metric contract.
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { METRIC_FAMILIES } from '../../src/core/agent/metricContract.ts';
import { RECORDED } from '../../src/core/rightsizing/queries.ts';

const DIR = join(import.meta.dirname, '../../deploy/agent/prometheus');
const RULES = join(DIR, 'rightsizing-rules.yaml');
const HAS_PROMTOOL = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
const NO_PROMTOOL = 'promtool is not on PATH (Debian: apt-get install prometheus)';

test('the recording rules read only contract series and record the names the queries use', () => {
  const text = readFileSync(RULES, 'utf8');
  const contract = new Set<string>(METRIC_FAMILIES.map((family) => family.name));
  for (const [name] of text.matchAll(/(?<![:a-z_])gpumem_[a-z0-9_]+\b/g)) assert.ok(contract.has(name), `unknown series ${name}`);
  for (const name of Object.values(RECORDED)) assert.ok(text.includes(`record: ${name}`), `the rule ${name}`);
});

test('promtool check rules and test rules', (t: TestContext) => {
  if (!HAS_PROMTOOL) return t.skip(NO_PROMTOOL);
  const check = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  const unit = spawnSync('promtool', ['test', 'rules', 'rightsizing-rules.test.yaml'], { encoding: 'utf8', cwd: DIR });
  assert.equal(unit.status, 0, unit.stdout + unit.stderr);
});
