// The agent's GPU watch, pure: the level one watch capture reads (gpuWatchScript.ts), and when a rise of it calls for
// a light sweep that says which pod took the memory. Between full cycles the agent reads the level every few
// seconds; a sweep costs as much as the DRM fds a node holds, so it runs only when the level has risen by at least
// WATCH_RISE_BYTES over its lowest point since the last look that attributed memory to pods (a full cycle or a
// sweep). A rise after a fall (one pod freeing, another taking) counts from the low point, so it is seen too.
import { parseCapture, sectionFiles, sectionText } from '../probe/capture.ts';
import type { DrmCard } from '../probe/parsers/drm.ts';
import { parseDrmCards } from '../probe/parsers/drm.ts';
import { parseBoundedNumber } from '../probe/parsers/kernelNumber.ts';
import { parseMeminfo } from '../probe/parsers/meminfo.ts';
import { nodeGpuLevel } from './gpuLevels.ts';

const MiB = 1024 * 1024;
/** A rise smaller than this is noise to right-sizing, whose steps are 0.5 GiB above 1 GiB (sizing.ts). */
export const WATCH_RISE_BYTES = 64 * MiB;

export type WatchReading =
  | { readonly kind: 'level'; readonly bytes: number; readonly source: 'gpu' | 'node-ram' }
  | { readonly kind: 'none'; readonly reason: string };

/** What the watch level is made of: the cards, each NVIDIA GPU's memory.used (MiB; undefined when `[N/A]`, or the
 *  list undefined when there is no nvidia-smi), and /proc/meminfo. */
export interface WatchInputs {
  readonly cards: readonly DrmCard[];
  readonly nvidiaUsedMiB: readonly (number | undefined)[] | undefined;
  readonly meminfo: ReadonlyMap<string, number>;
}

/** The cards' and NVIDIA GPUs' memory in use; on a GPU whose memory NVML cannot report (unified memory: `[N/A]`),
 *  the node's RAM in use. A full cycle and a watch reading compute it alike, so a rise between them is real. */
export function watchLevel(inputs: WatchInputs): WatchReading {
  const gpu = nodeGpuLevel(inputs.cards, inputs.nvidiaUsedMiB ?? []);
  if (gpu !== undefined) return { kind: 'level', bytes: gpu, source: 'gpu' };
  if (inputs.nvidiaUsedMiB !== undefined && inputs.nvidiaUsedMiB.length > 0) {
    const total = inputs.meminfo.get('MemTotal');
    const available = inputs.meminfo.get('MemAvailable');
    if (total !== undefined && available !== undefined) return { kind: 'level', bytes: Math.max(0, total - available), source: 'node-ram' };
  }
  return {
    kind: 'none',
    reason:
      inputs.cards.length === 0 && inputs.nvidiaUsedMiB === undefined
        ? 'no GPU memory counters on this node'
        : 'GPU memory in use unreadable',
  };
}

/** The level of one watch capture (gpuWatchScript.ts). */
export function watchReading(text: string): WatchReading {
  const capture = parseCapture(text);
  const smi = sectionText(capture, 'nvidia-smi.watch');
  const meminfo = sectionFiles(capture, 'proc').values().next().value;
  return watchLevel({
    cards: parseDrmCards(sectionFiles(capture, 'drm')),
    nvidiaUsedMiB: smi === undefined ? undefined : smiMemoryUsed(smi),
    meminfo: meminfo === undefined ? new Map() : parseMeminfo(meminfo),
  });
}

/** `index, memory.used` lines (MiB, no units); a placeholder such as `[N/A]` is undefined, never 0. */
function smiMemoryUsed(text: string): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  for (const line of text.split('\n')) {
    const comma = line.indexOf(',');
    if (comma < 0) continue;
    const index = parseBoundedNumber(line.slice(0, comma).trim());
    if (index === undefined) continue;
    out.push(parseBoundedNumber(line.slice(comma + 1).trim(), { fraction: true }));
  }
  return out;
}

/** Whether a watch reading calls for a sweep, from the low point since the last attributing look. */
export class GpuWatch {
  readonly #riseBytes: number;
  #low: number | undefined;

  constructor(riseBytes = WATCH_RISE_BYTES) {
    this.#riseBytes = riseBytes;
  }

  /** A look that attributed GPU memory to pods saw the node at `level` (undefined: unknown, the next reading sets it). */
  attributed(level: number | undefined): void {
    this.#low = level;
  }

  /** One reading; true when it has risen enough over the low point that a sweep should say who took it. */
  observe(level: number): boolean {
    if (this.#low === undefined || level < this.#low) {
      this.#low = level;
      return false;
    }
    return level - this.#low >= this.#riseBytes;
  }
}
