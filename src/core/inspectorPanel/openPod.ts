// "A click opens the pod": the inspector asks the Clusters view to reveal a pod (`gpumem.revealPod`,
// COMMANDS.revealPod in src/vscode/commandIds.ts, registered by src/vscode/clusters/revealPod.ts, which answers
// true when a kubeconfig context has it) and falls back to the pod's numbers as a report. The arguments cross
// a command boundary any extension can call, so they are parsed, not trusted.
import { isDnsLabel, isDnsSubdomain } from '../kube/names.ts';

export interface OpenPodArgs {
  readonly podUid: string;
  /** `namespace/name`, when the inspection knew the pod names (a cluster inspection). */
  readonly podName: string | undefined;
  /** The inspection's target, for messages. */
  readonly target: string;
}

const MAX_ARG = 512;

/** OpenPodArgs from an untyped command argument, or undefined. */
export function parseOpenPodArgs(value: unknown): OpenPodArgs | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { podUid, podName, target } = value as Record<string, unknown>;
  if (typeof podUid !== 'string' || podUid === '' || podUid.length > MAX_ARG) return undefined;
  if (podName !== undefined && (typeof podName !== 'string' || podName.length > MAX_ARG)) return undefined;
  return { podUid, podName, target: typeof target === 'string' ? target.slice(0, MAX_ARG) : '' };
}

/** The namespace and name of a `namespace/name` pod name (DNS-1123 labels and subdomains), or {} when it is not one. */
export function splitPodName(podName: string | undefined): { namespace?: string; name?: string } {
  const [namespace, name, ...rest] = podName?.split('/') ?? [];
  return namespace !== undefined && name !== undefined && rest.length === 0 && isDnsLabel(namespace) && isDnsSubdomain(name)
    ? { namespace, name }
    : {};
}
