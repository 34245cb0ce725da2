// What one check of the HAMi checklist (hamiChecklist.ts) is, and the cluster facts the checks read. A leaf:
// the checklist and the files of its checks all import it.

/** `covered`: the check found a cause another check already reports (hamiCoveredChecks.ts); it is named once, there. */
export type CheckStatus = 'pass' | 'fail' | 'unknown' | 'covered';
/** What a failure means: enforcement is bypassed, or only at risk (a precondition or side issue). */
export type CheckImpact = 'bypass' | 'risk';

export interface CheckCommon {
  /** Stable: docs links and the JSON output name checks by it. */
  readonly id: string;
  /**
   * The finding, in words that stand alone: a failure says what is wrong, a pass what was proven, an unknown
   * what is missing. Never the name of the check (that is `subject`). The verdict's summary quotes it.
   */
  readonly title: string;
  /** What the check examines, as a noun phrase ("/etc/ld.so.preload"): how other rows refer to it. */
  readonly subject: string;
  /** `seed` = a step of HAMi's seven-step troubleshooting checklist; `bypass` = a way around the limit (hami*Bypasses.ts). */
  readonly group: 'seed' | 'bypass';
  /** 1..7 for the troubleshooting steps. */
  readonly step?: number;
  /** The command this check corresponds to (the troubleshooting page's command for steps 1–7). */
  readonly command: string;
  /** Verbatim capture lines, as `<where>: <line>`. */
  readonly evidence: readonly string[];
  readonly impact: CheckImpact;
  /** One sentence behind the title: which processes, values or files, and why it matters. Does not repeat the title. */
  readonly summary: string;
}

export type Check =
  | (CheckCommon & { readonly status: 'pass' })
  | (CheckCommon & {
      readonly status: 'fail';
      readonly remedy: string;
      /**
       * Checks that report this same cause from another side when they fail too (earlier in the checklist):
       * this check then becomes `covered` by the first of them that failed.
       */
      readonly sameCauseAs?: readonly string[];
    })
  | (CheckCommon & { readonly status: 'unknown'; readonly remedy: string })
  | (CheckCommon & { readonly status: 'covered'; readonly coveredBy: string });

/**
 * The pod's RuntimeClass as the API server answered: its `handler` is the name of the CRI runtime (containerd's
 * `runtimes.<handler>`) that runs the pod, whatever the class is called.
 */
export type RuntimeClassLookup =
  | { readonly kind: 'found'; readonly name: string; readonly handler: string }
  | { readonly kind: 'missing'; readonly name: string }
  | { readonly kind: 'unreadable'; readonly name: string; readonly reason: string };

/** Facts only the Kubernetes layer has; every field is optional. */
export interface HamiClusterFacts {
  /** The HAMi device-plugin pods on the workload's node (`kubectl get pods -l app.kubernetes.io/component=hami-device-plugin`). */
  readonly devicePluginPods?: readonly { readonly name: string; readonly phase: string; readonly ready?: boolean }[];
  /** The pod's spec.runtimeClassName; null when the pod sets none. */
  readonly runtimeClassName?: string | null;
  /** The RuntimeClass object that name refers to (node.k8s.io/v1), as the API server answered. */
  readonly runtimeClass?: RuntimeClassLookup;
  /** The NVIDIA GPU Operator's version (its operator pod's image tag, e.g. "v25.10.0"), when it runs in the cluster. */
  readonly gpuOperatorVersion?: string;
  /** Any container of the pod is privileged. */
  readonly privileged?: boolean;
  /** The HAMi version (chart or image tag), e.g. "v2.9.0". */
  readonly hamiVersion?: string;
  /** The container's env from the pod spec. */
  readonly podEnv?: Readonly<Record<string, string>>;
  /** The container's log (kubectl logs), scanned for HAMi-core and loader lines. */
  readonly containerLog?: string;
  /**
   * The pod carries HAMi annotations, HAMi's scheduler or a HAMi-only resource (isHamiManaged). `false`: the
   * cluster says HAMi does not manage this pod; undefined: not known (a capture without the pod spec).
   */
  readonly managedByHami?: boolean;
  /** This container's devices in the pod's `hami.io/vgpu-devices-allocated`: the quota per GPU UUID, in MiB. */
  readonly allocatedDevices?: readonly { readonly uuid: string; readonly memMiB: number }[];
  /** The node's GPUs as HAMi's device plugin registered them (`hami.io/node-nvidia-register`): the physical memory. */
  readonly registeredDevices?: readonly { readonly uuid: string; readonly devmemMiB: number }[];
}
