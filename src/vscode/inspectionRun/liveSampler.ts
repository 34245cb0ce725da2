// Live sampling of an inspected node. While a panel lives it owns the transport the inspection ran on, when
// the command handed it over (run.ts's `liveSampling`: the SSH connection stays open, a local transport holds
// nothing, Inspect Node's debug pod is kept: see src/kube/debugPodTransport.ts, lifetime `retained`), and
// re-runs the light probe (src/core/probe/scripts/lightScript.ts) every `gpumem.inspector.sampleSeconds`
// (0 = off): one exec per sample, never two at once. It stops while the panel is hidden (the webview is not
// kept alive: no retainContextWhenHidden, so the history lives here and is sent again when the panel shows),
// after the user pauses it, after three failures in a row, and for good when the panel closes, which also
// closes the transport (deletes the debug pod); deactivate waits for that (InspectionPanels.closeAll). Each
// sample is logged to the gpumem output channel ("inspector: live sample N …"), which is how the e2e tests
// count execs.
import type * as vscode from 'vscode';
import type { Inspection } from '../../core/inspectionRun/analyze.ts';
import type { LiveState } from '../../core/inspector/protocol.ts';
import type { SamplePoint } from '../../core/inspectorPanel/sample.ts';
import type { EvictionBaseline } from '../../core/inspectorPanel/sample.ts';
import { appendBounded, MAX_SAMPLES, sampleWithBaseline } from '../../core/inspectorPanel/sample.ts';
import { newNonce } from '../../core/probe/script.ts';
import { buildLightProbeScript } from '../../core/probe/scripts/lightScript.ts';
import type { Transport } from '../../core/probe/transport.ts';
import { TransportError } from '../../core/probe/transport.ts';
import { errorMessage } from '../../core/errorMessage.ts';

const MAX_FAILURES = 3;
const LIGHT_PROBE_MAX_OUTPUT = 16 * 1024 * 1024;

export interface LiveSamplerHooks {
  readonly output: vscode.LogOutputChannel;
  /** gpumem.inspector.sampleSeconds as the configuration service reads it (0 = off). */
  readonly everySeconds: () => number;
  /** Sampling pauses while the panel is hidden. */
  readonly isVisible: () => boolean;
  readonly onSample: (point: SamplePoint) => void;
  readonly onState: (state: LiveState) => void;
  /** A transport being closed (a debug pod being deleted), so that deactivate can wait for it. */
  readonly trackClosing: (closing: Promise<void>) => void;
}

export class LiveSampler {
  readonly #hooks: LiveSamplerHooks;
  /** The inspection sampled: its scope says whether sampling applies, its capture root where the host is. */
  #inspection: Inspection | undefined;
  #transport: Transport | undefined;
  #history: SamplePoint[] = [];
  /** The last sample's KFD counters: the next sample's eviction rates are their growth. */
  #evictionBaseline: EvictionBaseline | undefined;
  #samples = 0;
  #failures = 0;
  #userPaused = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: AbortController | undefined;
  #lastError = '';
  #disposed = false;

  constructor(hooks: LiveSamplerHooks) {
    this.#hooks = hooks;
  }

  /** The samples so far, for a webview that (re)loads. */
  get history(): readonly SamplePoint[] {
    return this.#history;
  }

  /**
   * A new inspection in the panel: takes ownership of `transport` when the inspection is a node's (the light
   * probe reads node files), closes it otherwise, and closes the previous transport when it is another one.
   */
  load(inspection: Inspection | undefined, transport: Transport | undefined): void {
    this.#inspection = inspection;
    if (this.#transport && this.#transport !== transport) void this.#closeTransport();
    this.#transport = inspection?.scope === 'node' ? transport : undefined;
    if (transport && !this.#transport) void transport.close();
    this.#history = [];
    this.#evictionBaseline = undefined;
    this.#failures = 0;
    this.#userPaused = false;
    this.#lastError = '';
  }

  setPaused(paused: boolean): void {
    this.#userPaused = paused;
    this.schedule(0);
  }

  state(): LiveState {
    const every = this.#hooks.everySeconds();
    const base = { everySeconds: every, samples: this.#samples };
    if (!this.#transport) {
      const why =
        this.#inspection?.scope !== 'node' && this.#inspection !== undefined
          ? 'Live sampling needs a node inspection.'
          : 'No open connection for live sampling: a saved capture or a panel restored after a window reload has none. Run Inspect Local Machine, Inspect SSH Host… or Inspect Node again to sample live.';
      return { ...base, status: 'unavailable', detail: why };
    }
    if (every === 0) return { ...base, status: 'off', detail: 'Live sampling is off (gpumem.inspector.sampleSeconds is 0).' };
    if (this.#failures >= MAX_FAILURES)
      return { ...base, status: 'error', detail: `Live sampling stopped after ${MAX_FAILURES} failures: ${this.#lastError}` };
    if (this.#userPaused) return { ...base, status: 'paused', detail: `Paused after ${this.#samples} samples.` };
    if (!this.#hooks.isVisible()) return { ...base, status: 'hidden', detail: 'Paused while the panel is hidden.' };
    return {
      ...base,
      status: 'running',
      detail: `Sampling ${this.#transport.target} every ${every} s: ${this.#samples} samples${this.#lastError ? ` (last error: ${this.#lastError})` : ''}.`,
    };
  }

  /** Tells the webview the state and (re)arms the timer when sampling should run; stops it otherwise. */
  schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#disposed) return;
    const state = this.state();
    this.#hooks.onState(state);
    if (state.status !== 'running' || this.#inFlight) return;
    this.#timer = setTimeout(() => void this.#sample(), delayMs);
  }

  async #sample(): Promise<void> {
    this.#timer = undefined;
    const transport = this.#transport;
    if (this.#disposed || !transport || this.state().status !== 'running' || this.#inFlight) return;
    const every = this.#hooks.everySeconds();
    const controller = new AbortController();
    this.#inFlight = controller;
    const started = Date.now();
    const output = this.#hooks.output;
    try {
      const script = buildLightProbeScript({ nonce: newNonce(), hostRoot: this.#inspection?.capture.root ?? '' });
      const result = await transport.run({
        script,
        timeoutMs: Math.max(10_000, every * 3000),
        maxOutputBytes: LIGHT_PROBE_MAX_OUTPUT,
        signal: controller.signal,
      });
      if (this.#disposed) return;
      this.#samples++;
      const { point, baseline } = sampleWithBaseline(result.stdout, Date.now(), this.#evictionBaseline);
      this.#evictionBaseline = baseline;
      appendBounded(this.#history, point, MAX_SAMPLES);
      this.#failures = 0;
      this.#lastError = point.problems[0] ?? '';
      output.info(
        `inspector: live sample ${this.#samples} of ${transport.target} in ${Date.now() - started} ms (${point.pods.length} pods)`,
      );
      this.#hooks.onSample(point);
    } catch (error) {
      if (this.#disposed || (error instanceof TransportError && error.failure.kind === 'cancelled')) return;
      this.#samples++;
      this.#failures++;
      this.#lastError = errorMessage(error);
      output.warn(
        `inspector: live sample ${this.#samples} of ${transport.target} failed (${this.#failures}/${MAX_FAILURES}): ${this.#lastError}`,
      );
    } finally {
      if (this.#inFlight === controller) this.#inFlight = undefined;
    }
    this.schedule(Math.max(250, every * 1000 - (Date.now() - started)));
  }

  async #closeTransport(): Promise<void> {
    const transport = this.#transport;
    this.#transport = undefined;
    this.#inFlight?.abort();
    if (!transport) return;
    const closing = transport
      .close()
      .catch((error: unknown) => this.#hooks.output.warn(`inspector: closing ${transport.target}: ${String(error)}`));
    this.#hooks.trackClosing(closing);
    await closing;
  }

  /** For good: stops the timer and closes the transport (`target` names the panel in the log). */
  dispose(target: string): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#transport)
      this.#hooks.output.info(`inspector: panel of ${target} closed after ${this.#samples} live samples; closing the connection`);
    void this.#closeTransport();
  }
}
