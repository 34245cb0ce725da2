// The kubectl exec mode (src/kube/kubectlExecTransport.ts) with the REAL kubectl binary against the API
// simulator (test/simulator): the container probe in a fixture pod, exit statuses, stdin, container selection,
// RBAC refusals (on pods/exec, and on the get kubectl does first), a missing pod, cancel and timeout killing
// kubectl's process group, several kubeconfig files through KUBECONFIG, and the node debug pod exec'd through
// kubectl (created, probed, deleted — on an exec refusal too).
//
// kubectl 1.30+ execs over WebSocket (v5.channel.k8s.io), which the simulator speaks; before that it only
// speaks SPDY/3.1, which the simulator refuses with a message saying so. kubectl GETs the pod first (and
// defaults the container from it), then upgrades `GET …/pods/<pod>/exec`; after a refused WebSocket upgrade
// it retries with SPDY (a POST), which the simulator answers with the same 403.
//
// Needs root for the simulator's chroot roots, and kubectl on PATH; skipped with the reason otherwise (the
// missing-binary and name-validation tests run anyway). kubectl runs with HOME in a temp directory, so its
// caches never touch the real home, and without the caller's KUBECONFIG.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import type { ExecRequest, Transport, TransportFailure } from '../../src/core/probe/transport.ts';
import type { ClusterClient } from '../../src/kube/clusterClient.ts';
import { DEBUG_CONTAINER } from '../../src/kube/debugPodSpec.ts';
import { DebugPodTransport } from '../../src/kube/debugPodTransport.ts';
import { KubectlExecTransport } from '../../src/kube/kubectlExecTransport.ts';
import type { KubectlExecTransportOptions } from '../../src/kube/kubectlExecTransport.ts';
import { fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { completeFixtures, loadFixtures, mergeFixtures, parseFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { eventually, transportFailure } from '../helpers/asserts.ts';
import { kubeconfigClient } from '../helpers/debugPodCluster.ts';
import { KUBECTL_MISSING, kubectlExecArgs, kubectlOnPath } from '../helpers/kubectl.ts';

const T = { timeout: 60_000 };
const DEBUG_NS = 'gpumem-debug';

const KUBECTL = kubectlOnPath();
const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();
const SKIP = NO_ROOTS ?? (KUBECTL ? undefined : KUBECTL_MISSING);

// A pod with two containers, each with its own root, to see which one kubectl execs into.
const PAIR_FIXTURES = `
apiVersion: v1
kind: Pod
metadata:
  name: pair-0
  namespace: ml
spec:
  nodeName: strix-node-1
  containers:
    - name: main
      image: busybox:1.36
    - name: sidecar
      image: busybox:1.36
---
apiVersion: sim.gpumem.dev/v1
kind: ContainerRoot
metadata:
  name: pair-0-main
spec:
  namespace: ml
  pod: pair-0
  container: main
  files:
    - path: /etc/role
      content: "main\\n"
---
apiVersion: sim.gpumem.dev/v1
kind: ContainerRoot
metadata:
  name: pair-0-sidecar
spec:
  namespace: ml
  pod: pair-0
  container: sidecar
  files:
    - path: /etc/role
      content: "sidecar\\n"
`;

function request(script: string, extra: Partial<ExecRequest> = {}): ExecRequest {
  return { script, timeoutMs: 30_000, maxOutputBytes: 1024 * 1024, ...extra };
}

/** PIDs of the processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('kubectl exec mode: without a usable binary or with a bad name', () => {
  test('a kubectl that does not exist: a spawn failure that names the settings', T, async () => {
    const transport = new KubectlExecTransport({ kubectlPath: '/nonexistent/bin/kubectl', context: 'c', namespace: 'default', pod: 'p' });
    const failure = await transportFailure(transport.run(request('true')));
    assert.equal(failure.kind, 'spawn');
    assert.match(
      failure.kind === 'spawn' ? failure.detail : '',
      /\/nonexistent\/bin\/kubectl: not found \(ENOENT\).*gpumem\.kubernetes\.kubectlPath/,
    );
    const hinted = new KubectlExecTransport({
      kubectlPath: '/nonexistent/bin/kubectl',
      missingBinaryHint: 'install kubectl',
      context: 'c',
      namespace: 'default',
      pod: 'p',
    });
    const custom = await transportFailure(hinted.run(request('true')));
    assert.match(custom.kind === 'spawn' ? custom.detail : '', /\. install kubectl$/);
  });

  test('a pod name that would be a flag: refused before kubectl starts', T, async () => {
    const transport = new KubectlExecTransport({
      kubectlPath: '/nonexistent/bin/kubectl',
      context: 'c',
      namespace: 'default',
      pod: '--kubeconfig=/tmp/x',
    });
    assert.equal(transport.argv, undefined);
    const failure = await transportFailure(transport.run(request('true')));
    assert.equal(failure.kind, 'spawn');
    assert.match(
      failure.kind === 'spawn' ? failure.detail : '',
      /^refusing to run kubectl: pod "--kubeconfig=\/tmp\/x" is not a valid Kubernetes name/,
    );
  });
});

describe('kubectl exec mode: the real kubectl against the simulator', { skip: SKIP ?? false }, () => {
  let sim: Simulator;
  let dir: string;
  let kubeconfig: string;
  let env: NodeJS.ProcessEnv;
  let admin: ClusterClient;

  before(async () => {
    sim = await startSimulator({
      fixtures: completeFixtures(mergeFixtures(loadFixtures(), parseFixtures(PAIR_FIXTURES, { source: 'kubectlExec.test.ts' }))),
      users: [
        {
          name: 'noexec',
          rules: [
            { verbs: ['get', 'list', 'watch'], resources: ['*'] },
            { verbs: ['create', 'delete'], resources: ['pods'], namespaces: [DEBUG_NS] },
          ],
        },
      ],
    });
    dir = mkdtempSync(join(tmpdir(), 'gpumem-kubectl-'));
    mkdirSync(join(dir, 'home'));
    kubeconfig = join(dir, 'kubeconfig.yaml');
    // Contexts gpumem-demo (admin), gpumem-demo-limited, gpumem-demo-nobody, gpumem-demo-noexec.
    writeFileSync(kubeconfig, sim.kubeconfig(['admin', 'limited', 'nobody', 'noexec']), { mode: 0o600 });
    env = { ...process.env, HOME: join(dir, 'home') };
    delete env['KUBECONFIG'];
    admin = await kubeconfigClient(kubeconfig, 'gpumem-demo');
  });

  after(async () => {
    admin?.dispose();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function kubectl(
    options: Partial<KubectlExecTransportOptions> & Pick<KubectlExecTransportOptions, 'namespace' | 'pod'>,
  ): KubectlExecTransport {
    return new KubectlExecTransport({
      kubectlPath: KUBECTL as string,
      kubeconfigFiles: [kubeconfig],
      context: 'gpumem-demo',
      env,
      ...options,
    });
  }

  test('the container probe in the HAMi pod: exit status 0, the capture on stdout, analysed as enforced', T, async () => {
    const transport = kubectl({ namespace: 'ml', pod: 'trainer-0', container: 'trainer' });
    assert.deepEqual(transport.argv, [
      KUBECTL,
      ...kubectlExecArgs({ kubeconfig, context: 'gpumem-demo', namespace: 'ml', pod: 'trainer-0', container: 'trainer' }),
    ]);
    const run = await runProbe(transport, { scope: 'container', timeoutMs: 45_000 });
    assert.equal(run.exec.exitCode, 0, run.exec.stderr);
    assert.equal(run.exec.truncated, false);
    assert.match(run.captureText.trimEnd().split('\n').at(-1) ?? '', /^@@gpumem:[0-9a-f]+:done@@$/);
    const inspection = analyzeCaptureText(run.captureText, { target: transport.target });
    assert.deepEqual(inspection.problems, []);
    assert.equal(inspection.hami?.verdict, 'enforced');
    const record = sim.state.execs.at(-1);
    assert.deepEqual(
      [record?.namespace, record?.pod, record?.container, record?.command, record?.protocol, record?.user],
      ['ml', 'trainer-0', 'trainer', ['sh', '-s'], 'v5.channel.k8s.io', 'admin'],
    );
  });

  test("a non-zero exit status is the script's, with its stdout and stderr (kubectl's status line removed)", T, async () => {
    const transport = kubectl({ namespace: 'default', pod: 'llama-0', container: 'llama' });
    assert.deepEqual(await transport.run(request('echo hello\necho oops >&2\ncat /etc/hostname\nexit 3\n')), {
      stdout: 'hello\nllama-0\n',
      stderr: 'oops\n',
      exitCode: 3,
      truncated: false,
    });
    assert.deepEqual(
      await transport.run(request('false')),
      { stdout: '', stderr: '', exitCode: 1, truncated: false },
      'exit 1 of the script is not a kubectl failure',
    );
    assert.deepEqual(await transport.run(request('echo fine')), { stdout: 'fine\n', stderr: '', exitCode: 0, truncated: false });
  });

  test('stdin: a 300 KB script arrives whole and its end closes the remote sh', T, async () => {
    const lines = Array.from({ length: 6000 }, (_, i) => `echo line-${i} # ${'x'.repeat(48)}`);
    const script = `${lines.join('\n')}\necho last`;
    assert.ok(Buffer.byteLength(script) > 300_000);
    const transport = kubectl({ namespace: 'default', pod: 'llama-0', container: 'llama' });
    const result = await transport.run(request(script, { timeoutMs: 40_000 }));
    assert.equal(result.exitCode, 0, result.stderr);
    const out = result.stdout.split('\n');
    assert.equal(out.length, 6002);
    assert.equal(out[0], 'line-0');
    assert.equal(out[5999], 'line-5999');
    assert.equal(out[6000], 'last');
  });

  test('the output cap truncates and stops kubectl', T, async () => {
    const transport = kubectl({ namespace: 'default', pod: 'llama-0', container: 'llama' });
    const result = await transport.run(request('while :; do echo 0123456789abcdef; done', { maxOutputBytes: 4096 }));
    assert.equal(result.truncated, true);
    assert.equal(result.exitCode, null);
    assert.ok(Buffer.byteLength(result.stdout) <= 4096);
    await eventually('the simulator sees the exec end', () => sim.state.runningExecs() === 0);
  });

  test(
    'container selection: -c picks the container; without it kubectl picks the first, and --quiet keeps its notice out of stderr',
    T,
    async () => {
      const sidecar = await kubectl({ namespace: 'ml', pod: 'pair-0', container: 'sidecar' }).run(request('cat /etc/role'));
      assert.deepEqual(sidecar, { stdout: 'sidecar\n', stderr: '', exitCode: 0, truncated: false });
      assert.equal(sim.state.execs.at(-1)?.container, 'sidecar');
      const first = await kubectl({ namespace: 'ml', pod: 'pair-0' }).run(request('cat /etc/role'));
      assert.deepEqual(first, { stdout: 'main\n', stderr: '', exitCode: 0, truncated: false });
      assert.equal(sim.state.execs.at(-1)?.container, 'main');
      const missing = await transportFailure(kubectl({ namespace: 'ml', pod: 'pair-0', container: 'nope' }).run(request('true')));
      assert.equal(missing.kind, 'connect');
      assert.match(missing.kind === 'connect' ? missing.detail : '', /container nope is not valid for pod pair-0/);
    },
  );

  test('RBAC: exec refused → forbidden create pods/exec; the pod read refused → forbidden get pods', T, async () => {
    const execs = sim.state.execs.length;
    const refused = await transportFailure(
      kubectl({ context: 'gpumem-demo-limited', namespace: 'default', pod: 'llama-0', container: 'llama' }).run(request('true')),
    );
    assert.deepEqual(refused, {
      kind: 'forbidden',
      verb: 'create',
      resource: 'pods/exec',
      detail: 'pods "llama-0" is forbidden: User "limited" cannot create resource "pods/exec" in API group "" in the namespace "default"',
    });
    const nobody = await transportFailure(
      kubectl({ context: 'gpumem-demo-nobody', namespace: 'default', pod: 'llama-0' }).run(request('true')),
    );
    assert.deepEqual(nobody.kind === 'forbidden' && [nobody.verb, nobody.resource], ['get', 'pods']);
    assert.equal(sim.state.execs.length, execs, 'nothing ran');
    // `limited` may exec in ml.
    const allowed = await kubectl({ context: 'gpumem-demo-limited', namespace: 'ml', pod: 'trainer-0', container: 'trainer' }).run(
      request('echo ok'),
    );
    assert.equal(allowed.stdout, 'ok\n');
    assert.equal(sim.state.execs.at(-1)?.user, 'limited');
  });

  test('a pod that does not exist: a connect failure saying so', T, async () => {
    const failure = await transportFailure(kubectl({ namespace: 'default', pod: 'nope-0' }).run(request('true')));
    assert.deepEqual(failure, { kind: 'connect', detail: 'pod default/nope-0 was not found (kubectl: pods "nope-0" not found)' });
  });

  test('several kubeconfig files: KUBECONFIG, merged by kubectl, the context from the second file', T, async () => {
    const first = join(dir, 'first.yaml');
    const second = join(dir, 'second.yaml');
    writeFileSync(first, sim.kubeconfig('admin', { context: 'first' }), { mode: 0o600 });
    writeFileSync(second, sim.kubeconfig('limited', { context: 'second' }), { mode: 0o600 });
    const transport = kubectl({
      kubeconfigFiles: [first, second],
      context: 'second',
      namespace: 'ml',
      pod: 'trainer-0',
      container: 'trainer',
    });
    assert.equal(
      transport.argv?.some((a) => a.startsWith('--kubeconfig')),
      false,
    );
    const result = await transport.run(request('echo merged'));
    assert.equal(result.stdout, 'merged\n');
    assert.equal(sim.state.execs.at(-1)?.user, 'limited', 'the context of the second file');
  });

  test('cancel kills kubectl (its process group) at once; so does the timeout', T, async () => {
    const transport = kubectl({ namespace: 'default', pod: 'llama-0', container: 'llama' });
    const controller = new AbortController();
    const running = sim.state.runningExecs();
    const started = Date.now();
    const run = transport.run(request('echo started\nsleep 30\necho too-late', { signal: controller.signal }));
    await eventually('the exec runs in the simulator', () => sim.state.runningExecs() > running);
    assert.ok(processesWith(kubeconfig).length > 0, 'kubectl runs');
    controller.abort();
    assert.deepEqual(await transportFailure(run), { kind: 'cancelled' });
    assert.ok(Date.now() - started < 15_000, 'cancelled well before the script would end');
    await eventually('no kubectl process left', () => processesWith(kubeconfig).length === 0, 5_000);
    await eventually('the exec in the simulator ended', () => sim.state.runningExecs() === running, 5_000);

    const timedOut = await transportFailure(transport.run(request('sleep 30', { timeoutMs: 1_500 })));
    assert.deepEqual(timedOut, { kind: 'timeout', phase: 'command', ms: 1_500 });
    await eventually('no kubectl process left after the timeout', () => processesWith(kubeconfig).length === 0, 5_000);
  });

  describe("the node debug pod exec'd through kubectl", () => {
    function debugTransport(client: ClusterClient, kubectlContext: string, made: KubectlExecTransport[]): DebugPodTransport {
      return new DebugPodTransport({
        client,
        node: 'strix-node-1',
        namespace: DEBUG_NS,
        activeDeadlineSeconds: 120,
        exec: (target): Transport => {
          const transport = kubectl({ context: kubectlContext, ...target });
          made.push(transport);
          return transport;
        },
      });
    }

    test('created on client-node, the node probe run by kubectl exec, then deleted', T, async () => {
      const made: KubectlExecTransport[] = [];
      const transport = debugTransport(admin, 'gpumem-demo', made);
      const mark = sim.state.requests.length;
      let name: string | undefined;
      try {
        const run = await runProbe(transport, { scope: 'node', hostRoot: transport.hostRoot, timeoutMs: 45_000 });
        name = transport.lastPod;
        assert.ok(name);
        assert.equal(run.exec.exitCode, 0, run.exec.stderr);
        const inspection = analyzeCaptureText(run.captureText, { target: transport.target });
        assert.equal(inspection.capture.root, '/host');
        assert.ok(
          inspection.verdicts.some((v) => v.id === 'memory.unaccounted-node'),
          inspection.verdicts.map((v) => v.id).join(', '),
        );
      } finally {
        await transport.close();
      }
      assert.equal(made.length, 1);
      assert.deepEqual(made[0]?.argv, [
        KUBECTL,
        ...kubectlExecArgs({ kubeconfig, context: 'gpumem-demo', namespace: DEBUG_NS, pod: name as string, container: DEBUG_CONTAINER }),
      ]);
      const record = sim.state.execs.find((e) => e.pod === name);
      assert.deepEqual(
        [record?.namespace, record?.container, record?.command, record?.result?.exitCode],
        [DEBUG_NS, DEBUG_CONTAINER, ['sh', '-s'], 0],
      );
      // kubectl's signature in the request log: it reads the pod, then upgrades GET …/exec.
      const paths = sim.state.requests.slice(mark).map((r) => `${r.method} ${r.path.split('?')[0]}`);
      const execAt = paths.indexOf(`GET /api/v1/namespaces/${DEBUG_NS}/pods/${name}/exec`);
      assert.ok(execAt > 0 && paths[execAt - 1] === `GET /api/v1/namespaces/${DEBUG_NS}/pods/${name}`, paths.join('\n'));
      await sim.state.waitForPodGone(DEBUG_NS, name as string);
      assert.equal(sim.state.get('pods', DEBUG_NS, name as string), undefined, 'the simulator no longer has the debug pod');
      const created = sim.state.createdPods.find((p) => p.name === name);
      assert.ok(created && sim.state.deletedPods.some((d) => d.uid === created.uid), 'it was deleted by a DELETE');
    });

    test('exec refused to kubectl: forbidden create pods/exec with what the debug pod needs, and the pod deleted anyway', T, async () => {
      const noexec = await kubeconfigClient(kubeconfig, 'gpumem-demo-noexec');
      const made: KubectlExecTransport[] = [];
      const transport = debugTransport(noexec, 'gpumem-demo-noexec', made);
      let failure: TransportFailure;
      try {
        failure = await transportFailure(transport.run(request('true')));
      } finally {
        await transport.close();
        noexec.dispose();
      }
      assert.equal(made.length, 1, 'the pod was created and kubectl ran');
      assert.equal(failure.kind, 'forbidden');
      assert.deepEqual(failure.kind === 'forbidden' && [failure.verb, failure.resource], ['create', 'pods/exec']);
      assert.match(
        failure.kind === 'forbidden' ? failure.detail : '',
        /User "noexec" cannot create resource "pods\/exec".*needs: create, get, watch and delete on pods, and create on pods\/exec/,
      );
      const name = transport.lastPod as string;
      await sim.state.waitForPodGone(DEBUG_NS, name);
      assert.equal(sim.state.get('pods', DEBUG_NS, name), undefined);
    });
  });
});
