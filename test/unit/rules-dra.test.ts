// GPUs that come through Dynamic Resource Allocation claims, in the shapes the DRA drivers publish
// (fixtures under test/fixtures/manifests/dra/ name the project and file they follow), and pod-level resources.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { indexClaims } from '../../src/core/crossFile.ts';
import { hoverAt } from '../../src/core/analysis/hover.ts';
import { lintText } from '../../src/core/lint.ts';
import { runCli } from '../helpers/cli.ts';
import { ClaimIndex, scanCel } from '../../src/core/manifest/draClaims.ts';
import { assertNone, config, expectAll, expectOne, findingsOf, fixture, lint, ruleIds, yaml } from './helpers/lint.ts';

const GIB = 1024 ** 3;

describe('DRA claims make GPU containers', () => {
  test('v1beta1 (NVIDIA quickstart shape): deviceClassName on the request, one claim per container', () => {
    const text = fixture('dra/nvidia-v1beta1-two-containers.yaml');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'ctr0',
      token: 'ctr0',
      line: 24,
      message: 'has no memory limit',
    });
    assert.deepEqual(
      result.containers.map((c) => c.title.split(' · ')[0]),
      ['GPU via claim gpu0 → class gpu.nvidia.com', 'GPU via claim gpu1 → class gpu.nvidia.com'],
    );
    assert.deepEqual(
      result.containers.map((c) => c.gpuClaims),
      [['claim gpu0 → class gpu.nvidia.com'], ['claim gpu1 → class gpu.nvidia.com']],
    );
    assert.equal(result.containers[1]?.limit, '8Gi');
  });

  test('v1 exactly (AMD example shape) with a CEL memory bound: declared GPU memory for uma-headroom', () => {
    const text = fixture('dra/amd-v1-unified.yaml');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'uma-headroom',
      severity: 'warning',
      container: 'server',
      token: '48Gi',
      line: 40,
      message: ['below its nominal 64 GiB', '83.2 GiB'],
    });
    const [summary] = result.containers;
    assert.equal(summary?.gpuMemoryBytes, 64 * GIB);
    assert.equal(summary?.gpuMemorySource, 'claim gpu selector memory ≥ 64Gi');
    assert.match(
      summary?.title ?? '',
      /^GPU via claim gpu → class gpu\.amd\.com, 64 GiB \(unified memory\) · GPU memory: 64 GiB · memory limit: 48Gi/,
    );
    assertNone(result, 'uma-gpu-memory-undeclared', 'gpu-claim-unresolved');
  });

  test('HAMi DRA consumable capacity: memory × count, and HAMi rules apply to the claim', () => {
    const text = fixture('dra/hami-v1-capacity.yaml');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'uma-headroom',
      severity: 'warning',
      container: 'train',
      token: '16Gi',
      line: 35,
      message: 'nominal 20 GiB',
    });
    assert.equal(result.containers[0]?.gpuMemorySource, 'claim vgpu capacity.requests.memory 10Gi × 2 devices');
    assert.match(result.containers[0]?.title ?? '', /^GPU via claim vgpu → class hami-core-gpu\.project-hami\.io, 2 devices, 10 GiB each/);
    const privileged = text.replace(
      '    resources:\n      limits:\n        memory: 16Gi',
      '    securityContext: {privileged: true}\n    resources:\n      limits:\n        memory: 16Gi',
    );
    assert.ok(ruleIds(lint(privileged)).includes('hami-privileged'), 'a privileged container on a HAMi DRA claim is HAMi-managed');
  });

  test('firstAvailable (v1 prioritized list) through resourceClaimName: the largest alternative counts', () => {
    const text = fixture('dra/nvidia-v1-first-available.yaml');
    const result = lint(text);
    expectOne(text, result, { ruleId: 'gpu-no-memory-limit', severity: 'warning', container: 'infer', token: 'infer', line: 34 });
    assert.equal(result.containers[0]?.gpuMemoryBytes, 40 * GIB);
    assert.match(result.containers[0]?.title ?? '', /^GPU via claim gpu-claim → class mig\.nvidia\.com or gpu\.nvidia\.com, up to 40 GiB/);
  });

  const pod = (claimBody: string, extra = '') => yaml`
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: site
spec:
  spec:
    devices:
      requests:
${claimBody}
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: app
      image: app:1
      resources:
        claims:
          - name: dev${extra}
  resourceClaims:
    - name: dev
      resourceClaimTemplateName: site
`;

  test('a site class is a GPU only when configured; a CEL selector naming a GPU driver always is', () => {
    const siteClass = pod('        - name: gpu\n          exactly:\n            deviceClassName: a100-80g');
    assert.deepEqual(lint(siteClass).findings, [], 'an unknown class is no GPU, and no guess');
    assert.deepEqual(
      lint(siteClass, config({ gpuDeviceClasses: ['a100-80g'] })).containers.map((c) => c.gpuClaims),
      [['claim dev → class a100-80g']],
    );
    const byDriver = pod(
      '        - name: gpu\n          exactly:\n            deviceClassName: a100-80g\n            selectors:\n              - cel:\n                  expression: device.driver == "gpu.nvidia.com"',
    );
    assert.ok(ruleIds(lint(byDriver)).includes('gpu-no-memory-limit'));
  });

  test('a claim for a NIC is silent; a request named by resources.claims[].request picks only that request', () => {
    const two =
      '        - name: nic\n          exactly:\n            deviceClassName: sriovnetwork.k8snetworkplumbingwg.io\n        - name: gpu\n          exactly:\n            deviceClassName: gpu.amd.com\n            count: 2';
    assert.deepEqual(lint(pod(two, '\n            request: nic')).findings, []);
    const gpu = lint(pod(two, '\n            request: gpu'));
    assert.deepEqual(
      gpu.containers.map((c) => c.gpuClaims),
      [['claim dev → class gpu.amd.com, 2 devices']],
    );
    const all = lint(
      pod('        - name: gpu\n          exactly:\n            deviceClassName: gpu.intel.com\n            allocationMode: All'),
    );
    assert.deepEqual(
      all.containers.map((c) => c.gpuClaims),
      [['claim dev → class gpu.intel.com, all matching devices']],
    );
  });

  test('the Kubernetes 1.26–1.30 shape (spec.resourceClaims[].source) resolves too', () => {
    const text = pod('        - name: gpu\n          deviceClassName: gpu.intel.com').replace(
      '      resourceClaimTemplateName: site',
      '      source:\n        resourceClaimTemplateName: site',
    );
    assert.deepEqual(
      lint(text).containers.map((c) => c.gpuClaims),
      [['claim dev → class gpu.intel.com']],
    );
  });
});

describe('gpu-claim-unresolved', () => {
  const base = (claims: string, podClaims: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: team-a
spec:
  containers:
    - name: app
      image: app:1
      resources:
        claims:
${claims}
  resourceClaims:
${podClaims}
`;

  test('a claim template in no linted file: info, the container may get a GPU, never counted as one', () => {
    const text = base('          - name: gpu', '    - name: gpu\n      resourceClaimTemplateName: single-gpu');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'gpu-claim-unresolved',
      severity: 'info',
      container: 'app',
      token: 'gpu',
      line: 12,
      message: ['may get a GPU through claim "gpu"', 'ResourceClaimTemplate "single-gpu"', 'does not guess'],
    });
    assert.deepEqual(result.containers, []);
    assertNone(result, 'gpu-no-memory-limit');
  });

  test('broken references are warnings: undeclared claim, entry without a reference, unknown request', () => {
    const text = base(
      '          - name: missing\n          - name: empty\n          - name: known\n            request: nope',
      '    - name: empty\n    - name: known\n      resourceClaimName: shared',
    );
    const claim = yaml`
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared
  namespace: team-a
spec:
  devices:
    requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com}
`;
    const full = text + claim;
    expectAll(full, lint(full), 'gpu-claim-unresolved', [
      { severity: 'warning', container: 'app', token: 'missing', line: 12, message: 'spec.resourceClaims does not declare' },
      {
        severity: 'warning',
        container: 'app',
        token: 'empty',
        line: 13,
        message: 'names neither a resourceClaimTemplateName nor a resourceClaimName',
      },
      { severity: 'warning', container: 'app', token: 'known', line: 14, message: 'has no request of that name' },
    ]);
  });

  test('a claim in another namespace does not resolve', () => {
    const text =
      base('          - name: gpu', '    - name: gpu\n      resourceClaimName: shared') +
      '---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: shared, namespace: team-b}\nspec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}\n';
    assert.deepEqual(
      findingsOf(lint(text), 'gpu-claim-unresolved').map((f) => f.severity),
      ['info'],
    );
  });
});

describe('cross-file claim resolution', () => {
  test('the pod of one file resolves the template of another through one index', () => {
    const index = new ClaimIndex();
    indexClaims(fixture('dra/cross-file/claim-template.yaml'), index);
    assert.equal(index.size, 1);
    const text = fixture('dra/cross-file/pod.yaml');
    const alone = lint(text);
    assert.deepEqual(ruleIds(alone), ['gpu-claim-unresolved']);
    const result = lintWith(text, index);
    assert.deepEqual(ruleIds(result), ['gpu-no-memory-limit']);
    assert.deepEqual(
      result.containers.map((c) => c.gpuClaims),
      [['claim twogpus → class gpu.nvidia.com, 2 devices']],
    );
  });

  test("the file's own claim wins over the index", () => {
    const index = new ClaimIndex();
    indexClaims(
      'apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {spec: {devices: {requests: [{name: n, exactly: {deviceClassName: nic.example.com}}]}}}\n',
      index,
    );
    const text =
      'apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i, resources: {claims: [{name: x}]}}]\n  resourceClaims: [{name: x, resourceClaimTemplateName: t}]\n';
    assert.deepEqual(ruleIds(lintWith(text, index)), ['gpu-no-memory-limit']);
  });

  test('lookups cost the same at 10 and 10,000 indexed claims (no scan per lookup)', () => {
    const timePerLookup = (claims: number) => {
      const index = new ClaimIndex();
      for (let i = 0; i < claims; i++)
        index.add({
          kind: 'ResourceClaimTemplate',
          name: `t${i}`,
          namespace: `ns${i % 7}`,
          apiVersion: 'resource.k8s.io/v1',
          requests: [],
        });
      const start = process.hrtime.bigint();
      let found = 0;
      for (let i = 0; i < 200_000; i++) if (index.find('ResourceClaimTemplate', `t${i % claims}`, `ns${(i % claims) % 7}`)) found++;
      assert.equal(found, 200_000);
      return Number(process.hrtime.bigint() - start);
    };
    timePerLookup(10);
    const small = Math.min(timePerLookup(10), timePerLookup(10));
    const large = Math.min(timePerLookup(10_000), timePerLookup(10_000));
    assert.ok(large < small * 8, `10,000 claims: ${large} ns vs 10 claims: ${small} ns for 200,000 lookups`);
  });
});

/** Lints with the claims of other files; the per-finding checks of `lint` run on the same text too. */
function lintWith(text: string, claims: ClaimIndex) {
  lint(text);
  return lintText(text, undefined, { claims });
}

describe('CEL selectors', () => {
  test('drivers named by device.driver and by attribute/capacity domains', () => {
    assert.deepEqual(scanCel('device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].productName == "H100"').drivers, [
      'gpu.nvidia.com',
    ]);
    assert.deepEqual(scanCel("'gpu.amd.com' == device.driver").drivers, ['gpu.amd.com']);
    assert.deepEqual(scanCel('device.attributes["resource.kubernetes.io"].pcieRoot == "x"').drivers, []);
  });

  test('memory lower bounds count; upper bounds do not', () => {
    assert.equal(scanCel("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0").memory?.bytes, 40 * GIB);
    assert.equal(scanCel("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('80Gi'))").memory?.bytes, 80 * GIB);
    assert.equal(scanCel("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) <= 0").memory, undefined);
  });

  test('a long hostile expression is scanned to an answer (how the cost grows: bench/growth.mjs)', () => {
    const hostile = 'device.capacity["'.repeat(20_000) + 'device.driver == "'.repeat(20_000);
    assert.equal(scanCel(hostile).memory, undefined);
  });
});

describe('pod-level resources (spec.resources)', () => {
  test('a pod-level limit bounds the GPU container: not "no limit", and its size is checked against the need', () => {
    const text = fixture('dra/pod-level-resources.yaml');
    const result = lint(text);
    assertNone(result, 'gpu-no-memory-limit', 'uma-not-guaranteed');
    expectAll(text, result, 'uma-headroom', [
      { severity: 'warning', container: 'model', token: '16Gi', line: 15, message: ['Pod-level memory limit 16Gi', '"model" 31.2 GiB'] },
      { severity: 'warning', container: 'model', token: '16Gi', line: 18, message: 'Pod-level memory request 16Gi' },
    ]);
    assert.match(result.containers[0]?.title ?? '', /memory limit: 16Gi \(pod-level\)/);
  });

  test("a pod-level limit that covers every GPU container's need is clean", () => {
    const text = fixture('dra/pod-level-resources.yaml').replaceAll('memory: 16Gi', 'memory: 40Gi');
    assertNone(lint(text), 'uma-headroom', 'gpu-no-memory-limit');
  });
});

describe('gpumem lint resolves claims across the files it is given', () => {
  const dir = 'test/fixtures/manifests/dra/cross-file';
  const run = async (args: string[]) => {
    const result = await runCli(['lint', ...args, '--format', 'json'], { timeoutMs: 60_000 });
    return (JSON.parse(result.stdout) as { file: string; ruleId: string; line: number }[]).map(
      (f) => `${f.file.replace(/^.*cross-file\//, '')}:${f.line} ${f.ruleId}`,
    );
  };

  test('the pod file alone: the claim is unresolved; with the template (either order, or the folder): a GPU container', async () => {
    assert.deepEqual(await run([`${dir}/pod.yaml`]), ['pod.yaml:13 gpu-claim-unresolved']);
    assert.deepEqual(await run([`${dir}/pod.yaml`, `${dir}/claim-template.yaml`]), ['pod.yaml:9 gpu-no-memory-limit']);
    assert.deepEqual(await run([dir]), ['pod.yaml:9 gpu-no-memory-limit']);
  });
});

describe('hovers on DRA fields', () => {
  const text = fixture('dra/hami-v1-capacity.yaml');
  const at = (needle: string, options = {}) => {
    const offset = text.indexOf(needle);
    assert.ok(offset >= 0, needle);
    return hoverAt(text, offset + 1, options);
  };

  test('a claim reference resolves in the file: its requests, classes, counts and memory', () => {
    const hover = at('resourceClaimTemplateName: vgpu-10g');
    assert.ok(hover);
    assert.equal(text.slice(hover.start, hover.end), 'resourceClaimTemplateName: vgpu-10g');
    assert.ok(hover.markdown.includes('ResourceClaimTemplate "vgpu-10g":'), hover.markdown);
    assert.ok(
      hover.markdown.includes(
        '- request gpu: class hami-core-gpu.project-hami.io (GPU), 2 devices, 10,737,418,240 bytes (10 GiB) per device',
      ),
      hover.markdown,
    );
  });

  test('a claim in no file says so; one in the workspace index resolves', () => {
    const podOnly = fixture('dra/cross-file/pod.yaml');
    const offset = podOnly.indexOf('resourceClaimTemplateName') + 1;
    assert.match(hoverAt(podOnly, offset)?.markdown ?? '', /is not in this file: gpumem cannot tell whether it hands out a GPU/);
    const index = new ClaimIndex();
    indexClaims(fixture('dra/cross-file/claim-template.yaml'), index);
    assert.match(hoverAt(podOnly, offset, { claims: index })?.markdown ?? '', /request gpu: class gpu\.nvidia\.com \(GPU\), 2 devices/);
  });

  test('deviceClassName and capacity memory', () => {
    assert.match(at('deviceClassName: hami')?.markdown ?? '', /A GPU device class/);
    const site = 'spec:\n  devices:\n    requests:\n      - name: g\n        exactly: {deviceClassName: a100-80g}\n';
    assert.match(hoverAt(site, site.indexOf('a100') + 1)?.markdown ?? '', /add it to gpumem\.lint\.gpuDeviceClasses/);
    assert.match(hoverAt(site, site.indexOf('a100') + 1, { gpuDeviceClasses: ['a100-80g'] })?.markdown ?? '', /A GPU device class/);
    assert.match(
      at('memory: 10Gi')?.markdown ?? '',
      /10Gi = 10,737,418,240 bytes \(10 GiB\) per device\. gpumem counts it as the container's declared GPU memory/,
    );
  });
});

describe('hostile DRA input', () => {
  // 1,000 × 1,000 shows the cap as well as 5,000 × 5,000 did, at a twenty-fifth of the work; bench/growth.mjs measures
  // how the cost grows up to 5,000 × 5,000.
  test('1,000 containers on a claim whose template lists 1,000 GPU requests: each container one GPU claim of at most 32 requests', () => {
    const requests = Array.from({ length: 1000 }, (_, i) => `        - {name: r${i}, exactly: {deviceClassName: gpu.nvidia.com}}`).join(
      '\n',
    );
    const containers = Array.from(
      { length: 1000 },
      (_, i) => `    - {name: c${i}, image: i, resources: {limits: {memory: 1Gi}, claims: [{name: g}]}}`,
    ).join('\n');
    const text = `apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec:\n  spec:\n    devices:\n      requests:\n${requests}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n  containers:\n${containers}\n`;
    const result = lintText(text);
    assert.equal(result.containers.length, 1000);
    assert.ok(result.containers.every((container) => container.gpuClaims.length === 1));
    assert.deepEqual(
      result.containers[0]?.gpuClaims,
      ['claim g → class gpu.nvidia.com (× 32 requests)'],
      'the API server caps a claim at 32 requests; gpumem reads no more',
    );
  });
});
