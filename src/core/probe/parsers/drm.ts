// DRM devices from sysfs (/sys/class/drm/cardN/device): vendor, device id, VRAM and GTT in bytes.
import type { NumberProblem } from './kernelNumber.ts';
import { kernelValue } from './kernelNumber.ts';

export interface DrmCard {
  readonly card: string;
  readonly vendorId: string | undefined;
  readonly deviceId: string | undefined;
  readonly driver: string | undefined;
  readonly vramTotal: number | undefined;
  readonly vramUsed: number | undefined;
  readonly gttTotal: number | undefined;
  readonly gttUsed: number | undefined;
  readonly visVramTotal: number | undefined;
  readonly vramVendor: string | undefined;
}

export const PCI_VENDORS: Record<string, string> = { '0x1002': 'AMD', '0x10de': 'NVIDIA', '0x8086': 'Intel' };

/** AMD APUs whose GPU memory is system RAM (device ids from the AMD GPU database). */
export const UNIFIED_MEMORY_DEVICES: Record<string, string> = {
  '0x1586': 'Strix Halo (gfx1151, Ryzen AI Max)',
  '0x150e': 'Strix Point (gfx1150)',
  '0x1114': 'Krackan Point (gfx1152)',
};

export function parseDrmCards(files: ReadonlyMap<string, string>, problems?: NumberProblem[]): DrmCard[] {
  const cards = new Map<string, Map<string, string>>();
  const paths = new Map<string, string>();
  for (const [path, body] of files) {
    const match = /\/sys\/class\/drm\/(card\d+)\/device\/([A-Za-z0-9_-]+)$/.exec(path);
    if (!match?.[1] || !match[2]) continue;
    const fields = cards.get(match[1]) ?? new Map<string, string>();
    fields.set(match[2], body.trim());
    cards.set(match[1], fields);
    paths.set(`${match[1]}/${match[2]}`, path);
  }
  // sysfs prints one "%llu\n"; a value copied by hand may carry a comment after it: the first integer token counts.
  const numberOf = (card: string, fields: ReadonlyMap<string, string>, name: string) => {
    const value = fields.get(name);
    if (value === undefined) return undefined;
    return kernelValue(value, name, problems ? { file: paths.get(`${card}/${name}`) ?? name, problems } : undefined, { firstToken: true });
  };
  return [...cards.entries()]
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([card, fields]) => {
      const number = (name: string) => numberOf(card, fields, name);
      return {
        card,
        vendorId: fields.get('vendor')?.toLowerCase(),
        deviceId: fields.get('device')?.toLowerCase(),
        driver: fields.get('driver-name'),
        vramTotal: number('mem_info_vram_total'),
        vramUsed: number('mem_info_vram_used'),
        gttTotal: number('mem_info_gtt_total'),
        gttUsed: number('mem_info_gtt_used'),
        visVramTotal: number('mem_info_vis_vram_total'),
        vramVendor: fields.get('mem_info_vram_vendor'),
      };
    });
}

/** Module parameters from /sys/module/<m>/parameters/<p>. */
export function parseModuleParams(files: ReadonlyMap<string, string>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const [path, body] of files) {
    const match = /\/sys\/module\/([A-Za-z0-9_]+)\/parameters\/([A-Za-z0-9_]+)$/.exec(path);
    if (!match?.[1] || !match[2]) continue;
    const params = out.get(match[1]) ?? new Map<string, string>();
    params.set(match[2], body.trim());
    out.set(match[1], params);
  }
  return out;
}
