import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { buildProbeScript } from '../../src/core/probe/script.ts';
import {
  HAMI_CACHE_MAGIC,
  HAMI_CACHE_SIZE,
  parseHamiCacheRecord,
  parseHamiCaches,
  uint64,
} from '../../src/core/probe/parsers/hamiCache.ts';
import type { HamiCache } from '../../src/core/probe/parsers/hamiCache.ts';
import { buildHamiCache, CACHE_FILE_SIZE, OFF, SLOT } from './helpers/hamiCacheFile.ts';
import { BUSYBOX, DASH, runArgv } from './helpers/probeRoot.ts';

// Provenance: a real HAMi-core .cache file cannot be had without a GPU node running HAMi, so these
// files are built byte for byte by ./helpers/hamiCacheFile.ts from the layout in
// HAMi-core src/multiprocess/multiprocess_memory_limit.h (offsets for x86-64 glibc),
// then read by the node probe's real `od` commands (busybox od under `busybox sh`, GNU od under dash).

const GiB = 1024n ** 3n;
const MiB = 1024n ** 2n;
const UNDERFLOWED = 18446744073707737660n; // HAMi#1181

let hostRoot = '';
const caches = new Map<string, string>();

function addCache(name: string, file: Buffer): string {
  const dir = join(hostRoot, 'usr/local/vgpu/containers', `0f4c9d3e-1111-4a2b-9c3d-${name.padStart(12, '0').slice(-12)}_main`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.cache`);
  writeFileSync(path, file);
  caches.set(name, path);
  return path;
}

before(() => {
  hostRoot = mkdtempSync(join(tmpdir(), 'gpumem-hami-cache-'));
  addCache(
    'healthy',
    buildHamiCache({
      deviceNum: 1,
      uuids: ['GPU-8dcd1b3e-5c2f-4a4e-9f0b-2f4c7a1d9e10'],
      limits: [4n * GiB],
      smLimits: [50n],
      slots: [
        { pid: 12, hostpid: 34567, status: 1, usedTotal: [1n * GiB], contextSize: 300n * MiB },
        { pid: 40, hostpid: 34600, status: 1, usedTotal: [512n * MiB] },
      ],
    }),
  );
  addCache(
    'underflow',
    buildHamiCache({ deviceNum: 1, limits: [24146608128n], slots: [{ pid: 1, hostpid: 99123, status: 1, usedTotal: [UNDERFLOWED] }] }),
  );
  addCache('badmagic', buildHamiCache({ magic: 0, major: 0, minor: 0, deviceNum: 0, limits: [], slots: [] }));
  addCache(
    'truncated',
    buildHamiCache({
      deviceNum: 2,
      limits: [2n * GiB, 6n * GiB],
      slots: [{ pid: 7, hostpid: 7007, status: 1, usedTotal: [MiB, 2n * MiB] }],
      truncateTo: 3000,
    }),
  );
  addCache(
    'twodev',
    buildHamiCache({
      deviceNum: 2,
      limits: [8n * GiB, 16n * GiB],
      slots: [
        { pid: 9, hostpid: 9009, status: 1, usedTotal: [3n * GiB, 5n * GiB] },
        { pid: 10, hostpid: 0, status: 0, usedTotal: [0n] },
      ],
    }),
  );
});

after(() => {
  if (hostRoot) rmSync(hostRoot, { recursive: true, force: true });
});

test('hamiCache: the builder honours the offsets and size of multiprocess_memory_limit.h', () => {
  const file = buildHamiCache({ deviceNum: 1, limits: [4n * GiB], slots: [{ pid: 12, hostpid: 34567, status: 1, usedTotal: [GiB] }] });
  assert.equal(file.length, 2008953);
  assert.equal(file.length, HAMI_CACHE_SIZE);
  assert.equal(CACHE_FILE_SIZE, HAMI_CACHE_SIZE);
  assert.equal(file.readInt32LE(0), HAMI_CACHE_MAGIC);
  assert.equal(file.readBigUInt64LE(OFF.limit), 4n * GiB);
  assert.equal(file.readInt32LE(OFF.procs + SLOT.hostpid), 34567);
  assert.equal(file.readBigUInt64LE(OFF.procs + 8 + 32), GiB);
  assert.equal(file.readInt32LE(OFF.procs + 1928), 1);
  assert.equal(OFF.procs + 1024 * SLOT.size, OFF.procNum, 'procs[1024] ends where proc_num starts');
});

async function probeCaches(shell: readonly string[]): Promise<Map<string, HamiCache>> {
  const nonce = 'c0ffee00c0ffee00c0ffee00';
  const script = buildProbeScript({ scope: 'node', nonce, hostRoot });
  const run = await runArgv(shell, script, {}, 120000);
  assert.equal(run.code, 0, run.stderr);
  const capture = parseCapture(run.stdout);
  assert.ok(capture.complete, capture.problems.join('; '));
  const section = capture.sections.get('hami.caches');
  assert.ok(section?.complete, 'hami.caches section complete');
  const byName = new Map<string, HamiCache>();
  for (const cache of parseHamiCaches(capture)) {
    const name = [...caches.entries()].find(([, path]) => path === cache.path)?.[0];
    assert.ok(name, `unexpected cache ${cache.path}`);
    byName.set(name, cache);
  }
  assert.equal(byName.size, caches.size);
  return byName;
}

const shells: [string, readonly string[] | undefined][] = [
  ['dash (GNU od)', DASH ? [DASH, '-s'] : undefined],
  ['busybox sh (busybox od)', BUSYBOX ? [BUSYBOX, 'sh', '-s'] : undefined],
];

for (const [label, argv] of shells) {
  test(
    `hamiCache: the node probe's od reads decode byte-exact caches under ${label}`,
    { skip: argv ? false : `${label} is not installed` },
    async () => {
      const parsed = await probeCaches(argv ?? []);

      const healthy = parsed.get('healthy');
      assert.ok(healthy);
      assert.equal(healthy.sizeBytes, 2008953);
      assert.equal(healthy.magic, 19920718);
      assert.equal(healthy.magicOk, true);
      assert.equal(healthy.majorVersion, 1);
      assert.equal(healthy.minorVersion, 2);
      assert.equal(healthy.deviceNum, 1);
      assert.equal(healthy.limits.length, 16);
      assert.equal(healthy.limits[0]?.value, 4 * 1024 ** 3);
      // Fifteen zero limits: without `od -v` they collapse into '*' and would be unknown.
      assert.deepEqual(
        healthy.limits.slice(1).map((limit) => limit?.value),
        new Array(15).fill(0),
      );
      assert.equal(healthy.procNum, 2);
      assert.equal(healthy.slots.length, 16);
      assert.deepEqual(
        healthy.liveSlots.map((slot) => [slot.pid, slot.hostPid, slot.status, slot.used?.value]),
        [
          [12, 34567, 1, 1024 ** 3],
          [40, 34600, 1, 512 * 1024 ** 2],
        ],
      );
      assert.deepEqual(healthy.problems, []);

      const underflow = parsed.get('underflow');
      assert.equal(underflow?.slots[0]?.used?.raw, '18446744073707737660');
      assert.equal(underflow?.slots[0]?.used?.underflow, true);
      assert.ok(underflow?.problems.some((problem) => /underflowed \(HAMi#1181\)/.test(problem)));

      const bad = parsed.get('badmagic');
      assert.equal(bad?.magicOk, false);
      assert.equal(bad?.magic, 0);
      assert.ok(bad?.problems.some((problem) => /bad magic 0/.test(problem)));

      const truncated = parsed.get('truncated');
      assert.equal(truncated?.sizeBytes, 3000);
      assert.equal(truncated?.magicOk, true);
      assert.deepEqual(
        truncated?.limits.slice(0, 2).map((limit) => limit?.value),
        [2 * 1024 ** 3, 6 * 1024 ** 3],
      );
      assert.equal(truncated?.procNum, undefined, 'proc_num lies past the end');
      assert.equal(truncated?.slots[0]?.pid, 7, 'slot 0 starts at 1856, inside 3000 bytes');
      assert.equal(truncated?.slots[0]?.status, undefined, 'its status at 1856+1928 = 3784 is past the end');
      assert.equal(truncated?.slots[5]?.pid, undefined);
      assert.ok(truncated?.problems.some((problem) => /size 3000 ≠ 2008953/.test(problem)));

      const twodev = parsed.get('twodev');
      assert.equal(twodev?.deviceNum, 2);
      assert.deepEqual(
        twodev?.limits.slice(0, 2).map((limit) => limit?.value),
        [8 * 1024 ** 3, 16 * 1024 ** 3],
      );
      assert.deepEqual(
        twodev?.liveSlots.map((slot) => slot.pid),
        [9],
        'the status-0 slot is dead',
      );
      assert.equal(twodev?.slots[0]?.used?.value, 3 * 1024 ** 3, 'used= is device 0');
    },
  );
}

test('hamiCache: od without -v collapses repeated lines to "*", which is reported, not misread', () => {
  const cache = parseHamiCacheRecord(
    '/usr/local/vgpu/x.cache',
    [
      'size=2008953',
      'header= 19920718 1 2 0 ',
      'device_num=1',
      'limits= 4294967296 0 0 0 * ',
      'proc_num=1',
      'slot0= 12 34567 status=1 used=1073741824',
    ].join('\n'),
  );
  assert.equal(cache.limits[0]?.value, 4294967296);
  assert.equal(cache.limits[4], undefined);
  assert.ok(cache.problems.some((problem) => /collapsed/.test(problem)));
});

test('hamiCache: od missing on the target, and an empty file', () => {
  const none = parseHamiCacheRecord('/a.cache', 'size=2008953\nod-missing\n');
  assert.equal(none.odMissing, true);
  assert.equal(none.magicOk, undefined);
  assert.ok(none.problems.some((problem) => /od is missing/.test(problem)));
  const empty = parseHamiCacheRecord('/b.cache', 'size=0\nheader=\ndevice_num=\nlimits=\nproc_num=\nslot0=status= used=\n');
  assert.ok(empty.problems.some((problem) => /empty/.test(problem)));
  assert.equal(empty.slots[0]?.pid, undefined);
});

test('hamiCache: uint64 keeps exact text and flags wrapped counters', () => {
  assert.equal(uint64('18446744073709551615')?.underflow, true);
  assert.equal(uint64('9223372036854775807')?.underflow, false);
  assert.equal(uint64('9223372036854775807')?.implausible, true);
  assert.equal(uint64('18446744073709551616'), undefined, 'past 2^64');
  assert.equal(uint64('-1'), undefined);
  assert.equal(uint64('4294967296')?.value, 4294967296);
});

test('hamiCache: fuzz — truncated and garbled records never throw', () => {
  const text = [
    'size=2008953',
    'header= 19920718 1 2 0 ',
    'device_num=1',
    `limits= ${['4294967296', ...new Array(15).fill('0')].join(' ')} `,
    'proc_num=2',
    'slot0= 12 34567 status=1 used=1073741824',
    'slot1= 40 34600 status=1 used=18446744073707737660',
  ].join('\n');
  for (let cut = 0; cut <= text.length; cut++) {
    const cache = parseHamiCacheRecord('/f.cache', text.slice(0, cut));
    assert.equal(cache.limits.length, 16);
    parseHamiCacheRecord(
      '/g.cache',
      text
        .slice(cut)
        .replace(/\d/g, (d) => String((Number(d) * 7) % 10))
        .replace(/=/g, cut % 2 === 0 ? '=' : ' '),
    );
  }
});
