// The message of anything thrown (an Error's message, else the value as text), for log lines and failure details.
// One helper instead of a copy of the ternary in every catch; what the user is shown goes through the reporters
// (src/vscode/messages.ts, the CLI's commands), which add the cause and the remedy.
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
