// The machine's own Node.js (Debian's `nodejs` package, or whatever /usr/bin/node is), as opposed to the pinned
// Node (devDependencies `node`) that runs the tests: what a user who installs gpumem on a stock Debian has.
import { spawnSync } from 'node:child_process';

export interface MachineNode {
  readonly path: string;
  readonly version: string;
}

const CANDIDATES = ['/usr/bin/node', '/usr/bin/nodejs', '/usr/local/bin/node'];

/** The first Node.js on the machine's standard paths that is not the one running the tests; undefined if none. */
export function machineNode(): MachineNode | undefined {
  for (const path of CANDIDATES) {
    const run = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 30_000 });
    const version = run.status === 0 ? run.stdout.trim() : '';
    if (version !== '' && `v${version}` !== process.version) return { path, version };
  }
  return undefined;
}
