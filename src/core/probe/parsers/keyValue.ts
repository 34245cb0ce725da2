// Parsers for the kernel's simple text formats. All are tolerant: unknown keys are kept,
// malformed lines skipped, truncated input gives what it had.

/** `/proc/meminfo` and per-node meminfo: `Key:   123 kB` → bytes (values without a unit stay as numbers). */
export function parseMeminfo(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    // Per-node files prefix "Node 0 ".
    const match = /^(?:Node \d+ )?([A-Za-z0-9_()]+):\s+(\d+)(?:\s+(kB))?\s*$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const value = Number(match[2]);
    out.set(match[1], match[3] ? value * 1024 : value);
  }
  return out;
}

/** `key value` lines: /proc/vmstat, memory.events, memory.stat, memory.oom_control. */
export function parseKeyNumber(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z0-9_.]+)\s+(-?\d+)\s*$/.exec(line);
    if (match?.[1] && match[2] !== undefined) out.set(match[1], Number(match[2]));
  }
  return out;
}

/** `KEY=value` lines, with optional shell quoting (os-release, the probe's meta section). */
export function parseKeyEquals(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$/.exec(line.trim());
    if (!match?.[1]) continue;
    let value = match[2] ?? '';
    if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) value = value.slice(1, -1);
    out.set(match[1], value);
  }
  return out;
}

/** A cgroup single-value file: a byte count, or `max` for no limit; undefined when unreadable. */
export type CgroupLimit = { readonly kind: 'bytes'; readonly bytes: number } | { readonly kind: 'max' };

export function parseCgroupValue(text: string | undefined): CgroupLimit | undefined {
  const value = text?.trim();
  if (!value) return undefined;
  if (value === 'max') return { kind: 'max' };
  if (/^\d+$/.test(value)) return { kind: 'bytes', bytes: Number(value) };
  return undefined;
}

/** cgroup v1 reports "no limit" as a huge page-aligned number (PAGE_COUNTER_MAX × page size). */
export function v1Limit(text: string | undefined): CgroupLimit | undefined {
  const parsed = parseCgroupValue(text);
  if (parsed?.kind === 'bytes' && parsed.bytes >= 2 ** 62) return { kind: 'max' };
  return parsed;
}

/** dmem files: one `<region> <bytes|max>` line per region, e.g. `drm/0000:c5:00.0/vram 8589934592`. */
export function parseDmem(text: string | undefined): Map<string, CgroupLimit> {
  const out = new Map<string, CgroupLimit>();
  for (const line of (text ?? '').split('\n')) {
    const match = /^(\S+)\s+(\d+|max)\s*$/.exec(line.trim());
    if (!match?.[1] || !match[2]) continue;
    out.set(match[1], match[2] === 'max' ? { kind: 'max' } : { kind: 'bytes', bytes: Number(match[2]) });
  }
  return out;
}

/** Parses a kernel version such as `7.1.0-39-generic` or `6.18.44-fc-v595` into comparable parts. */
export function parseKernelVersion(release: string | undefined): { major: number; minor: number; patch: number } | undefined {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(release?.trim() ?? '');
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) };
}

export function kernelAtLeast(version: { major: number; minor: number } | undefined, major: number, minor: number): boolean | undefined {
  if (!version) return undefined;
  return version.major > major || (version.major === major && version.minor >= minor);
}
