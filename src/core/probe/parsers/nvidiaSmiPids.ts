// The node probe's `nvidia-smi.pids` section: for each pid nvidia-smi listed as a compute app, its cgroup (for
// the pod) and, of its environ, only HAMi's limit variables. Two forms. Where grep has -z, one grep over every
// pid's cgroup (`<root>/proc/pid-cgroups`, a `<pid>/cgroup:` line per file, its newlines turned into tabs) and
// one over every environ (`<root>/proc/environ-keys`, a `<pid>/environ:KEY=value` a line; `<root>/proc/environ-status`,
// grep's error lines, "No such file" meaning this /proc has no such pid, and its `rc N`). Else records per pid:
// `<root>/proc/<pid>/cgroup`, `environ` (`KEY=value` a line, or `@environ-unreadable`), in earlier captures also
// `comm`, and `missing <root>/proc/<pid>` for a pid this /proc has not (nvidia-smi runs in another PID namespace).
import { cgroupPathFromProcCgroup, parseBatchedProcCgroups } from '../podCgroup.ts';

export interface SmiPidRecord {
  readonly pid: number;
  /** The process's cgroup path (v2 line, or the v1 memory controller line); undefined when not read. */
  readonly cgroup: string | undefined;
  readonly comm: string | undefined;
  /** HAMi's limit variables as the process has them; undefined when environ was not read at all. */
  readonly env: ReadonlyMap<string, string> | undefined;
  readonly environUnreadable: boolean;
}

export interface SmiPids {
  readonly records: ReadonlyMap<number, SmiPidRecord>;
  /** Pids nvidia-smi listed that this /proc does not have. */
  readonly absent: readonly number[];
  /** The script stopped after its pid limit. */
  readonly truncated: boolean;
}

/** The variable names the script lets through; anything else in a record is dropped here too. */
const KEPT = /^(?:CUDA_DEVICE_MEMORY_LIMIT(?:_\d{1,3})?|CUDA_DEVICE_MEMORY_SHARED_CACHE|CUDA_DISABLE_CONTROL)$/;
const RECORD = /\/proc\/(\d{1,10})\/(cgroup|comm|environ)$/;
const ABSENT = /\/proc\/(\d{1,10})$/;
/** A line of the environ grep: `<pid>/environ:KEY=value` (the script runs it in <root>/proc). */
const BATCH_LINE = /^(\d{1,10})\/environ:([A-Z0-9_]{1,64})=([^\n]*)$/;
/** An error line of that grep names the file: `grep: <pid>/environ: Permission denied`. */
const BATCH_ERROR = /(?:^|[\s:])(\d{1,10})\/environ:/;
/** grep's rc: 0 (matches), 1 (none), 2 (some file unreadable) all mean it read every file it could. */
const BATCH_DONE = /^rc [012]$/;
/** A limit value longer than this is not one HAMi wrote (it writes `<n>m`). */
const MAX_VALUE = 256;

export function parseSmiPids(files: ReadonlyMap<string, string>, missing: readonly string[] = []): SmiPids {
  const records = new Map<number, { cgroup?: string; comm?: string; env?: Map<string, string>; unreadable: boolean }>();
  const entry = (pid: number) => {
    let value = records.get(pid);
    if (!value) {
      value = { unreadable: false };
      records.set(pid, value);
    }
    return value;
  };
  let batchKeys: string | undefined;
  let batchStatus: string | undefined;
  for (const [path, body] of files) {
    if (path.endsWith('/proc/environ-keys')) batchKeys = body;
    else if (path.endsWith('/proc/environ-status')) batchStatus = body;
    else if (path.endsWith('/proc/pid-cgroups')) for (const [pid, cgroup] of parseBatchedProcCgroups(body)) entry(pid).cgroup = cgroup;
    const match = RECORD.exec(path);
    if (!match?.[1] || !match[2]) continue;
    const pid = Number(match[1]);
    const record = entry(pid);
    if (match[2] === 'cgroup') record.cgroup = cgroupPathFromProcCgroup(body);
    else if (match[2] === 'comm') record.comm = body.trim().slice(0, 64);
    else {
      const env = new Map<string, string>();
      for (const line of body.split('\n')) {
        if (line === '@environ-unreadable') {
          record.unreadable = true;
          continue;
        }
        const eq = line.indexOf('=');
        if (eq <= 0) continue;
        const key = line.slice(0, eq);
        if (KEPT.test(key)) env.set(key, line.slice(eq + 1, eq + 1 + MAX_VALUE).trim());
      }
      record.env = env;
    }
  }
  const batch = batchKeys !== undefined && batchStatus !== undefined ? parseBatch(batchKeys, batchStatus) : undefined;
  if (batch) {
    for (const [pid, env] of batch.env) entry(pid).env = env;
    for (const pid of batch.unreadable) entry(pid).unreadable = true;
    for (const pid of batch.absent) {
      // Its cgroup was read: the process ended while the probe ran, so its environ is unknown, not absent.
      if (records.get(pid)?.cgroup !== undefined) entry(pid).unreadable = true;
      else records.delete(pid);
    }
    // A pid grep read without a match has no HAMi variable; if grep did not finish, nothing is known of it.
    if (batch.complete) for (const value of records.values()) if (!value.env && !value.unreadable) value.env = new Map();
  }
  const absent: number[] = [...(batch?.absent ?? [])].filter((pid) => !records.has(pid));
  let truncated = false;
  for (const what of missing) {
    if (what.startsWith('pids beyond ')) truncated = true;
    const match = ABSENT.exec(what);
    if (match?.[1]) absent.push(Number(match[1]));
  }
  const out = new Map<number, SmiPidRecord>();
  for (const [pid, value] of records) {
    out.set(pid, {
      pid,
      cgroup: value.cgroup,
      comm: value.comm,
      env: value.env,
      environUnreadable: value.unreadable,
    });
  }
  return { records: out, absent, truncated };
}

interface Batch {
  readonly env: Map<number, Map<string, string>>;
  readonly unreadable: Set<number>;
  readonly absent: Set<number>;
  readonly complete: boolean;
}

/** The one grep's matches and status; a grep that did not end (timeout, no /proc) reads as incomplete. */
function parseBatch(keys: string, status: string): Batch {
  const env = new Map<number, Map<string, string>>();
  for (const line of keys.split('\n')) {
    const match = BATCH_LINE.exec(line);
    if (!match?.[1] || !match[2] || !KEPT.test(match[2])) continue;
    const pid = Number(match[1]);
    let vars = env.get(pid);
    if (!vars) {
      vars = new Map();
      env.set(pid, vars);
    }
    vars.set(match[2], (match[3] ?? '').slice(0, MAX_VALUE).trim());
  }
  const unreadable = new Set<number>();
  const absent = new Set<number>();
  let complete = false;
  for (const raw of status.split('\n')) {
    const line = raw.trim();
    if (BATCH_DONE.test(line)) complete = true;
    else {
      const match = BATCH_ERROR.exec(line);
      if (!match?.[1]) continue;
      // No such file: this /proc has no such pid (the loop form's `missing <root>/proc/<pid>`).
      (line.endsWith('No such file or directory') ? absent : unreadable).add(Number(match[1]));
    }
  }
  for (const pid of [...unreadable, ...absent]) env.delete(pid);
  return { env, unreadable, absent, complete };
}
