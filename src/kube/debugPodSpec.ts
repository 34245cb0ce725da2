// The node debug pod's manifest, like `kubectl debug node/<n>`'s (the transport that creates, uses and always
// deletes it is debugPodTransport.ts).
// The pod:
// - `nodeName` (no scheduler), `restartPolicy: Never`, `activeDeadlineSeconds` (the kubelet kills it after
//   that even if everything here dies), `automountServiceAccountToken: false`, `terminationGracePeriodSeconds: 0`;
// - one container `debugger`, a configurable image (busybox:1.36 by default), command `sleep <deadline>`,
//   the hostPath `/` mounted read-only at `/host`, and CAP_SYS_PTRACE (to read other processes' fd and
//   fdinfo in the host PID namespace) unless configured otherwise; not privileged by default;
// - labels `app.kubernetes.io/managed-by: gpumem` and `gpumem.io/debug-pod: "true"`, and an annotation with
//   the node, so stray pods can be found and removed (`kubectl delete pod -A -l gpumem.io/debug-pod=true`);
// - tolerations for the node's own taints (read from the Node), or `operator: Exists` when the Node cannot be
//   read, as kubectl debug does.
import { randomBytes } from 'node:crypto';
import type { V1Pod, V1Toleration } from '@kubernetes/client-node';
import { trimEndOf, trimStartOf } from '../core/textScan.ts';

export const DEBUG_POD_IMAGE = 'busybox:1.36';
export const DEBUG_CONTAINER = 'debugger';
export const DEBUG_HOST_ROOT = '/host';
export const DEBUG_POD_LABELS: Readonly<Record<string, string>> = { 'app.kubernetes.io/managed-by': 'gpumem', 'gpumem.io/debug-pod': 'true' };
export const DEBUG_POD_NODE_ANNOTATION = 'gpumem.io/node';
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
      annotations: { [DEBUG_POD_NODE_ANNOTATION]: input.node },
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
          volumeMounts: [{ name: 'host-root', mountPath: DEBUG_HOST_ROOT, readOnly: true }],
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
