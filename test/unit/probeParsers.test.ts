// The node probe's parsers on real outputs, the capture format and the script builder.
//
// Provenance of every fixture is given beside it:
// - this machine: /proc/meminfo, /proc/vmstat, /proc/self/cgroup, the v1 root memory.stat, memory.limit_in_bytes
//   and memory.oom_control, and /etc/os-release, saved under test/fixtures/proc/ (README.md there names the
//   machine and kernel) and, on any Linux machine, also read live with expectations computed independently;
// - the kernel: Documentation/admin-guide/cgroup-v2.rst (dmem examples), the xe driver's fdinfo example that
//   Documentation/gpu/drm-usage-stats.rst links to (drivers/gpu/drm/xe/xe_drm_client.c, "DRM Client usage
//   stats"), amdgpu_fdinfo.c's format strings;
// - public threads quoting real output: Umio-Yasuno/amdgpu_top#87 and Syllo/nvtop#492 (amdgpu fdinfo),
//   nokyan/resources#417 and #408 (non-DRM fdinfo), Ricks-Lab/gpu-utils#118 and #152 (amdgpu sysfs);
// - the Kubernetes docs (KubeletConfiguration example, "Reserve Compute Resources" scenario) and containerd's
//   docs/cri/config.md (config v2 and v3).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { release } from 'node:os';
import { parseCapture, sectionFiles, sectionText } from '../../src/core/probe/capture.ts';
import { buildNodeModel } from '../../src/core/probe/nodeModel.ts';
import { parseDrmCards, parseModuleParams } from '../../src/core/probe/parsers/drm.ts';
import { aggregateFdinfo, cgroupOf, parseFdinfo, parseMemoryValue } from '../../src/core/probe/parsers/fdinfo.ts';
import type { NumberProblem } from '../../src/core/probe/parsers/kernelNumber.ts';
import { parseCgroupValue, v1Limit } from '../../src/core/probe/parsers/cgroupMemory.ts';
import { parseDmem } from '../../src/core/probe/parsers/cgroupDmem.ts';
import { kernelAtLeast, parseKernelVersion, parseKeyEquals, parseKeyNumber } from '../../src/core/probe/parsers/keyValue.ts';
import { parseMeminfo } from '../../src/core/probe/parsers/meminfo.ts';
import { parseContainerdDefaultRuntime, parseKubeletReservations } from '../../src/core/probe/parsers/nodeConfig.ts';
import { cgroupPathFromProcCgroup, parsePodCgroup } from '../../src/core/probe/podCgroup.ts';
import { buildProbeScript, newNonce } from '../../src/core/probe/script.ts';
import { captureText, NONCE } from './helpers/captureText.ts';

const KiB = 1024;
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const FIXTURES = new URL('../fixtures/proc/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');
const LINUX = process.platform === 'linux';

/** A live file of the machine running the tests, or undefined when it does not exist or cannot be read. */
function live(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------------
// This machine (test/fixtures/proc/README.md: host `vm`, Debian 12, kernel 6.18.44-fc-v595, cgroup hybrid)

describe('this machine: /proc/meminfo', () => {
  test('the saved copy: every key, kB as bytes, keys with parentheses, unit-less counts', () => {
    const meminfo = parseMeminfo(fixture('meminfo'));
    assert.equal(meminfo.size, 54);
    assert.equal(meminfo.get('MemTotal'), 24684096 * KiB);
    assert.equal(meminfo.get('MemAvailable'), 23007828 * KiB);
    assert.equal(meminfo.get('Active(anon)'), 1696 * KiB);
    assert.equal(meminfo.get('Inactive(file)'), 950732 * KiB);
    assert.equal(meminfo.get('VmallocTotal'), 34359738367 * KiB);
    assert.equal(meminfo.get('HugePages_Total'), 0, 'a count, not kB');
    assert.equal(meminfo.get('Hugepagesize'), 2048 * KiB);
    assert.equal(meminfo.has('GPUActive'), false, '6.18 predates the 7.1 GPUActive counter');
  });

  test('7.1+ lines and per-node meminfo (`Node 0 GPUActive:`) are read the same way', () => {
    // The 7.1 keys (commit 2232ba9c7931, "mm: add gpu active/reclaim per-node stat counters") appended to
    // this machine's meminfo, and the per-node file's "Node N " prefix.
    const meminfo = parseMeminfo(`${fixture('meminfo')}GPUActive:      41943040 kB\nGPUReclaim:        65536 kB\n`);
    assert.equal(meminfo.get('GPUActive'), 40 * GiB);
    assert.equal(meminfo.get('GPUReclaim'), 64 * MiB);
    const node = parseMeminfo('Node 0 MemTotal:       24684096 kB\nNode 0 GPUActive:        1024 kB\n');
    assert.deepEqual(
      [...node],
      [
        ['MemTotal', 24684096 * KiB],
        ['GPUActive', MiB],
      ],
    );
  });

  test(
    'the live file: one entry per line, with the values an independent split gives',
    { skip: live('/proc/meminfo') === undefined && 'no /proc/meminfo' },
    () => {
      const text = live('/proc/meminfo') ?? '';
      const expected = new Map<string, number>();
      for (const line of text.split('\n').filter(Boolean)) {
        const [key = '', rest = ''] = line.split(':');
        const [number = '', unit] = rest.trim().split(/\s+/);
        expected.set(key, Number(number) * (unit === 'kB' ? 1024 : 1));
      }
      assert.ok(expected.size > 20);
      assert.deepEqual(parseMeminfo(text), expected);
    },
  );
});

describe('this machine: /proc/vmstat', () => {
  test('the saved copy: 192 counters, oom_kill 0, no GPU page counters', () => {
    const vmstat = parseKeyNumber(fixture('vmstat'));
    assert.equal(vmstat.size, 192);
    assert.equal(vmstat.get('oom_kill'), 0);
    assert.equal(vmstat.get('nr_free_pages') !== undefined && vmstat.get('nr_free_pages')! > 0, true);
    assert.equal(vmstat.has('nr_gpu_active'), false);
  });

  test('the live file: every `key value` line, as split by hand', { skip: live('/proc/vmstat') === undefined && 'no /proc/vmstat' }, () => {
    const text = live('/proc/vmstat') ?? '';
    const expected = new Map(
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [key = '', value = ''] = line.split(' ');
          return [key, Number(value)] as const;
        }),
    );
    assert.ok(expected.has('oom_kill'));
    assert.deepEqual(parseKeyNumber(text), expected);
  });
});

describe('this machine: /proc/self/cgroup (hybrid)', () => {
  const saved = fixture('self-cgroup');

  test('the saved copy: the memory controller line, not the bare `0::/` line of the empty v2 hierarchy', () => {
    assert.equal(saved.split('\n').at(-2), '0::/');
    assert.equal(cgroupOf(saved), '/process_api/cc7592553fdad3fefd6b137cb913a3ad');
    assert.equal(cgroupPathFromProcCgroup(saved), '/process_api/cc7592553fdad3fefd6b137cb913a3ad');
    assert.equal(parsePodCgroup(cgroupOf(saved) ?? ''), undefined, 'not a pod');
  });

  test(
    'the live file: the path an independent reading of the lines gives',
    { skip: live('/proc/self/cgroup') === undefined && 'no /proc/self/cgroup' },
    () => {
      const lines = (live('/proc/self/cgroup') ?? '')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [id = '', controllers = '', ...path] = line.split(':');
          return { id, controllers: controllers.split(','), path: path.join(':') };
        });
      const unified = lines.find((line) => line.id === '0' && line.controllers.join('') === '')?.path;
      const memory = lines.find((line) => line.controllers.includes('memory'))?.path;
      // v2: the 0:: line; v1: the memory line; hybrid: the 0:: line unless it is just `/`.
      const expected = unified === undefined ? memory : memory === undefined || unified !== '/' ? unified : memory;
      assert.equal(cgroupOf(live('/proc/self/cgroup') ?? ''), expected);
    },
  );

  test('a hybrid node with the cgroupfs driver: the pod comes from the memory line (the v2 line is `/`)', () => {
    // The layout of this machine with a kubelet on it (cgroupfs driver): the v1 memory controller places the
    // process in the pod, the v2 hierarchy does not.
    const text = saved.replace(
      '/process_api/cc7592553fdad3fefd6b137cb913a3ad',
      '/kubepods/burstable/pod0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f/0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
    );
    assert.equal(parsePodCgroup(cgroupOf(text) ?? '')?.podUid, '0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f');
  });
});

describe('this machine: cgroup v1 memory files', () => {
  test('memory.stat (v1 root): every key; hierarchical_memory_limit is v1\'s "no limit"', () => {
    const stat = parseKeyNumber(fixture('memory.stat'), undefined, { allowSentinels: true });
    assert.equal(stat.size, 40, 'every key but the two "no limit" sentinels, which are no counts');
    assert.equal(stat.has('hierarchical_memory_limit'), false);
    assert.equal(stat.has('hierarchical_memsw_limit'), false);
    assert.equal(stat.get('total_rss'), 1094594560);
    assert.equal(stat.get('unevictable'), 22114304);
    const line =
      fixture('memory.stat')
        .split('\n')
        .find((l) => l.startsWith('hierarchical_memory_limit ')) ?? '';
    assert.deepEqual(v1Limit(line.split(' ')[1]), { kind: 'max' });
    // Read as a plain counter it is out of range: left out, and named.
    const problems: NumberProblem[] = [];
    assert.equal(
      parseKeyNumber(fixture('memory.stat'), { file: '/sys/fs/cgroup/memory/memory.stat', problems }).has('hierarchical_memory_limit'),
      false,
    );
    assert.deepEqual(
      problems.map((p) => p.field),
      ['hierarchical_memory_limit', 'hierarchical_memsw_limit'],
    );
    assert.ok(problems.every((p) => p.file === '/sys/fs/cgroup/memory/memory.stat' && p.text === '9223372036854771712'));
  });

  test('memory.limit_in_bytes: 9223372036854771712 is out of range to parseCgroupValue and "max" to v1Limit', () => {
    const text = fixture('memory.limit_in_bytes');
    assert.equal(text, '9223372036854771712\n');
    // Not a v2 value: beyond 2^53, so never passed on as a rounded byte count.
    assert.equal(parseCgroupValue(text), undefined);
    assert.deepEqual(v1Limit(text), { kind: 'max' });
  });

  test('memory.oom_control: the v1 counters', () => {
    assert.deepEqual(
      [...parseKeyNumber(fixture('memory.oom_control'))],
      [
        ['oom_kill_disable', 0],
        ['under_oom', 0],
        ['oom_kill', 0],
      ],
    );
  });

  test('the live memory.stat (v1 root, or v2 root): every `key value` line', { skip: !LINUX && 'not Linux' }, (t) => {
    const text = live('/sys/fs/cgroup/memory/memory.stat') ?? live('/sys/fs/cgroup/memory.stat');
    if (text === undefined) {
      t.skip('no root memory.stat');
      return;
    }
    // Every line but v1's "no limit" sentinels (hierarchical_memory_limit and _memsw_limit), which are no counts.
    const expected = new Map(
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.split(' ')[0] ?? '', Number(line.split(' ')[1])] as const)
        .filter(([, value]) => Number.isSafeInteger(value)),
    );
    assert.deepEqual(parseKeyNumber(text, undefined, { allowSentinels: true }), expected);
  });

  test('os-release: quoted and unquoted values', () => {
    const os = parseKeyEquals(fixture('os-release'));
    assert.equal(os.get('PRETTY_NAME'), 'Debian GNU/Linux 12 (bookworm)');
    assert.equal(os.get('VERSION_CODENAME'), 'bookworm');
    assert.equal(os.get('HOME_URL'), 'https://www.debian.org/');
    assert.equal(os.size, 9);
  });
});

// ------------------------------------------------------------------------------------------------
// Kernel versions, cgroup modes, cgroup values

describe('kernel versions', () => {
  test("Ubuntu and this machine's custom kernel", () => {
    assert.deepEqual(parseKernelVersion('7.1.0-39-generic'), { major: 7, minor: 1, patch: 0 });
    assert.deepEqual(parseKernelVersion('6.18.44-fc-v595'), { major: 6, minor: 18, patch: 44 });
    assert.deepEqual(parseKernelVersion('7.3'), { major: 7, minor: 3, patch: 0 });
    assert.deepEqual(parseKernelVersion(' 6.15.0-rc2\n'), { major: 6, minor: 15, patch: 0 });
    for (const bad of [undefined, '', 'Linux', 'v7.1', '7', 'x.y.z']) assert.equal(parseKernelVersion(bad), undefined, String(bad));
  });

  test('kernelAtLeast compares major then minor', () => {
    const v618 = parseKernelVersion('6.18.44-fc-v595');
    const v71 = parseKernelVersion('7.1.0-39-generic');
    const v73 = parseKernelVersion('7.3.0');
    assert.equal(kernelAtLeast(v618, 7, 1), false, '6.18 < 7.1 although 18 > 1');
    assert.equal(kernelAtLeast(v71, 7, 1), true);
    assert.equal(kernelAtLeast(v71, 7, 3), false);
    assert.equal(kernelAtLeast(v73, 7, 1), true);
    assert.equal(kernelAtLeast(undefined, 7, 1), undefined);
  });

  test('the running kernel (`uname -r`) parses to its own leading numbers', () => {
    const [major, minor] = release().split('.');
    assert.deepEqual(parseKernelVersion(release())?.major, Number(major));
    assert.deepEqual(parseKernelVersion(release())?.minor, Number(minor?.replace(/\D.*$/, '')));
  });
});

describe('cgroup mode and kernel from a capture', () => {
  const capture = (mode: string | undefined, kernel = '6.18.44-fc-v595') =>
    parseCapture(
      captureText('node', {
        meta: `hostname=gpu-node-1\nkernel=${kernel}\n`,
        proc: { files: [['/proc/meminfo', 'MemTotal:       24684096 kB\n']] },
        ...(mode !== undefined ? { 'cgroup.mode': mode } : {}),
      }),
    );

  for (const mode of ['v2', 'v1', 'hybrid'] as const) {
    test(`${mode}`, () => assert.equal(buildNodeModel(capture(`${mode}\n`)).cgroupMode, mode));
  }
  test('a stray line before the mode does not hide it', () =>
    assert.equal(buildNodeModel(capture('sh: 1: warning\nhybrid\n')).cgroupMode, 'hybrid'));
  test('an unknown word, garbage or no section: unknown', () => {
    assert.equal(buildNodeModel(capture('v3\n')).cgroupMode, 'unknown');
    assert.equal(buildNodeModel(capture('\u0000\u0001hybridish\n')).cgroupMode, 'unknown');
    assert.equal(buildNodeModel(capture(undefined)).cgroupMode, 'unknown');
  });
  test('the kernel release from meta, parsed', () => {
    const model = buildNodeModel(capture('v2\n', '7.1.0-39-generic'));
    assert.equal(model.kernel, '7.1.0-39-generic');
    assert.deepEqual(model.kernelVersion, { major: 7, minor: 1, patch: 0 });
    assert.equal(model.hostname, 'gpu-node-1');
    assert.equal(model.meminfo.get('MemTotal'), 24684096 * KiB);
  });
});

describe('cgroup values and v1 "no limit"', () => {
  test('v1 "no limit" is PAGE_COUNTER_MAX × page size: 4 KiB (x86-64, this machine) and 64 KiB pages', () => {
    assert.deepEqual(v1Limit('9223372036854771712\n'), { kind: 'max' });
    assert.deepEqual(v1Limit('9223372036854710272\n'), { kind: 'max' });
    assert.deepEqual(v1Limit('9223372036854775807\n'), { kind: 'max' }, 'LONG_MAX (old kernels)');
    assert.deepEqual(v1Limit('536870912\n'), { kind: 'bytes', bytes: 512 * MiB });
    assert.deepEqual(v1Limit('max'), { kind: 'max' });
  });

  test('v2 single values: bytes, max; everything else is unreadable, not zero', () => {
    assert.deepEqual(parseCgroupValue('8589934592\n'), { kind: 'bytes', bytes: 8 * GiB });
    assert.deepEqual(parseCgroupValue('max\n'), { kind: 'max' });
    assert.deepEqual(parseCgroupValue('0\n'), { kind: 'bytes', bytes: 0 });
    for (const bad of [undefined, '', '\n', '-1', 'max 100000', 'gpumem: permission denied\n', '12abc', '1.5G']) {
      assert.equal(parseCgroupValue(bad), undefined, JSON.stringify(bad));
      assert.equal(v1Limit(bad), undefined, JSON.stringify(bad));
    }
  });

  test('memory.events (cgroup-v2.rst keys): unknown keys kept, garbage lines skipped', () => {
    const events = parseKeyNumber(
      'low 0\nhigh 0\nmax 12\noom 3\noom_kill 5\noom_group_kill 0\nsock_throttled 0\noom_kill\nmax two\n1 2 3\n\u0000\u0007garbage\noom_kill 6 7\n',
    );
    assert.deepEqual(
      [...events],
      [
        ['low', 0],
        ['high', 0],
        ['max', 12],
        ['oom', 3],
        ['oom_kill', 5],
        ['oom_group_kill', 0],
        ['sock_throttled', 0],
      ],
    );
  });
});

describe('dmem files (Documentation/admin-guide/cgroup-v2.rst, "DMEM Interface Files")', () => {
  test('dmem.capacity, the xe example', () => {
    const capacity = parseDmem('drm/0000:03:00.0/vram0 8514437120\ndrm/0000:03:00.0/stolen 67108864\n');
    assert.deepEqual(
      [...capacity],
      [
        ['drm/0000:03:00.0/vram0', { kind: 'bytes', bytes: 8514437120 }],
        ['drm/0000:03:00.0/stolen', { kind: 'bytes', bytes: 67108864 }],
      ],
    );
  });

  test('dmem.max, the xe example: bytes and `max`', () => {
    const max = parseDmem('drm/0000:03:00.0/vram0 1073741824\ndrm/0000:03:00.0/stolen max\n');
    assert.deepEqual(max.get('drm/0000:03:00.0/vram0'), { kind: 'bytes', bytes: GiB });
    assert.deepEqual(max.get('drm/0000:03:00.0/stolen'), { kind: 'max' });
  });

  test("dmem.current, the xe example, and amdgpu's single `vram` region", () => {
    assert.deepEqual(parseDmem('drm/0000:03:00.0/vram0 12550144\ndrm/0000:03:00.0/stolen 8650752\n').get('drm/0000:03:00.0/stolen'), {
      kind: 'bytes',
      bytes: 8650752,
    });
    // amdgpu registers one region per device, `drm/<pci slot>/vram` (drmm_cgroup_register_region in drivers/gpu/drm/drm_drv.c).
    assert.deepEqual([...parseDmem('drm/0000:c5:00.0/vram 536870912\n').keys()], ['drm/0000:c5:00.0/vram']);
  });

  test('lines of other shapes are skipped, not misread: events counters, garbage, empty', () => {
    // dmem.events as proposed on the cgroups list ("cgroup/dmem: add per-region event counters").
    assert.equal(parseDmem('drm/0000:03:00.0/vram0 low 0 max 3\n').size, 0);
    assert.equal(parseDmem('gpumem: permission denied\n').size, 0);
    assert.equal(parseDmem('drm/0000:03:00.0/vram0\n\n 12 \n-5 x\n').size, 0);
    assert.equal(parseDmem(undefined).size, 0);
    assert.equal(parseDmem('').size, 0);
  });
});

// ------------------------------------------------------------------------------------------------
// DRM fdinfo (Documentation/gpu/drm-usage-stats.rst)

// The xe driver's example, the one drm-usage-stats.rst points to for a driver implementation
// (torvalds/linux drivers/gpu/drm/xe/xe_drm_client.c, "DOC: DRM Client usage stats"). Tabs as in the source.
const XE_EXAMPLE =
  [
    'pos:    0',
    'flags:  0100002',
    'mnt_id: 26',
    'ino:    685',
    'drm-driver:     xe',
    'drm-client-id:  3',
    'drm-pdev:       0000:03:00.0',
    'drm-total-system:       0',
    'drm-shared-system:      0',
    'drm-active-system:      0',
    'drm-resident-system:    0',
    'drm-purgeable-system:   0',
    'drm-total-gtt:  192 KiB',
    'drm-shared-gtt: 0',
    'drm-active-gtt: 0',
    'drm-resident-gtt:       192 KiB',
    'drm-total-vram0:        23992 KiB',
    'drm-shared-vram0:       16 MiB',
    'drm-active-vram0:       0',
    'drm-resident-vram0:     23992 KiB',
    'drm-total-stolen:       0',
    'drm-shared-stolen:      0',
    'drm-active-stolen:      0',
    'drm-resident-stolen:    0',
    'drm-cycles-rcs: 28257900',
    'drm-total-cycles-rcs:   7655183225',
    'drm-cycles-bcs: 0',
    'drm-total-cycles-bcs:   7655183225',
    'drm-cycles-vcs: 0',
    'drm-total-cycles-vcs:   7655183225',
    'drm-engine-capacity-vcs:        2',
    'drm-cycles-vecs:        0',
    'drm-total-cycles-vecs:  7655183225',
    'drm-engine-capacity-vecs:       2',
    'drm-cycles-ccs: 0',
    'drm-total-cycles-ccs:   7655183225',
    'drm-engine-capacity-ccs:        4',
  ].join('\n') + '\n';

// Real amdgpu output, older kernel (only the legacy drm-memory-* keys): Umio-Yasuno/amdgpu_top#87,
// `cat /proc/2217/fdinfo/99` (2024-06-05). The poster's annotation after the engine line is removed.
const AMDGPU_TOP_87 = `pos:    0
flags:  02104002
mnt_id: 24
ino:    614
pasid:  32784
drm-driver:     amdgpu
drm-pdev:       0000:08:00.0
drm-client-id:  217
drm-memory-vram:        2068 KiB
drm-memory-gtt:         8192 KiB
drm-memory-cpu:         0 KiB
drm-engine-gfx: 107322799 ns
`;

// Real amdgpu output on an APU with a 24 GB model loaded (Radeon 890M, gfx1150, kernel 6.18):
// Syllo/nvtop#492, `grep drm-memory /proc/<pid>/fdinfo/7` — a grep, so there is no drm-driver line.
const NVTOP_492_GREP = `drm-memory-cpu:         0 KiB
drm-memory-gtt:  25258000 KiB
drm-memory-vram:     5348 KiB
`;

// Current amdgpu (torvalds/linux amdgpu_fdinfo.c): drm_print_memory_stats() prints drm-total/-shared/-resident/
// -purgeable per region with drm_fdinfo_print_size()'s units (bytes, " KiB", " MiB"), then the legacy
// aliases as `"drm-memory-gtt: \t%llu KiB"` (note the space before the tab), then amd-* keys. Values made up
// for a Strix Halo pod; the key order and spacing are the kernel's.
const AMDGPU_CURRENT =
  [
    'pos:\t0',
    'flags:\t02100002',
    'mnt_id:\t26',
    'ino:\t1073',
    'drm-driver:\tamdgpu',
    'drm-client-id:\t4181',
    'drm-pdev:\t0000:c5:00.0',
    'pasid:\t32790',
    'drm-total-cpu:\t0',
    'drm-shared-cpu:\t0',
    'drm-resident-cpu:\t0',
    'drm-purgeable-cpu:\t0',
    'drm-total-gtt:\t30 GiB',
    'drm-shared-gtt:\t0',
    'drm-resident-gtt:\t30720 MiB',
    'drm-purgeable-gtt:\t0',
    'drm-total-vram:\t512 MiB',
    'drm-shared-vram:\t16 MiB',
    'drm-resident-vram:\t524288 KiB',
    'drm-purgeable-vram:\t0',
    'drm-memory-vram:\t524288 KiB',
    'drm-memory-gtt: \t31457280 KiB',
    'drm-memory-cpu: \t0 KiB',
    'amd-evicted-vram:\t0 KiB',
    'amd-requested-vram:\t524288 KiB',
    'amd-requested-gtt:\t31457280 KiB',
    'drm-engine-gfx:\t1871234567 ns',
    'drm-engine-compute:\t99182736450 ns',
  ].join('\n') + '\n';

// Non-DRM fdinfo, real: an eventpoll fd (nokyan/resources#417, `/proc/332010/fdinfo/13`) and a dma-buf
// exported by DRM (nokyan/resources#408, `/proc/812/fdinfo/101`): `exp_name: drm` is not a DRM client.
const EVENTPOLL_417 = `pos:\t0
flags:\t02000002
mnt_id:\t17
ino:\t2083
tfd:       20 events:       19 data:               14  pos:0 ino:19b201 sdev:9
tfd:        4 events:       19 data:                4  pos:0 ino:200cc3 sdev:9
`;
const DMABUF_408 = `pos:\t0
flags:\t02000000
mnt_id:\t10
ino:\t180
size:\t16384
count:\t10
exp_name:\tdrm
`;

describe('DRM fdinfo: one file', () => {
  test('the xe example: identification, resident and total per region, engine counters are not regions', () => {
    const client = parseFdinfo(XE_EXAMPLE);
    assert.equal(client.driver, 'xe');
    assert.equal(client.clientId, '3');
    assert.equal(client.pdev, '0000:03:00.0');
    assert.deepEqual(Object.fromEntries(client.resident), { system: 0, gtt: 192 * KiB, vram0: 23992 * KiB, stolen: 0 });
    assert.deepEqual(
      Object.fromEntries(client.total),
      { system: 0, gtt: 192 * KiB, vram0: 23992 * KiB, stolen: 0 },
      'drm-total-cycles-<engine> is not a memory region',
    );
  });

  test('amdgpu_top#87 (real, legacy keys only): drm-memory-* is read as resident, in KiB', () => {
    const client = parseFdinfo(AMDGPU_TOP_87);
    assert.equal(client.driver, 'amdgpu');
    assert.equal(client.clientId, '217');
    assert.equal(client.pdev, '0000:08:00.0');
    assert.deepEqual(Object.fromEntries(client.resident), { vram: 2068 * KiB, gtt: 8192 * KiB, cpu: 0 });
    assert.equal(client.total.size, 0);
  });

  test('nvtop#492 (real, 24 GB of GTT on a gfx1150 APU): the figures parse; no drm-driver, still a client (issue 17, class 8)', () => {
    const client = parseFdinfo(NVTOP_492_GREP);
    assert.equal(client.resident.get('gtt'), 25258000 * KiB);
    assert.equal(client.resident.get('vram'), 5348 * KiB);
    assert.equal(client.driver, undefined);
    const [process, ...rest] = aggregateFdinfo(new Map([['/proc/7/fdinfo/7', NVTOP_492_GREP]]));
    assert.deepEqual(rest, []);
    assert.equal(process?.pid, 7);
    assert.equal(process?.byRegion.get('gtt'), 25258000 * KiB);
  });

  test('a `grep drm-memory /proc/*/fdinfo/*` dump (issue 17, class 8): one client per path, trailing text ignored, no driver needed', () => {
    // grep prefixes each line with its file when given several; NVTOP_492_GREP's lines, spread over two fds
    // of one process and one of another, with text after the unit as a hand-annotated ticket has it.
    const dump = [
      '/proc/4242/fdinfo/7:drm-memory-gtt:  25258000 KiB',
      '/proc/4242/fdinfo/7:drm-memory-vram:     5348 KiB   (model weights)',
      '/proc/4242/fdinfo/9:drm-memory-gtt:  1024 KiB',
      '/proc/77/fdinfo/5:drm-memory-gtt:  2048 KiB # second process',
      '',
    ].join('\n');
    const problems: NumberProblem[] = [];
    const out = aggregateFdinfo(
      new Map([
        ['/proc/4242/comm', 'ollama\n'],
        ['grep-dump', dump],
      ]),
      problems,
    );
    assert.equal(problems.length, 0);
    assert.deepEqual(
      out.map((p) => [p.pid, p.comm, p.clients.length, Object.fromEntries(p.byRegion)]),
      [
        [77, undefined, 1, { gtt: 2048 * KiB }],
        [4242, 'ollama', 2, { gtt: (25258000 + 1024) * KiB, vram: 5348 * KiB }],
      ],
    );
    // A value with an unknown unit after it is a problem, not a misread number.
    aggregateFdinfo(new Map([['/proc/1/fdinfo/3', 'drm-memory-gtt:\t8192 kB\n']]), problems);
    assert.deepEqual(
      problems.map((p) => [p.file, p.field]),
      [['/proc/1/fdinfo/3', 'drm-memory-gtt']],
    );
  });

  test('current amdgpu: drm-resident-* wins over the deprecated drm-memory-* alias, counted once; " \\t" spacing', () => {
    const client = parseFdinfo(AMDGPU_CURRENT);
    assert.deepEqual(Object.fromEntries(client.resident), { cpu: 0, gtt: 30 * GiB, vram: 512 * MiB });
    assert.deepEqual(Object.fromEntries(client.total), { cpu: 0, gtt: 30 * GiB, vram: 512 * MiB });
    // The alias alone (the legacy line with its space before the tab) still counts.
    assert.equal(parseFdinfo('drm-driver:\tamdgpu\ndrm-memory-gtt: \t8192 KiB\n').resident.get('gtt'), 8 * MiB);
    // When both are present the standard key wins whatever the order and values.
    assert.equal(parseFdinfo('drm-memory-gtt:\t1 MiB\ndrm-resident-gtt:\t2 MiB\n').resident.get('gtt'), 2 * MiB);
    assert.equal(parseFdinfo('drm-resident-gtt:\t2 MiB\ndrm-memory-gtt:\t1 MiB\n').resident.get('gtt'), 2 * MiB);
  });

  test('units: bare bytes, KiB, MiB (and GiB); anything else is ignored rather than misread', () => {
    assert.equal(parseMemoryValue('0'), 0);
    assert.equal(parseMemoryValue('4096'), 4096);
    assert.equal(parseMemoryValue('192 KiB'), 192 * KiB);
    assert.equal(parseMemoryValue('16 MiB'), 16 * MiB);
    assert.equal(parseMemoryValue('2 GiB'), 2 * GiB);
    assert.equal(parseMemoryValue('  8192 KiB  '), 8 * MiB);
    for (const bad of ['', 'KiB', '8192 kB', '12 MB', '-5', '1.5 MiB', '8192 Ki', 'lots', '0x1000', '1e6'])
      assert.equal(parseMemoryValue(bad), undefined, bad);
  });

  test('non-DRM fdinfo (eventpoll, a DRM-exported dma-buf) has no driver and is skipped by the sweep', () => {
    assert.equal(parseFdinfo(EVENTPOLL_417).driver, undefined);
    assert.equal(parseFdinfo(DMABUF_408).driver, undefined);
    assert.equal(parseFdinfo(DMABUF_408).resident.size, 0);
    assert.deepEqual(
      aggregateFdinfo(
        new Map([
          ['/proc/332010/fdinfo/13', EVENTPOLL_417],
          ['/proc/812/fdinfo/101', DMABUF_408],
          ['/proc/812/comm', 'labwc\n'],
        ]),
      ),
      [],
    );
  });

  test('a file cut anywhere never throws; a value cut inside its unit is dropped; no driver and no memory key, no client', () => {
    for (let end = 0; end <= AMDGPU_CURRENT.length; end++) {
      const cut = AMDGPU_CURRENT.slice(0, end);
      const client = parseFdinfo(cut);
      // A client is kept once it has a driver line or any readable memory key (a grep keeps only those).
      const isClient = /drm-driver:\t\S/.test(cut) || client.resident.size > 0 || client.total.size > 0;
      assert.equal(aggregateFdinfo(new Map([['/proc/1/fdinfo/5', cut]])).length, isClient ? 1 : 0, `cut at ${end}`);
      if (!/drm-(total|resident|memory)-/.test(cut)) assert.equal(isClient, /drm-driver:\t\S/.test(cut), `cut at ${end}`);
      for (const [region, bytes] of client.resident)
        assert.ok(Number.isSafeInteger(bytes) && bytes >= 0, `cut at ${end}: ${region} ${bytes}`);
    }
    assert.equal(parseFdinfo('drm-driver:\tamdgpu\ndrm-memory-gtt: \t8192 Ki').resident.has('gtt'), false);
  });

  test('garbage lines around real keys are skipped', () => {
    const client = parseFdinfo(
      `\u0000\u0001\u00ff binary\n:\t5\nno colon here\ndrm-resident-gtt: lots\ndrm-resident-: 5\n${AMDGPU_TOP_87}drm-resident-vram0\n\ndrm-memory-gds: -1 KiB\n`,
    );
    assert.deepEqual(Object.fromEntries(client.resident), { vram: 2068 * KiB, gtt: 8192 * KiB, cpu: 0 });
    assert.equal(client.driver, 'amdgpu');
  });
});

describe('DRM fdinfo: the sweep (aggregateFdinfo)', () => {
  const HYBRID_POD =
    '12:memory:/kubepods/burstable/pod0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f/0a1b2c3d4e5f\n1:name=systemd:/kubepods/burstable/pod0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f/0a1b2c3d4e5f\n0::/\n';
  const V2_POD =
    '0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod9b2f5c1e_6a7d_4e8f_9a0b_1c2d3e4f5a6b.slice/cri-containerd-5a3b59fe9ec39a4a92b23fc61ec7c870d7f50692c812d28310fbbf4d5591476b.scope\n';

  test("dup'ed fds of one client count once; the same client id on another device is another client", () => {
    const records = new Map([
      ['/proc/4242/comm', 'llama-server\n'],
      ['/proc/4242/cgroup', V2_POD],
      ['/proc/4242/fdinfo/7', AMDGPU_CURRENT],
      ['/proc/4242/fdinfo/8', AMDGPU_CURRENT],
      ['/proc/4242/fdinfo/9', AMDGPU_CURRENT.replace('drm-pdev:\t0000:c5:00.0', 'drm-pdev:\t0000:c6:00.0')],
    ]);
    const [process, ...rest] = aggregateFdinfo(records);
    assert.deepEqual(rest, []);
    assert.ok(process);
    assert.equal(process.pid, 4242);
    assert.equal(process.comm, 'llama-server');
    assert.equal(parsePodCgroup(process.cgroup ?? '')?.podUid, '9b2f5c1e-6a7d-4e8f-9a0b-1c2d3e4f5a6b');
    assert.equal(process.clients.length, 2, 'fd 7 and fd 8 are one drm_file');
    assert.equal(process.byRegion.get('gtt'), 2 * 30 * GiB);
  });

  test('fds without drm-client-id are counted per fd; processes with no DRM client are left out', () => {
    const noId = 'drm-driver:\tamdgpu\ndrm-memory-gtt:\t1 MiB\n';
    const out = aggregateFdinfo(
      new Map([
        ['/proc/20/fdinfo/3', noId],
        ['/proc/20/fdinfo/4', noId],
        ['/proc/10/fdinfo/3', AMDGPU_TOP_87],
        ['/proc/30/comm', 'bash\n'],
        ['/proc/30/fdinfo/0', EVENTPOLL_417],
      ]),
    );
    assert.deepEqual(
      out.map((p) => [p.pid, p.clients.length, p.byRegion.get('gtt')]),
      [
        [10, 1, 8 * MiB],
        [20, 2, 2 * MiB],
      ],
    );
  });

  test('a hybrid cgroupfs node: the pod comes from the memory controller line, not from `0::/`', () => {
    const [process] = aggregateFdinfo(
      new Map([
        ['/proc/77/cgroup', HYBRID_POD],
        ['/proc/77/fdinfo/5', AMDGPU_TOP_87],
      ]),
    );
    assert.equal(parsePodCgroup(process?.cgroup ?? '')?.podUid, '0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f');
  });

  test('paths under a host root (`/host/proc/…`) and unrelated records are handled', () => {
    const out = aggregateFdinfo(
      new Map([
        ['/host/proc/5/fdinfo/3', AMDGPU_TOP_87],
        ['/host/proc/5/comm', 'ollama\n'],
        ['/host/proc/5/status', 'Name: ollama\n'],
        ['/host/proc/self/fdinfo/3', AMDGPU_TOP_87],
        ['not a path', AMDGPU_TOP_87],
      ]),
    );
    assert.deepEqual(
      out.map((p) => [p.pid, p.comm]),
      [[5, 'ollama']],
    );
  });
});

// ------------------------------------------------------------------------------------------------
// DRM sysfs and module parameters

describe('amdgpu sysfs (/sys/class/drm/cardN/device) and module parameters', () => {
  test('real values: an RX 570 (Ricks-Lab/gpu-utils#118) and an APU (gpu-utils#152); connectors ignored', () => {
    const cards = parseDrmCards(
      new Map([
        ['/sys/class/drm/card1/device/vendor', '0x1002\n'],
        ['/sys/class/drm/card1/device/device', '0x67DF\n'],
        ['/sys/class/drm/card1/device/mem_info_gtt_total', '4294967296\n'],
        ['/sys/class/drm/card1/device/mem_info_vram_total', '4294967296\n'],
        ['/sys/class/drm/card1/device/driver-name', 'amdgpu\n'],
        ['/sys/class/drm/card0/device/vendor', '0x1002\n'],
        ['/sys/class/drm/card0/device/revision', '0xc4\n'],
        ['/sys/class/drm/card0/device/mem_info_vis_vram_total', '536870912\n'],
        ['/sys/class/drm/card0/device/mem_info_gtt_used', '1051754496\n'],
        ['/sys/class/drm/card0/device/mem_info_vram_used', 'gpumem: permission denied\n'],
        ['/sys/class/drm/card1-HDMI-A-1/status', 'connected\n'],
        ['/sys/class/drm/card10/device/vendor', '0x10de\n'],
      ]),
    );
    assert.deepEqual(
      cards.map((card) => card.card),
      ['card0', 'card1', 'card10'],
      'numeric order',
    );
    const [apu, rx570] = cards;
    assert.equal(rx570?.deviceId, '0x67df', 'lower-cased');
    assert.equal(rx570?.gttTotal, 4 * GiB);
    assert.equal(rx570?.vramTotal, 4 * GiB);
    assert.equal(rx570?.driver, 'amdgpu');
    assert.equal(apu?.visVramTotal, 512 * MiB);
    assert.equal(apu?.gttUsed, 1051754496);
    assert.equal(apu?.vramUsed, undefined, 'not a number');
    assert.equal(apu?.gttTotal, undefined, 'absent');
  });

  test('ttm.pages_limit (noamsto/nix-amd-ai#42: 25165824 pages = 96 GiB of GTT) and amdgpu.gttsize', () => {
    const params = parseModuleParams(
      new Map([
        ['/sys/module/ttm/parameters/pages_limit', '25165824\n'],
        ['/sys/module/ttm/parameters/page_pool_size', '25165824\n'],
        ['/sys/module/amdgpu/parameters/gttsize', '-1\n'],
        ['/host/sys/module/amdttm/parameters/pages_limit', '25165824\n'],
        ['/sys/module/amdgpu/holders/x', '1\n'],
      ]),
    );
    assert.equal(Number(params.get('ttm')?.get('pages_limit')) * 4096, 96 * GiB);
    assert.equal(params.get('amdgpu')?.get('gttsize'), '-1');
    assert.equal(params.get('amdttm')?.get('pages_limit'), '25165824');
    assert.deepEqual([...params.keys()].sort(), ['amdgpu', 'amdttm', 'ttm']);
  });
});

// ------------------------------------------------------------------------------------------------
// Kubelet and containerd configuration

// https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ ("Create the config file").
const KUBELET_DOCS_EXAMPLE = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: "192.168.0.8"
port: 20250
serializeImagePulls: false
evictionHard:
    memory.available:  "100Mi"
    nodefs.available:  "10%"
    nodefs.inodesFree: "5%"
    imagefs.available: "15%"
    imagefs.inodesFree: "5%"
`;
// https://kubernetes.io/docs/tasks/administer-cluster/reserve-compute-resources/ ("Example Scenario":
// kubeReserved {cpu: 1000m, memory: 2Gi, ephemeral-storage: 1Gi}, systemReserved {cpu: 500m, memory: 1Gi,
// ephemeral-storage: 1Gi}, evictionHard memory.available 500Mi), as a config file and as flags.
const KUBELET_SCENARIO = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
kubeReserved:
  cpu: 1000m
  memory: 2Gi
  ephemeral-storage: 1Gi
systemReserved:
  cpu: 500m
  memory: 1Gi
  ephemeral-storage: 1Gi
evictionHard:
  memory.available: "500Mi"
  nodefs.available: "10%"
`;
// /proc/<pid>/cmdline with NULs turned into spaces, as the probe prints it.
const KUBELET_SCENARIO_FLAGS =
  '/usr/bin/kubelet --kube-reserved=cpu=1,memory=2Gi,ephemeral-storage=1Gi --system-reserved=cpu=500m,memory=1Gi,ephemeral-storage=1Gi --eviction-hard=memory.available<500Mi,nodefs.available<10% --kube-reserved-cgroup=/kube.slice ';

describe('kubelet memory reservations', () => {
  test("the docs' config file example: only evictionHard", () => {
    assert.deepEqual(parseKubeletReservations(KUBELET_DOCS_EXAMPLE, undefined), {
      systemReserved: undefined,
      kubeReserved: undefined,
      evictionHard: '100Mi',
      source: 'kubelet config',
    });
  });

  test("the docs' scenario, as a config file and as flags, gives the same bytes", () => {
    const expected = { systemReserved: GiB, kubeReserved: 2 * GiB, evictionHard: '500Mi' };
    assert.deepEqual(parseKubeletReservations(KUBELET_SCENARIO, undefined), { ...expected, source: 'kubelet config' });
    assert.deepEqual(parseKubeletReservations(undefined, KUBELET_SCENARIO_FLAGS), { ...expected, source: 'kubelet command line' });
  });

  test("a flag overrides the config file's value, field by field (kubelet precedence)", () => {
    const both = parseKubeletReservations(
      KUBELET_SCENARIO,
      '/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml --system-reserved=memory=3Gi ',
    );
    assert.deepEqual(both, {
      systemReserved: 3 * GiB,
      kubeReserved: 2 * GiB,
      evictionHard: '500Mi',
      source: 'kubelet config and command line',
    });
  });

  test("an unreadable config (the probe's permission-denied line), garbage or a non-mapping falls back to the flags", () => {
    for (const config of ['gpumem: permission denied\n', '::: [not yaml', 'just a sentence\n', '- a\n- list\n']) {
      assert.deepEqual(
        parseKubeletReservations(config, KUBELET_SCENARIO_FLAGS),
        { systemReserved: GiB, kubeReserved: 2 * GiB, evictionHard: '500Mi', source: 'kubelet command line' },
        config,
      );
    }
    assert.equal(parseKubeletReservations(undefined, undefined), undefined);
    assert.equal(parseKubeletReservations('', ''), undefined);
  });
});

// containerd docs/cri/config.md, "Runtime classes" (config v2, containerd 1.x) and "Full configuration" (v3).
const CONTAINERD_V2 = `version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "crun"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]
    # crun: https://github.com/containers/crun
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]
      runtime_type = "io.containerd.runc.v2"
`;
const CONTAINERD_V3 = `version = 3

[plugins]
  [plugins.'io.containerd.cri.v1.runtime']
    enable_cdi = true
    cdi_spec_dirs = ['/etc/cdi', '/var/run/cdi']

    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'
      ignore_blockio_not_enabled_errors = false

      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes]
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
          runtime_type = 'io.containerd.runc.v2'
`;
// A drop-in in the shape `nvidia-ctk runtime configure --runtime=containerd --set-as-default` writes for
// containerd 2.x (config v3, imported from conf.d); not verbatim.
const NVIDIA_DROP_IN = `version = 3
[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "nvidia"
  [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia.options]
      BinaryName = "/usr/bin/nvidia-container-runtime"
`;

describe('containerd default runtime', () => {
  test('config v2 (double quotes) and v3 (single quotes)', () => {
    assert.deepEqual(parseContainerdDefaultRuntime(new Map([['/etc/containerd/config.toml', CONTAINERD_V2]])), {
      runtime: 'crun',
      file: '/etc/containerd/config.toml',
      line: 'default_runtime_name = "crun"',
    });
    assert.equal(parseContainerdDefaultRuntime(new Map([['/etc/containerd/config.toml', CONTAINERD_V3]]))?.runtime, 'runc');
  });

  test('a conf.d drop-in imported after config.toml overrides it (containerd merges imports last)', () => {
    const found = parseContainerdDefaultRuntime(
      new Map([
        ['/etc/containerd/config.toml', CONTAINERD_V3],
        ['/etc/containerd/conf.d/99-nvidia.toml', NVIDIA_DROP_IN],
      ]),
    );
    assert.deepEqual(found, { runtime: 'nvidia', file: '/etc/containerd/conf.d/99-nvidia.toml', line: 'default_runtime_name = "nvidia"' });
  });

  test('comments and other keys do not count; no setting at all is undefined', () => {
    const commented = '#   default_runtime_name = "nvidia"\n# default_runtime_name = "nvidia"\ndefault_runtime = "x"\n';
    assert.equal(parseContainerdDefaultRuntime(new Map([['/etc/containerd/config.toml', commented]])), undefined);
    assert.equal(parseContainerdDefaultRuntime(new Map()), undefined);
  });
});

// ------------------------------------------------------------------------------------------------
// The capture format

describe('capture parsing', () => {
  test('a complete capture: sections, file records, rc, missing', () => {
    const capture = parseCapture(
      captureText('node', {
        meta: 'hostname=n1\nkernel=7.1.0-39-generic\n',
        proc: {
          files: [
            ['/proc/meminfo', 'MemTotal: 1 kB\n'],
            ['/proc/vmstat', 'oom_kill 2\n'],
          ],
        },
        'nvidia-smi.gpu': { missing: ['nvidia-smi'] },
        dmesg: { body: 'line one\n', rc: 1 },
      }),
    );
    assert.equal(capture.complete, true);
    assert.equal(capture.scope, 'node');
    assert.equal(capture.version, 1);
    assert.deepEqual(capture.problems, []);
    assert.equal(sectionText(capture, 'meta'), 'hostname=n1\nkernel=7.1.0-39-generic\n');
    assert.deepEqual(
      [...sectionFiles(capture, 'proc')],
      [
        ['/proc/meminfo', 'MemTotal: 1 kB\n'],
        ['/proc/vmstat', 'oom_kill 2\n'],
      ],
    );
    assert.equal(sectionText(capture, 'proc', '/proc/vmstat'), 'oom_kill 2\n');
    assert.deepEqual(capture.sections.get('nvidia-smi.gpu')?.missing, ['nvidia-smi']);
    assert.equal(capture.sections.get('dmesg')?.rc, 1);
    assert.equal(sectionText(capture, 'absent'), undefined);
  });

  test('files read by one head: split back as onefile records them; a cut last line dropped; other headers only end a file', () => {
    // nodeScript.ts: head -c <max> <files>… /dev/null prints "==> path <==" before each file and a newline before
    // each header but the first, so a file that ended in a newline is followed by an empty line.
    const dir = '/sys/fs/cgroup/kubepods.slice/kubepods-pod1.slice';
    const heads = [
      `==> ${dir}/memory.current <==`,
      '5368709120',
      '',
      `==> ${dir}/cgroup.subtree_control <==`,
      '',
      `==> ${dir}/memory.stat <==`,
      'anon 1',
      '==> /sys/fs/cgroup/other/memory.max <==',
      'file 2',
      '',
      `==> ${dir}/memory.max <==`,
      'max',
      '',
      '==> /dev/null <==',
    ].join('\n');
    // fdinfo: paths relative to <root>/proc, batches (each ending in /dev/null) one after another, a file cut at
    // 64 bytes mid-value and one whose header has no end after it (a capture cut short).
    const cut = 'drm-driver:\tamdgpu\ndrm-client-id:\t3\ndrm-memory-gtt: \t20';
    const fdinfo = [
      '==> 77/cgroup <==',
      '0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab.scope',
      '',
      '==> 77/fdinfo/5 <==',
      `${cut}${'x'.repeat(64 - cut.length)}`,
      '==> ../1/comm <==',
      'ignored',
      '',
      '==> /dev/null <==',
      '==> 78/comm <==',
      'sleep',
      '',
      '==> /dev/null <==',
      '==> 79/comm <==',
      'no end',
    ].join('\n');
    const capture = parseCapture(
      captureText('node', {
        'cgroup.kubepods': { files: [[`${dir}/.gpumem-heads-262144`, heads]] },
        fdinfo: { files: [['/host/proc/.gpumem-heads-64', fdinfo]] },
      }),
    );
    assert.deepEqual(
      [...sectionFiles(capture, 'cgroup.kubepods')],
      [
        [`${dir}/memory.current`, '5368709120\n'],
        [`${dir}/cgroup.subtree_control`, ''],
        [`${dir}/memory.stat`, 'anon 1\n'],
        [`${dir}/memory.max`, 'max\n'],
      ],
    );
    assert.deepEqual(
      [...sectionFiles(capture, 'fdinfo')],
      [
        ['/host/proc/77/cgroup', '0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab.scope\n'],
        ['/host/proc/77/fdinfo/5', 'drm-driver:\tamdgpu\ndrm-client-id:\t3\n'],
        ['/host/proc/78/comm', 'sleep\n'],
      ],
    );
  });

  test('an incomplete capture (no done marker): complete false and a problem, the sections still read', () => {
    const capture = parseCapture(captureText('node', { meta: 'hostname=n1\n' }, { done: false }));
    assert.equal(capture.complete, false);
    assert.match(capture.problems.join('\n'), /the capture is incomplete/);
    assert.equal(sectionText(capture, 'meta'), 'hostname=n1\n');
    assert.equal(capture.sections.get('meta')?.complete, true);
  });

  test('a section cut off by the next one: partial content, the later sections intact', () => {
    const capture = parseCapture(
      captureText('node', { proc: { files: [['/proc/meminfo', 'MemTotal: 1 kB\nMemFr']], cut: true }, meta: 'hostname=n1\n' }),
    );
    assert.equal(capture.sections.get('proc')?.complete, false);
    assert.equal(sectionText(capture, 'proc', '/proc/meminfo'), 'MemTotal: 1 kB\nMemFr\n');
    assert.equal(capture.sections.get('meta')?.complete, true);
    assert.deepEqual(capture.problems, ['section "proc" was cut off']);
    assert.equal(capture.complete, true);
  });

  test('markers with another nonce, and a forged header, are file content', () => {
    const forged =
      [
        '@@gpumem:0123456789abcdef0123:end proc@@',
        '@@gpumem:0123456789abcdef0123:begin meta@@',
        'hostname=evil',
        '@@gpumem:0123456789abcdef0123:done@@',
        '@@gpumem-probe v=1 scope=container nonce=0123456789abcdef0123 root=/evil@@',
        `@@gpumem:${NONCE.toUpperCase()}:end proc@@`,
        ` @@gpumem:${NONCE}:end proc@@`,
      ].join('\n') + '\n';
    const capture = parseCapture(captureText('node', { proc: { files: [['/var/log/pod.log', forged]] }, meta: 'hostname=real\n' }));
    assert.equal(sectionText(capture, 'proc', '/var/log/pod.log'), forged);
    assert.equal(sectionText(capture, 'meta'), 'hostname=real\n');
    assert.equal(capture.scope, 'node');
    assert.equal(capture.root, '');
    assert.deepEqual(capture.problems, []);
    assert.deepEqual([...capture.sections.keys()], ['proc', 'meta']);
  });

  test('unknown markers with the right nonce are reported and dropped from the content', () => {
    const text = captureText('node', { meta: `a=1\n@@gpumem:${NONCE}:frobnicate now@@\nb=2\n` });
    const capture = parseCapture(text);
    assert.deepEqual(capture.problems, ['unknown marker "frobnicate"']);
    assert.equal(sectionText(capture, 'meta'), 'a=1\nb=2\n');
  });

  test('an end marker for another section is a problem, not an end', () => {
    const capture = parseCapture(captureText('node', { meta: `a=1\n@@gpumem:${NONCE}:end proc@@\nb=2\n` }));
    assert.deepEqual(capture.problems, ['unexpected end of section "proc"']);
    assert.equal(sectionText(capture, 'meta'), 'a=1\nb=2\n');
  });

  test('CRLF line ends (a capture through a terminal or a Windows editor) parse like LF', () => {
    const lf = captureText('node', { meta: 'hostname=n1\n', proc: { files: [['/proc/meminfo', 'MemTotal: 1 kB\n']] } });
    const crlf = parseCapture(lf.replace(/\n/g, '\r\n'));
    const expected = parseCapture(lf);
    assert.equal(crlf.complete, true);
    assert.deepEqual(crlf.problems, []);
    assert.deepEqual([...crlf.sections], [...expected.sections]);
  });

  test('no header: not a capture; text before the header (a login banner) is ignored', () => {
    const none = parseCapture('Welcome to Ubuntu\nhello\n');
    assert.equal(none.scope, undefined);
    assert.deepEqual(none.problems, ['not a gpumem probe capture (no header line)']);
    assert.equal(parseCapture('').scope, undefined);
    const banner = parseCapture(`Last login: Mon\n${captureText('container', { meta: 'uid=0\n' })}`);
    assert.equal(banner.scope, 'container');
    assert.deepEqual(banner.problems, []);
  });

  test('a newer format version is read with a problem; an unknown scope is undefined', () => {
    const v2 = parseCapture(captureText('node', { meta: 'a=1\n' }).replace('v=1', 'v=2'));
    assert.equal(v2.version, 2);
    assert.match(v2.problems[0] ?? '', /v2 is newer/);
    assert.equal(sectionText(v2, 'meta'), 'a=1\n');
    assert.equal(parseCapture(captureText('node', {}).replace('scope=node', 'scope=cluster')).scope, undefined);
  });

  test('cut at every byte: never throws, complete only once the done marker is whole', () => {
    const text = captureText('node', {
      meta: 'hostname=n1\n',
      proc: { files: [['/proc/meminfo', 'MemTotal: 1 kB\n']] },
      'cgroup.mode': 'v2\n',
    });
    const done = text.lastIndexOf('@@gpumem:');
    for (let end = 0; end <= text.length; end++) {
      const capture = parseCapture(text.slice(0, end));
      assert.equal(capture.complete, end >= text.length - 1, `cut at ${end} (done marker at ${done})`);
      if (!capture.complete && capture.scope !== undefined) assert.ok(capture.problems.length > 0, `cut at ${end}: a problem`);
    }
  });
});

// ------------------------------------------------------------------------------------------------
// The probe script builder

describe('buildProbeScript', () => {
  const nonce = newNonce();
  const SHELLS: Array<[string, string[]]> = [
    ['sh', ['sh', '-n']],
    ['dash', ['dash', '-n']],
    ['busybox sh', ['busybox', 'sh', '-n']],
  ];
  /** The program exists (spawning it does not fail with ENOENT). */
  const available = (argv: string[]) => spawnSync(argv[0] ?? '', ['-c', 'true'], { stdio: 'ignore' }).error === undefined;

  function syntaxCheck(argv: string[], script: string): { status: number | null; stderr: string } {
    const run = spawnSync(argv[0] ?? '', argv.slice(1), { input: script, encoding: 'utf8', timeout: 20_000 });
    return { status: run.status, stderr: run.stderr };
  }

  test('newNonce gives 24 lowercase hex characters, different each time', () => {
    assert.match(nonce, /^[0-9a-f]{24}$/);
    assert.notEqual(newNonce(), newNonce());
  });

  test('bad nonces are rejected', () => {
    for (const bad of [
      '',
      'abc',
      'ABCDEF0123456789ABCD',
      '0123456789abcde',
      'g123456789abcdef0123',
      `${'a'.repeat(65)}`,
      "0123456789abcdef'; reboot #",
      '0123456789abcdef\n',
      '0123456789abcdef 0',
    ]) {
      assert.throws(() => buildProbeScript({ scope: 'node', nonce: bad }), /nonce/, JSON.stringify(bad));
    }
  });

  test('host roots with spaces, quotes, metacharacters, `.` or `..` segments, or relative, are rejected', () => {
    const bad = [
      '/host dir',
      "/host'x",
      '/host"x',
      '/host;rm -rf /',
      '/host/..',
      '/..',
      '/host/../etc',
      '/./host',
      '/.',
      'host',
      // '/' and '/host/' are accepted: trailing slashes are dropped, and '/' is the machine's own root (hostRoot.test.ts).
      '$(reboot)',
      '/host$(id)',
      '/host`id`',
      '/host\nid',
      '/host\\x',
      '/hö st',
      '/host|x',
      '/host&',
      '/ho*t',
    ];
    for (const hostRoot of bad)
      assert.throws(() => buildProbeScript({ scope: 'node', nonce, hostRoot }), /host root/, JSON.stringify(hostRoot));
  });

  test('good host roots are embedded as a quoted assignment', () => {
    for (const hostRoot of ['', '/host', '/host/root_fs', '/a.b/c-d_e', '/host/.hidden', '/mnt/...']) {
      const script = buildProbeScript({ scope: 'node', nonce, hostRoot });
      assert.ok(script.includes(`\nGPUMEM_ROOT='${hostRoot}'\n`), hostRoot);
      assert.ok(script.includes(`\nGPUMEM_NONCE='${nonce}'\n`));
    }
  });

  test('the container scope has no host root', () => {
    assert.ok(buildProbeScript({ scope: 'container', nonce, hostRoot: '/host' }).includes("\nGPUMEM_ROOT=''\n"));
  });

  for (const [name, argv] of SHELLS) {
    test(
      `\`${argv.join(' ')}\` accepts the node and container scripts`,
      { skip: !available(argv) && `${argv[0]} is not installed` },
      () => {
        // The checker is live: it rejects a broken script.
        assert.notEqual(syntaxCheck(argv, 'if then fi\n').status, 0, `${name} -n must reject a syntax error`);
        for (const options of [
          { scope: 'node' as const, nonce },
          { scope: 'node' as const, nonce, hostRoot: '/host' },
          { scope: 'container' as const, nonce },
        ]) {
          const result = syntaxCheck(argv, buildProbeScript(options));
          assert.equal(result.status, 0, `${name} -n, ${JSON.stringify(options)}: ${result.stderr}`);
        }
      },
    );
  }
});

// ------------------------------------------------------------------------------------------------
// Fuzz: mutated real inputs never throw

describe('fuzz: mutations of the real fixtures never throw', () => {
  function random(seed: number): () => number {
    let state = seed >>> 0 || 1;
    return () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) / 2 ** 32;
    };
  }
  function mutate(text: string, next: () => number): string {
    const chars = [...text];
    const edits = 1 + Math.floor(next() * 8);
    for (let i = 0; i < edits && chars.length > 0; i++) {
      const at = Math.floor(next() * chars.length);
      const kind = next();
      if (kind < 0.3) chars.splice(at, 1 + Math.floor(next() * 20));
      else if (kind < 0.6) chars.splice(at, 0, String.fromCharCode(Math.floor(next() * 0x3000)));
      else if (kind < 0.8) chars.splice(at, 0, '\n', ...'@@gpumem:', ...NONCE, ':', ...(next() < 0.5 ? 'end ' : 'begin '), 'x', '@@', '\n');
      else chars.splice(at, 0, ...chars.slice(Math.floor(next() * chars.length), Math.floor(next() * chars.length)));
    }
    return chars.join('');
  }
  const seed = Number(process.env.GPUMEM_FUZZ_SEED ?? 20261129);

  test(`400 mutations per input (seed ${seed}; set GPUMEM_FUZZ_SEED to vary)`, () => {
    const next = random(seed);
    const capture = captureText('node', {
      meta: 'hostname=n1\nkernel=6.18.44-fc-v595\n',
      proc: {
        files: [
          ['/proc/meminfo', fixture('meminfo')],
          ['/proc/vmstat', fixture('vmstat')],
        ],
      },
      'cgroup.mode': 'hybrid\n',
      fdinfo: {
        files: [
          ['/proc/7/cgroup', fixture('self-cgroup')],
          ['/proc/7/fdinfo/5', AMDGPU_CURRENT],
        ],
      },
      kubelet: { files: [['/var/lib/kubelet/config.yaml', KUBELET_SCENARIO]] },
    });
    for (let i = 0; i < 400; i++) {
      const m = (text: string) => mutate(text, next);
      parseMeminfo(m(fixture('meminfo')));
      parseKeyNumber(m(fixture('memory.stat')));
      parseFdinfo(m(AMDGPU_CURRENT));
      parseDmem(m('drm/0000:03:00.0/vram0 1073741824\ndrm/0000:03:00.0/stolen max\n'));
      parseKubeletReservations(m(KUBELET_SCENARIO), m(KUBELET_SCENARIO_FLAGS));
      cgroupOf(m(fixture('self-cgroup')));
      const model = buildNodeModel(parseCapture(m(capture)));
      assert.ok(Array.isArray(model.problems));
    }
  });
});
