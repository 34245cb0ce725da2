// The TypeScript source files under a directory (not declaration files), for the tests that hold every source file
// to a rule (importCycles.test.ts, fileLength.test.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every `.ts` file under `directory`, `.d.ts` excepted, as absolute paths when `directory` is. */
export function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) for (const file of sourceFiles(path)) files.push(file);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}
