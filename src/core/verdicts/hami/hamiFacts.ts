// What the HAMi checks share: the facts gathered once from the capture (`Facts`), reading HAMi's
// env (limit variables, truthy values, `parseHamiLimit`), and building a check and its evidence lines.
import { pushAll } from '../../arrays.ts';
import type { ContainerProbe } from '../../probe/parsers/containerProbe.ts';
import type { ContainerProcess } from '../../probe/parsers/containerProcesses.ts';
import type { HamiLogLine } from '../../probe/parsers/hamiLog.ts';
import type { Check, CheckCommon } from './hamiCheck.ts';

export const LIMIT_VAR = /^CUDA_DEVICE_MEMORY_LIMIT(?:_\d+)?$/;
const TRUE_VALUES = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * A CUDA_DEVICE_MEMORY_LIMIT value in bytes, as HAMi-core's get_limit_from_env reads it: an optional
 * G/g, M/m or K/k suffix (powers of 1024), then strtoul base 0 (0x… hex, leading-0 octal) on the
 * digits. 0 means no limit (HAMi-core logs "invalid device memory limit" and does not enforce).
 */
export function parseHamiLimit(value: string): number {
  let text = value;
  let scale = 1;
  const last = text.slice(-1);
  if (last === 'G' || last === 'g') scale = 1024 ** 3;
  else if (last === 'M' || last === 'm') scale = 1024 ** 2;
  else if (last === 'K' || last === 'k') scale = 1024;
  if (scale !== 1) text = text.slice(0, -1);
  const match = /^\s*[+]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(text);
  if (!match || match[1] === undefined) return 0;
  const digits = match[1];
  const n = /^0[xX]/.test(digits)
    ? parseInt(digits.slice(2), 16)
    : digits.startsWith('0') && digits.length > 1
      ? parseInt(digits.slice(1), 8)
      : Number(digits);
  return Number.isFinite(n) ? n * scale : 0;
}

export function isTrue(value: string | undefined): boolean {
  return value !== undefined && TRUE_VALUES.has(value.trim());
}

export function limitVars(env: Readonly<Record<string, string>> | undefined): [string, string][] {
  return Object.entries(env ?? {}).filter(([key]) => LIMIT_VAR.test(key));
}

export function envLine(where: string, env: Readonly<Record<string, string>>, key: string): string {
  return `${where}: ${key}=${env[key] ?? ''}`;
}

export function processLines(process: ContainerProcess, match: (line: string) => boolean): string[] {
  return process.lines.filter(match).map((line) => `/proc/${process.pid}: ${line}`);
}

/** A check before its finding: everything but the title and summary. */
export type CheckBase = Omit<CheckCommon, 'title' | 'summary'>;

export function pass(common: CheckBase, title: string, summary: string): Check {
  return { ...common, title, summary, status: 'pass' };
}
export function fail(common: CheckBase, title: string, summary: string, remedy: string, sameCauseAs: readonly string[] = []): Check {
  return { ...common, title, summary, status: 'fail', remedy, ...(sameCauseAs.length > 0 ? { sameCauseAs } : {}) };
}
export function unknown(common: CheckBase, title: string, summary: string, remedy: string): Check {
  return { ...common, title, summary, status: 'unknown', remedy };
}

/** "a", "a and b", "a, b and c", "a, b, c and 4 more": distinct names, at most `max` of them, so a title stays short. */
export function nameList(names: readonly string[], max = 3): string {
  const distinct = [...new Set(names)];
  const shown = distinct.slice(0, max);
  const rest = distinct.length - shown.length;
  if (rest > 0) return `${shown.join(', ')} and ${rest} more`;
  if (shown.length <= 1) return shown[0] ?? '';
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1] ?? ''}`;
}

/** `count` with the noun in the right number: "1 process", "2 processes". */
export function counted(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "pid 7" or "pids 7, 9, 12": at most 10, so a summary stays one line. */
export function pidList(pids: readonly number[]): string {
  const shown = pids.slice(0, 10).join(', ');
  return `${pids.length === 1 ? 'pid' : 'pids'} ${shown}${pids.length > 10 ? ` and ${pids.length - 10} more` : ''}`;
}

export interface Facts {
  readonly container: ContainerProbe | undefined;
  readonly pid1: ContainerProcess | undefined;
  readonly pid1Env: Readonly<Record<string, string>> | undefined;
  readonly gpuProcs: readonly ContainerProcess[];
  readonly processes: readonly ContainerProcess[] | undefined;
  readonly logLines: readonly (HamiLogLine & { readonly where: string })[];
  readonly logLevel: string | undefined;
  /** Every CUDA process maps libvgpu.so and names it in LD_PRELOAD (HAMi-core used standalone). */
  readonly ldPreloadCarries: boolean;
}

/**
 * No usable /etc/ld.so.preload (`what` says how). When every CUDA process still maps libvgpu.so through
 * LD_PRELOAD (HAMi-core used standalone), the running processes are limited and only new ones are at risk.
 */
export function failNoPreload(
  facts: Facts,
  common: CheckBase,
  what: string,
  summary: string,
  remedy: string,
  sameCauseAs: readonly string[] = [],
): Check {
  if (!facts.ldPreloadCarries) return fail(common, `${what}: nothing preloads libvgpu.so`, summary, remedy, sameCauseAs);
  const evidence = [
    ...common.evidence,
    ...facts.gpuProcs.flatMap((process) => processLines(process, (line) => line.startsWith('LD_PRELOAD='))),
  ];
  return fail(
    { ...common, evidence, impact: 'risk' },
    `${what}: only LD_PRELOAD loads libvgpu.so`,
    'the running CUDA processes name libvgpu.so in LD_PRELOAD, so they are limited; processes started without that variable are not',
    remedy,
    sameCauseAs,
  );
}

export function preloadEvidence(facts: Facts): string[] {
  const preload = facts.container?.preload;
  const evidence: string[] = [];
  if (!preload) return evidence;
  if (preload.state === 'missing') evidence.push('preload: missing /etc/ld.so.preload');
  if (preload.lsLine) evidence.push(`preload: ${preload.lsLine}`);
  if (preload.content !== undefined) {
    const contentLines = bodyLines(preload.content);
    pushAll(
      evidence,
      contentLines.length > 0 ? contentLines.map((line) => `/etc/ld.so.preload: ${line}`) : ['/etc/ld.so.preload: (empty)'],
    );
  }
  for (const mount of facts.container?.mounts ?? [])
    if (mount.mountPoint === '/etc/ld.so.preload') evidence.push(`mountinfo: ${mount.line}`);
  return evidence;
}

export function bodyLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '');
}
