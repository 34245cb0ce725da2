// What the Clusters view shows for a kubeconfig context, a node and a GPU pod, as plain data: label,
// description, tooltip (Markdown), codicon and contextValue. Pure, so the tree's content is tested without
// VS Code against the simulator through the real client (test/integration/clusterTree.test.ts); the view
// (src/vscode/clusters/clusterTree.ts) only copies these fields into TreeItems.
//
// Everything from a cluster or a kubeconfig is untrusted text:
// - labels and descriptions are plain text (VS Code renders them as text); control characters become spaces
//   and very long values are cut, so a hostile name cannot break the row;
// - tooltips are Markdown (the view sets isTrusted=false, no HTML, no theme icons) in which every value goes
//   through markdownText(), which backslash-escapes all ASCII punctuation: no link, image, HTML, emphasis, table
//   or autolinked URL can come from a value.
//
// This file holds the model every item shares and the formatting helpers; one file per kind of item
// (contextTreeItem.ts, nodeTreeItem.ts, podTreeItem.ts, messageTreeItems.ts) builds it.

export const CONTEXT_VALUES = {
  context: 'gpumem.context',
  node: 'gpumem.node',
  gpuPod: 'gpumem.gpuPod',
  hamiPod: 'gpumem.hamiPod',
  message: 'gpumem.message',
} as const;

export interface IconSpec {
  /** A codicon id, e.g. `circuit-board`, `warning`, `loading~spin`. */
  readonly id: string;
  /** A theme color id, e.g. `list.warningForeground`. */
  readonly color?: string;
}

export interface TreeItemModel {
  readonly label: string;
  readonly description: string;
  /** Markdown; every value from the cluster is escaped with markdownText(). */
  readonly tooltip: string;
  readonly icon: IconSpec;
  readonly contextValue: string;
  readonly collapsible: boolean;
}

export const WARNING_COLOR = 'list.warningForeground';
export const ERROR_COLOR = 'list.errorForeground';

/** "20m ago", "3h ago", "2d ago"; undefined without a parsable time. */
export function ageText(time: string | undefined, now: number): string | undefined {
  if (time === undefined) return undefined;
  const at = Date.parse(time);
  if (Number.isNaN(at)) return undefined;
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 90) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.round(hours / 24)}d ago`;
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** One `- **label:** value` line of a tooltip, or nothing when there is no value. */
export function markdownBullet(label: string, value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : `- **${label}:** ${value}`;
}

/** A tooltip: the bold title, a blank line, then the lines that are there. */
export function markdownTooltip(title: string, lines: readonly (string | undefined)[]): string {
  return [`**${title}**`, '', ...lines.filter((line): line is string => line !== undefined)].join('\n');
}
