// The bad-input corpus: nothing a file can contain may throw or hang the linter. Each case either
// gets a clear diagnostic (yaml-syntax, manifest-shape, manifest-skipped …) or is skipped silently
// because it is not a Kubernetes workload at all. Cases that could hang run in a worker thread under
// a generous watchdog, so a hang fails the test instead of stalling the run; nothing asserts timings.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_CONFIG } from '../../src/core/config.ts';
import type { Finding } from '../../src/core/findings.ts';
import { lintBytes, lintText } from '../../src/core/lint.ts';
import type { LintResult } from '../../src/core/lint.ts';
import { ruleMeta } from '../../src/core/rules/catalog.ts';
import { runCli } from '../helpers/cli.ts';
import { mulberry32 } from '../helpers/random.ts';

const MIB = 1024 * 1024;
/** The CLI's default --max-file-size (16 MiB). */
const DEFAULT_MAX_BYTES = 16 * MIB;
const SEVERITIES = new Set(['error', 'warning', 'info']);
const DEMO_DIR = fileURLToPath(new URL('../../demo/workspace/', import.meta.url));
const DEMOS = readdirSync(DEMO_DIR)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort()
  .map((name) => ({ name, text: readFileSync(join(DEMO_DIR, name), 'utf8') }));

// ------------------------------------------------------------------------------------------------
// Helpers

/** What must hold for every finding on any input: a known rule, a severity, a message, a span inside the text. */
function assertWellFormed(text: string, result: LintResult, label = ''): void {
  for (const finding of result.findings) {
    const where = `${label} ${finding.ruleId} ${JSON.stringify(finding.span)}`;
    assert.ok(ruleMeta(finding.ruleId), `${where}: unknown rule id`);
    assert.ok(SEVERITIES.has(finding.severity), `${where}: severity ${finding.severity}`);
    assert.equal(typeof finding.message, 'string');
    assert.ok(finding.message.length > 0, `${where}: empty message`);
    assert.ok(Number.isInteger(finding.span.start) && Number.isInteger(finding.span.end), `${where}: span offsets must be integers`);
    assert.ok(
      finding.span.start >= 0 && finding.span.start <= finding.span.end && finding.span.end <= text.length,
      `${where}: span outside the text (length ${text.length})`,
    );
    for (const fix of finding.fixes) {
      for (const edit of fix.edits)
        assert.ok(
          edit.start >= 0 && edit.start <= edit.end && edit.end <= text.length,
          `${where}: fix "${fix.title}" edits outside the text`,
        );
    }
  }
}

function lint(text: string): LintResult {
  const result = lintText(text);
  assertWellFormed(text, result);
  return result;
}

function ids(result: { findings: readonly { ruleId: string }[] }): string[] {
  return result.findings.map((finding) => finding.ruleId);
}

function only(result: LintResult, ruleId: string): Finding {
  const found = result.findings.filter((finding) => finding.ruleId === ruleId);
  assert.equal(found.length, 1, `expected one ${ruleId}, got ${JSON.stringify(ids(result))}`);
  return found[0]!;
}

/** A Pod with one NVIDIA GPU container and no memory limit: gpu-no-memory-limit fires on its name. */
function gpuPod(podName: string, containerName: string, extra = '', image = 'nvcr.io/nvidia/cuda:12.6.0-base-ubuntu24.04'): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${podName}
spec:
  containers:
    - name: ${containerName}
      image: ${image}
      resources:
        limits:
          nvidia.com/gpu: 1
${extra}`;
}

interface WorkerFinding {
  readonly ruleId: string;
  readonly severity: string;
  readonly message: string;
  readonly span: { start: number; end: number };
  readonly container?: string;
}

// The worker imports the real lint module by URL (Node strips the types), lints, and posts the findings back.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
Promise.all([import(workerData.lintUrl), import(workerData.configUrl)]).then(([lint, config]) => {
  const result = workerData.bytes
    ? lint.lintBytes(workerData.bytes, config.DEFAULT_CONFIG, workerData.maxBytes)
    : lint.lintText(workerData.text);
  parentPort.postMessage({
    findings: result.findings.map((f) => ({ ruleId: f.ruleId, severity: f.severity, message: f.message.slice(0, 2000), span: f.span, container: f.container })),
    containers: result.containers.length,
  });
}).catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }));
`;

/** Lints in a worker thread; rejects if linting throws, and fails (terminating the worker) if it does not finish in time. */
function lintGuarded(
  input: string | Uint8Array,
  maxBytes = DEFAULT_MAX_BYTES,
  watchdogMs = 120_000,
): Promise<{ findings: WorkerFinding[]; containers: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        lintUrl: new URL('../../src/core/lint.ts', import.meta.url).href,
        configUrl: new URL('../../src/core/config.ts', import.meta.url).href,
        ...(typeof input === 'string' ? { text: input } : { bytes: input, maxBytes }),
      },
    });
    const watchdog = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`linting did not finish within ${watchdogMs / 1000} s: it hangs`));
    }, watchdogMs);
    worker.once('message', (message: { error?: string; findings: WorkerFinding[]; containers: number }) => {
      clearTimeout(watchdog);
      void worker.terminate();
      if (message.error) reject(new Error(`linting threw: ${message.error}`));
      else resolve(message);
    });
    worker.once('error', (error) => {
      clearTimeout(watchdog);
      reject(error);
    });
  });
}

// ------------------------------------------------------------------------------------------------

describe('invalid YAML: yaml-syntax on the broken document only, the others still analysed', () => {
  const cases: Array<{ label: string; broken: string; message: RegExp }> = [
    {
      label: 'an unclosed flow mapping',
      broken: 'apiVersion: v1\nkind: Pod\nmetadata: {name: broken\n',
      message: /Flow map|end with a \}/,
    },
    {
      label: 'an unclosed flow sequence',
      broken: 'apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: x}\n',
      message: /Flow sequence|end with a \]/,
    },
    {
      label: 'bad indentation',
      broken: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\n   namespace: ml\n',
      message: /indent|Nested mappings/i,
    },
    { label: 'tab indentation', broken: 'apiVersion: v1\nkind: Pod\nmetadata:\n\tname: broken\n', message: /Tabs are not allowed/ },
    {
      label: 'duplicate keys',
      broken: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\n  name: again\n',
      message: /Map keys must be unique/,
    },
  ];
  for (const { label, broken, message } of cases) {
    test(label, () => {
      const first = gpuPod('first', 'before');
      const text = `${first}---\n${broken}---\n${gpuPod('third', 'after')}`;
      const result = lint(text);
      const syntax = only(result, 'yaml-syntax');
      assert.equal(syntax.severity, 'warning');
      assert.match(syntax.message, /^This YAML document was not analysed: /);
      assert.match(syntax.message, message);
      // On the broken (second) document, not on its neighbours.
      const brokenStart = first.length + '---\n'.length;
      const brokenEnd = brokenStart + broken.length;
      assert.ok(
        syntax.span.start >= brokenStart && syntax.span.start <= brokenEnd,
        `span ${JSON.stringify(syntax.span)} should lie in the broken document [${brokenStart}, ${brokenEnd}]`,
      );
      // Both neighbours are still analysed.
      assert.deepEqual(
        result.findings.filter((f) => f.ruleId === 'gpu-no-memory-limit').map((f) => f.container),
        ['before', 'after'],
      );
    });
  }

  test('an alias to an undefined anchor does not throw, and the other documents are still analysed', () => {
    // The yaml package reports an unresolved alias only when converting to JS; gpumem reads it as absent.
    const text = `${gpuPod('first', 'before')}---\napiVersion: v1\nkind: Pod\nmetadata: *nowhere\nspec: {containers: *missing}\n---\n${gpuPod('third', 'after')}`;
    assert.deepEqual(
      lint(text).findings.map((f) => f.container),
      ['before', 'after'],
    );
  });

  test('an unterminated quoted string swallows the rest of the file, but not the documents before it', () => {
    const first = gpuPod('first', 'before');
    const text = `${first}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: "broken\n---\n${gpuPod('third', 'after')}`;
    const result = lint(text);
    assert.match(only(result, 'yaml-syntax').message, /^This YAML document was not analysed: .*(quote|Missing closing)/i);
    assert.ok(only(result, 'yaml-syntax').span.start > first.length);
    assert.deepEqual(
      result.findings.filter((f) => f.ruleId === 'gpu-no-memory-limit').map((f) => f.container),
      ['before'],
    );
  });

  test('an error at the very end of the input keeps its span inside the text', () => {
    const k8s = 'apiVersion: v1\nkind: Pod\n';
    for (const text of [`${k8s}metadata: {name: [\n`, `${k8s}a: "unterminated`, `${k8s}a: [`, '{"apiVersion": "v1", "kind": "Pod", {']) {
      const syntax = only(lint(text), 'yaml-syntax');
      assert.ok(syntax.span.end <= text.length && syntax.span.start < syntax.span.end, JSON.stringify(syntax.span));
    }
  });

  test('a file that is nothing but broken YAML gives one yaml-syntax finding', () => {
    const result = lint('apiVersion: v1\nkind: Pod\nmetadata: {name: [\n');
    assert.deepEqual(ids(result), ['yaml-syntax']);
  });
});

describe('wrong types: manifest-shape or a graceful skip, never an exception', () => {
  const container = (fields: string) =>
    gpuPod('p', 'c').replace('      resources:\n        limits:\n          nvidia.com/gpu: 1\n', fields);
  const shapeCases: Array<{ label: string; text: string; message: RegExp; under: RegExp; gpuStillChecked?: boolean }> = [
    {
      label: 'env as a map',
      text: gpuPod('p', 'c', '      env: {CUDA_DISABLE_CONTROL: "true"}\n'),
      message: /spec\.containers\[0\]\.env should be a list, found a mapping/i,
      under: /^\{CUDA_DISABLE_CONTROL/,
      gpuStillChecked: true,
    },
    {
      label: 'resources as a string',
      text: container('      resources: "lots"\n'),
      message: /spec\.containers\[0\]\.resources should be a mapping, found the string "lots"/i,
      under: /^"lots"/,
    },
    {
      label: 'resources as a list',
      text: container('      resources: [limits, requests]\n'),
      message: /spec\.containers\[0\]\.resources should be a mapping, found a list/i,
      under: /^\[limits/,
    },
    {
      label: 'limits as a list',
      text: container('      resources:\n        limits: [nvidia.com/gpu, memory]\n'),
      message: /spec\.containers\[0\]\.resources\.limits should be a mapping, found a list/i,
      under: /^\[nvidia\.com\/gpu/,
    },
    {
      label: 'containers as a map',
      text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    c: {image: x, resources: {limits: {nvidia.com/gpu: 1}}}\n',
      message: /spec\.containers should be a list, found a mapping/i,
      under: /^c: \{image/,
    },
    {
      label: 'a container as a string',
      text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - "cuda"\n',
      message: /spec\.containers\[0\] should be a mapping, found the string "cuda"/i,
      under: /^"cuda"/,
    },
    {
      label: 'spec as a list',
      text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: [containers]\n',
      message: /spec should be a mapping, found a list/i,
      under: /^\[containers\]/,
    },
    {
      label: 'pod-template metadata as a number',
      text: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    metadata: 3\n    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}\n',
      message: /metadata should be a mapping, found the number 3/i,
      under: /^3/,
      gpuStillChecked: true,
    },
    {
      label: 'volumeMounts as a string',
      text: gpuPod('p', 'c', '      volumeMounts: /dev/shm\n'),
      message: /volumeMounts should be a list, found the string "\/dev\/shm"/i,
      under: /^\/dev\/shm/,
      gpuStillChecked: true,
    },
    {
      label: 'command as a string',
      text: gpuPod('p', 'c', '      command: dockerd\n'),
      message: /command should be a list, found the string "dockerd"/i,
      under: /^dockerd/,
      gpuStillChecked: true,
    },
    {
      label: 'tolerations as a map',
      text: gpuPod('p', 'c').replace('spec:\n', 'spec:\n  tolerations: {key: gpu}\n'),
      message: /spec\.tolerations should be a list, found a mapping/i,
      under: /^\{key: gpu\}/,
      gpuStillChecked: true,
    },
  ];
  for (const { label, text, message, under, gpuStillChecked } of shapeCases) {
    test(label, () => {
      const result = lint(text);
      const shape = only(result, 'manifest-shape');
      assert.equal(shape.severity, 'warning');
      assert.match(shape.message, message);
      assert.match(shape.message, /skipped what it holds/);
      assert.match(text.slice(shape.span.start), under, 'the span starts on the offending value');
      if (gpuStillChecked)
        assert.ok(ids(result).includes('gpu-no-memory-limit'), `the rest of the pod is still analysed: ${JSON.stringify(ids(result))}`);
    });
  }

  test('numbers where strings belong: a container name and an image as numbers are read as text', () => {
    const text = container('      resources:\n        limits:\n          nvidia.com/gpu: 1\n')
      .replace('name: c', 'name: 42')
      .replace('image: nvcr.io/nvidia/cuda:12.6.0-base-ubuntu24.04', 'image: 7');
    const result = lint(text);
    const finding = only(result, 'gpu-no-memory-limit');
    assert.equal(finding.container, '42');
    assert.match(finding.message, /"42"/);
    assert.equal(text.slice(finding.span.start, finding.span.end), '42');
  });

  test('a pod name, namespace and kind of the wrong type do not throw', () => {
    lint(
      'apiVersion: v1\nkind: Pod\nmetadata: {name: [a], namespace: {b: 1}}\nspec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}\n',
    );
    assert.deepEqual(
      ids(lint('apiVersion: [v1]\nkind: {Pod: 1}\nspec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}\n')),
      [],
    );
    assert.deepEqual(ids(lint('apiVersion: v1\nkind: 5\n')), []);
  });

  test('quantities of the wrong type are invalid-quantity findings on the value', () => {
    const text = container('      resources:\n        limits:\n          nvidia.com/gpu: {count: 1}\n          memory: [8Gi]\n');
    const result = lint(text);
    const invalid = result.findings.filter((f) => f.ruleId === 'invalid-quantity');
    assert.deepEqual(
      invalid.map((f) => text.slice(f.span.start, f.span.end)),
      ['{count: 1}', '[8Gi]'],
    );
    assert.match(invalid[0]!.message, /not a valid quantity: the value is a mapping/);
    assert.match(invalid[1]!.message, /not a valid quantity: the value is a list/);
  });

  test('wrong types in pod-level fields and nested kinds do not throw', () => {
    const texts = [
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: [1]}\n',
      'apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec: {jobTemplate: "x"}\n',
      'apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r}\nspec: {workerGroupSpecs: {a: 1}, headGroupSpec: [1]}\n',
      'apiVersion: v1\nkind: List\nitems: {a: 1}\n',
      'apiVersion: v1\nkind: List\nitems: [1, "two", [3], {kind: Pod, spec: 4}]\n',
      gpuPod('p', 'c').replace(
        'spec:\n',
        'spec:\n  nodeSelector: [amd]\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: {a: 1}}}}\n',
      ),
      gpuPod(
        'p',
        'c',
        '      env: ["A=b", {name: CUDA_DISABLE_CONTROL, value: {a: 1}}, {name: 5, value: 1}]\n      envFrom: [{configMapRef: "cm"}, 7]\n      securityContext: {privileged: [true]}\n',
      ),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: [1]\n---\n' +
        gpuPod('p', 'c', '      envFrom: [{configMapRef: {name: cm}}]\n'),
      'apiVersion: v1\nkind: Pod\nmetadata: !!set {a, b}\nspec: {containers: !!omap [{a: 1}]}\n',
      'apiVersion: v1\nkind: !Ref Pod\nmetadata: {name: !Sub x}\nspec: {containers: [{name: !GetAtt c, resources: {limits: {nvidia.com/gpu: !Ref 1}}}]}\n',
      gpuPod('p', '!!binary aGVsbG8='),
      '? [complex, key]\n: 1\n' + gpuPod('p', 'c', '      ? {a: 1}\n      : 2\n'),
    ];
    for (const text of texts) lint(text);
  });
});

describe('unknown kinds and non-Kubernetes YAML give no findings', () => {
  const cases: Array<[string, string]> = [
    [
      'a custom resource with GPU containers',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n',
    ],
    [
      'a "Pod" of another API group',
      'apiVersion: example.com/v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n',
    ],
    [
      'a GitHub workflow',
      'name: CI\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    container: {image: nvidia/cuda:12.6.0-base-ubuntu24.04}\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm test\n        env: {CUDA_DISABLE_CONTROL: "true"}\n',
    ],
    [
      'a docker-compose file with a GPU',
      'services:\n  trainer:\n    image: pytorch/pytorch\n    deploy:\n      resources:\n        reservations:\n          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]\n',
    ],
    [
      'Helm values with GPU resources',
      'resources:\n  limits:\n    nvidia.com/gpu: 1\ncontainers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: 1}}\n',
    ],
    [
      'a Service and a Secret',
      'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: YQ==}\n',
    ],
    ['an OpenAPI document', 'openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths: {}\n'],
    ['a scalar document', 'just a string\n'],
    ['a top-level list', '- 1\n- two\n- {kind: Pod}\n'],
    ['an empty file', ''],
    ['only comments and document markers', '# nothing\n---\n# still nothing\n...\n---\n'],
  ];
  for (const [label, text] of cases) {
    test(label, () => assert.deepEqual(ids(lint(text)), []));
  }
});

describe('size: a 50 MB file is skipped, not parsed', () => {
  // Real manifests repeated, so parsing it would take a long time if the limit were not applied first.
  const manifest = DEMOS.map((demo) => demo.text).join('---\n');
  const copies = Math.ceil((50 * 1000 * 1000) / (manifest.length + 4));
  const fiftyMB = Buffer.from(`${manifest}---\n`.repeat(copies));

  test('lintBytes with the default limit returns a manifest-skipped finding', async () => {
    assert.ok(fiftyMB.length >= 50_000_000);
    const { findings } = await lintGuarded(fiftyMB, DEFAULT_MAX_BYTES);
    assert.deepEqual(
      findings.map((f) => f.ruleId),
      ['manifest-skipped'],
    );
    assert.equal(findings[0]!.severity, 'info');
    assert.match(findings[0]!.message, /^Skipped: file is 4\d\.\d MiB, above the 16\.0 MiB limit for analysis\.$/);
  });

  test('the CLI reports the skip on stdin and exits 3: the input was not analysed', async () => {
    const { code, stdout, stderr } = await runCli(['lint', '-', '--format', 'json'], { input: fiftyMB, timeoutMs: 120_000 });
    assert.equal(code, 3);
    assert.match(stderr, /^gpumem lint: not analysed: <stdin>:1: Skipped: stopped at 16 MiB/);
    const findings = JSON.parse(stdout) as Array<{ file: string; ruleId: string; message: string }>;
    assert.deepEqual(
      findings.map((f) => [f.file, f.ruleId]),
      [['<stdin>', 'manifest-skipped']],
    );
    assert.equal(findings[0]!.message, 'Skipped: stopped at 16 MiB: manifests are read up to --max-file-size 16 MiB.');
  });

  test('--max-file-size lowers the limit', async () => {
    const text = DEMOS.map((demo) => demo.text).join('---\n');
    assert.ok(text.length > 1024);
    const { code, stdout } = await runCli(['lint', '-', '--max-file-size', String(1 / 1024)], { input: text, timeoutMs: 120_000 });
    assert.equal(code, 3);
    assert.match(
      stdout,
      /^<stdin>:1:1: info \[manifest-skipped\] Skipped: stopped at 1\.0 KiB: manifests are read up to --max-file-size 1\.0 KiB\.\n/,
    );
  });
});

describe('YAML alias bombs complete in bounded time, analysed or skipped', () => {
  /** The classic: level n is a list of `width` aliases to level n-1, so the expansion is width^depth. */
  const laughs = (depth: number, width: number, indent = '') => {
    let out = `${indent}l0: &l0 "lol"\n`;
    for (let i = 1; i <= depth; i++)
      out += `${indent}l${i}: &l${i} [${Array(width)
        .fill(`*l${i - 1}`)
        .join(', ')}]\n`;
    return out;
  };
  /** Merge-key fan-out: every level merges `width` copies of the one before. */
  const merges = (depth: number, width: number, indent = '') => {
    let out = `${indent}m0: &m0 {image: lol}\n`;
    for (let i = 1; i <= depth; i++)
      out += `${indent}m${i}: &m${i}\n${indent}  <<: [${Array(width)
        .fill(`*m${i - 1}`)
        .join(', ')}]\n${indent}  k${i}: v\n`;
    return out;
  };
  const allowed = (findings: WorkerFinding[], extra: string[] = []) => {
    for (const finding of findings)
      assert.ok(
        ['manifest-skipped', 'manifest-shape', ...extra].includes(finding.ruleId),
        `unexpected ${finding.ruleId}: ${finding.message}`,
      );
    for (const finding of findings.filter((f) => f.ruleId === 'manifest-skipped'))
      assert.match(finding.message, /alias|merge keys|out of all proportion/);
  };

  test('billion laughs in a plain document', async () => {
    allowed((await lintGuarded(laughs(12, 10))).findings);
  });

  test("billion laughs as a pod's containers", async () => {
    const text = `apiVersion: v1\nkind: Pod\nmetadata: {name: lol}\nx:\n${laughs(12, 10, '  ')}spec:\n  containers: *l12\n  initContainers: [*l12, *l11]\n`;
    allowed((await lintGuarded(text)).findings);
  });

  test('billion laughs in a ConfigMap imported with envFrom', async () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\nx:\n${laughs(12, 10, '  ')}data: {CUDA_DISABLE_CONTROL: *l12, a: *l12}\n---\n${gpuPod('p', 'c', '      envFrom: [{configMapRef: {name: cm}}]\n      env: *l12\n')}`;
    allowed((await lintGuarded(text)).findings, ['gpu-no-memory-limit']);
  });

  test('merge-key fan-out in a plain document and at the root of a Pod', async () => {
    allowed((await lintGuarded(merges(30, 10))).findings);
    allowed((await lintGuarded(`${merges(30, 10)}<<: *m30\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n`)).findings);
  });

  test('merge-key fan-out inside spec.template.spec.containers is skipped with a notice', async () => {
    const text = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bomb}\nx:\n${merges(30, 10, '  ')}spec:\n  template:\n    spec:\n      containers:\n        - <<: *m30\n          name: c\n          resources: {limits: {nvidia.com/gpu: 1}}\n        - <<: [*m30, *m29]\n          name: c2\n`;
    const { findings } = await lintGuarded(text);
    allowed(findings);
    const skipped = findings.filter((f) => f.ruleId === 'manifest-skipped');
    assert.equal(skipped.length, 1, JSON.stringify(findings));
    assert.match(skipped[0]!.message, /^Skipped Deployment "bomb": its aliases and merge keys expand beyond the analysis budget/);
    assert.equal(
      text.slice(skipped[0]!.span.start, skipped[0]!.span.start + 'apiVersion'.length),
      'apiVersion',
      'the notice sits at the start of the object',
    );
  });

  test('merge-key fan-out in annotations, limits, env and a List', async () => {
    const bomb = merges(30, 10, '  ');
    const texts = [
      `x:\n${bomb}apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {<<: *m30}}\nspec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}\n`,
      `x:\n${bomb}apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {limits: {<<: *m30, nvidia.com/gpu: 1}}}]}\n`,
      `x:\n${bomb}apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, env: [*m30, *m30], resources: {limits: {nvidia.com/gpu: 1}}}]}\n`,
      `x:\n${bomb}apiVersion: v1\nkind: List\nitems: [*m30, *m30, {kind: Pod, metadata: {<<: *m30}}]\n`,
    ];
    for (const text of texts) allowed((await lintGuarded(text)).findings, ['gpu-no-memory-limit']);
  });

  test('200,000 aliases of one GPU container', async () => {
    const text = `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nx: &c {name: c, resources: {limits: {nvidia.com/gpu: 1}}}\nspec:\n  containers: [${Array(200_000).fill('*c').join(', ')}]\n`;
    const { findings } = await lintGuarded(text);
    allowed(findings, ['gpu-no-memory-limit']);
  });

  test('thousands of aliases of a container with a 100 KB name', async () => {
    const text = `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nx: &c {name: "${'n'.repeat(100_000)}", resources: {limits: {nvidia.com/gpu: 1}}}\nspec:\n  containers: [${Array(20_000).fill('*c').join(', ')}]\n`;
    allowed((await lintGuarded(text)).findings, ['gpu-no-memory-limit']);
  });

  test('a long pod-level value repeated in the findings of thousands of containers', async () => {
    const selector = `Radeon 8060S ${'x'.repeat(100_000)}`;
    const containers = Array.from({ length: 10_000 }, (_, i) => `    - {name: c${i}, resources: {limits: {amd.com/gpu: 1}}}\n`).join('');
    const text = `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {amd.com/gpu.product-name: "${selector}"}\n  containers:\n${containers}`;
    allowed((await lintGuarded(text)).findings, ['gpu-no-memory-limit', 'uma-gpu-memory-undeclared', 'uma-not-guaranteed']);
  });
});

describe('binary and non-UTF-8 bytes', () => {
  const demo = DEMOS.find((d) => d.name === 'hami-dind-trainer.yaml') ?? DEMOS[0]!;
  const reference = lintText(demo.text);
  const summary = (result: LintResult) => result.findings.map((f) => [f.ruleId, f.span.start, f.span.end, f.container]);

  test('the reference demo has findings to compare against', () => {
    assert.ok(reference.findings.length > 0);
  });

  test('a binary file (NUL bytes) is skipped', () => {
    const bytes = Buffer.concat([
      Buffer.from('apiVersion: v1\nkind: Pod\n'),
      Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0]),
      Buffer.from(demo.text),
    ]);
    const result = lintBytes(bytes, DEFAULT_CONFIG, DEFAULT_MAX_BYTES);
    assert.deepEqual(ids(result), ['manifest-skipped']);
    assert.equal(result.findings[0]!.message, 'Skipped: binary file (contains NUL bytes).');
  });

  test('random binary data (a PNG-like header and noise) is skipped', () => {
    const bytes = Buffer.alloc(4096);
    let seed = 7;
    for (let i = 0; i < bytes.length; i++) bytes[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]).copy(bytes);
    assert.deepEqual(ids(lintBytes(bytes, DEFAULT_CONFIG, DEFAULT_MAX_BYTES)), ['manifest-skipped']);
  });

  test('Latin-1 bytes are not UTF-8: skipped with a reason', () => {
    const bytes = Buffer.from(gpuPod('caf\u00e9', 'cr\u00e8me'), 'latin1');
    const result = lintBytes(bytes, DEFAULT_CONFIG, DEFAULT_MAX_BYTES);
    assert.deepEqual(ids(result), ['manifest-skipped']);
    assert.equal(result.findings[0]!.message, 'Skipped: not UTF-8 text.');
  });

  test('UTF-16 LE with a byte-order mark decodes and lints like UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(demo.text, 'utf16le')]);
    assert.deepEqual(summary(lintBytes(bytes, DEFAULT_CONFIG, DEFAULT_MAX_BYTES)), summary(reference));
  });

  test('UTF-16 BE with a byte-order mark decodes and lints like UTF-8', () => {
    const bytes = Buffer.from(demo.text, 'utf16le').swap16();
    assert.deepEqual(
      summary(lintBytes(Buffer.concat([Buffer.from([0xfe, 0xff]), bytes]), DEFAULT_CONFIG, DEFAULT_MAX_BYTES)),
      summary(reference),
    );
  });

  test('UTF-16 with non-ASCII names keeps them intact', () => {
    const text = gpuPod('p', '"gr\u00fc\u00dfe-\u{1F680}"');
    const result = lintBytes(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), DEFAULT_CONFIG, DEFAULT_MAX_BYTES);
    assert.equal(only(result, 'gpu-no-memory-limit').container, 'gr\u00fc\u00dfe-\u{1F680}');
  });

  test('a UTF-8 byte-order mark is stripped, with the same findings and offsets', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(demo.text)]);
    assert.deepEqual(summary(lintBytes(bytes, DEFAULT_CONFIG, DEFAULT_MAX_BYTES)), summary(reference));
  });

  test('broken UTF-16 (odd length, lone surrogate) is skipped with a reason', () => {
    for (const bytes of [
      Buffer.from([0xff, 0xfe, 0x61]),
      Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x61, 0x00]),
      Buffer.from([0xfe, 0xff, 0xdc, 0x00]),
    ]) {
      const result = lintBytes(bytes, DEFAULT_CONFIG, DEFAULT_MAX_BYTES);
      assert.deepEqual(ids(result), ['manifest-skipped']);
      assert.match(result.findings[0]!.message, /UTF-16 byte-order mark but is not valid UTF-16/);
    }
  });

  test('UTF-16 without a byte-order mark holds NUL bytes and is skipped as binary', () => {
    const result = lintBytes(Buffer.from(demo.text, 'utf16le'), DEFAULT_CONFIG, DEFAULT_MAX_BYTES);
    assert.deepEqual(ids(result), ['manifest-skipped']);
  });

  test('empty input and a lone byte-order mark give no findings', () => {
    for (const bytes of [
      new Uint8Array(0),
      Uint8Array.from([0xef, 0xbb, 0xbf]),
      Uint8Array.from([0xff, 0xfe]),
      Uint8Array.from([0xfe, 0xff]),
    ]) {
      assert.deepEqual(ids(lintBytes(bytes, DEFAULT_CONFIG, DEFAULT_MAX_BYTES)), []);
    }
  });

  test('the CLI skips binary and Latin-1 input with exit 3 (not analysed)', async () => {
    for (const [bytes, reason] of [
      [Buffer.from([0x61, 0, 0x62]), 'binary file'],
      [Buffer.from('name: caf\u00e9\n', 'latin1'), 'not UTF-8'],
    ] as const) {
      const { code, stdout } = await runCli(['lint', '-'], { input: bytes, timeoutMs: 120_000 });
      assert.equal(code, 3);
      assert.match(stdout, new RegExp(`^<stdin>:1:1: info \\[manifest-skipped\\] Skipped: ${reason}`));
    }
  });
});

describe('hostile names and values', () => {
  const names: Array<[string, string]> = [
    ['quotes', 'a"b\'c`d'],
    ['a newline', 'line1\nline2: injected\n---\nkind: Pod'],
    ['an HTML payload', '<img src=x onerror=alert(1)>'],
    ['a closing script tag', '</script><script>alert(document.cookie)</script>'],
    ['ANSI escape sequences', '\u001b[31mred\u001b[0m\u001b]0;title\u0007\u001b[2J\r'],
    ['C1 controls and a NUL', '\u009b2J\u0085\u0000end'],
    ['bidi overrides and line separators', '\u202egpj.exe\u2066x\u2069\u2028y\u2029'],
    ['markdown', '[click](javascript:alert(1)) **bold** `code`'],
    ['a 1 MB name', 'n'.repeat(MIB)],
  ];

  for (const [label, name] of names) {
    test(`a container name with ${label}`, () => {
      const text = gpuPod('p', JSON.stringify(name));
      const finding = only(lint(text), 'gpu-no-memory-limit');
      assert.equal(finding.container, name, 'the name round-trips exactly');
    });
  }

  test('hostile values in names, images, paths and annotations: findings round-trip through JSON exactly', async () => {
    const [, ansi] = names[4]!;
    const [, newline] = names[1]!;
    const text = `apiVersion: v1
kind: Pod
metadata:
  name: ${JSON.stringify(`pod${ansi}`)}
  namespace: ${JSON.stringify(`ns${newline}`)}
  annotations:
    gpumem.io/gpu-memory: ${JSON.stringify(`${ansi}lots`)}
spec:
  containers:
    - name: ${JSON.stringify(ansi)}
      image: ${JSON.stringify(`docker:27-dind${ansi}`)}
      resources:
        limits: {nvidia.com/gpu: 1}
      volumeMounts: [{name: sock, mountPath: /s}]
  volumes:
    - name: sock
      hostPath: {path: ${JSON.stringify(`/run/${newline}/docker.sock`)}}
`;
    const { code, stdout } = await runCli(['lint', '-', '--format', 'json'], { input: text, timeoutMs: 120_000 });
    assert.equal(code, 1);
    const findings = JSON.parse(stdout) as Array<{ name: string; namespace: string; container: string | null; message: string }>;
    assert.ok(findings.length >= 2, stdout);
    for (const finding of findings) {
      assert.equal(finding.name, `pod${ansi}`);
      assert.equal(finding.namespace, `ns${newline}`);
    }
    assert.ok(findings.some((f) => f.container === ansi));
    assert.ok(
      findings.some((f) => f.message.includes(`docker:27-dind${ansi}`)),
      'JSON keeps the raw value, escaped by JSON itself',
    );
  });

  test("the CLI's text output holds no raw control characters, and every line is a finding or the summary", async () => {
    const docs = names
      .filter(([label]) => label !== 'a 1 MB name')
      .map(([, name], i) => gpuPod(`pod${i}`, JSON.stringify(name), '', JSON.stringify(`docker:dind${name}`)));
    docs.push(
      `apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  volumes: [{name: s, hostPath: {path: ${JSON.stringify(`/x\u001b[2J\n/docker.sock`)}}}]\n  containers:\n    - {name: g, resources: {limits: {nvidia.com/gpu: 1, memory: 1Gi}}}\n    - {name: d, volumeMounts: [{name: s, mountPath: /s}]}\n`,
    );
    const { code, stdout } = await runCli(['lint', '-'], { input: docs.join('---\n'), timeoutMs: 120_000 });
    assert.equal(code, 1);
    assert.doesNotMatch(
      stdout,
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/,
      'no control characters but the line feeds',
    );
    const lines = stdout.trimEnd().split('\n');
    const findingLines = lines.slice(0, -1);
    for (const line of findingLines) assert.match(line, /^<stdin>:\d+:\d+: (error|warning|info) \[[a-z0-9-]+\] \S/);
    assert.match(lines.at(-1)!, /^\d+ findings \(\d+ errors?, \d+ warnings?, \d+ info\) in 1 of 1 file\.$/);
    assert.ok(
      findingLines.filter((line) => line.includes('[gpu-docker-in-docker]')).length >= names.length - 1,
      'one Docker-in-Docker finding per hostile image',
    );
  });

  test('hostile file names are escaped in the text output', { skip: process.platform === 'win32' }, async () => {
    const directory = mkdtempSync(join(tmpdir(), 'gpumem-hostile-'));
    try {
      writeFileSync(join(directory, 'a\u001b[31mred\nfake.yaml:1:1: error [forged] x\u0007.yaml'), gpuPod('p', 'c'));
      const { code, stdout } = await runCli(['lint', directory], { timeoutMs: 60_000 });
      assert.equal(code, 1);
      assert.doesNotMatch(stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      const lines = stdout.trimEnd().split('\n');
      assert.equal(lines.length, 2, 'one finding and the summary: the newline in the name forged no line');
      assert.ok(
        lines[0]!.includes('a\\x1b[31mred\\x0afake.yaml:1:1: error [forged] x\\x07.yaml:7:13: warning [gpu-no-memory-limit]'),
        lines[0],
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('a 1 MB container name through the CLI', async () => {
    const name = 'n'.repeat(MIB);
    const { code, stdout } = await runCli(['lint', '-', '--format', 'json'], { input: gpuPod('p', name), timeoutMs: 120_000 });
    assert.equal(code, 1);
    const findings = JSON.parse(stdout) as Array<{ container: string; line: number; column: number; endColumn: number }>;
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.container, name);
    assert.deepEqual([findings[0]!.line, findings[0]!.column, findings[0]!.endColumn], [7, 13, 13 + MIB]);
  });

  // The yaml package's own duplicate-key and !!omap checks compare every key with every earlier one:
  // at this size that is hours of work, so these would trip the watchdog if gpumem relied on them again.
  test('mappings with 100,000 keys (a ConfigMap, an !!omap) and 100,000 duplicate keys', async () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `k${i}: v`);
    const data = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n${keys.map((key) => `  ${key}`).join('\n')}\n---\n${gpuPod('p', 'c')}`;
    assert.deepEqual(ids(await lintGuarded(data)), ['gpu-no-memory-limit']);
    assert.deepEqual(ids(await lintGuarded(`!!omap [${keys.map((key) => `{${key}}`).join(', ')}]`)), []);
    const duplicates = await lintGuarded(
      `apiVersion: v1\nkind: ConfigMap\n${Array(100_000).fill('k: v').join('\n')}\n---\n${gpuPod('p', 'c')}`,
    );
    assert.deepEqual(ids(duplicates), ['yaml-syntax', 'gpu-no-memory-limit']);
    assert.equal(duplicates.findings[0]!.message, 'This YAML document was not analysed: Map keys must be unique (and 99998 more errors).');
  });

  test('10,000 levels of nested flow sequences', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const text of [
      `a: ${deep}\n`,
      deep,
      `${gpuPod('first', 'before')}---\n${gpuPod('deep', 'c', `      env: ${deep}\n`)}---\n${gpuPod('third', 'after')}`,
    ]) {
      const { findings } = await lintGuarded(text);
      for (const finding of findings)
        assert.ok(['yaml-syntax', 'manifest-skipped', 'manifest-shape', 'gpu-no-memory-limit'].includes(finding.ruleId), finding.message);
      const syntax = findings.filter((f) => f.ruleId === 'yaml-syntax');
      for (const finding of syntax) assert.match(finding.message, /not analysed: it is nested too deeply to parse/);
      if (text.includes('first')) {
        assert.deepEqual(
          findings
            .filter((f) => f.ruleId === 'gpu-no-memory-limit')
            .map((f) => f.container)
            .filter((c) => c !== 'c'),
          ['before', 'after'],
          'the neighbours are still analysed',
        );
      }
    }
  });

  test('10,000 levels of nested flow mappings and of block sequences', async () => {
    for (const text of [
      `a: ${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}\n`,
      `${Array.from({ length: 5000 }, (_, i) => `${' '.repeat(i)}- `).join('\n')}x\n`,
    ]) {
      const { findings } = await lintGuarded(text);
      // The block sequence is 12.5 million characters: over the per-document cap, it is not parsed at all.
      for (const finding of findings)
        assert.ok(['yaml-syntax', 'manifest-skipped', 'analysis-budget'].includes(finding.ruleId), finding.message);
    }
  });

  test('a 1 MB single line: an image, a plain scalar, a comment, a flow mapping', async () => {
    const big = 'x'.repeat(MIB);
    const image = `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: "${big}", resources: {limits: {nvidia.com/gpu: 1, memory: 1Gi}}}]}\n`;
    assert.deepEqual(ids(await lintGuarded(image)), []);
    assert.deepEqual(ids(await lintGuarded(big)), []);
    assert.deepEqual(ids(await lintGuarded(`# ${big}\n${gpuPod('p', 'c')}`)), ['gpu-no-memory-limit']);
    const flow = `{${Array.from({ length: 120_000 }, (_, i) => `k${i}: v`).join(', ')}}`; // 120,000 keys: see the duplicate-key test
    assert.ok(flow.length > MIB);
    assert.deepEqual(ids(await lintGuarded(flow)), []);
    // No GPU container, so no template notice; in a GPU container's value, named for what it is (not Helm).
    assert.deepEqual(ids(await lintGuarded(`{{ ${big}`)), []);
    const templated = `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: "{{ ${big}", resources: {limits: {nvidia.com/gpu: 1, memory: 1Gi}}}]}\n`;
    assert.deepEqual(ids(await lintGuarded(templated)), ['unrendered-template']);
  });
});

describe('truncated input', () => {
  const both = DEMOS.map((demo) => demo.text).join('---\n');
  for (const { name, text } of [...DEMOS, { name: 'all demos as one multi-document file', text: both }]) {
    test(`${name} cut at every 97th byte`, () => {
      const bytes = Buffer.from(text);
      let cuts = 0;
      for (let end = 0; end <= bytes.length + 96; end += 97) {
        const cut = bytes.subarray(0, Math.min(end, bytes.length));
        const result = lintBytes(cut, DEFAULT_CONFIG, DEFAULT_MAX_BYTES);
        assertWellFormed(new TextDecoder().decode(cut), result, `cut at ${end}:`);
        assertWellFormed(text.slice(0, end), lintText(text.slice(0, end)), `cut at ${end}:`);
        cuts++;
      }
      assert.ok(cuts >= Math.floor(bytes.length / 97));
    });
  }

  test('a cut in the middle of a multi-byte character is not UTF-8, and says so', () => {
    const bytes = Buffer.from(gpuPod('p', '"\u00e9\u00e9\u00e9"'));
    const middle = bytes.indexOf(0xc3) + 1;
    assert.deepEqual(
      lintBytes(bytes.subarray(0, middle), DEFAULT_CONFIG, DEFAULT_MAX_BYTES).findings.map((f) => f.message),
      ['Skipped: not UTF-8 text.'],
    );
  });
});

describe('fuzz: random mutations of the demo manifests never throw', () => {
  const seed = Number(process.env.GPUMEM_FUZZ_SEED ?? 0x5eed);
  const iterations = Number(process.env.GPUMEM_FUZZ_ITERATIONS ?? 2000);
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const TOKENS = [
    '{{',
    '}}',
    '{{ .Values.x }}',
    '*a',
    '&a ',
    '&a',
    '<<: *a',
    '<<',
    '<<: [*a, *a]',
    '- ',
    ': ',
    '? ',
    '---\n',
    '...\n',
    '\t',
    '"',
    "'",
    '[',
    ']',
    '{',
    '}',
    '#',
    '|',
    '>-',
    '!!binary ',
    '!!map ',
    '%YAML 1.1\n',
    '\u0000',
    '\ufeff',
    '\u202e',
    '# gpumem-ignore\n',
    'nvidia.com/gpumem: 1',
    'memory: 1e3Gi',
    'CUDA_DISABLE_CONTROL',
    'kind: Pod\n',
    'apiVersion: v1\n',
  ];
  const mutate = (text: string): string => {
    let out = text;
    const steps = 1 + Math.floor(random() * 6);
    for (let step = 0; step < steps; step++) {
      const lines = out.split('\n');
      const line = Math.floor(random() * lines.length);
      const at = Math.floor(random() * (out.length + 1));
      switch (Math.floor(random() * 7)) {
        case 0: // flip a bit of one character
          out = out.slice(0, at) + String.fromCharCode((out.charCodeAt(at) || 32) ^ (1 << Math.floor(random() * 7))) + out.slice(at + 1);
          break;
        case 1: // delete a line
          lines.splice(line, 1);
          out = lines.join('\n');
          break;
        case 2: // duplicate a line
          lines.splice(line, 0, lines[line] ?? '');
          out = lines.join('\n');
          break;
        case 3: // insert a YAML or template token
          out = out.slice(0, at) + pick(TOKENS) + out.slice(at);
          break;
        case 4: // swap two lines
          {
            const other = Math.floor(random() * lines.length);
            [lines[line], lines[other]] = [lines[other] ?? '', lines[line] ?? ''];
            out = lines.join('\n');
          }
          break;
        case 5: // indent or dedent a line
          lines[line] = random() < 0.5 ? `  ${lines[line] ?? ''}` : (lines[line] ?? '').replace(/^ {1,2}/, '');
          out = lines.join('\n');
          break;
        default: // cut the text short
          out = out.slice(0, at);
      }
    }
    return out;
  };

  test(`${iterations} mutations (seed ${seed}; set GPUMEM_FUZZ_SEED to vary)`, () => {
    const sources = [...DEMOS.map((demo) => demo.text), DEMOS.map((demo) => demo.text).join('---\n')];
    for (let iteration = 0; iteration < iterations; iteration++) {
      const text = mutate(pick(sources));
      try {
        assertWellFormed(text, lintText(text), `iteration ${iteration}:`);
        if (iteration % 10 === 0) {
          const bytes = Buffer.from(text);
          const at = Math.floor(random() * bytes.length);
          if (at < bytes.length) bytes[at] = (bytes[at] ?? 0) ^ 0x80; // often an invalid UTF-8 byte
          lintBytes(bytes, DEFAULT_CONFIG, DEFAULT_MAX_BYTES);
        }
      } catch (error) {
        assert.fail(`seed ${seed}, iteration ${iteration}: ${(error as Error).stack}\ninput: ${JSON.stringify(text)}`);
      }
    }
  });
});
