import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { classifyHamiMessage, parseHamiLog, parseHamiLogLine } from '../../src/core/probe/parsers/hamiLog.ts';

// Provenance: test/fixtures/hami/log-lines.json — each "real" line quoted verbatim from the public
// GitHub thread named in its "source"; "synthetic" lines are built from HAMi-core's format strings
// (HAMi-core src/include/log_utils.h and the files that log) where no public thread quoted them.
interface Expect {
  kind: string;
  level?: string;
  pid?: number;
  source?: string;
  truncatedPrefix?: boolean;
  underflow?: boolean;
  device?: number;
  result?: number;
  variable?: string;
  value?: string;
  object?: string;
}
interface Fixture {
  real: { source: string; line: string; expect: Expect }[];
  synthetic: { source: string; line: string; expect: Expect }[];
  negatives: { source: string; line: string }[];
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/hami/log-lines.json', import.meta.url), 'utf8')) as Fixture;

for (const [group, entries] of [
  ['real', fixture.real],
  ['synthetic', fixture.synthetic],
] as const) {
  for (const { source, line, expect } of entries) {
    test(`hamiLog ${group}: ${source}: ${line.slice(0, 70)}`, () => {
      const parsed = parseHamiLogLine(line);
      assert.ok(parsed, `should parse: ${line}`);
      assert.equal(parsed.line, line, 'keeps the verbatim line');
      assert.equal(parsed.kind, expect.kind);
      if (expect.level !== undefined) assert.equal(parsed.level, expect.level);
      if (expect.pid !== undefined) assert.equal(parsed.pid, expect.pid);
      if (expect.source !== undefined) assert.equal(parsed.source, expect.source);
      assert.equal(parsed.truncatedPrefix, expect.truncatedPrefix ?? false);
      if (expect.underflow !== undefined) assert.equal(parsed.details.underflow, expect.underflow);
      if (expect.device !== undefined) assert.equal(parsed.details.device, expect.device);
      if (expect.result !== undefined) assert.equal(parsed.details.result, expect.result);
      if (expect.variable !== undefined) assert.equal(parsed.details.variable, expect.variable);
      if (expect.value !== undefined) assert.equal(parsed.details.value, expect.value);
      if (expect.object !== undefined) assert.equal(parsed.details.object, expect.object);
    });
  }
}

test('hamiLog: prose and program output are not log lines, but mentions are kept', () => {
  for (const { line } of fixture.negatives) assert.equal(parseHamiLogLine(line), undefined, line);
  const parsed = parseHamiLog(fixture.negatives.map((entry) => entry.line).join('\n'));
  assert.equal(parsed.lines.length, 0);
  assert.deepEqual(parsed.unparsed, [fixture.negatives[0]?.line]);
});

test('hamiLog: a whole stream keeps line numbers and counts kinds', () => {
  const text = ['some app output', ...fixture.real.map((entry) => entry.line), ''].join('\r\n');
  const parsed = parseHamiLog(text);
  assert.equal(parsed.lines.length, fixture.real.length);
  assert.equal(parsed.lines[0]?.lineNumber, 2);
  assert.equal(parsed.lines[0]?.line.endsWith('\r'), false, 'CRLF is stripped');
  assert.equal(parsed.counts['device-oom'], 3);
  assert.equal(parsed.counts['initializing'], 4);
  assert.equal(parsed.counts['preload-failed'], 1);
  assert.ok(
    parsed.lines.some((line) => line.source === 'HAMI-core'),
    'HAMi-core lines, not only the loader',
  );
});

test('hamiLog: the legacy 4pdvGPU token and the upper-case HAMI spelling are matched case-insensitively, the line number never matters', () => {
  const a = parseHamiLogLine('[hami-core Msg(1:2:libvgpu.c:1)]: Initializing.....');
  const b = parseHamiLogLine('[HAMI-core Msg(1:2:libvgpu.c:99999)]: Initializing.....');
  assert.equal(a?.kind, 'initializing');
  assert.equal(b?.kind, 'initializing');
  assert.equal(parseHamiLogLine('[4PDVGPU Info(1:2:x.c:3)]: hello')?.source, '4pdvGPU');
});

test('hamiLog: a loader error alone does not count as HAMi-core being active', () => {
  const parsed = parseHamiLog(
    "ERROR: ld.so: object '/usr/local/vgpu/libvgpu.so' from /etc/ld.so.preload cannot be preloaded (cannot open shared object file): ignored.",
  );
  assert.equal(parsed.lines[0]?.kind, 'preload-failed');
  assert.equal(parsed.lines[0]?.details.reason, 'cannot open shared object file');
  assert.deepEqual(
    parsed.lines.map((line) => line.source),
    ['ld.so'],
  );
});

test('hamiLog: silence parses to nothing (the checklist must treat it as unknown)', () => {
  const parsed = parseHamiLog('');
  assert.equal(parsed.lines.length, 0);
});

test('hamiLog: classifyHamiMessage on bare messages', () => {
  assert.equal(classifyHamiMessage('Device 1 OOM 100 / 50').details.device, 1);
  assert.equal(classifyHamiMessage('Device 0 OOM 18446744073707737660 / 24146608128').details.underflow, true);
  assert.equal(classifyHamiMessage('Device 0 OOM 9223372036854775807 / 1').details.underflow, false, '2^63-1 is still a valid int64');
  assert.equal(classifyHamiMessage('HOST PID NOT FOUND. 1234').kind, 'host-pid-not-found');
  assert.equal(classifyHamiMessage('Illegal device id: 3').kind, 'illegal-device-id');
  assert.equal(classifyHamiMessage('anything else').kind, 'other');
});

test('hamiLog: fuzz — truncations and garbling never throw', () => {
  const all = [...fixture.real, ...fixture.synthetic].map((entry) => entry.line);
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (const line of all) {
    for (let cut = 0; cut <= line.length; cut += 3) {
      parseHamiLogLine(line.slice(0, cut));
      parseHamiLogLine(line.slice(cut));
    }
    for (let i = 0; i < 20; i++) {
      const chars = [...line];
      const at = Math.floor(random() * chars.length);
      chars[at] = String.fromCharCode(Math.floor(random() * 128));
      const parsed = parseHamiLogLine(chars.join(''));
      if (parsed) assert.equal(typeof parsed.kind, 'string');
    }
  }
  const blob = all.join('\n');
  for (let cut = 0; cut < blob.length; cut += 97) assert.ok(Array.isArray(parseHamiLog(blob.slice(0, cut)).lines));
});
