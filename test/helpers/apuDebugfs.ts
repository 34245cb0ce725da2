// The APU fixture node's amdgpu debugfs (absent, unmounted, refused or readable; see ApuOptions.debugfs): gem_info,
// the GTT and VRAM managers, the TTM pools. See fixtureRoot.ts.
import { chmodSync } from 'node:fs';
import { amdgpuGemInfo, amdgpuGttMm, amdgpuVramMm, ttmGlobalPagePool } from './amdgpuDebugfsFiles.ts';
import type { GemClientSpec } from './amdgpuDebugfsFiles.ts';
import { GiB, MiB } from './fixtureFormats.ts';
import type { NodeTree } from './nodeTree.ts';

/** The APU's iGPU, as amdgpu names it (drm-pdev, debugfs's dri/<minor>, the kernel log). */
export const APU_PDEV = '0000:c5:00.0';

/** What the probe finds of debugfs: none, not mounted, root-only, readable, or readable with 100,000 buffers. */
export type ApuDebugfsKind = 'absent' | 'unmounted' | 'root-only' | 'readable' | 'huge';

/** What the APU fixture's debugfs holds: gem_info agrees with fdinfo for pid 4101 and 2210, and lists 800 MiB less
 *  GTT than fdinfo for pid 4102 (a mapped buffer whose handle was closed); the GTT manager's usage is sysfs's. */
export const APU_DEBUGFS = {
  pid4102GttShort: 800 * MiB,
  hugeBuffers: 100_000,
  hugeBufferBytes: 2 * MiB,
  hugePid: 4300,
  pool: { wc: [120, 40, 10, 0, 8, 0, 0, 0, 0, 0, 0], uc: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 'wc 32': [3], 'uc 32': [] },
  poolLimitPages: 25165824,
};

export function writeApuDebugfs(
  tree: NodeTree,
  kind: ApuDebugfsKind,
  sizes: { gttTotal: number; gttUsed: number; vramTotal: number; systemGpuGtt: number },
): void {
  if (kind === 'absent') return;
  tree.dir('/sys/kernel/debug');
  if (kind === 'unmounted') return;
  const clients: GemClientSpec[] = [
    {
      pid: 2210,
      command: 'amd-metrics-exp',
      buffers: [
        { bytes: 4 * MiB, placement: 'GTT', count: sizes.systemGpuGtt / (4 * MiB), flags: ['CPU_GTT_USWC'] },
        { bytes: 4 * MiB, placement: 'VRAM VISIBLE', flags: ['CPU_ACCESS_REQUIRED', 'VRAM_CLEARED'] },
      ],
    },
    {
      pid: 4101,
      command: `python3 "a" 'b'`,
      buffers: [
        { bytes: 16 * GiB, placement: 'GTT', flags: ['CPU_GTT_USWC'], fence: true },
        { bytes: 2 * MiB, placement: 'GTT', count: 1024, flags: ['CPU_GTT_USWC', 'VM_ALWAYS_VALID'] },
        { bytes: 32 * MiB, placement: 'VRAM VISIBLE', count: 3, pinned: 1 },
        { bytes: 2 * MiB, placement: 'CPU' },
      ],
    },
    {
      pid: 4102,
      command: 'llama-server',
      clientName: 'llama.cpp',
      buffers: [
        { bytes: 1 * GiB, placement: 'GTT', count: 11, exported: 88213 },
        { bytes: 2 * MiB, placement: 'GTT', count: 112 },
        { bytes: 32 * MiB, placement: 'VRAM' },
      ],
    },
    // A comm with a newline (prctl PR_SET_NAME allows one): what follows it must not pass for a buffer line.
    { pid: 4105, command: 'x\n\t0x0: 9 byte', buffers: [] },
  ];
  if (kind === 'huge')
    clients.push({
      pid: APU_DEBUGFS.hugePid,
      command: 'bo-storm',
      buffers: [{ bytes: APU_DEBUGFS.hugeBufferBytes, placement: 'GTT', count: APU_DEBUGFS.hugeBuffers }],
    });
  const dri = '/sys/kernel/debug/dri/0';
  tree.file(`${dri}/name`, `amdgpu dev=${APU_PDEV} unique=${APU_PDEV}\n`, 0o444);
  tree.file(`${dri}/amdgpu_gem_info`, amdgpuGemInfo(clients), 0o444);
  tree.file(`${dri}/amdgpu_gtt_mm`, amdgpuGttMm(sizes.gttTotal, sizes.gttUsed), 0o444);
  tree.file(`${dri}/amdgpu_vram_mm`, amdgpuVramMm(sizes.vramTotal, 402653184, 402653184), 0o444);
  tree.file(`${dri}/ttm_page_pool`, 'unused\n', 0o444);
  // Files that act when read on a real node: the probe must never read them (a test checks their text is absent).
  tree.file(`${dri}/amdgpu_evict_vram`, 'DECOY-EVICTED-VRAM\n', 0o444);
  tree.file(`${dri}/amdgpu_gpu_recover`, 'DECOY-GPU-RESET\n', 0o444);
  tree.file('/sys/kernel/debug/ttm/page_pool_shrink', 'DECOY-SHRUNK\n', 0o400);
  tree.file('/sys/kernel/debug/ttm/page_pool', ttmGlobalPagePool(APU_DEBUGFS.pool, APU_DEBUGFS.poolLimitPages), 0o444);
  // The render minor has a directory too, without amdgpu's files.
  tree.dir('/sys/kernel/debug/dri/128');
  tree.file('/sys/kernel/debug/dri/128/name', `amdgpu dev=${APU_PDEV} unique=${APU_PDEV}\n`, 0o444);
  if (kind === 'root-only') chmodSync(tree.path('/sys/kernel/debug'), 0o700);
}

/** A Strix Halo (gfx1151) node with a GTT-heavy pod: 2 GiB accounted, 16 GiB limit, 30 GiB of GTT. */
