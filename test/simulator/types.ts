// The simulator's types: what startSimulator (server.ts) takes and returns, and the records its state keeps.
import type { ExecProtocol, ExecResult, ExecSession } from './exec.ts';
import type { ClusterFixtures, SimulatorUser } from './fixtures.ts';
import type { KubeObject } from './objects.ts';
import type { Store } from './store.ts';

export const DEMO_GIT_VERSION = 'v1.33.0-gpumem-sim';
export const DEMO_CONTEXT = 'gpumem-demo';

export interface ForcedStatus {
  /** HTTP method to match (any when absent). */
  readonly method?: string;
  /** A path prefix (`/api/v1/nodes`) or a RegExp tested against path + query. */
  readonly path: string | RegExp;
  /** 401, 403, 500, 503, 429, … */
  readonly code: number;
  /** Apply this many times, then stop (unlimited when absent). */
  times?: number;
}

export interface SimulatorFaults {
  /** Added before every request is handled (exec upgrades included). */
  latencyMs?: number;
  forceStatus?: ForcedStatus[];
  /** Terminate an exec WebSocket (no close frame: the client sees 1006) after this many stdout bytes. */
  dropExecAfterStdoutBytes?: number;
  /** Users whose pod creation is refused with RBAC's 403 (even members of system:masters). */
  denyPodCreate?: string[];
  /** Created pods stay Pending with this waiting reason (e.g. `ImagePullBackOff`). */
  podWaitingReason?: string;
  /** Pods created on these nodes are refused (403), as an admission policy refuses them. */
  denyPodsOnNodes?: string[];
  /** Pods created on these nodes never start: they stay Pending with `ImagePullBackOff`. */
  podsNeverStartOnNodes?: string[];
  /**
   * One-shot: compact the watch history at the current resourceVersion and send every open watch the
   * ERROR event with the 410 `Expired` Status, then close it. A re-list and re-watch succeed afterwards.
   */
  expireWatches?: boolean;
}

export interface SimulatorOptions {
  readonly fixtures: ClusterFixtures;
  /**
   * API groups of the custom resources to serve, as if their CRDs were installed (`ray.io`,
   * `leaderworkerset.x-k8s.io`). Default: those whose kinds the fixtures hold. Others answer 404.
   */
  readonly crds?: readonly string[];
  readonly faults?: SimulatorFaults;
  /** Added to (and replacing by name) the fixture users. */
  readonly users?: readonly SimulatorUser[];
  /** 0 (default): a free port. */
  readonly port?: number;
  /** Build chroot roots for exec (default true; needs root). */
  readonly roots?: boolean;
  /** Watch history length before compaction (default 1000 events). */
  readonly historyLimit?: number;
  /** Pending → Running of a created pod (default 150 ms); ContainerCreating shows at half of it. */
  readonly podStartDelayMs?: number;
  /** Graceful deletion: how long a terminating pod lingers before it is gone (default 100 ms, at most its grace period). */
  readonly podStopDelayMs?: number;
  /** BOOKMARK interval of watches that allow bookmarks (default 60 s, as the API server). */
  readonly bookmarkIntervalMs?: number;
  /** Longest watch when the client sets no timeoutSeconds (default 1800 s). */
  readonly watchMaxSeconds?: number;
  /** Treat requests without credentials as system:anonymous (RBAC 403) instead of 401. */
  readonly anonymous?: boolean;
  /** /version gitVersion (default v1.33.0-gpumem-sim). */
  readonly gitVersion?: string;
}

export interface KubeconfigOptions {
  /** Context name (default `gpumem-demo`; with several users the others get `gpumem-demo-<user>`). */
  readonly context?: string;
  /** Credentials to write (default: the client certificate when the user has one, else the token). */
  readonly auth?: 'cert' | 'token';
  readonly namespace?: string;
}

export interface PodRecord {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly user: string;
  readonly at: number;
  readonly nodeName?: string;
  readonly gracePeriodSeconds?: number;
}

export interface ExecRecord {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly command: readonly string[];
  readonly protocol: ExecProtocol;
  readonly user: string;
  readonly at: number;
  result?: ExecResult;
}

export interface RequestRecord {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly at: number;
  user?: string;
  code?: number;
  upgrade?: boolean;
  /** The client's User-Agent header (kubectl says "kubectl/v1.33…"), when it sent one. */
  readonly userAgent?: string;
}

export interface SimulatorState {
  readonly store: Store;
  readonly resourceVersion: number;
  /** A copy of a stored object. */
  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(resource: string, namespace?: string): KubeObject[];
  /** Adds or replaces an object (kind decides the resource); watches see ADDED / MODIFIED. */
  put(object: KubeObject): KubeObject;
  remove(resource: string, namespace: string | undefined, name: string): KubeObject | undefined;
  readonly createdPods: readonly PodRecord[];
  /** Pods a DELETE was accepted for (recorded when the request is accepted, before the pod is gone). */
  readonly deletedPods: readonly PodRecord[];
  readonly execs: readonly ExecRecord[];
  /** The last 20,000 requests. */
  readonly requests: readonly RequestRecord[];
  /** TLS connections accepted so far (handshakes completed): keep-alive reuse shows as fewer than requests. */
  readonly tlsConnections: number;
  /** TLS connections open now (a client that closes its idle connections brings this back down). */
  openTlsConnections(): number;
  openWatches(): number;
  runningExecs(): number;
  /** Bind mounts of pod roots that are mounted now. */
  mounts(): string[];
  /** Root directories the simulator holds now. */
  rootDirectories(): string[];
  /** Problems met cleaning up (a mount that would not go away). */
  readonly cleanupProblems: readonly string[];
  /** Sets the log a container's pods/log serves (`previous`: its last terminated instance's). */
  setPodLog(namespace: string, pod: string, container: string, text: string, previous?: boolean): void;
  /** Same as setFault({ expireWatches: true }). */
  expireWatches(): void;
  /** Resolves once the pod is gone from the store (rejects after the timeout). */
  waitForPodGone(namespace: string, name: string, timeoutMs?: number): Promise<void>;
}

export interface Simulator {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The CA certificate's file and PEM text. */
  readonly caFile: string;
  readonly ca: string;
  /** YAML text of a kubeconfig for one user (or one context per user, the first current). */
  kubeconfig(user: string | readonly string[], options?: KubeconfigOptions): string;
  /** Merges a patch into the faults; `null` clears them all. */
  setFault(patch: SimulatorFaults | null): void;
  /**
   * Where the pod proxy (`GET /api/v1/namespaces/<ns>/pods/<pod>:<port>/proxy/<path>`) forwards for that pod and port:
   * a local `http://127.0.0.1:<port>` (a real agent, in the tests); undefined removes it.
   */
  setPodProxy(namespace: string, pod: string, port: number, target: string | undefined): void;
  /** The same for `GET /api/v1/namespaces/<ns>/services/<svc>:<port>/proxy/<path>`; port is the number or the port's name. */
  setServiceProxy(namespace: string, service: string, port: string, target: string | undefined): void;
  readonly faults: Readonly<SimulatorFaults>;
  readonly state: SimulatorState;
  readonly users: readonly SimulatorUser[];
  /**
   * The chroot root of a node that has a fixture scenario (the one its debug pods see at /host), built on first use;
   * undefined without roots or without a scenario. The demo's agents probe it (test/simulator/demoAgents.ts).
   */
  nodeRoot(node: string): string | undefined;
  close(): Promise<void>;
}

export interface AuthUser {
  readonly name: string;
  readonly groups: readonly string[];
}

export interface OpenWatch {
  expire(): void;
  end(): void;
}

export interface PodRuntime {
  timers: NodeJS.Timeout[];
  execs: Set<ExecSession>;
}
