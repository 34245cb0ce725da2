// The CI integrations as a user's CI runs them, with the npm package scripts/pack-cli.mjs packs (no registry):
// - the GitHub Action: action.yml's steps run as a script (its `run` step through bash with the `env` it maps
//   from the inputs, as a runner would; its setup-node step is the pinned Node on PATH here) on a temporary
//   repository; the SARIF it writes validates against the SARIF 2.1.0 schema and has the findings' real regions;
//   config, fail-level and a bad input behave as documented;
// - the pre-commit hooks (.pre-commit-hooks.yaml) with Debian's pre-commit: `pre-commit try-repo` against this
//   repository on a temporary git repository (a bad manifest fails, a good one passes), and both hooks installed
//   in it as a user's .pre-commit-config.yaml does: a commit of a bad manifest is refused, the suppressed and
//   configured one is accepted. Skipped, with the reason, where pre-commit is not installed (.ci/run installs it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { sarifSchemaValidator } from '../helpers/sarifSchema.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const T = { timeout: 300_000 };
const BAD = readFileSync(join(ROOT, 'demo', 'workspace', 'hami-dind-trainer.yaml'), 'utf8');
// One GPU container without a memory limit: one gpu-no-memory-limit warning, on line 10, column 17.
const GPU_NO_LIMIT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: infer, namespace: ml}
spec:
  selector: {matchLabels: {app: infer}}
  template:
    metadata: {labels: {app: infer}}
    spec:
      containers:
        - name: infer
          image: vllm/vllm-openai:v0.6.0
          resources:
            limits: {nvidia.com/gpu: 1}
`;
const SUPPRESSED = GPU_NO_LIMIT.replace(
  '- name: infer\n',
  '- name: infer # gpumem-ignore gpu-no-memory-limit -- sized by the autoscaler\n',
);
const WORKFLOW = 'name: ci\non: [push]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n';

interface ActionStep {
  readonly uses?: string;
  readonly run?: string;
  readonly shell?: string;
  readonly env?: Record<string, string>;
}
interface Action {
  readonly inputs: Record<string, { default?: string }>;
  readonly runs: { using: string; steps: ActionStep[] };
}

let work = '';
let tarball = '';
let env: NodeJS.ProcessEnv = {};

before(() => {
  work = mkdtempSync(join(tmpdir(), 'gpumem-ci-'));
  tarball = execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack-cli.mjs'), '--out', work], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  // The pinned Node first (the action's setup-node step; the hooks' "Node.js 22.19 or newer"); npm offline, so
  // nothing but the tarball can be what runs.
  env = {
    PATH: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: work,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'gpumem test',
    GIT_AUTHOR_EMAIL: 'test@gpumem.invalid',
    GIT_COMMITTER_NAME: 'gpumem test',
    GIT_COMMITTER_EMAIL: 'test@gpumem.invalid',
  };
});
after(() => rmSync(work, { recursive: true, force: true }));

/** A fresh directory under the test's temp directory with these files. */
function repository(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

describe('the GitHub Action (action.yml)', () => {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

  /** action.yml's steps, as a runner runs them: `${{ inputs.* }}` from `inputs` or the defaults, bash -eo pipefail. */
  function runAction(cwd: string, inputs: Record<string, string>) {
    const output = join(cwd, 'github-output');
    writeFileSync(output, '');
    let last = { status: 0 as number | null, stdout: '', stderr: '' };
    for (const step of action.runs.steps) {
      if (step.uses !== undefined) {
        assert.match(step.uses, /^actions\/setup-node@v\d+$/, 'the only action it uses sets up Node.js');
        continue;
      }
      assert.equal(step.shell, 'bash');
      const stepEnv = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([key, value]) => {
          const input = /^\$\{\{ inputs\.([\w-]+) \}\}$/.exec(value)?.[1];
          assert.ok(input !== undefined && input in action.inputs, `${key}: ${value} is an input`);
          return [key, inputs[input] ?? action.inputs[input]?.default ?? ''];
        }),
      );
      assert.doesNotMatch(step.run ?? '', /\$\{\{/, 'no expression is spliced into the script');
      const script = join(cwd, '.step.sh');
      writeFileSync(script, step.run ?? '');
      last = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
        cwd,
        env: { ...env, ...stepEnv, GITHUB_ACTION_PATH: ROOT, GITHUB_OUTPUT: output, GITHUB_WORKSPACE: cwd },
        encoding: 'utf8',
        timeout: 240_000,
      });
      rmSync(script);
      if (last.status !== 0) break;
    }
    const outputs = Object.fromEntries(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    return { ...last, outputs };
  }

  test('is a composite action with the documented inputs, SARIF by default', () => {
    assert.equal(action.runs.using, 'composite');
    assert.deepEqual(Object.keys(action.inputs).sort(), ['config', 'fail-level', 'format', 'output-file', 'paths', 'version']);
    assert.equal(action.inputs.format?.default, 'sarif');
    assert.equal(action.inputs['fail-level']?.default, 'warning');
  });

  test('a bad manifest fails the step, with a schema-valid SARIF report of the real regions; the config applies', T, () => {
    const repo = repository('action-bad', {
      'k8s/trainer.yaml': BAD,
      'k8s/infer.yaml': GPU_NO_LIMIT,
      '.github/workflows/ci.yaml': WORKFLOW,
      'gpumem.yaml': 'rules:\n  cuda-disable-control: "off"\n',
    });
    const run = runAction(repo, { paths: 'k8s\n.github', config: 'gpumem.yaml', version: tarball });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /gpumem: 4 findings \(0 errors, 4 warnings, 0 info\); report in gpumem\.sarif/);
    assert.equal(run.outputs['output-file'], 'gpumem.sarif');
    assert.equal(run.outputs.findings, '4');
    const sarif = JSON.parse(readFileSync(join(repo, 'gpumem.sarif'), 'utf8')) as { runs: { results: unknown[] }[] };
    const validate = sarifSchemaValidator();
    assert.ok(validate(sarif), JSON.stringify(validate.errors?.slice(0, 5)));
    const results = sarif.runs[0]?.results as {
      ruleId: string;
      locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId: string }; region: Record<string, number> } }[];
    }[];
    const located = results.map(({ ruleId, locations: [location] }) => ({
      ruleId,
      uri: location?.physicalLocation.artifactLocation.uri,
      base: location?.physicalLocation.artifactLocation.uriBaseId,
      line: location?.physicalLocation.region.startLine,
      column: location?.physicalLocation.region.startColumn,
    }));
    assert.deepEqual(
      located.find((result) => result.uri === 'k8s/infer.yaml'),
      { ruleId: 'gpu-no-memory-limit', uri: 'k8s/infer.yaml', base: 'SRCROOT', line: 10, column: 17 },
    );
    assert.ok(located.some((r) => r.uri === 'k8s/trainer.yaml' && r.ruleId === 'gpu-no-memory-limit' && r.line === 17));
    assert.ok(!located.some((r) => r.ruleId === 'cuda-disable-control'), 'the config turned cuda-disable-control off');
    assert.ok(!located.some((r) => (r.uri ?? '').startsWith('.github/')), 'a workflow is YAML, not a Kubernetes object');
  });

  test('fail-level error passes warnings (the report is still written); never passes all', T, () => {
    const repo = repository('action-level', { 'infer.yaml': GPU_NO_LIMIT });
    const errorLevel = runAction(repo, { 'fail-level': 'error', format: 'json', version: tarball });
    assert.equal(errorLevel.status, 0, errorLevel.stderr);
    assert.equal(JSON.parse(readFileSync(join(repo, 'gpumem.json'), 'utf8'))[0].ruleId, 'gpu-no-memory-limit');
    const never = runAction(repo, { 'fail-level': 'never', format: 'text', 'output-file': 'out.txt', version: tarball });
    assert.equal(never.status, 0, never.stderr);
    assert.match(readFileSync(join(repo, 'out.txt'), 'utf8'), /infer\.yaml:10:17: warning \[gpu-no-memory-limit\]/);
  });

  test('a clean repository passes; bad inputs fail with a message, not a stack', T, () => {
    const repo = repository('action-good', { 'infer.yaml': SUPPRESSED });
    const good = runAction(repo, { version: tarball });
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stdout, /gpumem: 0 findings/);
    const format = runAction(repo, { format: 'html', version: tarball });
    assert.equal(format.status, 2);
    assert.match(format.stderr, /^::error title=gpumem::format must be sarif, json or text, not "html"$/m);
    const version = runAction(repo, { version: '--registry=https://evil.invalid' });
    assert.equal(version.status, 2);
    assert.match(version.stderr, /neither an npm version of gpumem nor the path of a \.tgz/);
    const missing = runAction(repo, { paths: 'nowhere', version: tarball });
    assert.equal(missing.status, 2, missing.stderr);
  });
});

const preCommit = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' });
const NO_PRE_COMMIT = preCommit.status === 0 ? false : 'pre-commit is not installed (Debian: apt-get install pre-commit; .ci/run does)';

describe('the pre-commit hooks (.pre-commit-hooks.yaml)', { skip: NO_PRE_COMMIT }, () => {
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: 'pipe' });
  const hookEnv = () => ({ ...env, PRE_COMMIT_HOME: join(work, 'pre-commit-home'), GPUMEM_VERSION: tarball });

  function gitRepository(name: string, files: Record<string, string>): string {
    const dir = repository(name, files);
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    return dir;
  }

  test('try-repo against this repository: a bad manifest fails the hook, a good one passes', T, () => {
    const repo = gitRepository('try-repo', { 'k8s/infer.yaml': GPU_NO_LIMIT, 'ci.yaml': WORKFLOW });
    const bad = spawnSync('pre-commit', ['try-repo', ROOT, 'gpumem-lint', '--all-files'], { cwd: repo, env: hookEnv(), encoding: 'utf8' });
    assert.equal(bad.status, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /k8s\/infer\.yaml:10:17: warning \[gpu-no-memory-limit\]/);
    writeFileSync(join(repo, 'k8s', 'infer.yaml'), SUPPRESSED);
    git(repo, 'add', '-A');
    const good = spawnSync('pre-commit', ['try-repo', ROOT, 'gpumem-lint', '--all-files'], { cwd: repo, env: hookEnv(), encoding: 'utf8' });
    assert.equal(good.status, 0, good.stdout + good.stderr);
    assert.match(good.stdout, /gpumem lint\.+Passed/);
  });

  test('installed as a user installs them: the commit of a bad manifest is refused, then accepted (config, suppression)', T, () => {
    // A hook repository at a commit, as `rev:` pins one: this checkout's hook files, committed.
    const hooks = join(work, 'hook-repo');
    for (const file of ['.pre-commit-hooks.yaml', 'package.json', 'scripts/integrations']) {
      cpSync(join(ROOT, file), join(hooks, file), { recursive: true });
    }
    git(hooks, 'init', '-q', '-b', 'main');
    git(hooks, 'add', '-A');
    git(hooks, 'commit', '-q', '-m', 'hooks');
    const rev = git(hooks, 'rev-parse', 'HEAD').trim();
    // The system variant needs gpumem on PATH: the package installed from the tarball.
    const prefix = join(work, 'prefix');
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { env, stdio: 'ignore' });
    for (const id of ['gpumem-lint', 'gpumem-lint-system']) {
      const config = `repos:\n  - repo: ${hooks}\n    rev: ${rev}\n    hooks:\n      - id: ${id}\n        args: [--config, gpumem.yaml]\n`;
      const repo = gitRepository(`installed-${id}`, {
        '.pre-commit-config.yaml': config,
        'gpumem.yaml': 'rules:\n  cuda-disable-control: "off"\n',
        'k8s/infer.yaml': GPU_NO_LIMIT,
      });
      const hookPath = { ...hookEnv(), PATH: `${join(prefix, 'bin')}:${env.PATH}` };
      assert.equal(spawnSync('pre-commit', ['install'], { cwd: repo, env: hookPath, encoding: 'utf8' }).status, 0);
      const refused = spawnSync('git', ['commit', '-m', 'bad'], { cwd: repo, env: hookPath, encoding: 'utf8' });
      assert.equal(refused.status, 1, `${id}: ${refused.stdout}${refused.stderr}`);
      assert.match(refused.stdout + refused.stderr, /k8s\/infer\.yaml:10:17: warning \[gpu-no-memory-limit\]/);
      assert.throws(() => git(repo, 'rev-parse', 'HEAD'), 'nothing was committed');
      // The suppression comment, and a manifest whose only finding the config turns off.
      writeFileSync(join(repo, 'k8s', 'infer.yaml'), SUPPRESSED);
      const disableOnly = GPU_NO_LIMIT.replace('name: infer,', 'name: hami,')
        .replace('- name: infer\n', '- name: infer # gpumem-ignore gpu-no-memory-limit\n')
        .replace(
          '            limits: {nvidia.com/gpu: 1}\n',
          '            limits: {nvidia.com/gpu: 1}\n          env: [{name: CUDA_DISABLE_CONTROL, value: "true"}]\n',
        );
      writeFileSync(join(repo, 'k8s', 'trainer.yaml'), disableOnly);
      git(repo, 'add', '-A');
      const accepted = spawnSync('git', ['commit', '-m', 'good'], { cwd: repo, env: hookPath, encoding: 'utf8' });
      assert.equal(accepted.status, 0, `${id}: ${accepted.stdout}${accepted.stderr}`);
      assert.ok(existsSync(join(repo, '.git', 'hooks', 'pre-commit')));
    }
  });
});
