// The bounded reader (src/files/boundedRead.ts) fed random kinds of path: regular files under, at and over a
// random limit, symlinks (chained, dangling, looping) to any of them, FIFOs nobody writes, listening sockets,
// directories, /dev/zero, /dev/urandom and /dev/null. The properties: it never throws, never hangs (a guard far
// above any real read), refuses exactly what is not a regular file, reads a regular file exactly when it fits,
// and the synchronous reader agrees with the asynchronous one; the stream reader stops at the limit of any
// chunking of an endless or finite stream.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import fc from 'fast-check';
import { INPUT_LIMITS, readBounded, readBoundedSync, readStreamBounded } from '../../src/files/boundedRead.ts';
import type { BoundedRead, InputKind } from '../../src/files/boundedRead.ts';
import { MODE, RUNS, SEED } from './harness.ts';

type Leaf =
  | { readonly kind: 'regular'; readonly size: number }
  | { readonly kind: 'fifo' }
  | { readonly kind: 'socket' }
  | { readonly kind: 'directory' }
  | { readonly kind: 'device'; readonly path: '/dev/zero' | '/dev/urandom' | '/dev/null' }
  | { readonly kind: 'missing' };

type PathShape = { readonly leaf: Leaf; readonly links: number } | { readonly loop: true };

const KINDS = Object.keys(INPUT_LIMITS) as InputKind[];
const HANG_GUARD_MS = 30_000;

const leaf: fc.Arbitrary<Leaf> = fc.oneof(
  fc.record({ kind: fc.constant('regular' as const), size: fc.nat({ max: 9000 }) }),
  fc.constant({ kind: 'fifo' as const }),
  fc.constant({ kind: 'socket' as const }),
  fc.constant({ kind: 'directory' as const }),
  fc.record({
    kind: fc.constant('device' as const),
    path: fc.constantFrom('/dev/zero' as const, '/dev/urandom' as const, '/dev/null' as const),
  }),
  fc.constant({ kind: 'missing' as const }),
);
const shape: fc.Arbitrary<PathShape> = fc.oneof(
  { weight: 9, arbitrary: fc.record({ leaf, links: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ loop: true as const }) },
);

async function make(dir: string, id: number, path: PathShape, servers: Server[]): Promise<{ file: string; bytes?: Buffer }> {
  const base = join(dir, `p${id}`);
  if ('loop' in path) {
    symlinkSync(`${base}-b`, base);
    symlinkSync(base, `${base}-b`);
    return { file: base };
  }
  let target = `${base}-leaf`;
  let bytes: Buffer | undefined;
  const { leaf: made } = path;
  if (made.kind === 'regular') {
    bytes = Buffer.alloc(made.size, id % 251);
    writeFileSync(target, bytes);
  } else if (made.kind === 'fifo') execFileSync('mkfifo', [target]);
  else if (made.kind === 'directory') mkdirSync(target);
  else if (made.kind === 'device') target = made.path;
  else if (made.kind === 'socket') {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(target, resolve));
    servers.push(server);
  }
  for (let link = 0; link < path.links; link++) {
    const next = `${base}-l${link}`;
    symlinkSync(target, next);
    target = next;
  }
  return bytes === undefined ? { file: target } : { file: target, bytes };
}

function guarded(read: Promise<BoundedRead>): Promise<BoundedRead> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`readBounded did not settle in ${HANG_GUARD_MS} ms`)), HANG_GUARD_MS);
  });
  return Promise.race([read, hang]).finally(() => clearTimeout(timer));
}

test('readBounded: random kinds of path are refused or read exactly, never thrown at, never hung on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-fuzz-files-'));
  const servers: Server[] = [];
  let id = 0;
  try {
    await fc.assert(
      fc.asyncProperty(shape, fc.nat({ max: 8192 }), fc.constantFrom(...KINDS), async (path, limitBytes, kind) => {
        const { file, bytes } = await make(dir, id++, path, servers);
        const read = await guarded(readBounded(file, { kind, limitBytes }));
        assert.deepEqual(readBoundedSync(file, { kind, limitBytes }), read, 'the sync reader agrees');
        if ('loop' in path) return assert.equal(read.kind === 'refused' && read.cause, 'unreadable');
        const made = path.leaf;
        if (made.kind === 'missing') return assert.equal(read.kind === 'refused' && read.cause, 'missing');
        if (made.kind !== 'regular') {
          assert.equal(read.kind, 'refused', `${made.kind} is refused`);
          return assert.match(read.kind === 'refused' ? read.reason : '', /not a regular file|is a directory/);
        }
        if (made.size > limitBytes) return assert.deepEqual(read.kind === 'too-large' && read.limitBytes, limitBytes);
        assert.equal(read.kind, 'read');
        assert.ok(read.kind === 'read' && bytes !== undefined && Buffer.from(read.bytes).equals(bytes), 'the bytes are the file');
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: MODE === 'short' },
    );
  } finally {
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readStreamBounded: any chunking of a finite stream reads it whole when it fits; an endless one stops', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 700 }), { maxLength: 20 }),
      fc.nat({ max: 6000 }),
      fc.boolean(),
      async (chunks, limitBytes, endless) => {
        const whole = Buffer.concat(chunks);
        let index = 0;
        const stream = new Readable({
          read() {
            if (index < chunks.length) this.push(Buffer.from(chunks[index++]!));
            else if (endless) this.push(Buffer.alloc(512, 1));
            else this.push(null);
          },
        });
        const read = await readStreamBounded(stream, { kind: 'manifest', limitBytes });
        if (!endless && whole.length <= limitBytes) {
          assert.ok(read.kind === 'read' && Buffer.from(read.bytes).equals(whole));
        } else {
          assert.equal(read.kind, 'too-large');
          assert.ok(stream.destroyed, 'the stream is destroyed at the limit');
        }
      },
    ),
    { seed: SEED, numRuns: RUNS, endOnFailure: MODE === 'short' },
  );
});
