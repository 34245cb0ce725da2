// Typed access to `ws` (a dependency of @kubernetes/client-node, the library client-node's Exec uses in Node).
// `ws` ships no type declarations and @types/ws is not installed, so this module declares the few parts the
// simulator and its tests use, instead of an ambient `declare module 'ws'` that would change the types
// client-node's own declarations see for the whole project.
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
// @ts-expect-error -- `ws` has no type declarations here; the interfaces below describe what is used.
import * as ws from 'ws';

export interface WsSocket {
  /** The negotiated subprotocol ('' when none). */
  readonly protocol: string;
  readonly readyState: number;
  send(data: Buffer | string, callback?: (err?: Error) => void): void;
  close(code?: number, reason?: string): void;
  /** Destroys the TCP connection at once, without a close frame (the peer sees 1006). */
  terminate(): void;
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'open', listener: () => void): this;
  on(event: 'unexpected-response', listener: (req: ClientRequest, res: IncomingMessage) => void): this;
  once(event: 'close', listener: (code: number, reason: Buffer) => void): this;
  once(event: 'open', listener: () => void): this;
  once(event: 'error', listener: (err: Error) => void): this;
}

export interface WsServerOptions {
  readonly noServer: true;
  readonly handleProtocols?: (protocols: Set<string>, req: IncomingMessage) => string | false;
  readonly perMessageDeflate?: boolean;
  readonly maxPayload?: number;
}

export interface WsServer {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, callback: (socket: WsSocket, req: IncomingMessage) => void): void;
  close(callback?: () => void): void;
  readonly clients: Set<WsSocket>;
}

export interface WsClientOptions {
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  readonly rejectUnauthorized?: boolean;
}

interface WsModule {
  readonly WebSocketServer: new (options: WsServerOptions) => WsServer;
  readonly WebSocket: new (url: string, protocols?: string | readonly string[], options?: WsClientOptions) => WsSocket;
}

const wsModule = ws as WsModule;

export const WebSocketServer = wsModule.WebSocketServer;
export const WebSocket = wsModule.WebSocket;

/** `WebSocket.OPEN`. */
export const WS_OPEN = 1;
