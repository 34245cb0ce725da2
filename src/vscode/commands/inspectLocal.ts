// "Inspect Local Machine": the node probe on this machine, with progress and cancellation (inspectionRun/run.ts).
import { LocalTransport } from '../../transports/local.ts';
import type { Ctx } from '../ctx.ts';
import { runInspection } from '../inspectionRun/run.ts';
import { requireTrust } from '../trust.ts';

export async function inspectLocal(ctx: Ctx): Promise<void> {
  if (!requireTrust('Inspect Local Machine')) return;
  await runInspection(ctx, new LocalTransport(), 'Inspecting the local machine', { liveSampling: true });
}
