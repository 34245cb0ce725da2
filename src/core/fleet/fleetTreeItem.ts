// The Clusters view's Fleet item, first among a context's children: it opens the fleet view of that context
// (gpumem.openFleetView with the context's name). Pure, like the other tree item models (src/core/kube/).
import { markdownText } from '../text/escape.ts';
import type { TreeItemModel } from '../kube/treeItemModel.ts';
import { markdownTooltip } from '../kube/treeItemModel.ts';

export const FLEET_CONTEXT_VALUE = 'gpumem.fleet';

export function fleetTreeItem(context: string): TreeItemModel {
  return {
    label: 'Fleet',
    description: 'GPU nodes ranked by risk',
    tooltip: markdownTooltip(`Fleet of ${markdownText(context)}`, [
      "Every GPU node ranked by risk (cgroup memory, GPU memory outside any cgroup, free), the pods over their limit once GPU memory is counted, OOM kills by scope and the HAMi enforcement table, from the gpumem agents' metrics (Prometheus at gpumem.fleet.prometheusUrl, else each agent through the pod proxy).",
    ]),
    icon: { id: 'dashboard' },
    contextValue: FLEET_CONTEXT_VALUE,
    collapsible: false,
  };
}
