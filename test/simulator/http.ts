// The simulator's HTTP plumbing: request bodies, continue tokens, and JSON and Status responses as the API server
// writes them (headers included), for normal requests and refused upgrades.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Json, KubeObject } from './objects.ts';
import type { AuthzAttributes, StatusBody } from './status.ts';
import { forbidden, forbiddenPath, internalError, statusBody, unauthorized } from './status.ts';
import type { AuthUser } from './types.ts';

export const MAX_BODY = 3 * 1024 * 1024;

export function reasonFor(code: number): string {
  return (
    (
      {
        400: 'BadRequest',
        401: 'Unauthorized',
        403: 'Forbidden',
        404: 'NotFound',
        405: 'MethodNotAllowed',
        409: 'Conflict',
        410: 'Expired',
        422: 'Invalid',
        429: 'TooManyRequests',
        500: 'InternalError',
        503: 'ServiceUnavailable',
        504: 'Timeout',
      } as Record<number, string>
    )[code] ?? 'Unknown'
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('request entity too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function withoutTypeMeta(obj: KubeObject): Json {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = obj;
  return rest;
}

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

export function decodeContinue(token: string): { rv: number; start: string } | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: string; rv?: number; start?: string };
    if (parsed.v !== 'meta.k8s.io/v1' || typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') return undefined;
    return { rv: parsed.rv, start: parsed.start };
  } catch {
    return undefined;
  }
}

export function bool(value: string | null): boolean {
  return value === 'true' || value === '1';
}

export function subjectValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

export const sendJson = (res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void => {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-cache, private',
    'Audit-Id': randomUUID(),
    ...headers,
  });
  res.end(text);
};

export const sendStatus = (res: ServerResponse, status: StatusBody): void => {
  sendJson(res, status.code, status, status.code === 429 ? { 'Retry-After': '1' } : {});
};

export const rejectUpgrade = (socket: Duplex, status: StatusBody): void => {
  const text = JSON.stringify(status);
  socket.end(
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nCache-Control: no-cache, private\r\nConnection: close\r\n\r\n${text}`,
  );
};

export const forcedBody = (
  code: number,
  user: AuthUser | undefined,
  attrs: AuthzAttributes | undefined,
  method: string,
  pathname: string,
): StatusBody => {
  if (code === 401) return unauthorized();
  if (code === 403)
    return attrs
      ? forbidden({ ...attrs, user: user?.name ?? 'system:anonymous' })
      : forbiddenPath(user?.name ?? 'system:anonymous', method.toLowerCase(), pathname);
  if (code === 500) return internalError(`injected fault (${method} ${pathname})`);
  if (code === 503) return statusBody(503, 'ServiceUnavailable', 'the server is currently unable to handle the request', {});
  if (code === 429)
    return statusBody(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', {
      retryAfterSeconds: 1,
    });
  if (code === 504)
    return statusBody(
      504,
      'Timeout',
      'the server was unable to return a response in the time allotted, but may still be processing the request',
      {},
    );
  return statusBody(code, reasonFor(code), `injected fault: HTTP ${code}`);
};
