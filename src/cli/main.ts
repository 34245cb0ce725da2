// The `gpumem` command: a thin front on the same core as the extension. The dispatch is in dispatch.ts (run in
// process by the tests); this file is the process around it.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { terminalSafe } from '../core/text/escape.ts';
import { readStreamBounded } from '../files/boundedRead.ts';
import { main, VERSION } from './dispatch.ts';
import type { CliIo } from './io.ts';

/**
 * docs/rules next to the installed CLI: dist/cli.js → ../docs/rules; src/cli/main.ts → ../../docs/rules. The
 * script's real path: npm's bin is a symlink (PREFIX/bin/gpumem → PREFIX/lib/node_modules/gpumem/dist/cli.js).
 */
function findDocsDirectory(): string {
  const script = resolve(process.argv[1] ?? '.');
  let directory = dirname(existsSync(script) ? realpathSync(script) : script);
  for (let i = 0; i < 4; i++) {
    const candidate = join(directory, 'docs', 'rules');
    if (existsSync(candidate)) return candidate;
    directory = dirname(directory);
  }
  return join(process.cwd(), 'docs', 'rules');
}

/** One line from the terminal: "y" or "yes" is consent, anything else (or Ctrl-D) is not. */
function confirmOnTerminal(question: string): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let answered = false;
    lines.question(terminalSafe(question), (answer) => {
      answered = true;
      lines.close();
      resolvePromise(['y', 'yes'].includes(answer.trim().toLowerCase()));
    });
    lines.once('close', () => {
      if (!answered) resolvePromise(false);
    });
  });
}

// The choke point: every byte the CLI writes passes terminalSafe, whatever a command or format escaped
// itself, so no target, cluster or file string can reach the terminal raw. JSON and SARIF stay valid (and
// their values unchanged): the escapes are JSON's own `\uXXXX`, and C0 never appears raw in JSON.
const io: CliIo = {
  stdout: (text) => void process.stdout.write(terminalSafe(text)),
  stderr: (text) => void process.stderr.write(terminalSafe(text)),
  readStdin: (options) => readStreamBounded(process.stdin, options),
  cwd: process.cwd(),
  version: VERSION,
  docsDirectory: findDocsDirectory(),
  ...(process.stdin.isTTY && process.stderr.isTTY ? { confirm: confirmOnTerminal } : {}),
};

let finished = false;
void main(process.argv.slice(2), io).then((code) => {
  finished = true;
  process.exitCode = code;
});
// A command whose work never settles must not look like success.
process.on('beforeExit', () => {
  if (finished) return;
  finished = true;
  io.stderr('gpumem: internal error: the command ended without a result\n');
  process.exitCode = 2;
});
