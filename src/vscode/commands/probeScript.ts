// "Copy Probe Script": the node or container probe on the clipboard, for air-gapped nodes.
import * as vscode from 'vscode';
import { buildProbeScript, newNonce } from '../../core/probe/script.ts';

export async function copyProbeScript(): Promise<void> {
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'Node', description: 'run as root on the node: sh -s < probe.sh > capture.txt', scope: 'node' as const, hostRoot: '' },
      {
        label: 'Node, from a debug pod',
        description: 'kubectl debug node/<n> --image=busybox: host mounted at /host',
        scope: 'node' as const,
        hostRoot: '/host',
      },
      {
        label: 'Container',
        description: 'inside a workload container: kubectl exec -i <pod> -- sh -s < probe.sh',
        scope: 'container' as const,
        hostRoot: '',
      },
    ],
    { placeHolder: 'Which probe?' },
  );
  if (!picked) return;
  await vscode.env.clipboard.writeText(buildProbeScript({ scope: picked.scope, nonce: newNonce(), hostRoot: picked.hostRoot }));
  void vscode.window.showInformationMessage(
    'gpumem: probe script copied. Save its output and open it with "gpumem: Analyze Probe Capture…".',
  );
}
