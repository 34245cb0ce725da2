// The settings parse (src/core/settings.ts): package.json's defaults give the documented snapshot, every
// number is clamped to the range package.json declares, and a value of the wrong type falls back to the
// default instead of reaching the linter or a probe.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseKubeSettings, parseSampleSeconds, parseSettings } from '../../src/core/settings.ts';
import type { SettingsReader } from '../../src/core/settings.ts';

interface SettingSchema {
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, SettingSchema> } | { properties: Record<string, SettingSchema> }[] };
};
const schema = new Map([manifest.contributes.configuration].flat().flatMap((section) => Object.entries(section.properties)));

/** What VS Code's getConfiguration().get(key) returns: the user's value, else package.json's default. */
function reader(user: Record<string, unknown> = {}): SettingsReader {
  return (key) => (key in user ? user[key] : schema.get(key)?.default);
}

const KUBE_DEFAULTS = { debugImage: 'busybox:1.36', liveDebugPodDeadlineSeconds: 3600, liveDebugPodIdleMs: 120_000 };

describe('parseSettings', () => {
  test('package.json defaults', () => {
    const settings = parseSettings(reader());
    assert.equal(settings.enabled, true);
    // Written out, not DEFAULT_CONFIG: the snapshot the README documents, whatever the code's constant says.
    const { unifiedMemoryNodeLabels, ...lint } = settings.lint;
    assert.deepEqual(lint, { headroomPercent: 30, dedicatedNodeTaintKey: '', hamiDetection: 'auto', gpuDeviceClasses: [], rules: {} });
    assert.deepEqual(
      unifiedMemoryNodeLabels.map((rule) => rule.key),
      [
        'amd.com/gpu.device-id',
        'beta.amd.com/gpu.device-id',
        'amd.com/gpu.family',
        'beta.amd.com/gpu.family',
        'amd.com/gpu.product-name',
        'nvidia.com/gpu.product',
        'gpumem.io/unified-memory',
      ],
    );
    // The PCI device ids of Strix Halo (1586), Strix Point (150e) and Krackan Point (1114).
    const [deviceIds] = unifiedMemoryNodeLabels;
    assert.deepEqual(deviceIds && 'values' in deviceIds ? deviceIds.values : undefined, ['1586', '150e', '1114']);
    assert.deepEqual(settings.problems, []);
    assert.deepEqual(settings.exclude, ['**/node_modules/**', '**/.git/**']);
    assert.equal(settings.maxFileBytes, 1024 * 1024);
    assert.equal(settings.debounceMs, 250);
    assert.equal(settings.codeLens, 'all');
    assert.equal(settings.probeTimeoutMs, 120_000);
    assert.deepEqual(settings.hamiLibPath, { kind: 'default' }, "package.json's /usr/local/vgpu is HAMi's own default");
    assert.equal(settings.inspectorSampleSeconds, 5);
    assert.deepEqual(settings.sshHosts, []);
  });

  test('numbers are clamped to the ranges package.json declares', () => {
    const low = parseSettings(
      reader({
        'gpumem.lint.maxFileSizeKB': 1,
        'gpumem.lint.debounceMs': -5,
        'gpumem.probe.timeoutSeconds': 1,
        'gpumem.inspector.sampleSeconds': 0.2,
      }),
    );
    assert.equal(low.maxFileBytes, (schema.get('gpumem.lint.maxFileSizeKB')?.minimum ?? NaN) * 1024);
    assert.equal(low.debounceMs, schema.get('gpumem.lint.debounceMs')?.minimum);
    assert.equal(low.probeTimeoutMs, (schema.get('gpumem.probe.timeoutSeconds')?.minimum ?? NaN) * 1000);
    assert.equal(low.inspectorSampleSeconds, 1, 'a positive period under a second is one second');
    const high = parseSettings(
      reader({ 'gpumem.lint.debounceMs': 1e9, 'gpumem.probe.timeoutSeconds': 1e9, 'gpumem.inspector.sampleSeconds': 1e9 }),
    );
    assert.equal(high.debounceMs, schema.get('gpumem.lint.debounceMs')?.maximum);
    assert.equal(high.probeTimeoutMs, (schema.get('gpumem.probe.timeoutSeconds')?.maximum ?? NaN) * 1000);
    assert.equal(high.inspectorSampleSeconds, schema.get('gpumem.inspector.sampleSeconds')?.maximum);
  });

  test('sampling is off at 0 or below, and for what is not a number', () => {
    for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5', null]) assert.equal(parseSampleSeconds(value), 0, String(value));
    assert.equal(parseSampleSeconds(30), 30);
  });

  test('values of the wrong type fall back to the defaults', () => {
    const settings = parseSettings(
      reader({
        'gpumem.lint.enable': 'no',
        'gpumem.lint.exclude': 'dist/**',
        'gpumem.lint.maxFileSizeKB': '2048',
        'gpumem.lint.debounceMs': null,
        'gpumem.lint.codeLens': 'sometimes',
        'gpumem.probe.timeoutSeconds': Number.NaN,
        'gpumem.ssh.hosts': 'gpu-node-1',
      }),
    );
    assert.equal(settings.enabled, true);
    assert.deepEqual(settings.exclude, []);
    assert.equal(settings.maxFileBytes, 1024 * 1024);
    assert.equal(settings.debounceMs, 250);
    assert.equal(settings.codeLens, 'all');
    assert.equal(settings.probeTimeoutMs, 120_000);
    assert.deepEqual(settings.sshHosts, []);
  });

  test('SSH hosts are trimmed; blanks and non-strings are dropped', () => {
    assert.deepEqual(parseSettings(reader({ 'gpumem.ssh.hosts': [' root@gpu-node-1 ', '', '   ', 7, 'strix'] })).sshHosts, [
      'root@gpu-node-1',
      'strix',
    ]);
  });

  test('invalid lint settings and HAMi path are reported as problems', () => {
    const settings = parseSettings(reader({ 'gpumem.lint.headroomPercent': -1, 'gpumem.probe.hamiLibPath': 'relative/path' }));
    assert.ok(
      settings.problems.some((line) => line.startsWith('gpumem.lint.headroomPercent:')),
      settings.problems.join('\n'),
    );
    assert.ok(
      settings.problems.some((line) => line.startsWith('gpumem.probe.hamiLibPath:')),
      settings.problems.join('\n'),
    );
    assert.equal(settings.lint.headroomPercent, 30);
  });
});

describe('parseKubeSettings', () => {
  test('package.json defaults', () => {
    assert.deepEqual(parseKubeSettings(reader(), KUBE_DEFAULTS), {
      kubeconfig: undefined,
      debugImage: 'busybox:1.36',
      debugNamespace: 'default',
      nodeProbe: 'debug-pod',
      useAgentPod: true,
      sshHostFrom: 'address',
      execMode: { kind: 'api' },
      liveDebugPodDeadlineSeconds: 3600,
      liveDebugPodIdleMs: 120_000,
      requestTimeoutMs: 15_000,
      probeTimeoutMs: 5_000,
    });
  });

  test('clamps, trims and fallbacks', () => {
    const settings = parseKubeSettings(
      reader({
        'gpumem.kubeconfig': '  /home/me/.kube/lab  ',
        'gpumem.kubernetes.debugImage': '   ',
        'gpumem.kubernetes.debugNamespace': 'Not_A_Label',
        'gpumem.kubernetes.nodeProbe': 'ssh',
        'gpumem.kubernetes.sshHostFrom': 'nodeName',
        'gpumem.kubernetes.useAgentPod': false,
        'gpumem.kubernetes.execMode': 'kubectl',
        'gpumem.kubernetes.kubectlPath': ' ',
        'gpumem.kubernetes.liveSamplingPodDeadlineSeconds': 1,
        'gpumem.kubernetes.liveSamplingPodIdleSeconds': 1e9,
        'gpumem.kubernetes.requestTimeoutSeconds': 2,
      }),
      KUBE_DEFAULTS,
    );
    assert.equal(settings.kubeconfig, '/home/me/.kube/lab');
    assert.equal(settings.debugImage, 'busybox:1.36');
    assert.equal(settings.debugNamespace, 'default');
    assert.equal(settings.nodeProbe, 'ssh');
    assert.equal(settings.sshHostFrom, 'node-name');
    assert.equal(settings.useAgentPod, false);
    assert.deepEqual(settings.execMode, { kind: 'kubectl', kubectlPath: 'kubectl' });
    assert.equal(settings.liveDebugPodDeadlineSeconds, schema.get('gpumem.kubernetes.liveSamplingPodDeadlineSeconds')?.minimum);
    assert.equal(settings.liveDebugPodIdleMs, (schema.get('gpumem.kubernetes.liveSamplingPodIdleSeconds')?.maximum ?? NaN) * 1000);
    assert.equal(settings.requestTimeoutMs, 2000);
    assert.equal(settings.probeTimeoutMs, 2000, 'the version probe never waits longer than a request');
    assert.equal(parseKubeSettings(reader({ 'gpumem.kubernetes.requestTimeoutSeconds': 1e6 }), KUBE_DEFAULTS).requestTimeoutMs, 300_000);
  });
});
