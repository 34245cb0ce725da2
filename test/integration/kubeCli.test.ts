// `gpumem inspect --node` and `--pod`, the CLI's Kubernetes targets, run from source as child processes
// (test/helpers/cli.ts: argv arrays, never a shell) against the Kubernetes API simulator, with a kubeconfig
// file written here: the real client-node code reads the node or pod, creates and deletes the debug pod,
// and execs over WebSocket into chroot fixture roots. Checked: the APU node's report names the pod and the
// global OOM kill; a HAMi pod's checklist with its cluster checks; the debug pod is deleted after a run, an
// RBAC refusal and a Ctrl-C; unknown contexts and pods; and the kubeconfig file is never written.
//
// `--node-probe ssh` runs against a real OpenSSH server on 127.0.0.1 chrooted into the APU fixture root, the
// node's InternalIP rewritten to 127.0.0.1 and ~/.ssh/config (under the test's HOME) giving port, key and
// known_hosts, as a user would write them for their nodes' addresses.
//
// Needs root (the simulator's exec and sshd chroot into fixture roots); skipped otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../helpers/asserts.ts';
import { makeCliHome, runCli } from '../helpers/cli.ts';
import type { CliHome, CliOptions, CliRun } from '../helpers/cli.ts';
import { buildApuNode, fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import type { ApuFacts, Fixture } from '../helpers/fixtureRoot.ts';
import { addLoginShellShim, generateKey, sshUnavailableReason, startSshd } from '../helpers/sshd.ts';
import type { SshdInstance } from '../helpers/sshd.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();
const T = { timeout: 120_000 };
const DEBUG_NS = 'gpumem-debug';
const APU_POD_UID = 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96';

describe('gpumem inspect --node / --pod against the simulator', { skip: NO_ROOTS ?? false }, () => {
  let sim: Simulator;
  let home: CliHome | undefined;
  let dir: string;
  let kubeconfig: string;
  let limitedKubeconfig: string;
  // No ~/.kube/config and no KUBECONFIG of this machine leak in.
  let env: NodeJS.ProcessEnv;

  before(async () => {
    sim = await startSimulator({
      fixtures: loadFixtures(),
      roots: true,
      // May read and exec into pods in namespace ml only: the HAMi cluster checks elsewhere are refused.
      users: [
        {
          name: 'mlonly',
          rules: [
            { verbs: ['get', 'list', 'watch'], resources: ['pods'], namespaces: ['ml'] },
            { verbs: ['create', 'get'], resources: ['pods/exec'], namespaces: ['ml'] },
          ],
        },
      ],
    });
    home = makeCliHome('gpumem-kube-cli-', { admin: sim.kubeconfig('admin'), limited: sim.kubeconfig('limited') });
    ({ dir, env } = home);
    kubeconfig = home.kubeconfigs['admin']!;
    limitedKubeconfig = home.kubeconfigs['limited']!;
  });

  after(async () => {
    await sim?.close();
    home?.cleanup();
  });

  function gpumem(args: readonly string[], options: Partial<CliOptions> = {}): Promise<CliRun> {
    return runCli(['inspect', ...args], { env, timeoutMs: 100_000, ...options });
  }

  /** Every debug pod created in this test was deleted, and none is left. */
  async function assertDebugPodsDeleted(since: number): Promise<void> {
    await eventually('no debug pod left', () => sim.state.list('pods', DEBUG_NS).length === 0);
    const created = sim.state.createdPods.slice(since).filter((p) => p.namespace === DEBUG_NS);
    for (const pod of created)
      assert.ok(
        sim.state.deletedPods.some((d) => d.uid === pod.uid),
        `debug pod ${pod.name} was deleted`,
      );
  }

  test('--node: the APU node probed from a debug pod, the pod named, the global OOM kill found, the debug pod deleted', T, async () => {
    const since = sim.state.createdPods.length;
    const before = readFileSync(kubeconfig, 'utf8');
    const mtime = statSync(kubeconfig).mtimeMs;
    const run = await gpumem(['--node', 'strix-node-1', '--kubeconfig', kubeconfig, '--debug-namespace', DEBUG_NS, '--format', 'json']);
    assert.equal(run.code, 1, `warnings give exit code 1; stderr: ${run.stderr}`);
    const report = JSON.parse(run.stdout) as {
      target: string;
      scope: string;
      node: { pods: { podUid: string; podName: string | null }[] } | null;
      verdicts: { id: string; title: string; evidence?: unknown }[];
    };
    assert.equal(report.scope, 'node');
    assert.match(report.target, /strix-node-1/);
    const pod = report.node?.pods.find((p) => p.podUid === APU_POD_UID);
    assert.ok(pod, `the APU pod is accounted: ${JSON.stringify(report.node?.pods.map((p) => p.podUid))}`);
    assert.equal(pod.podName, 'default/llama-0', "named from the API server's pod list");
    assert.ok(
      report.verdicts.some((v) => v.id === 'memory.unaccounted-node'),
      report.verdicts.map((v) => v.id).join(', '),
    );
    const oom = report.verdicts.filter((v) => v.id.startsWith('oom.'));
    assert.ok(
      oom.some((v) => /node ran out of memory/.test(v.title)),
      `the kern.log global kill is found: ${JSON.stringify(oom.map((v) => v.title))}`,
    );
    assert.ok(JSON.stringify(oom).includes('default/llama-0'), "the victim named from the API server's pod list");
    assert.match(run.stderr, /debug pod/i, 'progress of the debug pod on stderr');
    const created = sim.state.createdPods.slice(since).filter((p) => p.namespace === DEBUG_NS);
    assert.equal(created.length, 1, 'one debug pod');
    assert.equal(created[0]?.nodeName, 'strix-node-1', 'pinned to the node');
    await assertDebugPodsDeleted(since);
    assert.equal(readFileSync(kubeconfig, 'utf8'), before, 'the kubeconfig is never written');
    assert.equal(statSync(kubeconfig).mtimeMs, mtime);
  });

  test("--node --hami-lib-path: the debug pod's probe reads HAMi's directory where the flag says; misuse is a usage error", T, async () => {
    const since = sim.state.createdPods.length;
    // gpu-node-7's root has HAMi in the chart's default /usr/local/vgpu: read by default, not when told it moved.
    const capture = async (extra: readonly string[]): Promise<string> => {
      const save = join(dir, `hami-${extra.length}.capture`);
      const run = await gpumem([
        '--node',
        'gpu-node-7',
        '--kubeconfig',
        kubeconfig,
        '--debug-namespace',
        DEBUG_NS,
        '--save',
        save,
        ...extra,
      ]);
      assert.notEqual(run.code, 2, run.stderr);
      return readFileSync(save, 'utf8');
    };
    assert.match(await capture([]), /file \/host\/usr\/local\/vgpu\/ld\.so\.preload@@/, 'the default directory is read');
    const moved = await capture(['--hami-lib-path', '/var/lib/hami']);
    assert.doesNotMatch(moved, /\/usr\/local\/vgpu\//, 'the default directory is not read when the flag moves it');
    assert.match(moved, /begin hami\.host@@/);
    await assertDebugPodsDeleted(since);
    const created = sim.state.createdPods.length;
    const pod = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', kubeconfig, '--hami-lib-path', '/var/lib/hami']);
    assert.equal(pod.code, 2);
    assert.match(pod.stderr, /--hami-lib-path applies to the node scope only/);
    const bad = await gpumem(['--node', 'gpu-node-7', '--kubeconfig', kubeconfig, '--hami-lib-path', '/a/../etc']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--hami-lib-path: HAMi library path "\/a\/\.\.\/etc" must be an absolute path/);
    assert.equal(sim.state.createdPods.length, created, 'no debug pod for a usage error');
  });

  test('--pod: the HAMi checklist of a bypassed pod, with the cluster checks in Markdown; -c picks the container', T, async () => {
    const run = await gpumem(['--pod', 'ml/static-infer-0', '--kubeconfig', kubeconfig, '--format', 'markdown']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /bypassed/i, 'the checklist says bypassed');
    assert.match(run.stdout, /CUDA_DISABLE_CONTROL/);
    assert.match(run.stdout, /HAMi device plugin on gpu-node-7/, 'the cluster checks are appended');
    const wrong = await gpumem(['--pod', 'ml/static-infer-0', '-c', 'sidecar', '--kubeconfig', kubeconfig]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /has no container "sidecar" \(containers: static-infer\)/);
  });

  test(
    '--pod with credentials for its namespace only: the report comes, and stderr says which cluster checks were refused',
    T,
    async () => {
      const mlOnly = join(dir, 'mlonly.yaml');
      writeFileSync(mlOnly, sim.kubeconfig('mlonly'));
      const run = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', mlOnly, '--format', 'json']);
      const report = JSON.parse(run.stdout) as { scope: string; hami: { verdict: string } | null };
      assert.equal(report.scope, 'container', run.stderr);
      assert.ok(report.hami, 'the checklist ran');
      assert.match(run.stderr, /gpumem inspect: warning: .*may not list pods/, 'the refused device-plugin or scheduler lookup is named');
    },
  );

  test("--pod in the context's namespace: an enforced HAMi pod is not reported as bypassed", T, async () => {
    const run = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', kubeconfig, '--format', 'json']);
    const report = JSON.parse(run.stdout) as { scope: string; hami: { verdict: string } | null };
    assert.equal(report.scope, 'container', run.stderr);
    assert.notEqual(report.hami?.verdict, 'bypassed', JSON.stringify(report.hami));
  });

  test('RBAC: a user who may not create the debug pod is told which verb, resource and namespace, and nothing is left', T, async () => {
    const since = sim.state.createdPods.length;
    const run = await gpumem(['--node', 'strix-node-1', '--kubeconfig', limitedKubeconfig, '--debug-namespace', DEBUG_NS]);
    assert.equal(run.code, 2, run.stdout);
    assert.match(run.stderr, /may not create pods in namespace "gpumem-debug"/);
    assert.match(run.stderr, /kubectl auth can-i create pods -n gpumem-debug/);
    assert.match(
      run.stderr,
      /run the probe by hand with other credentials \(gpumem probe-script, then kubectl exec or kubectl debug/,
      "the CLI's way, not the extension's command",
    );
    await assertDebugPodsDeleted(since);
  });

  test('Ctrl-C while the debug pod starts: the command ends with 2 and the pod is deleted', T, async () => {
    sim.setFault({ podWaitingReason: 'ContainerCreating' });
    const since = sim.state.createdPods.length;
    try {
      const run = await gpumem(['--node', 'web-node-3', '--kubeconfig', kubeconfig, '--debug-namespace', DEBUG_NS], {
        onStart: (child) => {
          void eventually('the debug pod exists', () => sim.state.list('pods', DEBUG_NS).length > 0, 60_000).then(() =>
            child.kill('SIGINT'),
          );
        },
      });
      assert.equal(run.code, 2, run.stdout);
      assert.match(run.stderr, /cancel/i);
    } finally {
      sim.setFault(null);
    }
    await assertDebugPodsDeleted(since);
  });

  test('a second Ctrl-C during the clean-up says what is happening and does not leave the debug pod behind', T, async () => {
    sim.setFault({ podWaitingReason: 'ContainerCreating' });
    const since = sim.state.createdPods.length;
    try {
      const run = await gpumem(['--node', 'web-node-3', '--kubeconfig', kubeconfig, '--debug-namespace', DEBUG_NS], {
        onStart: (child) => {
          void eventually('the debug pod exists', () => sim.state.list('pods', DEBUG_NS).length > 0, 60_000).then(async () => {
            // The API server turns slow, so the clean-up is still running at the second signal.
            sim.setFault({ podWaitingReason: 'ContainerCreating', latencyMs: 1500 });
            child.kill('SIGINT');
            await new Promise((resolve) => setTimeout(resolve, 300));
            child.kill('SIGINT');
          });
        },
      });
      assert.equal(run.code, 2, run.stdout);
      assert.match(run.stderr, /cancelling: closing the connection and deleting any debug pod; Ctrl-C again to quit now/);
    } finally {
      sim.setFault(null);
    }
    await assertDebugPodsDeleted(since);
  });

  test('unknown context, unknown pod, unknown node: exit 2 with what exists or what the API server said', T, async () => {
    const context = await gpumem(['--node', 'strix-node-1', '--kubeconfig', kubeconfig, '--context', 'nope']);
    assert.equal(context.code, 2);
    assert.match(context.stderr, /no context "nope" in the kubeconfig \(contexts: /);
    const pod = await gpumem(['--pod', 'ml/ghost-0', '--kubeconfig', kubeconfig]);
    assert.equal(pod.code, 2);
    assert.match(pod.stderr, /ml\/ghost-0/);
    assert.match(pod.stderr, /not found/i);
    const node = await gpumem(['--node', 'ghost-node', '--kubeconfig', kubeconfig]);
    assert.equal(node.code, 2);
    assert.match(node.stderr, /ghost-node/);
    const none = await gpumem(['--node', 'strix-node-1', '--kubeconfig', join(dir, 'missing.yaml')]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no Kubernetes context in .*missing\.yaml/);
  });
});

describe(
  "gpumem inspect --node --node-probe ssh: the node's address over SSH, with ~/.ssh/config",
  { skip: NO_ROOTS ?? sshUnavailableReason() ?? false },
  () => {
    let sim: Simulator;
    let home: CliHome | undefined;
    let dir: string;
    let kubeconfig: string;
    let apu: Fixture<ApuFacts>;
    let sshd: SshdInstance;
    let env: NodeJS.ProcessEnv;

    before(async () => {
      sim = await startSimulator({ fixtures: loadFixtures(), roots: false });
      const node = sim.state.get('nodes', undefined, 'strix-node-1');
      assert.ok(node);
      (node['status'] as { addresses: unknown[] }).addresses = [
        { type: 'Hostname', address: 'strix-node-1' },
        { type: 'InternalIP', address: '127.0.0.1' },
      ];
      sim.state.put(node);
      home = makeCliHome('gpumem-kube-cli-ssh-', { admin: sim.kubeconfig('admin') }, { unset: ['SSH_AUTH_SOCK'] });
      ({ dir, env } = home);
      kubeconfig = home.kubeconfigs['admin']!;
      apu = buildApuNode();
      addLoginShellShim(apu.root);
      const key = generateKey(dir, 'id_ed25519', 'ed25519');
      sshd = await startSshd({ authorizedKeys: [key.publicLine], chrootDirectory: apu.root });
      mkdirSync(join(dir, '.ssh'), { mode: 0o700 });
      writeFileSync(join(dir, '.ssh', 'known_hosts'), `${sshd.knownHostsLine}\n`);
      const config = [
        'Host 127.0.0.1',
        `  Port ${sshd.port}`,
        '  User root',
        `  IdentityFile ${key.privateKeyPath}`,
        '  IdentitiesOnly yes',
        '  GlobalKnownHostsFile none',
        '',
      ];
      writeFileSync(join(dir, '.ssh', 'config'), config.join('\n'), { mode: 0o600 });
    });

    after(async () => {
      await sshd?.stop();
      apu?.cleanup();
      await sim?.close();
      home?.cleanup();
    });

    test('the probe runs on the node itself, the pods are named from the API server, and no debug pod is created', T, async () => {
      const since = sim.state.createdPods.length;
      const run = await runCli(
        ['inspect', '--node', 'strix-node-1', '--node-probe', 'ssh', '--kubeconfig', kubeconfig, '--format', 'json'],
        { env, timeoutMs: 100_000 },
      );
      assert.equal(run.code, 1, run.stderr);
      const report = JSON.parse(run.stdout) as { target: string; verdicts: { id: string; title: string }[] };
      assert.equal(report.target, `ssh root@127.0.0.1:${sshd.port}`, 'port and user from ~/.ssh/config');
      const over = report.verdicts.find((v) => v.id === 'memory.pod-over-limit-in-reality');
      assert.ok(over, report.verdicts.map((v) => v.id).join(', '));
      assert.match(over.title, /default\/llama-0 holds .* of GTT/, "the pod named from the API server's list");
      assert.equal(sim.state.createdPods.length, since, 'no debug pod');
      assert.match(sshd.log(), /Accepted publickey for root/);
    });

    test('an unknown host key is refused (the CLI cannot ask) unless --accept-new', T, async () => {
      const strange = join(dir, 'empty_known_hosts');
      writeFileSync(strange, '');
      const args = ['inspect', '--node', 'strix-node-1', '--node-probe', 'ssh', '--kubeconfig', kubeconfig, '--known-hosts', strange];
      const refused = await runCli(args, { env, timeoutMs: 100_000 });
      assert.equal(refused.code, 2, refused.stdout);
      assert.match(refused.stderr, /host key of \[127\.0\.0\.1\]:\d+ is not known/);
      const accepted = await runCli([...args, '--accept-new', '--format', 'json'], { env, timeoutMs: 100_000 });
      assert.equal(accepted.code, 1, accepted.stderr);
      assert.match(readFileSync(strange, 'utf8'), /^\[127\.0\.0\.1\]:\d+ ssh-ed25519 /m, 'the key was added');
    });
  },
);

describe('gpumem inspect: Kubernetes options that cannot work are usage errors (exit 2), before any request', () => {
  const cases: readonly (readonly [string, readonly string[], RegExp])[] = [
    ['two targets', ['--local', '--node', 'n1'], /exactly one of --local, --ssh TARGET, --node NAME or --pod/],
    ['a node name that is no Kubernetes name', ['--node', 'Bad_Name'], /--node: "Bad_Name" is not a node name/],
    ['a pod reference with two slashes', ['--pod', 'a/b/c'], /--pod: "a\/b\/c" is not \[NAMESPACE\/\]NAME/],
    ['a hostile namespace', ['--pod', '../pod'], /is not a namespace name/],
    ['--scope with --node', ['--node', 'n1', '--scope', 'container'], /--scope and --host-root do not apply to --node/],
    ['--container with --node', ['--node', 'n1', '--container', 'c'], /--container applies to --pod/],
    ['--kubeconfig with --local', ['--local', '--kubeconfig', 'k.yaml'], /--kubeconfig applies to --node and --pod/],
    ['--node-probe ssh with --pod', ['--pod', 'p', '--node-probe', 'ssh'], /--node-probe applies to --node/],
    ['an unknown --node-probe', ['--node', 'n1', '--node-probe', 'telnet'], /--node-probe must be debug-pod or ssh/],
    [
      'a debug namespace that is no name',
      ['--node', 'n1', '--debug-namespace', 'Kube System'],
      /--debug-namespace: "Kube System" is not a namespace name/,
    ],
  ];
  for (const [what, args, message] of cases) {
    test(what, async () => {
      const run = await runCli(['inspect', ...args], {
        timeoutMs: 30_000,
        env: { ...process.env, KUBECONFIG: '/nonexistent/gpumem-test-kubeconfig' },
      });
      assert.equal(run.code, 2, run.stdout);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    });
  }
});
