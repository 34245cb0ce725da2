// Paths that are not regular files, made for real in a temporary directory: symlinks to the endless devices, a
// named pipe nobody writes, a listening Unix socket, a directory, and sparse files one byte over a limit.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { join } from 'node:path';

export type SpecialKind = 'dev-zero' | 'dev-urandom' | 'fifo' | 'socket' | 'directory';

export const SPECIAL_KINDS: readonly SpecialKind[] = ['dev-zero', 'dev-urandom', 'fifo', 'socket', 'directory'];

/** What the reader's refusal says for each kind (src/files/boundedRead.ts describeNotRegular). */
export const REFUSAL: Readonly<Record<SpecialKind, RegExp>> = {
  'dev-zero': /is a character device, not a regular file/,
  'dev-urandom': /is a character device, not a regular file/,
  fifo: /is a named pipe \(FIFO\), not a regular file/,
  socket: /is a socket, not a regular file/,
  directory: /is a directory/,
};

/** Makes `name` in `dir` as the given kind; sockets listen until `servers` are closed. */
export async function makeSpecial(dir: string, name: string, kind: SpecialKind, servers: Server[]): Promise<string> {
  const path = join(dir, name);
  if (kind === 'dev-zero') symlinkSync('/dev/zero', path);
  else if (kind === 'dev-urandom') symlinkSync('/dev/urandom', path);
  else if (kind === 'fifo') execFileSync('mkfifo', [path]);
  else if (kind === 'directory') mkdirSync(path);
  else {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, resolve);
    });
    servers.push(server);
  }
  return path;
}

/** A sparse file of `bytes` zero bytes: a file over a 64 MiB limit costs no disk. */
export function sparseFile(path: string, bytes: number): string {
  writeFileSync(path, '');
  truncateSync(path, bytes);
  return path;
}
