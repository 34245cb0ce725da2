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

/**
 * `key value` lines: /proc/vmstat, memory.events, memory.stat, memory.oom_control. Counters are unsigned. A line is
 * a key of `[A-Za-z0-9_.]`, spaces or tabs, then the value (the rest of the line); any other line is skipped. Read by
 * position, with no array of lines and no match per line: the agent reads a memory.stat of ~40 lines for every pod
 * and container cgroup each cycle (16,000 lines on the bench's 200-pod node).
 */
export function parseKeyNumber(text: string, sink?: NumberProblems, options: KeyNumberOptions = {}): Map<string, number> {
  const out = new Map<string, number>();
  // `firstToken`: a value followed by a note (`oom_kill 3   <- after the load`) is still read.
  const numberOptions = { allowSentinels: options.allowSentinels ?? false, firstToken: true, noteOnly: true };
  let from = 0;
  while (from <= text.length) {
    let end = text.indexOf('\n', from);
    if (end < 0) end = text.length;
    let keyEnd = from;
    while (keyEnd < end && isKeyChar(text.charCodeAt(keyEnd))) keyEnd++;
    let valueStart = keyEnd;
    while (valueStart < end && isBlank(text.charCodeAt(valueStart))) valueStart++;
    if (keyEnd > from && valueStart > keyEnd) {
      const key = text.slice(from, keyEnd);
      const value = kernelValue(text.slice(valueStart, end), key, sink, numberOptions);
      if (value !== undefined) out.set(key, value);
    }
    from = end + 1;
  }
  return out;
}

/** [A-Za-z0-9_.] */
function isKeyChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 46;
}

/** A space or a tab. */
function isBlank(code: number): boolean {
  return code === 32 || code === 9;
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
