// The agent's HTTP endpoints, and nothing else: /metrics (the Prometheus text format), /healthz (the process is
// alive), /readyz (a cycle has completed). GET and HEAD only; no request body is read; no raw capture is ever
// served (it holds command lines and paths). Slow clients are cut off by the server's own timeouts.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTENT_TYPE } from '../core/agent/exposition.ts';
import type { Exposition } from '../core/agent/exposition.ts';

export interface AgentEndpoints {
  metrics(): Exposition;
  readonly ready: boolean;
}

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** `HOST:PORT`, `:PORT` (all interfaces) or `[IPv6]:PORT`; undefined when it is none of those. */
export function parseListen(text: string): ListenAddress | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]{2,45})\]|([A-Za-z0-9.-]{0,253})):(\d{1,5})$/.exec(text);
  if (!match?.[3]) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

function answer(response: ServerResponse, head: boolean, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  response.end(head ? undefined : body);
}

/** Where a failure's whole text goes (the agent's log), since the HTTP answer says only that it failed. */
export type AgentLog = (line: string) => void;

export function handle(endpoints: AgentEndpoints, request: IncomingMessage, response: ServerResponse, log: AgentLog): void {
  const method = request.method ?? '';
  const head = method === 'HEAD';
  const path = (request.url ?? '').split('?')[0];
  const known = path === '/metrics' || path === '/healthz' || path === '/readyz';
  if (!known) return answer(response, head, 404, 'not found: this agent serves /metrics, /healthz and /readyz\n');
  if (method !== 'GET' && !head) {
    response.setHeader('Allow', 'GET, HEAD');
    return answer(response, false, 405, 'method not allowed\n');
  }
  if (path === '/healthz') return answer(response, head, 200, 'ok\n');
  if (path === '/readyz')
    return endpoints.ready ? answer(response, head, 200, 'ready\n') : answer(response, head, 503, 'no cycle has completed yet\n');
  let text: string;
  try {
    text = endpoints.metrics().text;
  } catch (error) {
    // The body is for whoever scrapes: no exception text (it can hold paths and internals); the log has all of it.
    log(`/metrics failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return answer(response, head, 500, "metrics failed: an internal error (the agent's log has the details)\n");
  }
  answer(response, head, 200, text, CONTENT_TYPE);
}

export async function startServer(
  endpoints: AgentEndpoints,
  address: ListenAddress,
  log: AgentLog,
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => handle(endpoints, request, response, log));
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 65_000; // longer than Prometheus's idle connection reuse, so scrapes do not race a close
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return { server, url: `http://${host}:${bound.port}` };
}
