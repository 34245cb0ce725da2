// The lint core and the bundles beside it, as esbuild sees them (issue 16, light activation): shared by the
// activation benchmark (bench/activation.mjs, which times loading them) and its unit test
// (test/unit/activationBundle.test.ts, which checks what dist/extension.js holds beyond the lint core).
import * as esbuild from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The esbuild options of dist/extension.js (scripts/build.mjs), development build. */
export const EXTENSION_OPTIONS: esbuild.BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  legalComments: 'none',
  logLevel: 'warning',
  define: { 'import.meta.url': 'undefined' },
  external: ['vscode', '*.node'],
  absWorkingDir: ROOT,
};

/** What a YAML file needs: the Ctx, the lint service, its providers and the lint commands. */
export const LINT_CORE_FILES = [
  'src/vscode/ctx.ts',
  'src/vscode/lintService.ts',
  'src/vscode/codeLens.ts',
  'src/vscode/codeActions.ts',
  'src/vscode/hover.ts',
  'src/vscode/commands/lintActiveFile.ts',
  'src/vscode/commands/lintWorkspace.ts',
  'src/vscode/commands/applyFix.ts',
];

/** One esbuild entry exporting every lint core file, so the lint core is one bundle of its own. */
export const LINT_CORE_ENTRY: esbuild.StdinOptions = {
  contents: LINT_CORE_FILES.map((file, i) => `export * as m${i} from './${file}';`).join('\n'),
  resolveDir: ROOT,
  sourcefile: 'lint-core-entry.ts',
  loader: 'ts',
};

/**
 * Where the code that loads on first use lives: Kubernetes and SSH (dist/remote.js), the inspector, the
 * verdicts, the probe and the local inspection commands (dist/inspect.js).
 */
const LAZY_PLACES = [
  'node_modules/@kubernetes/client-node/',
  'node_modules/ssh2/',
  'src/kube/',
  'src/transports/',
  'src/core/inspectionRun/',
  'src/core/inspector/',
  'src/core/inspectorPanel/',
  'src/core/probe/',
  'src/core/report/',
  'src/core/verdicts/',
  'src/vscode/clusters/',
  'src/vscode/inspectionRun/',
  'src/vscode/inspectorPanel/',
  'src/vscode/sshHosts.ts',
  'src/vscode/commands/analyzeCapture.ts',
  'src/vscode/commands/explainOom.ts',
  'src/vscode/commands/inspectLocal.ts',
  'src/vscode/commands/inspectSsh.ts',
  'src/vscode/commands/probeScript.ts',
  'dist/inspect.js',
  'dist/remote.js',
];

/** Small modules in those places that activation needs: registrations, the shared TransportError, settings. */
const NEEDED_AT_ACTIVATION = new Set([
  'src/kube/debugPodRegistry.ts',
  'src/core/inspectorPanel/viewType.ts',
  'src/core/probe/hamiLibPath.ts',
  'src/core/probe/transport.ts',
  'src/vscode/clusters/commandIds.ts',
  'src/vscode/clusters/manifestScheme.ts',
  'src/vscode/inspectionRun/inspections.ts',
]);

/** Whether a module (an esbuild input, or a require.cache key: an absolute path) should load on first use only. */
export function isLazyModule(path: string): boolean {
  const relative = repositoryPath(path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path);
  return !NEEDED_AT_ACTIVATION.has(relative) && LAZY_PLACES.some((place) => relative.startsWith(place));
}

/** The input modules of one bundle and the bytes each adds to it, keyed by their path from the repository root. */
export async function bundleInputs(options: esbuild.BuildOptions): Promise<Map<string, number>> {
  const { metafile } = await esbuild.build({ ...EXTENSION_OPTIONS, ...options, write: false, metafile: true, outfile: 'bundle.js' });
  const inputs = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) inputs.set(repositoryPath(path), bytesInOutput);
  }
  return inputs;
}

/** node_modules may be a symlink (a git worktree's): its packages are named from node_modules/ on. */
function repositoryPath(input: string): string {
  const packages = input.lastIndexOf('node_modules/');
  return packages > 0 ? input.slice(packages) : input;
}
