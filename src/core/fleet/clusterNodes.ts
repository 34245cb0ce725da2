// What the API server adds to the fleet facts: each node's vendor, unified memory and labels (for the view's
// filters), and the GPU nodes no agent reported on. Pure.
import type { GpuNodeSummary } from '../kube/nodes.ts';
import type { FleetFacts, NodeFacts } from './facts.ts';

function vendorOf(summary: GpuNodeSummary, fallback: NodeFacts['vendor']): NodeFacts['vendor'] {
  const vendors = summary.vendors.map((vendor) => vendor.toLowerCase());
  if (vendors.some((vendor) => vendor.includes('nvidia'))) return 'nvidia';
  if (vendors.some((vendor) => vendor.includes('amd'))) return 'amd';
  if (vendors.some((vendor) => vendor.includes('intel'))) return 'intel';
  return fallback ?? (summary.isGpuNode ? undefined : 'none');
}

export function withClusterNodes(facts: FleetFacts, summaries: readonly GpuNodeSummary[]): FleetFacts {
  const byName = new Map(summaries.map((summary) => [summary.name, summary]));
  const nodes = facts.nodes.map((node): NodeFacts => {
    const summary = byName.get(node.node);
    if (!summary) return node;
    return {
      ...node,
      vendor: vendorOf(summary, node.vendor),
      unifiedMemory: summary.unifiedMemory.unified,
      labels: Object.fromEntries(summary.labels),
      memTotal: node.memTotal ?? summary.memoryCapacityBytes,
    };
  });
  const reported = new Set(facts.nodes.map((node) => node.node));
  const silentNodes = summaries.filter((summary) => summary.isGpuNode && !reported.has(summary.name)).map((summary) => summary.name);
  return { ...facts, nodes, silentNodes: [...facts.silentNodes, ...silentNodes] };
}
