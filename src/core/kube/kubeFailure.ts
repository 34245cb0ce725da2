// The mapping from whatever a Kubernetes client threw to a failure the user can act on (KubeFailure), used by
// every caller of the API server (the Clusters view, the agent, the fleet scan, watches, exec). Pure: it inspects
// the SHAPES that @kubernetes/client-node 2.x and its transports produce, without importing them:
// - ApiException from the generated API: `code` (HTTP status) and `body` (the Status object, often as JSON
//   text); `Watch` errors carry `statusCode`;
// - undici's fetch: `TypeError('fetch failed')` with `cause.code` (ECONNREFUSED, ENOTFOUND, UND_ERR_…, TLS codes);
// - aborts: a DOMException named `AbortError` (cancel) or `TimeoutError` (AbortSignal.timeout);
// - the exec WebSocket (ws): an error event whose message is `Unexpected server response: <status>`, or whose
//   `error` has a network code;
// - an exec credential plugin that is not on PATH: `spawn <cmd> ENOENT`.
// A 403's verb and resource come from the Status message the API server writes
// (`<resource> is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster scope`),
// else from what the caller says it attempted.

/** What a request attempted, e.g. `{verb: 'list', resource: 'nodes'}`; used when a 403 body says nothing. */
export interface AttemptedRequest {
  readonly verb: string;
  readonly resource: string;
  /** For messages, e.g. the API server URL. */
  readonly server?: string;
}

export type KubeFailure =
  | { readonly kind: 'forbidden'; readonly verb: string; readonly resource: string; readonly message: string }
  | { readonly kind: 'unauthorized'; readonly message: string }
  | { readonly kind: 'timeout'; readonly message: string }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'network'; readonly code: string; readonly message: string }
  | { readonly kind: 'tls'; readonly code: string; readonly message: string }
  | { readonly kind: 'credentials'; readonly message: string }
  | { readonly kind: 'not-found'; readonly message: string }
  | { readonly kind: 'gone'; readonly message: string }
  | { readonly kind: 'http'; readonly status: number; readonly message: string }
  | { readonly kind: 'config'; readonly message: string }
  | { readonly kind: 'unknown'; readonly message: string };

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);
const TLS_CODE = /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|ERR_TLS_|ERR_SSL_|EPROTO$|HOSTNAME_MISMATCH$)/;

interface StatusBody {
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: { readonly kind?: string; readonly group?: string; readonly name?: string };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function statusBody(body: unknown): StatusBody | undefined {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return body.trim() !== '' ? { message: body.trim().slice(0, 500) } : undefined;
    }
  }
  const r = record(value);
  if (!r) return undefined;
  const details = record(r['details']);
  return {
    ...(typeof r['message'] === 'string' ? { message: r['message'] } : {}),
    ...(typeof r['reason'] === 'string' ? { reason: r['reason'] } : {}),
    ...(typeof r['code'] === 'number' ? { code: r['code'] } : {}),
    ...(details
      ? {
          details: {
            ...(typeof details['kind'] === 'string' ? { kind: details['kind'] } : {}),
            ...(typeof details['group'] === 'string' ? { group: details['group'] } : {}),
            ...(typeof details['name'] === 'string' ? { name: details['name'] } : {}),
          },
        }
      : {}),
  };
}

/** The first `code` string on the error or its causes (undici nests the socket error in `cause`). */
function errorCode(error: unknown): { code: string; message: string; syscall?: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const r = record(current);
    if (!r) return undefined;
    if (typeof r['code'] === 'string' && r['code'] !== '') {
      return {
        code: r['code'],
        message: typeof r['message'] === 'string' ? r['message'] : r['code'],
        ...(typeof r['syscall'] === 'string' ? { syscall: r['syscall'] } : {}),
      };
    }
    current = r['cause'] ?? r['error'];
  }
  return undefined;
}

function httpStatus(error: unknown): number | undefined {
  const r = record(error);
  if (!r) return undefined;
  for (const key of ['code', 'statusCode', 'status']) {
    const value = r[key];
    if (typeof value === 'number' && value >= 100 && value <= 599) return value;
  }
  const message = typeof r['message'] === 'string' ? r['message'] : '';
  const ws = /Unexpected server response: (\d{3})/.exec(message);
  if (ws) return Number(ws[1]);
  const inner = record(r['error']);
  if (inner && typeof inner['message'] === 'string') {
    const nested = /Unexpected server response: (\d{3})/.exec(inner['message']);
    if (nested) return Number(nested[1]);
  }
  return undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const r = record(error);
  if (r && typeof r['message'] === 'string') return r['message'];
  return String(error);
}

/** Parses `… cannot <verb> resource "<resource>" …` from an API server's 403 message. */
export function parseForbiddenMessage(message: string): { verb: string; resource: string } | undefined {
  const match = /cannot (\S+) resource "([^"]+)"/.exec(message);
  if (!match) return undefined;
  return { verb: match[1] as string, resource: match[2] as string };
}

function isFailure(value: unknown): value is KubeFailure {
  const r = record(value);
  return (
    r !== undefined &&
    typeof r['kind'] === 'string' &&
    [
      'forbidden',
      'unauthorized',
      'timeout',
      'cancelled',
      'network',
      'tls',
      'credentials',
      'not-found',
      'gone',
      'http',
      'config',
      'unknown',
    ].includes(r['kind'])
  );
}

/** Maps anything a client-node call threw to a KubeFailure (see the header). Never throws. */
export function classifyKubeError(error: unknown, attempted?: AttemptedRequest): KubeFailure {
  const r = record(error);
  if (r && isFailure(r['failure'])) return r['failure'];
  const name = r && typeof r['name'] === 'string' ? r['name'] : '';
  if (name === 'TimeoutError') return { kind: 'timeout', message: messageOf(error) };
  if (name === 'AbortError') {
    // fetch rejects with the signal's reason: a TimeoutError reason means a deadline, not a cancel.
    const reason = record(r?.['cause']);
    if (reason && reason['name'] === 'TimeoutError') return { kind: 'timeout', message: messageOf(reason) };
    return { kind: 'cancelled' };
  }
  const status = httpStatus(error);
  if (status !== undefined) {
    const body = statusBody(r?.['body']);
    const message = body?.message ?? (status === 401 ? 'Unauthorized' : (messageOf(error).split('\n')[0] ?? ''));
    if (status === 401) return { kind: 'unauthorized', message };
    if (status === 403) {
      const parsed = body?.message ? parseForbiddenMessage(body.message) : undefined;
      const resource = parsed?.resource ?? attempted?.resource ?? body?.details?.kind ?? 'unknown';
      const verb = parsed?.verb ?? attempted?.verb ?? 'access';
      return { kind: 'forbidden', verb, resource, message };
    }
    if (status === 404) return { kind: 'not-found', message };
    if (status === 410) return { kind: 'gone', message };
    if (status === 408 || status === 504) return { kind: 'timeout', message: `${status} ${message}`.trim() };
    return { kind: 'http', status, message };
  }
  const code = errorCode(error);
  if (code) {
    if (code.code === 'ENOENT' && (code.syscall?.startsWith('spawn') ?? /spawn /.test(code.message))) {
      const command = /spawn (\S+)/.exec(code.message)?.[1] ?? code.syscall?.replace(/^spawn /, '') ?? 'the plugin';
      return { kind: 'credentials', message: `the exec credential plugin "${command}" was not found on the PATH of this process` };
    }
    if (code.code === 'ENOENT' || code.code === 'EACCES') return { kind: 'credentials', message: code.message };
    if (TLS_CODE.test(code.code)) return { kind: 'tls', code: code.code, message: code.message };
    if (TIMEOUT_CODES.has(code.code)) return { kind: 'timeout', message: code.message };
    if (NETWORK_CODES.has(code.code)) return { kind: 'network', code: code.code, message: code.message };
  }
  const message = messageOf(error);
  if (
    /No active cluster|No currently active cluster|No cluster is defined|HTTP protocol is not allowed|Unsupported proxy type|Invalid URL/i.test(
      message,
    )
  )
    return { kind: 'config', message };
  if (/fetch failed|socket hang up|other side closed/i.test(message)) return { kind: 'network', code: 'UNKNOWN', message };
  return { kind: 'unknown', message };
}

/** One line for logs and error messages. */
export function describeKubeFailure(failure: KubeFailure): string {
  switch (failure.kind) {
    case 'forbidden':
      return `forbidden: cannot ${failure.verb} ${failure.resource} (${failure.message})`;
    case 'cancelled':
      return 'cancelled';
    case 'unauthorized':
      return `401 Unauthorized: ${failure.message}`;
    case 'http':
      return `HTTP ${failure.status}: ${failure.message}`;
    case 'network':
    case 'tls':
      return `${failure.code}: ${failure.message}`;
    default:
      return `${failure.kind}: ${failure.message}`;
  }
}
