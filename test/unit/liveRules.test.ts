// Every live finding id has its page, whose first heading carries the id and title; every id the judgement emits
// is in the list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { LIVE_RULES } from '../../src/core/live/liveRuleIds.ts';
import { LIVE_RULE_META, liveRuleDocsPath } from '../../src/core/live/liveRules.ts';

const ROOT = new URL('../../', import.meta.url);

test('each live finding id has a docs page headed "<id>: <title>", and no page documents an unknown id', () => {
  assert.deepEqual(LIVE_RULE_META.map((rule) => rule.id).sort(), Object.values(LIVE_RULES).sort());
  for (const rule of LIVE_RULE_META) {
    const file = new URL(liveRuleDocsPath(rule.id), ROOT);
    assert.ok(existsSync(file), `${liveRuleDocsPath(rule.id)} is missing`);
    assert.equal(/^# (.*)$/m.exec(readFileSync(file, 'utf8'))?.[1], `${rule.id}: ${rule.title}`);
  }
  // README.md is the folder's index (live mode for users), not a finding's page.
  for (const page of readdirSync(new URL('docs/live/', ROOT)).filter((name) => name !== 'README.md'))
    assert.ok(
      LIVE_RULE_META.some((rule) => `${rule.id}.md` === page),
      `docs/live/${page} documents no live finding`,
    );
});
