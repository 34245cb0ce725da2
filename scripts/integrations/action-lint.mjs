// The GitHub Action's step (action.yml): runs `gpumem lint` through npx on the inputs, writes the report to
// output-file, and exits by fail-level. Inputs arrive in environment variables (action.yml maps them), never
// spliced into a shell line; every process gets an argument array. CI runs this file as action.yml's step on a
// temporary repository (test/integration/ciIntegrations.test.ts).
//   GPUMEM_PATHS       files or directories, one per line or separated by spaces (default: .)
//   GPUMEM_CONFIG      a gpumem config file (optional)
//   GPUMEM_FORMAT      sarif (default), json or text
//   GPUMEM_OUTPUT_FILE where the report goes (default: gpumem.sarif, gpumem.json or gpumem.txt)
//   GPUMEM_FAIL_LEVEL  error, warning (default), info or never: the least severe finding that fails the step
//   GPUMEM_VERSION     the gpumem npm version, or a .tgz path (default: the action's own version)
// Exit status: 0 passed, 1 a finding at fail-level or above, 2 gpumem could not lint (bad input, bad config) or
// did not analyse all of its input (the report is still written).
import { spawnSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { packageSpec } from './package.mjs';

const FORMATS = new Set(['sarif', 'json', 'text']);
const LEVELS = ['info', 'warning', 'error'];
const env = process.env;

function fail(message) {
  console.error(`::error title=gpumem::${message}`);
  process.exit(2);
}

const format = (env.GPUMEM_FORMAT ?? '').trim() || 'sarif';
if (!FORMATS.has(format)) fail(`format must be sarif, json or text, not "${format}"`);
const failLevel = (env.GPUMEM_FAIL_LEVEL ?? '').trim() || 'warning';
if (failLevel !== 'never' && !LEVELS.includes(failLevel)) fail(`fail-level must be error, warning, info or never, not "${failLevel}"`);
const paths = (env.GPUMEM_PATHS ?? '').split(/\s+/).filter((path) => path !== '');
const config = (env.GPUMEM_CONFIG ?? '').trim();
const outputFile = (env.GPUMEM_OUTPUT_FILE ?? '').trim() || `gpumem.${format === 'text' ? 'txt' : format}`;
let spec;
try {
  spec = packageSpec(env.GPUMEM_VERSION);
} catch (error) {
  fail(error.message);
}

const lintArgs = ['lint', ...(paths.length > 0 ? paths : ['.']), ...(config === '' ? [] : ['--config', config])];
/** `gpumem lint …` in one format: its exit status and standard output. */
function lint(outputFormat) {
  const run = spawnSync('npx', ['--yes', '--package', spec, '--', 'gpumem', ...lintArgs, '--format', outputFormat], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.error) fail(`could not run npx: ${run.error.message}`);
  return { status: run.status ?? 2, stdout: run.stdout };
}

const report = lint(format);
writeFileSync(outputFile, report.stdout);
if (report.status === 3) {
  // The report is written and valid, but part of the input was not analysed (listed above): never a pass.
  console.error(`::error title=gpumem::part of the input was not analysed (gpumem lint exit 3); see above. Report in ${outputFile}`);
  process.exit(2);
}
if (report.status !== 0 && report.status !== 1) {
  console.error(`gpumem lint could not lint (exit ${report.status}); see above.`);
  process.exit(2);
}
// The severities, from the JSON report (the format that has them plainly): the report itself when it is JSON.
const findings = JSON.parse(format === 'json' ? report.stdout : lint('json').stdout);
const counts = Object.fromEntries(LEVELS.map((level) => [level, findings.filter((finding) => finding.severity === level).length]));
const failing = failLevel === 'never' ? 0 : LEVELS.slice(LEVELS.indexOf(failLevel)).reduce((sum, level) => sum + counts[level], 0);
console.log(
  `gpumem: ${findings.length} findings (${counts.error} errors, ${counts.warning} warnings, ${counts.info} info); report in ${outputFile}`,
);
if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `output-file=${outputFile}\nfindings=${findings.length}\nfailing=${failing}\n`);
if (failing > 0) {
  console.error(`::error title=gpumem::${failing} findings at ${failLevel} or above`);
  process.exit(1);
}
