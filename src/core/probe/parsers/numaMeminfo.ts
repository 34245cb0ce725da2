// Per-NUMA-node memory: /sys/devices/system/node/node<N>/meminfo (Documentation/ABI/stable/sysfs-devices-node,
// "node/nodeX/meminfo"), the probe's `numa` section. Each line is `Node <N> <Key>: <value> kB`, as /proc/meminfo but
// per node (drivers/base/node.c, node_read_meminfo); meminfo.ts reads the lines. The kernel's NUMA node lists
// (`mems_allowed=0-1,3`, `nodemask=1`) are read here too, bounded.
import type { NumberProblems } from './kernelNumber.ts';
import { parseMeminfo } from './meminfo.ts';

/** One NUMA node's memory, bytes. */
export interface NumaNodeMemory {
  readonly node: number;
  readonly totalBytes?: number;
  readonly freeBytes?: number;
  /** Every key of the node's meminfo (bytes, unit-less counts as written). */
  readonly meminfo: ReadonlyMap<string, number>;
}

const NODE_FILE = /\/node(\d{1,4})\/meminfo$/;

/** The `numa` section's files (path → content) → node number → its memory, in node order. */
export function parseNumaMeminfo(files: ReadonlyMap<string, string>, sink?: (file: string) => NumberProblems): NumaNodeMemory[] {
  const nodes: NumaNodeMemory[] = [];
  for (const [path, content] of files) {
    const match = NODE_FILE.exec(path);
    if (!match?.[1]) continue;
    const meminfo = parseMeminfo(content, sink?.(path));
    if (meminfo.size === 0) continue;
    const total = meminfo.get('MemTotal');
    const free = meminfo.get('MemFree');
    nodes.push({
      node: Number(match[1]),
      ...(total !== undefined ? { totalBytes: total } : {}),
      ...(free !== undefined ? { freeBytes: free } : {}),
      meminfo,
    });
  }
  return nodes.sort((a, b) => a.node - b.node);
}

/** At most this many nodes in a list: the kernel's MAX_NUMNODES is 1024 (CONFIG_NODES_SHIFT=10). */
const MAX_NODES = 1024;

/**
 * A kernel node list (`0`, `0-1`, `0,2-3`; lib/bitmap-str.c's `%*pbl`) → node numbers; undefined when it is not one
 * (`(null)`, a cut value, garbage). Linear, bounded at MAX_NODES numbers.
 */
export function parseNodeList(list: string | undefined): number[] | undefined {
  if (list === undefined || list === '') return undefined;
  const out: number[] = [];
  for (const part of list.split(',')) {
    const range = /^(\d{1,4})(?:-(\d{1,4}))?$/.exec(part);
    if (!range?.[1]) return undefined;
    const from = Number(range[1]);
    const to = range[2] !== undefined ? Number(range[2]) : from;
    if (to < from || to >= MAX_NODES || out.length + (to - from + 1) > MAX_NODES) return undefined;
    for (let node = from; node <= to; node++) out.push(node);
  }
  return out;
}
