// `gpumem hami-test` from source as a child process (test/helpers/cli.ts) against the Kubernetes API simulator:
// the real client-node code reads the pod and execs `python3 -I -c …` over the exec WebSocket, and the
// simulator runs it with chroot in container roots built by test/helpers/hamiTestRoot.ts (real python3, the
// libcuda.so.1 test double, the libvgpu.so test double in a real /etc/ld.so.preload). The pod spec's env
// stands for what HAMi's device plugin injects (CUDA_DEVICE_MEMORY_LIMIT_0), as the simulator passes it on.
//
// Checked: enforced (exit 0), bypassed by CUDA_DISABLE_CONTROL=true and by a missing preload (exit 1), no
// python3 (exit 3, says why), a pod HAMi does not manage (refused, no exec), no --yes without a terminal
// (refused with what it would do, no exec), JSON output, and Ctrl-C while the driver hangs (exit 130). And the
// transports the extension uses: the exec WebSocket on v4, which cannot half-close stdin (the bootstrap stops at
// its end line instead of waiting for the end of input), and the kubectl binary (when it is on PATH).
// Needs root, gcc and a system python3; skipped otherwise.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { planHamiTest } from '../../src/core/hamiTest/plan.ts';
import { runHamiTest } from '../../src/core/hamiTest/run.ts';
import { hamiTestArgv } from '../../src/core/hamiTest/script.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { KubectlExecTransport } from '../../src/kube/kubectlExecTransport.ts';
import { loadKubeconfigs } from '../../src/kube/kubeconfig.ts';
import { PodExecTransport } from '../../src/kube/podExecTransport.ts';
import { spawnSync } from 'node:child_process';
import { makeCliHome, runCli } from '../helpers/cli.ts';
import type { CliHome, CliOptions, CliRun } from '../helpers/cli.ts';
import { buildHamiTestRoot, hamiTestPod as pod, hamiTestRootsUnavailable } from '../helpers/hamiTestRoot.ts';
import type { HamiTestRoot } from '../helpers/hamiTestRoot.ts';
import { emptyFixtures, loadFixtures, mergeFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { WebSocket } from '../simulator/wsTypes.ts';

const UNAVAILABLE = hamiTestRootsUnavailable();
const T = { timeout: 90_000 };
describe('gpumem hami-test against the simulator', { skip: UNAVAILABLE ?? false }, () => {
  let sim: Simulator;
  let home: CliHome | undefined;
  let kubeconfig: string;
  let env: NodeJS.ProcessEnv;
  const roots: HamiTestRoot[] = [];

  before(async () => {
    const full = buildHamiTestRoot();
    const noPreload = buildHamiTestRoot({ preload: false });
    const noPython = buildHamiTestRoot({ python: false });
    roots.push(full, noPreload, noPython);
    const limit = { CUDA_DEVICE_MEMORY_LIMIT_0: '8192m' };
    const extra = emptyFixtures();
    const add = (name: string, root: HamiTestRoot, podEnv: Record<string, string>, hami = true): void => {
      extra.objects.push(pod(name, podEnv, hami) as never);
      extra.containerRoots[`ml/${name}/main`] = { prebuilt: root.root };
    };
    add('enforced-0', full, limit);
    add('disabled-0', full, { ...limit, CUDA_DISABLE_CONTROL: 'true' });
    add('nopreload-0', noPreload, limit);
    add('nopython-0', noPython, limit);
    add('hang-0', full, { ...limit, CUDA_DISABLE_CONTROL: 'true', GPUMEM_STUB_ALLOC_SLEEP_S: '60' });
    add('plain-0', full, {}, false);
    sim = await startSimulator({ fixtures: mergeFixtures(loadFixtures(), extra), roots: true });
    home = makeCliHome('gpumem-hami-test-', { admin: sim.kubeconfig('admin') });
    env = home.env;
    kubeconfig = home.kubeconfigs['admin']!;
  });

  after(async () => {
    await sim?.close();
    for (const root of roots) root.cleanup();
    home?.cleanup();
  });

  function hamiTest(args: readonly string[], options: Partial<CliOptions> = {}): Promise<CliRun> {
    return runCli(['hami-test', '--kubeconfig', kubeconfig, ...args], { env, timeoutMs: 60_000, ...options });
  }

  function execsOf(name: string): number {
    return sim.state.execs.filter((e) => e.pod === name).length;
  }

  test('enforced: quota + 64 MiB is refused by the preloaded interposer, exit 0', T, async () => {
    const run = await hamiTest(['--pod', 'ml/enforced-0', '--yes']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /HAMi enforcement test: enforced/);
    assert.match(run.stdout, /cuMemAlloc_v2 of 8,256 MiB returned CUDA_ERROR_OUT_OF_MEMORY \(2\) on a 8,192 MiB quota/);
    assert.match(run.stdout, /GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f \(NVIDIA-H100-80GB-HBM3\)/);
    const exec = sim.state.execs.filter((e) => e.pod === 'enforced-0').at(-1);
    assert.deepEqual(exec?.command.slice(0, 3), ['python3', '-I', '-c']);
    assert.deepEqual(exec?.command.slice(4), [String(8256 * 1024 * 1024), '25']);
  });

  test('bypassed: CUDA_DISABLE_CONTROL=true, and a container without /etc/ld.so.preload, exit 1', T, async () => {
    const disabled = await hamiTest(['--pod', 'ml/disabled-0', '--yes', '--format', 'json']);
    assert.equal(disabled.code, 1, disabled.stderr);
    const report = JSON.parse(disabled.stdout) as {
      status: string;
      verdict: { kind: string; freeCode: number; evidence: { envDisable: boolean } };
    };
    assert.equal(report.status, 'bypassed');
    assert.equal(report.verdict.freeCode, 0);
    assert.equal(report.verdict.evidence.envDisable, true);
    const missing = await hamiTest(['--pod', 'ml/nopreload-0', '--yes']);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stdout, /Bypass proven/);
    assert.match(missing.stdout, /\/etc\/ld\.so\.preload is absent/);
  });

  test('no python3: cannot run, and says why (the exec API could not start it), exit 3', T, async () => {
    const run = await hamiTest(['--pod', 'ml/nopython-0', '--yes']);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stdout, /HAMi enforcement test: cannot-run/);
    assert.match(run.stdout, /the container has no python3 \(.*executable file not found/);
  });

  test('refused on a pod HAMi does not manage, and without --yes when there is no terminal: nothing is exec-ed', T, async () => {
    const plain = await hamiTest(['--pod', 'ml/plain-0', '--yes']);
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /refused: pod ml\/plain-0 is not managed by HAMi/);
    assert.equal(execsOf('plain-0'), 0);
    const before = execsOf('enforced-0');
    const unconfirmed = await hamiTest(['--pod', 'ml/enforced-0']);
    assert.equal(unconfirmed.code, 2);
    assert.match(unconfirmed.stderr, /not run: no --yes and no terminal/);
    assert.match(unconfirmed.stderr, /runs code inside the container/);
    assert.match(unconfirmed.stderr, /allocates 8,256 MiB in one cuMemAlloc_v2 call on CUDA device 0, GPU-6f1d2c3b/);
    assert.match(unconfirmed.stderr, /quota is 8,192 MiB \(the hami\.io\/vgpu-devices-allocated annotation\)/);
    assert.equal(execsOf('enforced-0'), before, 'no exec without consent');
    const wrongContainer = await hamiTest(['--pod', 'ml/enforced-0', '-c', 'sidecar', '--yes']);
    assert.equal(wrongContainer.code, 2);
    assert.match(wrongContainer.stderr, /no container "sidecar"/);
  });

  test('Ctrl-C while the driver hangs: cancelled, exit 130, and the simulator ends the exec', T, async () => {
    const run = await hamiTest(['--pod', 'ml/hang-0', '--yes'], {
      onStart: (child) => {
        const timer = setInterval(() => {
          if (execsOf('hang-0') > 0) {
            clearInterval(timer);
            setTimeout(() => child.kill('SIGINT'), 500);
          }
        }, 50);
      },
    });
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, /cancelled/);
    const exec = sim.state.execs.filter((e) => e.pod === 'hang-0').at(-1);
    for (let i = 0; i < 100 && exec?.result === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(exec?.result?.clientClosed, true, JSON.stringify(exec?.result));
  });

  async function enforcedPlan(client: ClusterClient) {
    const planned = planHamiTest(await client.readPod('ml', 'enforced-0'));
    assert.equal(planned.kind, 'ready');
    return planned.kind === 'ready' ? planned.plan : assert.fail('not ready');
  }

  test('over the v4 exec protocol (stdin never ends): the program still runs and the verdict comes back', T, async () => {
    const loaded = await loadKubeconfigs({ explicitPath: kubeconfig });
    const context = loaded.contexts.find((c) => c.name === loaded.currentContext) ?? assert.fail('no context');
    const client = new ClusterClient(context);
    const v4 = (uri: string, _offered: string[], opts: object): never => new WebSocket(uri, ['v4.channel.k8s.io'], opts) as never;
    const plan = await enforcedPlan(client);
    const transport = new PodExecTransport({
      kubeConfig: client.kubeConfig,
      namespace: 'ml',
      pod: 'enforced-0',
      container: 'main',
      command: hamiTestArgv(plan.attemptBytes),
      socketFactory: v4,
    });
    try {
      const outcome = await runHamiTest(transport, plan);
      assert.equal(outcome.kind === 'finished' && outcome.verdict.kind, 'enforced', JSON.stringify(outcome));
      assert.equal(sim.state.execs.at(-1)?.protocol, 'v4.channel.k8s.io');
    } finally {
      await transport.close();
      await client.dispose(0);
    }
  });

  test(
    'through kubectl exec (gpumem.kubernetes.execMode = kubectl): the same argv after --',
    { ...T, skip: spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0 ? false : 'kubectl is not on PATH' },
    async () => {
      const loaded = await loadKubeconfigs({ explicitPath: kubeconfig });
      const context = loaded.contexts.find((c) => c.name === loaded.currentContext) ?? assert.fail('no context');
      const client = new ClusterClient(context);
      const plan = await enforcedPlan(client);
      const transport = new KubectlExecTransport({
        kubeconfigFiles: [kubeconfig],
        context: context.name,
        namespace: 'ml',
        pod: 'enforced-0',
        container: 'main',
        remoteCommand: hamiTestArgv(plan.attemptBytes),
        env,
      });
      try {
        assert.deepEqual(transport.argv?.slice(-7, -3), ['--', 'python3', '-I', '-c']);
        const outcome = await runHamiTest(transport, plan);
        assert.equal(outcome.kind === 'finished' && outcome.verdict.kind, 'enforced', JSON.stringify(outcome));
      } finally {
        await transport.close();
        await client.dispose(0);
      }
    },
  );
});
