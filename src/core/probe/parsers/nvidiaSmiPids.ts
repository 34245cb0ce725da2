// The node probe's `nvidia-smi.pids` section: for each pid nvidia-smi listed as a compute app, the
// records `<root>/proc/<pid>/cgroup`, `comm` and `environ` (the script keeps only HAMi's limit
// variables of environ, one `KEY=value` a line, or `@environ-unreadable`), and `missing <root>/proc/<pid>`
// when this /proc has no such pid (nvidia-smi runs in another PID namespace).
import { cgroupPathFromProcCgroup } from '../podCgroup.ts';

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
  for (const [path, body] of files) {
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
  const absent: number[] = [];
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
