// One output stream of a run, kept up to the request's byte cap (the Transport contract's
// `maxOutputBytes`), shared by every transport through execRun.ts.
import { StringDecoder } from 'node:string_decoder';

/**
 * Collects one output stream up to a byte cap. `push` returns false once the cap is exceeded; the text is
 * cut at the cap, backed off to a whole UTF-8 character.
 */
export class OutputBuffer {
  readonly #cap: number;
  // Each chunk is decoded as it arrives and let go: a node capture (7 MiB on a large node) is then held once as text
  // pieces and once joined, not as chunks, their concatenation and its decoding at the same time (and the 7 MiB
  // concatenation, freed every cycle, no longer raises glibc's mmap threshold so that the agent's RSS keeps it).
  readonly #decoder = new StringDecoder('utf8');
  readonly #pieces: string[] = [];
  /** Given: the text goes there as it is decoded, and none is kept (ExecRequest's onStdout). */
  readonly #sink: ((text: string) => void) | undefined;
  #size = 0;
  #truncated = false;

  constructor(cap: number, sink?: (text: string) => void) {
    this.#cap = Math.max(0, Math.floor(cap));
    this.#sink = sink;
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
      this.#keep(this.#decoder.write(chunk));
      this.#size += chunk.length;
      return true;
    }
    if (room > 0) {
      this.#keep(this.#decoder.write(chunk.subarray(0, room)));
      this.#size += room;
    }
    // A character the cap cut stays in the decoder, never decoded: the text ends at the last whole one.
    this.#truncated = true;
    return false;
  }

  /** The text, once: the pieces are released as it is made ('' when a sink took it). */
  text(): string {
    if (!this.#truncated) this.#keep(this.#decoder.end());
    const text = this.#pieces.join('');
    this.#pieces.length = 0;
    return text;
  }

  #keep(text: string): void {
    if (text === '') return;
    if (this.#sink) this.#sink(text);
    else this.#pieces.push(text);
  }
}
