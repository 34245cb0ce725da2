// Every regular expression literal in src/ and webview/ is run against adversarial inputs built from its
// own characters (long runs of each literal piece, of whitespace, of class members, then a character that
// fails the match). V8's backtracking engine makes a pattern like /\s*,\s*/ or /Radeon.*(8060S|…)/ cost
// O(n²) on such input. A pattern is flagged when 8× the input costs far more than 8× the time (quadratic
// growth is 64×); the few that are super-linear but only ever see bounded input are listed with the bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { DEFAULT_UNIFIED_MEMORY_LABELS } from '../../src/core/config.ts';
import { LABEL_VALUE_MAX_LENGTH, matchingRule } from '../../src/core/analysis/unifiedMemory.ts';
import { parseSmiCsv, parseSmiGpus } from '../../src/core/probe/parsers/nvidiaSmi.ts';
import { lintText } from '../../src/core/lint.ts';
import { runsOnLargeInput } from '../helpers/growth.ts';

interface Literal {
  readonly where: string;
  readonly text: string;
  readonly regex: RegExp;
}

const root = new URL('../../', import.meta.url).pathname;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (path.endsWith('.ts')) out.push(path);
  }
  return out;
}

function literals(): Literal[] {
  const out: Literal[] = [];
  for (const file of [...files('src'), ...files('webview')]) {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText(source);
        const slash = text.lastIndexOf('/');
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        out.push({
          where: `${file}:${line}`,
          text,
          regex: new RegExp(
            text.slice(1, slash),
            text
              .slice(slash + 1)
              .replace('g', '')
              .replace('y', ''),
          ),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  for (const rule of DEFAULT_UNIFIED_MEMORY_LABELS) {
    if (rule.pattern)
      out.push({
        where: 'src/core/config.ts (DEFAULT_UNIFIED_MEMORY_LABELS)',
        text: `/${rule.pattern}/i`,
        regex: new RegExp(rule.pattern, 'i'),
      });
  }
  return out;
}

/** Pieces to repeat: every literal run in the pattern, each of its characters, and members of common classes. */
function pumps(pattern: string): string[] {
  const pieces = new Set<string>([
    ' ',
    '\t',
    'a',
    'A',
    '0',
    '-',
    '_',
    '.',
    '/',
    ',',
    ':',
    '=',
    '#',
    '[',
    ']',
    '"',
    "'",
    '\n',
    '\r\n',
    ' ,',
    'a ',
    '0.',
    '@',
    '%',
  ]);
  for (const run of pattern.replace(/\\./g, ' ').split(/[^A-Za-z0-9 ]+/)) {
    if (run.trim().length >= 2) pieces.add(run.trim());
  }
  for (const ch of pattern.replace(/\\[dDsSwWbBnrt]/g, '')) {
    if (!/[\\^$()[\]{}|*+?]/.test(ch)) pieces.add(ch);
  }
  return [...pieces];
}

function cost(regex: RegExp, input: string): number {
  const start = process.hrtime.bigint();
  regex.lastIndex = 0;
  regex.test(input);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Super-linear patterns that only ever see input of a bounded length, with the bound. Keyed by file and
 * pattern text (not line) so that moving code does not hide a new pattern.
 */
const BOUNDED: ReadonlyMap<string, string> = new Map([
  [
    'src/core/kube/names.ts /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/',
    'isDnsSubdomain checks length <= 253 first',
  ],
  ['src/core/kube/names.ts /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/', 'isDnsLabel checks length <= 63 first'],
  ['src/core/sizing.ts /0+$/', 'applied to Number#toFixed(9) of a value below 1e21: at most 31 characters'],
  ['src/transports/knownHosts.ts /=+$/', 'base64 of a SHA-256 digest: 44 characters'],
  ['src/vscode/webview/html.ts /=+$/', 'base64 of 16 random bytes: 24 characters'],
  [
    'src/core/config.ts (DEFAULT_UNIFIED_MEMORY_LABELS) /Radeon.*(8060S|8050S|8040S|890M|880M|860M|840M)/i',
    'matchesPattern skips values longer than a label value (63, LABEL_VALUE_MAX_LENGTH)',
  ],
]);

const SMALL = 4000;
const FAIL = '\u0001';

test('regex audit: no pattern in src/ or webview/ is super-linear on long runs of its own characters', () => {
  const slow: string[] = [];
  for (const { where, text, regex } of literals()) {
    if (BOUNDED.has(`${where.replace(/:\d+$/, '')} ${text}`)) continue;
    for (const piece of pumps(text.slice(1, text.lastIndexOf('/')))) {
      const times = Math.max(1, Math.floor(SMALL / piece.length));
      const small = piece.repeat(times) + FAIL;
      const large = piece.repeat(times * 8) + FAIL;
      const smallMs = Math.max(cost(regex, small), cost(regex, small));
      if (smallMs < 0.5) {
        // Too fast to compare: a quadratic pattern would already cost milliseconds on the small input, so
        // only a large input that stays slow on three tries (not a busy machine's hiccup) counts.
        const largeMs = Math.min(cost(regex, large), cost(regex, large), cost(regex, large));
        if (largeMs < 100) continue;
        slow.push(`${where} ${text} on ${JSON.stringify(piece)}×${times * 8}: ${largeMs.toFixed(1)} ms`);
        break;
      }
      const largeMs = Math.min(cost(regex, large), cost(regex, large));
      if (largeMs / smallMs > 24) {
        slow.push(`${where} ${text} on ${JSON.stringify(piece)}: ${smallMs.toFixed(1)} → ${largeMs.toFixed(1)} ms for 8× the input`);
        break;
      }
    }
  }
  assert.deepEqual(slow, []);
});

test('regex audit: every bounded exception still names a pattern that exists', () => {
  const present = new Set(literals().map(({ where, text }) => `${where.replace(/:\d+$/, '')} ${text}`));
  for (const key of BOUNDED.keys()) assert.ok(present.has(key), `stale entry: ${key}`);
});

// Issue 17, class 3: the inputs that stalled the extension host, through the real entry points.
test('class 3: an nvidia-smi line of long whitespace runs parses in linear time', () => {
  const line = (n: number) => `0, GPU-1, NVIDIA A100${' '.repeat(n)}x, [N/A]${' '.repeat(n)}\n`;
  runsOnLargeInput('parseSmiCsv', line, (text) => parseSmiGpus(text), 5_000);
  const header = (n: number) => `index, memory.total${' '.repeat(n)}[MiB]${' '.repeat(n)}x\n0, 1\n`;
  runsOnLargeInput('parseSmiCsv header', header, (text) => parseSmiCsv(text, ['index', 'memory.total']), 5_000);
});

test('class 3: a huge nodeSelector value is not matched against the label patterns, and still lints', () => {
  const manifest = (n: number) =>
    `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector:\n    amd.com/gpu.product-name: "Radeon ${'Radeon '.repeat(n / 7)}"\n  containers:\n  - name: c\n    image: x\n`;
  runsOnLargeInput('lint with a long nodeSelector value', manifest, (text) => lintText(text), 5_000);
  const rule = DEFAULT_UNIFIED_MEMORY_LABELS.find((candidate) => candidate.key === 'amd.com/gpu.product-name');
  assert.ok(rule);
  assert.equal(matchingRule([rule], rule.key, ['AMD Radeon 8060S Graphics']), rule, 'a real product name still matches');
  assert.equal(
    matchingRule([rule], rule.key, [`Radeon 8060S${' '.repeat(LABEL_VALUE_MAX_LENGTH)}`]),
    undefined,
    'no label value is that long',
  );
});
