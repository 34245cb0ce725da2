// The one inspection flow of every command that probes a machine (Inspect Local Machine, Inspect SSH Host…,
// Inspect Node, Inspect Pod, the HAMi checklist, Explain OOM Kills on Node): progress with cancel, the probe on
// the transport, the analysis, the result shown, and one way to report a failure.
import * as vscode from 'vscode';
import { analyzeCaptureText } from '../../core/inspectionRun/analyze.ts';
import type { AnalyzeOptions, Inspection } from '../../core/inspectionRun/analyze.ts';
import { runProbe } from '../../core/inspectionRun/runProbe.ts';
import { hamiLibPathOption } from '../../core/probe/hamiLibPath.ts';
import type { ProbeScope } from '../../core/probe/capture.ts';
import type { Transport } from '../../core/probe/transport.ts';
import { TransportError } from '../../core/probe/transport.ts';
import type { Ctx } from '../ctx.ts';
import { reportError } from '../messages.ts';
import { errorMessage } from '../../core/errorMessage.ts';

/** What the Kubernetes commands add to an inspection; the local and SSH inspections use the defaults. */
export interface InspectOptions {
  /** Default: the node probe without a host prefix. A node debug pod needs hostRoot '/host'. */
  readonly probe?: { readonly scope?: ProbeScope; readonly hostRoot?: string };
  /** More analysis inputs (pod names, HAMi cluster facts), gathered while the probe runs; a failure is logged and ignored. */
  readonly analysis?: (signal: AbortSignal) => Promise<Omit<AnalyzeOptions, 'target'>>;
  /** Shows the result; default: the inspection report. */
  readonly show?: (inspection: Inspection) => Promise<void>;
  /** A clearer message for a failure (RBAC refusals); default: the error's own message. */
  readonly explainError?: (error: unknown) => string | undefined;
  /**
   * Hand the open transport to the inspector panel, which re-runs the light probe on it and closes it when the
   * panel closes (local, SSH, Inspect Node's retained debug pod). Without it (or with `show`), the transport is
   * closed as soon as the inspection is shown.
   */
  readonly liveSampling?: boolean;
}

export async function runInspection(
  ctx: Ctx,
  transport: Transport,
  title: string,
  options: InspectOptions = {},
): Promise<Inspection | undefined> {
  // With `liveSampling` the inspector panel takes the open transport and closes it when it is disposed;
  // otherwise (and on any failure) it is closed here.
  let handedOver = false;
  try {
    const { inspection, captureText } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const subscription = token.onCancellationRequested(() => controller.abort());
        try {
          const extra = options.analysis?.(controller.signal).catch((error: unknown) => {
            ctx.output.warn(`${title}: cluster facts unavailable: ${errorMessage(error)}`);
            return {};
          });
          progress.report({ message: `running the read-only probe on ${transport.target}` });
          const scope = options.probe?.scope ?? 'node';
          const hostRoot = options.probe?.hostRoot;
          // HAMi's directory matters on the node only; a container probe has no host view.
          const hami = scope === 'node' ? hamiLibPathOption(ctx.settings.hamiLibPath) : {};
          const run = await runProbe(transport, {
            scope,
            ...(hostRoot !== undefined ? { hostRoot } : {}),
            ...hami,
            signal: controller.signal,
            timeoutMs: ctx.settings.probeTimeoutMs,
          });
          progress.report({ message: 'analysing' });
          const more: Omit<AnalyzeOptions, 'target'> = (await extra) ?? {};
          const analyzeOptions = { ...more, target: transport.target, headroomPercent: ctx.settings.lint.headroomPercent };
          return { inspection: analyzeCaptureText(run.captureText, analyzeOptions), captureText: run.captureText };
        } finally {
          subscription.dispose();
        }
      },
    );
    if (options.show) await options.show(inspection);
    else {
      handedOver = options.liveSampling === true;
      await ctx.inspections.show(inspection, { captureText, ...(handedOver ? { transport } : {}) });
    }
    return inspection;
  } catch (error) {
    if (error instanceof TransportError && error.failure.kind === 'cancelled') return undefined;
    reportError(ctx.output, title, error, options.explainError?.(error));
    return undefined;
  } finally {
    if (!handedOver) await transport.close();
  }
}
