// Live mode's half in dist/remote.js (it needs @kubernetes/client-node): the kubeconfig's contexts for the pick, a
// LiveSource of one context (src/live/), through the Clusters view's model so it uses the same kubeconfig, timeouts
// and credentials, and the judging of manifests against its snapshots. Read-only.
import type { ClusterModel } from '../../clusters/clusterModel.ts';
import type { FleetWindow } from '../../core/fleet/facts.ts';
import { liveLayerModel } from '../../core/live/liveLayerModel.ts';
import type { LiveSource } from '../../live/liveSource.ts';
import { WatchedSource } from '../../live/watchedSource.ts';

/** setInterval's longest delay (about 24.8 days): "only on demand" in practice. */
const ON_DEMAND_ONLY_MS = 2 ** 31 - 1;

export interface LiveSourceRequest {
  readonly context: string;
  readonly window: FleetWindow;
  readonly headroomPercent: number;
  readonly staleAfterMs: number;
  /** How often the figures are read again; 0: only on demand. */
  readonly refreshMs: number;
}

export interface RemoteLive {
  /** Every context of the kubeconfig, in its order, and the current one. */
  contexts(): Promise<{ readonly names: readonly string[]; readonly current: string | undefined }>;
  /** A source of the context, not yet read; a sentence when the kubeconfig has no such context. */
  createSource(request: LiveSourceRequest): Promise<LiveSource | string>;
  /** A manifest judged against a snapshot (src/core/live/liveLayerModel.ts), here so dist/extension.js need not hold it. */
  readonly judge: typeof liveLayerModel;
}

export function remoteLive(model: ClusterModel): RemoteLive {
  return {
    contexts: async () => {
      const contexts = await model.ensureLoaded();
      return { names: contexts.map((one) => one.info.name), current: contexts.find((one) => one.info.current)?.info.name };
    },
    createSource: async (request) => {
      const contexts = await model.ensureLoaded();
      const context = contexts.find((one) => one.info.name === request.context);
      if (!context) return `the kubeconfig has no context named "${request.context}"`;
      // Workloads and pods by list+watch (a change shows without a request per keystroke), figures on the interval.
      return new WatchedSource({
        client: model.client(context),
        window: request.window,
        headroomPercent: request.headroomPercent,
        figuresFrom: { kind: 'discover' },
        staleAfterMs: request.staleAfterMs,
        figuresIntervalMs: request.refreshMs > 0 ? request.refreshMs : ON_DEMAND_ONLY_MS,
      });
    },
    judge: liveLayerModel,
  };
}
