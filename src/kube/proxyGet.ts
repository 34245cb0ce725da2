// A GET through the API server's service or pod proxy (`/api/v1/namespaces/<ns>/services/<svc>:<port>/proxy/…`,
// `…/pods/<pod>:<port>/proxy/…`) on a ClusterClient: the kubeconfig's credentials applied by client-node itself
// (exec plugins, tokens, client certificates), and the client's shared connection pool (sharedDispatcher.ts). The
// generated `connectGet…ProxyWithPath` APIs cannot carry a query string and follow redirects (fetch's default);
// a redirect could carry the credentials elsewhere, so this asks the pool's undici dispatcher directly, which
// follows none. The answer is read up to a byte cap.
//
// The API server's own refusals (403, 404 of the pod, 503 with no endpoints) arrive as a Kubernetes `Status`;
// they are thrown, to become KubeRequestErrors with their RBAC explanation (kubeCall.ts). Any other status is
// the backend's answer (Prometheus's 400 with its JSON error), returned as it is.
import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
}

/** The answer was larger than the cap: refused rather than held. */
export class AnswerTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`the answer is larger than ${Math.round(maxBytes / 1048576)} MiB`);
    this.name = 'AnswerTooLargeError';
  }
}

/** A status of the API server itself (thrown, for classifyKubeError: `code` and the Status body). */
export class ApiServerStatusError extends Error {
  readonly code: number;
  readonly body: string;
  constructor(code: number, body: string) {
    super(`HTTP ${code}`);
    this.name = 'ApiServerStatusError';
    this.code = code;
    this.body = body;
  }
}

type Chunks = AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => void; cancel?: () => Promise<void> };

async function readBounded(body: Chunks | null, maxBytes: number): Promise<string> {
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy?.();
      await body.cancel?.().catch(() => undefined);
      throw new AnswerTooLargeError(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** Whether a body is a Kubernetes `Status` object (the API server's own answer, not the backend's). */
export function isKubernetesStatus(body: string): boolean {
  if (!body.trimStart().startsWith('{')) return false;
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; apiVersion?: unknown };
    return parsed.kind === 'Status' && parsed.apiVersion === 'v1';
  } catch {
    return false;
  }
}

interface UndiciResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Chunks;
}
interface UndiciDispatcher {
  request(options: {
    origin: string;
    path: string;
    method: 'GET';
    headers: Record<string, string>;
    signal: AbortSignal;
  }): Promise<UndiciResponse>;
}

/**
 * GETs `url` (on the kubeconfig's current cluster) with its credentials. `markSent` is called once they are applied
 * (kubeCall.ts tells a credential plugin's failure from a network one by it). Throws ApiServerStatusError for a
 * non-2xx Kubernetes Status, AnswerTooLargeError past `maxBytes`.
 */
export async function proxyGet(
  kubeConfig: KubeConfig,
  url: URL,
  options: { readonly signal: AbortSignal; readonly maxBytes: number; readonly markSent: () => void },
): Promise<HttpAnswer> {
  const context = new RequestContext(url.toString(), HttpMethod.GET);
  context.setHeaderParam('Accept', 'application/json, text/plain');
  await kubeConfig.applySecurityAuthentication(context);
  options.markSent();
  const dispatcher = context.getDispatcher() as UndiciDispatcher | undefined;
  let status: number;
  let contentType: string;
  let body: Chunks | null;
  if (dispatcher) {
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: context.getHeaders(),
      signal: options.signal,
    });
    status = response.statusCode;
    const type = response.headers['content-type'];
    contentType = Array.isArray(type) ? (type[0] ?? '') : (type ?? '');
    body = response.body;
  } else {
    // No TLS material and no proxy in the kubeconfig: client-node would use the global dispatcher, as fetch does.
    const response = await fetch(url, { headers: context.getHeaders(), signal: options.signal, redirect: 'manual' });
    status = response.status;
    contentType = response.headers.get('content-type') ?? '';
    body = response.body as Chunks | null;
  }
  const text = await readBounded(body, options.maxBytes);
  if ((status < 200 || status >= 300) && isKubernetesStatus(text)) throw new ApiServerStatusError(status, text);
  return { status, body: text, contentType };
}
