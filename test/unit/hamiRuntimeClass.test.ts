// Step 6 of HAMi's checklist judges the runtime that runs the pod: the handler of the pod's RuntimeClass when it
// names one (not the class's name), else containerd's default; and the remedy follows the NVIDIA GPU Operator's
// version (v25.10.0 and later use CDI and leave runc the default). Fixtures: the RuntimeClasses real installations
// create (test/simulator/fixtures/05-runtimeclasses.yaml, sources in its comments) and a GPU Operator 25.10 node's
// containerd files (test/fixtures/containerd/README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { parseCapture } from '../../src/core/probe/capture.ts';
import type { HamiClusterFacts, RuntimeClassLookup } from '../../src/core/verdicts/hami/hamiCheck.ts';
import { checkRuntime } from '../../src/core/verdicts/hami/hamiNodeSteps.ts';
import { gpuOperatorUsesCdiByDefault } from '../../src/core/verdicts/hami/hamiRuntimeClass.ts';
import { captureText } from './helpers/captureText.ts';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const CONFIG = '/etc/containerd/config.toml';
const DROP_IN = '/etc/containerd/conf.d/99-nvidia.toml';
const node2510 = parseCapture(
  captureText('node', {
    containerd: {
      files: [
        [CONFIG, read('../fixtures/containerd/gpu-operator-25.10-config.toml')],
        [DROP_IN, read('../fixtures/containerd/gpu-operator-25.10-dropin.toml')],
      ],
    },
  }),
);

const runtimeClasses = new Map(
  parseAllDocuments(read('../simulator/fixtures/05-runtimeclasses.yaml')).map((doc) => {
    const object = doc.toJS() as { metadata: { name: string }; handler: string };
    return [object.metadata.name, object.handler] as const;
  }),
);

function podWith(name: string | null, operator?: string): HamiClusterFacts {
  const handler = name === null ? undefined : runtimeClasses.get(name);
  const runtimeClass: RuntimeClassLookup | undefined =
    name === null ? undefined : handler === undefined ? { kind: 'missing', name } : { kind: 'found', name, handler };
  return { runtimeClassName: name, ...(runtimeClass ? { runtimeClass } : {}), ...(operator ? { gpuOperatorVersion: operator } : {}) };
}

test("step 6: the RuntimeClass HAMi's chart creates (any name, handler nvidia) passes on a node whose default is runc", () => {
  const check = checkRuntime(node2510, podWith('hami-vgpu', 'v25.10.0'));
  assert.equal(check.status, 'pass', check.title);
  assert.equal(
    check.title,
    "the pod's RuntimeClass hami-vgpu runs containerd's runtime nvidia, which runs /usr/local/nvidia/toolkit/nvidia-container-runtime",
  );
  assert.ok(check.evidence.includes('kubectl: RuntimeClass hami-vgpu handler: nvidia'), check.evidence.join('\n'));
  assert.ok(
    check.evidence.includes(`${DROP_IN}: BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"`),
    check.evidence.join('\n'),
  );
  // The GPU Operator's own classes run its runtimes, in CDI mode for nvidia-cdi.
  assert.equal(checkRuntime(node2510, podWith('nvidia', 'v25.10.0')).status, 'pass');
  assert.match(checkRuntime(node2510, podWith('nvidia-cdi', 'v25.10.0')).title, /nvidia-container-runtime\.cdi \(CDI mode\)$/);
});

test('step 6: a GPU pod with no RuntimeClass on a GPU Operator 25.10 node fails with the CDI remedy', () => {
  const check = checkRuntime(node2510, podWith(null, 'v25.10.0'));
  assert.equal(check.status, 'fail');
  assert.equal(check.title, "containerd's default runtime runc is not NVIDIA's");
  assert.ok(check.status === 'fail' && /uses CDI and no longer makes nvidia containerd's default runtime/.test(check.remedy), check.status);
  assert.ok(check.status === 'fail' && check.remedy.includes('devicePlugin.runtimeClassName=nvidia'));
  // An older operator: make nvidia the default (or use the class).
  const older = checkRuntime(node2510, podWith(null, 'v24.9.2'));
  assert.ok(older.status === 'fail' && older.remedy.includes('--set-as-default'), older.status);
  assert.ok(older.status === 'fail' && !older.remedy.includes('uses CDI'));
});

test('step 6: a RuntimeClass is judged by its handler, not its name', () => {
  const gvisor = checkRuntime(node2510, podWith('gvisor'));
  assert.equal(gvisor.status, 'fail');
  assert.equal(gvisor.title, "the pod's RuntimeClass gvisor runs the handler runsc, not NVIDIA's runtime");
  // A class named nvidia whose handler is runc, as `kubectl edit` can leave it.
  const misnamed = checkRuntime(node2510, { runtimeClassName: 'nvidia', runtimeClass: { kind: 'found', name: 'nvidia', handler: 'runc' } });
  assert.equal(misnamed.status, 'fail', misnamed.title);
  assert.equal(misnamed.title, "the pod's RuntimeClass nvidia runs containerd's runtime runc, not NVIDIA's");
  // A class that no longer exists proves nothing.
  assert.equal(checkRuntime(node2510, podWith('nvidia-gone')).status, 'fail');
  // Without the object (a capture taken offline), an NVIDIA name still passes, saying it is by name only.
  const byName = checkRuntime(undefined, { runtimeClassName: 'nvidia' });
  assert.equal(byName.status, 'pass');
  assert.match(byName.title, /by its name only/);
  // Without a node capture the handler's name decides.
  assert.match(checkRuntime(undefined, podWith('hami-vgpu')).title, /runs the handler nvidia \(by its name only\)$/);
});

test('step 6: the GPU Operator version that switched to CDI', () => {
  assert.deepEqual(
    ['v25.10.0', 'v25.10.1', 'v26.3.0', 'v25.3.4', 'v24.9.2', '25.10', 'main-latest', undefined].map(gpuOperatorUsesCdiByDefault),
    [true, true, true, false, false, true, undefined, undefined],
  );
});
