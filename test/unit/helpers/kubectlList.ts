// `kubectl get pods -A -o yaml` as kubectl prints it: a client-side `kind: List` (never stored in etcd, so of
// any size), keys sorted as kubectl's YAML printer sorts them (`items` before `kind`), each pod with the
// managedFields, status and conditions the API server returns. Reconstructed from the output of kubectl 1.34
// against a kind cluster; only names, uids and times vary from item to item.

export interface ListPod {
  readonly name: string;
  readonly namespace: string;
  /** `nvidia.com/gpu` limit; undefined for a CPU pod. */
  readonly gpus?: number;
  /** The container's memory limit; undefined for none. */
  readonly memoryLimit?: string;
}

function podItem(pod: ListPod, index: number): string {
  const uid = `${index.toString(16).padStart(8, '0')}-5c1d-4b6e-9a7f-3e2d1c0b9a87`;
  const limits = [
    ...(pod.gpus !== undefined ? [`          nvidia.com/gpu: "${pod.gpus}"`] : []),
    ...(pod.memoryLimit !== undefined ? [`          memory: ${pod.memoryLimit}`] : []),
  ];
  return `- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2026-12-01T09:14:07Z"
    generateName: ${pod.name.replace(/-[a-z0-9]+$/, '')}-
    labels:
      app.kubernetes.io/name: ${pod.name.replace(/-[a-z0-9]+$/, '')}
      pod-template-hash: 7d9f8c6b5
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:generateName: {}
          f:labels:
            .: {}
            f:app.kubernetes.io/name: {}
            f:pod-template-hash: {}
          f:ownerReferences:
            .: {}
            k:{"uid":"4f3a2b1c-0d9e-4f8a-b7c6-d5e4f3a2b1c0"}: {}
        f:spec:
          f:containers:
            k:{"name":"main"}:
              .: {}
              f:image: {}
              f:imagePullPolicy: {}
              f:name: {}
              f:resources:
                .: {}
                f:limits: {}
                f:requests: {}
              f:terminationMessagePath: {}
              f:terminationMessagePolicy: {}
          f:dnsPolicy: {}
          f:enableServiceLinks: {}
          f:restartPolicy: {}
          f:schedulerName: {}
          f:securityContext: {}
          f:terminationGracePeriodSeconds: {}
      manager: kube-controller-manager
      operation: Update
      time: "2026-12-01T09:14:07Z"
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:status:
          f:conditions:
            k:{"type":"ContainersReady"}:
              .: {}
              f:lastProbeTime: {}
              f:lastTransitionTime: {}
              f:status: {}
              f:type: {}
            k:{"type":"Ready"}:
              .: {}
              f:lastProbeTime: {}
              f:lastTransitionTime: {}
              f:status: {}
              f:type: {}
          f:containerStatuses: {}
          f:hostIP: {}
          f:phase: {}
          f:podIP: {}
          f:startTime: {}
      manager: kubelet
      operation: Update
      subresource: status
      time: "2026-12-01T09:14:12Z"
    name: ${pod.name}
    namespace: ${pod.namespace}
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: ReplicaSet
      name: ${pod.name.replace(/-[a-z0-9]+$/, '')}-7d9f8c6b5
      uid: 4f3a2b1c-0d9e-4f8a-b7c6-d5e4f3a2b1c0
    resourceVersion: "${100_000 + index}"
    uid: ${uid}
  spec:
    containers:
    - image: registry.example.com/${pod.namespace}/main:1.4.2
      imagePullPolicy: IfNotPresent
      name: main
      resources:
${limits.length > 0 ? `        limits:\n${limits.join('\n')}\n` : ''}        requests:
          cpu: 100m
      terminationMessagePath: /dev/termination-log
      terminationMessagePolicy: File
      volumeMounts:
      - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
        name: kube-api-access-x7k2p
        readOnly: true
    dnsPolicy: ClusterFirst
    enableServiceLinks: true
    nodeName: worker-${index % 40}
    preemptionPolicy: PreemptLowerPriority
    priority: 0
    restartPolicy: Always
    schedulerName: default-scheduler
    securityContext: {}
    serviceAccount: default
    serviceAccountName: default
    terminationGracePeriodSeconds: 30
    tolerations:
    - effect: NoExecute
      key: node.kubernetes.io/not-ready
      operator: Exists
      tolerationSeconds: 300
    - effect: NoExecute
      key: node.kubernetes.io/unreachable
      operator: Exists
      tolerationSeconds: 300
    volumes:
    - name: kube-api-access-x7k2p
      projected:
        defaultMode: 420
        sources:
        - serviceAccountToken:
            expirationSeconds: 3607
            path: token
        - configMap:
            items:
            - key: ca.crt
              path: ca.crt
            name: kube-root-ca.crt
  status:
    conditions:
    - lastProbeTime: null
      lastTransitionTime: "2026-12-01T09:14:12Z"
      status: "True"
      type: Ready
    - lastProbeTime: null
      lastTransitionTime: "2026-12-01T09:14:12Z"
      status: "True"
      type: ContainersReady
    containerStatuses:
    - containerID: containerd://${uid.replace(/-/g, '')}${uid.replace(/-/g, '')}
      image: registry.example.com/${pod.namespace}/main:1.4.2
      imageID: registry.example.com/${pod.namespace}/main@sha256:${'3f'.repeat(32)}
      lastState: {}
      name: main
      ready: true
      restartCount: 0
      started: true
      state:
        running:
          startedAt: "2026-12-01T09:14:11Z"
    hostIP: 10.0.${index % 40}.10
    phase: Running
    podIP: 10.244.${index % 250}.${index % 200}
    qosClass: Burstable
    startTime: "2026-12-01T09:14:07Z"
`;
}

/** The whole `kubectl get pods -A -o yaml` output for these pods. */
export function kubectlPodList(pods: readonly ListPod[]): string {
  return `apiVersion: v1\nitems:\n${pods.map(podItem).join('')}kind: List\nmetadata:\n  resourceVersion: ""\n`;
}

/** `count` CPU pods with memory limits, and one GPU pod without a memory limit at `gpuAt`. */
export function clusterWithOneUnlimitedGpuPod(count: number, gpuAt: number): ListPod[] {
  return Array.from({ length: count }, (_, i) =>
    i === gpuAt
      ? { name: `trainer-5f8d7`, namespace: 'ml', gpus: 1 }
      : { name: `web-${i.toString(36)}`, namespace: `team-${i % 30}`, memoryLimit: '512Mi' },
  );
}
