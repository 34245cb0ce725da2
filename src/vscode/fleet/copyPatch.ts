// A Recommendations row's Copy patch: the workload's strategic-merge patch (src/core/rightsizing/patch.ts), the
// host's own text, never the webview's, to the clipboard, with a confirmation. The webview only names the workload.
import * as vscode from 'vscode';
import type { WorkloadTarget } from '../../core/rightsizing/liveKinds.ts';
import { workloadKeyOf } from '../../core/rightsizing/recommendationsModel.ts';
import type { PatchResult } from '../../core/rightsizing/patch.ts';
import { plainLabel } from '../../core/text/escape.ts';
import type { CopiedResult } from '../../core/webviewIpc/results.ts';

export type CopyOutcome = CopiedResult | { readonly kind: 'failed'; readonly reason: string };

export async function copyWorkloadPatch(
  output: vscode.LogOutputChannel,
  patches: ReadonlyMap<string, PatchResult> | undefined,
  target: WorkloadTarget,
): Promise<CopyOutcome> {
  const label = plainLabel(`${target.kind} ${target.namespace}/${target.name}`);
  const patch = patches?.get(workloadKeyOf(target));
  if (!patch) return { kind: 'failed', reason: `no recommendation for ${label} in this panel: run Right-Size Workloads again` };
  if (patch.kind === 'none') return { kind: 'failed', reason: `no patch for ${label}: ${patch.reason}` };
  await vscode.env.clipboard.writeText(patch.text);
  output.info(`right-sizing: the strategic-merge patch of ${label} copied to the clipboard (${patch.text.length} characters)`);
  void vscode.window.showInformationMessage(
    `gpumem: the strategic-merge patch of ${label} is on the clipboard (kubectl patch --type strategic, or a kustomize patch).`,
  );
  return { kind: 'copied' };
}
