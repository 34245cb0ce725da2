// The `gpumem` CLI, run from source as a child process: output formats (JSON fields and positions,
// SARIF checked against the official 2.1.0 schema, text lines), exit codes, path walking, stdin,
// --headroom / --config, and the rules / --version / --help commands.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { RULES } from '../../src/core/rules/catalog.ts';
import { runCli } from '../helpers/cli.ts';
import { sarifSchemaValidator } from '../helpers/sarifSchema.ts';
import type { CliRun } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STRIX_DEMO = join(ROOT, 'demo', 'workspace', 'strix-halo-llm.yaml');

/** The CLI from source (test/helpers/cli.ts), with this file's deadline. */
function gpumem(args: readonly string[], options: { cwd?: string; input?: string } = {}): Promise<CliRun> {
  return runCli(args, { ...options, timeoutMs: 60_000 });
}

interface JsonFinding {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  ruleId: string;
  severity: string;
  message: string;
  kind: string | null;
  namespace: string | null;
  name: string | null;
  container: string | null;
}

function parseJson(run: CliRun): JsonFinding[] {
  const parsed = JSON.parse(run.stdout) as unknown;
  assert.ok(Array.isArray(parsed), 'one JSON array');
  return parsed as JsonFinding[];
}

/** 1-based line and column of the `occurrence`-th `needle` in `text`, computed independently of the CLI. */
function positionOf(text: string, needle: string, occurrence = 1): { line: number; column: number } {
  let offset = -1;
  for (let i = 0; i < occurrence; i++) {
    offset = text.indexOf(needle, offset + 1);
    assert.ok(offset >= 0, `${needle} #${occurrence} not in the fixture`);
  }
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1) ?? '').length + 1 };
}

// ------------------------------------------------------------------------------------------------
// Fixtures, written to a temporary directory

const KNOWN = `# A known manifest: every finding's position is fixed.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:25.01-py3
          resources:
            limits:
              nvidia.com/gpu: 1
---
apiVersion: v1
kind: Pod
metadata:
  name: bad-quantity
spec:
  containers:
    - name: cuda
      resources:
        limits:
          nvidia.com/gpu: 1
          memory: 12 parsecs
---
apiVersion: v1
kind: [unclosed
`;

const CLEAN = `apiVersion: v1
kind: Pod
metadata:
  name: clean
spec:
  containers:
    - name: cuda
      image: nvcr.io/nvidia/cuda:12.6.0-base-ubuntu24.04
      resources:
        requests: {memory: 8Gi, cpu: "2"}
        limits: {nvidia.com/gpu: 1, memory: 8Gi, cpu: "2"}
`;

/** Only an info finding: a memory-backed emptyDir without a sizeLimit. */
const INFO_ONLY = `apiVersion: v1
kind: Pod
metadata:
  name: shm
spec:
  containers:
    - name: cuda
      image: nvcr.io/nvidia/cuda:12.6.0-base-ubuntu24.04
      resources:
        limits: {nvidia.com/gpu: 1, memory: 8Gi}
      volumeMounts: [{name: shm, mountPath: /dev/shm}]
  volumes:
    - name: shm
      emptyDir: {medium: Memory}
`;

const gpuPod = (name: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers:\n    - name: ${name}\n      resources: {limits: {nvidia.com/gpu: 1}}\n`;

let work = '';
const at = (...parts: string[]) => join(work, ...parts);

before(() => {
  work = mkdtempSync(join(tmpdir(), 'gpumem-cli-'));
  const files: Record<string, string> = {
    'known.yaml': KNOWN,
    'clean.yaml': CLEAN,
    'info.yaml': INFO_ONLY,
    'tree/a.yaml': gpuPod('a'),
    'tree/b.yml': gpuPod('b'),
    'tree/notes.txt': gpuPod('txt'),
    'tree/nested/deeper/c.yaml': gpuPod('c'),
    'tree/nested/D.YML': gpuPod('d'),
    'tree/node_modules/pkg/x.yaml': gpuPod('x'),
    'tree/.git/y.yaml': gpuPod('y'),
    'config/off.yaml': 'rules:\n  uma-not-guaranteed: off\n  gpu-shm-unbounded: warning\nheadroomPercent: 5\n',
    'config/off.json': JSON.stringify({ rules: { 'uma-not-guaranteed': 'off' }, headroomPercent: 5 }),
    'config/invalid-entries.yaml':
      'rules:\n  uma-headroom: loud\n  uma-not-guaranteed: off\nheadroomPercent: lots\nhamiDetection: sometimes\n',
    'config/broken.yaml': 'rules: {uma-headroom: [\n',
    'config/list.yaml': '- headroomPercent: 5\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(at(path)), { recursive: true });
    writeFileSync(at(path), text);
  }
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// ------------------------------------------------------------------------------------------------

describe('--format json', () => {
  test('one JSON array of findings with exactly the documented fields, 1-based, end exclusive', async () => {
    const run = await gpumem(['lint', 'known.yaml', '--format', 'json'], { cwd: work });
    assert.equal(run.code, 1);
    assert.equal(run.stderr, '');
    const findings = parseJson(run);
    for (const finding of findings) {
      assert.deepEqual(Object.keys(finding).sort(), [
        'column',
        'container',
        'endColumn',
        'endLine',
        'file',
        'kind',
        'line',
        'message',
        'name',
        'namespace',
        'ruleId',
        'severity',
      ]);
    }
    const trainer = positionOf(KNOWN, 'trainer', 2); // the container name, after metadata.name
    const quantity = positionOf(KNOWN, '12 parsecs');
    const withoutMessages = findings.map(({ message: _message, ...rest }) => rest);
    assert.deepEqual(withoutMessages.slice(0, 2), [
      {
        file: 'known.yaml',
        line: trainer.line,
        column: trainer.column,
        endLine: trainer.line,
        endColumn: trainer.column + 'trainer'.length,
        ruleId: 'gpu-no-memory-limit',
        severity: 'warning',
        kind: 'Deployment',
        namespace: 'ml',
        name: 'trainer',
        container: 'trainer',
      },
      {
        file: 'known.yaml',
        line: quantity.line,
        column: quantity.column,
        endLine: quantity.line,
        endColumn: quantity.column + '12 parsecs'.length,
        ruleId: 'invalid-quantity',
        severity: 'error',
        kind: 'Pod',
        namespace: null,
        name: 'bad-quantity',
        container: 'cuda',
      },
    ]);
    assert.deepEqual(
      [trainer, quantity],
      [
        { line: 11, column: 17 },
        { line: 27, column: 19 },
      ],
      'the fixture itself is as documented',
    );
    // The broken third document: a file-level finding with no object.
    const syntax = findings[2]!;
    assert.deepEqual(
      [syntax.ruleId, syntax.severity, syntax.kind, syntax.namespace, syntax.name, syntax.container],
      ['yaml-syntax', 'warning', null, null, null, null],
    );
    assert.ok(syntax.line >= 29, `yaml-syntax on the broken document, got line ${syntax.line}`);
    assert.equal(findings.length, 3);
    assert.match(findings[0]!.message, /^GPU container "trainer" has no memory limit/);
    assert.match(findings[1]!.message, /^Container "cuda": resources\.limits\["memory"\] is not a valid quantity/);
    assert.match(syntax.message, /^This YAML document was not analysed: /);
  });

  test('the spans cover exactly the offending text', async () => {
    const findings = parseJson(await gpumem(['lint', 'known.yaml', '--format', 'json'], { cwd: work }));
    const lines = KNOWN.split('\n');
    const covered = findings.filter((f) => f.line === f.endLine).map((f) => lines[f.line - 1]!.slice(f.column - 1, f.endColumn - 1));
    assert.deepEqual(covered.slice(0, 2), ['trainer', '12 parsecs']);
  });

  test('a clean manifest prints an empty array and exits 0', async () => {
    const run = await gpumem(['lint', 'clean.yaml', '--format', 'json'], { cwd: work });
    assert.equal(run.code, 0);
    assert.deepEqual(parseJson(run), []);
  });

  test('--format=json and -f json are the same option', async () => {
    const a = await gpumem(['lint', 'known.yaml', '--format=json'], { cwd: work });
    const b = await gpumem(['lint', '-f', 'json', 'known.yaml'], { cwd: work });
    assert.equal(a.stdout, b.stdout);
    assert.equal(parseJson(a).length, 3);
  });
});

describe('--format sarif', () => {
  let validate: ValidateFunction;

  before(() => {
    validate = sarifSchemaValidator();
  });

  const assertValid = (sarif: unknown) => {
    const ok = validate(sarif);
    assert.ok(ok, `SARIF 2.1.0 schema errors:\n${JSON.stringify(validate.errors?.slice(0, 10), null, 2)}`);
  };

  interface SarifLog {
    $schema: string;
    version: string;
    runs: Array<{
      tool: {
        driver: {
          name: string;
          version: string;
          rules: Array<{
            id: string;
            helpUri: string;
            defaultConfiguration: { level: string; enabled: boolean };
            shortDescription: { text: string };
          }>;
        };
      };
      originalUriBaseIds: { SRCROOT: { uri: string } };
      invocations: Array<{ executionSuccessful: boolean; toolExecutionNotifications: Array<{ level: string; message: { text: string } }> }>;
      results: Array<{
        ruleId: string;
        ruleIndex?: number;
        level: string;
        message: { text: string };
        locations: Array<{
          physicalLocation: {
            artifactLocation: { uri: string; uriBaseId?: string };
            region: { startLine: number; startColumn: number; endLine: number; endColumn: number };
          };
          logicalLocations?: Array<{ fullyQualifiedName: string; kind: string }>;
        }>;
      }>;
    }>;
  }

  const sarifOf = async (args: readonly string[], cwd = work) => {
    const run = await gpumem(['lint', ...args, '--format', 'sarif'], { cwd });
    return { run, log: JSON.parse(run.stdout) as SarifLog };
  };

  test('validates against the SARIF 2.1.0 schema, with rule metadata and real regions', async () => {
    const { run, log } = await sarifOf(['known.yaml', 'info.yaml', 'clean.yaml']);
    assert.equal(run.code, 1);
    assertValid(log);
    assert.equal(log.version, '2.1.0');
    assert.equal(log.runs.length, 1);
    const [sarifRun] = log.runs;
    const driver = sarifRun!.tool.driver;
    assert.equal(driver.name, 'gpumem');
    assert.deepEqual(
      driver.rules.map((rule) => rule.id),
      RULES.map((rule) => rule.id),
    );
    for (const rule of driver.rules) {
      const meta = RULES.find((candidate) => candidate.id === rule.id)!;
      assert.equal(rule.shortDescription.text, meta.title);
      assert.equal(rule.defaultConfiguration.level, { error: 'error', warning: 'warning', info: 'note' }[meta.defaultSeverity]);
      assert.equal(rule.defaultConfiguration.enabled, !meta.offByDefault);
      // By default helpUri points at the rule docs shipped next to the CLI, and the page exists.
      assert.ok(rule.helpUri.startsWith('file://') && rule.helpUri.endsWith(`/docs/rules/${rule.id}.md`), rule.helpUri);
      assert.ok(existsSync(fileURLToPath(rule.helpUri)), `${rule.helpUri} should exist`);
    }
    assert.equal(sarifRun!.originalUriBaseIds.SRCROOT.uri, `${pathToFileURL(work).href}/`);

    const results = sarifRun!.results;
    assert.deepEqual(
      results.map((r) => [r.ruleId, r.level]),
      [
        ['gpu-no-memory-limit', 'warning'],
        ['invalid-quantity', 'error'],
        ['yaml-syntax', 'warning'],
        ['gpu-shm-unbounded', 'note'],
      ],
    );
    for (const result of results) assert.equal(driver.rules[result.ruleIndex!]!.id, result.ruleId, 'ruleIndex points at the rule');
    const quantity = results[1]!.locations[0]!;
    assert.deepEqual(quantity.physicalLocation.artifactLocation, { uri: 'known.yaml', uriBaseId: 'SRCROOT' });
    assert.deepEqual(quantity.physicalLocation.region, { startLine: 27, startColumn: 19, endLine: 27, endColumn: 29 });
    assert.deepEqual(quantity.logicalLocations, [{ fullyQualifiedName: 'Pod/bad-quantity/cuda', kind: 'object' }]);
    assert.deepEqual(results[0]!.locations[0]!.physicalLocation.region, { startLine: 11, startColumn: 17, endLine: 11, endColumn: 24 });
    assert.equal(results[0]!.locations[0]!.logicalLocations![0]!.fullyQualifiedName, 'ml/Deployment/trainer/trainer');
    assert.match(results[0]!.message.text, /"trainer"/);
    assert.equal(results[3]!.locations[0]!.physicalLocation.artifactLocation.uri, 'info.yaml');
  });

  test('the validator is live: broken logs fail it', async () => {
    const { log } = await sarifOf(['known.yaml']);
    const broken: Array<[string, (copy: SarifLog) => void]> = [
      ['startLine 0', (copy) => void (copy.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine = 0)],
      ['an unknown level', (copy) => void (copy.runs[0]!.results[0]!.level = 'fatal')],
      ['a helpUri that is not a URI', (copy) => void (copy.runs[0]!.tool.driver.rules[0]!.helpUri = 'docs/rules/x.md')],
      [
        'an artifact URI with a space',
        (copy) => void (copy.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri = 'my file.yaml'),
      ],
      ['an unknown property', (copy) => void ((copy.runs[0]! as unknown as Record<string, unknown>).findings = [])],
      ['no version', (copy) => void delete (copy as Partial<SarifLog>).version],
    ];
    for (const [label, breakIt] of broken) {
      const copy = structuredClone(log);
      breakIt(copy);
      assert.equal(validate(copy), false, `${label} should be rejected`);
    }
  });

  test("--docs-url sets every rule's helpUri", async () => {
    const { log } = await sarifOf(['clean.yaml', '--docs-url', 'https://example.com/gpumem/docs/rules/']);
    assertValid(log);
    assert.deepEqual(
      log.runs[0]!.tool.driver.rules.map((rule) => rule.helpUri),
      RULES.map((rule) => `https://example.com/gpumem/docs/rules/${rule.id}.md`),
    );
    assert.deepEqual(log.runs[0]!.results, []);
  });

  test('stdin, absolute paths and I/O errors still give valid SARIF', async () => {
    const run = await gpumem(['lint', '-', at('known.yaml'), at('missing.yaml'), '--format', 'sarif'], { input: gpuPod('stdin') });
    assert.equal(run.code, 2);
    const log = JSON.parse(run.stdout) as SarifLog;
    assertValid(log);
    const srcRoot = log.runs[0]!.originalUriBaseIds.SRCROOT.uri;
    const resolved = log.runs[0]!.results.map((r) => new URL(r.locations[0]!.physicalLocation.artifactLocation.uri, srcRoot).href);
    assert.equal(resolved[0], new URL('%3Cstdin%3E', srcRoot).href);
    assert.ok(resolved.length > 1);
    for (const uri of resolved.slice(1)) assert.equal(uri, pathToFileURL(at('known.yaml')).href, 'an absolute path resolves to the file');
    const notifications = log.runs[0]!.invocations[0]!.toolExecutionNotifications;
    assert.equal(notifications.length, 1);
    assert.match(notifications[0]!.message.text, /missing\.yaml: no such file or directory/);
  });
});

describe('--format text', () => {
  test('file:line:col: severity [ruleId] message, then the summary', async () => {
    const run = await gpumem(['lint', 'known.yaml'], { cwd: work });
    assert.equal(run.code, 1);
    const lines = run.stdout.split('\n');
    assert.equal(lines.pop(), '', 'ends with a newline');
    assert.match(lines[0]!, /^known\.yaml:11:17: warning \[gpu-no-memory-limit\] GPU container "trainer" has no memory limit/);
    assert.match(lines[1]!, /^known\.yaml:27:19: error \[invalid-quantity\] Container "cuda": /);
    assert.match(lines[2]!, /^known\.yaml:\d+:\d+: warning \[yaml-syntax\] This YAML document was not analysed: /);
    assert.equal(lines[3], '3 findings (1 error, 2 warnings, 0 info) in 1 of 1 file.');
    assert.equal(lines.length, 4);
    for (const line of lines.slice(0, -1)) assert.match(line, /^[^:]+:\d+:\d+: (error|warning|info) \[[a-z0-9-]+\] \S.*$/);
  });

  test('the summary counts files with findings out of files linted', async () => {
    const run = await gpumem(['lint', 'known.yaml', 'info.yaml', 'clean.yaml'], { cwd: work });
    assert.equal(run.stdout.trimEnd().split('\n').at(-1), '4 findings (1 error, 2 warnings, 1 info) in 2 of 3 files.');
  });

  test('no findings', async () => {
    const run = await gpumem(['lint', 'clean.yaml'], { cwd: work });
    assert.deepEqual([run.code, run.stdout, run.stderr], [0, 'No findings in 1 file.\n', '']);
  });
});

describe('exit codes', () => {
  test('0 for a clean manifest', async () => assert.equal((await gpumem(['lint', 'clean.yaml'], { cwd: work })).code, 0));

  test('0 when there are only info findings', async () => {
    const run = await gpumem(['lint', 'info.yaml'], { cwd: work });
    assert.equal(run.code, 0);
    assert.match(run.stdout, /info \[gpu-shm-unbounded\]/);
  });

  test('1 when a warning or an error exists', async () => {
    assert.equal((await gpumem(['lint', 'known.yaml'], { cwd: work })).code, 1);
    assert.equal((await gpumem(['lint', '-'], { input: gpuPod('warn') })).code, 1);
  });

  test('2 for an unknown option, with the usage on stderr', async () => {
    const run = await gpumem(['lint', '--frobnicate', 'clean.yaml'], { cwd: work });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^gpumem lint: unknown option --frobnicate\n\nUsage: gpumem lint/);
  });

  test('2 for a bad --format, a missing option value, a bad --headroom or --max-file-size', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--format', 'xml'], /--format must be one of text, json, sarif/],
      [['--format'], /--format needs a value/],
      [['--headroom', 'lots'], /--headroom must be a number from 0 to 1000/],
      [['--headroom', '5000'], /--headroom must be a number from 0 to 1000/],
      [['--max-file-size', '0'], /--max-file-size must be a positive number of MiB/],
      [['--help=yes'], /--help takes no value/],
    ];
    for (const [args, message] of cases) {
      const run = await gpumem(['lint', 'clean.yaml', ...args], { cwd: work });
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, message);
    }
  });

  test('2 for a missing path, and the other paths are still linted and printed', async () => {
    const run = await gpumem(['lint', 'known.yaml', 'no-such-dir/', 'missing.yaml', '--format', 'json'], { cwd: work });
    assert.equal(run.code, 2);
    assert.deepEqual(
      parseJson(run).map((f) => f.ruleId),
      ['gpu-no-memory-limit', 'invalid-quantity', 'yaml-syntax'],
    );
    assert.match(run.stderr, /^gpumem: no-such-dir\/: no such file or directory$/m);
    assert.match(run.stderr, /^gpumem: missing\.yaml: no such file or directory$/m);
  });

  test('2 for a missing path even when the others are clean', async () => {
    const run = await gpumem(['lint', 'clean.yaml', 'missing.yaml'], { cwd: work });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, 'No findings in 1 file.\n');
  });

  test('2 for an unreadable --config: missing, or a directory', async () => {
    let run = await gpumem(['lint', 'clean.yaml', '--config', 'config/missing.yaml'], { cwd: work });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^gpumem lint: cannot read --config config\/missing\.yaml: no such file or directory\n/);
    run = await gpumem(['lint', 'clean.yaml', '--config', 'config'], { cwd: work });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^gpumem lint: cannot read --config config: is a directory\n/);
    assert.equal(run.stdout, '', 'nothing is linted with a bad config');
  });

  test(
    '2 for a --config file without read permission',
    { skip: process.platform === 'win32' || process.getuid?.() === 0 ? 'root can read anything' : false },
    async () => {
      const path = at('config', 'secret.yaml');
      writeFileSync(path, 'headroomPercent: 5\n', { mode: 0o000 });
      const run = await gpumem(['lint', 'clean.yaml', '--config', path], { cwd: work });
      assert.equal(run.code, 2);
      assert.match(run.stderr, /cannot read --config .*secret\.yaml: permission denied/);
    },
  );

  test('2 for a --config that is not valid YAML', async () => {
    const run = await gpumem(['lint', 'clean.yaml', '--config', 'config/broken.yaml'], { cwd: work });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^gpumem lint: --config config\/broken\.yaml is not valid YAML or JSON: /);
  });

  test('2 for an unknown command or no command at all', async () => {
    const unknown = await gpumem(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^gpumem: unknown command "frobnicate"\n\nUsage: gpumem <command>/);
    const none = await gpumem([]);
    assert.equal(none.code, 2);
    assert.match(none.stdout, /^Usage: gpumem <command> \[options\]/);
    // An object's own property names are not commands.
    for (const name of ['constructor', '__proto__', 'toString']) {
      const inherited = await gpumem([name]);
      assert.equal(inherited.code, 2, name);
      assert.match(inherited.stderr, new RegExp(`^gpumem: unknown command "${name}"`));
    }
  });

  test('a usage error prints the usage of its own command', async () => {
    const inspect = await gpumem(['inspect', '--local', '--frobnicate']);
    assert.equal(inspect.code, 2);
    assert.match(
      inspect.stderr,
      /^gpumem inspect: unknown option --frobnicate\n\nUsage: gpumem inspect \(--local \| --ssh TARGET \| --node NAME \| --pod/,
    );
    const analyze = await gpumem(['analyze']);
    assert.equal(analyze.code, 2);
    assert.match(analyze.stderr, /\n\nUsage: gpumem analyze <capture\|->/);
  });
});

describe('paths', () => {
  test('directories are walked: nested folders, .yml and .yaml in any case; node_modules, .git and other files skipped', async () => {
    const run = await gpumem(['lint', at('tree'), '--format', 'json']);
    assert.equal(run.code, 1);
    const findings = parseJson(run);
    assert.deepEqual(
      findings.map((f) => [f.file, f.name]),
      [
        [at('tree', 'a.yaml'), 'a'],
        [at('tree', 'b.yml'), 'b'],
        [at('tree', 'nested', 'D.YML'), 'd'],
        [at('tree', 'nested', 'deeper', 'c.yaml'), 'c'],
      ],
    );
  });

  test('with no paths, the current directory is linted, and paths stay relative', async () => {
    const run = await gpumem(['lint'], { cwd: at('tree') });
    assert.equal(run.code, 1);
    const lines = run.stdout.trimEnd().split('\n');
    assert.deepEqual(
      lines.slice(0, -1).map((line) => line.split(':')[0]),
      ['a.yaml', 'b.yml', join('nested', 'D.YML'), join('nested', 'deeper', 'c.yaml')],
    );
    assert.equal(lines.at(-1), '4 findings (0 errors, 4 warnings, 0 info) in 4 of 4 files.');
  });

  test('a file named explicitly is linted whatever its extension', async () => {
    const findings = parseJson(await gpumem(['lint', at('tree', 'notes.txt'), '--format', 'json']));
    assert.deepEqual(
      findings.map((f) => f.name),
      ['txt'],
    );
  });

  test('"-" reads standard input, alongside files', async () => {
    const run = await gpumem(['lint', '-', 'clean.yaml', '--format', 'json'], { cwd: work, input: KNOWN });
    assert.equal(run.code, 1);
    const findings = parseJson(run);
    assert.deepEqual(findings.map((f) => [f.file, f.ruleId, f.line, f.column]).slice(0, 2), [
      ['<stdin>', 'gpu-no-memory-limit', 11, 17],
      ['<stdin>', 'invalid-quantity', 27, 19],
    ]);
    assert.ok(findings.every((f) => f.file === '<stdin>'));
  });

  test('"-" given twice reads standard input once (it used to wait forever and exit 0 silently)', async () => {
    const run = await gpumem(['lint', '-', '-', '--format', 'json'], { input: gpuPod('twice') });
    assert.equal(run.code, 1);
    assert.deepEqual(
      parseJson(run).map((f) => [f.file, f.name]),
      [['<stdin>', 'twice']],
    );
  });

  test('empty standard input lints as an empty file', async () => {
    const run = await gpumem(['lint', '-'], { input: '' });
    assert.deepEqual([run.code, run.stdout], [0, 'No findings in 1 file.\n']);
  });
});

describe('--headroom and --config', () => {
  const ruleIds = (run: CliRun) => parseJson(run).map((f) => `${f.ruleId}:${f.severity}`);

  test('the defaults on the Strix Halo demo', async () => {
    const run = await gpumem(['lint', STRIX_DEMO, '--format', 'json']);
    assert.deepEqual(ruleIds(run), ['uma-not-guaranteed:info', 'uma-headroom:warning', 'uma-headroom:warning', 'gpu-shm-unbounded:info']);
    assert.match(parseJson(run)[1]!.message, /need at least 30 %/);
  });

  test('--headroom 5: the 56Gi limit (8 % over 52 GiB) now passes; the 16Gi request still does not', async () => {
    const run = await gpumem(['lint', STRIX_DEMO, '--format', 'json', '--headroom', '5']);
    assert.deepEqual(ruleIds(run), ['uma-not-guaranteed:info', 'uma-headroom:warning', 'gpu-shm-unbounded:info']);
    const headroom = parseJson(run)[1]!;
    assert.match(headroom.message, /memory request 16Gi .* at least 5 %/);
  });

  test('a YAML --config turns rules off, changes severities and sets the headroom', async () => {
    const run = await gpumem(['lint', STRIX_DEMO, '--format', 'json', '--config', at('config', 'off.yaml')]);
    assert.equal(run.stderr, '');
    assert.deepEqual(ruleIds(run), ['uma-headroom:warning', 'gpu-shm-unbounded:warning']);
  });

  test('a JSON --config works the same', async () => {
    const run = await gpumem(['lint', STRIX_DEMO, '--format', 'json', '--config', at('config', 'off.json')]);
    assert.deepEqual(ruleIds(run), ['uma-headroom:warning', 'gpu-shm-unbounded:info']);
  });

  test("--headroom overrides the config file's headroomPercent", async () => {
    const run = await gpumem(['lint', STRIX_DEMO, '--format', 'json', '--config', at('config', 'off.yaml'), '--headroom', '30']);
    assert.deepEqual(ruleIds(run), ['uma-headroom:warning', 'uma-headroom:warning', 'gpu-shm-unbounded:warning']);
  });

  test('invalid config entries warn on stderr and are ignored; the valid ones still apply', async () => {
    const run = await gpumem(['lint', STRIX_DEMO, '--format', 'json', '--config', at('config', 'invalid-entries.yaml')]);
    assert.equal(run.code, 1);
    assert.deepEqual(run.stderr.trimEnd().split('\n').sort(), [
      'gpumem: ignoring config hamiDetection: must be "auto", "always" or "never"',
      'gpumem: ignoring config headroomPercent: must be a number from 0 to 1000',
      'gpumem: ignoring config rules.uma-headroom: must be "off", "error", "warning" or "info"',
    ]);
    // uma-not-guaranteed: off applied; uma-headroom at its default severity and the default 30 %.
    assert.deepEqual(ruleIds(run), ['uma-headroom:warning', 'uma-headroom:warning', 'gpu-shm-unbounded:info']);
  });

  test('a config that is not a mapping warns and is ignored', async () => {
    const run = await gpumem(['lint', 'clean.yaml', '--config', 'config/list.yaml'], { cwd: work });
    assert.equal(run.code, 0);
    assert.equal(run.stderr, 'gpumem: ignoring config (root): configuration must be a mapping\n');
  });
});

describe('rules, --version and --help', () => {
  test('gpumem rules lists every rule with its default severity and title, then the live findings', async () => {
    const run = await gpumem(['rules']);
    assert.equal(run.code, 0);
    const [staticPart, livePart] = run.stdout.trimEnd().split('\n\nFrom a live cluster (gpumem lint --live):\n');
    const lines = staticPart!.split('\n');
    assert.deepEqual(
      lines.map((line) => line.split(/\s+/)[0]),
      RULES.map((rule) => rule.id),
    );
    for (const [index, line] of lines.entries()) {
      const rule = RULES[index]!;
      assert.match(line, new RegExp(`^${rule.id}\\s+${rule.defaultSeverity}\\s+`));
      assert.ok(line.includes(rule.title), line);
      assert.equal(line.endsWith('(off until configured)'), Boolean(rule.offByDefault));
    }
    assert.deepEqual(
      livePart!.split('\n').map((line) => line.split(/\s+/).slice(0, 2)),
      [
        ['observed-footprint-over-limit', 'warning'],
        ['observed-oom-kills', 'warning'],
        ['manifest-drift', 'info'],
      ],
    );
    assert.match(livePart!, /observed-oom-kills +warning +The workload was OOM-killed in the window \(information for global kills\)/);
  });

  test('gpumem rules --format json', async () => {
    const run = await gpumem(['rules', '--format', 'json']);
    assert.equal(run.code, 0);
    const rules = JSON.parse(run.stdout) as Array<{
      id: string;
      defaultSeverity: string;
      title: string;
      summary: string;
      remedy: string;
      live?: boolean;
      docs?: string;
    }>;
    assert.deepEqual(
      rules.filter((rule) => !rule.live).map((rule) => [rule.id, rule.defaultSeverity]),
      RULES.map((rule) => [rule.id, rule.defaultSeverity]),
    );
    assert.deepEqual(
      rules.filter((rule) => rule.live).map((rule) => [rule.id, rule.defaultSeverity, rule.docs]),
      [
        ['observed-footprint-over-limit', 'warning', 'docs/live/observed-footprint-over-limit.md'],
        ['observed-oom-kills', 'warning', 'docs/live/observed-oom-kills.md'],
        ['manifest-drift', 'info', 'docs/live/manifest-drift.md'],
      ],
    );
    for (const rule of rules) assert.ok(rule.summary && rule.remedy && rule.title, rule.id);
    assert.equal((await gpumem(['rules', '--format', 'sarif'])).code, 2);
  });

  test('gpumem --version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const run = await gpumem([flag]);
      assert.deepEqual([run.code, run.stdout], [0, `${version}\n`]);
    }
  });

  test('gpumem lint --help documents every option and the exit codes', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await gpumem(['lint', flag]);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /^Usage: gpumem lint \[paths…\] \[options\]/);
      for (const option of ['--format text|json|sarif', '--headroom PERCENT', '--config FILE', '--max-file-size MIB', '--docs-url URL'])
        assert.ok(run.stdout.includes(option), option);
      assert.match(run.stdout, /Exit status: 0 .* 1 .* 2 on usage or I\/O errors/);
    }
  });

  test('gpumem rules --help prints its usage, not "unknown option"', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await gpumem(['rules', flag]);
      assert.deepEqual([run.code, run.stderr], [0, '']);
      assert.match(run.stdout, /^Usage: gpumem rules \[--format text\|json\]/);
      assert.match(run.stdout, /Exit status: 0, or 2 on usage errors\./);
    }
  });

  test('the help of inspect, analyze and explain-oom states their exit codes, as docs/probes.md does', async () => {
    for (const command of ['inspect', 'analyze', 'explain-oom']) {
      const run = await gpumem([command, '--help']);
      assert.equal(run.code, 0, command);
      assert.match(run.stdout, /\nExit status: 0 when no (verdict|kill) .*, 1 when one is, 2 on usage errors/s, command);
    }
    assert.match((await gpumem(['lint', '--help'])).stdout, /3 when part of the input was not analysed/);
  });

  test('gpumem --help lists the commands', async () => {
    const run = await gpumem(['--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^\s+lint \[paths…\]/m);
    assert.match(run.stdout, /^\s+rules\s/m);
  });
});
