// dist/cli.js, the `gpumem` executable (the CLI and the agent): checks the Node.js version, then loads the CLI
// (dist/cli/main.mjs, which loads each command's code when that command runs). Built for old JavaScript
// (scripts/build.mjs) so that an old Node.js parses it and prints one line instead of failing inside the bundle.
import { unsupportedNodeMessage } from './nodeVersion.ts';

const problem = unsupportedNodeMessage(process.versions.node);
if (problem === undefined) {
  // A variable, not a literal: the bundler must leave this import to Node (the file exists only in dist/).
  const entry = './cli/main.mjs';
  void import(entry);
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 2;
}
