// Every command gpumem contributes, named once. `registerCommand` and our own `executeCommand` calls take a
// CommandId, so a typo or a command missing from package.json fails the typecheck or
// test/unit/commandIds.test.ts (which compares this list with `contributes.commands` and the menus).
// Pure (no vscode import), so the unit test can read it.

export const COMMANDS = {
  lintWorkspace: 'gpumem.lintWorkspace',
  lintActiveFile: 'gpumem.lintActiveFile',
  /** `kubectl kustomize DIR` opened read-only and linted (a folder or kustomization file, or the active editor's). */
  lintRenderedOverlay: 'gpumem.lintRenderedOverlay',
  showRuleDocs: 'gpumem.showRuleDocs',
  applyFix: 'gpumem.applyFix',
  inspectLocal: 'gpumem.inspectLocal',
  inspectSshHost: 'gpumem.inspectSshHost',
  refreshSshHosts: 'gpumem.refreshSshHosts',
  analyzeCapture: 'gpumem.analyzeCapture',
  copyProbeScript: 'gpumem.copyProbeScript',
  explainOom: 'gpumem.explainOom',
  refreshClusters: 'gpumem.refreshClusters',
  showAllContexts: 'gpumem.showAllContexts',
  inspectNode: 'gpumem.inspectNode',
  inspectPod: 'gpumem.inspectPod',
  hamiChecklistPod: 'gpumem.hamiChecklistPod',
  testHamiEnforcement: 'gpumem.testHamiEnforcement',
  copyHamiReport: 'gpumem.copyHamiReport',
  explainNodeOom: 'gpumem.explainNodeOom',
  copyProbeCommand: 'gpumem.copyProbeCommand',
  openPodManifest: 'gpumem.openPodManifest',
  /** The inspector's "a click opens the pod" (src/core/inspectorPanel/openPod.ts): `(args: OpenPodArgs) => Promise<boolean>`. */
  revealPod: 'gpumem.revealPod',
  /** The Fleet view of a context (the Clusters view's Fleet item passes the context's name). */
  openFleetView: 'gpumem.openFleetView',
  setPrometheusCredentials: 'gpumem.setPrometheusCredentials',
  /** Right-sizing of a context's workloads, shown in its fleet panel (a context's tree element, or a quick pick). */
  rightSizeWorkloads: 'gpumem.rightSizeWorkloads',
  /** Live mode: the context this workspace's manifests are compared with, or Off (src/vscode/live/). */
  chooseLiveContext: 'gpumem.chooseLiveContext',
  refreshLiveData: 'gpumem.refreshLiveData',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
