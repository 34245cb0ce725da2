// What the HAMi issue bundle is assembled from: objects read from the Kubernetes API (read-only: gets, lists
// and pods/log, no exec and no write) by src/kube/hamiReport.ts, each lookup either read or failed with the
// reason, so the report can say what it could not collect and why. Objects are plain JSON or client-node
// models (read defensively by kube/json.ts).
import type { NodeCaptureRead } from './hamiIssueNode.ts';

/** One lookup's outcome: read, or why not (RBAC, not found, timeout), already explained for the user. */
export type Lookup<T> = { readonly kind: 'read'; readonly value: T } | { readonly kind: 'failed'; readonly reason: string };

/** One container's log tail from pods/log. */
export interface ContainerLog {
  readonly container: string;
  /** The last terminated instance's log (`previous=true`), read when the container restarted. */
  readonly previous: boolean;
  /** `truncated`: the text was cut at the byte bound (the server's limitBytes or ours). */
  readonly log: Lookup<{ readonly text: string; readonly truncated: boolean }>;
}

/** A HAMi component pod (a device plugin on the pod's node, or a scheduler) with its containers' logs. */
export interface ComponentPod {
  readonly pod: unknown;
  readonly logs: readonly ContainerLog[];
}

export interface HamiReportInput {
  readonly context: string;
  /** The API server's gitVersion (GET /version). */
  readonly serverVersion: Lookup<string>;
  readonly pod: unknown;
  /** Events whose involvedObject.uid is the pod's. */
  readonly events: Lookup<readonly unknown[]>;
  /** The pod's node; undefined when the pod is not scheduled. */
  readonly node: Lookup<unknown> | undefined;
  /** HAMi device-plugin pods on the pod's node (app.kubernetes.io/component=hami-device-plugin); undefined when unscheduled. */
  readonly devicePlugins: Lookup<readonly ComponentPod[]> | undefined;
  /** HAMi scheduler pods (app.kubernetes.io/component=hami-scheduler) in any namespace. */
  readonly schedulers: Lookup<readonly ComponentPod[]>;
  /** How many log lines were asked for per container (tailLines). */
  readonly tailLines: number;
  /** When the bundle was collected (ISO 8601). */
  readonly collectedAt: string;
  /** gpumem's version, named in the report's header. */
  readonly toolVersion: string;
  /** A node capture the user gave (its file name, and what it holds), for the items only the node has. */
  readonly nodeCapture?: { readonly source: string; readonly read: NodeCaptureRead };
}
