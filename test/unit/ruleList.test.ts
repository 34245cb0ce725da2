// The list `gpumem rules` prints and Show Rule Documentation… offers: every configurable id once, the lint rules in
// the catalog's order and then the live findings, each with the page the editor opens for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { LIVE_RULES } from '../../src/core/live/liveRuleIds.ts';
import { liveRuleDocsPath } from '../../src/core/live/liveRules.ts';
import { RULES } from '../../src/core/rules/catalog.ts';
import { ruleList } from '../../src/core/rules/ruleList.ts';

const ROOT = new URL('../../', import.meta.url);

test('the lint rules in catalog order, then the live findings; ids unique', () => {
  const entries = ruleList();
  assert.deepEqual(
    entries.map((entry) => [entry.source, entry.id]),
    [...RULES.map((rule) => ['lint', rule.id]), ...Object.values(LIVE_RULES).map((id) => ['live', id])],
  );
  assert.equal(new Set(entries.map((entry) => entry.id)).size, entries.length);
});

test('labels say what qualifies the severity, and every entry has its page', () => {
  const byId = new Map(ruleList().map((entry) => [entry.id, entry]));
  const offByDefault = RULES.find((rule) => rule.offByDefault);
  assert.ok(offByDefault, 'the catalog has a rule that is off until configured');
  assert.equal(byId.get(offByDefault.id)?.label, `${offByDefault.title} (off until configured)`);
  assert.equal(byId.get(LIVE_RULES.oomKills)?.label, 'The workload was OOM-killed in the window (information for global kills)');
  assert.equal(byId.get(LIVE_RULES.drift)?.defaultSeverity, 'info');
  for (const entry of byId.values()) {
    const page = entry.source === 'live' ? liveRuleDocsPath(entry.id) : `docs/rules/${entry.id}.md`;
    assert.ok(existsSync(new URL(page, ROOT)), page);
  }
});
