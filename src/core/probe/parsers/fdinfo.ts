// DRM fdinfo (Documentation/gpu/drm-usage-stats.rst): per-client GPU memory by region,
// deduplicated on drm-client-id, attributed to processes and, through their cgroup, to pods.
import { cgroupPathFromProcCgroup, parsePodCgroup } from '../podCgroup.ts';
import type { NumberProblem, NumberProblems } from './kernelNumber.ts';
import { kernelValue } from './kernelNumber.ts';
import { ownString } from '../../text/ownString.ts';

export interface DrmClient {
  readonly clientId: string | undefined;
  readonly driver: string | undefined;
  readonly pdev: string | undefined;
  /** Resident bytes per region (`drm-resident-<r>`, or the deprecated alias `drm-memory-<r>`). */
  readonly resident: ReadonlyMap<string, number>;
  /** Total bytes per region (`drm-total-<r>`), when the driver reports it. */
  readonly total: ReadonlyMap<string, number>;
  /**
   * amdgpu only (amdgpu_show_fdinfo, amdgpu_fdinfo.c): `amd-requested-vram`, the client's buffers placed in VRAM
   * or wanting it, and `amd-evicted-vram`, those of its buffers that prefer VRAM (preferred_domains) but sit
   * elsewhere (GTT or system RAM: evicted, or never placed). KiB in the file, bytes here.
   */
  readonly amdRequestedVram?: number;
  readonly amdEvictedVram?: number;
}

/** drm-usage-stats.rst: `<uint> [KiB|MiB]` (drm_fdinfo_print_size also prints GiB); bare numbers are bytes. */
const UNITS: Readonly<Record<string, number>> = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** Parses one fdinfo file. Non-DRM fdinfo (pos/flags/mnt_id only) gives a client with no driver and no memory. */
export function parseFdinfo(text: string, sink?: NumberProblems): DrmClient {
  const fields = relevantFields(text);
  const resident = new Map<string, number>();
  const total = new Map<string, number>();
  fields.forEach((value, key) => {
    const kind = memoryKind(key);
    if (kind === undefined) return;
    const region = key.slice(kind.length);
    const bytes = memoryValue(value, key, sink);
    if (bytes === undefined) return;
    if (kind === TOTAL) total.set(region, bytes);
    // drm-resident-* wins over the deprecated drm-memory-* alias, when it is readable (not cut or garbled).
    else if (kind === RESIDENT || parseMemoryValue(fields.get(`${RESIDENT}${region}`) ?? '') === undefined) resident.set(region, bytes);
  });
  const amd = (key: string) => {
    const value = fields.get(key);
    return value === undefined ? undefined : memoryValue(value, key, sink);
  };
  const requested = amd('amd-requested-vram');
  const evicted = amd('amd-evicted-vram');
  return {
    clientId: fields.get('drm-client-id'),
    driver: fields.get('drm-driver'),
    pdev: fields.get('drm-pdev'),
    resident,
    total,
    ...(requested !== undefined ? { amdRequestedVram: requested } : {}),
    ...(evicted !== undefined ? { amdEvictedVram: evicted } : {}),
  };
}

const RESIDENT = 'drm-resident-';
const MEMORY = 'drm-memory-';
const TOTAL = 'drm-total-';
/** The keys parseFdinfo reads besides the memory regions. */
const NAMED_KEYS: ReadonlySet<string> = new Set(['drm-client-id', 'drm-driver', 'drm-pdev', 'amd-requested-vram', 'amd-evicted-vram']);

/**
 * The memory prefix of a `drm-(resident|memory|total)-<region>` key, or undefined. `drm-*-cycles-<engine>` is an
 * engine counter (drm-total-cycles-gfx), not a memory region.
 */
function memoryKind(key: string): typeof RESIDENT | typeof MEMORY | typeof TOTAL | undefined {
  const kind = key.startsWith(RESIDENT) ? RESIDENT : key.startsWith(MEMORY) ? MEMORY : key.startsWith(TOTAL) ? TOTAL : undefined;
  if (kind === undefined || key.length === kind.length || key.startsWith('cycles-', kind.length)) return undefined;
  return kind;
}

/** The code units String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator). */
function isTrimmed(code: number): boolean {
  return (
    (code >= 9 && code <= 13) ||
    code === 32 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * The `key: value` lines that parseFdinfo reads (the memory regions and the keys it names, each trimmed, the last of
 * a repeated key), in the order their keys first appear. Every other line (pos, flags, the engine counters, the
 * shared and purgeable sizes that make up most of an amdgpu fdinfo) is stepped over without a string made for it, and
 * a kept line makes two (its key and its value, trimmed in place): the agent parses thousands of these files a cycle.
 */
function relevantFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  let from = 0;
  // The first colon at or after `from`, found again only once passed: a file of lines without one stays linear.
  let colon = text.indexOf(':');
  while (from <= text.length) {
    let end = text.indexOf('\n', from);
    if (end < 0) end = text.length;
    if (colon !== -1 && colon < from) colon = text.indexOf(':', from);
    if (colon > from && colon < end) {
      let start = from;
      while (start < colon && isTrimmed(text.charCodeAt(start))) start++;
      if (text.startsWith('drm-', start) || text.startsWith('amd-', start)) {
        let keyEnd = colon;
        while (keyEnd > start && isTrimmed(text.charCodeAt(keyEnd - 1))) keyEnd--;
        const key = text.slice(start, keyEnd);
        if (NAMED_KEYS.has(key) || memoryKind(key) !== undefined) {
          let valueStart = colon + 1;
          let valueEnd = end;
          while (valueStart < valueEnd && isTrimmed(text.charCodeAt(valueStart))) valueStart++;
          while (valueEnd > valueStart && isTrimmed(text.charCodeAt(valueEnd - 1))) valueEnd--;
          fields.set(key, text.slice(valueStart, valueEnd));
        }
      }
    }
    from = end + 1;
  }
  return fields;
}

/**
 * A memory value: `<uint>` bytes or `<uint> KiB|MiB|GiB`, through the bounded kernel number parser. Text after
 * the unit (a `grep` dump, a comment added by hand) is ignored; an unknown unit, a sign or a fraction is not a value.
 */
export function parseMemoryValue(value: string): number | undefined {
  return memoryValue(value, '', undefined);
}

function memoryValue(value: string, field: string, sink: NumberProblems | undefined): number | undefined {
  return kernelValue(value, field, sink, { units: UNITS, firstToken: true });
}

/** Whether a client reports any memory: a driver line, or `drm-memory-*`/`drm-resident-*`/`drm-total-*` keys (a grep keeps only those). */
function isDrmClient(client: DrmClient): boolean {
  return (client.driver !== undefined && client.driver !== '') || client.resident.size > 0 || client.total.size > 0;
}

/** `<drm-pdev>#<drm-client-id>` as parseFdinfo would key the client, read from those two lines alone. */
function clientKeyOf(text: string): string | undefined {
  const id = fieldOf(text, 'drm-client-id:', '\ndrm-client-id:');
  return id === undefined ? undefined : `${fieldOf(text, 'drm-pdev:', '\ndrm-pdev:') ?? ''}#${id}`;
}

/**
 * The trimmed value of the last line starting with `key` (parseFdinfo keeps the last of a repeated key). Searched
 * forwards: lastIndexOf compares character by character, and this runs twice for each of the thousands of fds.
 */
function fieldOf(text: string, key: string, lineOfKey: string): string | undefined {
  let at = text.startsWith(key) ? 0 : -1;
  for (let next = text.indexOf(lineOfKey); next >= 0; next = text.indexOf(lineOfKey, next + 1)) at = next + 1;
  if (at < 0) return undefined;
  const end = text.indexOf('\n', at);
  return text.slice(at + key.length, end < 0 ? text.length : end).trim();
}

export interface ProcessGpuMemory {
  readonly pid: number;
  readonly comm: string | undefined;
  /** The process's cgroup path (v2 line, or the v1 memory controller line). */
  readonly cgroup: string | undefined;
  readonly clients: readonly DrmClient[];
  /** Bytes per region summed over this process's distinct clients. */
  readonly byRegion: ReadonlyMap<string, number>;
}

const BY_POD = new WeakMap<readonly ProcessGpuMemory[], ReadonlyMap<string, readonly ProcessGpuMemory[]>>();
const NONE: readonly ProcessGpuMemory[] = [];

/**
 * The GPU processes of a pod (by its cgroup), from an index built once per list: a verdict that looked at every
 * process for every pod cost pods × processes cgroup parses (4,000 × 4,000 on a large node).
 */
export function gpuProcessesOfPod(processes: readonly ProcessGpuMemory[], podUid: string): readonly ProcessGpuMemory[] {
  let index = BY_POD.get(processes);
  if (!index) {
    const built = new Map<string, ProcessGpuMemory[]>();
    for (const process of processes) {
      const uid = process.cgroup === undefined ? undefined : parsePodCgroup(process.cgroup)?.podUid;
      if (uid === undefined) continue;
      const list = built.get(uid);
      if (list) list.push(process);
      else built.set(uid, [process]);
    }
    index = built;
    BY_POD.set(processes, index);
  }
  return index.get(podUid) ?? NONE;
}

/**
 * The probe's `fdinfo` section records (`<proc>/<pid>/fdinfo/<fd>`, `<proc>/<pid>/cgroup`, `<proc>/<pid>/comm`) grouped
 * by process, keeping one client per drm-client-id (dup'ed and shared fds repeat the same client). Records are added one
 * at a time, so the agent folds them in as the capture arrives (CaptureParser's `fold`) and never holds the sweep's text.
 */
export class FdinfoAggregate {
  readonly #byPid = new Map<number, { comm?: string; cgroup?: string; clients: Map<string, DrmClient> }>();
  readonly #problems: NumberProblem[] = [];

  /** A record as the probe recorded it: a pasted grep dump of many fds is split into them first. */
  addRecord(path: string, body: string): void {
    const split = splitGrepDump(body);
    if (!split) this.add(path, body);
    else for (const [file, text] of split) this.add(file, text);
  }

  /** One file's text. */
  add(path: string, body: string): void {
    const file = procFileOf(path);
    if (!file) return;
    const pid = file.pid;
    // What the model keeps is copied: a slice would keep the piece of the capture it came from (a streaming parse's
    // 64 KiB chunk, one for each process) until the analysis ends.
    if (file.kind === 'comm') this.#entry(pid).comm = kept(body.trim());
    else if (file.kind === 'cgroup') this.#entry(pid).cgroup = kept(cgroupOf(body));
    else {
      // A dup()ed or inherited fd repeats a client this process already has (a GPU process has ~5 fds per client):
      // its key is found without parsing the whole file, and the first copy stands.
      const known = clientKeyOf(body);
      if (known !== undefined && this.#byPid.get(pid)?.clients.has(known)) return;
      const parsed = parseFdinfo(body, { file: path, problems: this.#problems });
      if (!isDrmClient(parsed)) return;
      const client = { ...parsed, clientId: kept(parsed.clientId), driver: kept(parsed.driver), pdev: kept(parsed.pdev) };
      const key = client.clientId !== undefined ? `${client.pdev ?? ''}#${client.clientId}` : `fd#${file.fd}`;
      const clients = this.#entry(pid).clients;
      if (!clients.has(key)) clients.set(key, client);
    }
  }

  /** The processes with at least one client, by pid; the numbers out of range are appended to `problems`. */
  result(problems?: NumberProblem[]): ProcessGpuMemory[] {
    if (problems) for (const problem of this.#problems) problems.push(problem);
    const out: ProcessGpuMemory[] = [];
    for (const [pid, value] of this.#byPid) {
      if (value.clients.size === 0) continue;
      const byRegion = new Map<string, number>();
      for (const client of value.clients.values()) {
        for (const [region, bytes] of client.resident) byRegion.set(region, (byRegion.get(region) ?? 0) + bytes);
      }
      out.push({ pid, comm: value.comm, cgroup: value.cgroup, clients: [...value.clients.values()], byRegion });
    }
    return out.sort((a, b) => a.pid - b.pid);
  }

  #entry(pid: number) {
    let value = this.#byPid.get(pid);
    if (!value) {
      value = { clients: new Map() };
      this.#byPid.set(pid, value);
    }
    return value;
  }
}

export type ProcFile =
  | { readonly pid: number; readonly kind: 'comm' }
  | { readonly pid: number; readonly kind: 'cgroup' }
  | { readonly pid: number; readonly kind: 'fdinfo'; readonly fd: string };

/**
 * What `…/proc/<pid>/fdinfo/<fd>`, `…/proc/<pid>/cgroup` or `…/proc/<pid>/comm` names (pid and fd of 1 to 10 digits),
 * read by position: the agent's sweep adds 10,000 of these a cycle, and a match array each was 2 MiB of garbage.
 * The same paths as /\/proc\/(\d{1,10})\/(fdinfo\/(\d{1,10})|cgroup|comm)$/ (fdinfoFields.test.ts holds it to that).
 */
export function procFileOf(path: string): ProcFile | undefined {
  let dirEnd: number;
  let fd: string | undefined;
  if (path.endsWith('/comm')) dirEnd = path.length - 5;
  else if (path.endsWith('/cgroup')) dirEnd = path.length - 7;
  else {
    const at = path.lastIndexOf('/fdinfo/');
    if (at < 0 || !isDigits(path, at + 8, path.length)) return undefined;
    dirEnd = at;
    fd = path.slice(at + 8);
  }
  const slash = path.lastIndexOf('/', dirEnd - 1);
  if (slash < 5 || !path.startsWith('/proc', slash - 5) || !isDigits(path, slash + 1, dirEnd)) return undefined;
  const pid = Number(path.slice(slash + 1, dirEnd));
  if (fd !== undefined) return { pid, kind: 'fdinfo', fd };
  return path.endsWith('/comm') ? { pid, kind: 'comm' } : { pid, kind: 'cgroup' };
}

/** Whether text[from, to) is 1 to 10 ASCII digits. */
function isDigits(text: string, from: number, to: number): boolean {
  if (to - from < 1 || to - from > 10) return false;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** V8 copies a substring shorter than 13 characters; a longer one is a slice that keeps its parent. */
function kept<T extends string | undefined>(text: T): T {
  return (text === undefined || text.length < 13 ? text : ownString(text)) as T;
}

/** FdinfoAggregate over records keyed by path; grep dumps of the same fd in several records are joined first. */
export function aggregateFdinfo(records: ReadonlyMap<string, string>, problems?: NumberProblem[]): ProcessGpuMemory[] {
  const aggregate = new FdinfoAggregate();
  for (const [path, body] of expandGrepDumps(records)) aggregate.add(path, body);
  return aggregate.result(problems);
}

/**
 * A pasted `grep drm-memory /proc/<pid>/fdinfo/<fd>…` dump (a glob over many files prints `<path>:<line>` for each
 * match, every non-empty line starting with a `/proc/<pid>/fdinfo/<fd>:` path) becomes one record per path, so
 * each fd is its own client as in the probe's sweep.
 */
function expandGrepDumps(records: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, body] of records) {
    const split = splitGrepDump(body);
    if (!split) {
      out.set(path, body);
      continue;
    }
    for (const [file, text] of split) out.set(file, (out.get(file) ?? '') + text);
  }
  return out;
}

function splitGrepDump(body: string): Map<string, string> | undefined {
  // Every line of a dump starts with /proc/ (after blank lines): a file that does not is rejected unsplit.
  if (!body.trimStart().startsWith('/proc/')) return undefined;
  const files = new Map<string, string>();
  for (const line of body.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^(\/proc\/\d{1,10}\/fdinfo\/\d{1,10}):([^\n]*)$/.exec(line);
    if (!match?.[1]) return undefined;
    files.set(match[1], `${files.get(match[1]) ?? ''}${match[2] ?? ''}\n`);
  }
  return files.size > 0 ? files : undefined;
}

/**
 * The cgroup path from /proc/<pid>/cgroup: the v2 `0::` line on a v2 host, the v1 memory controller line
 * on a v1 host. On a hybrid host both exist and the `0::` line is often just `/`, so the choice is
 * podCgroup's (the line that places the process in a pod).
 */
export function cgroupOf(text: string): string | undefined {
  return cgroupPathFromProcCgroup(text);
}
