// Bounded HTTP GETs of Prometheus's HTTP API at a URL (TLS verified, an optional CA file, a bearer token or basic
// auth). A deadline, cancellation and a byte cap on every answer; no redirects followed (a redirect could carry the
// credentials elsewhere). Connections are kept alive by Node's global agent. What is behind the API server's
// service proxy is reached through ClusterClient.proxyGet instead (its credentials, deadline and connection pool).
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RequestOptions as HttpsRequestOptions } from 'node:https';
import type { HttpAnswer } from '../kube/proxyGet.ts';

export type { HttpAnswer } from '../kube/proxyGet.ts';

/** GETs a path (with its query string) relative to a base the getter knows. */
export type HttpGetter = (pathAndQuery: string, options: { readonly signal?: AbortSignal }) => Promise<HttpAnswer>;

export type PrometheusAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer'; readonly token: string }
  | { readonly kind: 'basic'; readonly user: string; readonly password: string };

export interface HttpLimits {
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
/** 50,000 pods' series answer in about 20 MiB of JSON; more than this is refused rather than held. */
export const DEFAULT_MAX_ANSWER_BYTES = 128 * 1024 * 1024;

export class HttpGetError extends Error {
  readonly kind: 'timeout' | 'cancelled' | 'too-large' | 'network' | 'redirect';
  constructor(kind: HttpGetError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

function get(url: URL, options: HttpsRequestOptions, limits: HttpLimits, signal: AbortSignal | undefined): Promise<HttpAnswer> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new HttpGetError('cancelled', 'cancelled'));
    const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = make(url, { ...(options as RequestOptions), method: 'GET' }, (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        response.resume();
        finish(
          new HttpGetError('redirect', `${status} redirect to ${String(response.headers.location ?? '?').slice(0, 200)}: not followed`),
        );
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          finish(new HttpGetError('too-large', `the answer is larger than ${Math.round(maxBytes / 1048576)} MiB`));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        finish(undefined, {
          status,
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: String(response.headers['content-type'] ?? ''),
        }),
      );
      response.on('error', (error) => finish(new HttpGetError('network', error.message)));
    });
    const timer = setTimeout(() => {
      finish(new HttpGetError('timeout', `no answer from ${url.host} within ${timeoutMs} ms`));
      req.destroy();
    }, timeoutMs);
    const onAbort = (): void => {
      finish(new HttpGetError('cancelled', 'cancelled'));
      req.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    function finish(error: Error | undefined, answer?: HttpAnswer): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve(answer as HttpAnswer);
    }
    req.on('error', (error) => finish(new HttpGetError('network', `${url.host}: ${error.message}`)));
    req.end();
  });
}

/** A Prometheus at `base` (http or https), with its auth and an optional CA (PEM text). */
export function directGetter(base: string, auth: PrometheusAuth, tls: { readonly ca?: string } = {}, limits: HttpLimits = {}): HttpGetter {
  const root = new URL(base.endsWith('/') ? base : `${base}/`);
  if (root.protocol !== 'http:' && root.protocol !== 'https:') throw new Error(`${base}: not an http or https URL`);
  if (root.username || root.password)
    throw new Error('put credentials in SecretStorage (or GPUMEM_PROMETHEUS_* in the CLI), not in the URL');
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (auth.kind === 'bearer') headers['Authorization'] = `Bearer ${auth.token}`;
  if (auth.kind === 'basic') headers['Authorization'] = `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
  return (pathAndQuery, options) =>
    get(
      new URL(pathAndQuery.replace(/^\//, ''), root),
      { headers, ...(tls.ca ? { ca: tls.ca } : {}), rejectUnauthorized: true },
      limits,
      options.signal,
    );
}
