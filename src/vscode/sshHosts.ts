// The SSH Hosts view: hosts from the gpumem.ssh.hosts setting and the Host entries of ~/.ssh/config. In
// dist/inspect.js: src/extension.ts makes it the first time the view asks for its items (src/vscode/lazyTree.ts).
import * as vscode from 'vscode';
import type { Settings } from '../core/settings.ts';
import { COMMANDS } from './commandIds.ts';
import { listSshHosts } from '../transports/sshConfig.ts';
import { defaultSshEnv, readUserSshConfig, readIncludeFromDisk } from '../transports/sshUserConfig.ts';
import type { Ctx } from './ctx.ts';

export type SshHostSource = { readonly kind: 'setting' } | { readonly kind: 'ssh-config'; readonly file: string; readonly line: number };

export interface SshHostItem {
  readonly destination: string;
  readonly source: SshHostSource;
}

/** The hosts of the gpumem.ssh.hosts setting, then those of ~/.ssh/config that the setting does not name. */
export function configuredSshHosts(settings: Settings): SshHostItem[] {
  const items: SshHostItem[] = settings.sshHosts.map((destination) => ({ destination, source: { kind: 'setting' } }));
  const env = defaultSshEnv();
  const config = readUserSshConfig(env);
  const seen = new Set(items.map((item) => item.destination.toLowerCase()));
  for (const entry of listSshHosts(config.text, { readInclude: readIncludeFromDisk, env })) {
    if (seen.has(entry.alias.toLowerCase())) continue;
    seen.add(entry.alias.toLowerCase());
    items.push({
      destination: entry.alias,
      source: { kind: 'ssh-config', file: entry.source === 'ssh config' ? config.path : entry.source, line: entry.line },
    });
  }
  return items;
}

export class SshHostsProvider implements vscode.TreeDataProvider<SshHostItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly ctx: Ctx;
  private readonly subscription: vscode.Disposable;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.subscription = ctx.onDidChangeSettings((change) => {
      if (change.affects('gpumem.ssh')) this.refresh();
    });
  }

  refresh(): void {
    this.changed.fire();
  }

  getChildren(element?: SshHostItem): SshHostItem[] {
    return element ? [] : configuredSshHosts(this.ctx.settings);
  }

  getTreeItem(element: SshHostItem): vscode.TreeItem {
    const item = new vscode.TreeItem(element.destination, vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon('remote');
    item.contextValue = 'gpumem.sshHost';
    item.description = element.source.kind === 'setting' ? 'gpumem.ssh.hosts' : '~/.ssh/config';
    item.tooltip =
      element.source.kind === 'setting'
        ? `From the gpumem.ssh.hosts setting`
        : `Host entry in ${element.source.file}, line ${element.source.line}`;
    item.command = { title: 'Inspect', command: COMMANDS.inspectSshHost, arguments: [element] };
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
