// The agent's cycle: every interval, the same node probe as Inspect Node through a transport (local, with the host's
// root at /host in the DaemonSet), analysed by the same core, turned into the metric contract. A failed cycle keeps
// the last good result and counts the failure; cycles never overlap; stop() aborts a probe in flight.
import { performance } from 'node:perf_hooks';
import type { AgentSnapshot, ApiAccess, ProbeErrorReason } from '../core/agent/agentSamples.ts';
import { renderAgentMetrics } from '../core/agent/agentSamples.ts';
import type { Exposition } from '../core/agent/exposition.ts';
import type { PodIdentities } from '../core/agent/nodeSamples.ts';
import { nodeGpuLevels, nodeMetricFacts } from '../core/agent/nodeSamples.ts';
import { PeakWindow } from '../core/agent/gpuPeaks.ts';
import type { WatchReading } from '../core/agent/gpuWatch.ts';
import { GpuWatch } from '../core/agent/gpuWatch.ts';
import { inspectionWatchLevel } from '../core/agent/gpuSweep.ts';
import { GpuWatchLoop } from './gpuWatchLoop.ts';
import type { OomAdvance } from '../core/agent/oomLedger.ts';
import { advanceOomLedger, EMPTY_LEDGER } from '../core/agent/oomLedger.ts';
import { podNamesOfIdentities } from '../core/agent/podIdentities.ts';
import type { Inspection } from '../core/inspectionRun/analyze.ts';
import { StreamingAnalysis } from '../core/inspectionRun/analyze.ts';
import { unreadOf } from '../core/inspectionRun/sight.ts';
import type { HamiPodQuota } from '../core/verdicts/hami/hamiQuota.ts';
import { runProbe } from '../core/inspectionRun/runProbe.ts';
import type { Transport } from '../core/probe/transport.ts';
import { describeFailure, TransportError } from '../core/probe/transport.ts';
import { terminalSafe } from '../core/text/escape.ts';
import { errorMessage } from '../core/errorMessage.ts';

/** What the API server tells the agent about its node's pods (podSource.ts keeps it current). */
export interface PodView {
  readonly identities: PodIdentities;
  readonly hamiQuotas: ReadonlyMap<string, HamiPodQuota>;
  readonly api: ApiAccess;
}

export interface AgentOptions {
  readonly nodeName: string;
  readonly version: string;
  readonly transport: Transport;
  /** Where the host's / is (`/host` in the DaemonSet); undefined on the host itself. */
  readonly hostRoot: string | undefined;
  readonly intervalMs: number;
  readonly probeTimeoutMs: number;
  readonly maxCaptureBytes?: number;
  /** How often the GPU watch looks between full cycles (gpuWatchLoop.ts); 0 or undefined: no watch. */
  readonly gpuWatchIntervalMs?: number;
  /** The window the exported GPU memory maxima cover (gpuPeaks.ts); default 60 s, two scrapes of 30 s. */
  readonly peakWindowMs?: number;
  /** The headroom the inspection's remedies add, in percent (--headroom; default DEFAULT_HEADROOM_PERCENT). */
  readonly headroomPercent?: number;
  /** The pods of the node, as the API last said; called at the start of every cycle. */
  readonly pods: () => PodView;
  /** Kills first seen in a cycle, with the inspection that found them (for Kubernetes Events). */
  readonly onNewKills?: (advance: OomAdvance, inspection: Inspection, view: PodView) => void;
  readonly log: (line: string) => void;
  readonly now?: () => number;
  /**
   * A full garbage collection, run after each cycle: node's `gc` when it was started with --expose-gc, as the
   * DaemonSet starts it (exposedGarbageCollector). A cycle leaves MiB of garbage (its analysis, the capture's pieces);
   * collected at once, the next cycle starts from the agent's state alone, not from the last cycle's garbage and the
   * pages V8 pools for reuse, which its idle-time memory reducer would otherwise hand back later and less surely.
   */
  readonly collectGarbage?: () => void;
}

/** What the last cycle did, for the log and the tests. */
export type CycleOutcome =
  | { readonly kind: 'ok'; readonly seconds: number; readonly newKills: number }
  | { readonly kind: 'failed'; readonly reason: ProbeErrorReason; readonly detail: string };

export class Agent {
  readonly #options: AgentOptions;
  readonly #now: () => number;
  #snapshot: AgentSnapshot;
  #baselineTaken = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<CycleOutcome> | undefined;
  #life = new AbortController();
  readonly #peaks: PeakWindow;
  readonly #watch = new GpuWatch();
  readonly #watchLoop: GpuWatchLoop | undefined;
  /** The GPU watch level the last full cycle saw: a node with none is not watched. */
  #lastLevel: WatchReading | undefined;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#snapshot = {
      status: {
        nodeName: options.nodeName,
        version: options.version,
        cycles: 0,
        errors: new Map(),
        lastDurationSeconds: undefined,
        lastSuccessSeconds: undefined,
        api: options.pods().api,
      },
      node: undefined,
      ledger: EMPTY_LEDGER,
      identities: new Map(),
    };
    this.#peaks = new PeakWindow(options.peakWindowMs ?? DEFAULT_PEAK_WINDOW_MS);
    const watchEvery = options.gpuWatchIntervalMs ?? 0;
    this.#watchLoop =
      watchEvery > 0
        ? new GpuWatchLoop({
            transport: options.transport,
            hostRoot: options.hostRoot,
            intervalMs: watchEvery,
            peaks: this.#peaks,
            watch: this.#watch,
            cycleRunning: () => this.#running !== undefined,
            watchable: () => this.#lastLevel?.kind === 'level',
            signal: this.#life.signal,
            log: options.log,
            now: this.#now,
          })
        : undefined;
  }

  /** The GPU watch between full cycles, when it is on (for the tests). */
  get gpuWatch(): GpuWatchLoop | undefined {
    return this.#watchLoop;
  }

  /** A cycle has completed with a result (for /readyz). */
  get ready(): boolean {
    return this.#snapshot.node !== undefined;
  }

  get snapshot(): AgentSnapshot {
    return this.#snapshot;
  }

  /** The exposition of the current state, with the API view as it is now (a scrape between cycles sees a re-list). */
  metrics(): Exposition {
    const view = this.#options.pods();
    return renderAgentMetrics({
      ...this.#snapshot,
      identities: view.identities.size > 0 ? view.identities : this.#snapshot.identities,
      status: { ...this.#snapshot.status, api: view.api },
      peaks: this.#peaks.maxima(this.#now()),
      ...(this.#watchLoop ? { watchSweeps: this.#watchLoop.sweeps } : {}),
    });
  }

  /** Starts the loop: a cycle now, then one `intervalMs` after each cycle ends. */
  start(): void {
    const tick = async (): Promise<void> => {
      this.#timer = undefined;
      await this.runCycle();
      if (!this.#life.signal.aborted) this.#timer = setTimeout(() => void tick(), this.#options.intervalMs);
    };
    void tick();
    this.#watchLoop?.start();
  }

  async stop(): Promise<void> {
    this.#life.abort();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#watchLoop?.stop();
    await this.#running?.catch(() => undefined);
    await this.#watchLoop?.inFlight?.catch(() => undefined);
    await this.#options.transport.close();
  }

  /** One cycle; a second call while one runs waits for it instead of starting another. */
  runCycle(): Promise<CycleOutcome> {
    if (!this.#running) {
      this.#running = this.#cycle().finally(() => {
        this.#running = undefined;
      });
    }
    return this.#running;
  }

  async #cycle(): Promise<CycleOutcome> {
    // A sweep the watch started finishes first: never two looks at the node at once.
    await this.#watchLoop?.inFlight?.catch(() => undefined);
    try {
      return await this.#probeAnalyseAndKeep();
    } finally {
      releaseLastMatchInput();
      this.#options.collectGarbage?.();
    }
  }

  async #probeAnalyseAndKeep(): Promise<CycleOutcome> {
    const started = performance.now();
    const view = this.#options.pods();
    const outcome = await this.#probeAndAnalyse(view);
    const seconds = (performance.now() - started) / 1000;
    const status = this.#snapshot.status;
    if (outcome.kind === 'failed') {
      const errors = new Map(status.errors);
      errors.set(outcome.reason, (errors.get(outcome.reason) ?? 0) + 1);
      this.#snapshot = { ...this.#snapshot, status: { ...status, cycles: status.cycles + 1, errors, api: view.api } };
      this.#options.log(`cycle failed (${outcome.reason}): ${terminalSafe(outcome.detail, 'single-line')}; serving the last good result`);
      return outcome;
    }
    const { inspection } = outcome;
    const node = inspection.node;
    if (!node) throw new Error('unreachable: an analysed node capture has a node');
    const kills = node.model.kernelLog ? (node.oom?.kills ?? []) : undefined;
    const advance = advanceOomLedger(this.#snapshot.ledger, kills, {
      baseline: !this.#baselineTaken,
      nowMs: this.#now(),
      uptimeSeconds: node.model.uptimeSeconds,
      podUids: node.pods.map((pod) => pod.podUid),
    });
    if (kills) {
      if (!this.#baselineTaken && kills.length > 0)
        this.#options.log(`kernel log baseline: ${kills.length} OOM kill(s) already in the log are not counted`);
      this.#baselineTaken = true;
    }
    const levels = nodeGpuLevels(node);
    this.#peaks.record(this.#now(), levels);
    this.#lastLevel = inspectionWatchLevel(node);
    this.#watch.attributed(this.#lastLevel.kind === 'level' ? this.#lastLevel.bytes : undefined);
    this.#snapshot = {
      status: {
        ...status,
        cycles: status.cycles + 1,
        lastDurationSeconds: Math.round(seconds * 1e6) / 1e6,
        lastSuccessSeconds: Math.floor(this.#now() / 1000),
        api: view.api,
      },
      node: nodeMetricFacts(node, levels),
      unread: new Set(unreadOf(inspection.sight).map((input) => input.id)),
      ledger: advance.ledger,
      identities: view.identities,
    };
    if (advance.newKills.length > 0) {
      this.#options.log(`${advance.newKills.length} new OOM kill(s) in the kernel log`);
      this.#options.onNewKills?.(advance, inspection, view);
    }
    return { kind: 'ok', seconds, newKills: advance.newKills.length };
  }

  async #probeAndAnalyse(
    view: PodView,
  ): Promise<{ kind: 'ok'; inspection: Inspection } | { kind: 'failed'; reason: ProbeErrorReason; detail: string }> {
    // The capture is parsed as it arrives and its fdinfo sweep folded in file by file: the agent never holds it whole
    // (7 MiB on a node of 10,000 DRM fds, bench/agent.mjs).
    const analysis = new StreamingAnalysis();
    try {
      await runProbe(this.#options.transport, {
        scope: 'node',
        ...(this.#options.hostRoot !== undefined ? { hostRoot: this.#options.hostRoot } : {}),
        timeoutMs: this.#options.probeTimeoutMs,
        ...(this.#options.maxCaptureBytes !== undefined ? { maxOutputBytes: this.#options.maxCaptureBytes } : {}),
        signal: this.#life.signal,
        onOutput: (text) => analysis.push(text),
      });
    } catch (error) {
      if (error instanceof TransportError)
        return {
          kind: 'failed',
          reason: error.failure.kind === 'timeout' ? 'probe-timeout' : 'probe-failed',
          detail: describeFailure(error.failure),
        };
      return { kind: 'failed', reason: 'probe-failed', detail: errorMessage(error) };
    }
    let inspection: Inspection;
    try {
      inspection = analysis.finish({
        target: `agent on ${this.#options.nodeName}`,
        podNames: podNamesOfIdentities(view.identities),
        hamiQuotas: view.hamiQuotas,
        ...(this.#options.headroomPercent !== undefined ? { headroomPercent: this.#options.headroomPercent } : {}),
      });
    } catch (error) {
      // The analysis is fuzzed never to throw; should it, the agent keeps serving and says so.
      return {
        kind: 'failed',
        reason: 'capture-unusable',
        detail: `analysis failed: ${errorMessage(error)}`,
      };
    }
    if (inspection.scope !== 'node' || !inspection.node)
      return { kind: 'failed', reason: 'capture-unusable', detail: inspection.problems.slice(0, 3).join('; ') || 'no node capture' };
    return { kind: 'ok', inspection };
  }
}

/** Two scrapes at the PodMonitor's 30 s: a scrape that comes late still sees every spike once. */
export const DEFAULT_PEAK_WINDOW_MS = 60_000;

/**
 * V8 keeps the subject of the last successful regular expression match alive (the legacy RegExp.input, `$_`): after a
 * cycle that is a slice of the capture, and a slice holds its whole parent, so the capture's 7 MiB would stay in the
 * heap until the next cycle's first match, beside the next capture. One match on a constant lets it go.
 */
function releaseLastMatchInput(): void {
  /(?:)/.exec('');
}

/**
 * node's `gc` when it runs with --expose-gc (the DaemonSet's NODE_OPTIONS): the agent collects after each cycle, with
 * V8's memory-reducing flavour (the collection V8 runs under memory pressure: it compacts and hands freed pages back at
 * once, where a plain full collection keeps them pooled until the memory reducer's idle-time run seconds later). It
 * takes the RSS each cycle starts from down to the idle figure: bench/agent.mjs over 1,000 back-to-back cycles with the
 * DaemonSet's options, max RSS 77.5 MiB against 80.4 with a plain collection (87.6 with none over 300). Its CPU is about a
 * plain full collection's on one machine (111 against 108 ms a replayed cycle), ~100 ms more on a slow VM; any full
 * collection costs ~40 ms a cycle over none (bench/README.md).
 */
export function exposedGarbageCollector(): { collectGarbage?: () => void } {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') return {};
  // The options form (V8's --expose-gc extension); a V8 without it runs a plain full collection.
  return { collectGarbage: () => void (gc as (options: object) => unknown)(MEMORY_REDUCING_COLLECTION) };
}

const MEMORY_REDUCING_COLLECTION = { type: 'major', execution: 'sync', flavor: 'last-resort' } as const;
