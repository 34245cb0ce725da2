// One Kubernetes API call with a deadline and the caller's cancellation, its errors as KubeRequestErrors.
//
// How timeouts and cancellation work in @kubernetes/client-node 2.x (read from dist/, not documented):
// - The generated APIs (CoreV1Api = ObjectCoreV1Api) take a per-call `ConfigurationOptions` whose `middleware`
//   (observable style: `pre(ctx) → Observable<RequestContext>`) runs after the request is built and authenticated.
//   RequestContext has `setSignal(signal)`, and the fetch library (undici) passes it to fetch(). No API sets a
//   signal by itself, and there is no timeout option: a middleware that sets AbortSignal.any([caller, timeout])
//   is the way. With middlewareMergeStrategy 'append' the client's own User-Agent middleware stays.
// - Building the request runs the authenticators first (an exec credential plugin is spawned there), so the
//   signal cannot reach that step; the promise is therefore also raced against the signal here, and the late
//   rejection is swallowed.
// - A failed HTTP status throws ApiException {code, body}; the body is often the Status as JSON text.
import { Observable } from '@kubernetes/client-node';
import type { ConfigurationOptions, ObservableMiddleware, RequestContext, ResponseContext } from '@kubernetes/client-node';
import type { AttemptedRequest, KubeFailure } from '../core/kube/kubeFailure.ts';
import { classifyKubeError } from '../core/kube/kubeFailure.ts';
import { KubeRequestError } from './kubeRequestError.ts';

export interface Deadline {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** The API server's URL, named in the errors. */
  readonly server?: string | undefined;
}

/**
 * Runs one API call with a deadline and the caller's cancellation (see the header). Every error becomes a
 * KubeRequestError: cancelled when the caller aborted, timeout when the deadline passed, credentials when it
 * failed before anything was sent (an exec plugin that failed), otherwise as classifyKubeError says.
 */
export function callWithDeadline<T>(
  attempted: AttemptedRequest,
  run: (options: ConfigurationOptions) => Promise<T>,
  how: Deadline,
): Promise<T> {
  return runWithDeadline(
    attempted,
    (signal, markSent) => {
      const middleware: ObservableMiddleware = {
        pre: (context: RequestContext) => {
          markSent();
          context.setSignal(signal);
          return new Observable(Promise.resolve(context));
        },
        post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
      };
      return run({ middleware: [middleware], middlewareMergeStrategy: 'append' });
    },
    how,
  );
}

/**
 * The same deadline, cancellation and errors for a request made without the generated APIs (the API server's
 * proxies, src/kube/proxyGet.ts): `run` gets the signal to pass on, and calls `markSent` once authentication is done.
 */
export async function runWithDeadline<T>(
  attempted: AttemptedRequest,
  run: (signal: AbortSignal, markSent: () => void) => Promise<T>,
  how: Deadline,
): Promise<T> {
  const deadline = AbortSignal.timeout(how.timeoutMs);
  const signal = how.signal ? AbortSignal.any([how.signal, deadline]) : deadline;
  const described = { ...attempted, ...(how.server ? { server: how.server } : {}) };
  if (how.signal?.aborted) throw new KubeRequestError({ kind: 'cancelled' }, described);
  let sent = false;
  let removeListener = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    removeListener = () => signal.removeEventListener('abort', onAbort);
  });
  let request: Promise<T>;
  try {
    request = run(signal, () => {
      sent = true;
    });
  } catch (error) {
    removeListener();
    throw new KubeRequestError(classifyKubeError(error, described), described);
  }
  request.catch(() => undefined); // it may lose the race below and reject later
  try {
    return await Promise.race([request, aborted]);
  } catch (error) {
    throw new KubeRequestError(
      failureOf(error, described, { sent, caller: how.signal, deadline, timeoutMs: how.timeoutMs, server: how.server }),
      described,
    );
  } finally {
    removeListener();
  }
}

function failureOf(
  error: unknown,
  attempted: AttemptedRequest,
  how: { sent: boolean; caller: AbortSignal | undefined; deadline: AbortSignal; timeoutMs: number; server: string | undefined },
): KubeFailure {
  if (how.caller?.aborted) return { kind: 'cancelled' };
  if (how.deadline.aborted)
    return { kind: 'timeout', message: `no answer from ${how.server ?? 'the API server'} within ${how.timeoutMs} ms` };
  const failure = classifyKubeError(error, attempted);
  if (!how.sent && failure.kind === 'unknown')
    return { kind: 'credentials', message: failure.message.trim() || 'the credential plugin failed' };
  return failure;
}
