// Which context this workspace's manifests are compared with, kept in the workspace's state (never in a file or a
// setting a repository could ship): never chosen (the offer is shown), off, or a context by name.
import type * as vscode from 'vscode';

export type LiveChoice =
  { readonly kind: 'never-chosen' } | { readonly kind: 'off' } | { readonly kind: 'context'; readonly context: string };

const KEY = 'gpumem.live.choice';

export function readLiveChoice(state: vscode.Memento): LiveChoice {
  const stored = state.get<unknown>(KEY);
  if (typeof stored !== 'object' || stored === null) return { kind: 'never-chosen' };
  const { kind, context } = stored as { kind?: unknown; context?: unknown };
  if (kind === 'off') return { kind: 'off' };
  if (kind === 'context' && typeof context === 'string' && context !== '') return { kind: 'context', context };
  return { kind: 'never-chosen' };
}

export function writeLiveChoice(state: vscode.Memento, choice: LiveChoice): Thenable<void> {
  return state.update(KEY, choice.kind === 'never-chosen' ? undefined : choice);
}
