// The node debug pod's manifest, like `kubectl debug node/<n>`'s (the transport that creates, uses and always
// deletes it is debugPodTransport.ts).
// The pod:
// - `nodeName` (no scheduler), `restartPolicy: Never`, `activeDeadlineSeconds` (the kubelet kills it after
//   that even if everything here dies), `automountServiceAccountToken: false`, `terminationGracePeriodSeconds: 0`;
// - one container `debugger`, a configurable image (busybox:1.36 by default, `name@sha256:…` pins it), command
//   `sleep <deadline>`, the hostPath `/` mounted read-only at `/host`, and CAP_SYS_PTRACE (to read other
//   processes' fd and fdinfo in the host PID namespace) unless configured otherwise; not privileged by default;
// - the mount is read-only *recursively* (`recursiveReadOnly: Enabled`, mountPropagation None, as the API
//   requires) when the node's runtime says it supports that (`status.runtimeHandlers[].features
//   .recursiveReadOnlyMounts`, Kubernetes 1.30+, GA in 1.33): otherwise the mounts below / (kubelet volumes,
//   /run, /sys/fs/cgroup…) stay writable through /host, since a plain read-only bind is not recursive.
//   https://kubernetes.io/docs/concepts/storage/volumes/#recursive-read-only-mounts
// - labels `app.kubernetes.io/managed-by: gpumem` and `gpumem.io/debug-pod: "true"`, annotations with the
//   node and the creator (`user@host` of the client that made it), so a later run of the same user removes
//   its finished leftovers (debugPodSweep.ts) and never another user's pod; by hand:
//   `kubectl delete pod -A -l gpumem.io/debug-pod=true`;
// - tolerations for the node's own taints (read from the Node), or `operator: Exists` when the Node cannot be
//   read, as kubectl debug does.
import { randomBytes } from 'node:crypto';
import type { V1Node, V1Pod, V1Toleration } from '@kubernetes/client-node';
import { trimEndOf, trimStartOf } from '../core/textScan.ts';

export const DEBUG_POD_IMAGE = 'busybox:1.36';
export const DEBUG_CONTAINER = 'debugger';
export const DEBUG_HOST_ROOT = '/host';
export const DEBUG_POD_LABELS: Readonly<Record<string, string>> = {
  'app.kubernetes.io/managed-by': 'gpumem',
  'gpumem.io/debug-pod': 'true',
};
export const DEBUG_POD_NODE_ANNOTATION = 'gpumem.io/node';
/** Who created the pod: `user@host` of the client (see debugPodSweep.ts). */
export const DEBUG_POD_CREATOR_ANNOTATION = 'gpumem.io/created-by';
export const DEBUG_POD_SELECTOR = 'gpumem.io/debug-pod=true';

export interface DebugPodSpecInput {
  readonly name: string;
  readonly namespace: string;
  readonly node: string;
  readonly image: string;
  readonly activeDeadlineSeconds: number;
  readonly tolerations: readonly V1Toleration[];
  readonly capabilities: readonly string[];
  readonly privileged: boolean;
  /** Mount /host with `recursiveReadOnly: Enabled` (only when the node's runtime supports it: else the pod fails). */
  readonly recursiveReadOnly: boolean;
  /** `user@host`, for DEBUG_POD_CREATOR_ANNOTATION. */
  readonly creator: string;
}

/** The debug pod's manifest (see the header). */
export function debugPodManifest(input: DebugPodSpecInput): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels: { ...DEBUG_POD_LABELS },
      annotations: { [DEBUG_POD_NODE_ANNOTATION]: input.node, [DEBUG_POD_CREATOR_ANNOTATION]: input.creator },
    },
    spec: {
      nodeName: input.node,
      hostPID: true,
      restartPolicy: 'Never',
      activeDeadlineSeconds: input.activeDeadlineSeconds,
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      tolerations: [...input.tolerations],
      volumes: [{ name: 'host-root', hostPath: { path: '/' } }],
      containers: [
        {
          name: DEBUG_CONTAINER,
          image: input.image,
          imagePullPolicy: 'IfNotPresent',
          command: ['sleep', String(input.activeDeadlineSeconds)],
          stdin: false,
          tty: false,
          volumeMounts: [
            {
              name: 'host-root',
              mountPath: DEBUG_HOST_ROOT,
              readOnly: true,
              ...(input.recursiveReadOnly ? { recursiveReadOnly: 'Enabled', mountPropagation: 'None' } : {}),
            },
          ],
          securityContext: {
            privileged: input.privileged,
            ...(input.capabilities.length > 0 ? { capabilities: { add: [...input.capabilities] } } : {}),
          },
        },
      ],
    },
  };
}

/** `gpumem-debug-<node>-<random>`, a valid pod name for any node name. */
export function debugPodName(node: string): string {
  const stem = trimEndOf(trimStartOf(node.toLowerCase().replace(/[^a-z0-9-]+/g, '-'), '-').slice(0, 40), '-');
  return `gpumem-debug-${stem || 'node'}-${randomBytes(4).toString('hex').slice(0, 5)}`;
}

/** Whether the node's default runtime handler reports recursive read-only mount support (Node status, 1.30+). */
export type RecursiveReadOnlySupport = 'supported' | 'unsupported' | 'not-reported';

export function recursiveReadOnlySupport(node: V1Node | undefined): RecursiveReadOnlySupport {
  const handlers = node?.status?.runtimeHandlers;
  if (!handlers || handlers.length === 0) return 'not-reported';
  // The debug pod sets no runtimeClassName: the default handler (name "") runs it.
  const handler = handlers.find((h) => (h.name ?? '') === '') ?? undefined;
  if (!handler) return 'not-reported';
  return handler.features?.recursiveReadOnlyMounts === true ? 'supported' : 'unsupported';
}
