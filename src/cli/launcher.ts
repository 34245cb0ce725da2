// dist/cli.js, the `gpumem` executable (the CLI and the agent): checks the Node.js version, then loads the CLI
// (dist/cli/main.mjs, which loads each command's code when that command runs). Built for old JavaScript
// (scripts/build.mjs) so that an old Node.js parses it and prints one line instead of failing inside the bundle.
import * as nodeModule from 'node:module';
import { unsupportedNodeMessage } from './nodeVersion.ts';

const problem = unsupportedNodeMessage(process.versions.node);
if (problem === undefined) {
  // V8's compiled code kept on disk between runs (module.enableCompileCache, Node ≥ 22.1, in os.tmpdir() unless
  // NODE_COMPILE_CACHE says where; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a CLI run in CI or a pre-commit hook
  // starts again and again, and most of its start-up is compiling the same code. Where nothing can be written (the
  // agent's read-only root) the call only reports that, and nothing changes.
  (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  // A variable, not a literal: the bundler must leave this import to Node (the file exists only in dist/).
  const entry = './cli/main.mjs';
  void import(entry);
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 2;
}
