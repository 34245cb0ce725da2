// Kernel log → OOM events. One pass over the text, a constant amount of work per line, no exceptions.
//
// What the kernel prints for one OOM kill (mm/oom_kill.c, mm/memcontrol.c, mm/show_mem.c;
// gpu-memory-facts.md §2.5), in order:
//
//   <comm> invoked oom-killer: gfp_mask=0x…(…), order=<n>, oom_score_adj=<n>
//   <comm> cpuset=<name> mems_allowed=<list>                      (kernels < 4.19)
//   CPU: … Call Trace: …
//   Task in <memcg> killed as a result of limit of <memcg>        (memcg OOM, kernels < 4.19)
//   memory: usage <n>kB, limit <n>kB, failcnt <n>                 (memcg OOM only)
//   Memory cgroup stats for <memcg>: …                            (memcg OOM only)
//   Mem-Info: … Node <n> … gpu_active:<n>kB gpu_reclaim:<n>kB      (global OOM; gpu_* from 7.1)
//   Tasks state (memory values in pages): …
//   oom-kill:constraint=<C>,nodemask=…,cpuset=…,mems_allowed=…{,oom_memcg=<p>|,global_oom},task_memcg=<p>,task=<comm>,pid=<n>,uid=<n>
//   <Reason>: Killed process <pid> (<comm>) total-vm:<n>kB, anon-rss:<n>kB, file-rss:<n>kB, shmem-rss:<n>kB, UID:<n> pgtables:<n>kB oom_score_adj:<n>
//   Tasks in <memcg> are going to be killed due to memory.oom.group set   (then more Killed process lines)
//
// Kernels before 5.0 print `<Reason>: Kill process <pid> (<comm>) score <n> or sacrifice child` and then
// `Killed process <pid> (<comm>) total-vm:…` (the victim may be a child of the candidate). The report
// header is rate-limited, so a burst of kills may leave only reason lines: those become partial events.
//
// Accepted line formats: raw `dmesg` (`[ 123.456] msg`), `dmesg -T` (`[Thu Dec  7 00:05:14 2017] msg`),
// `dmesg -x` (`kern  :warn  : …`), `dmesg --time-format iso`, `/dev/kmsg` records (`6,123,456,-;msg`),
// `<n>` priority prefixes, journalctl `short`, `short-precise`, `short-iso` and `short-monotonic`,
// syslog / kern.log lines with a host name (optionally followed by `[ 123.456]`), and bare messages.
import type { AmdgpuVmFiniLine } from './amdgpuVmFini.ts';
import { parseAmdgpuVmFini } from './amdgpuVmFini.ts';
import { unwrapPastedLog } from './logUnwrap.ts';

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
}

export interface KilledProcess {
  /** `Out of memory`, `Out of memory (oom_kill_allocating_task)`, `Memory cgroup out of memory`; undefined for the pre-5.0 bare `Killed process` line. */
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

export interface AmdgpuMemoryLine {
  readonly kind: 'gtt-ready' | 'vram-ready' | 'gtt-cap';
  readonly mib: number;
  /** The PCI device when the line names it (`amdgpu 0000:c5:00.0: …`). */
  readonly device?: string;
  readonly evidence: EvidenceLine;
}

export type KernelLogFormat =
  | 'dmesg'
  | 'dmesg-ctime'
  | 'dmesg-iso'
  | 'dmesg-decoded'
  | 'kmsg'
  | 'journal-monotonic'
  | 'syslog'
  | 'syslog-iso'
  | 'bare';

export interface KernelLog {
  readonly events: readonly OomEvent[];
  /** `source=<dmesg|journalctl|path>` from the probe's first line, when present. */
  readonly source?: string;
  /** The line format most lines were in. */
  readonly format: KernelLogFormat;
  readonly amdgpu: readonly AmdgpuMemoryLine[];
  /** amdgpu "VM memory stats … is non-zero when fini" lines: a process died holding GPU memory. */
  readonly amdgpuVmFini: readonly AmdgpuVmFiniLine[];
  readonly lineCount: number;
  /** What the parser could not do (events dropped over the cap, over-long lines). */
  readonly problems: readonly string[];
}

export interface ParseKernelLogOptions {
  /** Keep at most this many events, the most recent ones (default 2000). */
  readonly maxEvents?: number;
}

/** A kernel log line split into its prefix and the kernel's message. */
export interface LogLine {
  readonly message: string;
  readonly timestamp?: string;
  readonly monotonic?: string;
  readonly format: KernelLogFormat;
  /** False when the line is a syslog/journal line from another program than the kernel. */
  readonly kernel: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Line prefixes. Every pattern is anchored and free of nested quantifiers, so each costs O(line).

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
/** `<6>` syslog priority, and the `/dev/kmsg` record header `6,1234,5678,-;` (`c` continuation flag too). */
const PRIORITY = /^<(\d{1,3})>/;
const KMSG = /^\d{1,3},\d+,\d+,[^;]{0,16};/;
/** `dmesg -x`: `kern  :warn  : ` (facility, level). */
const DECODED = /^([a-z]{2,8}) *:([a-z]{3,7}) *: /;
/** `[ 1234.567890]`. */
const MONO = /^\[ *(\d+\.\d+)\] ?/;
/** `dmesg -T`: `[Thu Dec  7 00:05:14 2017]`; locales vary the day and month names. */
const CTIME = /^\[([^\]\d\s][^\]]{0,23}\d{4})\] ?/;
/** A raw dmesg line whose `[` was lost (pasted from the middle of a wrapped line): `5193605.506728] msg`. */
const MONO_TORN = /^(\d+\.\d{6})\] /;
/** ISO 8601: `2025-01-21T04:41:44,283302+00:00`, `2026-09-02T00:54:21.607510+00:00`, `2025-01-17T17:10:43+0000`. */
const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?) /;
/** syslog / journal `short` and `short-precise`: `Jun 23 10:10:34`, `Aug 30 06:58:55.050705`. */
const SYSLOG_TIME = new RegExp(`^(${MONTH} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?) `);
/** After a syslog/journal time: `<host> <tag>: ` where the tag is `kernel` or `prog[pid]`. */
const HOST_TAG = /^(\S+) ([A-Za-z][\w.@-]*)(?:\[\d+\])?: ?/;
/** A bare `kernel: ` (journal output with the time and host cut away). */
const KERNEL_TAG = /^kernel: ?/;

/**
 * `<host> kernel: ` or `<host> <prog>[<pid>]: ` after a timestamp that `dmesg` also prints (seconds,
 * ISO): only then is it a journal/syslog line. `[drm] amdgpu: …` or `usb usb1: …` are kernel messages.
 */
function journalHostTag(rest: string): RegExpExecArray | null {
  const hostTag = HOST_TAG.exec(rest);
  if (!hostTag) return null;
  return hostTag[2] === 'kernel' || /\[\d+\]: ?$/.test(hostTag[0]) ? hostTag : null;
}

/**
 * Split one line of any supported format into its timestamp and the kernel message. Lines with no
 * recognised prefix are returned as they are (continuation lines, pasted fragments).
 */
export function splitLogLine(raw: string): LogLine {
  let rest = raw;
  let format: KernelLogFormat = 'bare';
  let timestamp: string | undefined;
  let monotonic: string | undefined;
  let kernel = true;

  const kmsg = KMSG.exec(rest);
  if (kmsg) {
    rest = rest.slice(kmsg[0].length);
    format = 'kmsg';
  } else {
    const priority = PRIORITY.exec(rest);
    if (priority) rest = rest.slice(priority[0].length);
  }
  const decoded = DECODED.exec(rest);
  if (decoded) {
    rest = rest.slice(decoded[0].length);
    format = 'dmesg-decoded';
  }

  let match = MONO.exec(rest) ?? MONO_TORN.exec(rest);
  if (match) {
    monotonic = match[1];
    timestamp = match[1];
    rest = rest.slice(match[0].length);
    if (format === 'bare') format = 'dmesg';
    // journalctl -o short-monotonic: `[ 123.456] <host> kernel: msg`.
    const hostTag = journalHostTag(rest);
    if (hostTag) {
      kernel = hostTag[2] === 'kernel';
      rest = rest.slice(hostTag[0].length);
      format = 'journal-monotonic';
    }
    return { message: rest, timestamp, monotonic, format, kernel };
  }
  match = CTIME.exec(rest);
  if (match) {
    timestamp = match[1];
    rest = rest.slice(match[0].length);
    if (format === 'bare') format = 'dmesg-ctime';
    return { message: rest, timestamp, format, kernel };
  }
  match = ISO.exec(rest);
  if (match) {
    timestamp = match[1];
    rest = rest.slice(match[0].length);
    const hostTag = format === 'dmesg-decoded' ? null : journalHostTag(rest);
    if (hostTag) {
      kernel = hostTag[2] === 'kernel';
      rest = rest.slice(hostTag[0].length);
      format = 'syslog-iso';
    } else if (format === 'bare') {
      format = 'dmesg-iso';
    }
  } else {
    match = SYSLOG_TIME.exec(rest);
    if (match) {
      timestamp = match[1];
      rest = rest.slice(match[0].length);
      const hostTag = HOST_TAG.exec(rest);
      if (hostTag) {
        kernel = hostTag[2] === 'kernel';
        rest = rest.slice(hostTag[0].length);
      }
      format = 'syslog';
    } else {
      const tag = KERNEL_TAG.exec(rest);
      if (tag) rest = rest.slice(tag[0].length);
    }
  }
  if (format === 'syslog' || format === 'syslog-iso') {
    // rsyslog's kern.log keeps the kernel's own `[ 123.456]` after the tag.
    const inner = MONO.exec(rest);
    if (inner) {
      monotonic = inner[1];
      rest = rest.slice(inner[0].length);
    }
  }
  return { message: rest, timestamp, monotonic, format, kernel };
}

// ---------------------------------------------------------------------------------------------------
// Message patterns (applied to the message after the prefix).

/** Lines worth a closer look; one linear scan per line. */
const INTERESTING = /oom|Killed process|Kill process|Task in |Tasks in |memory: usage|cgroup stats for|gpu_active:|memory ready|Capping GTT|mem_cgroup_o|__alloc_pages|cpuset=|non-zero when fini/;
const TRACE_MEMCG = /mem_cgroup_(?:out_of_memory|oom_synchronize)/;
const INVOKED = ' invoked oom-killer:';
const REASON_KILLED = /^(Out of memory(?: \(oom_kill_allocating_task\))?|Memory cgroup out of memory): Killed process (\d+)\b(.*)$/;
const REASON_CANDIDATE = /^(Out of memory(?: \(oom_kill_allocating_task\))?|Memory cgroup out of memory): Kill process (\d+)\b(.*)$/;
const BARE_KILLED = /^Killed process (\d+)\b(.*)$/;
/** ` (<comm>)` right after the pid; the name may hold spaces and brackets but ends at `) `. */
const COMM = /^ \((.*?)\)(?= |,|$)/;
const SCORE = /\bscore (\d+)/;
const GLOBAL_CONSTRAINTS = new Set(['CONSTRAINT_NONE', 'CONSTRAINT_CPUSET', 'CONSTRAINT_MEMORY_POLICY']);
const MEMCG_USAGE = /^memory: usage (\d+)kB, limit (\d+)kB, failcnt (\d+)/;
const CPUSET_TAIL = /^(\S*) mems_allowed=(\S*)\s*$/;
const GROUP_KILL = /^Tasks in (\S+) are going to be killed due to memory\.oom\.group set/;
const GPU_ACTIVE = /\bgpu_active:(\d+)kB/;
const GPU_RECLAIM = /\bgpu_reclaim:(\d+)kB/;
const AMDGPU_READY = /(?<!\d)(\d{1,9})M of (GTT|VRAM) memory ready/;
const AMDGPU_CAP = /Capping GTT to (\d{1,9})M/;
const AMDGPU_DEVICE = /amdgpu (\d{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d)/;
/** `total-vm:1656kB`, `anon-rss:120kB`… Keys start after a non-key character and are short, so a long run of letters costs O(length). */
const KV_TAIL = /(?<![A-Za-z_-])([A-Za-z_-]{1,32})[:=](-?\d{1,19})kB/g;

/** Lines further apart than this (in the log's own clock) do not belong to the same report. */
const GAP_SECONDS = 60;
const DAY_TIME = /(?:^|[\s-])(\d{1,2})[T ](\d\d):(\d\d):(\d\d)/;
const MAX_LINE = 64 * 1024;
const MAX_EVIDENCE = 64;
const DEFAULT_MAX_EVENTS = 2000;
/** A desktop teardown prints one fini line per GPU client; more than this are counted, not kept. */
const MAX_VM_FINI = 4096;

interface Clock {
  readonly kind: 'boot' | 'wall';
  readonly seconds: number;
}

interface Draft {
  clock?: Clock;
  timestamp?: string;
  monotonic?: string;
  invoker?: OomInvoker;
  summary?: OomKillSummary;
  legacyTaskIn?: { task: string; limitOf: string };
  cpuset?: string;
  memsAllowed?: string;
  memcgUsage?: { usageKb: number; limitKb: number; failcnt: number };
  memcgStatsFor?: string;
  oomGroup?: string;
  gpuActiveKb?: number;
  gpuReclaimKb?: number;
  traceMemcg?: boolean;
  candidate?: KillCandidate;
  killed?: KilledProcess;
  groupKills: KilledProcess[];
  evidence: EvidenceLine[];
  evidenceDropped: number;
}

function toInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^-?\d{1,18}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Parse `key=value` pairs separated by commas; a bare word is a flag (`global_oom`). */
export function parseOomKillSummary(text: string): OomKillSummary {
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
  return {
    constraint: get('constraint'),
    nodemask: get('nodemask'),
    cpuset: get('cpuset'),
    memsAllowed: memsKey !== undefined ? fields[memsKey] : undefined,
    oomMemcg: get('oom_memcg'),
    globalOom,
    taskMemcg: get('task_memcg'),
    task: get('task'),
    pid: toInt(get('pid')),
    uid: toInt(get('uid')),
    fields,
  };
}

function parseKilledTail(tail: string): Omit<KilledProcess, 'pid' | 'comm' | 'line' | 'reason'> {
  const values: Record<string, number> = {};
  KV_TAIL.lastIndex = 0;
  for (let match = KV_TAIL.exec(tail); match !== null; match = KV_TAIL.exec(tail)) {
    const value = toInt(match[2]);
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
    uid: toInt(uid?.[1]),
    oomScoreAdj: toInt(adj?.[1]),
  };
}

function killedProcess(reason: string | undefined, pidText: string | undefined, tail: string, line: number): KilledProcess {
  const comm = COMM.exec(tail);
  const rest = comm ? tail.slice(comm[0].length) : tail;
  return {
    ...(reason !== undefined ? { reason } : {}),
    pid: toInt(pidText) ?? -1,
    ...(comm?.[1] !== undefined ? { comm: comm[1] } : {}),
    ...parseKilledTail(rest),
    line,
  };
}

function parseInvoker(message: string, at: number): OomInvoker {
  const comm = message.slice(0, at);
  const rest = message.slice(at + INVOKED.length);
  const gfp = /gfp_mask=(\S{1,160}?),? /.exec(`${rest} `);
  const order = /order=(-?\d+)/.exec(rest);
  const adj = /oom_score_adj=(-?\d+)/.exec(rest);
  return { comm, gfpMask: gfp?.[1], order: toInt(order?.[1]), oomScoreAdj: toInt(adj?.[1]) };
}

/** The line's time in seconds, for telling reports apart: seconds since boot, or day-of-month and time of day. */
function clockOf(line: LogLine): Clock | undefined {
  if (line.monotonic !== undefined) {
    const seconds = Number(line.monotonic);
    return Number.isFinite(seconds) ? { kind: 'boot', seconds } : undefined;
  }
  if (line.timestamp === undefined) return undefined;
  const match = DAY_TIME.exec(line.timestamp);
  if (!match) return undefined;
  const seconds = Number(match[1]) * 86400 + Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4]);
  return { kind: 'wall', seconds };
}

function emptyDraft(line: LogLine): Draft {
  return { clock: clockOf(line), timestamp: line.timestamp, monotonic: line.monotonic, groupKills: [], evidence: [], evidenceDropped: 0 };
}

function addEvidence(draft: Draft, line: number, text: string): void {
  if (draft.evidence.length < MAX_EVIDENCE) draft.evidence.push({ line, text: text.length > 4096 ? text.slice(0, 4096) : text });
  else draft.evidenceDropped++;
}

function finish(draft: Draft): OomEvent {
  const summary = draft.summary;
  let scope: OomScope | undefined;
  let scopeSource: OomEvent['scopeSource'];
  const reason = draft.killed?.reason ?? draft.candidate?.reason;
  const constraint = summary?.constraint;
  if (summary?.oomMemcg !== undefined) {
    scope = 'memcg';
    scopeSource = 'summary';
  } else if (summary?.globalOom) {
    scope = 'global';
    scopeSource = 'summary';
  } else if (constraint === 'CONSTRAINT_MEMCG') {
    scope = 'memcg';
    scopeSource = 'constraint';
  } else if (constraint !== undefined && GLOBAL_CONSTRAINTS.has(constraint)) {
    scope = 'global';
    scopeSource = 'constraint';
  } else if (reason !== undefined) {
    // Unknown constraints (CONSTRAINT_BPF, …) fall through to the other evidence.
    scope = reason.startsWith('Memory cgroup') ? 'memcg' : 'global';
    scopeSource = 'reason';
  } else if (draft.legacyTaskIn) {
    scope = 'memcg';
    scopeSource = 'legacy-task-in';
  } else if (draft.memcgUsage) {
    scope = 'memcg';
    scopeSource = 'memcg-usage';
  } else if (draft.traceMemcg !== undefined) {
    scope = draft.traceMemcg ? 'memcg' : 'global';
    scopeSource = 'call-trace';
  }
  const missing: string[] = [];
  if (!draft.invoker) missing.push('the "invoked oom-killer" line (the report starts before the log does, or was rate-limited)');
  if (!summary && !draft.legacyTaskIn) missing.push('the "oom-kill:" summary line');
  if (!draft.killed) missing.push('the "Killed process" line');
  if (draft.evidenceDropped > 0) missing.push(`${draft.evidenceDropped} further evidence lines (not kept)`);
  const taskMemcg = summary?.taskMemcg ?? draft.legacyTaskIn?.task;
  // `limit of <y>` names an ancestor of (or the same cgroup as) the task's; when it is a prefix that
  // stops mid-name, the line was wrapped or cut and the stats line names the cgroup better.
  const limitOf = draft.legacyTaskIn?.limitOf;
  const tornLimit = limitOf !== undefined && taskMemcg !== undefined && taskMemcg.length > limitOf.length && taskMemcg.startsWith(limitOf) && taskMemcg[limitOf.length] !== '/';
  const oomMemcg = summary?.oomMemcg ?? (limitOf !== undefined && limitOf !== '' && !tornLimit ? limitOf : undefined) ?? (scope === 'memcg' ? draft.memcgStatsFor : undefined);
  return {
    timestamp: draft.timestamp,
    monotonic: draft.monotonic,
    invoker: draft.invoker,
    summary,
    constraint: summary?.constraint,
    oomMemcg,
    globalOom: summary?.globalOom ?? false,
    taskMemcg,
    legacyTaskIn: draft.legacyTaskIn,
    cpuset: summary?.cpuset ?? draft.cpuset,
    memsAllowed: summary?.memsAllowed ?? draft.memsAllowed,
    memcgUsage: draft.memcgUsage,
    memcgStatsFor: draft.memcgStatsFor,
    oomGroup: draft.oomGroup,
    gpuActiveKb: draft.gpuActiveKb,
    gpuReclaimKb: draft.gpuReclaimKb,
    traceMemcg: draft.traceMemcg,
    candidate: draft.candidate,
    killed: draft.killed,
    groupKills: draft.groupKills,
    scope,
    scopeSource,
    missing,
    evidence: draft.evidence,
  };
}

/**
 * Parse a kernel log into OOM events. Tolerant of every supported format, of mixed formats, of
 * truncated and interleaved reports and of garbage; linear in the size of the text; never throws.
 */
export function parseKernelLog(text: string, options: ParseKernelLogOptions = {}): KernelLog {
  const maxEvents = Math.max(1, Math.floor(options.maxEvents ?? DEFAULT_MAX_EVENTS));
  const problems: string[] = [];
  const events: OomEvent[] = [];
  const amdgpu: AmdgpuMemoryLine[] = [];
  const amdgpuVmFini: AmdgpuVmFiniLine[] = [];
  let finiDropped = 0;
  const formatCounts = new Map<KernelLogFormat, number>();
  let source: string | undefined;
  let dropped = 0;
  let longLines = 0;
  let lineCount = 0;
  if (typeof text !== 'string') return { events, format: 'bare', amdgpu, amdgpuVmFini, lineCount, problems: ['not text'] };

  let current: Draft | undefined;
  const close = (): void => {
    if (!current) return;
    events.push(finish(current));
    current = undefined;
    if (events.length >= maxEvents * 2) {
      dropped += events.length - maxEvents;
      events.splice(0, events.length - maxEvents);
    }
  };
  const open = (line: LogLine): Draft => {
    close();
    current = emptyDraft(line);
    return current;
  };

  // Physical lines first (bounded in length), then the paste repairs of logUnwrap.ts, then one pass.
  const physical: string[] = [];
  let start = 0;
  const length = text.length;
  while (start <= length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = length;
    if (start === length && end === length) break;
    lineCount++;
    let raw = text.slice(start, end);
    start = end + 1;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (lineCount === 1) {
      const probeSource = /^source=(\S.*)$/.exec(raw);
      if (probeSource) {
        source = probeSource[1];
        physical.push('');
        continue;
      }
    }
    if (raw.length > MAX_LINE) {
      longLines++;
      raw = raw.slice(0, MAX_LINE);
    }
    physical.push(raw);
  }
  const unwrapped = unwrapPastedLog(physical);
  for (const logical of unwrapped.lines) {
    const lineNo = logical.lineNo;
    const raw = logical.text;
    const parsed = splitLogLine(raw);
    formatCounts.set(parsed.format, (formatCounts.get(parsed.format) ?? 0) + 1);
    if (!parsed.kernel) continue;
    const message = parsed.message;
    if (!INTERESTING.test(message)) continue;
    const clock = clockOf(parsed);
    if (current && clock && current.clock && clock.kind === current.clock.kind) {
      // A long silence (or a jump back) means the previous report ended, however incomplete it is.
      if (Math.abs(clock.seconds - current.clock.seconds) > GAP_SECONDS) close();
      else current.clock = clock;
    }

    // amdgpu boot lines (not part of an OOM report).
    if (message.includes('memory ready') || message.includes('Capping GTT')) {
      const ready = AMDGPU_READY.exec(message);
      const cap = AMDGPU_CAP.exec(message);
      if ((ready || cap) && /amdgpu|\[drm\]/.test(message)) {
        const device = AMDGPU_DEVICE.exec(message)?.[1];
        const mib = toInt((ready ?? cap)?.[1]);
        if (mib !== undefined) {
          const kind = cap ? 'gtt-cap' : ready?.[2] === 'GTT' ? 'gtt-ready' : 'vram-ready';
          amdgpu.push({ kind, mib, ...(device !== undefined ? { device } : {}), evidence: { line: lineNo, text: raw } });
          if (amdgpu.length > 256) amdgpu.splice(0, amdgpu.length - 128);
        }
        continue;
      }
    }

    // amdgpu VM teardown of a process that still held GPU memory (not part of an OOM report either).
    if (message.includes('non-zero when fini')) {
      const fini = parseAmdgpuVmFini(message, lineNo, raw, AMDGPU_DEVICE.exec(message)?.[1]);
      // Only what follows a kill can be about a victim; a teardown before any kill is not kept.
      if (fini && (current?.killed !== undefined || events.length > 0)) {
        if (amdgpuVmFini.length < MAX_VM_FINI) amdgpuVmFini.push(fini);
        else finiDropped++;
        continue;
      }
    }

    const invokedAt = message.indexOf(INVOKED);
    if (invokedAt > 0) {
      const draft = open(parsed);
      draft.invoker = parseInvoker(message, invokedAt);
      addEvidence(draft, lineNo, raw);
      continue;
    }

    if (message.startsWith('oom-kill:')) {
      const summary = parseOomKillSummary(message.slice('oom-kill:'.length));
      let draft = current;
      if (!draft || draft.summary || draft.killed) draft = open(parsed);
      draft.summary = summary;
      addEvidence(draft, lineNo, raw);
      continue;
    }

    const reasonKilled = REASON_KILLED.exec(message);
    if (reasonKilled) {
      attachKilled(killedProcess(reasonKilled[1], reasonKilled[2], reasonKilled[3] ?? '', lineNo), parsed, lineNo, raw);
      continue;
    }

    const candidate = REASON_CANDIDATE.exec(message);
    if (candidate) {
      let draft = current;
      if (!draft || draft.candidate || draft.killed) draft = open(parsed);
      const tail = candidate[3] ?? '';
      const comm = COMM.exec(tail)?.[1];
      draft.candidate = {
        reason: candidate[1] ?? '',
        pid: toInt(candidate[2]) ?? -1,
        ...(comm !== undefined ? { comm } : {}),
        score: toInt(SCORE.exec(tail)?.[1]),
        line: lineNo,
      };
      addEvidence(draft, lineNo, raw);
      continue;
    }

    const bareKilled = BARE_KILLED.exec(message);
    if (bareKilled) {
      attachKilled(killedProcess(current?.killed ? undefined : current?.candidate?.reason, bareKilled[1], bareKilled[2] ?? '', lineNo), parsed, lineNo, raw);
      continue;
    }

    if (message.startsWith('Task in ')) {
      const at = message.indexOf(' killed as a result of limit of ');
      if (at > 0) {
        let draft = current;
        if (!draft || draft.legacyTaskIn || draft.killed) draft = open(parsed);
        draft.legacyTaskIn = { task: message.slice('Task in '.length, at), limitOf: message.slice(at + ' killed as a result of limit of '.length).trim() };
        addEvidence(draft, lineNo, raw);
        continue;
      }
    }

    const usage = MEMCG_USAGE.exec(message);
    if (usage) {
      let draft = current;
      if (!draft || draft.memcgUsage || draft.killed) draft = open(parsed);
      draft.memcgUsage = { usageKb: toInt(usage[1]) ?? 0, limitKb: toInt(usage[2]) ?? 0, failcnt: toInt(usage[3]) ?? 0 };
      addEvidence(draft, lineNo, raw);
      continue;
    }

    if (message.startsWith('Memory cgroup stats for ')) {
      const rest = message.slice('Memory cgroup stats for '.length);
      const colon = rest.indexOf(': ');
      const path = (colon >= 0 ? rest.slice(0, colon) : rest).trim().replace(/:$/, '');
      if (path === '') continue;
      // Only memcg reports print this line: without a report open, it starts a partial one.
      const draft = current && !current.killed ? current : open(parsed);
      if (draft.memcgStatsFor === undefined) {
        draft.memcgStatsFor = path;
        addEvidence(draft, lineNo, raw);
      }
      continue;
    }

    const group = GROUP_KILL.exec(message);
    if (group) {
      if (current) {
        current.oomGroup = group[1];
        addEvidence(current, lineNo, raw);
      }
      continue;
    }

    if (message.includes('gpu_active:')) {
      if (current && !current.killed) {
        const active = toInt(GPU_ACTIVE.exec(message)?.[1]);
        const reclaim = toInt(GPU_RECLAIM.exec(message)?.[1]);
        if (active !== undefined) current.gpuActiveKb = (current.gpuActiveKb ?? 0) + active;
        if (reclaim !== undefined) current.gpuReclaimKb = (current.gpuReclaimKb ?? 0) + reclaim;
        if (active !== undefined || reclaim !== undefined) addEvidence(current, lineNo, raw);
      }
      continue;
    }

    if (current && !current.killed && current.traceMemcg !== true) {
      if (TRACE_MEMCG.test(message)) current.traceMemcg = true;
      else if (current.traceMemcg === undefined && message.includes('__alloc_pages')) current.traceMemcg = false;
    }

    if (current && current.invoker && !current.summary && current.cpuset === undefined && message.startsWith(`${current.invoker.comm} cpuset=`)) {
      const cpusetLine = CPUSET_TAIL.exec(message.slice(current.invoker.comm.length + ' cpuset='.length));
      if (cpusetLine) {
        current.cpuset = cpusetLine[1];
        current.memsAllowed = cpusetLine[2];
        addEvidence(current, lineNo, raw);
      }
    }
  }
  close();

  function attachKilled(killed: KilledProcess, parsed: LogLine, lineNo: number, raw: string): void {
    let draft = current;
    if (draft && draft.killed) {
      if (draft.killed.pid === killed.pid) {
        // The kernel repeats the victim in a memory.oom.group kill; keep the line as evidence only.
        addEvidence(draft, lineNo, raw);
        return;
      }
      if (draft.oomGroup !== undefined) {
        if (!draft.groupKills.some((other) => other.pid === killed.pid)) draft.groupKills.push(killed);
        addEvidence(draft, lineNo, raw);
        return;
      }
      draft = undefined;
    }
    if (!draft) draft = open(parsed);
    draft.killed = killed;
    addEvidence(draft, lineNo, raw);
  }

  if (dropped > 0) problems.push(`${dropped} older OOM events were dropped (more than ${maxEvents} in the log)`);
  if (finiDropped > 0) problems.push(`${finiDropped} amdgpu "VM memory stats … non-zero when fini" lines were not kept (more than ${MAX_VM_FINI})`);
  if (longLines > 0) problems.push(`${longLines} lines longer than ${MAX_LINE} characters were cut`);
  let format: KernelLogFormat = 'bare';
  let best = 0;
  for (const [candidate, count] of formatCounts) {
    if (count > best) {
      best = count;
      format = candidate;
    }
  }
  return { events, ...(source !== undefined ? { source } : {}), format, amdgpu, amdgpuVmFini, lineCount, problems };
}
