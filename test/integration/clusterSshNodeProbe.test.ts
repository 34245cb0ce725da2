// "Inspect Node" with gpumem.kubernetes.nodeProbe = "ssh", end to end without VS Code: the node comes from the
// API simulator (its InternalIP rewritten to 127.0.0.1 in this test's own simulator), its address is chosen
// by src/core/kube/nodeAddress.ts, the SSH settings come from an ssh_config written here (Host 127.0.0.1 →
// Port, User, IdentityFile, UserKnownHostsFile), and the probe runs over a real OpenSSH server chrooted into
// the APU fixture root, through src/kube/nodeProbe.ts: the same nodeProbeRoute() and nodeAnalysisInputs()
// the command calls. The command adds only VS Code's prompts (a host-key modal, a passphrase box), which
// appear here as the confirmUnknownHost callback.
//
// Needs root (sshd chroots); skipped otherwise, like test/integration/sshNodeProbe.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { summarizeNode } from '../../src/core/kube/nodes.ts';
import type { GpuNodeSummary } from '../../src/core/kube/nodes.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { DebugPodTransport } from '../../src/kube/debugPodTransport.ts';
import { nodeAnalysisInputs, nodeProbeRoute } from '../../src/kube/nodeProbe.ts';
import type { NodeProbeSettings } from '../../src/kube/nodeProbe.ts';
import type { SshFromConfigOptions } from '../../src/transports/sshFromConfig.ts';
import { buildApuNode, GiB } from '../helpers/fixtureRoot.ts';
import type { ApuFacts, Fixture } from '../helpers/fixtureRoot.ts';
import { addLoginShellShim, generateKey, sshUnavailableReason, startSshd, tempDir } from '../helpers/sshd.ts';
import type { SshdInstance } from '../helpers/sshd.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { transportFailure } from '../helpers/asserts.ts';

const unavailable = sshUnavailableReason();
const T = { timeout: 120_000 };
const NODE = 'strix-node-1';
const LLAMA_UID = 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96';
const SSH: NodeProbeSettings = { nodeProbe: 'ssh', debugNamespace: 'gpumem-debug', debugImage: 'busybox:1.36' };

describe('Inspect Node over SSH to the node\'s address (nodeProbe "ssh")', { skip: unavailable ?? false }, () => {
  const temp = tempDir('gpumem-cluster-ssh-');
  let sim: Simulator;
  let client: ClusterClient;
  let apu: Fixture<ApuFacts>;
  let sshd: SshdInstance;
  let key = '';
  const knownHosts = join(temp.dir, 'known_hosts');
  const emptyKnownHosts = join(temp.dir, 'known_hosts.empty');

  before(async () => {
    sim = await startSimulator({ fixtures: loadFixtures(), roots: false });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(sim.kubeconfig('admin'));
    client = new ClusterClient({ name: kubeConfig.getCurrentContext(), kubeConfig });
    // The APU node is reachable at 127.0.0.1 in this simulator only; a second node reports no address at all.
    const node = sim.state.get('nodes', undefined, NODE);
    assert.ok(node, `${NODE} is a fixture node`);
    const status = node['status'] as { addresses: { type: string; address: string }[] };
    status.addresses = [
      { type: 'Hostname', address: NODE },
      { type: 'ExternalIP', address: '203.0.113.7' },
      { type: 'InternalIP', address: '127.0.0.1' },
    ];
    sim.state.put(node);
    sim.state.put({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'addressless-node', labels: { 'kubernetes.io/hostname': 'addressless-node' } },
      status: { addresses: [] },
    });

    apu = buildApuNode();
    // sshd runs `<login shell> -c "sh -s"` inside the chroot: give the root a shell at that path.
    addLoginShellShim(apu.root);
    const clientKey = generateKey(temp.dir, 'id_ed25519', 'ed25519');
    key = clientKey.privateKeyPath;
    sshd = await startSshd({ authorizedKeys: [clientKey.publicLine], chrootDirectory: apu.root });
    writeFileSync(knownHosts, `${sshd.knownHostsLine}\n`);
    writeFileSync(emptyKnownHosts, '');
  });

  after(async () => {
    await sshd?.stop();
    apu?.cleanup();
    client?.dispose();
    await sim?.close();
    temp.cleanup();
  });

  /** The ssh settings of this test: a config with `Host 127.0.0.1` (as a user writes for a node's address). */
  function sshOptions(
    file: string,
    extra: { knownHosts?: string; strict?: string; options?: Partial<SshFromConfigOptions> } = {},
  ): SshFromConfigOptions {
    const text = [
      'Host 127.0.0.1',
      `  Port ${sshd.port}`,
      '  User root',
      `  IdentityFile ${key}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${extra.knownHosts ?? knownHosts}`,
      '  GlobalKnownHostsFile none',
      ...(extra.strict ? [`  StrictHostKeyChecking ${extra.strict}`] : []),
      '',
    ].join('\n');
    const path = join(temp.dir, file);
    writeFileSync(path, text);
    return { env: { home: temp.dir, user: 'nobody-here' }, config: { text, path, resolve: {} }, ...extra.options };
  }

  async function nodeSummary(name: string): Promise<GpuNodeSummary> {
    return summarizeNode(await client.readNode(name));
  }

  test("the node's InternalIP through ~/.ssh/config: the inspection names the node's GPU pod and its global OOM kill", T, async () => {
    const node = await nodeSummary(NODE);
    const route = nodeProbeRoute(client, node, SSH, { ssh: sshOptions('ssh_config', { strict: 'yes' }) });
    assert.equal(route.kind, 'ssh', route.kind === 'unreachable' ? route.reason : '');
    if (route.kind !== 'ssh') return;
    assert.equal(route.addressType, 'InternalIP', 'InternalIP is preferred over ExternalIP and Hostname whatever their order');
    assert.equal(route.address, '127.0.0.1');
    assert.equal(route.hostRoot, '');
    assert.equal(route.transport.target, `ssh root@127.0.0.1:${sshd.port}`, 'Port and User came from the config');
    try {
      const [run, inputs] = await Promise.all([
        runProbe(route.transport, { scope: 'node', hostRoot: route.hostRoot, timeoutMs: 60_000 }),
        nodeAnalysisInputs(client, node),
      ]);
      assert.equal(run.exec.exitCode, 0, run.exec.stderr);
      assert.equal(inputs.podNames?.get(LLAMA_UID), 'default/llama-0', "the API server's pods on the node, by UID");
      const inspection = analyzeCaptureText(run.captureText, { ...inputs, target: route.transport.target });
      assert.ok(inspection.capture.complete, inspection.problems.join('; '));
      assert.equal(inspection.capture.root, '', "the probe read the node's own paths");
      const pod = inspection.node?.pods.find((candidate) => candidate.podUid === LLAMA_UID);
      assert.equal(pod?.gtt, 30 * GiB, "the pod's GTT from the node's DRM fdinfo");
      const over = inspection.verdicts.find((verdict) => verdict.id === 'memory.pod-over-limit-in-reality');
      assert.ok(over, inspection.verdicts.map((verdict) => verdict.id).join(', '));
      assert.match(over.title, /default\/llama-0 holds .* of GTT/, 'the verdict names the pod as the cluster knows it');
      const victims = inspection.node?.oom?.summary.victims ?? [];
      assert.deepEqual(
        victims.map((victim) => [victim.kind, victim.comm, victim.pid, victim.podName]),
        [['global', apu.facts.oomVictimComm, apu.facts.oomVictimPid, 'default/llama-0']],
      );
      assert.match(sshd.log(), /Accepted publickey for root/);
    } finally {
      await route.transport.close();
    }
  });

  test('a node with no address, or with an address that is no SSH destination, is refused with the reason before dialling', T, async () => {
    const none = nodeProbeRoute(client, await nodeSummary('addressless-node'), SSH, { ssh: sshOptions('ssh_config_none') });
    assert.equal(none.kind, 'unreachable');
    assert.equal(
      none.kind === 'unreachable' && none.reason,
      'node addressless-node reports no InternalIP, ExternalIP or Hostname address to reach over SSH',
    );
    // A hostile address from the API server is never handed to the SSH layer as an option or a user@host.
    const hostile = nodeProbeRoute(
      client,
      {
        name: 'evil',
        addresses: [
          { type: 'InternalIP', address: '-oProxyCommand=touch /tmp/x' },
          { type: 'Hostname', address: 'root@elsewhere' },
        ],
      },
      SSH,
      { ssh: sshOptions('ssh_config_hostile') },
    );
    assert.equal(hostile.kind, 'unreachable');
    assert.match(
      hostile.kind === 'unreachable' ? hostile.reason : '',
      /not an address: InternalIP "-oProxyCommand=touch \/tmp\/x", Hostname "root@elsewhere"/,
    );
  });

  test('an unknown host key is refused when strict, and under "ask" only the prompt can accept it', T, async () => {
    const node = await nodeSummary(NODE);
    // StrictHostKeyChecking yes in the config, the node's key in no known_hosts file: refused, nothing run.
    const strict = nodeProbeRoute(client, node, SSH, {
      ssh: sshOptions('ssh_config_strict', { knownHosts: emptyKnownHosts, strict: 'yes' }),
    });
    assert.equal(strict.kind, 'ssh');
    if (strict.kind !== 'ssh') return;
    try {
      const failure = await transportFailure(runProbe(strict.transport, { scope: 'node', hostRoot: strict.hostRoot, timeoutMs: 30_000 }));
      assert.equal(failure.kind, 'host-key-unknown');
      assert.equal(failure.kind === 'host-key-unknown' && failure.host, `[127.0.0.1]:${sshd.port}`);
    } finally {
      await strict.transport.close();
    }
    assert.equal(readFileSync(emptyKnownHosts, 'utf8'), '', 'nothing was added to known_hosts');

    // "ask" (the config sets nothing): VS Code's modal is this callback; declining refuses the key.
    const asked: string[] = [];
    const declined = nodeProbeRoute(client, node, SSH, {
      ssh: sshOptions('ssh_config_ask', {
        knownHosts: emptyKnownHosts,
        options: {
          confirmUnknownHost: async (host, keyType, fingerprint) => {
            asked.push(`${host} ${keyType} ${fingerprint}`);
            return false;
          },
        },
      }),
    });
    assert.equal(declined.kind, 'ssh');
    if (declined.kind !== 'ssh') return;
    try {
      const failure = await transportFailure(
        runProbe(declined.transport, { scope: 'node', hostRoot: declined.hostRoot, timeoutMs: 30_000 }),
      );
      assert.equal(failure.kind, 'host-key-unknown');
    } finally {
      await declined.transport.close();
    }
    assert.equal(asked.length, 1, 'the user was asked once');
    assert.match(asked[0] ?? '', new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshd.port} ssh-ed25519 SHA256:`));
    assert.equal(readFileSync(emptyKnownHosts, 'utf8'), '', 'a declined key is not written');

    // Accepting in the prompt connects, and the key is appended to the first UserKnownHostsFile.
    const acceptedFile = join(temp.dir, 'known_hosts.accepted');
    writeFileSync(acceptedFile, '');
    const accepted = nodeProbeRoute(client, node, SSH, {
      ssh: sshOptions('ssh_config_accept', { knownHosts: acceptedFile, options: { confirmUnknownHost: async () => true } }),
    });
    assert.equal(accepted.kind, 'ssh');
    if (accepted.kind !== 'ssh') return;
    try {
      const result = await accepted.transport.run({ script: 'echo accepted\n', timeoutMs: 30_000, maxOutputBytes: 4096 });
      assert.equal(result.stdout, 'accepted\n');
    } finally {
      await accepted.transport.close();
    }
    assert.match(
      readFileSync(acceptedFile, 'utf8'),
      new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshd.port} ssh-ed25519 ${sshd.hostKey.base64.replace(/[+/]/g, '\\$&')}\\n$`),
    );

    // A policy that turns "ask" into a refusal (the CLI's) never asks.
    const policy = nodeProbeRoute(client, node, SSH, {
      ssh: sshOptions('ssh_config_policy', {
        knownHosts: emptyKnownHosts,
        options: {
          hostKeyPolicy: () => ({ kind: 'override', policy: 'yes' }),
          confirmUnknownHost: async () => assert.fail('a strict policy must not ask'),
        },
      }),
    });
    assert.equal(policy.kind, 'ssh');
    if (policy.kind !== 'ssh') return;
    try {
      assert.equal(
        (await transportFailure(runProbe(policy.transport, { scope: 'node', hostRoot: policy.hostRoot, timeoutMs: 30_000 }))).kind,
        'host-key-unknown',
      );
    } finally {
      await policy.transport.close();
    }
  });

  test('a Host alias never redirects the probe unless sshHostFrom is node-name', T, async () => {
    // The node's name and its address both appear as Host patterns with a HostName elsewhere (TEST-NET-3).
    const text = [
      `Host ${NODE} 127.0.0.1`,
      '  HostName 203.0.113.99',
      `  Port ${sshd.port}`,
      '  User root',
      `  IdentityFile ${key}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${knownHosts}`,
      '  GlobalKnownHostsFile none',
      '  StrictHostKeyChecking yes',
      '',
    ].join('\n');
    const warnings: string[] = [];
    const ssh: SshFromConfigOptions = {
      env: { home: temp.dir, user: 'nobody-here' },
      config: { text, path: join(temp.dir, 'ssh_config_alias'), resolve: {} },
      warn: (line) => void warnings.push(line),
    };
    const node = await nodeSummary(NODE);
    const byAddress = nodeProbeRoute(client, node, SSH, { ssh });
    assert.equal(byAddress.kind, 'ssh');
    if (byAddress.kind !== 'ssh') return;
    assert.equal(
      byAddress.transport.target,
      `ssh root@127.0.0.1:${sshd.port}`,
      'the address is dialled, not the HostName of the Host block it matches',
    );
    assert.ok(
      warnings.some((line) => line.includes('HostName 203.0.113.99 for 127.0.0.1 is not followed')),
      warnings.join('\n'),
    );
    try {
      const run = await runProbe(byAddress.transport, { scope: 'node', hostRoot: '', timeoutMs: 60_000 });
      assert.equal(run.exec.exitCode, 0, run.exec.stderr);
    } finally {
      await byAddress.transport.close();
    }
    // A node reporting only its Hostname (= its name): still that name, not the alias's HostName.
    const hostnameOnly = nodeProbeRoute(client, { name: NODE, addresses: [{ type: 'Hostname', address: NODE }] }, SSH, { ssh });
    assert.equal(hostnameOnly.kind === 'ssh' && hostnameOnly.transport.target, `ssh root@${NODE}:${sshd.port}`);
    if (hostnameOnly.kind === 'ssh') await hostnameOnly.transport.close();
    // Asked for: the node name is an alias and its HostName is followed.
    const byName = nodeProbeRoute(client, node, { ...SSH, sshHostFrom: 'node-name' }, { ssh });
    assert.equal(byName.kind, 'ssh');
    if (byName.kind !== 'ssh') return;
    assert.equal(byName.addressType, 'NodeName');
    assert.equal(byName.transport.target, `ssh root@203.0.113.99:${sshd.port}`);
    await byName.transport.close();
    // A node name that is no DNS name is not handed to ssh as an alias.
    const hostile = nodeProbeRoute(client, { name: '-oProxyCommand=x', addresses: [] }, { ...SSH, sshHostFrom: 'node-name' }, { ssh });
    assert.equal(hostile.kind, 'unreachable');
  });

  test('an invalid debug image is refused before any pod is created; a digest-pinned one is accepted', T, () => {
    const before = sim.state.createdPods.length;
    const bad = nodeProbeRoute(client, { name: NODE, addresses: [] }, { ...SSH, nodeProbe: 'debug-pod', debugImage: 'busybox@sha256:123' });
    assert.equal(bad.kind, 'unreachable');
    assert.match(bad.kind === 'unreachable' ? bad.reason : '', /not a digest/);
    const pinned = `busybox:1.36@sha256:${'a'.repeat(64)}`;
    const good = nodeProbeRoute(client, { name: NODE, addresses: [] }, { ...SSH, nodeProbe: 'debug-pod', debugImage: pinned });
    assert.equal(good.kind, 'debug-pod');
    assert.equal(sim.state.createdPods.length, before);
  });

  test('the debug-pod route is chosen by the setting, with the host root /host, and creates nothing until run', T, () => {
    const before = sim.state.createdPods.length;
    const route = nodeProbeRoute(client, { name: NODE, addresses: [] }, { ...SSH, nodeProbe: 'debug-pod' });
    assert.equal(route.kind, 'debug-pod');
    assert.ok(route.kind === 'debug-pod' && route.transport instanceof DebugPodTransport);
    assert.equal(route.kind === 'debug-pod' && route.hostRoot, '/host');
    assert.equal(route.kind === 'debug-pod' && route.namespace, 'gpumem-debug');
    assert.equal(sim.state.createdPods.length, before);
  });
});
