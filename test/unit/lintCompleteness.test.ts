// A lint never passes on input it did not read: a `kind: List` is judged item by item whatever its size, each
// workload on its own work budget, the size limit (`--max-file-size`) is the only cap, anything left unanalysed
// makes the CLI say what and exit 3, directories are walked for the extensions kubectl reads, and a path with
// no manifest is an error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_CONFIG } from '../../src/core/config.ts';
import { lintText } from '../../src/core/lint.ts';
import { DEFAULT_MAX_FILE_CHARS } from '../../src/core/manifest/documentScreen.ts';
import { runCli } from '../helpers/cli.ts';
import { clusterWithOneUnlimitedGpuPod, kubectlPodList } from './helpers/kubectlList.ts';

const gpuPod = (name: string, memory?: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: ${name}\n    image: nvcr.io/nvidia/cuda:12.6.0-base-ubuntu24.04\n    resources:\n      limits:\n        nvidia.com/gpu: 1\n${memory ? `        memory: ${memory}\n` : ''}`;

describe('a kubectl List is judged item by item', () => {
  // 760 pods as `kubectl get pods -A -o yaml` prints them: 3.4 MB, over the 3 MiB per-document cap the lint
  // used to have, which skipped the whole List with an info notice and exit 0.
  const list = kubectlPodList(clusterWithOneUnlimitedGpuPod(760, 700));

  test('the one GPU pod without a memory limit is found, and nothing is left unanalysed', () => {
    assert.ok(list.length > 3 * 1024 * 1024, `${list.length}`);
    const result = lintText(list);
    assert.deepEqual(
      result.findings.map((finding) => [finding.ruleId, finding.object?.namespace, finding.object?.name]),
      [['gpu-no-memory-limit', 'ml', 'trainer-5f8d7']],
    );
    assert.deepEqual(result.unanalysed, []);
    const line = list.slice(0, result.findings[0]?.span.start).split('\n').length;
    assert.equal(list.split('\n')[line - 1], '      name: main', 'the finding points at the container in the List');
  });

  test('the CLI exits 1 on it from standard input', async () => {
    const run = await runCli(['lint', '-'], { input: list, timeoutMs: 120_000 });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^<stdin>:\d+:\d+: warning \[gpu-no-memory-limit\] GPU container "main" has no memory limit/);
    assert.equal(run.stderr, '');
  });
});

describe('each workload on its own work budget', () => {
  // 6,000 containers behind one anchor: the second pod writes them in a few characters, so its work (containers
  // × rules) is out of all proportion to its text. It alone is stopped; the pod after it is still judged.
  const containers = Array.from({ length: 6_000 }, (_, i) => `      - {name: c${i}, image: x, resources: {limits: {memory: 1Gi}}}\n`).join(
    '',
  );
  const text = `apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: anchors}\n    data:\n      unused: &cs\n${containers}  - apiVersion: v1\n    kind: Pod\n    metadata: {name: multiplied}\n    spec: {containers: *cs}\n${gpuPod(
    'after',
  )
    .split('\n')
    .map((line, i) => (line === '' ? '' : i === 0 ? `  - ${line}` : `    ${line}`))
    .join('\n')}`;

  test('the pathological pod is reported and skipped alone', () => {
    const result = lintText(text);
    assert.deepEqual(
      result.findings.map((finding) => finding.ruleId),
      ['analysis-budget', 'gpu-no-memory-limit'],
    );
    assert.match(
      result.findings[0]?.message ?? '',
      /^Analysis stopped at budget at Pod "multiplied": .* it was not analysed, the other workloads were\.$/,
    );
    assert.equal(result.findings[1]?.object?.name, 'after');
    assert.deepEqual(
      result.unanalysed.map((finding) => finding.ruleId),
      ['analysis-budget'],
    );
  });

  test('turning the notice off hides the finding, never what was left unanalysed', () => {
    const result = lintText(text, { ...DEFAULT_CONFIG, rules: { 'analysis-budget': 'off' } });
    assert.deepEqual(
      result.findings.map((finding) => finding.ruleId),
      ['gpu-no-memory-limit'],
    );
    assert.deepEqual(
      result.unanalysed.map((finding) => finding.ruleId),
      ['analysis-budget'],
    );
  });
});

describe('the size limit is the only cap', () => {
  test('it is the CLI default of 16 MiB, and a file under it is parsed whole (no per-file cap at 8 MiB)', () => {
    assert.equal(DEFAULT_MAX_FILE_CHARS, 16 * 1024 * 1024);
    const text = `${gpuPod('first')}---\n${'# padding\n'.repeat(900_000)}---\n${gpuPod('last')}`;
    assert.ok(text.length > 8.5 * 1024 * 1024);
    const result = lintText(text);
    assert.deepEqual(
      result.findings.map((finding) => [finding.ruleId, finding.object?.name]),
      [
        ['gpu-no-memory-limit', 'first'],
        ['gpu-no-memory-limit', 'last'],
      ],
    );
  });
});

describe('the CLI: what it reads, and its exit status when it could not read everything', () => {
  let work = '';
  const at = (...parts: string[]) => join(work, ...parts);
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-complete-'));
    const files: Record<string, string> = {
      // `kubectl get pod -o json` shape.
      'json-only/pod.json': JSON.stringify(
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'json-pod' },
          spec: { containers: [{ name: 'cuda', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
        },
        null,
        4,
      ),
      // Not Kubernetes: a tsconfig with comments (not YAML) and Helm values with a duplicate key.
      'mixed/tsconfig.json': '{\n  // comments are not YAML\n  "compilerOptions": {"strict": true}\n}\n',
      'mixed/values.yaml': 'image:\n  tag: "1.2"\nimage:\n  tag: "1.3"\n',
      'mixed/pod.yaml': gpuPod('clean', '8Gi'),
      'empty/README.md': '# no manifests here\n',
      'big/pods.yaml': `${gpuPod('first', '8Gi')}---\n${gpuPod('second', '8Gi')}`,
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(at(path)), { recursive: true });
      writeFileSync(at(path), text);
    }
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('a directory of only pod.json is linted, as kubectl apply -f reads it', async () => {
    const run = await runCli(['lint', at('json-only')], { timeoutMs: 60_000 });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /pod\.json:\d+:\d+: warning \[gpu-no-memory-limit\] GPU container "cuda"/);
    assert.match(run.stdout, /in 1 of 1 file/);
  });

  test('files that are not Kubernetes get no YAML findings', async () => {
    const run = await runCli(['lint', at('mixed')], { timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /in 3 files/);
  });

  test('a path with no manifest says so and exits 2', async () => {
    const run = await runCli(['lint', at('empty')], { timeoutMs: 60_000 });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /empty: no manifest here \(no \*\.yaml, \*\.yml or \*\.json file in it or below it\)/);
  });

  test('a file over the size limit exits 3 and is named on standard error', async () => {
    const run = await runCli(['lint', at('big', 'pods.yaml'), '--max-file-size', '0.0001'], { timeoutMs: 60_000 });
    assert.equal(run.code, 3);
    assert.match(
      run.stderr,
      /^gpumem lint: not analysed: .*pods\.yaml:1: Skipped: stopped at 104 bytes: manifests are read up to --max-file-size 104 bytes\.$/m,
    );
  });
});
