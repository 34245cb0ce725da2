// What one check of the HAMi checklist (hamiChecklist.ts) is, and the cluster facts the checks read. A leaf:
// the checklist and the files of its checks all import it.

export type CheckStatus = 'pass' | 'fail' | 'unknown';
/** What a failure means: enforcement is bypassed, or only at risk (a precondition or side issue). */
export type CheckImpact = 'bypass' | 'risk';

export interface CheckCommon {
  readonly id: string;
  readonly title: string;
  /** `seed` = a step of HAMi's seven-step troubleshooting checklist; `bypass` = a way around the limit (hamiBypassChecks.ts). */
  readonly group: 'seed' | 'bypass';
  /** 1..7 for the troubleshooting steps. */
  readonly step?: number;
  /** The command this check corresponds to (the troubleshooting page's command for steps 1–7). */
  readonly command: string;
  /** Verbatim capture lines, as `<where>: <line>`. */
  readonly evidence: readonly string[];
  readonly impact: CheckImpact;
  /**
   * One sentence: what was found. A failure's starts with what is wrong, in words that stand alone, and
   * only then `: ` and the details (the verdict's summary quotes that first part).
   */
  readonly summary: string;
}

export type Check =
  | (CheckCommon & { readonly status: 'pass' })
  | (CheckCommon & { readonly status: 'fail'; readonly remedy: string })
  | (CheckCommon & { readonly status: 'unknown'; readonly remedy: string });

/** Facts only the Kubernetes layer has; every field is optional. */
export interface HamiClusterFacts {
  /** The HAMi device-plugin pods on the workload's node (`kubectl get pods -l app.kubernetes.io/component=hami-device-plugin`). */
  readonly devicePluginPods?: readonly { readonly name: string; readonly phase: string; readonly ready?: boolean }[];
  /** The pod's spec.runtimeClassName; null when the pod sets none. */
  readonly runtimeClassName?: string | null;
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
}
