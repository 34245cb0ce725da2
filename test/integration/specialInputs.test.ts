// Every command and every input option of the CLI, each given what a hostile repository or a careless pipeline
// hands it: a symlink to /dev/zero and to /dev/urandom, a named pipe nobody writes, a listening socket, a
// directory, a file one byte over the limit of its kind, and an endless standard input. Each run must end with
// its exit status and a message naming the path and the reason, and stay within a bound of CPU time and memory
// measured in this run: the same command on a 1-byte file, and this process reading the limit's bytes.
// Every special kind is given to the first option of each kind of input; an option that reads through the same reader
// as an earlier one (the other commands' --kubeconfig, --node-capture) gets the two that would hang or never end if it
// read its path any other way (a named pipe, /dev/zero) and the file over the limit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { forEachBounded } from '../../src/core/boundedPool.ts';
import { INPUT_LIMITS } from '../../src/files/boundedRead.ts';
import type { InputKind } from '../../src/files/boundedRead.ts';
import { CLI, REPO_ROOT } from '../helpers/cli.ts';
import { makeSpecial, REFUSAL, SPECIAL_KINDS, sparseFile } from '../helpers/specialFiles.ts';
import type { SpecialKind } from '../helpers/specialFiles.ts';

const MIB = 1024 * 1024;
/** A hang guard only: a run that reads an endless input does not end at all. */
const HANG_GUARD_MS = 180_000;
/**
 * CLI children run side by side: each reports its own CPU time and peak RSS, which a neighbour does not change, so
 * every bound holds as it did one at a time, and the file takes about half the time on CI's two cores.
 */
const CHILDREN_AT_ONCE = Math.max(1, Math.min(4, availableParallelism()));

// The child reports its own CPU time and peak RSS when it exits; nothing else changes in it.
const REPORT_USAGE = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => { const u = process.resourceUsage(); writeFileSync(process.env.GPUMEM_USAGE_FILE, JSON.stringify({ cpuUs: u.userCPUTime + u.systemCPUTime, maxRssKiB: u.maxRSS })); });",
)}`;

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly cpuMs: number;
  readonly rssMiB: number;
}

type Stdin = 'none' | 'dev-zero' | 'endless-pipe';

let dir = '';
let home = '';
let runs = 0;
const servers: Server[] = [];

async function gpumem(args: readonly string[], stdin: Stdin = 'none', runHome = home): Promise<Run> {
  const usageFile = join(dir, `usage-${runs++}.json`);
  const zero = stdin === 'dev-zero' ? openSync('/dev/zero', 'r') : undefined;
  const child = spawn(process.execPath, ['--import', REPORT_USAGE, CLI, ...args], {
    cwd: dir,
    env: { ...process.env, HOME: runHome, KUBECONFIG: '', GPUMEM_USAGE_FILE: usageFile },
    stdio: [zero ?? 'pipe', 'pipe', 'pipe'],
    timeout: HANG_GUARD_MS,
  });
  if (zero !== undefined) closeSync(zero);
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
  if (child.stdin) {
    child.stdin.on('error', () => undefined);
    if (stdin === 'endless-pipe') {
      const block = Buffer.alloc(64 * 1024, 'kernel: line\n');
      const pump = (): void => {
        while (!child.stdin!.destroyed && child.stdin!.write(block));
        if (!child.stdin!.destroyed) child.stdin!.once('drain', pump);
      };
      pump();
    } else child.stdin.end();
  }
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { cpuUs: number; maxRssKiB: number };
  return { code, out: Buffer.concat(chunks).toString('utf8'), cpuMs: usage.cpuUs / 1000, rssMiB: usage.maxRssKiB / 1024 };
}

/** The runs, CHILDREN_AT_ONCE at a time; the results in the order of the runs. */
async function gpumemAll(
  runs: readonly { readonly args: readonly string[]; readonly stdin?: Stdin; readonly home?: string }[],
): Promise<Run[]> {
  const results: Run[] = [];
  await forEachBounded(runs, CHILDREN_AT_ONCE, async (run, index) => {
    results[index] = await gpumem(run.args, run.stdin, run.home);
  });
  return results;
}

/** One input option: the argv with the path in it, the kind of its limit, and what its refusal looks like. */
interface InputOption {
  readonly label: string;
  readonly kind: InputKind;
  readonly argv: (path: string) => string[];
  /** Exit status and message for a path that is not a regular file. */
  readonly refused: (path: string, special: SpecialKind) => { code: number; message: RegExp };
  /** Exit status and message for a file one byte over the limit. */
  readonly over: (path: string) => { code: number; message: RegExp };
  /** The special files it is given: all, unless an earlier option reads through the same reader. */
  readonly specials?: readonly SpecialKind[];
}

/** What an option that shares its reader with an earlier one is given: what would hang or never end. */
const SHARED_READER_SPECIALS: readonly SpecialKind[] = ['fifo', 'dev-zero'];

const esc = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
// Kubeconfig paths are printed absolute, the others as given.
const refusedAs =
  (prefix: string, code = 2) =>
  (path: string, special: SpecialKind) => ({
    code,
    message: new RegExp(`${esc(prefix)}(?:/[^\n]*/)?${esc(path)}: not read: ${REFUSAL[special].source}`),
  });
const stoppedAs =
  (prefix: string, mib: number, code = 2) =>
  (path: string) => ({
    code,
    message: new RegExp(`${esc(prefix)}(?:/[^\n]*/)?${esc(path)}: not read: stopped at ${mib} MiB`),
  });

const KUBECONFIG_OPTIONS: InputOption[] = ['inspect', 'hami-report', 'hami-test', 'fleet'].map((command, index) => ({
  label: `${command} --kubeconfig`,
  ...(index > 0 ? { specials: SHARED_READER_SPECIALS } : {}),
  kind: 'kubeconfig',
  argv: (path) => [command, ...(command === 'fleet' ? [] : ['--pod', 'ml/trainer-0']), '--kubeconfig', path],
  refused: refusedAs(`gpumem ${command}: kubeconfig: `),
  over: stoppedAs(`gpumem ${command}: kubeconfig: `, 8),
}));

const OPTIONS: InputOption[] = [
  {
    label: 'lint FILE',
    kind: 'manifest',
    argv: (path) => ['lint', path],
    // A directory named on the command line is walked; an empty one is an error.
    refused: (path, special) =>
      special === 'directory' ? { code: 2, message: /gpumem: directory\.yaml: no manifest here/ } : refusedAs('gpumem: ')(path, special),
    // Over --max-file-size is a notice on the file, and exit 3: part of the input was not analysed.
    over: (path) => ({ code: 3, message: new RegExp(`${esc(path)}:1:1: info \\[manifest-skipped\\] Skipped: stopped at 16 MiB`) }),
  },
  {
    label: 'lint --config',
    kind: 'config',
    argv: (path) => ['lint', '--config', path, 'good.yaml'],
    refused: (path, special) => ({ code: 2, message: new RegExp(`cannot read --config ${esc(path)}: ${REFUSAL[special].source}`) }),
    over: (path) => ({ code: 2, message: new RegExp(`cannot read --config ${esc(path)}: stopped at 1 MiB`) }),
  },
  {
    label: 'analyze',
    kind: 'capture',
    argv: (path) => ['analyze', path],
    refused: refusedAs('gpumem analyze: '),
    over: stoppedAs('gpumem analyze: ', 64),
  },
  {
    label: 'explain-oom',
    kind: 'kernel-log',
    argv: (path) => ['explain-oom', path],
    refused: refusedAs('gpumem explain-oom: '),
    over: stoppedAs('gpumem explain-oom: ', 64),
  },
  ...KUBECONFIG_OPTIONS,
  {
    label: 'hami-report --node-capture',
    kind: 'capture',
    argv: (path) => ['hami-report', '--pod', 'ml/trainer-0', '--kubeconfig', 'cluster.kubeconfig', '--node-capture', path],
    refused: refusedAs('gpumem hami-report: --node-capture '),
    specials: SHARED_READER_SPECIALS,
    over: stoppedAs('gpumem hami-report: --node-capture ', 64),
  },
  {
    label: 'fleet --prometheus-ca',
    kind: 'ca-bundle',
    argv: (path) => ['fleet', '--prometheus', 'https://127.0.0.1:9', '--prometheus-ca', path],
    refused: refusedAs('gpumem fleet: --prometheus-ca '),
    over: stoppedAs('gpumem fleet: --prometheus-ca ', 4),
  },
];

/** This process's CPU time to read `bytes` of a regular file: the cost any reader pays for the limit. */
function readCostMs(path: string): number {
  const start = process.cpuUsage();
  readFileSync(path);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function assertBounded(what: string, run: Run, baseline: Run, readMs: number, limitBytes: number): void {
  // Generous factors: the property is "bounded, not proportional to an endless input", which is orders of
  // magnitude apart; both sides are measured in this run, on this machine.
  const cpuBound = 3 * baseline.cpuMs + 8 * readMs + 200;
  const rssBound = baseline.rssMiB + (3 * limitBytes) / MIB + 64;
  assert.ok(
    run.cpuMs <= cpuBound,
    `${what}: ${run.cpuMs.toFixed(0)} ms CPU, bound ${cpuBound.toFixed(0)} (1-byte file: ${baseline.cpuMs.toFixed(0)} ms)`,
  );
  assert.ok(
    run.rssMiB <= rssBound,
    `${what}: ${run.rssMiB.toFixed(0)} MiB peak, bound ${rssBound.toFixed(0)} (1-byte file: ${baseline.rssMiB.toFixed(0)} MiB)`,
  );
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gpumem-special-'));
  home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(dir, 'good.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n');
  writeFileSync(join(dir, 'one-byte'), '\n');
  // A context whose server nothing listens on: --node-capture is read before any request is made.
  writeFileSync(
    join(dir, 'cluster.kubeconfig'),
    'apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:9"}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n',
  );
  for (const special of SPECIAL_KINDS) await makeSpecial(dir, `${special}.yaml`, special, servers);
  for (const kind of Object.keys(INPUT_LIMITS) as InputKind[]) sparseFile(join(dir, `over-${kind}`), INPUT_LIMITS[kind].limitBytes + 1);
});

after(() => {
  for (const server of servers) server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('every input option refuses special files and stops at its limit, in bounded time and memory', { concurrency: 1 }, () => {
  for (const option of OPTIONS) {
    test(option.label, async () => {
      const limitBytes = INPUT_LIMITS[option.kind].limitBytes;
      const readMs = readCostMs(join(dir, `over-${option.kind}`));
      const specials = option.specials ?? SPECIAL_KINDS;
      const over = `over-${option.kind}`;
      const [baseline, overRun, ...specialRuns] = await gpumemAll([
        { args: option.argv('one-byte') },
        { args: option.argv(over) },
        ...specials.map((special) => ({ args: option.argv(`${special}.yaml`) })),
      ]);
      assert.ok(baseline && overRun);
      specials.forEach((special, index) => {
        const path = `${special}.yaml`;
        const run = specialRuns[index];
        assert.ok(run);
        const expected = option.refused(path, special);
        assert.equal(run.code, expected.code, `${option.label} ${path}:\n${run.out}`);
        assert.match(run.out, expected.message, `${option.label} ${path}`);
        assertBounded(`${option.label} ${path}`, run, baseline, readMs, 0);
      });
      const expected = option.over(over);
      assert.equal(overRun.code, expected.code, `${option.label} ${over}:\n${overRun.out}`);
      assert.match(overRun.out, expected.message, `${option.label} ${over}`);
      assertBounded(`${option.label} ${over}`, overRun, baseline, readMs, limitBytes);
      assert.doesNotMatch(overRun.out, /Invalid string length|Maximum call stack|\n\s+at /, 'no engine message, no stack frame');
    });
  }

  for (const [command, kind, code, message] of [
    [
      'lint',
      'manifest',
      3,
      /<stdin>:1:1: info \[manifest-skipped\] Skipped: stopped at 16 MiB: manifests are read up to --max-file-size 16 MiB\./,
    ],
    ['analyze', 'capture', 2, /gpumem analyze: standard input: not read: stopped at 64 MiB: a probe capture is read up to 64 MiB/],
    ['explain-oom', 'kernel-log', 2, /gpumem explain-oom: standard input: not read: stopped at 64 MiB: a kernel log is read up to 64 MiB/],
  ] as const) {
    test(`${command} - with an endless standard input`, async () => {
      const readMs = readCostMs(join(dir, `over-${kind}`));
      const stdins = ['dev-zero', 'endless-pipe'] as const;
      const [baseline, ...runs] = await gpumemAll([
        { args: [command, 'one-byte'] },
        ...stdins.map((stdin) => ({ args: [command, '-'], stdin })),
      ]);
      assert.ok(baseline);
      for (const [index, stdin] of stdins.entries()) {
        const run = runs[index];
        assert.ok(run);
        assert.equal(run.code, code, `${command} - (${stdin}):\n${run.out}`);
        assert.match(run.out, message, `${command} - (${stdin})`);
        assertBounded(`${command} - (${stdin})`, run, baseline, readMs, INPUT_LIMITS[kind].limitBytes);
      }
    });
  }

  test('lint DIR: each special file in the tree is a manifest-skipped notice and the good file is linted', async () => {
    const tree = join(dir, 'tree');
    mkdirSync(tree);
    writeFileSync(join(tree, 'a-good.yaml'), readFileSync(join(dir, 'good.yaml')));
    for (const special of SPECIAL_KINDS) if (special !== 'directory') await makeSpecial(tree, `${special}.yaml`, special, servers);
    sparseFile(join(tree, 'over.yaml'), INPUT_LIMITS.manifest.limitBytes + 1);
    const [baseline, run] = await gpumemAll([{ args: ['lint', 'good.yaml'] }, { args: ['lint', 'tree'] }]);
    assert.ok(baseline && run);
    assert.equal(run.code, 3, run.out);
    for (const line of [
      'tree/dev-urandom.yaml:1:1: info [manifest-skipped] Skipped: a symbolic link to /dev/urandom, outside the directory linted (not followed).',
      'tree/dev-zero.yaml:1:1: info [manifest-skipped] Skipped: a symbolic link to /dev/zero, outside the directory linted (not followed).',
      'tree/fifo.yaml:1:1: info [manifest-skipped] Skipped: is a named pipe (FIFO), not a regular file.',
      'tree/over.yaml:1:1: info [manifest-skipped] Skipped: stopped at 16 MiB: manifests are read up to --max-file-size 16 MiB.',
      'tree/socket.yaml:1:1: info [manifest-skipped] Skipped: is a socket, not a regular file.',
    ])
      assert.ok(run.out.includes(line), `${line}\nnot in:\n${run.out}`);
    assert.match(run.out, /5 findings \(0 errors, 0 warnings, 5 info\) in 5 of 6 files\./);
    assertBounded('lint tree', run, baseline, readCostMs(join(tree, 'over.yaml')), INPUT_LIMITS.manifest.limitBytes);
  });

  test('inspect --ssh: an SSH config that is a special file is not read, and the run still ends', async () => {
    // One home per special kind, so that the runs can go side by side.
    const homes = await Promise.all(
      SPECIAL_KINDS.map(async (special) => {
        const specialHome = join(dir, `home-${special}`);
        mkdirSync(join(specialHome, '.ssh'), { recursive: true });
        await makeSpecial(join(specialHome, '.ssh'), 'config', special, servers);
        return specialHome;
      }),
    );
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const args = ['inspect', '--ssh', 'root@127.0.0.1:9', '--timeout', '20'];
    const [baseline, ...runs] = await gpumemAll([{ args }, ...homes.map((specialHome) => ({ args, home: specialHome }))]);
    assert.ok(baseline);
    for (const [index, special] of SPECIAL_KINDS.entries()) {
      const run = runs[index];
      assert.ok(run);
      assert.equal(run.code, 2, `${special}:\n${run.out}`);
      assert.match(run.out, /127\.0\.0\.1/, special);
      assertBounded(`inspect --ssh with ~/.ssh/config ${special}`, run, baseline, 0, 0);
    }
  });
});

test('the CLI these runs start is the one in this repository', () => {
  assert.ok(CLI.startsWith(REPO_ROOT));
});
