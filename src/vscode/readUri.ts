// The extension's side of the one bounded reader (src/files/boundedRead.ts): workspace files on disk go through
// it (devices, FIFOs and sockets refused, reads stopped at the limit); files of a remote or virtual workspace
// through the provider's stat and readFile, checked against the same limit before they are read.
import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import * as vscode from 'vscode';
import { describeFsError, INPUT_LIMITS, readBounded, tooLarge } from '../files/boundedRead.ts';
import type { BoundedRead, ReadOptions } from '../files/boundedRead.ts';

export async function readUriBounded(uri: vscode.Uri, options: ReadOptions): Promise<BoundedRead> {
  if (uri.scheme === 'file') return readBounded(uri.fsPath, options);
  const limitBytes = options.limitBytes ?? INPUT_LIMITS[options.kind].limitBytes;
  try {
    const info = await vscode.workspace.fs.stat(uri);
    if ((info.type & vscode.FileType.File) === 0) return { kind: 'refused', cause: 'not-regular', reason: 'is not a file' };
    if (info.size > limitBytes) return tooLarge(limitBytes, options.kind);
    const bytes = await vscode.workspace.fs.readFile(uri);
    return bytes.length > limitBytes ? tooLarge(limitBytes, options.kind) : { kind: 'read', bytes };
  } catch (error) {
    const missing = error instanceof vscode.FileSystemError && error.code === 'FileNotFound';
    return { kind: 'refused', cause: missing ? 'missing' : 'unreadable', reason: missing ? 'no such file' : describeFsError(error) };
  }
}

/**
 * Why a workspace file found by a scan is not read, or undefined: as the CLI's directory walk, a symlink whose
 * target leaves its workspace folder is not followed (a cloned repository's link to ~/.kube/config or /dev/zero).
 */
export async function linkLeavesWorkspace(uri: vscode.Uri): Promise<string | undefined> {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (uri.scheme !== 'file' || !folder || folder.uri.scheme !== 'file') return undefined;
  try {
    const [target, root] = await Promise.all([realpath(uri.fsPath), realpath(folder.uri.fsPath)]);
    const inside = root === sep ? sep : `${root}${sep}`;
    return target.startsWith(inside) ? undefined : `a symbolic link to ${target}, outside the workspace folder (not followed)`;
  } catch (error) {
    return `a symbolic link that cannot be resolved: ${describeFsError(error)}`;
  }
}
