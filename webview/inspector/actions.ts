// What the sections may ask of the page: open a pod or a rule's docs, pause live sampling, send a request to the
// host. main.ts builds the one implementation, on the typed protocol (src/core/inspector/protocol.ts).
import type { RequestParams, RequestResult, WebviewRequestMethod } from '../../src/core/inspector/protocol.ts';
import type { RequestOutcome } from '../../src/core/inspector/requests.ts';

export interface Actions {
  openPod(podUid: string): void;
  openDocs(docsId: string): void;
  setLive(live: boolean): void;
  /** Sends a request to the host; resolves with its result or why there is none (`onLate`: an answer after the timeout). */
  request<M extends WebviewRequestMethod>(
    method: M,
    params: RequestParams<M>,
    onLate: (outcome: RequestOutcome<RequestResult<M>>) => void,
  ): Promise<RequestOutcome<RequestResult<M>>>;
}
