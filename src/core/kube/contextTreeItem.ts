// The Clusters view's row for a kubeconfig context: its reachability (contextState.ts), the cluster, server,
// user and credentials it names, and where it was defined.
import type { ContextState } from './contextState.ts';
import { describeContextState } from './contextState.ts';
import { explainForbidden } from './failureMessages.ts';
import { markdownText, plainLabel } from '../text/escape.ts';
import type { IconSpec, TreeItemModel } from './treeItemModel.ts';
import { CONTEXT_VALUES, ERROR_COLOR, markdownBullet, markdownTooltip, plural, WARNING_COLOR } from './treeItemModel.ts';

/** A kubeconfig context as read (src/kube/kubeconfig.ts adds the client-node KubeConfig to it). */
export interface ContextDescription {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace: string | undefined;
  /** The API server URL, when the context's cluster exists. */
  readonly server: string | undefined;
  readonly proxyUrl: string | undefined;
  /** The user authenticates with an exec credential plugin (its command). */
  readonly execCommand: string | undefined;
  /** The file that defined the context. */
  readonly file: string;
  /** Why this context cannot be used (its cluster is missing…); undefined when it is complete. */
  readonly problem: string | undefined;
}

export interface ContextInfo extends ContextDescription {
  /** The kubeconfig's current-context (only shown: gpumem never changes it). */
  readonly current: boolean;
}

export interface ContextProgress {
  /** A probe or the node list is in flight. */
  readonly connecting: boolean;
  /** Set once the nodes are listed. */
  readonly nodes?: { readonly total: number; readonly gpu: number };
}

export function contextTreeItem(info: ContextInfo, state: ContextState, progress: ContextProgress): TreeItemModel {
  const view = describeContextState(state, `context "${info.name}"`);
  // describeContextState's can-i line would carry the quoted label: ours quotes the name for the shell.
  const action = state.kind === 'Forbidden' ? explainForbidden(state.verb, state.resource, { context: info.name }) : view.action;
  const parts: string[] = [];
  if (info.current) parts.push('current');
  let icon: IconSpec;
  if (progress.connecting) {
    parts.push('connecting…');
    icon = { id: 'loading~spin' };
  } else {
    switch (state.kind) {
      case 'Reachable':
        parts.push(state.version);
        if (progress.nodes) parts.push(`${plural(progress.nodes.total, 'node')}, ${progress.nodes.gpu} GPU`);
        icon = { id: 'vm-active', color: 'charts.green' };
        break;
      case 'Forbidden':
        parts.push(view.label);
        icon = { id: 'lock', color: WARNING_COLOR };
        break;
      case 'Unreachable':
        parts.push(view.label);
        icon = { id: 'debug-disconnect', color: ERROR_COLOR };
        break;
      case 'Unknown':
        parts.push(info.execCommand ? 'expand to connect' : 'not checked');
        icon = { id: 'vm-outline' };
        break;
    }
  }
  const lines = [
    state.kind === 'Unknown' ? undefined : markdownText(view.message),
    action ? `\n${markdownText(action)}\n` : undefined,
    markdownBullet('Cluster', markdownText(info.cluster)),
    markdownBullet('Server', info.server ? markdownText(info.server) : undefined),
    markdownBullet('User', markdownText(info.user)),
    markdownBullet('Namespace', info.namespace ? markdownText(info.namespace) : undefined),
    markdownBullet('Proxy', info.proxyUrl ? markdownText(info.proxyUrl) : undefined),
    markdownBullet(
      'Credentials',
      info.execCommand ? `exec plugin ${markdownText(info.execCommand)} (runs when the context is expanded)` : undefined,
    ),
    markdownBullet('Defined in', markdownText(info.file)),
    info.problem ? markdownBullet('Problem', markdownText(info.problem)) : undefined,
    info.current ? "\nThe kubeconfig's current context. gpumem shows every context and never changes the kubeconfig." : undefined,
  ];
  return {
    label: plainLabel(info.name),
    description: plainLabel(parts.join(' · ')),
    tooltip: markdownTooltip(`Context ${markdownText(info.name)}`, lines),
    icon,
    contextValue: CONTEXT_VALUES.context,
    collapsible: true,
  };
}
