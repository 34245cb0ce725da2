// The inspector page's side of its requests: the shared pending-request table (src/core/webviewIpc/requests.ts:
// a fresh correlation id each, a timeout, late answers to `onLate`, results checked) on the inspector's protocol.
import type { PendingRequestsOptions } from '../webviewIpc/requests.ts';
import { PendingRequests as SharedPendingRequests } from '../webviewIpc/requests.ts';
import type { InspectorRequests } from './protocol.ts';
import { INSPECTOR_PROTOCOL } from './protocol.ts';

export type { FailureReason, RequestOptions, RequestOutcome, Timers } from '../webviewIpc/requests.ts';

/** How long the webview waits for each request's answer (REQUESTS, ./protocol.ts, names it per request). */
export const REQUEST_TIMEOUT_MS = INSPECTOR_PROTOCOL.requestTimeouts;

export class PendingRequests extends SharedPendingRequests<InspectorRequests> {
  constructor(options: Omit<PendingRequestsOptions<InspectorRequests>, 'protocol'>) {
    super({ ...options, protocol: INSPECTOR_PROTOCOL });
  }
}
