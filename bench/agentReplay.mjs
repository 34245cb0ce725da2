// The agent bench's replayed cycles (bench/agent.mjs): a Transport that answers every probe with a recorded capture,
// the Agent as the bench runs it, and the memory run's child process (bench/agentMemoryChild.mjs). A module of its
// own, with no main guard, so the memory child can be one esbuild bundle of exactly this (the agent as it ships).
import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { Agent, exposedGarbageCollector } from '../src/agent/agent.ts';
import { OutputBuffer } from '../src/transports/outputBuffer.ts';

export const MEMORY_KILL_EVERY = 50;
/** How long the memory run waits after its last cycle before it reads the idle RSS (V8's memory reducer starts at 8 s). */
const IDLE_MS = 20_000;
export const INTERVAL_SECONDS = 30; // the DaemonSet's --interval
export const NODE_NAME = 'strix-node-1';
const NO_API = { kind: 'unavailable', reason: 'no-credentials', detail: 'bench' };
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};

/** What one read of a pipe gives node (libuv reads 64 KiB at a time): the size of the chunks a run's stdout arrives in. */
const PIPE_CHUNK = 64 * 1024;

/**
 * A real Transport (src/core/probe/transport.ts) that answers every probe with a recorded capture of the fixture,
 * the nonce set to the one the script carries, and the kernel log extended by the kills added since. It isolates
 * the agent's own state (the OOM ledger, the last inspection, the status, the exposition) from the shell: a leak
 * there shows in the heap without the pipes, buffers and child processes of a real probe around it. The output
 * reaches the agent as a LocalTransport's does: fresh 64 KiB Buffers, as pipe reads give them, collected by the
 * transports' OutputBuffer and decoded once, so the memory a run's stdout costs is the deployed agent's. The recorded
 * capture is kept as bytes between runs: the CPU and scaling runs use this one; the memory run, whose RSS must be an
 * agent's, reads the capture from a file instead (FileReplayTransport).
 */
export class ReplayTransport {
  target = 'replay (bench/agentReplay.mjs)';
  /** The capture up to the kernel log's end marker, and from it, each split at the recorded nonce. */
  #before;
  #after;
  #kernelLines = Buffer.alloc(0);
  runs = 0;

  constructor(capture) {
    const nonce = /^@@gpumem-probe v=\d+ scope=node nonce=([0-9a-f]+) /m.exec(capture)?.[1];
    if (!nonce) throw new Error('ReplayTransport: not a node capture');
    const end = `@@gpumem:${nonce}:end kernel-log@@\n`;
    const at = capture.indexOf(end);
    if (at < 0) throw new Error('ReplayTransport: the capture has no complete kernel-log section');
    const parts = (text) => text.split(nonce).map((part) => Buffer.from(part, 'utf8'));
    this.#before = parts(capture.slice(0, at));
    this.#after = parts(capture.slice(at));
  }

  /** Lines the kernel log gains from now on, after what it already holds (as a node's kern.log grows). */
  appendKernelLog(lines) {
    this.#kernelLines = Buffer.concat([this.#kernelLines, Buffer.from(lines, 'utf8')]);
  }

  run(request) {
    this.runs++;
    const nonce = /GPUMEM_NONCE='([0-9a-f]+)'/.exec(request.script)?.[1];
    if (!nonce) throw new Error('ReplayTransport: the script carries no nonce');
    const stdout = new OutputBuffer(request.maxOutputBytes, request.onStdout);
    const pipe = new PipeReads(stdout);
    const nonceBytes = Buffer.from(nonce, 'utf8');
    const write = (parts) =>
      parts.forEach((part, i) => {
        if (i > 0) pipe.write(nonceBytes);
        pipe.write(part);
      });
    write(this.#before);
    pipe.write(this.#kernelLines);
    write(this.#after);
    pipe.end();
    return Promise.resolve({ stdout: stdout.text(), stderr: '', exitCode: 0, truncated: stdout.truncated });
  }

  close() {
    return Promise.resolve();
  }
}

/**
 * Where a recorded capture sits on disk for FileReplayTransport: the file, the recorded nonce's byte offsets in it,
 * and the byte offset of the kernel log's end marker (where the kills added since go). Written by the bench's parent.
 */
export function writeReplayFile(capture, path) {
  const nonce = /^@@gpumem-probe v=\d+ scope=node nonce=([0-9a-f]+) /m.exec(capture)?.[1];
  if (!nonce) throw new Error('writeReplayFile: not a node capture');
  const bytes = Buffer.from(capture, 'utf8');
  const kernelLogEnd = bytes.indexOf(`@@gpumem:${nonce}:end kernel-log@@\n`);
  if (kernelLogEnd < 0) throw new Error('writeReplayFile: the capture has no complete kernel-log section');
  const nonceAt = [];
  for (let at = bytes.indexOf(nonce); at >= 0; at = bytes.indexOf(nonce, at + nonce.length)) nonceAt.push(at);
  writeFileSync(path, bytes);
  return { path, nonceLength: nonce.length, nonceAt, kernelLogEnd, size: bytes.length };
}

/**
 * ReplayTransport for the memory run: the capture is read from its file on every run, 64 KiB at a time, as a pipe
 * from the probe's shell delivers it, so the process holds no copy of it between runs (a deployed agent holds none:
 * the kernel's pipe buffer and the page cache are not in its RSS). The recorded nonce is overwritten by the script's.
 */
export class FileReplayTransport {
  target = 'replay from a file (bench/agentReplay.mjs)';
  #file;
  #read = Buffer.allocUnsafe(PIPE_CHUNK);
  #kernelLines = Buffer.alloc(0);
  runs = 0;

  constructor(file) {
    this.#file = file;
  }

  appendKernelLog(lines) {
    this.#kernelLines = Buffer.concat([this.#kernelLines, Buffer.from(lines, 'utf8')]);
  }

  run(request) {
    this.runs++;
    const nonce = /GPUMEM_NONCE='([0-9a-f]+)'/.exec(request.script)?.[1];
    if (!nonce || nonce.length !== this.#file.nonceLength)
      throw new Error('FileReplayTransport: the script carries no nonce of the recorded length');
    const nonceBytes = Buffer.from(nonce, 'utf8');
    const stdout = new OutputBuffer(request.maxOutputBytes, request.onStdout);
    const pipe = new PipeReads(stdout);
    const fd = openSync(this.#file.path, 'r');
    try {
      const copy = (from, to) => {
        for (let at = from; at < to;) {
          const got = readSync(fd, this.#read, 0, Math.min(PIPE_CHUNK, to - at), at);
          if (got <= 0) throw new Error('FileReplayTransport: the capture file is shorter than recorded');
          for (const n of this.#file.nonceAt)
            if (n < at + got && n + nonceBytes.length > at)
              nonceBytes.copy(this.#read, Math.max(0, n - at), Math.max(0, at - n), Math.min(nonceBytes.length, at + got - n));
          pipe.write(this.#read.subarray(0, got));
          at += got;
        }
      };
      copy(0, this.#file.kernelLogEnd);
      pipe.write(this.#kernelLines);
      copy(this.#file.kernelLogEnd, this.#file.size);
    } finally {
      closeSync(fd);
    }
    pipe.end();
    return Promise.resolve({ stdout: stdout.text(), stderr: '', exitCode: 0, truncated: stdout.truncated });
  }

  close() {
    return Promise.resolve();
  }
}

/** Bytes cut into fresh PIPE_CHUNK Buffers, each pushed to an OutputBuffer as a pipe's 'data' event would be. */
class PipeReads {
  #out;
  #chunk = Buffer.allocUnsafe(PIPE_CHUNK);
  #used = 0;

  constructor(out) {
    this.#out = out;
  }

  write(bytes) {
    for (let at = 0; at < bytes.length;) {
      const copied = bytes.copy(this.#chunk, this.#used, at, at + (PIPE_CHUNK - this.#used));
      at += copied;
      this.#used += copied;
      if (this.#used === PIPE_CHUNK) this.#flush();
    }
  }

  end() {
    if (this.#used > 0) this.#flush();
  }

  #flush() {
    this.#out.push(this.#used === PIPE_CHUNK ? this.#chunk : this.#chunk.subarray(0, this.#used));
    this.#chunk = Buffer.allocUnsafe(PIPE_CHUNK);
    this.#used = 0;
  }
}

/** A global OOM kill of a pod's container in rsyslog's kern.log form (mm/oom_kill.c lines, as the APU fixture's). */
export function globalKillLines(k, pod) {
  const pid = 700000 + k;
  const at = new Date(Date.UTC(2026, 7, 21, 10, 0, 0) + k * 60_000).toISOString().replace(/\.\d+Z$/, '');
  const t = (us) => `${at}.${String(100000 + us).padStart(6, '0')}+00:00 ${NODE_NAME} kernel:`;
  return [
    `${t(0)} python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=969`,
    `${t(8)} CPU: 3 UID: 1000 PID: ${pid} Comm: python3 Not tainted 7.1.0-9-generic #9-Ubuntu`,
    `${t(147)} oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=cri-containerd-${pod.ctr}.scope,mems_allowed=0,global_oom,task_memcg=${pod.ctrPath},task=python3,pid=${pid},uid=1000`,
    `${t(168)} Out of memory: Killed process ${pid} (python3) total-vm:37748736kB, anon-rss:1883420kB, file-rss:15072kB, shmem-rss:0kB, UID:1000 pgtables:7168kB oom_score_adj:969`,
    '',
  ].join('\n');
}

const identitiesOf = (pods) =>
  new Map(pods.map((pod) => [pod.uid, { namespace: 'ml', name: pod.name, containers: new Map(pod.ctr ? [[pod.ctr, 'vllm']] : []) }]));

export function newAgent(transport, pods, options = {}) {
  const view = { identities: identitiesOf(pods), hamiQuotas: new Map(), api: NO_API };
  return new Agent({
    nodeName: NODE_NAME,
    version: 'bench',
    transport,
    hostRoot: '/host',
    intervalMs: INTERVAL_SECONDS * 1000,
    probeTimeoutMs: 600_000,
    pods: () => view,
    log: () => {},
    // As `gpumem agent` does (src/cli/agentCommand.ts): the DaemonSet's NODE_OPTIONS expose gc.
    ...exposedGarbageCollector(),
    ...options,
  });
}

export async function okCycle(agent) {
  const outcome = await agent.runCycle();
  if (outcome.kind !== 'ok') throw new Error(`the agent's cycle failed (${outcome.reason}): ${outcome.detail}`);
  return outcome;
}

/**
 * What the resident set is made of (/proc/self/status, KiB → bytes): anonymous memory (the V8 heap, malloc's arenas,
 * Buffers) and file-backed pages (node's own binary, ~45 MiB of it, shared with every node process on the machine).
 */
function rssParts() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  const memory = process.memoryUsage();
  return { anon: kib('RssAnon'), file: kib('RssFile'), heapTotal: memory.heapTotal, external: memory.external };
}

/**
 * The memory run, in a process of its own: the capture file (writeReplayFile), the pods and the cycle count on stdin,
 * the figures as JSON on stdout.
 */
export async function memoryChild() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { pods, cycles, file } = JSON.parse(input);
  const transport = new FileReplayTransport(file);
  const agent = newAgent(transport, pods);
  const heapAt = {};
  let rssMax = 0;
  let rssAtMax;
  let kills = 0;
  let series = 0;
  let bytes = 0;
  const started = performance.now();
  for (let cycle = 1; cycle <= cycles; cycle++) {
    if (cycle % MEMORY_KILL_EVERY === 0) transport.appendKernelLog(globalKillLines(kills++, pods[(kills * 37) % pods.length]));
    await okCycle(agent);
    const scrape = agent.metrics();
    series = scrape.series;
    bytes = scrape.text.length;
    const rss = process.memoryUsage.rss();
    if (rss > rssMax) {
      rssMax = rss;
      rssAtMax = rssParts();
    }
    // The heap after GC, the least over the five cycles up to each hundredth: one cycle's capture (7 MiB) can still be
    // referenced when gc() runs right after it (V8's background compiler held it, without the image's
    // --no-concurrent-recompilation) and be gone the cycle after; what stays is the state.
    const checkpoint = cycle === cycles ? cycle : Math.ceil(cycle / 100) * 100;
    if (checkpoint - cycle < 5 && checkpoint <= cycles) {
      gc();
      const used = process.memoryUsage().heapUsed;
      heapAt[checkpoint] = Math.min(heapAt[checkpoint] ?? Infinity, used);
    }
  }
  const secondsPerCycle = (performance.now() - started) / 1000 / cycles;
  // A deployed agent waits --interval (30 s) between cycles; V8's memory reducer, some 8 s into an idle spell, hands
  // back the pages its heap keeps for reuse. The RSS it then waits with, beside the peak a memory limit must allow.
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idle = rssParts();
  const counted = agent
    .metrics()
    .text.split('\n')
    .filter((line) => line.startsWith('gpumem_oom_kills_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  process.stdout.write(
    JSON.stringify({
      cycles,
      heapAt,
      rssMaxSampled: rssMax,
      rssAtMax,
      idleSeconds: IDLE_MS / 1000,
      rssIdle: idle.anon + idle.file,
      rssIdleParts: idle,
      maxRss: process.resourceUsage().maxRSS * 1024,
      killsAppended: kills,
      killsCounted: counted,
      series,
      scrapeBytes: bytes,
      secondsPerCycle,
    }),
  );
}
