// Live manifests as read-only virtual documents: pods, `gpumem-k8s:/<namespace>/<pod>.yaml?context=<name>`, and
// the workloads the Recommendations section opens (manifestScheme.ts). The text is the object as the API server
// returns it (wire YAML, managedFields dropped), fetched when the
// document is opened or refreshed; the editor gives it the `yaml` language, so the LintService lints it like a
// file and the Problems panel shows the findings. Nothing is ever written back to the cluster.
import * as vscode from 'vscode';
import { podManifestYaml } from '../../kube/explorer.ts';
import { readWorkloadYaml } from '../../rightsizing/readWorkload.ts';
import type { ClusterModel } from '../../clusters/clusterModel.ts';
import { parseManifestUri } from './manifestScheme.ts';
import { errorMessage } from '../../core/errorMessage.ts';

export class PodManifestProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly texts = new Map<string, string>();
  private readonly clusters: ClusterModel;

  constructor(clusters: ClusterModel) {
    this.clusters = clusters;
  }

  /** Reads the pod now; the open document (if any) shows the new text. Throws KubeRequestError. */
  async fetch(uri: vscode.Uri, signal?: AbortSignal): Promise<string> {
    const text = await this.read(uri, signal);
    this.changed.fire(uri);
    return text;
  }

  private async read(uri: vscode.Uri, signal?: AbortSignal): Promise<string> {
    const target = parseManifestUri(uri);
    if (!target) throw new Error(`not a gpumem live manifest URI: ${uri.toString()}`);
    await this.clusters.ensureLoaded();
    const client = this.clusters.client(target.context);
    const { kind, namespace, name } = target;
    const yaml =
      kind === 'Pod'
        ? podManifestYaml(await client.readPod(namespace, name, signal ? { signal } : {}))
        : await readWorkloadYaml(client, { kind, namespace, name }, signal);
    const text = `# Live manifest of ${kind === 'Pod' ? 'pod' : kind} ${namespace}/${name} (context ${target.context}), read-only, fetched ${new Date().toISOString()}\n${yaml}`;
    this.texts.set(uri.toString(), text);
    return text;
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const cached = this.texts.get(uri.toString());
    if (cached !== undefined) return cached;
    const controller = new AbortController();
    const subscription = token.onCancellationRequested(() => controller.abort());
    try {
      return await this.read(uri, controller.signal);
    } catch (error) {
      return `# Could not read this object: ${errorMessage(error).replace(/\n/g, ' ')}\n`;
    } finally {
      subscription.dispose();
    }
  }

  forget(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}
