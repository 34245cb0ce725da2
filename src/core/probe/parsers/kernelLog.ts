// Kernel log → OOM events. One pass over the text, a constant amount of work per line, no exceptions.
//
// What the kernel prints for one OOM kill (mm/oom_kill.c, mm/memcontrol.c, mm/show_mem.c), in order:
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
//   <Reason>: Killed process <pid> (<comm>) total-vm:<n>kB, anon-rss:<n>kB, file-rss:<n>kB, shmem-rss:<n>kB, UID:<n> pgtables:<n>kB
// oom_score_adj:<n>
//   Tasks in <memcg> are going to be killed due to memory.oom.group set   (then more Killed process lines)
//
// Kernels before 5.0 print `<Reason>: Kill process <pid> (<comm>) score <n> or sacrifice child` and then
// `Killed process <pid> (<comm>) total-vm:…` (the victim may be a child of the candidate). The report
// header is rate-limited, so a burst of kills may leave only reason lines: those become partial events.
//
// This file assembles the lines of a log into events: the physical lines are kernelLogLines.ts, the prefixes
// logLine.ts (kernelReportBody.ts where a prefix is unknown), each report line oomReportLines.ts, one report in
// progress and its classification oomDraft.ts,
// amdgpu's boot lines amdgpuBoot.ts.
import type { AmdgpuMemoryLine } from './amdgpuBoot.ts';
import { amdgpuDevice, readAmdgpuBootLine } from './amdgpuBoot.ts';
import type { AmdgpuVmFiniLine } from './amdgpuVmFini.ts';
import { parseAmdgpuVmFini } from './amdgpuVmFini.ts';
import type { KernelLogFormat, LogLine } from './logLine.ts';
import { splitLogLine } from './logLine.ts';
import { kernelReportBody } from './kernelReportBody.ts';
import { parseBoundedNumber } from './kernelNumber.ts';
import { unwrapPastedLog } from './logUnwrap.ts';
import { MAX_LINE, physicalLines } from './kernelLogLines.ts';
import type { Draft } from './oomDraft.ts';
import { addEvidence, clockOf, emptyDraft, finishDraft } from './oomDraft.ts';
import type { KilledProcess, OomEvent } from './oomReportLines.ts';
import {
  BARE_KILLED,
  INVOKED,
  REASON_CANDIDATE,
  REASON_KILLED,
  killCandidate,
  killedProcess,
  parseInvoker,
  parseOomKillSummary,
} from './oomReportLines.ts';

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

// ---------------------------------------------------------------------------------------------------
// Message patterns (applied to the message after the prefix).

/** Lines worth a closer look; one linear scan per line. */
const INTERESTING =
  /oom|Killed process|Kill process|Task in |Tasks in |memory: usage|cgroup stats for|gpu_active:|memory ready|Capping GTT|mem_cgroup_o|__alloc_pages|cpuset=|non-zero when fini/;
const TRACE_MEMCG = /mem_cgroup_(?:out_of_memory|oom_synchronize)/;
const MEMCG_USAGE = /^memory: usage (\d+)kB, limit (\d+)kB, failcnt (\d+)/;
const CPUSET_TAIL = /^(\S*) mems_allowed=(\S*)\s*$/;
const GROUP_KILL = /^Tasks in (\S+) are going to be killed due to memory\.oom\.group set/;
const GPU_ACTIVE = /\bgpu_active:(\d+)kB/;
const GPU_RECLAIM = /\bgpu_reclaim:(\d+)kB/;

/** Lines further apart than this (in the log's own clock) do not belong to the same report. */
const GAP_SECONDS = 60;
const DEFAULT_MAX_EVENTS = 2000;
/** A desktop teardown prints one fini line per GPU client; more than this are counted, not kept. */
const MAX_VM_FINI = 4096;

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
  let dropped = 0;
  if (typeof text !== 'string') return { events, format: 'bare', amdgpu, amdgpuVmFini, lineCount: 0, problems: ['not text'] };

  let current: Draft | undefined;
  const close = (): void => {
    if (!current) return;
    events.push(finishDraft(current));
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
  const { lines, source, lineCount, longLines } = physicalLines(text);
  const unwrapped = unwrapPastedLog(lines);
  for (const logical of unwrapped.lines) {
    const lineNo = logical.lineNo;
    const raw = logical.text;
    const split = splitLogLine(raw);
    formatCounts.set(split.format, (formatCounts.get(split.format) ?? 0) + 1);
    if (!split.kernel) continue;
    if (!INTERESTING.test(split.message)) continue;
    const parsed = kernelReportBody(split);
    const message = parsed.message;
    const clock = clockOf(parsed);
    if (current && clock && current.clock && clock.kind === current.clock.kind) {
      // A long silence (or a jump back) means the previous report ended, however incomplete it is.
      if (Math.abs(clock.seconds - current.clock.seconds) > GAP_SECONDS) close();
      else current.clock = clock;
    }

    // amdgpu boot lines (not part of an OOM report).
    const boot = readAmdgpuBootLine(message, lineNo, raw);
    if (boot.kind === 'amdgpu') {
      if (boot.line) {
        amdgpu.push(boot.line);
        if (amdgpu.length > 256) amdgpu.splice(0, amdgpu.length - 128);
      }
      continue;
    }

    // amdgpu VM teardown of a process that still held GPU memory (not part of an OOM report either).
    if (message.includes('non-zero when fini')) {
      const fini = parseAmdgpuVmFini(message, lineNo, raw, amdgpuDevice(message));
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
      draft.candidate = killCandidate(candidate[1] ?? '', candidate[2], candidate[3] ?? '', lineNo);
      addEvidence(draft, lineNo, raw);
      continue;
    }

    const bareKilled = BARE_KILLED.exec(message);
    if (bareKilled) {
      attachKilled(
        killedProcess(current?.killed ? undefined : current?.candidate?.reason, bareKilled[1], bareKilled[2] ?? '', lineNo),
        parsed,
        lineNo,
        raw,
      );
      continue;
    }

    if (message.startsWith('Task in ')) {
      const at = message.indexOf(' killed as a result of limit of ');
      if (at > 0) {
        let draft = current;
        if (!draft || draft.legacyTaskIn || draft.killed) draft = open(parsed);
        draft.legacyTaskIn = {
          task: message.slice('Task in '.length, at),
          limitOf: message.slice(at + ' killed as a result of limit of '.length).trim(),
        };
        addEvidence(draft, lineNo, raw);
        continue;
      }
    }

    const usage = MEMCG_USAGE.exec(message);
    if (usage) {
      let draft = current;
      if (!draft || draft.memcgUsage || draft.killed) draft = open(parsed);
      draft.memcgUsage = {
        usageKb: parseBoundedNumber(usage[1]) ?? 0,
        limitKb: parseBoundedNumber(usage[2]) ?? 0,
        failcnt: parseBoundedNumber(usage[3]) ?? 0,
      };
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
        const active = parseBoundedNumber(GPU_ACTIVE.exec(message)?.[1]);
        const reclaim = parseBoundedNumber(GPU_RECLAIM.exec(message)?.[1]);
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

    if (
      current &&
      current.invoker &&
      !current.summary &&
      current.cpuset === undefined &&
      message.startsWith(`${current.invoker.comm} cpuset=`)
    ) {
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
  if (finiDropped > 0)
    problems.push(`${finiDropped} amdgpu "VM memory stats … non-zero when fini" lines were not kept (more than ${MAX_VM_FINI})`);
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
