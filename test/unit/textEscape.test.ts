// Class 6 of issue 17 (terminal escapes reach the user's terminal) and issue 16 (one escaping module per target):
// src/core/text/escape.ts is used by every text format and, in the CLI, at the single point where stdout/stderr are written.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import { oomToMarkdown, oomToText } from '../../src/core/report/oomReport.ts';
import { hasTerminalControls, markdownCodeBlock, markdownText, plainLabel, terminalSafe } from '../../src/core/text/escape.ts';
import { formatText } from '../../src/core/report/formats.ts';
import { parseKubeletReservations } from '../../src/core/probe/parsers/nodeConfig.ts';
import { runCli } from '../helpers/cli.ts';
import { mulberry32 } from '../helpers/random.ts';

const HOSTILE = '\x1b]0;pwned\x07\u202e';
/** What the harness (test/fuzz/harness.ts) calls terminal-unsafe: C0 but \t \n, DEL, C1, bidi controls, separators. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

// A real OOM report (cadvisor's oomparser test data, see the fixture's .source.md) with a hostile process name.
const LOG = readFileSync(new URL('../fixtures/kernel-logs/cadvisor-oomparser-bare-legacy.log', import.meta.url), 'utf8').replaceAll(
  '(memorymonster)',
  `(memory${HOSTILE}monster)`,
);

describe('terminalSafe', () => {
  test('shows C0 as \\xNN and DEL, C1 and bidi controls as \\uNNNN, keeps newlines and tabs', () => {
    assert.equal(
      terminalSafe(`a${HOSTILE}b\x7f\x9b\u2066\u200f\r\n\tc`),
      'a\\x1b]0;pwned\\x07\\u202eb\\u007f\\u009b\\u2066\\u200f\\x0d\n\tc',
    );
  });
  test('single-line escapes newlines and tabs too, so a value cannot forge a line', () => {
    assert.equal(terminalSafe('x\ny\tz', 'single-line'), 'x\\x0ay\\x09z');
  });
  test('leaves ordinary text, including other non-ASCII, untouched', () => {
    const text = 'Ünïcode — 日本 ⚠️ path/to/file.yaml:3:1';
    assert.equal(terminalSafe(text, 'single-line'), text);
    assert.equal(hasTerminalControls(text), false);
    assert.equal(hasTerminalControls(HOSTILE), true);
  });
  test('its escapes are JSON escapes of the same characters', () => {
    const value = { name: `n\u202e\x7f\x85` };
    assert.deepEqual(JSON.parse(terminalSafe(JSON.stringify(value))), value);
    assert.equal(UNSAFE.test(terminalSafe(JSON.stringify(value))), false);
  });
  test('200,000 controls: each escaped (how the cost grows: bench/growth.mjs)', () => {
    assert.equal(terminalSafe('\x1b\u202e'.repeat(100_000)), '\\x1b\\u202e'.repeat(100_000));
  });
});

describe('every report format escapes hostile strings', () => {
  const explanation = explainKernelLogText(LOG);
  test('the fixture really carries the hostile name into the explanation', () => {
    assert.ok(JSON.stringify(explanation).includes('\\u001b]0;pwned\\u0007\u202e'));
  });
  test('explain-oom text (oomToText) escapes the escape sequence and the bidi override', () => {
    const text = oomToText(explanation, `log${HOSTILE}.txt`);
    assert.equal(UNSAFE.test(text), false);
    assert.ok(text.includes('\\x1b]0;pwned\\x07\\u202e'));
  });
  test('explain-oom Markdown (md, codeBlock) escapes them too', () => {
    const text = oomToMarkdown(explanation, `log${HOSTILE}.txt`);
    assert.equal(UNSAFE.test(text), false);
    assert.equal(UNSAFE.test(markdownText(HOSTILE)), false);
    assert.equal(markdownCodeBlock(`a${HOSTILE}\nb`), '```\na\\x1b]0;pwned\\x07\\u202e\nb\n```');
  });
  test('lint text escapes file names and messages', () => {
    const finding = { ruleId: 'x', severity: 'warning', message: `m${HOSTILE}`, fixes: [] } as never;
    const text = formatText([{ file: `f${HOSTILE}.yaml`, line: 1, column: 1, endLine: 1, endColumn: 1, finding }], 1);
    assert.equal(UNSAFE.test(text), false);
    assert.ok(text.startsWith('f\\x1b]0;pwned\\x07\\u202e.yaml:1:1: warning [x] m\\x1b'));
  });
});

test('a kubelet config with escapes in an unknown tag does not echo them through YAML warnings', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  const config = `kind: KubeletConfiguration\nsystemReserved:\n  memory: !<${HOSTILE}> 1Gi\n`;
  const reservations = parseKubeletReservations(config, undefined);
  assert.equal(reservations?.source, 'kubelet config');
  // process.emitWarning delivers on a later tick
  return new Promise<void>((resolve, reject) =>
    setImmediate(() => {
      process.removeListener('warning', onWarning);
      try {
        assert.deepEqual(
          warnings.map((warning) => warning.message),
          [],
        );
        resolve();
      } catch (error) {
        reject(error as Error);
      }
    }),
  );
});

describe('the CLI sanitises everything it writes', () => {
  test('explain-oom from stdin, text and JSON', async () => {
    const text = await runCli(['explain-oom', '-'], { input: LOG, timeoutMs: 60_000 });
    assert.equal(UNSAFE.test(text.stdout + text.stderr), false, JSON.stringify(text.stdout.slice(0, 300)));
    const json = await runCli(['explain-oom', '-', '--format', 'json'], { input: LOG, timeoutMs: 60_000 });
    assert.equal(UNSAFE.test(json.stdout), false);
    assert.ok(JSON.stringify(JSON.parse(json.stdout)).includes('\u202e'), 'the JSON value keeps the character, escaped on the wire');
  });
  test('a file name quoted in an error message', async () => {
    const run = await runCli(['explain-oom', `/nonexistent/${HOSTILE}.log`], { timeoutMs: 60_000 });
    assert.ok(run.stderr.includes('\\x1b]0;pwned\\x07\\u202e'), run.stderr);
    assert.equal(UNSAFE.test(run.stderr), false);
  });
  test(
    'lint --format sarif and json: bidi characters in a container name are escaped on the wire, the documents stay valid',
    { skip: process.platform === 'win32' },
    async () => {
      const directory = mkdtempSync(join(tmpdir(), 'gpumem-bidi-'));
      try {
        writeFileSync(
          join(directory, 'pod.yaml'),
          'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: "c\u202e\u2066x"\n    image: x\n    resources: {limits: {nvidia.com/gpu: 1}}\n',
        );
        for (const format of ['sarif', 'json']) {
          const run = await runCli(['lint', '--format', format, directory], { timeoutMs: 60_000 });
          assert.equal(UNSAFE.test(run.stdout + run.stderr), false, format);
          assert.ok(run.stdout.includes('\\u202e\\u2066'), format);
          assert.ok(JSON.stringify(JSON.parse(run.stdout)).includes(`\u202e\u2066`), `${format}: the value is unchanged`);
        }
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  );
  test("inspect --local: the target's stderr is shown escaped", async () => {
    // A `sh` first on PATH that writes escapes to stderr, then runs the real probe with /bin/sh.
    const bin = mkdtempSync(join(tmpdir(), 'gpumem-fake-sh-'));
    try {
      writeFileSync(join(bin, 'sh'), `#!/bin/sh\nprintf 'probe noise \\033]0;pwned\\007\\342\\200\\256 end\\n' >&2\nexec /bin/sh "$@"\n`);
      chmodSync(join(bin, 'sh'), 0o755);
      const run = await runCli(['inspect', '--local', '--format', 'text'], {
        env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` },
        timeoutMs: 120_000,
      });
      assert.match(run.stderr, /probe noise \\x1b\]0;pwned\\x07\\u202e end/);
      assert.equal(UNSAFE.test(run.stdout + run.stderr), false);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

// One function per target, each against the same hostile inputs: C0, C1, bidi overrides and isolates,
// Markdown metacharacters, backtick runs, and a long input that must take linear time.
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
const C1 = '\u0085\u009b';

describe('markdownText (reports, hovers, tooltips)', () => {
  test('escapes controls and every bidi override or isolate instead of passing them through', () => {
    for (const mark of BIDI) assert.equal(markdownText(`a${mark}b`), `a\\\\u${mark.charCodeAt(0).toString(16)}b`);
    assert.equal(markdownText(`a\x1bb${C1}`), 'a\\\\x1bb\\\\u0085\\\\u009b');
  });
  test('keeps every Markdown metacharacter literal and stays on one line', () => {
    assert.equal(
      markdownText('[x](http://e) ![i](y) <b>&amp; *a* _b_ `c` | ~d~ # h\n- l'),
      '\\[x\\](http\\://e) !\\[i\\](y) &lt;b&gt;&amp;amp; \\*a\\* \\_b\\_ \\`c\\` \\| \\~d\\~ \\# h - l',
    );
  });
  test('leaves ordinary punctuation alone, so raw reports read as text', () => {
    for (const plain of [
      '1.5 GiB of 16 GiB (9.4 %)',
      'pod-name-7f9c',
      'ml/static-infer-0: pid 42, exit 137!',
      'a+b = c; "q" \'s\' @x ?',
      'R&D',
    ])
      assert.equal(markdownText(plain), plain);
  });
  test('escapes what would start a block only at the start of the line', () => {
    assert.equal(markdownText('- item'), '\\- item');
    assert.equal(markdownText('+ item'), '\\+ item');
    assert.equal(markdownText('---'), '\\---');
    assert.equal(markdownText('==='), '\\===');
    assert.equal(markdownText('1. first'), '1\\. first');
    assert.equal(markdownText('12) twelfth'), '12\\) twelfth');
    assert.equal(markdownText('1.5 GiB'), '1.5 GiB', 'not a list marker without the space');
    assert.equal(markdownText('x '), 'x&#32;', 'a trailing space, which would keep **…** open');
    assert.equal(markdownText('    indented code'), '&#32;   indented code');
    assert.equal(markdownText('# heading'), '\\# heading');
    assert.equal(markdownText('> quote'), '&gt; quote');
    assert.equal(markdownText('~~~'), '\\~\\~\\~');
    assert.equal(markdownText('a - b + c 1. d'), 'a - b + c 1. d', 'the same characters inside the line stay');
  });
  test('breaks bare URLs that GFM would autolink', () => {
    assert.equal(markdownText('see https://evil.example/x or www.evil.example'), 'see https\\://evil.example/x or www\\.evil.example');
  });
  test('escapes & only where it could start an entity or a numeric reference', () => {
    assert.equal(markdownText('&lt; &#60; &#x3c; & x &'), '&amp;lt; &amp;\\#60; &amp;\\#x3c; & x &');
  });
  test('a long hostile input is escaped whole (how the cost grows: bench/growth.mjs)', () => {
    assert.equal(markdownText('*['.repeat(100_000)), '\\*\\['.repeat(100_000));
    const ampersands = `${'&a'.repeat(100_000)}${'&'.repeat(100_000)}${'1'.repeat(100_000)} `;
    assert.ok(markdownText(ampersands).length >= ampersands.length);
  });
});

describe('markdownCodeBlock', () => {
  test('the fence outgrows any backtick run, and controls inside are escaped', () => {
    assert.equal(markdownCodeBlock('a ````` b\u202e'), '``````\na ````` b\\u202e\n``````');
    assert.equal(markdownCodeBlock('plain'), '```\nplain\n```');
  });
});

describe('plainLabel (tree item labels and descriptions)', () => {
  test('controls, C1 and bidi characters become one space, and the label is cut at 160', () => {
    assert.equal(plainLabel(`pod\u202e\u2066-a\x1b\n${C1}b`), 'pod -a b');
    assert.equal(plainLabel('x'.repeat(400)).length, 160);
    assert.equal(plainLabel('abc', 2), 'a…');
  });
  test('a long hostile input becomes spaces and letters (how the cost grows: bench/growth.mjs)', () => {
    const label = plainLabel('\u202e\x1ba'.repeat(100_000), 1_000_000);
    assert.doesNotMatch(label, /[\u0000-\u001f\u202e]/);
    assert.equal(label.replace(/ /g, ''), 'a'.repeat(100_000));
  });
});

// The property: whatever the text, a CommonMark renderer shows it as the text itself, never as markup, in each
// place a report puts it (a paragraph, a table cell, a heading, a list item, bold). markdown-it is the renderer
// of VS Code's Markdown preview, where the reports open; html: true as the preview has it.
interface MarkdownIt {
  render(source: string): string;
}
async function markdownIt(): Promise<MarkdownIt> {
  // A devDependency without bundled types (no @types/markdown-it): loaded by name, typed by hand.
  const name = 'markdown-it';
  const module = (await import(name)) as { default: (options: object) => MarkdownIt };
  return module.default({ html: true, linkify: false, typographer: false });
}

/** What markdown-it's escapeHtml makes of text: the rendered form of plain text. */
function asHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

// Printable ASCII, biased to markup: every punctuation character, words, digits, spaces, and whole constructs.
const PIECES = [
  ...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  ' ',
  '  ',
  '    ',
  'a',
  'word',
  '7',
  '12',
  '1.',
  '2)',
  '[x](http://e)',
  '![i](data:x)',
  '<b>',
  '<!-- c -->',
  '<http://auto.link>',
  '&amp;',
  '&#60;',
  '&#x3c;',
  '**b**',
  '__u__',
  '*e*',
  '`c`',
  '``',
  '~~s~~',
  '$m$',
  '| t |',
  '---',
  '===',
  '```',
  '~~~',
  '# h',
  '> q',
  '- l',
  '+ l',
  '[r]: /u',
  '\\*',
  '\\',
];

function hostileText(next: () => number): string {
  const count = 1 + Math.floor(next() * 12);
  let text = '';
  for (let i = 0; i < count; i += 1) text += PIECES[Math.floor(next() * PIECES.length)] ?? '';
  return text;
}

describe('markdownText rendered by a real CommonMark implementation', async () => {
  const md = await markdownIt();
  const contexts: readonly { name: string; wrap: (escaped: string) => string; unwrap: (html: string) => string | undefined }[] = [
    { name: 'paragraph', wrap: (e) => `${e}\n`, unwrap: (html) => /^<p>(.*)<\/p>\n$/s.exec(html)?.[1] },
    {
      name: 'table cell',
      wrap: (e) => `| a | b |\n| --- | --- |\n| ${e} | z |\n`,
      unwrap: (html) => /<tbody>\n<tr>\n<td>(.*)<\/td>\n<td>z<\/td>/s.exec(html)?.[1],
    },
    { name: 'heading', wrap: (e) => `### ${e}\n`, unwrap: (html) => /^<h3>(.*)<\/h3>\n$/s.exec(html)?.[1] },
    { name: 'list item', wrap: (e) => `- ${e}\n`, unwrap: (html) => /^<ul>\n<li>(.*)<\/li>\n<\/ul>\n$/s.exec(html)?.[1] },
    { name: 'bold', wrap: (e) => `**${e}**\n`, unwrap: (html) => /^<p><strong>(.*)<\/strong><\/p>\n$/s.exec(html)?.[1] },
  ];
  const hostile = [
    '[click](http://evil) ![img](http://evil/x.png) <img src=x onerror=alert(1)> <http://evil>',
    '**bold** __bold__ *em* _em_ `code` ~~strike~~ $x^2$',
    '| a | b |',
    '# heading',
    '- list',
    '1. list',
    '    code',
    '> quote',
    '---',
    '&lt;script&gt; &#60;b&#62;',
    '[ref]: http://evil',
    'trailing backslash \\',
    'pod-name 1.5 GiB (9.4 %) R&D',
  ];
  test('hostile cases render as their own text in every context', () => {
    for (const context of contexts)
      for (const text of hostile) {
        const inner = context.unwrap(md.render(context.wrap(markdownText(text))));
        assert.equal(inner?.trim(), asHtml(text.trim()), `${context.name}: ${JSON.stringify(text)}`);
      }
  });
  test('property: 3,000 generated texts per context render as plain text equal to the input', () => {
    for (const context of contexts)
      for (let seed = 1; seed <= 3000; seed += 1) {
        const text = hostileText(mulberry32(seed));
        if (text.trim() === '') continue;
        const html = md.render(context.wrap(markdownText(text)));
        const inner = context.unwrap(html);
        assert.equal(
          inner?.trim(),
          asHtml(text.trim()),
          `${context.name}, seed ${seed}: ${JSON.stringify(text)} rendered ${JSON.stringify(html)}`,
        );
      }
  });
});
