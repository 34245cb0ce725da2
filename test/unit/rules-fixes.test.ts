// Quick fixes: apply each fix's edits to the text, check the exact result, that it still parses, and that
// re-linting no longer reports the finding. LF and CRLF line endings.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding } from '../../src/core/findings.ts';
import {
  applyEdits,
  assertNone,
  assertParses,
  config,
  documentsOf,
  expectOne,
  findingsOf,
  fixOf,
  lint,
  ruleIds,
  yaml,
} from './helpers/lint.ts';

/** Applies the fix titled `title` of `finding`, checks the result parses, and returns it. */
function applyFix(text: string, finding: Finding, title: string | RegExp): string {
  const fixed = applyEdits(text, fixOf(finding, title).edits);
  assert.notEqual(fixed, text, 'the fix changes the text');
  assertParses(fixed);
  return fixed;
}

const crlf = (text: string) => text.replace(/\n/g, '\r\n');

describe('Remove CUDA_DISABLE_CONTROL', () => {
  const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      env:
        - name: NCCL_DEBUG
          value: INFO
        - name: CUDA_DISABLE_CONTROL
          value: "true"
        - name: HF_HOME
          value: /models
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;

  test('removes exactly the two lines of that env item', () => {
    const finding = expectOne(text, lint(text), {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'trainer',
      token: '"true"',
      line: 12,
    });
    const fixed = applyFix(text, finding, 'Remove CUDA_DISABLE_CONTROL');
    assert.equal(fixed, text.replace('        - name: CUDA_DISABLE_CONTROL\n          value: "true"\n', ''));
    assert.equal(fixed.split('\n').length, text.split('\n').length - 2);
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('keeps CRLF line endings', () => {
    const windows = crlf(text);
    const finding = expectOne(windows, lint(windows), {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'trainer',
      token: '"true"',
      line: 12,
    });
    const fixed = applyFix(windows, finding, 'Remove CUDA_DISABLE_CONTROL');
    assert.equal(fixed, windows.replace('        - name: CUDA_DISABLE_CONTROL\r\n          value: "true"\r\n', ''));
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('the last item, at the end of a file without a final newline', () => {
    const last = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
      env:
        - name: NCCL_DEBUG
          value: INFO
        - name: CUDA_DISABLE_CONTROL
          value: "1"`;
    const finding = expectOne(last, lint(last), {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'trainer',
      token: '"1"',
      line: 14,
    });
    const fixed = applyFix(last, finding, 'Remove CUDA_DISABLE_CONTROL');
    assert.equal(fixed, last.replace('        - name: CUDA_DISABLE_CONTROL\n          value: "1"', ''));
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('in a flow sequence, with its comma', () => {
    const flow = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      env: [{name: CUDA_DISABLE_CONTROL, value: "true"}, {name: A, value: "1"}]
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    const finding = expectOne(flow, lint(flow), {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'trainer',
      token: '"true"',
      line: 8,
    });
    const fixed = applyFix(flow, finding, 'Remove CUDA_DISABLE_CONTROL');
    assert.equal(fixed, flow.replace('{name: CUDA_DISABLE_CONTROL, value: "true"}, ', ''));
    assert.deepEqual(lint(fixed).findings, []);
    const lastFlow = flow.replace(
      '[{name: CUDA_DISABLE_CONTROL, value: "true"}, {name: A, value: "1"}]',
      '[{name: A, value: "1"}, {name: CUDA_DISABLE_CONTROL, value: "true"}]',
    );
    const fixedLast = applyFix(lastFlow, findingsOf(lint(lastFlow), 'cuda-disable-control')[0]!, 'Remove CUDA_DISABLE_CONTROL');
    assert.match(fixedLast, /env: \[\{name: A, value: "1"\}\]\n/);
    assert.deepEqual(lint(fixedLast).findings, []);
  });

  test('a valueFrom.configMapKeyRef entry is removed whole', () => {
    const text2 = yaml`
apiVersion: v1
kind: ConfigMap
metadata:
  name: flags
data:
  disable: "true"
---
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      env:
        - name: CUDA_DISABLE_CONTROL
          valueFrom:
            configMapKeyRef:
              name: flags
              key: disable
        - name: A
          value: "1"
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    const finding = expectOne(text2, lint(text2), {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'trainer',
      token: 'disable',
      line: 20,
    });
    const fixed = applyFix(text2, finding, 'Remove CUDA_DISABLE_CONTROL');
    assert.equal(
      fixed,
      text2.replace(
        '        - name: CUDA_DISABLE_CONTROL\n          valueFrom:\n            configMapKeyRef:\n              name: flags\n              key: disable\n',
        '',
      ),
    );
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('cuda-disable-control-present and hami-manual-memory-limit fixes remove their entries too', () => {
    const manual = text
      .replace('value: "true"', 'value: "false"')
      .replace('- name: HF_HOME\n          value: /models', '- name: CUDA_DEVICE_MEMORY_LIMIT_0\n          value: 0m');
    const result = lint(manual);
    const present = expectOne(manual, result, {
      ruleId: 'cuda-disable-control-present',
      severity: 'info',
      container: 'trainer',
      token: '"false"',
      line: 12,
    });
    const limit = expectOne(manual, result, {
      ruleId: 'hami-manual-memory-limit',
      severity: 'warning',
      container: 'trainer',
      token: 'CUDA_DEVICE_MEMORY_LIMIT_0',
      line: 13,
    });
    const withoutPresent = applyFix(manual, present, 'Remove CUDA_DISABLE_CONTROL');
    assert.deepEqual(ruleIds(lint(withoutPresent)), ['hami-manual-memory-limit']);
    const withoutLimit = applyFix(manual, limit, 'Remove CUDA_DEVICE_MEMORY_LIMIT_0');
    assert.equal(withoutLimit, manual.replace('        - name: CUDA_DEVICE_MEMORY_LIMIT_0\n          value: 0m\n', ''));
    assert.deepEqual(ruleIds(lint(withoutLimit)), ['cuda-disable-control-present']);
  });
});

describe('memory-limit fixes (gpu-no-memory-limit)', () => {
  /** A Strix Halo pod declaring 48 GiB of GPU memory (limit 63Gi with 30 % headroom), with the given resources. */
  const uma = (resources: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 48Gi
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: server
      image: rocm/vllm:latest
${resources}
`;

  test("block limits: inserts memory: <value> at the limits' indentation", () => {
    const text = uma('      resources:\n        limits:\n          amd.com/gpu: 1\n          cpu: 8');
    const finding = expectOne(text, lint(text), {
      ruleId: 'gpu-no-memory-limit',
      severity: 'error',
      container: 'server',
      token: 'server',
      line: 11,
    });
    const fixed = applyFix(text, finding, 'Set memory limit to 63Gi (GPU 48 GiB + 30 % headroom)');
    assert.equal(fixed, text.replace('          cpu: 8\n', '          cpu: 8\n          memory: 63Gi\n'));
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('block limits with a trailing comment: the new entry goes after the comment', () => {
    const text = uma('      resources:\n        limits:\n          amd.com/gpu: 1 # one APU\n          cpu: 8 # all cores');
    const fixed = applyFix(text, findingsOf(lint(text), 'gpu-no-memory-limit')[0]!, /^Set memory limit to 63Gi/);
    assert.equal(fixed, text.replace('          cpu: 8 # all cores\n', '          cpu: 8 # all cores\n          memory: 63Gi\n'));
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('flow limits: {amd.com/gpu: 1} gains memory: 63Gi', () => {
    const text = uma('      resources:\n        limits: {amd.com/gpu: 1, cpu: 8}');
    const fixed = applyFix(text, findingsOf(lint(text), 'gpu-no-memory-limit')[0]!, /^Set memory limit to 63Gi/);
    assert.equal(fixed, text.replace('{amd.com/gpu: 1, cpu: 8}', '{amd.com/gpu: 1, cpu: 8, memory: 63Gi}'));
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('nested flow mappings: the memory goes into limits, not into resources', () => {
    const text = uma('      resources: {limits: {amd.com/gpu: 1, cpu: 8}}');
    const fixed = applyFix(text, findingsOf(lint(text), 'gpu-no-memory-limit')[0]!, /^Set memory limit to 63Gi/);
    assert.equal(fixed, text.replace('{limits: {amd.com/gpu: 1, cpu: 8}}', '{limits: {amd.com/gpu: 1, cpu: 8, memory: 63Gi}}'));
    assert.deepEqual(documentsOf(fixed)[0], {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'llm', annotations: { 'gpumem.io/gpu-memory': '48Gi' } },
      spec: {
        nodeSelector: { 'amd.com/gpu.device-id': '1586' },
        containers: [{ name: 'server', image: 'rocm/vllm:latest', resources: { limits: { 'amd.com/gpu': 1, cpu: 8, memory: '63Gi' } } }],
      },
    });
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('an empty limits: key gets a block entry', () => {
    const text = uma('      resources:\n        limits:\n        requests: {amd.com/gpu: 1}');
    const finding = findingsOf(lint(text), 'gpu-no-memory-limit')[0]!;
    const fixed = applyFix(text, finding, /^Set memory limit to 63Gi/);
    assert.equal(fixed, text.replace('        limits:\n', '        limits:\n          memory: 63Gi\n'));
    assertNone(lint(fixed), 'gpu-no-memory-limit');
  });

  test('resources without limits gets a limits: block, without trailing spaces', () => {
    const text = uma('      resources:\n        requests:\n          amd.com/gpu: 1');
    const finding = findingsOf(lint(text), 'gpu-no-memory-limit')[0]!;
    const fixed = applyFix(text, finding, /^Set memory limit to 63Gi/);
    assert.equal(fixed, text.replace('          amd.com/gpu: 1\n', '          amd.com/gpu: 1\n        limits:\n          memory: 63Gi\n'));
    assert.doesNotMatch(fixed, / \n/);
    assertNone(lint(fixed), 'gpu-no-memory-limit');
  });

  test('flow resources without limits gets a flow limits entry', () => {
    const text = uma('      resources: {requests: {amd.com/gpu: 1}}');
    const fixed = applyFix(text, findingsOf(lint(text), 'gpu-no-memory-limit')[0]!, /^Set memory limit to 63Gi/);
    assert.equal(fixed, text.replace('{requests: {amd.com/gpu: 1}}', '{requests: {amd.com/gpu: 1}, limits: {memory: 63Gi}}'));
    assertNone(lint(fixed), 'gpu-no-memory-limit');
  });

  test('Set memory limit and request: Guaranteed memory, and the headroom holds for both', () => {
    const text = uma('      resources:\n        limits:\n          amd.com/gpu: 1\n          cpu: 8\n        requests:\n          cpu: 8');
    const finding = findingsOf(lint(text), 'gpu-no-memory-limit')[0]!;
    assert.deepEqual(
      finding.fixes.map((f) => [f.title, f.preferred ?? false]),
      [
        ['Set memory limit to 63Gi (GPU 48 GiB + 30 % headroom)', true],
        ['Set memory limit and request to 63Gi (Guaranteed memory)', false],
      ],
    );
    const fixed = applyFix(text, finding, 'Set memory limit and request to 63Gi (Guaranteed memory)');
    assert.equal(
      fixed,
      text.replace(
        '          cpu: 8\n        requests:\n          cpu: 8\n',
        '          cpu: 8\n          memory: 63Gi\n        requests:\n          cpu: 8\n          memory: 63Gi\n',
      ),
    );
    assert.deepEqual(lint(fixed).findings, []);
  });

  test('the SET-ME placeholder, marked with a comment, is then an invalid quantity to fill in', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      resources:
        limits:
          nvidia.com/gpu: 1
`;
    const finding = expectOne(text, lint(text), {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'trainer',
      token: 'trainer',
      line: 7,
    });
    const fixed = applyFix(text, finding, 'Insert a SET-ME memory limit placeholder to fill in');
    assert.equal(
      fixed,
      text.replace(
        '          nvidia.com/gpu: 1\n',
        '          nvidia.com/gpu: 1\n          memory: SET-ME  # gpumem: set to host memory (CUDA context, pinned buffers, data loaders) + 30 % headroom\n',
      ),
    );
    const after = lint(fixed);
    assertNone(after, 'gpu-no-memory-limit');
    expectOne(fixed, after, { ruleId: 'invalid-quantity', severity: 'error', container: 'trainer', token: 'SET-ME', line: 11 });
  });

  test('the placeholder comment on a unified-memory target names GPU memory, and the headroom setting', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
  annotations:
    gpumem.io/unified-memory: "true"
spec:
  containers:
    - name: trainer
      resources:
        limits: {nvidia.com/gpu: 1}
`;
    const finding = findingsOf(lint(text, config({ headroomPercent: 25 })), 'gpu-no-memory-limit')[0]!;
    const fixed = applyFix(text, finding, 'Insert a SET-ME memory limit placeholder to fill in');
    // Flow mappings hold no comments: the placeholder alone.
    assert.equal(fixed, text.replace('{nvidia.com/gpu: 1}', '{nvidia.com/gpu: 1, memory: SET-ME}'));
    const block = text.replace('        limits: {nvidia.com/gpu: 1}\n', '        limits:\n          nvidia.com/gpu: 1\n');
    const blockFixed = applyFix(block, findingsOf(lint(block, config({ headroomPercent: 25 })), 'gpu-no-memory-limit')[0]!, /SET-ME/);
    assert.match(blockFixed, /\n {10}memory: SET-ME {2}# gpumem: set to host memory \+ GPU memory \+ 25 % headroom\n/);
  });

  test('CRLF: inserted lines use CRLF', () => {
    const text = crlf(uma('      resources:\n        limits:\n          amd.com/gpu: 1\n          cpu: 8'));
    const finding = expectOne(text, lint(text), {
      ruleId: 'gpu-no-memory-limit',
      severity: 'error',
      container: 'server',
      token: 'server',
      line: 11,
    });
    const fixed = applyFix(text, finding, /^Set memory limit to 63Gi/);
    assert.equal(fixed, text.replace('          cpu: 8\r\n', '          cpu: 8\r\n          memory: 63Gi\r\n'));
    assert.doesNotMatch(fixed, /[^\r]\n/);
    assert.deepEqual(lint(fixed).findings, []);
    const requestsOnly = crlf(uma('      resources:\n        requests:\n          amd.com/gpu: 1'));
    const nested = applyFix(requestsOnly, findingsOf(lint(requestsOnly), 'gpu-no-memory-limit')[0]!, /^Set memory limit to 63Gi/);
    assert.equal(
      nested,
      requestsOnly.replace('          amd.com/gpu: 1\r\n', '          amd.com/gpu: 1\r\n        limits:\r\n          memory: 63Gi\r\n'),
    );
  });
});

describe('Raise memory limit / request (uma-headroom)', () => {
  const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
    gpumem.io/gpu-memory: 48Gi
    gpumem.io/host-memory: 4Gi
spec:
  containers:
    - name: server
      resources:
        limits:
          amd.com/gpu: 1
          memory: "64Gi"
        requests:
          memory: 60Gi
`;

  test('Raise memory limit to 68Gi keeps the quotes; the request is raised by its own fix', () => {
    const result = lint(text);
    const limit = expectOne(
      text,
      { ...result, findings: result.findings.filter((f) => text.slice(f.span.start, f.span.end) === '"64Gi"') },
      { ruleId: 'uma-headroom', severity: 'warning', container: 'server', token: '"64Gi"', line: 15 },
    );
    const request = expectOne(
      text,
      { ...result, findings: result.findings.filter((f) => text.slice(f.span.start, f.span.end) === '60Gi') },
      { ruleId: 'uma-headroom', severity: 'warning', container: 'server', token: '60Gi', line: 17 },
    );
    const raisedLimit = applyFix(text, limit, 'Raise memory limit to 68Gi');
    assert.equal(raisedLimit, text.replace('memory: "64Gi"', 'memory: "68Gi"'));
    // Only the request is still short.
    expectOne(raisedLimit, lint(raisedLimit), {
      ruleId: 'uma-headroom',
      severity: 'warning',
      container: 'server',
      token: '60Gi',
      line: 17,
    });
    const raisedBoth = applyFix(raisedLimit, findingsOf(lint(raisedLimit), 'uma-headroom')[0]!, 'Raise memory request to 68Gi');
    assert.equal(raisedBoth, raisedLimit.replace('memory: 60Gi', 'memory: 68Gi'));
    assertNone(lint(raisedBoth), 'uma-headroom');
    // The request fix alone, on the original text.
    assert.equal(applyFix(text, request, 'Raise memory request to 68Gi'), text.replace('memory: 60Gi', 'memory: 68Gi'));
  });

  test('small needs are suggested in MiB', () => {
    const small = text
      .replace('gpumem.io/gpu-memory: 48Gi', 'gpumem.io/gpu-memory: 1Gi')
      .replace('gpumem.io/host-memory: 4Gi', 'gpumem.io/host-memory: 512Mi')
      .replace('"64Gi"', '"1Gi"')
      .replace('60Gi', '1Gi');
    // (1024 + 512) MiB × 1.3 = 1996.8 MiB → 1997Mi.
    const findings = findingsOf(lint(small), 'uma-headroom');
    assert.deepEqual(
      findings.map((f) => f.fixes.map((x) => x.title)),
      [['Raise memory limit to 1997Mi'], ['Raise memory request to 1997Mi']],
    );
    let fixed = applyFix(small, findings[1]!, 'Raise memory request to 1997Mi');
    fixed = applyFix(fixed, findings[0]!, 'Raise memory limit to 1997Mi');
    assertNone(lint(fixed), 'uma-headroom');
  });
});

describe('other fixes', () => {
  test('uma-gpu-memory-undeclared: adds the annotation (SET-ME) to existing annotations, or an annotations block', () => {
    const text = yaml`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  template:
    metadata:
      annotations:
        prometheus.io/scrape: "true"
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-GB10}
      containers:
        - name: server
          resources:
            limits: {nvidia.com/gpu: 1, cpu: 4, memory: 100Gi}
`;
    const finding = expectOne(text, lint(text), {
      ruleId: 'uma-gpu-memory-undeclared',
      severity: 'info',
      container: 'server',
      token: 'server',
      line: 13,
    });
    const fixed = applyFix(text, finding, 'Declare the GPU memory with the gpumem.io/gpu-memory annotation');
    assert.equal(
      fixed,
      text.replace(
        '        prometheus.io/scrape: "true"\n',
        '        prometheus.io/scrape: "true"\n        gpumem.io/gpu-memory: "SET-ME"\n',
      ),
    );
    const after = lint(fixed);
    assertNone(after, 'uma-gpu-memory-undeclared');
    expectOne(fixed, after, { ruleId: 'invalid-quantity', severity: 'error', container: undefined, token: '"SET-ME"', line: 10 });

    const labelsOnly = text.replace('      annotations:\n        prometheus.io/scrape: "true"\n', '      labels:\n        app: llm\n');
    const fixedLabels = applyFix(labelsOnly, findingsOf(lint(labelsOnly), 'uma-gpu-memory-undeclared')[0]!, /^Declare the GPU memory/);
    assert.equal(
      fixedLabels,
      labelsOnly.replace('        app: llm\n', '        app: llm\n      annotations:\n        gpumem.io/gpu-memory: "SET-ME"\n'),
    );
    assertNone(lint(fixedLabels), 'uma-gpu-memory-undeclared');
  });

  test('uma-missing-toleration: adds a toleration for the configured key', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 8Gi
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: server
      resources:
        limits: {amd.com/gpu: 1, cpu: 1, memory: 16Gi}
`;
    const settings = config({ dedicatedNodeTaintKey: 'amd.com/apu' });
    const finding = findingsOf(lint(text, settings), 'uma-missing-toleration')[0]!;
    const fixed = applyFix(text, finding, 'Tolerate the amd.com/apu taint');
    assert.equal(
      fixed,
      text.replace(
        '        limits: {amd.com/gpu: 1, cpu: 1, memory: 16Gi}\n',
        '        limits: {amd.com/gpu: 1, cpu: 1, memory: 16Gi}\n  tolerations: [{key: amd.com/apu, operator: Exists}]\n',
      ),
    );
    assert.deepEqual(lint(fixed, settings).findings, []);
  });
});
