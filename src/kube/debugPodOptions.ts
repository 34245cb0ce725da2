// What a node debug pod transport (debugPodTransport.ts) is told, and the states it reports.
import type { Transport } from '../core/probe/transport.ts';
import type { ClusterClient } from './clusterClient.ts';
import type { DebugPodRegistry } from './debugPodRegistry.ts';
import type { RecursiveReadOnlySupport } from './debugPodSpec.ts';

export interface DebugPodTransportOptions {
  readonly client: ClusterClient;
  readonly node: string;
  /** Where the pod is created. Default `default`. */
  readonly namespace?: string;
  readonly image?: string;
  /**
   * The kubelet stops the pod after this, whatever happens here. Default 900 s (longer than a probe) per run,
   * 3600 s for a retained pod.
   */
  readonly activeDeadlineSeconds?: number;
  /** One pod per run (default) or one kept across runs (see the header). */
  readonly lifetime?: DebugPodLifetime;
  /** From create to Running (an image pull). Default 120 s. */
  readonly startTimeoutMs?: number;
  /** `node-taints` (default): tolerate exactly the node's taints; `all`: `operator: Exists`. */
  readonly tolerations?: 'node-taints' | 'all';
  /** Added capabilities. Default ['SYS_PTRACE']. */
  readonly capabilities?: readonly string[];
  readonly privileged?: boolean;
  /** Deadline of each delete attempt. Default 15 s. */
  readonly cleanupTimeoutMs?: number;
  /**
   * How the probe is exec'd in the debug pod. Default: client-node's WebSocket exec (PodExecTransport);
   * `gpumem.kubernetes.execMode: kubectl` passes a KubectlExecTransport. Pod creation, watch and deletion
   * always stay on client-node.
   */
  readonly exec?: DebugPodExecFactory;
  readonly log?: (line: string) => void;
  /** The creator annotation of the pods (and whose leftovers the sweep removes). Default `user@host` of this process. */
  readonly creator?: string;
  /** Remove this creator's finished or expired debug pods before the first create. Default true. */
  readonly sweep?: boolean;
  /** Tracks the transport until close() (see the header). */
  readonly registry?: DebugPodRegistry;
  /** Called with each message added to `cleanupFailures` (a retained pod is deleted long after the inspection returned). */
  readonly onCleanupFailure?: (message: string) => void;
}

/** How /host was mounted in the last pod: recursively read-only, or read-only at its top mount only (and why). */
export type HostMount =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'recursive-read-only' }
  | { readonly kind: 'top-read-only'; readonly support: Exclude<RecursiveReadOnlySupport, 'supported'> };

/** How long a debug pod lives (see the header). */
export type DebugPodLifetime =
  | { readonly kind: 'per-run' }
  | {
      readonly kind: 'retained';
      /** Delete the pod after this long without a run; the next run creates a new one. Default 120 s. */
      readonly idleMs?: number;
    };

/** The pod a retained transport holds; a per-run transport stays `none` until closed. */
export type DebugPodState =
  | { readonly kind: 'none' }
  | { readonly kind: 'starting'; readonly name: string }
  | { readonly kind: 'ready'; readonly name: string; readonly expiresAt: number }
  | { readonly kind: 'closed' };

export const DEBUG_POD_DEADLINE_SECONDS = 900;
export const RETAINED_DEBUG_POD_DEADLINE_SECONDS = 3600;
export const RETAINED_DEBUG_POD_IDLE_MS = 120_000;
/** A retained pod is replaced before a run that would end closer than this to its deadline. */
export const DEADLINE_MARGIN_MS = 15_000;

/** Opens the exec transport into a debug pod's container (see DebugPodTransportOptions.exec). */
export type DebugPodExecFactory = (target: { readonly namespace: string; readonly pod: string; readonly container: string }) => Transport;
