// The agent bench's replayed cycles (bench/agent.mjs): a Transport that answers every probe with a recorded capture,
// the Agent as the bench runs it, and the memory run's child process (bench/agentMemoryChild.mjs). A module of its
// own, with no main guard, so the memory child can be one esbuild bundle of exactly this (the agent as it ships).
import { Agent } from '../src/agent/agent.ts';

export const MEMORY_KILL_EVERY = 50;
export const INTERVAL_SECONDS = 30; // the DaemonSet's --interval
export const NODE_NAME = 'strix-node-1';
const NO_API = { kind: 'unavailable', reason: 'no-credentials', detail: 'bench' };
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};

/**
 * A real Transport (src/core/probe/transport.ts) that answers every probe with a recorded capture of the fixture,
 * the nonce set to the one the script carries, and the kernel log extended by the kills added since. It isolates
 * the agent's own state (the OOM ledger, the last inspection, the status, the exposition) from the shell: a leak
 * there shows in the heap without the pipes, buffers and child processes of a real probe around it.
 */
export class ReplayTransport {
  target = 'replay (bench/agent.mjs)';
  #before;
  #after;
  #nonce;
  #kernelLines = '';
  runs = 0;

  constructor(capture) {
    const nonce = /^@@gpumem-probe v=\d+ scope=node nonce=([0-9a-f]+) /m.exec(capture)?.[1];
    if (!nonce) throw new Error('ReplayTransport: not a node capture');
    const end = `@@gpumem:${nonce}:end kernel-log@@\n`;
    const at = capture.indexOf(end);
    if (at < 0) throw new Error('ReplayTransport: the capture has no complete kernel-log section');
    this.#nonce = nonce;
    this.#before = capture.slice(0, at);
    this.#after = capture.slice(at);
  }

  /** Lines the kernel log gains from now on, after what it already holds (as a node's kern.log grows). */
  appendKernelLog(lines) {
    this.#kernelLines += lines;
  }

  run(request) {
    this.runs++;
    const nonce = /GPUMEM_NONCE='([0-9a-f]+)'/.exec(request.script)?.[1];
    if (!nonce) throw new Error('ReplayTransport: the script carries no nonce');
    const stdout = `${this.#before}${this.#kernelLines}${this.#after}`.replaceAll(`@@gpumem:${this.#nonce}:`, `@@gpumem:${nonce}:`);
    const header = stdout.replace(`nonce=${this.#nonce} `, `nonce=${nonce} `);
    return Promise.resolve({ stdout: header, stderr: '', exitCode: 0, truncated: false });
  }

  close() {
    return Promise.resolve();
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

export function newAgent(transport, pods) {
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
  });
}

export async function okCycle(agent) {
  const outcome = await agent.runCycle();
  if (outcome.kind !== 'ok') throw new Error(`the agent's cycle failed (${outcome.reason}): ${outcome.detail}`);
  return outcome;
}

/** The memory run, in a process of its own: the capture, the pods and the cycle count on stdin, the figures as JSON on stdout. */
export async function memoryChild() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { capture, pods, cycles } = JSON.parse(input);
  const transport = new ReplayTransport(capture);
  input = '';
  const agent = newAgent(transport, pods);
  const heapAt = {};
  let rssMax = 0;
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
    rssMax = Math.max(rssMax, process.memoryUsage.rss());
    // The heap after GC, the least over the five cycles up to each hundredth: one cycle's capture (7 MiB) is
    // sometimes still referenced when gc() runs right after it, and is gone the cycle after; what stays is the state.
    const checkpoint = cycle === cycles ? cycle : Math.ceil(cycle / 100) * 100;
    if (checkpoint - cycle < 5 && checkpoint <= cycles) {
      gc();
      const used = process.memoryUsage().heapUsed;
      heapAt[checkpoint] = Math.min(heapAt[checkpoint] ?? Infinity, used);
    }
  }
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
      maxRss: process.resourceUsage().maxRSS * 1024,
      killsAppended: kills,
      killsCounted: counted,
      series,
      scrapeBytes: bytes,
      secondsPerCycle: (performance.now() - started) / 1000 / cycles,
    }),
  );
}
