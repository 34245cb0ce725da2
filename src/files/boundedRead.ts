// One reader for every file gpumem reads: manifests named or found in a directory, standard input, --config,
// kubeconfigs, SSH configs and keys, captures, kernel logs. A file that never ends (/dev/zero, /dev/urandom, a
// growing log) or never opens (a FIFO nobody writes, a socket) must give a clear refusal, not a command or an
// extension host that reads until memory runs out or waits forever: the path is stat'ed first, only regular
// files are opened (O_NONBLOCK, so a FIFO swapped in after the stat cannot block the open either, and the
// opened handle is checked again), and no read goes past the limit of its kind.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

const MIB = 1024 * 1024;

/** The most gpumem reads of each kind of input, and what the message calls it. README "Input limits" lists them. */
export const INPUT_LIMITS = {
  /** The default of --max-file-size and of the workspace scan. */
  manifest: { limitBytes: 16 * MIB, noun: 'manifests are read up to --max-file-size' },
  config: { limitBytes: 1 * MIB, noun: 'a gpumem config is read up to' },
  /** No kubeconfig is this large; client-go has no limit, but reads the file whole. */
  kubeconfig: { limitBytes: 8 * MIB, noun: 'a kubeconfig is read up to' },
  'ssh-config': { limitBytes: 1 * MIB, noun: 'an SSH config file is read up to' },
  'known-hosts': { limitBytes: 16 * MIB, noun: 'a known_hosts file is read up to' },
  'ssh-key': { limitBytes: 1 * MIB, noun: 'an SSH key file is read up to' },
  'ca-bundle': { limitBytes: 4 * MIB, noun: 'a CA bundle is read up to' },
  /** What a live probe accepts (src/core/inspection/runProbe.ts DEFAULT_MAX_CAPTURE_BYTES). */
  capture: { limitBytes: 64 * MIB, noun: 'a probe capture is read up to' },
  'kernel-log': { limitBytes: 64 * MIB, noun: 'a kernel log is read up to' },
} as const satisfies Record<string, { limitBytes: number; noun: string }>;

export type InputKind = keyof typeof INPUT_LIMITS;

export interface ReadOptions {
  readonly kind: InputKind;
  /** Overrides the kind's limit (--max-file-size). */
  readonly limitBytes?: number;
}

/** Why a path was not read: it does not exist, it is not a regular file, or the OS refused it. */
export type RefusalCause = 'missing' | 'not-regular' | 'unreadable';

export interface Refused {
  readonly kind: 'refused';
  readonly cause: RefusalCause;
  /** Words for the user: "is a named pipe (FIFO), not a regular file", "permission denied". */
  readonly reason: string;
}

export interface TooLarge {
  readonly kind: 'too-large';
  readonly limitBytes: number;
  /** "stopped at 16 MiB: manifests are read up to --max-file-size 16 MiB". */
  readonly reason: string;
}

/** The bytes read, or why not: `refused` names the file's kind or the error, `too-large` says where it stopped. */
export type BoundedRead = { readonly kind: 'read'; readonly bytes: Uint8Array } | Refused | TooLarge;

const CHUNK_BYTES = 256 * 1024;
// Not in Windows' constants; there a FIFO or device is not reachable by a path the user types anyway.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** At most the limit's bytes of a regular file; never throws. */
export async function readBounded(path: string, options: ReadOptions): Promise<BoundedRead> {
  const limitBytes = limitOf(options);
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    return fsRefusal(error);
  }
  if (!info.isFile()) return notRegular(info);
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    return fsRefusal(error);
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) return notRegular(opened);
    return await readHandle(handle, limitBytes, options.kind);
  } catch (error) {
    return fsRefusal(error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * readBounded for the synchronous callers (the SSH config and its Include files are resolved synchronously, as
 * OpenSSH reads them); never throws.
 */
export function readBoundedSync(path: string, options: ReadOptions): BoundedRead {
  const limitBytes = limitOf(options);
  let fd: number;
  try {
    const info = statSync(path);
    if (!info.isFile()) return notRegular(info);
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return fsRefusal(error);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return notRegular(opened);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limitBytes + 1 - total));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limitBytes) return tooLarge(limitBytes, options.kind);
    }
    return { kind: 'read', bytes: Buffer.concat(chunks, total) };
  } catch (error) {
    return fsRefusal(error);
  } finally {
    closeSync(fd);
  }
}

/** readBounded, decoded as UTF-8. */
export async function readBoundedText(path: string, options: ReadOptions): Promise<BoundedTextRead> {
  return asText(await readBounded(path, options));
}

export type BoundedTextRead = { readonly kind: 'read'; readonly text: string } | Refused | TooLarge;

export function asText(read: BoundedRead): BoundedTextRead {
  return read.kind === 'read' ? { kind: 'read', text: new TextDecoder().decode(read.bytes) } : read;
}

/** The events of a readable stream that readStreamBounded uses (process.stdin, a socket, a test's PassThrough). */
export interface ByteStream {
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeAllListeners(event?: string): unknown;
  destroy(): unknown;
}

/**
 * At most the limit's bytes of a stream (standard input): chunks are kept until one more byte than the limit has
 * arrived, then the stream is destroyed, so an endless pipe costs the limit in memory and is never read whole.
 */
export function readStreamBounded(stream: ByteStream, options: ReadOptions): Promise<BoundedRead> {
  const limitBytes = limitOf(options);
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    let settled = false;
    const finish = (result: BoundedRead) => {
      if (settled) return;
      settled = true;
      stream.removeAllListeners('data');
      resolve(result);
    };
    stream.on('data', (chunk) => {
      if (settled) return;
      const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
      const room = limitBytes + 1 - total;
      chunks.push(bytes.length > room ? bytes.subarray(0, room) : bytes);
      total += Math.min(bytes.length, room);
      if (total > limitBytes) {
        finish(tooLarge(limitBytes, options.kind));
        stream.destroy();
      }
    });
    stream.on('end', () => finish({ kind: 'read', bytes: Buffer.concat(chunks, total) }));
    stream.on('error', (error) => finish(fsRefusal(error)));
  });
}

async function readHandle(handle: FileHandle, limitBytes: number, kind: InputKind): Promise<BoundedRead> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limitBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > limitBytes) return tooLarge(limitBytes, kind);
  }
  return { kind: 'read', bytes: Buffer.concat(chunks, total) };
}

function notRegular(info: Stats): Refused {
  return { kind: 'refused', cause: 'not-regular', reason: describeNotRegular(info) };
}

function fsRefusal(error: unknown): Refused {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const cause = code === 'ENOENT' ? 'missing' : code === 'ENXIO' || code === 'EISDIR' ? 'not-regular' : 'unreadable';
  return { kind: 'refused', cause, reason: describeFsError(error) };
}

function limitOf(options: ReadOptions): number {
  const limit = options.limitBytes ?? INPUT_LIMITS[options.kind].limitBytes;
  return Math.max(0, Math.floor(limit));
}

export function tooLarge(limitBytes: number, kind: InputKind): TooLarge {
  const size = formatBytes(limitBytes);
  return { kind: 'too-large', limitBytes, reason: `stopped at ${size}: ${INPUT_LIMITS[kind].noun} ${size}` };
}

/** 16 MiB, 1.5 MiB, 1.0 KiB, 12 bytes. */
export function formatBytes(bytes: number): string {
  if (bytes >= MIB) return `${Number.isInteger(bytes / MIB) ? bytes / MIB : (bytes / MIB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/** What a path that is not a regular file is, for the refusal: "a character device (like /dev/zero), not a regular file". */
export function describeNotRegular(info: Stats): string {
  const what = info.isDirectory()
    ? 'a directory'
    : info.isCharacterDevice()
      ? 'a character device'
      : info.isBlockDevice()
        ? 'a block device'
        : info.isFIFO()
          ? 'a named pipe (FIFO)'
          : info.isSocket()
            ? 'a socket'
            : 'not a file';
  return what === 'a directory' ? 'is a directory' : `is ${what}, not a regular file`;
}

/** The OS error in words, with no stack and no engine text. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ENXIO':
      return 'is a socket or device with nothing behind it, not a regular file';
    case 'EAGAIN':
      return 'would block: not a regular file';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    case 'EIO':
      return 'input/output error';
    default:
      return code === undefined ? 'cannot be read' : `cannot be read (${code})`;
  }
}
