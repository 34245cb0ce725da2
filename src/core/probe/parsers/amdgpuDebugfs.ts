// amdgpu's debugfs as the node probe's `debugfs` section captures it (nodeScript.ts). Formats, from the kernel:
// - the directory record: `absent`, `unmounted`, `mounted` or `refused <ls error>` (the probe's own finding);
// - /sys/kernel/security/lockdown: `none [integrity] confidentiality` (security/lockdown/lockdown.c);
// - dri/<minor>/name: `amdgpu dev=0000:c5:00.0 unique=0000:c5:00.0` (drm_name_info, drm_debugfs.c);
// - dri/<minor>/amdgpu_gem_info: per DRM client `pid %8d command %s:` (or `…command %s/<client name>:` since
//   6.14), then one line per buffer `\t\t0x%08x: %12lld byte %s` + ` pin count %d`, ` imported from ino:%lu` /
//   ` exported as ino:%lu`, flag names and fence descriptions (amdgpu_debugfs_gem_info_show in amdgpu_gem.c,
//   amdgpu_bo_print_info in amdgpu_object.c; placements VRAM, `VRAM VISIBLE`, GTT, CPU, GDS, GWS, OA,
//   PREEMPTIBLE, DOORBELL, `MMIO REMAP`, NONE, UNKNOWN; before 5.x one tab and ` GTT`/` CPU`). The probe's awk
//   keeps each header, adds `\t\tgpumem-total <placement> <bytes> <count> <shared bytes>` lines and the 8 largest
//   buffers, and ends with `gpumem-end clients N bos N rc N`; without awk the raw file comes, cut at 1 MiB,
//   followed by `gpumem-rc N`;
// - dri/<minor>/amdgpu_gtt_mm, amdgpu_vram_mm: ttm_resource_manager_debug (ttm_resource.c): `  use_type: %d`,
//   `  use_tt: %d`, `  size: %llu`, `  usage: %llu` (bytes, since 5.18), then the manager's own lines:
//   drm_mm_print's `total: %llu, used %llu free %llu` (GTT, in pages), amdgpu_vram_mgr_debug's `  vis usage:%llu`
//   and drm_buddy_print's `chunk_size: %lluKiB, total: %lluMiB, free: %lluMiB, …`; the per-range lines are
//   dropped by the probe;
// - dri/<minor>/ttm_page_pool and ttm/page_pool: ttm_pool_debugfs / ttm_pool_debugfs_globals_show (ttm_pool.c):
//   a header of orders, rows `<label>\t:` + one `%8u` count per order (entries of 2^order pages), and
//   `total\t: %8lu of %8lu` (pages in every pool, and the pool's limit); a device pool that is not DMA-backed
//   prints `unused`.
// Every number is bounded in digits and must be a safe integer; lines are cut before matching, so work is linear.

/** What the probe found when it looked at /sys/kernel/debug. */
export type DebugfsAccess =
  | { readonly kind: 'not-probed' }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unmounted' }
  | { readonly kind: 'refused'; readonly detail: string }
  | { readonly kind: 'mounted' };

export interface GemPlacement {
  readonly bytes: number;
  readonly count: number;
  /** Bytes of buffers shared through dma-buf (exported or imported): also counted by the other holder. */
  readonly shared: number;
}

export interface GemBuffer {
  readonly handle: string;
  readonly bytes: number;
  readonly placement: string;
  /** The rest of the line (pin count, dma-buf, flags), bounded. */
  readonly detail: string;
}

export interface GemClient {
  readonly pid: number;
  /** The task's comm, with `/<client name>` when the client set one. */
  readonly command: string;
  readonly placements: ReadonlyMap<string, GemPlacement>;
  /** The largest buffers, largest first (at most 8). */
  readonly largest: readonly GemBuffer[];
}

export type GemInfo =
  | {
      readonly kind: 'read';
      readonly clients: readonly GemClient[];
      readonly buffers: number;
      /** Every client was listed in full (the end line came and the read succeeded). */
      readonly complete: boolean;
      readonly errors: readonly string[];
    }
  | { readonly kind: 'error'; readonly message: string };

export interface TtmManager {
  readonly size: number | undefined;
  /** Bytes of buffers placed in this manager (ttm_resource_manager_usage). */
  readonly usage: number | undefined;
  readonly visibleUsage: number | undefined;
  readonly error: string | undefined;
}

export type TtmPool =
  | { readonly kind: 'unused' }
  | {
      readonly kind: 'table';
      readonly rows: readonly { readonly label: string; readonly counts: readonly number[] }[];
      /** Pages held by every TTM pool (the footer's first number). */
      readonly allocatedPages: number | undefined;
      readonly limitPages: number | undefined;
    }
  | { readonly kind: 'error'; readonly message: string };

export interface DebugfsDevice {
  /** The DRM minor directory, e.g. `0`. */
  readonly minor: string;
  /** The PCI address from `name` (`dev=`), when given. */
  readonly pdev: string | undefined;
  readonly gem: GemInfo | undefined;
  readonly gtt: TtmManager | undefined;
  readonly vram: TtmManager | undefined;
  readonly pool: TtmPool | undefined;
}

export interface AmdgpuDebugfs {
  readonly access: DebugfsAccess;
  /** The active kernel lockdown mode (`none`, `integrity`, `confidentiality`), when securityfs showed it. */
  readonly lockdown: string | undefined;
  readonly devices: readonly DebugfsDevice[];
  readonly globalPool: TtmPool | undefined;
}

const MAX_LINE = 400;
const MAX_CLIENTS = 4000;
const TOP_BUFFERS = 8;

/** Reads the `debugfs` section's records; `root` is the capture's host root ('' or '/host'). */
export function parseAmdgpuDebugfs(files: ReadonlyMap<string, string>, root: string): AmdgpuDebugfs {
  const base = `${root}/sys/kernel/debug`;
  const stateText = files.get(base);
  const access = parseAccess(stateText);
  const lockdown = /\[(none|integrity|confidentiality)\]/.exec(
    (files.get(`${root}/sys/kernel/security/lockdown`) ?? '').slice(0, MAX_LINE),
  )?.[1];
  const byMinor = new Map<string, Map<string, string>>();
  const prefix = `${base}/dri/`;
  for (const [path, body] of files) {
    if (!path.startsWith(prefix)) continue;
    const match = /^(\d{1,6})\/(name|amdgpu_gem_info|amdgpu_gtt_mm|amdgpu_vram_mm|ttm_page_pool)$/.exec(path.slice(prefix.length));
    if (!match?.[1] || !match[2]) continue;
    const entry = byMinor.get(match[1]) ?? new Map<string, string>();
    entry.set(match[2], body);
    byMinor.set(match[1], entry);
  }
  const devices: DebugfsDevice[] = [...byMinor]
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([minor, entry]) => {
      const name = entry.get('name');
      const gem = entry.get('amdgpu_gem_info');
      const gtt = entry.get('amdgpu_gtt_mm');
      const vram = entry.get('amdgpu_vram_mm');
      const pool = entry.get('ttm_page_pool');
      return {
        minor,
        pdev:
          name === undefined
            ? undefined
            : /\bdev=([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b/.exec(name.slice(0, MAX_LINE))?.[1],
        gem: gem === undefined ? undefined : parseGemInfo(gem),
        gtt: gtt === undefined ? undefined : parseTtmManager(gtt),
        vram: vram === undefined ? undefined : parseTtmManager(vram),
        pool: pool === undefined ? undefined : parseTtmPool(pool),
      };
    });
  const globalPool = files.get(`${base}/ttm/page_pool`);
  return { access, lockdown, devices, globalPool: globalPool === undefined ? undefined : parseTtmPool(globalPool) };
}

function parseAccess(text: string | undefined): DebugfsAccess {
  if (text === undefined) return { kind: 'not-probed' };
  const line = (text.split('\n', 1)[0] ?? '').slice(0, MAX_LINE).trim();
  if (line === 'absent' || line === 'unmounted' || line === 'mounted') return { kind: line };
  if (line.startsWith('refused')) return { kind: 'refused', detail: line.slice('refused'.length).trim() };
  return { kind: 'not-probed' };
}

/** A safe integer from a bounded digit string, or undefined. */
function count(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,20}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** An error a read tool printed instead of the file (head/cat/the probe's own `gpumem:` line). */
function readError(text: string): string | undefined {
  const first = text.trimStart().split('\n', 1)[0]?.slice(0, 300) ?? '';
  if (/^gpumem: permission denied/.test(first)) return 'Permission denied';
  const match =
    /^(?:gpumem-error )?(?:[a-z]{1,16}: )?(?:.{0,200}: )?(Permission denied|Operation not permitted|No such file or directory|Input\/output error|No such device)\s*$/.exec(
      first,
    );
  return match?.[1];
}

interface ClientDraft {
  pid: number;
  command: string;
  placements: Map<string, { bytes: number; count: number; shared: number }>;
  summarized: boolean;
  largest: GemBuffer[];
}

// The colon may be missing: a comm with a newline in it (prctl PR_SET_NAME) splits the header line.
const HEADER = /^pid ([ \d]{8,20}) command (.{0,300})$/;
const TOTAL = /^\t\tgpumem-total (\S{1,40}) (\d{1,20}) (\d{1,12}) (\d{1,20})$/;
const BUFFER = /^\t{1,2}0x([0-9a-f]{8,16}): +(\d{1,20}) byte +(\S{1,40})(.{0,300})$/;
const END = /^gpumem-end clients (\d{1,12}) bos (\d{1,12}) rc (\d{0,4})$/;
const RC = /^gpumem-rc (\d{1,4})$/;

export function parseGemInfo(text: string): GemInfo {
  const clients: ClientDraft[] = [];
  const errors: string[] = [];
  let current: ClientDraft | undefined;
  let buffers = 0;
  let summarizedEnd: { rc: number | undefined } | undefined;
  let rawRc: number | undefined;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, Math.min(end, start + MAX_LINE));
    start = end + 1;
    const header = HEADER.exec(line);
    if (header?.[1] && header[2] !== undefined) {
      const pid = count(header[1].trim());
      if (pid === undefined || clients.length >= MAX_CLIENTS) {
        current = undefined;
        continue;
      }
      current = { pid, command: header[2].replace(/:$/, '').slice(0, 100), placements: new Map(), summarized: false, largest: [] };
      clients.push(current);
      continue;
    }
    const total = TOTAL.exec(line);
    if (total?.[1] && current) {
      const bytes = count(total[2]);
      const n = count(total[3]);
      const shared = count(total[4]);
      if (bytes === undefined || n === undefined || shared === undefined) continue;
      if (!current.summarized) current.placements.clear();
      current.summarized = true;
      current.placements.set(normalPlacement(total[1], ''), { bytes, count: n, shared: Math.min(shared, bytes) });
      continue;
    }
    const buffer = BUFFER.exec(line);
    if (buffer?.[1] && buffer[3] && current) {
      const bytes = count(buffer[2]);
      if (bytes === undefined) continue;
      const rest = buffer[4] ?? '';
      const placement = normalPlacement(buffer[3], rest);
      if (!current.summarized) {
        buffers += 1;
        const sum = current.placements.get(placement) ?? { bytes: 0, count: 0, shared: 0 };
        sum.bytes += bytes;
        sum.count += 1;
        if (/ (imported from|exported as) ino:/.test(rest)) sum.shared += bytes;
        current.placements.set(placement, sum);
      }
      insertLargest(current.largest, {
        handle: `0x${buffer[1]}`,
        bytes,
        placement,
        detail:
          rest
            .split('\t', 1)[0]
            ?.replace(/^ (VISIBLE|REMAP)/, '')
            .trim()
            .slice(0, 160) ?? '',
      });
      continue;
    }
    const endLine = END.exec(line);
    if (endLine) {
      summarizedEnd = { rc: count(endLine[3]) };
      buffers = count(endLine[2]) ?? buffers;
      continue;
    }
    const rc = RC.exec(line);
    if (rc) {
      rawRc = count(rc[1]);
      continue;
    }
    if (line.startsWith('gpumem-error ') && errors.length < 3) errors.push(line.slice('gpumem-error '.length, 200));
    else if (!current && line.trim() !== '' && errors.length < 3) {
      const error = readError(line);
      if (error) errors.push(line.slice(0, 200));
    }
  }
  if (clients.length === 0 && errors.length > 0) {
    const message = readError(errors[0] ?? '') ?? errors[0] ?? 'unreadable';
    return { kind: 'error', message };
  }
  const complete = summarizedEnd !== undefined ? summarizedEnd.rc === 0 : rawRc === 0 && text.length < 1048576;
  return {
    kind: 'read',
    clients: clients.map(({ pid, command, placements, largest }) => ({ pid, command, placements, largest })),
    buffers,
    complete,
    errors,
  };
}

/** `VRAM VISIBLE` is VRAM (the CPU-visible part); `MMIO REMAP` one placement; old kernels pad ` GTT`. */
function normalPlacement(word: string, rest: string): string {
  if (word === 'MMIO' && rest.startsWith(' REMAP')) return 'MMIO REMAP';
  return word;
}

function insertLargest(list: GemBuffer[], buffer: GemBuffer): void {
  if (list.length >= TOP_BUFFERS && (list[list.length - 1]?.bytes ?? 0) >= buffer.bytes) return;
  let at = list.findIndex((entry) => entry.bytes < buffer.bytes);
  if (at < 0) at = list.length;
  list.splice(at, 0, buffer);
  if (list.length > TOP_BUFFERS) list.length = TOP_BUFFERS;
}

export function parseTtmManager(text: string): TtmManager {
  let size: number | undefined;
  let usage: number | undefined;
  let visibleUsage: number | undefined;
  let lines = 0;
  for (const raw of text.split('\n', 2000)) {
    const line = raw.slice(0, MAX_LINE);
    lines += 1;
    const field = /^\s{0,4}(size|usage|vis usage):\s{0,4}(\d{1,20})\s*$/.exec(line);
    if (field?.[1]) {
      const value = count(field[2]);
      if (field[1] === 'size') size = value;
      else if (field[1] === 'usage') usage = value;
      else visibleUsage = value;
      continue;
    }
    // 5.x amdgpu_gtt_mgr_debug: `man size:%llu pages, gtt available:%lld pages, usage:%lluMB`.
    const old = /^man size:(\d{1,20}) pages, gtt available:-?\d{1,20} pages, usage:(\d{1,20})MB\s*$/.exec(line);
    if (old) {
      const pages = count(old[1]);
      const mb = count(old[2]);
      size ??= pages !== undefined && Number.isSafeInteger(pages * 4096) ? pages * 4096 : undefined;
      usage ??= mb !== undefined ? mb * 1024 * 1024 : undefined;
    }
  }
  const error = size === undefined && usage === undefined && lines > 0 ? readError(text) : undefined;
  return { size, usage, visibleUsage, error };
}

export function parseTtmPool(text: string): TtmPool {
  const trimmed = text.trim();
  if (trimmed === 'unused') return { kind: 'unused' };
  const rows: { label: string; counts: number[] }[] = [];
  let allocatedPages: number | undefined;
  let limitPages: number | undefined;
  for (const raw of text.split('\n', 200)) {
    const line = raw.slice(0, MAX_LINE);
    const row = /^([A-Za-z0-9 ]{0,16})\t:((?: {1,12}\d{1,12}){1,16})\s*$/.exec(line);
    if (row?.[2] !== undefined) {
      const counts = row[2]
        .trim()
        .split(/ +/)
        .map((value) => count(value) ?? 0);
      if (rows.length < 16) rows.push({ label: (row[1] ?? '').trim() || 'cached', counts });
      continue;
    }
    const total = /^total\t: {0,12}(\d{1,20}) of {0,12}(\d{1,20})\s*$/.exec(line);
    if (total) {
      allocatedPages = count(total[1]);
      limitPages = count(total[2]);
    }
  }
  if (rows.length === 0 && allocatedPages === undefined) {
    const message = readError(text);
    if (message) return { kind: 'error', message };
  }
  return { kind: 'table', rows, allocatedPages, limitPages };
}

/** Bytes of GPU memory per region (`gtt`, `vram`, `cpu`) a client holds, as fdinfo names the regions. */
export function gemRegionBytes(client: GemClient): Map<string, number> {
  const out = new Map<string, number>();
  for (const [placement, sum] of client.placements) {
    const region = placement === 'GTT' ? 'gtt' : placement === 'VRAM' ? 'vram' : placement === 'CPU' ? 'cpu' : undefined;
    if (region) out.set(region, (out.get(region) ?? 0) + sum.bytes);
  }
  return out;
}
