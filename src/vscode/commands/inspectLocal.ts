// "Inspect Local Machine": the node probe on this machine, with progress and cancellation.
import * as vscode from 'vscode';
import { analyzeCaptureText } from '../../core/inspection/analyze.ts';
import { runProbe } from '../../core/inspection/runProbe.ts';
import type { Transport } from '../../core/probe/transport.ts';
import { TransportError } from '../../core/probe/transport.ts';
import { LocalTransport } from '../../transports/local.ts';
import type { Ctx } from '../ctx.ts';
import { showInspection } from '../reportView.ts';
import { requireTrust } from '../trust.ts';

export async function inspectWithTransport(ctx: Ctx, transport: Transport, title: string): Promise<void> {
  try {
    const inspection = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const subscription = token.onCancellationRequested(() => controller.abort());
        try {
          progress.report({ message: `running the read-only probe on ${transport.target}` });
          const run = await runProbe(transport, { scope: 'node', signal: controller.signal, timeoutMs: ctx.settings.probeTimeoutMs });
          progress.report({ message: 'analysing' });
          return analyzeCaptureText(run.captureText, { target: transport.target });
        } finally {
          subscription.dispose();
        }
      },
    );
    await showInspection(inspection);
  } catch (error) {
    if (error instanceof TransportError && error.failure.kind === 'cancelled') return;
    const message = error instanceof Error ? error.message : String(error);
    ctx.output.error(`${title} failed: ${message}`);
    void vscode.window.showErrorMessage(`gpumem: ${title} failed: ${message}`);
  } finally {
    await transport.close();
  }
}

export async function inspectLocal(ctx: Ctx): Promise<void> {
  if (!requireTrust('Inspect Local Machine')) return;
  await inspectWithTransport(ctx, new LocalTransport(), 'Inspecting the local machine');
}
