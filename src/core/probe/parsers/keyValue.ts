// The kernel's `key value` lines (/proc/vmstat, and under cgroupMemory.ts the memory cgroup's counters), `KEY=value`
// lines (os-release, the probe's meta section) and kernel versions. All are tolerant: unknown keys are kept,
// malformed lines skipped, truncated input gives what it had. Every number goes through the one bounded
// parser (kernelNumber.ts); a value out of range is left out and, given a sink, recorded as a problem.
import type { NumberProblems } from './kernelNumber.ts';
import { kernelValue } from './kernelNumber.ts';
import { parseBoundedNumber } from './kernelNumber.ts';

export interface KeyNumberOptions {
  /** memory.stat on cgroup v1 prints hierarchical_memory_limit as the "no limit" sentinel: skip such keys. */
  readonly allowSentinels?: boolean;
}

/** `key value` lines: /proc/vmstat, memory.events, memory.stat, memory.oom_control. Counters are unsigned. */
export function parseKeyNumber(text: string, sink?: NumberProblems, options: KeyNumberOptions = {}): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z0-9_.]+)[ \t]+([^\n]*)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const value = kernelValue(match[2], match[1], sink, { allowSentinels: options.allowSentinels ?? false });
    if (value !== undefined) out.set(match[1], value);
  }
  return out;
}

/** `KEY=value` lines, with optional shell quoting (os-release, the probe's meta section). */
export function parseKeyEquals(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_.-]*)=([^\n]*)$/.exec(line.trim());
    if (!match?.[1]) continue;
    let value = match[2] ?? '';
    if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))))
      value = value.slice(1, -1);
    out.set(match[1], value);
  }
  return out;
}

/** Parses a kernel version such as `7.1.0-39-generic` or `6.18.44-fc-v595` into comparable parts. */
export function parseKernelVersion(release: string | undefined): { major: number; minor: number; patch: number } | undefined {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(release?.trim() ?? '');
  if (!match) return undefined;
  const [major, minor, patch] = [parseBoundedNumber(match[1]), parseBoundedNumber(match[2]), parseBoundedNumber(match[3] ?? '0')];
  // A 400-digit "major" is not a kernel version (never Infinity).
  return major === undefined || minor === undefined || patch === undefined ? undefined : { major, minor, patch };
}

export function kernelAtLeast(version: { major: number; minor: number } | undefined, major: number, minor: number): boolean | undefined {
  if (!version) return undefined;
  return version.major > major || (version.major === major && version.minor >= minor);
}
