// Defect class 2 of issue 17: one bounded parser for kernel and cgroup numbers. Digit strings of any length
// used to go through Number(): a 400-digit MemTotal became Infinity ("at least Infinity B", JSON null).
// Now a value is a value, "unlimited", or a problem naming the file and field, in every parser and in the analysis.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { buildNodeModel } from '../../src/core/probe/nodeModel.ts';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { parseDrmCards } from '../../src/core/probe/parsers/drm.ts';
import { aggregateFdinfo, parseMemoryValue } from '../../src/core/probe/parsers/fdinfo.ts';
import { parseHamiCacheRecord } from '../../src/core/probe/parsers/hamiCache.ts';
import type { NumberProblem } from '../../src/core/probe/parsers/kernelNumber.ts';
import { parseBoundedNumber, parseKernelNumber, UNLIMITED_SENTINELS } from '../../src/core/probe/parsers/kernelNumber.ts';
import { parseCgroupValue, v1Limit } from '../../src/core/probe/parsers/cgroupMemory.ts';
import { parseDmem } from '../../src/core/probe/parsers/cgroupDmem.ts';
import { parseKeyNumber } from '../../src/core/probe/parsers/keyValue.ts';
import { parseMeminfo } from '../../src/core/probe/parsers/meminfo.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { nodeCapture, GiB, STRIX_HALO } from './helpers/nodeCapture.ts';

const at = { file: '/proc/meminfo', field: 'MemTotal' };
const HUGE = '9'.repeat(400);

describe('parseKernelNumber', () => {
  test('decimal digits, kB, leading zeros; bounded length', () => {
    assert.deepEqual(parseKernelNumber('123\n', at), { kind: 'value', value: 123 });
    assert.deepEqual(parseKernelNumber('  0042 ', at), { kind: 'value', value: 42 });
    assert.deepEqual(parseKernelNumber('16 kB', at, { units: { kB: 1024 } }), { kind: 'value', value: 16384 });
    assert.deepEqual(parseKernelNumber('16', at, { unit: 'kB' }), { kind: 'value', value: 16384 });
    assert.deepEqual(
      parseKernelNumber(`${'0'.repeat(1000)}7`, at),
      { kind: 'value', value: 7 },
      'leading zeros do not count towards the bound',
    );
    assert.deepEqual(parseKernelNumber(String(Number.MAX_SAFE_INTEGER), at), { kind: 'value', value: Number.MAX_SAFE_INTEGER });
  });

  test('out of range is a problem naming the file and field, never Infinity', () => {
    for (const text of [HUGE, '18446744073709551616', String(2 ** 53 + 2), '9007199254740992']) {
      const parsed = parseKernelNumber(text, at);
      assert.equal(parsed.kind, 'problem', text.slice(0, 30));
      if (parsed.kind === 'problem') {
        assert.equal(parsed.problem.file, '/proc/meminfo');
        assert.equal(parsed.problem.field, 'MemTotal');
        assert.ok(parsed.problem.text.length <= 41, 'the quoted text is bounded');
      }
    }
    // In bytes after the kB multiplier.
    assert.equal(parseKernelNumber(String(2 ** 50), at, { unit: 'kB' }).kind, 'problem');
  });

  test('negative values are refused unless the counter is signed', () => {
    assert.equal(parseKernelNumber('-5', at).kind, 'problem');
    assert.deepEqual(parseKernelNumber('-5', at, { signed: true }), { kind: 'value', value: -5 });
    assert.deepEqual(parseKernelNumber('-0', at), { kind: 'value', value: 0 });
  });

  test('max and the u64 "unlimited" sentinels, only where asked for', () => {
    assert.deepEqual(parseKernelNumber('max\n', at, { allowMax: true }), { kind: 'unlimited', text: 'max' });
    assert.equal(parseKernelNumber('max', at).kind, 'problem');
    // PAGE_COUNTER_MAX * PAGE_SIZE (include/linux/page_counter.h) for 4, 16 and 64 KiB pages, LONG_MAX, ULLONG_MAX.
    assert.deepEqual([...UNLIMITED_SENTINELS].sort(), [
      '18446744073709551615',
      '9223372036854710272',
      '9223372036854759424',
      '9223372036854771712',
      '9223372036854775807',
    ]);
    for (const sentinel of UNLIMITED_SENTINELS) {
      assert.deepEqual(parseKernelNumber(`${sentinel}\n`, at, { allowSentinels: true }), { kind: 'unlimited', text: sentinel });
      assert.equal(parseKernelNumber(sentinel, at).kind, 'problem', 'a sentinel is no count');
    }
    assert.equal(
      parseKernelNumber('9223372036854771713', at, { allowSentinels: true }).kind,
      'problem',
      'near a sentinel is still out of range',
    );
  });

  test('trailing text: refused by default; with firstToken the first integer token counts, unknown units are not misread', () => {
    assert.equal(parseKernelNumber('123 # set by hand', at).kind, 'problem');
    assert.deepEqual(parseKernelNumber('123 # set by hand', at, { firstToken: true }), { kind: 'value', value: 123 });
    assert.deepEqual(parseKernelNumber('123# set by hand', at, { firstToken: true }), { kind: 'value', value: 123 });
    assert.deepEqual(parseKernelNumber('8 KiB (amdgpu)', at, { firstToken: true, units: { KiB: 1024 } }), { kind: 'value', value: 8192 });
    for (const bad of ['8192 kB', '12 MB', '1.5', '0x10', '1e6', '12abc', 'lots', '']) {
      assert.equal(parseKernelNumber(bad, at, { firstToken: true, units: { KiB: 1024 } }).kind, 'problem', bad);
    }
  });

  test('a megabyte of digits or blanks: a problem, and the first token (how the cost grows: bench/growth.mjs)', () => {
    assert.equal(parseKernelNumber('1'.repeat(1 << 20), at).kind, 'problem');
    assert.equal(parseKernelNumber(`1${' '.repeat(1 << 20)}(x)`, at, { firstToken: true }).kind, 'value');
  });

  test('parseBoundedNumber with a sign and a fraction (nvidia-smi cells)', () => {
    const decimal = { signed: true, fraction: true } as const;
    assert.equal(parseBoundedNumber('250.00', decimal), 250);
    assert.equal(parseBoundedNumber('-5', decimal), -5);
    for (const bad of [HUGE, `1.${HUGE}`, '1e309', 'Infinity', '', '1.'])
      assert.equal(parseBoundedNumber(bad, decimal), undefined, bad.slice(0, 20));
  });

  test('parseBoundedNumber: a sign or a fraction only when asked, leading zeros free, -0 is 0', () => {
    assert.equal(parseBoundedNumber('-1000', { signed: true }), -1000);
    assert.equal(parseBoundedNumber('-1000'), undefined);
    assert.equal(parseBoundedNumber('2.5'), undefined);
    assert.equal(parseBoundedNumber('2.5', { signed: true }), undefined);
    assert.equal(parseBoundedNumber('2.5', { fraction: true }), 2.5);
    assert.equal(parseBoundedNumber('-2.5', { fraction: true }), undefined);
    assert.equal(parseBoundedNumber(`${'0'.repeat(400)}42`), 42);
    assert.ok(Object.is(parseBoundedNumber('-0', { signed: true }), 0));
    for (const bad of ['+1', '-', '--1', '1-', ' 1', '1 ', '0x10', '1_000', '-9007199254740992'])
      assert.equal(parseBoundedNumber(bad, { signed: true, fraction: true }), undefined, bad);
  });

  test('parseBoundedNumber: a megabyte of digits is refused (how the cost grows: bench/growth.mjs)', () => {
    assert.equal(parseBoundedNumber('1'.repeat(1 << 20), { signed: true, fraction: true }), undefined);
    assert.equal(parseBoundedNumber(`1.${'0'.repeat(1 << 20)}`, { fraction: true }), undefined);
  });
});

describe('every probe parser reads numbers through it', () => {
  const sink = (file: string, problems: NumberProblem[]) => ({ file, problems });

  test('meminfo, vmstat/memory.stat/memory.events, cgroup single values, v1 limits, dmem', () => {
    const problems: NumberProblem[] = [];
    const meminfo = parseMeminfo(`MemTotal: ${HUGE} kB\nMemFree: 16 kB\nGPUReclaim: -5 kB\n`, sink('/proc/meminfo', problems));
    assert.deepEqual([...meminfo], [['MemFree', 16384]]);
    const events = parseKeyNumber(`oom 1\noom_kill ${HUGE}\nmax -3\n`, sink('/x/memory.events', problems));
    assert.deepEqual([...events], [['oom', 1]]);
    assert.equal(parseCgroupValue(`${HUGE}\n`, sink('/x/memory.current', problems)), undefined);
    assert.deepEqual(v1Limit('9223372036854771712\n'), { kind: 'max' });
    assert.equal(v1Limit(HUGE, sink('/x/memory.limit_in_bytes', problems)), undefined);
    assert.deepEqual(
      [...parseDmem(`drm/0000:c5:00.0/vram ${HUGE}\ndrm/0000:c5:00.0/vram0 max\n`, sink('/x/dmem.max', problems))],
      [['drm/0000:c5:00.0/vram0', { kind: 'max' }]],
    );
    assert.deepEqual(
      problems.map((p) => `${p.file} ${p.field}`),
      [
        '/proc/meminfo MemTotal',
        '/proc/meminfo GPUReclaim',
        '/x/memory.events oom_kill',
        '/x/memory.events max',
        '/x/memory.current memory.current',
        '/x/memory.limit_in_bytes memory.limit_in_bytes',
        '/x/dmem.max drm/0000:c5:00.0/vram',
      ],
    );
  });

  test('DRM sysfs, fdinfo and HAMi cache sizes', () => {
    const problems: NumberProblem[] = [];
    const [card] = parseDrmCards(
      new Map([
        ['/sys/class/drm/card1/device/mem_info_gtt_used', `${HUGE}\n`],
        ['/sys/class/drm/card1/device/mem_info_gtt_total', '103079215104 # 96 GiB, copied by hand\n'],
      ]),
      problems,
    );
    assert.equal(card?.gttUsed, undefined);
    assert.equal(card?.gttTotal, 96 * GiB);
    assert.equal(parseMemoryValue(`${HUGE} KiB`), undefined);
    const processes = aggregateFdinfo(
      new Map([['/proc/9/fdinfo/4', `drm-driver:\tamdgpu\ndrm-resident-gtt:\t${HUGE} KiB\ndrm-resident-vram:\t4 KiB\n`]]),
      problems,
    );
    assert.deepEqual([...(processes[0]?.byRegion ?? [])], [['vram', 4096]]);
    const cache = parseHamiCacheRecord('/tmp/vgpu/x.cache', `size=${HUGE}\ndevice_num=1\n`);
    assert.equal(cache.sizeBytes, undefined);
    assert.ok(
      cache.problems.some((p) => p.includes('/tmp/vgpu/x.cache') && p.includes('size') && !p.includes('Infinity')),
      cache.problems.join('\n'),
    );
    assert.deepEqual(
      problems.map((p) => `${p.file} ${p.field}`),
      ['/sys/class/drm/card1/device/mem_info_gtt_used mem_info_gtt_used', '/proc/9/fdinfo/4 drm-resident-gtt'],
    );
  });
});

describe('through the analysis: a problem naming file and field, never Infinity, never null', () => {
  const base = nodeCapture({
    kernel: '7.1.0-39-generic',
    memTotal: 128 * GiB,
    gpuActive: 40 * GiB,
    gpus: [STRIX_HALO],
    pods: [
      {
        uid: '0b5f7c1e-2a3d-4e5f-8a9b-0c1d2e3f4a5b',
        current: 20 * GiB,
        max: 64 * GiB,
        processes: [{ pid: 4242, comm: 'python3', fds: [{ fd: 5, client: '11', gtt: 30 * GiB }] }],
      },
    ],
  });
  const hostile = base.replace(/MemTotal:\s+\d+ kB/, `MemTotal: ${HUGE} kB`).replace(/(memory\.current@@\n)\d+/, `$1${HUGE}`);

  test('the capture really carries the hostile values', () => {
    assert.notEqual(hostile, base);
    assert.ok(hostile.includes(`MemTotal: ${HUGE} kB`));
    assert.ok(hostile.includes(`memory.current@@\n${HUGE}`));
  });

  test('model: the values are absent and named in problems', () => {
    const model = buildNodeModel(parseCapture(hostile));
    assert.equal(model.meminfo.has('MemTotal'), false);
    assert.ok(
      model.problems.some((p) => p.startsWith('/proc/meminfo: MemTotal ') && /beyond any 64-bit counter/.test(p)),
      model.problems.join('\n'),
    );
    assert.ok(
      model.problems.some((p) => /kubepods.*\/memory\.current: "9{40}…" is not used/.test(p)),
      model.problems.join('\n'),
    );
  });

  test('text, Markdown, JSON and the view model: no Infinity, no NaN, no null byte counts', () => {
    const inspection = analyzeCaptureText(hostile, { target: 'node-a' });
    const text = inspectionToText(inspection);
    const markdown = inspectionToMarkdown(inspection);
    const json = JSON.stringify(inspectionToJson(inspection));
    const view = JSON.stringify(buildInspectorViewModel(inspection));
    for (const [name, out] of [
      ['text', text],
      ['markdown', markdown],
      ['json', json],
      ['view model', view],
    ] as const) {
      assert.doesNotMatch(out, /Infinity|NaN/, name);
    }
    assert.match(text, /MemTotal/);
    assert.match(markdown, /MemTotal/);
    assert.match(json, /\/proc\/meminfo: MemTotal/);
  });
});

test('parseKernelNumber: the Number fast path of 15 digits or fewer agrees with exact BigInt arithmetic, units included', () => {
  const units = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
  const digits = fc.oneof(
    fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }).map(String),
    // Around 2^53 once scaled: the boundary where the fast path must give up.
    fc.constantFrom('9007199254740991', '9007199254740992', '8796093022207', '8796093022208', '8388607', '8388608', '000000000000012'),
  );
  fc.assert(
    fc.property(digits, fc.constantFrom('', ' KiB', ' MiB', ' GiB'), fc.boolean(), (number, unit, signed) => {
      const text = `${signed ? '-' : ''}${number}${unit}`;
      const got = parseKernelNumber(text, { file: 'f', field: 'x' }, { units, signed: true });
      const multiplier = BigInt(unit === '' ? 1 : units[unit.trim() as keyof typeof units]);
      const exact = BigInt(number) * multiplier;
      if (exact > BigInt(Number.MAX_SAFE_INTEGER)) assert.equal(got.kind, 'problem', text);
      else {
        assert.equal(got.kind, 'value', text);
        assert.equal(got.kind === 'value' ? got.value : undefined, Number(signed && exact !== 0n ? -exact : exact), text);
      }
    }),
    { seed: 20261204, numRuns: 5000 },
  );
});
