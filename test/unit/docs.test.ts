// The rule docs cannot rot: every rule in the catalog has a page at docs/rules/<id>.md whose first heading
// starts with the id, the index lists every rule, links between the pages resolve, and every YAML example is
// linted with the real linter.
//
// Example convention (a fenced block's info string, after the language):
//   ```yaml triggers=<id> [severity=<sev>] [<config key>=<value>…]   linting the block reports <id> (at <sev>)
//   ```yaml fixed[=<id>] [<config key>=<value>…]                      linting the block does not report <id>
// `triggers` and `fixed` without `=<id>` mean the page's own rule. Any other key=value is a lint setting
// (headroomPercent, dedicatedNodeTaintKey, hamiDetection) passed through resolveConfig.
//   ```yaml config       a CLI --config file: it must parse and resolve without problems
//   ```json              (README only) a VS Code settings.json fragment: the same check on the gpumem.lint.* keys
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { resolveConfig } from '../../src/core/config.ts';
import { LineIndex } from '../../src/core/lineIndex.ts';
import { lintText } from '../../src/core/lint.ts';
import { RULES } from '../../src/core/rules/catalog.ts';

const DOCS = new URL('../../docs/rules/', import.meta.url);
const RULE_IDS = new Set(RULES.map((rule) => rule.id));
const SEVERITIES = new Set(['error', 'warning', 'info']);

interface Block {
  readonly info: string;
  readonly language: string;
  readonly attributes: ReadonlyMap<string, string | true>;
  readonly body: string;
  /** 1-based line of the opening fence, for messages. */
  readonly line: number;
}

function read(name: string): string {
  return readFileSync(new URL(name, DOCS), 'utf8');
}

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = new LineIndex(markdown);
  for (const match of markdown.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm)) {
    const [language = '', ...rest] = (match[1] ?? '').trim().split(/\s+/);
    const attributes = new Map<string, string | true>();
    for (const word of rest) {
      const eq = word.indexOf('=');
      attributes.set(eq < 0 ? word : word.slice(0, eq), eq < 0 ? true : word.slice(eq + 1));
    }
    out.push({ info: (match[1] ?? '').trim(), language, attributes, body: match[2] ?? '', line: lines.position(match.index ?? 0).line });
  }
  return out;
}

/** The lint settings a block's info string carries (everything but triggers, fixed and severity). */
function blockConfig(block: Block, where: string) {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of block.attributes) {
    if (key === 'triggers' || key === 'fixed' || key === 'severity' || key === 'kustomize') continue;
    assert.notEqual(value, true, `${where}: setting ${key} needs a value`);
    raw[key] = /^\d+(\.\d+)?$/.test(value as string) ? Number(value) : value;
  }
  const { config, problems } = resolveConfig(raw);
  assert.deepEqual(problems, [], `${where}: invalid settings in the info string "${block.info}"`);
  return config;
}

function ruleOf(block: Block, key: 'triggers' | 'fixed', pageRule: string | undefined, where: string): string {
  const value = block.attributes.get(key);
  const id = value === true ? pageRule : value;
  assert.ok(id !== undefined, `${where}: "${key}" needs a rule id on this page`);
  assert.ok(RULE_IDS.has(id), `${where}: unknown rule id "${id}"`);
  return id;
}

const pages = readdirSync(DOCS).filter((name) => name.endsWith('.md'));

describe('rule docs', () => {
  test('every rule in the catalog has a page whose first heading starts with its id', () => {
    for (const rule of RULES) {
      const file = new URL(`${rule.id}.md`, DOCS);
      assert.ok(existsSync(file), `docs/rules/${rule.id}.md is missing`);
      const heading = /^# (.*)$/m.exec(read(`${rule.id}.md`))?.[1];
      assert.ok(heading !== undefined, `docs/rules/${rule.id}.md has no "# " heading`);
      assert.ok(heading.startsWith(`${rule.id}:`), `docs/rules/${rule.id}.md: first heading "${heading}" should start with "${rule.id}:"`);
      assert.equal(heading, `${rule.id}: ${rule.title}`, `docs/rules/${rule.id}.md: the heading should carry the catalog title`);
    }
  });

  test('there is no page for a rule the catalog does not have', () => {
    for (const page of pages) {
      if (page === 'README.md') continue;
      assert.ok(RULE_IDS.has(page.slice(0, -3)), `docs/rules/${page} documents no rule in the catalog`);
    }
  });

  test('the index lists every rule with its default severity and title', () => {
    const readme = read('README.md');
    for (const rule of RULES) {
      const row = readme.split('\n').find((line) => line.startsWith(`| [${rule.id}](${rule.id}.md) |`));
      assert.ok(row, `docs/rules/README.md: no index row for ${rule.id}`);
      const [, severity = '', title = ''] = row.split(' | ');
      assert.ok(
        severity.startsWith(rule.defaultSeverity),
        `index row for ${rule.id}: severity "${severity}" should start with ${rule.defaultSeverity}`,
      );
      assert.equal(title.replace(/ \|$/, ''), rule.title, `index row for ${rule.id}: title`);
      if (rule.offByDefault) assert.match(severity, /off until/, `index row for ${rule.id} should say it is off by default`);
    }
  });

  test('every rule page has a triggering example and a fixed one for its own rule', () => {
    for (const rule of RULES) {
      const own = blocks(read(`${rule.id}.md`)).filter((block) => block.language === 'yaml');
      const triggers = own.filter((block) => block.attributes.get('triggers') === true || block.attributes.get('triggers') === rule.id);
      const fixed = own.filter((block) => block.attributes.get('fixed') === true || block.attributes.get('fixed') === rule.id);
      // A rule for gpumem's own failures has no triggering manifest once each known cause is fixed: its page says why.
      if (rule.noExample !== undefined)
        assert.equal(triggers.length, 0, `docs/rules/${rule.id}.md: a triggering example contradicts noExample`);
      else assert.ok(triggers.length > 0, `docs/rules/${rule.id}.md has no \`\`\`yaml triggers=${rule.id} example`);
      assert.ok(fixed.length > 0, `docs/rules/${rule.id}.md has no \`\`\`yaml fixed example`);
    }
  });

  test('links between rule pages resolve', () => {
    const readme = read('README.md');
    const anchors = new Set(
      [...readme.matchAll(/^#+ (.*)$/gm)].map((m) =>
        (m[1] ?? '')
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    for (const page of pages) {
      for (const match of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue; // external URL
        const [file = '', anchor] = target.split('#');
        if (file !== '') assert.ok(existsSync(new URL(file, DOCS)), `docs/rules/${page}: link to missing ${target}`);
        if (anchor !== undefined && (file === 'README.md' || (file === '' && page === 'README.md'))) {
          assert.ok(anchors.has(anchor), `docs/rules/${page}: link to missing README anchor #${anchor}`);
        }
      }
    }
  });
});

describe('rule doc examples', () => {
  for (const page of pages) {
    const pageRule = page === 'README.md' ? undefined : page.slice(0, -3);
    for (const block of blocks(read(page))) {
      const where = `docs/rules/${page}:${block.line}`;
      const kind = block.attributes.has('triggers') ? 'triggers' : block.attributes.has('fixed') ? 'fixed' : undefined;

      if (block.language === 'yaml' && kind) {
        test(`${where} ${block.info}`, () => {
          const id = ruleOf(block, kind, pageRule, where);
          const field = block.attributes.get('kustomize');
          const scope =
            field === 'patchesStrategicMerge' || field === 'patches' || field === 'patchesJson6902'
              ? { kustomizePatch: { kustomization: 'kustomization.yaml', field } as const }
              : {};
          assert.ok(field === undefined || 'kustomizePatch' in scope, `${where}: kustomize=${String(field)} is not a patch field`);
          const result = lintText(block.body, blockConfig(block, where), scope);
          const found = result.findings.filter((finding) => finding.ruleId === id);
          const all = result.findings.map((finding) => `${finding.ruleId}: ${finding.message}`).join('\n  ');
          if (kind === 'fixed') {
            assert.equal(found.length, 0, `${where}: the fixed example still reports ${id}:\n  ${all}`);
            assert.ok(
              !result.findings.some((finding) => finding.ruleId === 'yaml-syntax' || finding.ruleId === 'manifest-skipped'),
              `${where}: the fixed example was not analysed:\n  ${all}`,
            );
            return;
          }
          assert.ok(found.length > 0, `${where}: the example does not report ${id}; it reports:\n  ${all || '(nothing)'}`);
          const severity = block.attributes.get('severity');
          if (severity !== undefined) {
            assert.ok(typeof severity === 'string' && SEVERITIES.has(severity), `${where}: severity=${String(severity)}`);
            for (const finding of found) assert.equal(finding.severity, severity, `${where}: ${id} severity`);
          }
        });
      } else if (block.language === 'yaml' && block.attributes.has('config')) {
        test(`${where} CLI config example`, () => {
          const { problems } = resolveConfig(parseYaml(block.body));
          assert.deepEqual(problems, [], `${where}: the config example does not resolve cleanly`);
        });
      } else if (block.language === 'json' && page === 'README.md') {
        test(`${where} VS Code settings example`, () => {
          const settings = JSON.parse(block.body) as Record<string, unknown>;
          const raw: Record<string, unknown> = {};
          for (const [key, value] of Object.entries(settings)) {
            assert.ok(key.startsWith('gpumem.lint.'), `${where}: unexpected setting ${key}`);
            raw[key.slice('gpumem.lint.'.length)] = value;
          }
          const { problems } = resolveConfig(raw);
          assert.deepEqual(problems, [], `${where}: the settings example does not resolve cleanly`);
        });
      } else if (block.language === 'yaml') {
        test(`${where} is marked`, () => {
          assert.fail(`${where}: a yaml example must be marked "triggers=<id>", "fixed[=<id>]" or "config"`);
        });
      }
    }
  }
});
