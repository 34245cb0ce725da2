// The SSH Hosts view: hosts from the gpumem.ssh.hosts setting and the Host entries of ~/.ssh/config.
import * as vscode from 'vscode';
import { COMMANDS } from './commandIds.ts';
import { listSshHosts } from '../transports/sshConfig.ts';
import { defaultSshEnv, readUserSshConfig, readIncludeFromDisk } from '../transports/sshUserConfig.ts';

export type SshHostSource = { readonly kind: 'setting' } | { readonly kind: 'ssh-config'; readonly file: string; readonly line: number };

export interface SshHostItem {
  readonly destination: string;
  readonly source: SshHostSource;
}

export function configuredSshHosts(): SshHostItem[] {
  const fromSettings = vscode.workspace.getConfiguration('gpumem.ssh').get<unknown[]>('hosts', []);
  const items: SshHostItem[] = fromSettings.filter((host): host is string => typeof host === 'string' && host.trim() !== '').map((destination) => ({ destination: destination.trim(), source: { kind: 'setting' } }));
  const env = defaultSshEnv();
  const config = readUserSshConfig(env);
  const seen = new Set(items.map((item) => item.destination.toLowerCase()));
  for (const entry of listSshHosts(config.text, { readInclude: readIncludeFromDisk, env })) {
    if (seen.has(entry.alias.toLowerCase())) continue;
    seen.add(entry.alias.toLowerCase());
    items.push({ destination: entry.alias, source: { kind: 'ssh-config', file: entry.source === 'ssh config' ? config.path : entry.source, line: entry.line } });
  }
  return items;
}

export class SshHostsProvider implements vscode.TreeDataProvider<SshHostItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription = vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration('gpumem.ssh')) this.refresh();
  });

  refresh(): void {
    this.changed.fire();
  }

  getChildren(element?: SshHostItem): SshHostItem[] {
    return element ? [] : configuredSshHosts();
  }

  getTreeItem(element: SshHostItem): vscode.TreeItem {
    const item = new vscode.TreeItem(element.destination, vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon('remote');
    item.contextValue = 'gpumem.sshHost';
    item.description = element.source.kind === 'setting' ? 'gpumem.ssh.hosts' : '~/.ssh/config';
    item.tooltip = element.source.kind === 'setting' ? `From the gpumem.ssh.hosts setting` : `Host entry in ${element.source.file}, line ${element.source.line}`;
    item.command = { title: 'Inspect', command: COMMANDS.inspectSshHost, arguments: [element] };
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
