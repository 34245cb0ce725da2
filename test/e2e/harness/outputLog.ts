// The gpumem output channel as VS Code writes it to the session's logs (…/logs/<session>/…/gpumem.gpumem…/
// gpumem.log): what the extension host logged, read from disk by the tests (live samples, debug pods).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkbenchSession } from './session.ts';
import { waitFor } from './workbench.ts';

/** Every gpumem.log of the session (a window reload starts a new one), concatenated in no particular order. */
export async function gpumemLog(s: WorkbenchSession): Promise<string> {
  const logs = path.join(path.dirname(s.workspace), 'profile', 'user-data', 'logs');
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name === 'gpumem.log' && full.includes('gpumem.gpumem')) found.push(full);
    }
  };
  await walk(logs);
  return (await Promise.all(found.map((file) => readFile(file, 'utf8')))).join('\n');
}

/** The inspector's live-sample lines logged so far ("inspector: live sample N of <target> in … ms (P pods)", or "… failed …"). */
export async function liveSampleLines(s: WorkbenchSession, target?: string): Promise<string[]> {
  const lines = (await gpumemLog(s)).split('\n').filter((line) => /inspector: live sample \d+ of /.test(line));
  return target === undefined ? lines : lines.filter((line) => line.includes(` of ${target} `));
}

/** Waits until the gpumem output channel has a line matching `pattern`; returns the match (its groups). */
export async function waitForLogLine(s: WorkbenchSession, what: string, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
  const log = await s.step(`${what} in the gpumem output`, () =>
    waitFor(
      what,
      () => gpumemLog(s),
      (text) => pattern.test(text),
      { timeoutMs },
    ),
  );
  const match = pattern.exec(log);
  if (!match) throw new Error(`unreachable: ${pattern} matched the log once`);
  return match;
}
