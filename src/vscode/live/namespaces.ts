// The namespaces a linted manifest's workloads land in (their own, else the context's default): the live source
// reads those, not the whole cluster.
import type { ContainerSummary } from '../../core/analysis/containerSummary.ts';

export function namespacesOf(summaries: readonly ContainerSummary[], defaultNamespace: string): string[] {
  const out = new Set<string>();
  for (const summary of summaries) if (summary.object.name) out.add(summary.object.namespace ?? defaultNamespace);
  return [...out];
}
