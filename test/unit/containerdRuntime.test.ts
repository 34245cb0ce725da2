// Issue 17, class 8 (detection): containerd's NVIDIA runtime is recognised by what it runs, wherever the
// distribution keeps the config; the HAMi host directory follows devicePlugin.libPath; a preload target
// without a listing is not a pass. Fixtures: test/fixtures/containerd/README.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { nvidiaRuntimeEvidence, parseContainerdRuntimes } from '../../src/core/probe/parsers/containerdConfig.ts';
import { buildProbeScript } from '../../src/core/probe/script.ts';
import { NODE_BODY } from '../../src/core/probe/scripts/nodeScript.ts';
import { checkRuntime } from '../../src/core/verdicts/hami/hamiNodeSteps.ts';
import { checkPreloadTarget } from '../../src/core/verdicts/hami/hamiLoaderBypasses.ts';
import type { Facts } from '../../src/core/verdicts/hami/hamiFacts.ts';
import { captureText } from './helpers/captureText.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/containerd/${name}`, import.meta.url), 'utf8');
const K3S = '/var/lib/rancher/k3s/agent/etc/containerd/config.toml';
const RKE2 = '/var/lib/rancher/rke2/agent/etc/containerd/config.toml.tmpl';
const MICROK8S = '/var/snap/microk8s/current/args/containerd-template.toml';

function nodeWith(path: string, body: string) {
  return parseCapture(captureText('node', { containerd: { files: [[path, body]] } }));
}

test('class 8: a default runtime named other than nvidia passes when it runs nvidia-container-runtime (k3s, CDI mode)', () => {
  const verdict = checkRuntime(nodeWith(K3S, fixture('k3s-v3-generated.toml')), undefined);
  assert.equal(verdict.status, 'pass', verdict.summary);
  assert.equal(verdict.title, "containerd's default runtime nvidia-cdi runs /usr/bin/nvidia-container-runtime.cdi (CDI mode)");
  assert.ok(verdict.evidence.includes(`${K3S}: BinaryName = "/usr/bin/nvidia-container-runtime.cdi"`), verdict.evidence.join('\n'));
});

test('class 8: RKE2 toolkit template, legacy mode; every runtime nvidia-ctk writes is recognised', () => {
  const verdict = checkRuntime(nodeWith(RKE2, fixture('rke2-v2-toolkit.toml')), undefined);
  assert.equal(verdict.status, 'pass', verdict.summary);
  assert.match(verdict.title, /nvidia-legacy runs \/usr\/local\/nvidia\/toolkit\/nvidia-container-runtime\.legacy \(legacy mode\)/);
  const { runtimes } = parseContainerdRuntimes(new Map([[RKE2, fixture('rke2-v2-toolkit.toml')]]));
  assert.deepEqual(
    [...runtimes.values()].map((runtime) => [runtime.name, nvidiaRuntimeEvidence(runtime)?.kind]),
    [
      ['nvidia', 'binary'],
      ['nvidia-cdi', 'binary'],
      ['nvidia-legacy', 'binary'],
    ],
  );
});

test("class 8: a runtime named nvidia that runs runc is not NVIDIA's", () => {
  const config =
    'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "nvidia"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n  BinaryName = "/usr/bin/runc"\n';
  const verdict = checkRuntime(nodeWith('/etc/containerd/config.toml', config), undefined);
  assert.equal(verdict.status, 'fail');
  assert.equal(`${verdict.title}: ${verdict.summary}`, "containerd's default runtime nvidia is not NVIDIA's: it runs /usr/bin/runc");
});

test("class 8: MicroK8s' ${RUNTIME} placeholder is not a setting; its NVIDIA runtime is named in the failure", () => {
  const parsed = parseContainerdRuntimes(new Map([[MICROK8S, fixture('microk8s-template.toml')]]));
  assert.equal(parsed.defaultRuntime, undefined);
  const runtime = parsed.runtimes.get('nvidia-container-runtime');
  assert.ok(runtime);
  assert.deepEqual(nvidiaRuntimeEvidence(runtime), { kind: 'binary', binary: 'nvidia-container-runtime', mode: 'auto' });
  assert.equal(checkRuntime(nodeWith(MICROK8S, fixture('microk8s-template.toml')), undefined).status, 'fail', 'no default set: runc');
});

test('class 8: the node probe reads containerd where k3s, RKE2 and MicroK8s keep it', () => {
  for (const path of [
    K3S,
    '/var/lib/rancher/k3s/agent/etc/containerd/config.toml.tmpl',
    '/var/lib/rancher/k3s/agent/etc/containerd/config-v3.toml.tmpl',
    '/var/lib/rancher/rke2/agent/etc/containerd/config.toml',
    RKE2,
    MICROK8S,
  ]) {
    assert.ok(NODE_BODY.includes(`"$R${path}"`), path);
  }
});

test('class 8: the node probe follows a custom HAMi library path, validated like the host root', () => {
  const script = buildProbeScript({ scope: 'node', nonce: '0123456789abcdef', hamiLibPath: '/var/lib/hami' });
  assert.match(script, /^GPUMEM_HAMI_DIR='\/var\/lib\/hami'$/m);
  assert.match(buildProbeScript({ scope: 'node', nonce: '0123456789abcdef' }), /^GPUMEM_HAMI_DIR='\/usr\/local\/vgpu'$/m);
  assert.doesNotMatch(buildProbeScript({ scope: 'container', nonce: '0123456789abcdef' }), /GPUMEM_HAMI_DIR/);
  for (const bad of ['', 'relative', '/a/../b', "/x'y", '/a b']) {
    assert.throws(() => buildProbeScript({ scope: 'node', nonce: '0123456789abcdef', hamiLibPath: bad }), /HAMi library path/, bad);
  }
  assert.ok(NODE_BODY.includes('onefile "$H/ld.so.preload"') && NODE_BODY.includes('"$H"/containers/*/*.cache'));
});

test('class 8: checkPreloadTarget without a vgpu section is unknown, not a pass', () => {
  const facts = {
    container: { preload: { state: 'file', entries: ['/usr/local/vgpu/libvgpu.so'], lines: [] }, vgpuDir: undefined },
    logLines: [],
  } as unknown as Facts;
  const verdict = checkPreloadTarget(facts);
  assert.equal(verdict.status, 'unknown', verdict.summary);
  assert.match(verdict.summary, /no \/usr\/local\/vgpu listing \(no vgpu section\)/);
  const other = {
    ...facts,
    container: { ...facts.container, preload: { state: 'file', entries: ['/lib/libjemalloc.so'], lines: [] } },
  } as unknown as Facts;
  assert.equal(checkPreloadTarget(other).status, 'fail');
});

const LEGACY = '/etc/containerd/config.toml';

test('containerd 1.2–1.4 legacy config: the v1 shim runs [plugins.linux] runtime when runtime_engine is empty (k0s docs)', () => {
  const verdict = checkRuntime(nodeWith(LEGACY, fixture('legacy-1.3-v1-shim.toml')), undefined);
  assert.equal(verdict.status, 'pass', verdict.summary);
  assert.equal(verdict.title, "containerd's default runtime default_runtime runs nvidia-container-runtime");
});

test('containerd 1.2–1.4 legacy config: a default named nvidia-container-runtime runs its runtime_engine', () => {
  const verdict = checkRuntime(nodeWith(LEGACY, fixture('legacy-1.2-named-engine.toml')), undefined);
  assert.equal(verdict.status, 'pass', verdict.summary);
  assert.equal(verdict.title, "containerd's default runtime nvidia-container-runtime runs /usr/bin/nvidia-container-runtime");
  // The same default whose engine is empty runs [plugins.linux] runtime: runc, not NVIDIA's.
  const runc = checkRuntime(
    nodeWith(
      LEGACY,
      fixture('legacy-1.2-named-engine.toml').replace('runtime_engine = "/usr/bin/nvidia-container-runtime"', 'runtime_engine = ""'),
    ),
    undefined,
  );
  assert.equal(runc.status, 'fail');
  assert.match(runc.summary, /it runs runc/);
});
