// The CLI's view of its process, so commands stay testable and never call process.exit themselves.
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<Uint8Array>;
  readonly cwd: string;
  readonly version: string;
  /** Where the rule docs (docs/rules/*.md) are installed. */
  readonly docsDirectory: string;
  /** Asks a yes/no question on the terminal; absent when stdin or stderr is not a terminal (CI, pipes, tests). */
  readonly confirm?: (question: string) => Promise<boolean>;
}
