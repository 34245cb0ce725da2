// The ids of the Clusters view and its commands (package.json contributes). Light on its own: the extension
// registers them at activation and loads their Kubernetes code on first use.
import { COMMANDS } from '../commandIds.ts';

export const CLUSTERS_VIEW = 'gpumem.clusters';

export const CLUSTER_COMMANDS = {
  refresh: COMMANDS.refreshClusters,
  showAllContexts: COMMANDS.showAllContexts,
  inspectNode: COMMANDS.inspectNode,
  inspectPod: COMMANDS.inspectPod,
  hamiChecklist: COMMANDS.hamiChecklistPod,
  testHamiEnforcement: COMMANDS.testHamiEnforcement,
  copyHamiReport: COMMANDS.copyHamiReport,
  explainNodeOom: COMMANDS.explainNodeOom,
  copyProbeCommand: COMMANDS.copyProbeCommand,
  openManifest: COMMANDS.openPodManifest,
  openFleetView: COMMANDS.openFleetView,
  setPrometheusCredentials: COMMANDS.setPrometheusCredentials,
  rightSizeWorkloads: COMMANDS.rightSizeWorkloads,
} as const;
