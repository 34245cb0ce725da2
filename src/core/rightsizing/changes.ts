// What a recommendation changes in one workload: per container the memory request and limit (equal), and the GPU
// memory declaration on the pod template. Both the patch and the in-place edit are written from this.
import { workloadEntry } from '../manifest/workloads.ts';
import type { WorkloadRef } from './workloadPods.ts';

export interface ContainerChange {
  readonly container: string;
  /** The quantity for requests.memory and limits.memory, as a person writes it ("24Gi"). */
  readonly memory: string;
}

export interface WorkloadChange {
  readonly ref: Pick<WorkloadRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>;
  /** Which pod template of a multi-template kind (podTemplates.ts: `workerGroupSpecs[gpu]`); absent for a kind with one. */
  readonly template?: string;
  readonly containers: readonly ContainerChange[];
  /** Pod-template annotations to set: gpumem.io/gpu-memory (or .<container>) and its quantity. */
  readonly annotations: ReadonlyMap<string, string>;
}

/** The keys from the object root to its pod template, for kinds with exactly one template; else why not. */
export function templatePathOf(
  kind: string,
  apiVersion: string,
): { kind: 'path'; path: readonly string[] } | { kind: 'none'; reason: string } {
  const entry = workloadEntry(kind, apiVersion);
  if (!entry) return { kind: 'none', reason: `${kind} is not a kind gpumem reads pod templates from` };
  const [only, ...more] = entry.templates;
  const shape = entry.shape?.layout ?? 'template';
  if (!only || more.length > 0 || only.some((step) => step === '[]' || step === '{}') || shape !== 'template') {
    return { kind: 'none', reason: `${kind} has several pod templates or an inline pod spec: edit it by hand` };
  }
  return { kind: 'path', path: only.filter((step) => step !== '.') };
}
