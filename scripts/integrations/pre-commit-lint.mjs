#!/usr/bin/env node
// The `gpumem-lint` pre-commit hook (.pre-commit-hooks.yaml): `gpumem lint` on the staged YAML files pre-commit
// passes, through npx with the gpumem npm package of the hook's `rev` (GPUMEM_VERSION: another version, or a .tgz
// path). The hook's `args` (such as `--config gpumem.yaml`) come before the files; in-file suppressions
// (`# gpumem-ignore …`) and the config file apply as in any `gpumem lint`. YAML that is not a Kubernetes object (a
// workflow, a compose file) has no findings. Exit status: gpumem's (1 refuses the commit).
// A pre-commit `language: node` hook would `npm install` this repository with its development dependencies and
// pack it unbuilt, so the hook is a script that runs the published package instead; `gpumem-lint-system` runs a
// `gpumem` already on PATH.
import { spawnSync } from 'node:child_process';
import { packageSpec } from './package.mjs';

let spec;
try {
  spec = packageSpec(process.env.GPUMEM_VERSION);
} catch (error) {
  console.error(`gpumem-lint: ${error.message}`);
  process.exit(2);
}
const run = spawnSync('npx', ['--yes', '--package', spec, '--', 'gpumem', 'lint', ...process.argv.slice(2)], { stdio: 'inherit' });
if (run.error) console.error(`gpumem-lint: could not run npx: ${run.error.message}`);
process.exit(run.status ?? 2);
