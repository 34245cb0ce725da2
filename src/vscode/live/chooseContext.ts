// gpumem: Compare Manifests with a Cluster…: every context of the kubeconfig, then Off; the choice is this
// workspace's (workspace state). Trusted workspaces only: it reads the cluster.
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errorMessage.ts';
import { plainLabel } from '../../core/text/escape.ts';
import type { LazyRemote } from '../lazyRemote.ts';
import { showFailure } from '../messages.ts';
import type { Ctx } from '../ctx.ts';
import { requireTrust } from '../trust.ts';
import type { LiveMode } from './liveMode.ts';

interface ContextItem extends vscode.QuickPickItem {
  readonly context: string | undefined;
}

export async function chooseLiveContext(ctx: Ctx, live: LiveMode, remote: LazyRemote): Promise<void> {
  if (!requireTrust('Compare with a cluster')) return;
  let contexts: { readonly names: readonly string[]; readonly current: string | undefined };
  try {
    contexts = await remote.get('live mode').live.contexts();
  } catch (error) {
    // The log has the details; the notification, gpumem's own sentence (messages.ts).
    ctx.output.error(`Live mode: the kubeconfig could not be read: ${errorMessage(error)}`);
    void showFailure(ctx.output, 'gpumem: the kubeconfig could not be read for live mode (Show Log says why).');
    return;
  }
  const chosen = live.choice.kind === 'context' ? live.choice.context : undefined;
  const items: (ContextItem | vscode.QuickPickItem)[] = contexts.names.map((name) => ({
    label: plainLabel(name),
    description: [name === chosen ? 'compared now' : '', name === contexts.current ? 'current context' : ''].filter(Boolean).join(' · '),
    context: name,
  }));
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  items.push({ label: 'Off', description: 'lint the manifests alone', context: undefined });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Compare this workspace’s manifests with a cluster',
    placeHolder:
      contexts.names.length === 0
        ? 'No context in the kubeconfig (KUBECONFIG, ~/.kube/config or gpumem.kubeconfig): Off only'
        : 'The context whose workloads the manifests are compared with (read-only)',
  });
  if (!picked || !('context' in picked)) return;
  await live.choose(picked.context === undefined ? { kind: 'off' } : { kind: 'context', context: picked.context });
}
