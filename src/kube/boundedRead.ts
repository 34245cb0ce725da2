// Reads a text file the user points at (a kubeconfig), never more than a cap: KUBECONFIG=/dev/zero, a FIFO or a
// mistaken multi-gigabyte path must give a clear problem, not an extension host that reads until memory runs out.
import { open } from 'node:fs/promises';

export type BoundedText = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'too-large'; readonly limitBytes: number };

const CHUNK_BYTES = 64 * 1024;

/** The file as UTF-8, or `too-large` once more than `limitBytes` bytes have been read (the rest is never read). */
export async function readTextBounded(file: string, limitBytes: number): Promise<BoundedText> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limitBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limitBytes) return { kind: 'too-large', limitBytes };
    }
    return { kind: 'text', text: Buffer.concat(chunks, total).toString('utf8') };
  } finally {
    await handle.close();
  }
}
