// Which open documents are kustomize patches: the index of the last workspace lint (every kustomization of the
// workspace), else the kustomization beside the document, read once per directory in the background; when it lists
// documents that are open, they are linted again as patches.
import * as vscode from 'vscode';
import { KUSTOMIZATION_FILE_NAMES, KustomizePatchIndex, isKustomizationFileName } from '../core/manifest/kustomization.ts';
import type { KustomizePatchRole } from '../core/manifest/kustomization.ts';
import { readUriBounded } from './readUri.ts';
import { KUSTOMIZE_SCHEME } from './kustomizeScheme.ts';

export class KustomizePatches implements vscode.Disposable {
  #workspace: KustomizePatchIndex | undefined;
  readonly #byDirectory = new Map<string, KustomizePatchIndex | 'pending'>();
  readonly #onChange: () => void;
  readonly #subscription: vscode.Disposable;

  /** `onChange` relints the open documents: a kustomization read or saved may make some of them patches. */
  constructor(onChange: () => void) {
    this.#onChange = onChange;
    this.#subscription = vscode.workspace.onDidSaveTextDocument((document) => {
      if (!isKustomizationFileName(basename(document.uri.path))) return;
      this.#byDirectory.delete(vscode.Uri.joinPath(document.uri, '..').toString());
      this.#workspace = undefined;
      this.#onChange();
    });
  }

  setWorkspace(index: KustomizePatchIndex): void {
    this.#workspace = index;
  }

  roleOf(uri: vscode.Uri): KustomizePatchRole | undefined {
    // A rendered overlay (kubectl kustomize's output) is whole objects, never a patch.
    if (uri.scheme === 'untitled' || uri.scheme === KUSTOMIZE_SCHEME) return undefined;
    const listed = this.#workspace?.roleOf(uri.path);
    if (listed) return listed;
    const directory = vscode.Uri.joinPath(uri, '..');
    const key = directory.toString();
    const beside = this.#byDirectory.get(key);
    if (beside === undefined) {
      this.#byDirectory.set(key, 'pending');
      void this.#read(directory, key);
      return undefined;
    }
    return beside === 'pending' ? undefined : beside.roleOf(uri.path);
  }

  async #read(directory: vscode.Uri, key: string): Promise<void> {
    const index = new KustomizePatchIndex();
    for (const name of KUSTOMIZATION_FILE_NAMES) {
      const file = vscode.Uri.joinPath(directory, name);
      const read = await readUriBounded(file, { kind: 'config' });
      if (read.kind !== 'read') continue;
      index.add(file.path, new TextDecoder().decode(read.bytes), vscode.workspace.asRelativePath(file));
      break;
    }
    this.#byDirectory.set(key, index);
    if (index.size > 0) this.#onChange();
  }

  dispose(): void {
    this.#subscription.dispose();
  }
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
