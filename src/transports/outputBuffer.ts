// One output stream of a run, kept up to the request's byte cap (the Transport contract's
// `maxOutputBytes`), shared by every transport through execRun.ts.

/**
 * Collects one output stream up to a byte cap. `push` returns false once the cap is exceeded; the text is
 * cut at the cap, backed off to a whole UTF-8 character.
 */
export class OutputBuffer {
  readonly #cap: number;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  #truncated = false;

  constructor(cap: number) {
    this.#cap = Math.max(0, Math.floor(cap));
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  get size(): number {
    return this.#size;
  }

  push(chunk: Buffer): boolean {
    if (this.#truncated) return false;
    const room = this.#cap - this.#size;
    if (chunk.length <= room) {
      this.#chunks.push(chunk);
      this.#size += chunk.length;
      return true;
    }
    if (room > 0) {
      this.#chunks.push(chunk.subarray(0, room));
      this.#size += room;
    }
    this.#truncated = true;
    return false;
  }

  /**
   * The text, once: the chunks are released as it is made, so a node capture (7 MiB on a large node) is not held
   * twice more, as chunks and as their concatenation, while it is analysed.
   */
  text(): string {
    let bytes = Buffer.concat(this.#chunks, this.#size);
    this.#chunks.length = 0;
    if (this.#truncated) bytes = bytes.subarray(0, utf8Boundary(bytes));
    return bytes.toString('utf8');
  }
}

/** The largest length <= bytes.length that does not end inside a UTF-8 sequence. */
export function utf8Boundary(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back] as number;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
