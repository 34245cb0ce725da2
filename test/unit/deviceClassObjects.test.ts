// DeviceClass objects of the linted files: a class whose CEL selector names a GPU driver makes the extended resource
// it serves (`spec.extendedResourceName`, or `deviceclass.resource.kubernetes.io/<class>`) and the claims of its
// class GPU requests, whatever the names say; a class that selects a NIC's devices makes none. In one file, across
// the files of one run, and in the CLI. Fixtures: test/fixtures/manifests/dra/device-classes/README.md.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hoverAt } from '../../src/core/analysis/hover.ts';
import { indexClaims, mayUseClaims } from '../../src/core/crossFile.ts';
import { judgeDeviceClass } from '../../src/core/gpuDeviceClasses.ts';
import { lintText } from '../../src/core/lint.ts';
import { ClaimIndex } from '../../src/core/manifest/draClaims.ts';
import { runCli } from '../helpers/cli.ts';
import { findingsOf, fixture, lint, ruleIds } from './helpers/lint.ts';

const dir = 'dra/device-classes';
const accelClass = fixture(`${dir}/derived/accel-deviceclass.yaml`);
const accelPod = fixture(`${dir}/derived/accel-pod.yaml`);
const gpuTitles = (result: ReturnType<typeof lintText>) => result.containers.map((container) => container.title.split(' · ')[0]);

describe('DeviceClass objects in the linted files', () => {
  test('alone, example.com/accel and the implicit name of an unknown class are no GPU', () => {
    assert.deepEqual(lint(accelPod).containers, []);
    assert.deepEqual(ruleIds(lint(accelPod)), []);
  });

  test('in the same file: a class that selects gpu.nvidia.com devices makes both containers GPU containers, and the finding names it', () => {
    const result = lint(`${accelClass}---\n${accelPod}`);
    assert.deepEqual(gpuTitles(result), [
      'GPU: example.com/accel 1 (DeviceClass accel-1g-12gb)',
      'GPU: deviceclass.resource.kubernetes.io/accel-1g-12gb 1 (DeviceClass accel-1g-12gb)',
    ]);
    const findings = findingsOf(result, 'gpu-no-memory-limit');
    assert.deepEqual(
      findings.map((finding) => finding.container),
      ['cuda-container', 'implicit-name'],
    );
    assert.match(
      findings[0]?.message ?? '',
      /example\.com\/accel is the extended resource of the DeviceClass "accel-1g-12gb" in this file, which selects gpu\.nvidia\.com devices/,
    );
    assert.match(
      findings[1]?.message ?? '',
      /deviceclass\.resource\.kubernetes\.io\/accel-1g-12gb requests devices of the DeviceClass "accel-1g-12gb"/,
    );
  });

  test('across the files of a run: the class of another file, named with its file', () => {
    const index = new ClaimIndex();
    indexClaims(accelClass, index, 'cluster/accel-deviceclass.yaml');
    const result = lintText(accelPod, undefined, { claims: index });
    assert.equal(result.containers.length, 2);
    const [first] = findingsOf(result, 'gpu-no-memory-limit');
    assert.match(
      first?.message ?? '',
      /the DeviceClass "accel-1g-12gb" in cluster\/accel-deviceclass\.yaml, which selects gpu\.nvidia\.com/,
    );
    // The pod file waits for the index: its extended resource is nothing gpumem knows by name.
    assert.equal(mayUseClaims(accelPod), true);
    assert.equal(mayUseClaims('resources:\n  limits:\n    nvidia.com/gpu: 1\n    memory: 1Gi\n'), false);
    assert.equal(mayUseClaims('image: registry.k8s.io/pause:3.9\n'), false, 'an image reference is no resource');
    assert.equal(mayUseClaims('{"limits": {"example.com/accel":1}}'), true, 'JSON, minified');
  });

  test('a claim of a class whose name does not say GPU is a GPU claim when its DeviceClass selects GPU devices', () => {
    const claimPod = [
      'apiVersion: resource.k8s.io/v1',
      'kind: ResourceClaimTemplate',
      'metadata: {name: accel}',
      'spec: {spec: {devices: {requests: [{name: a, exactly: {deviceClassName: accel-1g-12gb}}]}}}',
      '---',
      'apiVersion: v1',
      'kind: Pod',
      'metadata: {name: p}',
      'spec:',
      '  containers: [{name: c, image: i, resources: {claims: [{name: x}]}}]',
      '  resourceClaims: [{name: x, resourceClaimTemplateName: accel}]',
      '',
    ].join('\n');
    assert.deepEqual(lint(claimPod).containers, [], 'without the DeviceClass, the class name says nothing');
    const result = lint(`${accelClass}---\n${claimPod}`);
    assert.deepEqual(ruleIds(result), ['gpu-no-memory-limit']);
    assert.deepEqual(gpuTitles(result), ['GPU via claim x → class accel-1g-12gb']);
  });

  test('a class that selects a NIC driver makes nothing a GPU, even a resource whose name says GPU', () => {
    const pods = fixture(`${dir}/derived/net-pod.yaml`);
    assert.deepEqual(gpuTitles(lint(pods)), ['GPU: example.com/gpu 1'], 'alone, <domain>/gpu is a GPU by its name');
    const index = new ClaimIndex();
    indexClaims(fixture(`${dir}/derived/net-deviceclass.yaml`), index, 'net-deviceclass.yaml');
    const result = lintText(pods, undefined, { claims: index });
    assert.deepEqual(result.containers, []);
    assert.deepEqual(ruleIds(result), []);
  });

  test("NVIDIA's MIG class in the same file: the pod stays a GPU container, with no note about the class it did not need", () => {
    const result = lint(fixture(`${dir}/nvidia-mig-1g-12gb.yaml`));
    assert.deepEqual(gpuTitles(result), ['GPU: nvidia.com/mig-1g.12gb 1']);
    const [finding] = findingsOf(result, 'gpu-no-memory-limit');
    assert.doesNotMatch(finding?.message ?? '', /DeviceClass/);
  });

  test("the NVIDIA chart's classes, Helm templates with the API version an action, are indexed and judged by their selectors", () => {
    const index = new ClaimIndex();
    for (const name of ['gpu', 'mig', 'compute-domain-default-channel'])
      indexClaims(fixture(`${dir}/nvidia-chart/deviceclass-${name}.yaml`), index, `deviceclass-${name}.yaml`);
    assert.equal(index.deviceClass('gpu.nvidia.com')?.extendedResourceName, 'nvidia.com/gpu');
    assert.equal(index.deviceClassFor('nvidia.com/gpu')?.name, 'gpu.nvidia.com');
    const verdict = (name: string) => judgeDeviceClass(name, index.deviceClass(name)?.drivers);
    assert.deepEqual(verdict('mig.nvidia.com'), { gpu: true, by: 'driver', driver: 'gpu.nvidia.com' });
    assert.deepEqual(verdict('compute-domain-default-channel.nvidia.com'), { gpu: false, drivers: ['compute-domain.nvidia.com'] });
    // nvidia.com/gpu is a GPU by its own name: the class adds no note to its findings.
    const pod =
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]\n';
    const [finding] = findingsOf(lintText(pod, undefined, { claims: index }), 'gpu-no-memory-limit');
    assert.doesNotMatch(finding?.message ?? '', /DeviceClass/);
  });

  test('a hover on the extended resource names the DeviceClass that serves it and what it selects', () => {
    const text = `${accelClass}---\n${accelPod}`;
    const at = text.indexOf('example.com/accel: 1');
    const markdown = hoverAt(text, at + 1)?.markdown ?? '';
    assert.match(
      markdown,
      /Served by the DeviceClass "accel-1g-12gb" \(in this file\): it selects gpu\.nvidia\.com devices, so this is a GPU request\./,
    );
    const index = new ClaimIndex();
    indexClaims(fixture(`${dir}/derived/net-deviceclass.yaml`), index, 'net-deviceclass.yaml');
    const pods = fixture(`${dir}/derived/net-pod.yaml`);
    const nic = hoverAt(pods, pods.indexOf('example.com/gpu: 1') + 1, { claims: index })?.markdown ?? '';
    assert.match(
      nic,
      /DeviceClass "net\.example\.com" \(in net-deviceclass\.yaml\): it selects net\.example\.com devices, so this is no GPU\./,
    );
  });

  test('which selectors make a class a GPU class (the documented accelerator decision)', () => {
    const judged = (drivers: string[]) => judgeDeviceClass('any-class', drivers).gpu;
    assert.deepEqual(
      [
        ['gpu.nvidia.com'],
        ['gpu.amd.com'],
        ['gpu.intel.com'],
        ['gaudi.intel.com'],
        ['hami-core-gpu.project-hami.io'],
        ['gpu.example.com'],
        ['neuron.aws.com'],
        ['dra.net'],
        ['sriovnetwork.k8snetworkplumbingwg.io'],
        ['compute-domain.nvidia.com'],
        ['tpu.google.com'],
      ].map(judged),
      [true, true, true, true, true, true, false, false, false, false, false],
    );
    // The user's own list wins over the selectors.
    assert.equal(judgeDeviceClass('any-class', ['neuron.aws.com'], new Set(['any-class'])).gpu, true);
  });
});

describe('gpumem lint reads DeviceClasses across the files it is given', () => {
  const root = 'test/fixtures/manifests/dra/device-classes/derived';
  const run = async (args: string[]) => {
    const result = await runCli(['lint', ...args, '--format', 'json'], { timeoutMs: 60_000 });
    return (JSON.parse(result.stdout) as { file: string; ruleId: string; line: number; message: string }[])
      .filter((finding) => finding.file.includes('accel'))
      .map(
        (finding) =>
          `${finding.file.replace(/^.*derived\//, '')}:${finding.line} ${finding.ruleId} ${/DeviceClass "([^"]+)" in (\S+),/.exec(finding.message)?.slice(1).join(' ') ?? ''}`,
      );
  };

  test('the pod file alone: no GPU; with the folder (the class file comes first or last): two GPU containers, the class named with its file', async () => {
    assert.deepEqual(await run([`${root}/accel-pod.yaml`]), []);
    const expected = [
      `accel-pod.yaml:18 gpu-no-memory-limit accel-1g-12gb ${root}/accel-deviceclass.yaml`,
      `accel-pod.yaml:24 gpu-no-memory-limit accel-1g-12gb ${root}/accel-deviceclass.yaml`,
    ];
    assert.deepEqual(await run([root]), expected);
    assert.deepEqual(await run([`${root}/accel-pod.yaml`, `${root}/accel-deviceclass.yaml`]), expected);
  });
});
