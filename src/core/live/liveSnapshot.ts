// What a cluster says of the workloads a manifest describes, at one time: per workload (kind, namespace, name) its
// live object, its pods and one right-sizing row per container (src/core/rightsizing/rows.ts), with where the
// figures came from and how old they are. The editor and `gpumem lint --live` judge manifests against it
// (liveFindings.ts); it is read once per refresh, never per keystroke.
import { identity } from '../kube/json.ts';
import { kindKey } from '../manifest/workloads.ts';
import { podKey } from '../rightsizing/figures.ts';
import type { PromFigures } from '../rightsizing/figures.ts';
import type { RecommendationRow } from '../rightsizing/rows.ts';
import type { PodMatching, WorkloadRef } from '../rightsizing/workloadPods.ts';
import { livePods } from './livePods.ts';
import type { HamiStates, LivePod } from './livePods.ts';

export interface LiveWorkload {
  readonly ref: WorkloadRef;
  /** The live object as the API returned it (its pod template says what the cluster runs). */
  readonly object: unknown;
  /** Pods matched to it, and how many of them run a template other than the current one. */
  readonly pods: { readonly total: number; readonly oldTemplate: number };
  readonly rows: readonly RecommendationRow[];
  /** One line per matched pod, for the hover's table (livePods.ts). */
  readonly podLines: readonly LivePod[];
}

export interface LiveSnapshot {
  readonly context: string;
  /** The namespace a manifest object without one lands in (the context's namespace, else `default`). */
  readonly defaultNamespace: string;
  /** Where the figures came from, in words: "Prometheus monitoring/prometheus-k8s", "the agents' /metrics". */
  readonly source: string;
  /** The window the figures cover, as written: "7d". */
  readonly window: string;
  readonly windowSeconds: number;
  /** When the snapshot was read (Unix ms). */
  readonly fetchedAtMs: number;
  readonly workloads: ReadonlyMap<string, LiveWorkload>;
}

/** A workload's key: kind (with its API group where the kind name is shared, workloads.ts kindKey), namespace, name. */
export function liveKey(kind: string, namespace: string, name: string, apiVersion?: string): string {
  return `${kindKey(kind, apiVersion)}\u0000${namespace}\u0000${name}`;
}

export interface SnapshotParts {
  readonly context: string;
  readonly defaultNamespace: string;
  readonly source: string;
  readonly window: string;
  readonly windowSeconds: number;
  readonly fetchedAtMs: number;
  readonly matching: PodMatching;
  readonly rows: readonly RecommendationRow[];
  /** The pods' API objects (their last terminations and annotations); only what the pod lines need is kept. */
  readonly pods?: readonly unknown[];
  /** The Prometheus figures the rows were computed from; undefined without Prometheus. */
  readonly figures?: PromFigures;
  /** The agents' HAMi enforcement state per `namespace/pod`. */
  readonly hami?: HamiStates;
}

export function liveSnapshot(parts: SnapshotParts): LiveSnapshot {
  const rowsOf = new Map<string, RecommendationRow[]>();
  for (const row of parts.rows) {
    const key = liveKey(row.workload.kind, row.workload.namespace, row.workload.name, row.workload.apiVersion);
    const list = rowsOf.get(key);
    if (list) list.push(row);
    else rowsOf.set(key, [row]);
  }
  const podObjects = new Map<string, unknown>();
  for (const pod of parts.pods ?? []) {
    const meta = identity(pod);
    podObjects.set(podKey(meta.namespace ?? '', meta.name), pod);
  }
  const hami: HamiStates = parts.hami ?? new Map();
  const workloads = new Map<string, LiveWorkload>();
  for (const workload of parts.matching.workloads) {
    const key = liveKey(workload.ref.kind, workload.ref.namespace, workload.ref.name, workload.ref.apiVersion);
    workloads.set(key, {
      ref: workload.ref,
      object: workload.object,
      pods: { total: workload.pods.length, oldTemplate: workload.pods.filter((pod) => pod.oldTemplate).length },
      rows: rowsOf.get(key) ?? [],
      podLines: livePods({
        namespace: workload.ref.namespace,
        pods: workload.pods,
        podObjects,
        figures: parts.figures,
        figuresSource: parts.source,
        hami,
      }),
    });
  }
  return {
    context: parts.context,
    defaultNamespace: parts.defaultNamespace,
    source: parts.source,
    window: parts.window,
    windowSeconds: parts.windowSeconds,
    fetchedAtMs: parts.fetchedAtMs,
    workloads,
  };
}

/** "12 s", "5 min", "3 h", "2 d": how old a snapshot is, for every figure shown from it. */
export function ageText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h`;
  return `${Math.round(hours / 24)} d`;
}
