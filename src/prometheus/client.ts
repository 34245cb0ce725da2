// One Prometheus client for the fleet view, `gpumem fleet` and `gpumem recommend`: instant and range queries on
// Prometheus's HTTP API, reached either at a URL with the user's credentials (httpGet.ts) or, with no URL, as the
// cluster's own Prometheus service through the API server's service proxy (ClusterClient.proxyGet: the kubeconfig's
// credentials, the client's deadline and connection pool). Answers are parsed and bounded by src/core/prometheus/.
// A query that fails is a `failed` answer saying why (an RBAC refusal with its explanation); only cancellation
// throws.
import { forEachBounded } from '../core/boundedPool.ts';
import { explainKubeFailure } from '../core/kube/failureMessages.ts';
import { errorMessage } from '../core/errorMessage.ts';
import type { PromAnswer } from '../core/prometheus/answer.ts';
import { parsePromAnswer } from '../core/prometheus/answer.ts';
import type { PrometheusService } from '../core/prometheus/discovery.ts';
import type { QueryRange } from '../core/prometheus/requests.ts';
import { instantQueryPath, rangeQueryPath } from '../core/prometheus/requests.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { KubeRequestError } from '../kube/clusterClient.ts';
import type { HttpAnswer, PrometheusAuth } from './httpGet.ts';
import { DEFAULT_HTTP_TIMEOUT_MS, directGetter } from './httpGet.ts';

/** Queries in flight at once: Prometheus evaluates each on its own goroutines; more at once only queue there. */
export const QUERY_CONCURRENCY = 4;

/** Where Prometheus is, with what to reach it. */
export type PrometheusEndpoint =
  | { readonly kind: 'url'; readonly url: string; readonly auth: PrometheusAuth; readonly ca?: string }
  | { readonly kind: 'service'; readonly service: PrometheusService; readonly client: ClusterClient };

export interface QueryOptions {
  readonly signal?: AbortSignal | undefined;
}

type Get = (pathAndQuery: string, signal: AbortSignal | undefined) => Promise<HttpAnswer>;

export class PrometheusClient {
  /** "Prometheus at host:9090", "Prometheus service monitoring/prometheus-k8s through the API server". */
  readonly description: string;
  readonly #get: Get;
  readonly #explain: (error: unknown) => string;

  /** Throws for a URL that is not http(s) or that carries credentials (a clear message for the user). */
  constructor(endpoint: PrometheusEndpoint, options: { readonly timeoutMs?: number } = {}) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    if (endpoint.kind === 'url') {
      const getter = directGetter(endpoint.url, endpoint.auth, endpoint.ca !== undefined ? { ca: endpoint.ca } : {}, { timeoutMs });
      this.description = `Prometheus at ${new URL(endpoint.url).host}`;
      this.#get = (path, signal) => getter(path, signal ? { signal } : {});
      this.#explain = errorMessage;
    } else {
      const { service, client } = endpoint;
      this.description = `Prometheus service ${service.namespace}/${service.name} through the API server`;
      const target = { kind: 'services', namespace: service.namespace, name: service.name, port: service.port } as const;
      this.#get = (path, signal) => client.proxyGet(target, path, { timeoutMs, ...(signal ? { signal } : {}) });
      this.#explain = (error) =>
        error instanceof KubeRequestError
          ? explainKubeFailure(error.failure, { context: client.context, namespace: service.namespace, byHand: 'a --prometheus URL' })
          : errorMessage(error);
    }
  }

  async #answer(path: string, signal: AbortSignal | undefined): Promise<PromAnswer> {
    try {
      const answer = await this.#get(path, signal);
      return parsePromAnswer(answer.status, answer.body);
    } catch (error) {
      if (signal?.aborted) throw error;
      return { kind: 'failed', reason: this.#explain(error) };
    }
  }

  /** One instant query at `at` (Unix seconds). */
  instant(query: string, at: number, options: QueryOptions = {}): Promise<PromAnswer> {
    return this.#answer(instantQueryPath(query, at), options.signal);
  }

  /** One range query; a range Prometheus would refuse is a failed answer, not a request. */
  async range(query: string, range: QueryRange, options: QueryOptions = {}): Promise<PromAnswer> {
    const request = rangeQueryPath(query, range);
    if (request.kind === 'invalid') return { kind: 'failed', reason: request.reason };
    return this.#answer(request.path, options.signal);
  }

  /** Named instant queries, QUERY_CONCURRENCY at a time; the answers by name, in `answers` when given. */
  async instantAll(
    queries: Readonly<Record<string, string>>,
    at: number,
    options: QueryOptions & { readonly answers?: Map<string, PromAnswer> } = {},
  ): Promise<Map<string, PromAnswer>> {
    const answers = options.answers ?? new Map<string, PromAnswer>();
    const end = await forEachBounded(
      Object.entries(queries),
      QUERY_CONCURRENCY,
      async ([name, query]) => {
        answers.set(name, await this.instant(query, at, options));
      },
      { signal: options.signal },
    );
    if (end.kind === 'cancelled') throw new Error('cancelled');
    return answers;
  }
}
