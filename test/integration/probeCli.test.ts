// The probe commands of the `gpumem` CLI, run from source as child processes (`node src/cli/main.ts …`, argv
// arrays, never a shell string): probe-script (and running its output by hand, as on an air-gapped node),
// inspect --local on this real machine, --save then analyze, analyze of garbage and of a truncated capture,
// explain-oom on real kernel logs in three formats and from standard input, and inspect --ssh against a real
// OpenSSH server on 127.0.0.1 (test/helpers/sshd.ts): host-key refusal, --accept-new, a changed key, and one
// connection with one exec per inspection, read from sshd's own log.
//
// inspect --local and the SSH tests need root for the full node view (the SSH server logs in as root); they
// are skipped otherwise. Every server and temp directory is removed in after(), on failure too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKey, sshUnavailableReason, startSshd } from '../helpers/sshd.ts';
import type { KeyPair, SshdInstance } from '../helpers/sshd.ts';
import { runCli } from '../helpers/cli.ts';
import type { CliRun } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KERNEL_LOGS = join(ROOT, 'test', 'fixtures', 'kernel-logs');
const T = { timeout: 180_000 };
const ROOT_USER = process.getuid?.() === 0;

/** The CLI from source (test/helpers/cli.ts); a probe may take a while on a loaded machine. */
function gpumem(args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return runCli(args, { ...options, timeoutMs: 150_000 });
}

/** The syntax checkers present here: `sh -n`, `dash -n`, `busybox sh -n`. */
const SYNTAX_CHECKERS = [
  ['sh', '-n'],
  ['dash', '-n'],
  ['busybox', 'sh', '-n'],
].filter((argv) => spawnSync(argv[0] ?? '', ['-c', 'true'], { stdio: 'ignore' }).error === undefined);

function syntaxErrors(script: string): string[] {
  const errors: string[] = [];
  for (const argv of SYNTAX_CHECKERS) {
    const run = spawnSync(argv[0] ?? '', argv.slice(1), { input: script, encoding: 'utf8' });
    if (run.status !== 0) errors.push(`${argv.join(' ')}: ${run.stderr}`);
  }
  return errors;
}

/** The cgroup mode of this machine, decided from /sys/fs/cgroup without the probe. */
function thisMachineCgroupMode(): string {
  if (existsSync('/sys/fs/cgroup/cgroup.controllers')) return 'v2';
  if (existsSync('/sys/fs/cgroup/memory')) return existsSync('/sys/fs/cgroup/unified/cgroup.controllers') ? 'hybrid' : 'v1';
  return 'unknown';
}

interface InspectionJson {
  target: string;
  scope: string | null;
  verdicts: Array<{ id: string; severity: string; title: string; evidence: string[]; remedy: string }>;
  node: {
    hostname: string | null;
    kernel: string | null;
    cgroupMode: string;
    kernelChecks: Array<{ id: string; status: string }>;
    accounting: { memTotal: number | null };
  } | null;
  hami: unknown;
  problems: string[];
  complete: boolean;
}

function parseInspection(run: CliRun): InspectionJson {
  try {
    return JSON.parse(run.stdout) as InspectionJson;
  } catch {
    assert.fail(`not JSON (exit ${run.code}): ${run.stdout.slice(0, 500)}\n${run.stderr}`);
  }
}

/** The documented exit code: 1 when a verdict is a warning or an error, else 0. */
function expectedExit(json: { verdicts: Array<{ severity: string }> }): number {
  return json.verdicts.some((verdict) => verdict.severity !== 'info') ? 1 : 0;
}

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'gpumem-probe-cli-'));
});
after(() => {
  rmSync(work, { recursive: true, force: true });
});

// ------------------------------------------------------------------------------------------------
// probe-script

describe('probe-script', () => {
  test('there is a syntax checker, and it is live', () => {
    assert.ok(SYNTAX_CHECKERS.length > 0, 'sh, dash or busybox');
    assert.notDeepEqual(syntaxErrors('if then fi\n'), []);
  });

  for (const args of [[], ['--scope', 'node'], ['--scope', 'node', '--host-root', '/host'], ['--scope', 'container']]) {
    test(`probe-script ${args.join(' ')}: a script every shell parses`, async () => {
      const run = await gpumem(['probe-script', ...args]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, '');
      assert.match(run.stdout, /^#!\/bin\/sh\n# gpumem probe v1, scope (node|container): read-only/);
      assert.match(run.stdout, new RegExp(`\\nGPUMEM_ROOT='${args.includes('--host-root') ? '/host' : ''}'\\n`));
      assert.match(run.stdout, /\nGPUMEM_NONCE='[0-9a-f]{24}'\n/);
      assert.match(run.stdout, new RegExp(`scope=${args.includes('container') ? 'container' : 'node'} nonce=`));
      assert.deepEqual(syntaxErrors(run.stdout), []);
    });
  }

  test('each run has its own nonce', async () => {
    const [a, b] = await Promise.all([gpumem(['probe-script']), gpumem(['probe-script'])]);
    const nonce = (run: CliRun) => /GPUMEM_NONCE='([0-9a-f]+)'/.exec(run.stdout)?.[1];
    assert.ok(nonce(a));
    assert.notEqual(nonce(a), nonce(b));
  });

  for (const hostRoot of ['/host;rm -rf /', '/host/..', '../host', 'host', '/host dir', "/host'", '$(id)']) {
    test(`--host-root ${JSON.stringify(hostRoot)} is refused with exit 2`, async () => {
      const run = await gpumem(['probe-script', '--host-root', hostRoot]);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /^gpumem probe-script: host root ".*" must be an absolute path/);
    });
  }

  test('a bad --scope or an unknown option is exit 2', async () => {
    assert.equal((await gpumem(['probe-script', '--scope', 'cluster'])).code, 2);
    assert.equal((await gpumem(['probe-script', '--hostroot', '/host'])).code, 2);
  });

  test(
    'by hand, as on an air-gapped node: probe-script > probe.sh; sh -s < probe.sh > capture.txt; analyze capture.txt',
    { ...T, skip: !ROOT_USER && 'needs root for a complete node view' },
    async () => {
      const script = (await gpumem(['probe-script'])).stdout;
      const probe = spawnSync('sh', ['-s'], { input: script, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 });
      assert.equal(probe.status, 0, probe.stderr);
      const file = join(work, 'by-hand-capture.txt');
      writeFileSync(file, probe.stdout);
      const run = await gpumem(['analyze', file, '--format', 'json']);
      const json = parseInspection(run);
      assert.equal(run.code, expectedExit(json), run.stderr);
      assert.equal(json.complete, true);
      assert.equal(json.target, `capture ${file}`);
      assert.equal(json.node?.cgroupMode, thisMachineCgroupMode());
    },
  );
});

// ------------------------------------------------------------------------------------------------
// inspect --local, --save, analyze

describe('inspect --local on this machine', { skip: !ROOT_USER && 'needs root for the node view' }, () => {
  let saved: string;
  let local: InspectionJson;
  let localRun: CliRun;

  before(async () => {
    saved = join(work, 'local-capture.txt');
    localRun = await gpumem(['inspect', '--local', '--format', 'json', '--save', saved]);
    local = parseInspection(localRun);
  });

  test("JSON: a complete node capture with this machine's cgroup mode, kernel and RAM; the exit code follows the verdicts", () => {
    assert.ok(localRun.code === 0 || localRun.code === 1, `exit ${localRun.code}: ${localRun.stderr}`);
    assert.equal(localRun.code, expectedExit(local));
    assert.equal(local.target, 'local');
    assert.equal(local.scope, 'node');
    assert.equal(local.complete, true);
    assert.deepEqual(local.problems, []);
    assert.equal(local.node?.cgroupMode, thisMachineCgroupMode());
    assert.equal(local.node?.kernel, release());
    const memTotalKb = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]);
    assert.equal(local.node?.accounting.memTotal, memTotalKb * 1024);
    assert.deepEqual(local.node?.kernelChecks.map((check) => check.id).slice(0, 2), [
      'kernel.gpu-active-counters',
      'kernel.dmem-available',
    ]);
    for (const verdict of local.verdicts) assert.ok(verdict.id && verdict.title && verdict.remedy, JSON.stringify(verdict));
  });

  test('--save writes the raw capture, private to the user', () => {
    const text = readFileSync(saved, 'utf8');
    assert.match(text, /^@@gpumem-probe v=1 scope=node nonce=[0-9a-f]{24} root=@@$/m);
    assert.match(text, /@@gpumem:[0-9a-f]{24}:done@@\n$/);
    assert.equal(statSync(saved).mode & 0o777, 0o600);
  });

  test('--save into a missing directory: the report is still printed, then one line of cause, and exit 2', async () => {
    const target = join(work, 'missing', 'dir', 'x.json');
    const run = await gpumem(['inspect', '--local', '--format', 'json', '--save', target]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(parseInspection(run).target, 'local', 'the whole report is on stdout');
    assert.match(run.stderr, /^gpumem inspect: --save .*\/missing\/dir\/x\.json: no such file or directory; the capture was not saved/m);
    assert.doesNotMatch(run.stderr, /internal error|\n\s+at /);
    assert.equal(existsSync(target), false);
  });

  test('analyze FILE gives the same verdicts and node view, and the same exit code', async () => {
    const run = await gpumem(['analyze', saved, '--format', 'json']);
    const json = parseInspection(run);
    assert.equal(run.code, localRun.code, run.stderr);
    assert.equal(json.target, `capture ${saved}`);
    assert.deepEqual(json.verdicts, local.verdicts);
    assert.deepEqual(json.node, local.node);
    assert.deepEqual(json.problems, local.problems);
    assert.equal(json.complete, true);
  });

  test('analyze - reads the capture from standard input; text and markdown formats', async () => {
    const capture = readFileSync(saved, 'utf8');
    const fromStdin = parseInspection(await gpumem(['analyze', '-', '--format', 'json'], { input: capture }));
    assert.equal(fromStdin.target, 'capture from standard input');
    assert.deepEqual(fromStdin.verdicts, local.verdicts);
    const text = await gpumem(['analyze', saved]);
    assert.match(
      text.stdout,
      new RegExp(
        `^gpumem inspection: capture ${saved.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\nhost .+, kernel ${release().replace(/\./g, '\\.')}, cgroup ${thisMachineCgroupMode()}\\n`,
      ),
    );
    const markdown = await gpumem(['analyze', saved, '-f', 'markdown']);
    assert.match(markdown.stdout, /^# gpumem inspection: capture /);
    assert.match(markdown.stdout, /\n## Kernel, driver and dmem\n/);
  });

  test('a capture cut in half: a partial result with its reasons, not a crash', async () => {
    const capture = readFileSync(saved, 'utf8');
    const half = join(work, 'half-capture.txt');
    writeFileSync(half, capture.slice(0, Math.floor(capture.length / 2)));
    const run = await gpumem(['analyze', half, '--format', 'json']);
    const json = parseInspection(run);
    // A capture cut short is an error, not a footnote: exit 3 (docs/probes.md), with what was read still reported.
    assert.equal(run.code, 3, run.stderr);
    assert.equal(json.complete, false);
    assert.ok(
      json.problems.some((problem) => problem.startsWith('the capture is incomplete')),
      json.problems.join('; '),
    );
  });
});

describe('analyze: bad input', () => {
  test('garbage: exit 2 and a clear message, nothing on stdout', async () => {
    const file = join(work, 'garbage.txt');
    writeFileSync(file, 'Welcome to Ubuntu 26.04 LTS\n\u0000\u0001\u0002 not a capture\n');
    const run = await gpumem(['analyze', file]);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, `gpumem analyze: ${file}: not a gpumem probe capture (no header line)\n`);
  });

  test('a missing file, and no file at all: exit 2', async () => {
    const missing = await gpumem(['analyze', join(work, 'no-such-capture.txt')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^gpumem analyze: .*no-such-capture\.txt: /);
    assert.equal((await gpumem(['analyze'])).code, 2);
    assert.equal((await gpumem(['analyze', '-'], { input: '' })).code, 2);
  });
});

// ------------------------------------------------------------------------------------------------
// explain-oom

interface OomJson {
  source: string;
  summary: {
    kills: number;
    global: number;
    memcg: number;
    unknown: number;
    globalPodKills: number;
    format: string;
    victims: Array<{ comm?: string; pid?: number; kind: string }>;
    text: string;
  };
  verdicts: Array<{ id: string; severity: string; evidence: string[]; evidenceLines: Array<{ line: number; text: string }> }>;
}

describe('explain-oom', () => {
  const cases = [
    // [fixture, log format, kills, global, memcg, a victim]
    ['k3s-12028-dmesg-global-6.14.log', 'dmesg', 1, 1, 0],
    ['derived-journal-short-monotonic-eks-419.log', 'journal-monotonic', 2, 0, 2],
    ['k3s-blog-syslog-global-pod.log', 'syslog', 1, 1, 0],
  ] as const;
  for (const [name, format, kills, global, memcg] of cases) {
    test(`${name} (${format}): the kills, exit 1`, async () => {
      const file = join(KERNEL_LOGS, name);
      const run = await gpumem(['explain-oom', file, '--format', 'json']);
      assert.equal(run.code, 1, run.stderr);
      const json = JSON.parse(run.stdout) as OomJson;
      assert.equal(json.source, file);
      assert.deepEqual([json.summary.format, json.summary.kills, json.summary.global, json.summary.memcg], [format, kills, global, memcg]);
      const lines = readFileSync(file, 'utf8').split('\n');
      for (const verdict of json.verdicts) {
        assert.match(verdict.id, /^oom\.(global-gtt|global|memcg|unclassified):\d+/);
        for (const evidence of verdict.evidenceLines)
          assert.equal(lines[evidence.line - 1], evidence.text, 'evidence is the log line, verbatim');
      }
    });
  }

  test('from standard input, in the three output formats', async () => {
    const log = readFileSync(join(KERNEL_LOGS, 'synthetic-gtt-apu-7.1.log'), 'utf8');
    const json = await gpumem(['explain-oom', '-', '--format', 'json'], { input: log });
    assert.equal(json.code, 1, json.stderr);
    const parsed = JSON.parse(json.stdout) as OomJson;
    assert.equal(parsed.source, 'standard input');
    assert.match(parsed.verdicts[0]?.id ?? '', /^oom\.global-gtt:/);
    const text = await gpumem(['explain-oom', '-'], { input: log });
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^OOM kills explained: standard input\n1 OOM kill report: 1 global \(1 of a pod\)/);
    const markdown = await gpumem(['explain-oom', '-', '-f', 'markdown'], { input: log });
    assert.equal(markdown.code, 1);
    assert.match(markdown.stdout, /^# OOM kills explained: standard input\n/);
    assert.match(markdown.stdout, /\n```+\n +\d+ {2}\[/, 'an evidence block with line numbers');
  });

  test('a log with no kill: exit 0', async () => {
    const run = await gpumem(['explain-oom', join(KERNEL_LOGS, 'ci-machine-dmesg-no-oom.log'), '--format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const json = JSON.parse(run.stdout) as OomJson;
    assert.equal(json.summary.kills, 0);
    assert.deepEqual(json.verdicts, []);
    assert.match(json.summary.text, /^No OOM kill reports in \d+ lines of kernel log\.$/);
    const empty = await gpumem(['explain-oom', '-'], { input: '' });
    assert.equal(empty.code, 0);
  });

  test('a missing file is exit 2', async () => {
    const run = await gpumem(['explain-oom', join(work, 'no-such.log')]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^gpumem explain-oom: /);
  });
});

// ------------------------------------------------------------------------------------------------
// inspect --ssh against a real sshd

const SSH_SKIP = ROOT_USER ? (sshUnavailableReason() ?? false) : 'needs root (sshd logs in as root)';

describe('inspect --ssh against OpenSSH on 127.0.0.1', { skip: SSH_SKIP }, () => {
  let sshd: SshdInstance;
  let client: KeyPair;
  let impostor: KeyPair;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let fingerprint: string;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'gpumem-probe-cli-home-'));
    client = generateKey(home, 'id_client', 'ed25519');
    impostor = generateKey(home, 'id_impostor', 'ed25519');
    // VERBOSE: sshd logs each connection ("Connection from") and each exec ("Starting session: command").
    sshd = await startSshd({ authorizedKeys: [client.publicLine], logLevel: 'VERBOSE' });
    fingerprint = execFileSync('ssh-keygen', ['-lf', sshd.hostKey.publicKeyPath], { encoding: 'utf8' }).split(' ')[1] ?? '';
    // No ~/.ssh/config, no agent: only what the command line says.
    env = { ...process.env, HOME: home };
    delete env.SSH_AUTH_SOCK;
  });
  after(async () => {
    await sshd?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  function knownHosts(name: string, ...lines: string[]): string {
    const file = join(home, name);
    writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
    return file;
  }

  function inspect(file: string, ...extra: string[]): Promise<CliRun> {
    return gpumem(
      ['inspect', '--ssh', `root@127.0.0.1:${sshd.port}`, '-i', client.privateKeyPath, '--known-hosts', file, '--format', 'json', ...extra],
      { env },
    );
  }

  const count = (log: string, pattern: RegExp) => (log.match(pattern) ?? []).length;

  /** The sshd log from `from` on, once the server has logged the end of every connection in it. */
  async function logSince(from: number): Promise<string> {
    const until = Date.now() + 15_000;
    for (;;) {
      const log = sshd.log().slice(from);
      const connections = count(log, /Connection from 127\.0\.0\.1 port/g);
      const ended = count(log, /Disconnected from |Connection closed by |Received disconnect from /g);
      if ((connections > 0 && ended >= connections) || Date.now() > until) return log;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  test('an unknown host key is refused without --accept-new: exit 2, the fingerprint named, known_hosts untouched', T, async () => {
    assert.match(fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
    const file = knownHosts('known_hosts_empty');
    const mark = sshd.log().length;
    const run = await inspect(file);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.ok(
      run.stderr.includes(
        `gpumem inspect: ssh root@127.0.0.1:${sshd.port}: the host key of [127.0.0.1]:${sshd.port} is not known (ssh-ed25519 ${fingerprint})`,
      ),
      run.stderr,
    );
    assert.equal(readFileSync(file, 'utf8'), '');
    const log = await logSince(mark);
    assert.equal(count(log, /Accepted publickey/g), 0, log);
    assert.equal(count(log, /Starting session/g), 0, log);
  });

  test('--accept-new: the key is added, and the inspection runs on one connection with one exec', T, async () => {
    const file = knownHosts('known_hosts_new');
    const mark = sshd.log().length;
    const run = await inspect(file, '--accept-new');
    const json = parseInspection(run);
    assert.equal(run.code, expectedExit(json), run.stderr);
    assert.equal(readFileSync(file, 'utf8'), `${sshd.knownHostsLine}\n`, "known_hosts gained the server's line");
    assert.ok(run.stderr.includes(`added ssh-ed25519 ${fingerprint} to ${file}`), run.stderr);
    assert.equal(json.target, `ssh root@127.0.0.1:${sshd.port}`);
    assert.equal(json.complete, true, json.problems.join('; '));
    assert.equal(json.node?.kernel, release(), 'the probe ran on this machine, through sshd');
    assert.equal(json.node?.cgroupMode, thisMachineCgroupMode());
    const log = await logSince(mark);
    assert.equal(count(log, /Connection from 127\.0\.0\.1 port/g), 1, log);
    assert.equal(count(log, /Accepted publickey for root from 127\.0\.0\.1/g), 1, log);
    assert.equal(count(log, /Starting session: command for root/g), 1, log);
  });

  test('a key added by --accept-new is then known: no flag needed', T, async () => {
    const file = knownHosts('known_hosts_known', sshd.knownHostsLine);
    const run = await inspect(file);
    assert.ok(run.code === 0 || run.code === 1, run.stderr);
    assert.equal(parseInspection(run).complete, true);
    assert.equal(readFileSync(file, 'utf8'), `${sshd.knownHostsLine}\n`);
  });

  test('a changed host key is refused even with --accept-new: exit 2, known_hosts untouched, no login', T, async () => {
    const line = `[127.0.0.1]:${sshd.port} ${impostor.type} ${impostor.base64}`;
    const file = knownHosts('known_hosts_changed', line);
    const mark = sshd.log().length;
    const run = await inspect(file, '--accept-new');
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      new RegExp(`the host key of \\[127\\.0\\.0\\.1\\]:${sshd.port} CHANGED: got ${fingerprint.replace(/[+/]/g, '\\$&')}`),
    );
    assert.match(run.stderr, /possible man-in-the-middle/);
    assert.equal(readFileSync(file, 'utf8'), `${line}\n`);
    const log = await logSince(mark);
    assert.equal(count(log, /Accepted publickey/g), 0, log);
  });
});
