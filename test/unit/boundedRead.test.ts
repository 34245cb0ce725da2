// The one bounded reader (src/files/boundedRead.ts) on real special files: what is not a regular file is refused
// with its kind named and never opened for a blocking read; a regular file is read whole up to its limit and is
// `too-large` one byte past it; standard input stops at the limit of an endless stream.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { readBounded, readBoundedSync, readStreamBounded } from '../../src/files/boundedRead.ts';
import { makeSpecial, REFUSAL, SPECIAL_KINDS, sparseFile } from '../helpers/specialFiles.ts';

const dir = mkdtempSync(join(tmpdir(), 'gpumem-bounded-'));
const servers: Server[] = [];
after(() => {
  for (const server of servers) server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('readBounded and readBoundedSync', () => {
  for (const kind of SPECIAL_KINDS) {
    test(`${kind}: refused with its kind named, async and sync alike`, async () => {
      const path = await makeSpecial(dir, `special-${kind}`, kind, servers);
      const read = await readBounded(path, { kind: 'manifest' });
      assert.equal(read.kind, 'refused');
      assert.match(read.kind === 'refused' ? read.reason : '', REFUSAL[kind]);
      assert.deepEqual(readBoundedSync(path, { kind: 'manifest' }), read);
    });
  }

  test('a file of exactly the limit is read whole; one byte more is too-large, and says where it stopped', async () => {
    const exact = join(dir, 'exact');
    writeFileSync(exact, 'a'.repeat(1024));
    const read = await readBounded(exact, { kind: 'config', limitBytes: 1024 });
    assert.equal(read.kind, 'read');
    assert.equal(read.kind === 'read' ? Buffer.from(read.bytes).toString() : '', 'a'.repeat(1024));
    const over = sparseFile(join(dir, 'over'), 1025);
    assert.deepEqual(await readBounded(over, { kind: 'config', limitBytes: 1024 }), {
      kind: 'too-large',
      limitBytes: 1024,
      reason: 'stopped at 1.0 KiB: a gpumem config is read up to 1.0 KiB',
    });
    assert.deepEqual(
      readBoundedSync(over, { kind: 'config', limitBytes: 1024 }),
      await readBounded(over, { kind: 'config', limitBytes: 1024 }),
    );
  });

  test('a symlink to a regular file is followed; a missing path, a dangling link and a link loop are refused', async () => {
    const target = join(dir, 'target.yaml');
    writeFileSync(target, 'kind: Pod\n');
    symlinkSync(target, join(dir, 'link.yaml'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling.yaml'));
    symlinkSync(join(dir, 'loop.yaml'), join(dir, 'loop.yaml'));
    const read = await readBounded(join(dir, 'link.yaml'), { kind: 'manifest' });
    assert.equal(read.kind === 'read' ? Buffer.from(read.bytes).toString() : read.kind, 'kind: Pod\n');
    assert.deepEqual(await readBounded(join(dir, 'missing'), { kind: 'manifest' }), {
      kind: 'refused',
      cause: 'missing',
      reason: 'no such file or directory',
    });
    assert.deepEqual(await readBounded(join(dir, 'dangling.yaml'), { kind: 'manifest' }), {
      kind: 'refused',
      cause: 'missing',
      reason: 'no such file or directory',
    });
    assert.deepEqual(await readBounded(join(dir, 'loop.yaml'), { kind: 'manifest' }), {
      kind: 'refused',
      cause: 'unreadable',
      reason: 'too many levels of symbolic links',
    });
  });
});

describe('readStreamBounded', () => {
  test('an endless stream stops one byte past the limit and is destroyed; memory stays at the limit', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 65536;
        this.push(Buffer.alloc(65536, 0x61));
      },
    });
    const read = await readStreamBounded(endless, { kind: 'kernel-log', limitBytes: 1024 * 1024 });
    assert.deepEqual(read, { kind: 'too-large', limitBytes: 1024 * 1024, reason: 'stopped at 1 MiB: a kernel log is read up to 1 MiB' });
    assert.ok(endless.destroyed, 'the stream is destroyed, so nothing more is read');
    // The stream's read-ahead (its highWaterMark) is all that is produced past the limit.
    assert.ok(produced <= 1024 * 1024 + 4 * 65536, `${produced} bytes produced`);
  });

  test('a finite stream is read whole, in any chunking; strings and bytes alike', async () => {
    const read = await readStreamBounded(Readable.from(['kind: ', Buffer.from('Pod\n')]), { kind: 'manifest' });
    assert.equal(read.kind === 'read' ? Buffer.from(read.bytes).toString() : read.kind, 'kind: Pod\n');
  });

  test('a stream error is a refusal in words', async () => {
    const failing = new Readable({
      read() {
        this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      },
    });
    assert.deepEqual(await readStreamBounded(failing, { kind: 'capture' }), {
      kind: 'refused',
      cause: 'unreadable',
      reason: 'input/output error',
    });
  });
});
