// What the simulator's parts share: the options, the store and the fixture roots, the records the tests read, the
// faults in force, and the timers and state a close() ends. startSimulator (server.ts) makes one per simulator and
// hands it to each part (auth.ts, listWatch.ts, events.ts, pods.ts, proxies.ts, execUpgrade.ts).
import type { SimulatorUser } from './fixtures.ts';
import { Roots } from './roots.ts';
import { Store } from './store.ts';
import type { ExecRecord, OpenWatch, PodRecord, PodRuntime, RequestRecord, SimulatorFaults, SimulatorOptions } from './types.ts';
import { DEMO_GIT_VERSION } from './types.ts';

export interface SimContext {
  readonly options: SimulatorOptions;
  readonly users: ReadonlyMap<string, SimulatorUser>;
  readonly store: Store;
  readonly roots: Roots;
  /** pods/log's texts by podLogKey (podLogs.ts). */
  readonly podLogs: Map<string, string>;
  readonly watches: Set<OpenWatch>;
  /** Each started pod's timers and execs, by uid. */
  readonly pods: Map<string, PodRuntime>;
  readonly createdPods: PodRecord[];
  readonly deletedPods: PodRecord[];
  readonly execs: ExecRecord[];
  readonly requests: RequestRecord[];
  /** Settles when each exec's child process has ended (close() waits for them). */
  readonly childExits: Set<Promise<void>>;
  readonly timers: Set<NodeJS.Timeout>;
  readonly startDelay: number;
  readonly stopDelay: number;
  readonly bookmarkInterval: number;
  readonly gitVersion: string;
  /** The faults in force: setFault replaces the object, so read it through the context each time. */
  faults: SimulatorFaults;
  /** Set by close(): requests get 503, and no timer of `later` fires. */
  closed: boolean;
  /** A timer that close() clears and that does nothing once closed. */
  later(ms: number, fn: () => void): NodeJS.Timeout;
  /** Records a request or an upgrade; the last 20,000 are kept. */
  logRequest(method: string, path: string, userAgent: string | undefined, upgrade?: boolean): RequestRecord;
}

export function createContext(options: SimulatorOptions): SimContext {
  const users = new Map<string, SimulatorUser>();
  for (const user of [...options.fixtures.users, ...(options.users ?? [])]) users.set(user.name, user);
  const timers = new Set<NodeJS.Timeout>();
  const requests: RequestRecord[] = [];
  const ctx: SimContext = {
    options,
    users,
    store: new Store(options.historyLimit ?? 1000),
    roots: new Roots(options.fixtures.nodeRoots, options.fixtures.containerRoots, options.roots ?? true),
    podLogs: new Map<string, string>(Object.entries(options.fixtures.podLogs ?? {})),
    watches: new Set<OpenWatch>(),
    pods: new Map<string, PodRuntime>(),
    createdPods: [],
    deletedPods: [],
    execs: [],
    requests,
    childExits: new Set<Promise<void>>(),
    timers,
    startDelay: options.podStartDelayMs ?? 150,
    stopDelay: options.podStopDelayMs ?? 100,
    bookmarkInterval: options.bookmarkIntervalMs ?? 60_000,
    gitVersion: options.gitVersion ?? DEMO_GIT_VERSION,
    faults: {},
    closed: false,
    later: (ms, fn) => {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!ctx.closed) fn();
      }, ms);
      timers.add(t);
      return t;
    },
    logRequest: (method, path, userAgent, upgrade = false) => {
      const record: RequestRecord = {
        method,
        path,
        at: Date.now(),
        ...(upgrade ? { upgrade } : {}),
        ...(userAgent ? { userAgent: userAgent.slice(0, 256) } : {}),
      };
      requests.push(record);
      if (requests.length > 20_500) requests.splice(0, requests.length - 20_000);
      return record;
    },
  };
  return ctx;
}
