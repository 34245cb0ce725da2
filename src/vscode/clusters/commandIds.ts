// The ids of the Clusters view and its commands (package.json contributes). Light on its own: the extension
// registers them at activation and loads their Kubernetes code on first use.
export const CLUSTERS_VIEW = 'gpumem.clusters';

export const CLUSTER_COMMANDS = {
  refresh: 'gpumem.refreshClusters',
  showAllContexts: 'gpumem.showAllContexts',
  inspectNode: 'gpumem.inspectNode',
  inspectPod: 'gpumem.inspectPod',
  hamiChecklist: 'gpumem.hamiChecklistPod',
  explainNodeOom: 'gpumem.explainNodeOom',
  copyProbeCommand: 'gpumem.copyProbeCommand',
  openManifest: 'gpumem.openPodManifest',
} as const;
