// LocalTransport against real shells on this machine: sh, dash and busybox sh. Each test cleans up the
// processes it starts (the timeout, cancel and cap tests check that the whole process group is gone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { LocalTransport } from '../../src/transports/local.ts';
import { OutputBuffer } from '../../src/transports/outputBuffer.ts';
import { TransportError } from '../../src/core/probe/transport.ts';
import type { ExecRequest, TransportFailure } from '../../src/core/probe/transport.ts';

function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

const SHELLS: Array<{ name: string; command: string[] | undefined; missing: string | null }> = [
  { name: 'sh (default argv)', command: undefined, missing: null },
  { name: 'dash', command: ['dash', '-s'], missing: which('dash') ? null : 'dash not installed (apt-get install -y dash)' },
  {
    name: 'busybox sh',
    command: ['busybox', 'sh', '-s'],
    missing: which('busybox') ? null : 'busybox not installed (apt-get install -y busybox-static)',
  },
];

function req(script: string, extra: Partial<ExecRequest> = {}): ExecRequest {
  return { script, timeoutMs: 30_000, maxOutputBytes: 1 << 20, ...extra };
}

/** Process ids whose command line contains `marker` (pgrep -f), excluding pgrep itself. */
function pids(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** Waits (generous watchdog) until no process matches; returns what is left. */
async function gone(marker: string, watchdogMs = 10_000): Promise<number[]> {
  const until = Date.now() + watchdogMs;
  let left = pids(marker);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    left = pids(marker);
  }
  return left;
}

/** A `sleep` argument unique to this test, so pgrep finds only our processes. */
function uniqueSleep(): string {
  return `3${String(randomBytes(4).readUInt32BE(0) % 100000).padStart(5, '0')}.${randomBytes(2).readUInt16BE(0)}`;
}

async function rejectsWith(p: Promise<unknown>, kind: TransportFailure['kind']): Promise<TransportFailure> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof TransportError, `expected a TransportError, got ${String(err)}`);
    assert.equal(err.failure.kind, kind, err.message);
    return err.failure;
  }
  assert.fail(`expected a ${kind} failure`);
}

for (const shell of SHELLS) {
  const opts = shell.missing ? { skip: shell.missing } : {};
  const make = (): LocalTransport => new LocalTransport(shell.command ? { command: shell.command } : {});

  test(`${shell.name}: stdout, stderr and exit code`, opts, async () => {
    const t = make();
    const r = await t.run(req('echo hello\necho oops >&2\nprintf "%s" "$(id -u)"\nexit 3\n'));
    assert.equal(r.stdout, `hello\n${process.getuid?.()}`);
    assert.equal(r.stderr, 'oops\n');
    assert.equal(r.exitCode, 3);
    assert.equal(r.truncated, false);
    await t.close();
  });

  test(`${shell.name}: the script arrives on stdin, whole (1 MB, quotes, newlines)`, opts, async () => {
    const t = make();
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(1024);
    const r = await t.run(req(`${filler}printf '%s|' "it's" 'a "q"' 'tab\there'\necho end\n`));
    assert.equal(r.stdout, `it's|a "q"|tab\there|end\n`);
    assert.equal(r.exitCode, 0);
  });

  test(`${shell.name}: a script that exits before reading all of stdin`, opts, async () => {
    const t = make();
    const r = await t.run(req(`exit 7\n${'# padding\n'.repeat(200_000)}`));
    assert.equal(r.exitCode, 7);
  });

  test(`${shell.name}: the timeout kills the whole process group`, opts, async () => {
    const t = make();
    const s = uniqueSleep();
    const started = Date.now();
    const f = await rejectsWith(t.run(req(`sleep ${s} &\nsleep ${s}\n`, { timeoutMs: 300 })), 'timeout');
    assert.deepEqual(f, { kind: 'timeout', phase: 'command', ms: 300 });
    assert.ok(Date.now() - started < 20_000, 'watchdog');
    assert.deepEqual(await gone(`sleep ${s}`), [], 'the background sleep survived the timeout');
  });

  test(`${shell.name}: cancellation kills the process group and reports cancelled`, opts, async () => {
    const t = make();
    const s = uniqueSleep();
    const controller = new AbortController();
    const p = t.run(req(`sleep ${s} &\nsleep ${s}\n`, { signal: controller.signal }));
    const until = Date.now() + 10_000;
    while (pids(`sleep ${s}`).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(pids(`sleep ${s}`).length, 2, 'both sleeps started');
    controller.abort();
    await rejectsWith(p, 'cancelled');
    assert.deepEqual(await gone(`sleep ${s}`), []);
  });

  test(`${shell.name}: onStdout gets the output as it arrives, and the result keeps none of it`, opts, async () => {
    const t = make();
    const pieces: string[] = [];
    // Two writes a moment apart: the first arrives before the second is written.
    const r = await t.run(
      req('echo first\nsleep 0.3\nhead -c 300000 /dev/zero | tr "\\0" x\necho\n', { onStdout: (text) => pieces.push(text) }),
    );
    assert.equal(r.stdout, '');
    assert.equal(r.exitCode, 0);
    assert.equal(pieces.join(''), `first\n${'x'.repeat(300_000)}\n`);
    assert.equal(pieces[0], 'first\n');
    assert.ok(pieces.length > 2, `${pieces.length} pieces`);
  });

  test(`${shell.name}: the output cap truncates, kills and reports`, opts, async () => {
    const t = make();
    const s = uniqueSleep();
    // Prints forever (and keeps a sleeping child) until killed.
    const r = await t.run(req(`sleep ${s} &\nwhile :; do echo 0123456789; done\n`, { maxOutputBytes: 100_000 }));
    assert.equal(r.truncated, true);
    assert.equal(r.stdout.length, 100_000);
    assert.ok(r.stdout.startsWith('0123456789\n'));
    assert.equal(r.exitCode, null);
    assert.deepEqual(await gone(`sleep ${s}`), []);
  });
}

test(
  'a process that escaped the group and holds stdout does not hold the result',
  { skip: which('setsid') ? false : 'setsid not installed' },
  async () => {
    const t = new LocalTransport();
    const s = uniqueSleep();
    try {
      const started = Date.now();
      const r = await t.run(req(`setsid sleep ${s} &\necho done\n`));
      assert.equal(r.stdout, 'done\n');
      assert.equal(r.exitCode, 0);
      assert.ok(Date.now() - started < 20_000, 'watchdog');
    } finally {
      for (const pid of pids(`sleep ${s}`)) process.kill(pid, 'SIGKILL');
    }
  },
);

test('an aborted signal before the run starts nothing', async () => {
  const t = new LocalTransport();
  const controller = new AbortController();
  controller.abort();
  await rejectsWith(t.run(req('echo never', { signal: controller.signal })), 'cancelled');
});

test('a missing binary is a spawn failure', async () => {
  const t = new LocalTransport({ command: ['/nonexistent/gpumem-shell', '-s'] });
  const f = await rejectsWith(t.run(req('echo hi')), 'spawn');
  assert.match((f as { detail: string }).detail, /gpumem-shell: not found \(ENOENT\)/);
});

test('a non-executable file is a spawn failure', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-local-'));
  try {
    const file = join(dir, 'not-executable');
    writeFileSync(file, 'echo hi\n', { mode: 0o644 });
    const t = new LocalTransport({ command: [file] });
    const f = await rejectsWith(t.run(req('echo hi')), 'spawn');
    assert.match((f as { detail: string }).detail, /EACCES/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stderr is capped too, and marks the result truncated', async () => {
  const t = new LocalTransport();
  const r = await t.run(req('i=0; while [ $i -lt 2000 ]; do echo eeeeeeeeee >&2; i=$((i+1)); done; echo done', { maxOutputBytes: 1000 }));
  assert.equal(r.truncated, true);
  assert.equal(r.stderr.length, 1000);
});

test('the target names the argv when one is given', () => {
  assert.equal(new LocalTransport().target, 'local');
  assert.equal(new LocalTransport({ command: ['busybox', 'sh', '-s'] }).target, 'local: busybox sh -s');
  assert.throws(() => new LocalTransport({ command: [] }));
});

test('the environment and working directory are passed as given', async () => {
  const t = new LocalTransport({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GPUMEM_X: 'a b;$(c)' }, cwd: '/tmp' });
  const r = await t.run(req('printf "%s|%s" "$GPUMEM_X" "$(pwd)"'));
  assert.equal(r.stdout, 'a b;$(c)|/tmp');
});

test('OutputBuffer cuts at a whole UTF-8 character', () => {
  const b = new OutputBuffer(4);
  assert.equal(b.push(Buffer.from('aé')), true); // 3 bytes
  assert.equal(b.push(Buffer.from('€')), false); // 3 more: over the cap
  assert.equal(b.truncated, true);
  assert.equal(b.text(), 'aé');
  // The pieces are released with the text (a capture is not kept twice while it is analysed): once only.
  assert.equal(b.text(), '');
  assert.equal(utf8Boundary(Buffer.from('ab')), 2);
  assert.equal(utf8Boundary(Buffer.from('a€').subarray(0, 3)), 1);
  assert.equal(utf8Boundary(Buffer.from('😀')), 4);
  assert.equal(utf8Boundary(Buffer.from('😀').subarray(0, 3)), 0);
});

/** The largest length <= bytes.length that does not end inside a UTF-8 sequence (F8–FF lead nothing). */
function utf8Boundary(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back] as number;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = b >= 0xf8 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

// OutputBuffer decodes each chunk as it arrives (so a 7 MiB capture is not held as chunks, their concatenation and
// its text at once). Its oracle is the first form: the chunks kept up to the cap, concatenated, cut back to a whole
// character when the cap was hit, decoded once. Chunks split characters anywhere, bytes include invalid sequences.
test('OutputBuffer: the text of decoding the kept bytes at once, however the chunks split them', () => {
  const byte = fc.oneof(
    fc.integer({ min: 0, max: 255 }),
    fc.constantFrom(0x61, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xe2, 0xed, 0xf0, 0xf4, 0xf8),
  );
  const chunks = fc.array(fc.array(byte, { maxLength: 10 }), { maxLength: 8 });
  fc.assert(
    fc.property(chunks, fc.integer({ min: 0, max: 60 }), (arrays, cap) => {
      const buffers = arrays.map((bytes) => Buffer.from(bytes));
      const out = new OutputBuffer(cap);
      for (const chunk of buffers) out.push(chunk);
      let bytes = Buffer.concat(buffers);
      const truncated = bytes.length > cap;
      if (truncated) bytes = bytes.subarray(0, utf8Boundary(bytes.subarray(0, cap)));
      assert.equal(out.truncated, truncated);
      assert.equal(out.text(), bytes.toString('utf8'));
      // With a sink (ExecRequest's onStdout) the same text goes there, in pieces, and none is kept.
      const given: string[] = [];
      const streamed = new OutputBuffer(cap, (text) => given.push(text));
      for (const chunk of buffers) streamed.push(chunk);
      assert.equal(streamed.text(), '');
      assert.equal(given.join(''), bytes.toString('utf8'));
      assert.ok(given.every((piece) => piece !== ''));
    }),
    { numRuns: 20_000, seed: 1204 },
  );
});
