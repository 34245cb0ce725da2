// Pod-wide rules: gpu-docker-in-docker, gpu-resource-invalid, invalid-quantity and manifest-shape, and a check
// that every rule the pod rules can emit is in the catalog and exercised by these tests.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { RULES } from '../../src/core/rules/catalog.ts';
import { POD_RULES } from '../../src/core/rules/ruleOrder.ts';
import { assertNone, expectAll, expectOne, lint, yaml } from './helpers/lint.ts';

describe('the rule set', () => {
  // cuda-disable-control also reports its "present" variant; the other catalog ids come from the file level (internal-error from the lint's
  // isolation of each rule and file).
  const EMITTED_BY_POD_RULES = [...POD_RULES.map((rule) => rule.meta.id), 'cuda-disable-control-present'];
  const FILE_LEVEL = [
    'yaml-syntax',
    'helm-template',
    'unrendered-template',
    'manifest-skipped',
    'internal-error',
    'analysis-budget',
    'read-by-shape',
    'kustomize-patch',
  ];

  test('every pod rule is a catalog entry, once, and the catalog has no rule that nothing emits', () => {
    const catalog = RULES.map((rule) => rule.id);
    assert.equal(new Set(catalog).size, catalog.length, 'catalog ids are unique');
    assert.equal(new Set(EMITTED_BY_POD_RULES).size, EMITTED_BY_POD_RULES.length, 'each pod rule runs once');
    for (const rule of POD_RULES)
      assert.equal(
        rule.meta,
        RULES.find((meta) => meta.id === rule.meta.id),
        rule.meta.id,
      );
    assert.deepEqual([...EMITTED_BY_POD_RULES, ...FILE_LEVEL].sort(), [...catalog].sort());
  });

  test('every rule a pod rule can emit has an exact-range expectation in the rule tests', () => {
    const dir = new URL('./', import.meta.url);
    const sources = readdirSync(dir)
      .filter((name) => /^rules-.*\.test\.ts$/.test(name))
      .map((name) => readFileSync(new URL(name, dir), 'utf8'))
      .join('\n');
    for (const id of EMITTED_BY_POD_RULES) {
      const asserted = sources.includes(`ruleId: '${id}'`) || sources.includes(`'${id}', [`);
      assert.ok(asserted, `${id} has an expectOne/expectAll in test/unit/rules-*.test.ts`);
    }
  });
});

describe('gpu-docker-in-docker', () => {
  const ci = (sidecar: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: ci
spec:
  containers:
    - name: runner
      image: ghcr.io/actions/actions-runner:2.317.0
      resources:
        limits: {nvidia.com/gpu: 1, memory: 16Gi}
${sidecar}
`;

  test('a docker:*dind* image in a GPU pod, on the image', () => {
    const text = ci('    - name: dind\n      image: docker:27-dind\n      securityContext: {privileged: true}');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'gpu-docker-in-docker',
      severity: 'warning',
      container: 'dind',
      token: 'docker:27-dind',
      line: 12,
      message: ['runs Docker-in-Docker (image docker:27-dind)', 'GPU containers: "runner"', "escape HAMi's GPU memory limits"],
    });
    assert.deepEqual(
      result.findings.map((f) => f.ruleId),
      ['gpu-docker-in-docker'],
    );
  });

  test('a registry-qualified rootless dind image', () => {
    const text = ci('    - name: dind\n      image: docker.io/library/docker:27.1-dind-rootless');
    expectOne(text, lint(text), {
      ruleId: 'gpu-docker-in-docker',
      severity: 'warning',
      container: 'dind',
      token: 'docker.io/library/docker:27.1-dind-rootless',
      line: 12,
    });
  });

  test('dockerd as the command, on that word', () => {
    const text = ci('    - name: engine\n      image: ubuntu:24.04\n      command: ["dockerd", "--host=unix:///var/run/docker.sock"]');
    expectOne(text, lint(text), {
      ruleId: 'gpu-docker-in-docker',
      severity: 'warning',
      container: 'engine',
      token: '"dockerd"',
      line: 13,
      message: 'starts dockerd',
    });
    const entry = ci('    - name: engine\n      image: ubuntu:24.04\n      args:\n        - /usr/local/bin/dockerd-entrypoint.sh');
    expectOne(entry, lint(entry), {
      ruleId: 'gpu-docker-in-docker',
      severity: 'warning',
      container: 'engine',
      token: '/usr/local/bin/dockerd-entrypoint.sh',
      line: 14,
    });
  });

  test('a hostPath mount of docker.sock or containerd.sock, on the host path', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: ci
spec:
  containers:
    - name: runner
      resources:
        limits: {nvidia.com/gpu: 1, memory: 16Gi}
      volumeMounts:
        - name: docker-sock
          mountPath: /var/run/docker.sock
    - name: builder
      volumeMounts:
        - {name: containerd, mountPath: /run/containerd/containerd.sock}
  volumes:
    - name: docker-sock
      hostPath:
        path: /var/run/docker.sock
        type: Socket
    - name: containerd
      hostPath: {path: /run/containerd/containerd.sock}
`;
    expectAll(text, lint(text), 'gpu-docker-in-docker', [
      {
        severity: 'warning',
        container: 'runner',
        token: '/var/run/docker.sock',
        line: 19,
        message: "mounts the host's container runtime socket /var/run/docker.sock",
      },
      {
        severity: 'warning',
        container: 'builder',
        token: '/run/containerd/containerd.sock',
        line: 22,
        message: 'socket /run/containerd/containerd.sock',
      },
    ]);
  });

  test('near misses: a docker CLI image, dockerd named in a shell string, an unmounted socket, a read-only or deeper docker path', () => {
    assert.deepEqual(lint(ci('    - name: cli\n      image: docker:27-cli')).findings, []);
    assert.deepEqual(lint(ci('    - name: sh\n      image: ubuntu\n      command: [sh, -c, "echo dockerd"]')).findings, []);
    // A log collector reads the host's container logs: no inner daemon.
    const volumes = ci(
      '    - name: cache\n      volumeMounts: [{name: lib, mountPath: /var/lib/docker, readOnly: true}, {name: logs, mountPath: /var/lib/docker/containers}]\n  volumes:\n    - {name: sock, hostPath: {path: /var/run/docker.sock}}\n    - {name: lib, hostPath: {path: /var/lib/docker}}\n    - {name: logs, hostPath: {path: /var/lib/docker/containers}}',
    );
    assert.deepEqual(lint(volumes).findings, []);
  });

  test('Docker-in-Docker in a pod without GPUs: nothing', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: ci
spec:
  containers:
    - name: dind
      image: docker:27-dind
      command: [dockerd]
`;
    assert.deepEqual(lint(text).findings, []);
  });
});

describe('gpu-resource-invalid', () => {
  const pod = (resources: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: trainer
      resources:
${resources}
`;

  test('a fractional GPU count, on the value', () => {
    const text = pod('        limits:\n          nvidia.com/gpu: 0.5\n          memory: 8Gi');
    expectOne(text, lint(text), {
      ruleId: 'gpu-resource-invalid',
      severity: 'error',
      container: 'trainer',
      token: '0.5',
      line: 10,
      message: 'nvidia.com/gpu is 0.5; extended resources such as GPUs must be whole numbers',
    });
    const milli = pod('        limits:\n          amd.com/gpu: 500m\n          memory: 8Gi');
    expectOne(milli, lint(milli), { ruleId: 'gpu-resource-invalid', severity: 'error', container: 'trainer', token: '500m', line: 10 });
  });

  test('a negative GPU count', () => {
    const text = pod('        limits:\n          nvidia.com/gpu: -1\n          memory: 8Gi');
    expectOne(text, lint(text), {
      ruleId: 'gpu-resource-invalid',
      severity: 'error',
      container: 'trainer',
      token: '-1',
      line: 10,
      message: 'must not be negative',
    });
  });

  test('a GPU request without a limit, on the request key', () => {
    const text = pod('        limits:\n          memory: 8Gi\n        requests:\n          nvidia.com/gpu: 1');
    expectOne(text, lint(text), {
      ruleId: 'gpu-resource-invalid',
      severity: 'error',
      container: 'trainer',
      token: 'nvidia.com/gpu',
      line: 12,
      message: 'requests nvidia.com/gpu without a limit',
    });
  });

  test('a GPU request that differs from the limit, on the request value', () => {
    const text = pod('        limits:\n          nvidia.com/gpu: 2\n          memory: 8Gi\n        requests:\n          nvidia.com/gpu: 1');
    expectOne(text, lint(text), {
      ruleId: 'gpu-resource-invalid',
      severity: 'error',
      container: 'trainer',
      token: '1',
      line: 13,
      message: 'the nvidia.com/gpu request (1) differs from its limit (2)',
    });
  });

  test('whole numbers in limits, with an equal request (however written): nothing', () => {
    for (const resources of [
      '        limits:\n          nvidia.com/gpu: 2\n          memory: 8Gi',
      '        limits:\n          nvidia.com/gpu: 2\n          memory: 8Gi\n        requests:\n          nvidia.com/gpu: "2"',
      '        limits:\n          nvidia.com/gpu: 1000m\n          memory: 8Gi\n        requests:\n          nvidia.com/gpu: 1',
    ]) {
      assert.deepEqual(lint(pod(resources)).findings, [], resources);
    }
  });
});

describe('invalid-quantity', () => {
  test('a memory limit with a wrong suffix, on the value, in any container', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: trainer
      resources:
        limits:
          nvidia.com/gpu: 1
          memory: 1Gb
    - name: web
      resources:
        requests:
          memory: 12 Gi
          cpu: -1
`;
    expectAll(text, lint(text), 'invalid-quantity', [
      {
        severity: 'error',
        container: 'trainer',
        token: '1Gb',
        line: 11,
        message: 'resources.limits["memory"] is not a valid quantity: unknown suffix "Gb"',
      },
      { severity: 'error', container: 'web', token: '12 Gi', line: 15, message: 'resources.requests["memory"] is not a valid quantity' },
      { severity: 'error', container: 'web', token: '-1', line: 16, message: 'resources.requests.cpu is -1; it must not be negative' },
    ]);
  });

  test('invalid memory annotations of a GPU pod, on the annotation value', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    gpumem.io/gpu-memory: 24GB
    gpumem.io/host-memory.trainer: -4Gi
    gpumem.io/unrelated: lots
spec:
  containers:
    - name: trainer
      resources:
        limits: {nvidia.com/gpu: 1, memory: 32Gi}
`;
    expectAll(text, lint(text), 'invalid-quantity', [
      {
        severity: 'error',
        container: undefined,
        token: '24GB',
        line: 6,
        message: 'Annotation gpumem.io/gpu-memory is "24GB", not a valid memory quantity',
      },
      {
        severity: 'error',
        container: undefined,
        token: '-4Gi',
        line: 7,
        message: 'Annotation gpumem.io/host-memory.trainer is "-4Gi", not a valid memory quantity: it is negative',
      },
    ]);
  });

  test('valid quantities, and memory annotations on a pod without GPUs: nothing', () => {
    const valid = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    gpumem.io/gpu-memory: 1.5Gi
    gpumem.io/host-memory: 1e9
spec:
  containers:
    - name: trainer
      resources:
        limits: {nvidia.com/gpu: 1, memory: 1G, cpu: 500m, ephemeral-storage: 10Gi}
        requests: {memory: 512Mi, cpu: "0.25"}
`;
    assertNone(lint(valid), 'invalid-quantity');
    const noGpu = valid.replace('nvidia.com/gpu: 1, ', '').replace('1.5Gi', 'lots');
    assert.notEqual(noGpu, valid);
    assert.deepEqual(lint(noGpu).findings, []);
  });
});

describe('manifest-shape', () => {
  test('env as a mapping: a warning on the first line of the mapping, and its contents are skipped', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: trainer
      env:
        CUDA_DISABLE_CONTROL: "true"
        NCCL_DEBUG: INFO
      resources:
        limits: {nvidia.com/gpu: 1, memory: 16Gi}
`;
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'manifest-shape',
      severity: 'warning',
      container: undefined,
      token: 'CUDA_DISABLE_CONTROL: "true"',
      line: 9,
      message: 'Field spec.containers[0].env should be a list, found a mapping; gpumem skipped what it holds.',
    });
    assertNone(result, 'cuda-disable-control');
  });

  test('resources as a string or a list, limits as a list, containers as a mapping', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: a
      resources: "32Gi"
    - name: b
      resources:
        - limits
    - name: c
      resources:
        limits: [nvidia.com/gpu]
`;
    expectAll(text, lint(text), 'manifest-shape', [
      {
        severity: 'warning',
        container: undefined,
        token: '"32Gi"',
        line: 8,
        message: 'containers[0].resources should be a mapping, found the string "32Gi"',
      },
      {
        severity: 'warning',
        container: undefined,
        token: '- limits',
        line: 11,
        message: 'containers[1].resources should be a mapping, found a list',
      },
      {
        severity: 'warning',
        container: undefined,
        token: '[nvidia.com/gpu]',
        line: 14,
        message: 'containers[2].resources.limits should be a mapping, found a list',
      },
    ]);
    const map = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    name: a
    image: x
`;
    expectOne(map, lint(map), {
      ruleId: 'manifest-shape',
      severity: 'warning',
      container: undefined,
      token: 'name: a',
      line: 7,
      message: 'Field spec.containers should be a list, found a mapping;',
    });
  });

  test('empty or null fields are not shape problems', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: trainer
      env:
      envFrom: ~
      resources: {}
      volumeMounts: null
`;
    assert.deepEqual(lint(text).findings, []);
  });
});
