// The Clusters view's placeholder rows: connecting, loading, empty, errors, and the notes under a node about
// the pods it does not list.
import { markdownText, plainLabel } from '../text/escape.ts';
import type { IconSpec, TreeItemModel } from './treeItemModel.ts';
import { CONTEXT_VALUES, ERROR_COLOR, plural, WARNING_COLOR } from './treeItemModel.ts';

export type MessageKind = 'connecting' | 'loading' | 'empty' | 'error' | 'forbidden' | 'info';

export function messageTreeItem(kind: MessageKind, text: string, detail?: string): TreeItemModel {
  const icon: IconSpec =
    kind === 'connecting' || kind === 'loading'
      ? { id: 'loading~spin' }
      : kind === 'error'
        ? { id: 'error', color: ERROR_COLOR }
        : kind === 'forbidden'
          ? { id: 'lock', color: WARNING_COLOR }
          : { id: 'info' };
  return {
    label: plainLabel(text),
    description: '',
    tooltip: detail ? markdownText(detail) : markdownText(text),
    icon,
    contextValue: CONTEXT_VALUES.message,
    collapsible: false,
  };
}

/** The item under a node that has no GPU pods. */
export function noGpuPodsItem(otherPods: number): TreeItemModel {
  return messageTreeItem('empty', otherPods === 0 ? 'No pods' : `No GPU pods (${plural(otherPods, 'other pod')})`);
}

/** The last item under a node with GPU pods, when it also runs other pods. */
export function otherPodsItem(otherPods: number): TreeItemModel {
  return messageTreeItem(
    'info',
    `${plural(otherPods, 'pod')} without GPUs`,
    'Pods that request no GPU resource and carry no HAMi allocation are not listed.',
  );
}
