// The message of anything thrown, for log lines and failure details.
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
