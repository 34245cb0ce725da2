// `gpumem agent --events`: a Warning Event `GlobalOOMKill` on a pod killed by the global OOM killer, the agent's only
// write to the cluster (RBAC: create and patch on events, deploy/agent/overlays/events). One Event per pod and agent
// run, patched on a repeat; a failure is logged and never stops the agent.
import type { OomAdvance } from '../core/agent/oomLedger.ts';
import { eventBody, eventName, eventRepeatPatch, eventWorthy, globalOomEventMessage } from '../core/agent/oomEvent.ts';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { Inspection } from '../core/inspectionRun/analyze.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { KubeRequestError } from '../kube/clusterClient.ts';
import type { PodView } from './agent.ts';
import { DEFAULT_HEADROOM_PERCENT } from '../core/sizing.ts';

const MAX_TRACKED_PODS = 2000;

export class OomEventPoster {
  readonly #client: ClusterClient;
  readonly #nodeName: string;
  readonly #run: string;
  readonly #log: (line: string) => void;
  readonly #headroomPercent: number;
  /** Pod UID → the Event this run posted for it and its count. */
  readonly #posted = new Map<string, { name: string; namespace: string; count: number }>();
  #queue: Promise<void> = Promise.resolve();

  constructor(
    client: ClusterClient,
    nodeName: string,
    log: (line: string) => void,
    options: { readonly headroomPercent?: number; readonly now?: Date } = {},
  ) {
    this.#client = client;
    this.#nodeName = nodeName;
    this.#log = log;
    this.#headroomPercent = options.headroomPercent ?? DEFAULT_HEADROOM_PERCENT;
    const now = options.now ?? new Date();
    this.#run = Math.floor(now.getTime() / 1000).toString(16);
  }

  /** Posts (in order, one at a time) the Events of a cycle's new kills. Returns when they are sent or failed. */
  post(advance: OomAdvance, inspection: Inspection, view: PodView): Promise<void> {
    const node = inspection.node;
    if (!node) return this.#queue;
    for (const kill of advance.newKills) {
      const uid = kill.victim.podUid;
      const identity = uid === undefined ? undefined : view.identities.get(uid);
      if (!uid || !eventWorthy(kill, identity)) continue;
      const message = globalOomEventMessage(kill, node, this.#headroomPercent);
      this.#queue = this.#queue.then(() => this.#send(uid, kill, identity, message));
    }
    return this.#queue;
  }

  async #send(
    uid: string,
    kill: Parameters<typeof eventWorthy>[0],
    identity: NonNullable<Parameters<typeof eventWorthy>[1]>,
    message: string,
  ) {
    const at = new Date();
    const previous = this.#posted.get(uid);
    try {
      if (previous) {
        await this.#client.patchEvent(previous.namespace, previous.name, eventRepeatPatch(previous.count + 1, message, at));
        this.#posted.set(uid, { ...previous, count: previous.count + 1 });
        return;
      }
      const name = eventName(identity.name, this.#run);
      const body = eventBody(kill, identity, { name, nodeName: this.#nodeName, message, at }) as unknown as CoreV1Event;
      await this.#client.createEvent(identity.namespace, body);
      if (this.#posted.size >= MAX_TRACKED_PODS) this.#posted.delete(this.#posted.keys().next().value as string);
      this.#posted.set(uid, { name, namespace: identity.namespace, count: 1 });
      this.#log(`posted Event ${identity.namespace}/${name} (GlobalOOMKill) on pod ${identity.namespace}/${identity.name}`);
    } catch (error) {
      const detail = error instanceof KubeRequestError ? describeKubeFailure(error.failure) : String(error);
      this.#log(`could not post the GlobalOOMKill Event on pod ${identity.namespace}/${identity.name}: ${detail}`);
    }
  }
}
