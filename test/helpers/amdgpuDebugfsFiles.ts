// amdgpu debugfs files for fixture roots and unit tests, DERIVED from the kernel's print formats (no public
// capture of amdgpu_gem_info or ttm_page_pool from a Strix Halo node was found; the formats are fixed by the code):
// - amdgpu_gem_info: amdgpu_debugfs_gem_info_show (drivers/gpu/drm/amd/amdgpu/amdgpu_gem.c) prints
//   `pid %8d command %s:\n` per DRM client (6.14+: `command %s/<client name>:` when the client named itself),
//   then amdgpu_bo_print_info (amdgpu_object.c) one line per buffer: `\t\t0x%08x: %12lld byte %s` with the
//   placement (`VRAM VISIBLE`, `VRAM`, `GTT`, `CPU`, …), ` pin count %d`, ` exported as ino:%lu` /
//   ` imported from ino:%lu`, the flag names (` CPU_GTT_USWC`, …), then dma_resv_describe's fences
//   (`\t<usage> fence:<driver> <timeline> seq %llu [un]signalled\n`), and `\n`.
// - amdgpu_gtt_mm / amdgpu_vram_mm: ttm_resource_manager_debug (drivers/gpu/drm/ttm/ttm_resource.c) prints
//   `  use_type: %d`, `  use_tt: %d`, `  size: %llu`, `  usage: %llu`; the GTT manager then drm_mm_print
//   (drm_mm.c: `%#018llx-%#018llx: %llu: used|free` per range, `total: %llu, used %llu free %llu`), the VRAM
//   manager `  vis usage:%llu`, `default_page_size: %lluKiB` and drm_buddy_print (`chunk_size: %lluKiB, total:
//   %lluMiB, free: %lluMiB, clear_free: %lluMiB`, `order-%2d free: …`). The VRAM layout matches a real xe
//   vram_mm posted in https://github.com/flightlessmango/MangoHud/issues/1936 (same TTM and buddy printers).
// - ttm_page_pool / ttm/page_pool: ttm_pool_debugfs and ttm_pool_debugfs_globals_show (drivers/gpu/drm/ttm/
//   ttm_pool.c): `\t ` + ` ---%2u---` per order (NR_PAGE_ORDERS = 11 on x86-64), rows `<label>\t:` + ` %8u` per
//   order, `\ntotal\t: %8lu of %8lu\n`; a device pool that is not DMA-backed prints `unused\n`.

export interface GemBufferSpec {
  readonly bytes: number;
  readonly placement: 'VRAM' | 'VRAM VISIBLE' | 'GTT' | 'CPU' | 'NONE';
  readonly count?: number;
  readonly pinned?: number;
  readonly exported?: number;
  readonly flags?: readonly string[];
  readonly fence?: boolean;
}

export interface GemClientSpec {
  readonly pid: number;
  readonly command: string;
  readonly clientName?: string;
  readonly buffers: readonly GemBufferSpec[];
}

const pad = (text: string, width: number) => (text.length >= width ? text : ' '.repeat(width - text.length) + text);

export function amdgpuGemInfo(clients: readonly GemClientSpec[]): string {
  const parts: string[] = [];
  for (const client of clients) {
    parts.push(`pid ${pad(String(client.pid), 8)} command ${client.command}${client.clientName ? `/${client.clientName}` : ''}:\n`);
    let handle = 1;
    for (const buffer of client.buffers) {
      for (let i = 0; i < (buffer.count ?? 1); i++) {
        let line = `\t\t0x${handle.toString(16).padStart(8, '0')}: ${pad(String(buffer.bytes), 12)} byte ${buffer.placement}`;
        handle += 1;
        if (buffer.pinned) line += ` pin count ${buffer.pinned}`;
        if (buffer.exported !== undefined) line += ` exported as ino:${buffer.exported}`;
        for (const flag of buffer.flags ?? []) line += ` ${flag}`;
        if (buffer.fence) line += `\tbookkeep fence:amdgpu gfx_0.0.0 seq ${1000 + handle} signalled\n`;
        parts.push(`${line}\n`);
      }
    }
  }
  return parts.join('');
}

/** ttm_resource_manager_debug + drm_mm_print for the GTT manager: sizes in bytes, drm_mm ranges in pages. */
export function amdgpuGttMm(sizeBytes: number, usageBytes: number, rangesPages: readonly number[] = [256, 1024, 4096]): string {
  const lines = ['  use_type: 1', '  use_tt: 1', `  size: ${sizeBytes}`, `  usage: ${usageBytes}`];
  let start = 0;
  let used = 0;
  for (const pages of rangesPages) {
    lines.push(`${hex18(start)}-${hex18(start + pages)}: ${pages}: used`);
    start += pages;
    used += pages;
  }
  const total = 131072;
  lines.push(`${hex18(start)}-${hex18(total)}: ${total - start}: free`);
  lines.push(`total: ${total}, used ${used} free ${total - used}`);
  return `${lines.join('\n')}\n`;
}

export function amdgpuVramMm(sizeBytes: number, usageBytes: number, visUsageBytes: number): string {
  const mib = Math.floor(sizeBytes / 1024 ** 2);
  const freeMib = Math.floor((sizeBytes - usageBytes) / 1024 ** 2);
  return [
    '  use_type: 1',
    '  use_tt: 0',
    `  size: ${sizeBytes}`,
    `  usage: ${usageBytes}`,
    `  vis usage:${visUsageBytes}`,
    'default_page_size: 4KiB',
    `chunk_size: 4KiB, total: ${mib}MiB, free: ${freeMib}MiB, clear_free: 0MiB`,
    `order-17 free:      ${freeMib} MiB, blocks: 1`,
    'order- 0 free:        0 KiB, blocks: 0',
    'reserved:',
    `${hex18(0)}-${hex18(1048576)}: 1048576`,
    '',
  ].join('\n');
}

/** ttm/page_pool (globals): wc, uc, wc 32, uc 32 rows of 11 orders, and the total of every pool. */
export function ttmGlobalPagePool(rows: Readonly<Record<'wc' | 'uc' | 'wc 32' | 'uc 32', readonly number[]>>, limitPages: number): string {
  let header = '\t ';
  for (let order = 0; order < 11; order++) header += ` ---${pad(String(order), 2)}---`;
  const out = [header];
  let pages = 0;
  for (const label of ['wc', 'uc', 'wc 32', 'uc 32'] as const) {
    const counts = rows[label];
    let line = `${label}\t:`;
    for (let order = 0; order < 11; order++) {
      const value = counts[order] ?? 0;
      line += ` ${pad(String(value), 8)}`;
      pages += value * 2 ** order;
    }
    out.push(line);
  }
  return `${out.join('\n')}\n\ntotal\t: ${pad(String(pages), 8)} of ${pad(String(limitPages), 8)}\n`;
}

/** The pages a ttmGlobalPagePool table holds (Σ count × 2^order). */
export function ttmPoolPages(rows: Readonly<Record<string, readonly number[]>>): number {
  let pages = 0;
  for (const counts of Object.values(rows)) counts.forEach((value, order) => (pages += value * 2 ** order));
  return pages;
}

function hex18(value: number): string {
  return `0x${value.toString(16).padStart(16, '0')}`;
}
