// The CLI's view of its process, so commands stay testable and never call process.exit themselves.
import type { BoundedRead, ReadOptions } from '../files/boundedRead.ts';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Standard input, read as a stream up to the limit of its kind (readStreamBounded), never whole first. */
  readStdin(options: ReadOptions): Promise<BoundedRead>;
  readonly cwd: string;
  readonly version: string;
  /** Where the rule docs (docs/rules/*.md) are installed. */
  readonly docsDirectory: string;
  /** Asks a yes/no question on the terminal; absent when stdin or stderr is not a terminal (CI, pipes, tests). */
  readonly confirm?: (question: string) => Promise<boolean>;
}
