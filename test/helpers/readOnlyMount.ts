// A read-only bind mount of a fixture root, for the probe's read-only tests. See fixtureRoot.ts.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureBase } from './fixtureTools.ts';

// ---------------------------------------------------------------------------------------------------
// Read-only bind mounts

export interface ReadOnlyMount {
  readonly path: string;
  cleanup(): void;
}

/** `mount --bind <root> <dir>` then `mount -o remount,ro,bind`: the same tree, read-only. */
export function readOnlyBind(root: string): ReadOnlyMount {
  const path = mkdtempSync(join(fixtureBase(), 'gpumem-ro-'));
  chmodSync(path, 0o755);
  let mounted = false;
  const cleanup = (): void => {
    if (mounted) {
      const r = spawnSync('umount', [path]);
      if (r.status !== 0) spawnSync('umount', ['-l', path]);
      mounted = false;
    }
    rmSync(path, { recursive: true, force: true });
  };
  try {
    execFileSync('mount', ['--bind', root, path]);
    mounted = true;
    execFileSync('mount', ['-o', 'remount,ro,bind', path]);
    return { path, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** Writes one byte into a file of the tree to prove it is writable (or not): returns the error code. */
export function tryWrite(path: string): string | undefined {
  try {
    const fd = openSync(path, 'w');
    writeSync(fd, 'x');
    closeSync(fd);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'error';
  }
}
