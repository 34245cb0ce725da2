// amdgpu debugfs: the parsers on the kernel's formats (test/helpers/amdgpuDebugfsFiles.ts says where each comes
// from) and on a real TTM manager dump, the probe's summarised and raw forms, bad input, and the analysis: per-client
// GTT to pods, the second source where fdinfo has no GTT, the >5 % disagreement, and why debugfs could not be read.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { parseAmdgpuDebugfs, parseGemInfo, parseTtmManager, parseTtmPool } from '../../src/core/probe/parsers/amdgpuDebugfs.ts';
import { inspectionToMarkdown } from '../../src/core/report/inspectionReport.ts';
import { amdgpuGemInfo, amdgpuGttMm, ttmGlobalPagePool, ttmPoolPages } from '../helpers/amdgpuDebugfsFiles.ts';
import { GiB, MiB, nodeCapture, STRIX_HALO } from './helpers/nodeCapture.ts';
import type { NodeSpec } from './helpers/nodeCapture.ts';

// A real `vram_mm` from an xe GPU (the same ttm_resource_manager_debug and drm_buddy_print lines amdgpu prints),
// posted in https://github.com/flightlessmango/MangoHud/issues/1936 (2026-05-22), first lines verbatim.
const XE_VRAM_MM = `  use_type: 1
  use_tt: 0
  size: 8522825728
  usage: 32079872
default_page_size: 4KiB
visible_avail: 8097MiB
visible_size: 8128MiB
chunk_size: 4KiB, total: 8128MiB, free: 8097MiB, clear_free: 0MiB
order-20 free:        0 KiB, blocks: 0
order-19 free:     4096 MiB, blocks: 2
order-18 free:     2048 MiB, blocks: 2
`;

const CLIENTS = amdgpuGemInfo([
  {
    pid: 4101,
    command: 'python3',
    buffers: [
      { bytes: 16 * GiB, placement: 'GTT', fence: true },
      { bytes: 2 * MiB, placement: 'GTT', count: 20 },
      { bytes: 32 * MiB, placement: 'VRAM VISIBLE', pinned: 1 },
      { bytes: 4096, placement: 'CPU' },
    ],
  },
  { pid: 4102, command: 'llama-server', clientName: 'llama.cpp', buffers: [{ bytes: GiB, placement: 'GTT', count: 2, exported: 7 }] },
]);

describe('amdgpu debugfs parsers', () => {
  test('a real TTM manager dump (xe vram_mm): size and usage in bytes', () => {
    const manager = parseTtmManager(XE_VRAM_MM);
    assert.equal(manager.size, 8522825728);
    assert.equal(manager.usage, 32079872);
    assert.equal(manager.error, undefined);
  });

  test('the GTT manager: the allocator lines, the drm_mm ranges ignored; the 5.x form in pages and MB', () => {
    const manager = parseTtmManager(amdgpuGttMm(96 * GiB, 30 * GiB));
    assert.deepEqual([manager.size, manager.usage], [96 * GiB, 30 * GiB]);
    const old = parseTtmManager('man size:25165824 pages, gtt available:24117248 pages, usage:4096MB\n');
    assert.deepEqual([old.size, old.usage], [25165824 * 4096, 4096 * MiB]);
    assert.equal(parseTtmManager('cat: /sys/kernel/debug/dri/0/amdgpu_gtt_mm: Operation not permitted\n').error, 'Operation not permitted');
  });

  test('gem_info raw (the probe without awk): totals per placement, shared bytes, the largest buffers, complete by rc', () => {
    const gem = parseGemInfo(`${CLIENTS}\ngpumem-rc 0\n`);
    assert.equal(gem.kind, 'read');
    if (gem.kind !== 'read') return;
    assert.equal(gem.complete, true);
    assert.equal(gem.buffers, 25);
    const [a, b] = gem.clients;
    assert.equal(a?.placements.get('GTT')?.bytes, 16 * GiB + 40 * MiB);
    assert.equal(a?.placements.get('GTT')?.count, 21);
    assert.equal(a?.placements.get('VRAM')?.bytes, 32 * MiB, 'VRAM VISIBLE is VRAM');
    assert.equal(a?.placements.get('CPU')?.bytes, 4096);
    assert.equal(a?.largest[0]?.bytes, 16 * GiB);
    assert.equal(a?.largest[0]?.detail, '', 'the fence description is not part of the buffer');
    assert.equal(a?.largest.length, 8);
    assert.equal(b?.command, 'llama-server/llama.cpp');
    assert.equal(b?.placements.get('GTT')?.shared, 2 * GiB);
    // Cut short: no rc line.
    const cut = parseGemInfo(CLIENTS.slice(0, CLIENTS.length / 2));
    assert.equal(cut.kind === 'read' && cut.complete, false);
    // A failed read.
    const failed = parseGemInfo(`${CLIENTS}\ngpumem-rc 1\n`);
    assert.equal(failed.kind === 'read' && failed.complete, false);
  });

  test('gem_info summarised by the probe: the totals count, the top buffers listed after them do not count twice', () => {
    const text = [
      'pid     4101 command python3:',
      '\t\tgpumem-total GTT 17221812224 21 0',
      '\t\tgpumem-total VRAM 33554432 1 0',
      '\t\t0x00000001:  17179869184 byte GTT',
      '\t\t0x00000002:      2097152 byte GTT',
      'gpumem-end clients 1 bos 22 rc 0',
    ].join('\n');
    const gem = parseGemInfo(text);
    assert.ok(gem.kind === 'read');
    assert.equal(gem.complete, true);
    assert.equal(gem.buffers, 22);
    assert.equal(gem.clients[0]?.placements.get('GTT')?.bytes, 17221812224);
    assert.equal(gem.clients[0]?.largest.length, 2);
    const completeOf = (input: string) => {
      const parsed = parseGemInfo(input);
      return parsed.kind === 'read' && parsed.complete;
    };
    assert.equal(completeOf(text.replace('rc 0', 'rc 124')), false, 'timeout killed the read');
    assert.equal(completeOf(text.replace(/\ngpumem-end.*$/, '')), false, 'cut before the end line');
  });

  test('hostile and broken gem_info: forged lines, old kernels, garbage, huge numbers, errors', () => {
    // A comm with a newline splits the header; what follows it is no buffer (8 hex digits and a 12-wide size
    // cannot fit in the 15 characters of a comm).
    const forged = parseGemInfo('pid     4105 command x\n\t0x1: 99 byte GTT:\n\t\t0x00000001:         4096 byte GTT\ngpumem-rc 0\n');
    assert.ok(forged.kind === 'read');
    assert.equal(forged.clients[0]?.pid, 4105);
    assert.equal(forged.clients[0]?.placements.get('GTT')?.bytes, 4096);
    // Before 5.x: one tab, and ` GTT` padded.
    const old = parseGemInfo(
      'pid     1200 command Xorg:\n\t0x00000001:      8388608 byte  GTT\n\t0x00000002:      4194304 byte VRAM\ngpumem-rc 0\n',
    );
    assert.ok(old.kind === 'read');
    assert.equal(old.clients[0]?.placements.get('GTT')?.bytes, 8388608);
    // Buffers before any header, garbage, a size past 2^53: left out.
    const garbage = parseGemInfo(
      '\t\t0x00000001:         4096 byte GTT\n\u0000\u0001 garbage\npid        7 command a:\n\t\t0x00000002: 99999999999999999999 byte GTT\n\t\t0xzz: 1 byte GTT\n',
    );
    assert.ok(garbage.kind === 'read');
    assert.equal(garbage.clients.length, 1);
    assert.equal(garbage.clients[0]?.placements.size, 0);
    // A read the kernel refused.
    const refused = parseGemInfo(
      'gpumem-error cat: /host/sys/kernel/debug/dri/0/amdgpu_gem_info: Operation not permitted\ngpumem-end clients 0 bos 0 rc 1\n',
    );
    assert.deepEqual(refused, { kind: 'error', message: 'Operation not permitted' });
    assert.deepEqual(parseGemInfo('head: /sys/kernel/debug/dri/0/amdgpu_gem_info: Permission denied\ngpumem-rc 1\n'), {
      kind: 'error',
      message: 'Permission denied',
    });
    // No clients at all (an idle GPU) is a complete, empty list.
    const idle = parseGemInfo('gpumem-end clients 0 bos 0 rc 0\n');
    assert.ok(idle.kind === 'read' && idle.complete && idle.clients.length === 0);
  });

  test('TTM pools: the global table, a device pool that is not DMA-backed, errors', () => {
    const rows = { wc: [120, 40, 10, 0, 8], uc: [1], 'wc 32': [], 'uc 32': [0, 2] };
    const pool = parseTtmPool(ttmGlobalPagePool(rows, 25165824));
    assert.ok(pool.kind === 'table');
    assert.equal(pool.rows.length, 4);
    assert.deepEqual(pool.rows[0]?.counts.slice(0, 5), [120, 40, 10, 0, 8]);
    assert.equal(pool.allocatedPages, ttmPoolPages(rows));
    assert.equal(pool.limitPages, 25165824);
    assert.deepEqual(parseTtmPool('unused\n'), { kind: 'unused' });
    assert.deepEqual(parseTtmPool('gpumem: permission denied\n'), { kind: 'error', message: 'Permission denied' });
  });

  test('the section: access states, lockdown, devices by minor, PCI address from name', () => {
    const debugfs = parseAmdgpuDebugfs(
      new Map([
        ['/host/sys/kernel/debug', "refused ls: can't open '/host/sys/kernel/debug': Permission denied\n"],
        ['/host/sys/kernel/security/lockdown', 'none [integrity] confidentiality\n'],
        ['/host/sys/kernel/debug/dri/1/name', 'amdgpu dev=0000:03:00.0 unique=0000:03:00.0\n'],
        ['/host/sys/kernel/debug/dri/1/amdgpu_gem_info', 'gpumem-end clients 0 bos 0 rc 0\n'],
        ['/host/sys/kernel/debug/dri/0/amdgpu_gem_info', 'gpumem-end clients 0 bos 0 rc 0\n'],
        ['/host/sys/kernel/debug/dri/0/amdgpu_evict_vram', 'never read\n'],
      ]),
      '/host',
    );
    assert.equal(debugfs.access.kind, 'refused');
    assert.match(debugfs.access.kind === 'refused' ? debugfs.access.detail : '', /Permission denied/);
    assert.equal(debugfs.lockdown, 'integrity');
    assert.deepEqual(
      debugfs.devices.map((device) => [device.minor, device.pdev]),
      [
        ['0', undefined],
        ['1', '0000:03:00.0'],
      ],
    );
    assert.deepEqual(parseAmdgpuDebugfs(new Map(), '').access, { kind: 'not-probed' });
  });
});

const POD = '8a1f3c5e-2b4d-4e6f-9a0b-1c2d3e4f5a6b';
function node(fdinfoGtt: boolean, gem: string, extra: Partial<NodeSpec> = {}): NodeSpec {
  return {
    kernel: '6.8.0-45-generic',
    memTotal: 128 * GiB,
    gpus: [STRIX_HALO],
    pods: [
      {
        uid: POD,
        current: 2 * GiB,
        max: 16 * GiB,
        processes: [{ pid: 4101, comm: 'python3', fds: [{ fd: 5, client: '41', gtt: 20 * GiB, vram: 64 * MiB, noGtt: !fdinfoGtt }] }],
      },
    ],
    debugfs: [
      ['/sys/kernel/debug', 'mounted\n'],
      ['/sys/kernel/debug/dri/1/name', 'amdgpu dev=0000:c5:00.0 unique=0000:c5:00.0\n'],
      ['/sys/kernel/debug/dri/1/amdgpu_gem_info', gem],
      ['/sys/kernel/debug/dri/1/amdgpu_gtt_mm', amdgpuGttMm(96 * GiB, 22 * GiB)],
    ],
    ...extra,
  };
}
const gem20 = `${amdgpuGemInfo([{ pid: 4101, command: 'python3', buffers: [{ bytes: 20 * GiB, placement: 'GTT' }] }])}gpumem-rc 0\n`;

describe('amdgpu debugfs analysis', () => {
  test('fdinfo without GTT (older kernel): the pod takes its GTT from gem_info, and its verdict says so', () => {
    const inspection = analyzeCaptureText(nodeCapture(node(false, gem20)), { target: 't' });
    const pod = inspection.node?.pods.find((candidate) => candidate.podUid === POD);
    assert.equal(pod?.gtt, 20 * GiB);
    assert.equal(pod?.gttSource, 'debugfs');
    assert.equal(pod?.trueFootprint, 22 * GiB);
    assert.equal(pod?.headroom, 16 * GiB - 22 * GiB);
    const verdict = inspection.verdicts.find((candidate) => candidate.id === 'memory.pod-over-limit-in-reality');
    assert.ok(verdict, inspection.verdicts.map((candidate) => candidate.id).join(', '));
    assert.ok(
      verdict.evidence.some((line) => /from amdgpu_gem_info/.test(line)),
      verdict.evidence.join('\n'),
    );
    assert.equal(inspection.node?.driver?.unheldGtt, 2 * GiB);
    assert.match(inspectionToMarkdown(inspection), /\| 20 GiB \(debugfs\) \| 20 GiB \|/);
  });

  test('both sources: within 5 % they agree; beyond it, one verdict with both numbers', () => {
    const close = analyzeCaptureText(
      nodeCapture(
        node(
          true,
          `${amdgpuGemInfo([{ pid: 4101, command: 'python3', buffers: [{ bytes: 20 * GiB - 900 * MiB, placement: 'GTT' }] }])}gpumem-rc 0\n`,
        ),
      ),
      { target: 't' },
    );
    assert.equal(
      close.verdicts.some((verdict) => verdict.id === 'memory.gtt-sources-disagree'),
      false,
      '4.4 % apart',
    );
    const far = analyzeCaptureText(
      nodeCapture(
        node(true, `${amdgpuGemInfo([{ pid: 4101, command: 'python3', buffers: [{ bytes: 18 * GiB, placement: 'GTT' }] }])}gpumem-rc 0\n`),
      ),
      { target: 't', podNames: new Map([[POD, 'ml/trainer-0']]) },
    );
    const verdict = far.verdicts.find((candidate) => candidate.id === 'memory.gtt-sources-disagree');
    assert.ok(verdict);
    assert.match(verdict.title, /pid 4101 \(python3\) in ml\/trainer-0: 20 GiB against 18 GiB of GTT \(10 % apart\)/);
    const pod = far.node?.pods[0];
    assert.equal(pod?.gtt, 20 * GiB, 'fdinfo stays the pod figure');
    assert.equal(pod?.debugfsGtt, 18 * GiB);
  });

  test('debugfs unavailable: says which, with the kernel parameter that disables it; nothing on a node without amdgpu', () => {
    const unmounted = analyzeCaptureText(
      nodeCapture(
        node(true, gem20, {
          debugfs: [['/sys/kernel/debug', 'unmounted\n']],
          procFiles: [['/proc/cmdline', 'BOOT_IMAGE=/vmlinuz ro debugfs=off quiet\n']],
        }),
      ),
      { target: 't' },
    );
    const verdict = unmounted.verdicts.find((candidate) => candidate.id === 'memory.debugfs-unavailable');
    assert.match(verdict?.title ?? '', /not mounted \(debugfs=off\)/);
    assert.match(verdict?.remedy ?? '', /Remove debugfs=off/);
    const lockedDown = analyzeCaptureText(
      nodeCapture(
        node(true, gem20, {
          debugfs: [
            ['/sys/kernel/debug', 'mounted\n'],
            ['/sys/kernel/security/lockdown', 'none integrity [confidentiality]\n'],
            [
              '/sys/kernel/debug/dri/1/amdgpu_gem_info',
              'gpumem-error cat: /sys/kernel/debug/dri/1/amdgpu_gem_info: Operation not permitted\ngpumem-end clients 0 bos 0 rc 1\n',
            ],
          ],
        }),
      ),
      { target: 't' },
    );
    assert.match(
      lockedDown.verdicts.find((candidate) => candidate.id === 'memory.debugfs-unavailable')?.title ?? '',
      /lockdown \(confidentiality\)/,
    );
    const noAmd = analyzeCaptureText(nodeCapture({ ...node(true, gem20), gpus: [], debugfs: [['/sys/kernel/debug', 'absent\n']] }), {
      target: 't',
    });
    assert.equal(
      noAmd.verdicts.some((candidate) => candidate.id === 'memory.debugfs-unavailable'),
      false,
    );
    // A capture from before the debugfs section: nothing said, nothing changed.
    const before = analyzeCaptureText(nodeCapture({ ...node(true, gem20), debugfs: undefined }), { target: 't' });
    assert.equal(before.node?.driver, undefined);
    assert.equal(
      before.verdicts.some((candidate) => candidate.id.startsWith('memory.debugfs')),
      false,
    );
  });

  test('the TTM pool before 7.1 (no GPUReclaim line) is a kernel part; 100k clients stay bounded', () => {
    const pool = ttmGlobalPagePool({ wc: [0, 0, 0, 0, 0, 0, 0, 0, 0, 512], uc: [], 'wc 32': [], 'uc 32': [] }, 25165824);
    const inspection = analyzeCaptureText(
      nodeCapture(
        node(true, gem20, {
          meminfoExtra: 'SUnreclaim:       9646899 kB\n',
          debugfs: [...(node(true, gem20).debugfs ?? []), ['/sys/kernel/debug/ttm/page_pool', pool]],
        }),
      ),
      { target: 't' },
    );
    const part = inspection.node?.kernel?.parts.find((candidate) => candidate.label === 'TTM page pool');
    assert.equal(part?.bytes, 512 * 512 * 4096);
    const many = Array.from(
      { length: 100_000 },
      (_, i) => `pid ${String(i + 1).padStart(8)} command w:\n\t\t0x00000001:         4096 byte GTT\n`,
    ).join('');
    const gem = parseGemInfo(`${many}gpumem-rc 0\n`);
    assert.ok(gem.kind === 'read');
    assert.equal(gem.clients.length, 4000, 'at most 4000 clients are kept');
  });
});
