// Between the agent's full cycles: the GPU watch every few seconds (gpuWatchScript.ts, a handful of sysfs reads), and
// a light sweep (lightScript.ts) when it sees the node's GPU memory rise, so a spike between two scrapes reaches the
// maxima (gpuPeaks.ts) with the pod and container that held it. Never two looks at once: a watch tick is skipped
// while a full cycle runs, and a full cycle waits for a sweep in flight (Agent.#cycle).
import type { GpuWatch } from '../core/agent/gpuWatch.ts';
import { watchReading } from '../core/agent/gpuWatch.ts';
import type { PeakWindow } from '../core/agent/gpuPeaks.ts';
import { sweepLevels } from '../core/agent/gpuSweep.ts';
import { buildGpuWatchScript } from '../core/probe/scripts/gpuWatchScript.ts';
import { buildLightProbeScript } from '../core/probe/scripts/lightScript.ts';
import { newNonce } from '../core/probe/script.ts';
import type { Transport } from '../core/probe/transport.ts';
import { describeFailure, TransportError } from '../core/probe/transport.ts';
import { terminalSafe } from '../core/text/escape.ts';
import { errorMessage } from '../core/errorMessage.ts';

const WATCH_TIMEOUT_MS = 10_000;
const WATCH_MAX_OUTPUT = 256 * 1024;
const SWEEP_TIMEOUT_MS = 30_000;
const SWEEP_MAX_OUTPUT = 16 * 1024 * 1024;

export interface GpuWatchLoopOptions {
  readonly transport: Transport;
  readonly hostRoot: string | undefined;
  readonly intervalMs: number;
  readonly peaks: PeakWindow;
  readonly watch: GpuWatch;
  /** Whether a full cycle is running now (the tick is then skipped: the cycle looks anyway). */
  readonly cycleRunning: () => boolean;
  /** Whether the last full cycle found GPU memory counters to watch (a node without any is not watched). */
  readonly watchable: () => boolean;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  readonly now: () => number;
}

/** What the last tick did, for the log and the tests. */
export type WatchTick =
  | { readonly kind: 'skipped'; readonly reason: 'cycle-running' | 'not-watchable' | 'no-level' }
  | { readonly kind: 'steady' }
  | { readonly kind: 'swept'; readonly pods: number }
  | { readonly kind: 'failed'; readonly detail: string };

export class GpuWatchLoop {
  readonly #options: GpuWatchLoopOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<WatchTick> | undefined;
  #sweeps = 0;
  #lastFailure = '';

  constructor(options: GpuWatchLoopOptions) {
    this.#options = options;
  }

  /** Light sweeps run since the agent started. */
  get sweeps(): number {
    return this.#sweeps;
  }

  /** The look in flight, for a full cycle to wait for. */
  get inFlight(): Promise<unknown> | undefined {
    return this.#inFlight;
  }

  start(): void {
    const tick = async (): Promise<void> => {
      this.#timer = undefined;
      await this.tick();
      if (!this.#options.signal.aborted) this.#timer = setTimeout(() => void tick(), this.#options.intervalMs);
    };
    this.#timer = setTimeout(() => void tick(), this.#options.intervalMs);
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  tick(): Promise<WatchTick> {
    if (!this.#inFlight)
      this.#inFlight = this.#tick().finally(() => {
        this.#inFlight = undefined;
      });
    return this.#inFlight;
  }

  async #tick(): Promise<WatchTick> {
    const options = this.#options;
    if (options.cycleRunning()) return { kind: 'skipped', reason: 'cycle-running' };
    if (!options.watchable()) return { kind: 'skipped', reason: 'not-watchable' };
    try {
      const hostRoot = options.hostRoot ?? '';
      const watched = await options.transport.run({
        script: buildGpuWatchScript({ nonce: newNonce(), hostRoot }),
        timeoutMs: WATCH_TIMEOUT_MS,
        maxOutputBytes: WATCH_MAX_OUTPUT,
        signal: options.signal,
      });
      const reading = watchReading(watched.stdout);
      if (reading.kind !== 'level') return { kind: 'skipped', reason: 'no-level' };
      if (!options.watch.observe(reading.bytes)) return { kind: 'steady' };
      const swept = await options.transport.run({
        script: buildLightProbeScript({ nonce: newNonce(), hostRoot }),
        timeoutMs: SWEEP_TIMEOUT_MS,
        maxOutputBytes: SWEEP_MAX_OUTPUT,
        signal: options.signal,
      });
      const { levels } = sweepLevels(swept.stdout);
      options.peaks.record(options.now(), levels);
      options.watch.attributed(reading.bytes);
      this.#sweeps++;
      this.#lastFailure = '';
      return { kind: 'swept', pods: levels.pods.size };
    } catch (error) {
      const detail = error instanceof TransportError ? describeFailure(error.failure) : errorMessage(error);
      // Logged once per distinct failure: a watch every 5 s must not flood the log with the same line.
      if (detail !== this.#lastFailure && !options.signal.aborted)
        options.log(`GPU watch failed: ${terminalSafe(detail, 'single-line')}; the maxima keep what the full cycles see`);
      this.#lastFailure = detail;
      return { kind: 'failed', detail };
    }
  }
}
