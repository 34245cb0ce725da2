// The lines of one OOM kill report, each parsed on its own (mm/oom_kill.c: dump_header's "invoked oom-killer",
// dump_oom_summary's "oom-kill:", oom_kill_process / __oom_kill_process's "Killed process"), and the event they
// make together. kernelLog.ts assembles the lines of a log into events.
import { parseBoundedNumber } from './kernelNumber.ts';

export interface EvidenceLine {
  /** 1-based line number in the parsed text. */
  readonly line: number;
  /** The line exactly as it appears in the log (without its line break). */
  readonly text: string;
}

export type OomScope = 'global' | 'memcg';

/** The `oom-kill:` summary line (4.19+), parsed as tolerant key=value pairs. */
export interface OomKillSummary {
  readonly constraint?: string;
  readonly nodemask?: string;
  readonly cpuset?: string;
  readonly memsAllowed?: string;
  /** The memory cgroup whose limit was hit (memcg OOM). */
  readonly oomMemcg?: string;
  /** The bare `global_oom` flag (global OOM). */
  readonly globalOom: boolean;
  readonly taskMemcg?: string;
  readonly task?: string;
  readonly pid?: number;
  readonly uid?: number;
  /** Every key=value pair as written, including keys this parser does not know. */
  readonly fields: Readonly<Record<string, string>>;
  /**
   * The line stops before the kernel's last field, `uid=` (mm/oom_kill.c, dump_oom_summary, prints
   * `,task=…,pid=…,uid=…` last), or ends in journalctl's ellipsis: a terminal, a pager or a paste cut it. The last
   * value read (`lastKey`) is then partial.
   */
  readonly cut?: { readonly lastKey?: string };
}

export interface KilledProcess {
  /**
   * `Out of memory`, `Out of memory (oom_kill_allocating_task)`, `Memory cgroup out of memory`; undefined for the pre-5.0 bare `Killed
   * process` line.
   */
  readonly reason?: string;
  readonly pid: number;
  /** Undefined when the line was cut before the name. */
  readonly comm?: string;
  readonly totalVmKb?: number;
  readonly anonRssKb?: number;
  readonly fileRssKb?: number;
  readonly shmemRssKb?: number;
  readonly uid?: number;
  readonly pgtablesKb?: number;
  readonly oomScoreAdj?: number;
  readonly line: number;
}

/** The pre-5.0 `<Reason>: Kill process <pid> (<comm>) score <n> or sacrifice child` line. */
export interface KillCandidate {
  readonly reason: string;
  readonly pid: number;
  readonly comm?: string;
  readonly score?: number;
  readonly line: number;
}

export interface OomInvoker {
  readonly comm: string;
  readonly gfpMask?: string;
  readonly order?: number;
  readonly oomScoreAdj?: number;
}

export interface OomEvent {
  /** The timestamp of the event's first line, as written in the log (wall clock or seconds since boot). */
  readonly timestamp?: string;
  /** Seconds since boot in brackets, when the line also had one (syslog and journal lines can carry both). */
  readonly monotonic?: string;
  readonly invoker?: OomInvoker;
  readonly summary?: OomKillSummary;
  /** The constraint from the summary line; any value is kept (`CONSTRAINT_BPF` and others exist). */
  readonly constraint?: string;
  readonly oomMemcg?: string;
  readonly globalOom: boolean;
  readonly taskMemcg?: string;
  /** The pre-4.19 `Task in <task> killed as a result of limit of <limit>` line. */
  readonly legacyTaskIn?: { readonly task: string; readonly limitOf: string };
  /** Pre-4.19 `<comm> cpuset=<name> mems_allowed=<list>` line. */
  readonly cpuset?: string;
  readonly memsAllowed?: string;
  /** `memory: usage <n>kB, limit <n>kB, failcnt <n>` (memcg OOM only). */
  readonly memcgUsage?: { readonly usageKb: number; readonly limitKb: number; readonly failcnt: number };
  /** The first `Memory cgroup stats for <memcg>` line: the cgroup that ran out (memcg OOM). */
  readonly memcgStatsFor?: string;
  /** `Tasks in <memcg> are going to be killed due to memory.oom.group set`. */
  readonly oomGroup?: string;
  /** Sum of the per-node `gpu_active:<n>kB` values of the Mem-Info block (7.1+). */
  readonly gpuActiveKb?: number;
  readonly gpuReclaimKb?: number;
  /** The call trace went through `mem_cgroup_out_of_memory` (true) or through the page allocator only (false). */
  readonly traceMemcg?: boolean;
  readonly candidate?: KillCandidate;
  /** The victim named by the reason line (or the pre-5.0 `Killed process` line). */
  readonly killed?: KilledProcess;
  /** Further victims of the same event (memory.oom.group), without repeats of the first. */
  readonly groupKills: readonly KilledProcess[];
  /** The scope the log itself states (summary line, reason, `Task in`, `memory: usage`), or a weaker hint from the call trace. */
  readonly scope?: OomScope;
  /** Where the scope comes from. */
  readonly scopeSource?: 'summary' | 'constraint' | 'reason' | 'legacy-task-in' | 'memcg-usage' | 'call-trace';
  /** Parts of a full report this event lacks (truncated logs, rate-limited headers). */
  readonly missing: readonly string[];
  /** The log lines the event rests on, verbatim, in order. */
  readonly evidence: readonly EvidenceLine[];
}

export const INVOKED = ' invoked oom-killer:';
export const REASON_KILLED =
  /^(Out of memory(?: \(oom_kill_allocating_task\))?|Memory cgroup out of memory): Killed process (\d+)\b([^\n]*)$/;
export const REASON_CANDIDATE =
  /^(Out of memory(?: \(oom_kill_allocating_task\))?|Memory cgroup out of memory): Kill process (\d+)\b([^\n]*)$/;
export const BARE_KILLED = /^Killed process (\d+)\b([^\n]*)$/;
/** ` (<comm>)` right after the pid; the name may hold spaces and brackets but ends at `) `. */
const COMM = /^ \((.*?)\)(?= |,|$)/;
const SCORE = /\bscore (\d+)/;
/** `total-vm:1656kB`, `anon-rss:120kB`… Keys start after a non-key character and are short, so a long run of letters costs O(length). */
const KV_TAIL = /(?<![A-Za-z_-])([A-Za-z_-]{1,32})[:=](-?\d{1,19})kB/g;

/** Parse `key=value` pairs separated by commas; a bare word is a flag (`global_oom`). */
export function parseOomKillSummary(line: string): OomKillSummary {
  // `journalctl --no-full` ellipsizes a line that does not fit the terminal.
  const ellipsized = line.endsWith('…');
  const text = ellipsized ? line.slice(0, -1) : line;
  const fields: Record<string, string> = {};
  let globalOom = false;
  // Values (cgroup paths, cpuset names) can in principle hold commas; a piece without `=` that follows
  // a key=value pair and is not a known flag is glued back onto that value.
  let lastKey: string | undefined;
  for (const piece of text.split(',')) {
    const eq = piece.indexOf('=');
    if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(piece.slice(0, eq).trim())) {
      lastKey = piece.slice(0, eq).trim();
      fields[lastKey] = piece.slice(eq + 1).trim();
    } else {
      const word = piece.trim();
      if (word === 'global_oom') {
        globalOom = true;
        lastKey = undefined;
      } else if (lastKey !== undefined) {
        fields[lastKey] = `${fields[lastKey] ?? ''},${piece}`;
      } else if (word !== '') {
        fields[word] = '';
      }
    }
  }
  const get = (key: string): string | undefined => (Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined);
  // `mems_allowed` may be renamed by RFC series; take any key that starts with `mems`.
  const memsKey = Object.keys(fields).find((key) => key.startsWith('mems'));
  const keys = Object.keys(fields);
  const complete = !ellipsized && Object.prototype.hasOwnProperty.call(fields, 'uid') && /\d$/.test(text.trimEnd());
  const cutKey = lastKeyOf(text, keys);
  return {
    ...(complete ? {} : { cut: cutKey !== undefined ? { lastKey: cutKey } : {} }),
    constraint: get('constraint'),
    nodemask: get('nodemask'),
    cpuset: get('cpuset'),
    memsAllowed: memsKey !== undefined ? fields[memsKey] : undefined,
    oomMemcg: get('oom_memcg'),
    globalOom,
    taskMemcg: get('task_memcg'),
    task: get('task'),
    pid: parseBoundedNumber(get('pid')),
    uid: parseBoundedNumber(get('uid')),
    fields,
  };
}

/** The key whose value ends the line (a cut line's partial value), if the line ends in a key=value pair. */
function lastKeyOf(text: string, keys: readonly string[]): string | undefined {
  const lastComma = text.lastIndexOf(',');
  const piece = text.slice(lastComma + 1);
  const eq = piece.indexOf('=');
  const key = eq > 0 ? piece.slice(0, eq).trim() : undefined;
  if (key !== undefined && keys.includes(key)) return key;
  // A comma inside the value (glued back by the parser): the last key is the last one read.
  return keys.length > 0 && eq < 0 && piece.trim() !== 'global_oom' ? keys[keys.length - 1] : undefined;
}

function parseKilledTail(tail: string): Omit<KilledProcess, 'pid' | 'comm' | 'line' | 'reason'> {
  const values: Record<string, number> = {};
  KV_TAIL.lastIndex = 0;
  for (let match = KV_TAIL.exec(tail); match !== null; match = KV_TAIL.exec(tail)) {
    // The kernel prints these sizes with %lu (mm/oom_kill.c, __oom_kill_process): a minus sign is not a size.
    const value = parseBoundedNumber(match[2]);
    if (value !== undefined && match[1] !== undefined) values[match[1]] = value;
  }
  const uid = /\bUID:(\d+)/.exec(tail);
  const adj = /\boom_score_adj:(-?\d+)/.exec(tail);
  return {
    totalVmKb: values['total-vm'],
    anonRssKb: values['anon-rss'],
    fileRssKb: values['file-rss'],
    shmemRssKb: values['shmem-rss'],
    pgtablesKb: values.pgtables,
    uid: parseBoundedNumber(uid?.[1]),
    oomScoreAdj: parseBoundedNumber(adj?.[1], { signed: true }),
  };
}

export function killedProcess(reason: string | undefined, pidText: string | undefined, tail: string, line: number): KilledProcess {
  const comm = COMM.exec(tail);
  const rest = comm ? tail.slice(comm[0].length) : tail;
  return {
    ...(reason !== undefined ? { reason } : {}),
    pid: parseBoundedNumber(pidText) ?? -1,
    ...(comm?.[1] !== undefined ? { comm: comm[1] } : {}),
    ...parseKilledTail(rest),
    line,
  };
}

export function parseInvoker(message: string, at: number): OomInvoker {
  const comm = message.slice(0, at);
  const rest = message.slice(at + INVOKED.length);
  const gfp = /gfp_mask=(\S{1,160}?),? /.exec(`${rest} `);
  const order = /order=(-?\d+)/.exec(rest);
  const adj = /oom_score_adj=(-?\d+)/.exec(rest);
  return {
    comm,
    gfpMask: gfp?.[1],
    order: parseBoundedNumber(order?.[1], { signed: true }),
    oomScoreAdj: parseBoundedNumber(adj?.[1], { signed: true }),
  };
}

/** The pre-5.0 `<Reason>: Kill process <pid> (<comm>) score <n> or sacrifice child` line. */
export function killCandidate(reason: string, pidText: string | undefined, tail: string, line: number): KillCandidate {
  const comm = COMM.exec(tail)?.[1];
  return {
    reason,
    pid: parseBoundedNumber(pidText) ?? -1,
    ...(comm !== undefined ? { comm } : {}),
    score: parseBoundedNumber(SCORE.exec(tail)?.[1]),
    line,
  };
}
