// `gpumem hami-report --pod`, run from source as a child process (test/helpers/cli.ts) against the
// Kubernetes API simulator with its HAMi fixtures: the scheduler's and the device plugin's logs (pods/log)
// carry a service-account token, a password and a PEM key that must not reach the output; the bundle has the
// environment from the node, the pod's trimmed manifest and events, the node's HAMi annotations and both
// components' logs; a user without pods/log and events still gets the bundle, with those items "not
// collected" and why; a missing pod exits 2. Only reads: no pod is created, nothing is exec'd. No root needed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeCliHome, runCli } from '../helpers/cli.ts';
import { captureText } from '../unit/helpers/captureText.ts';
import type { CliHome, CliRun } from '../helpers/cli.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const T = { timeout: 60_000 };
const SA_TOKEN =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6ImhhbWkifQ.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a3ViZS1zeXN0ZW06aGFtaSJ9.c2lnbmF0dXJlLWJ5dGVz';
const SCHEDULER = 'hami-scheduler-6d9c7b8f5-q8w2r';

describe('gpumem hami-report against the simulator', () => {
  let sim: Simulator;
  let home: CliHome | undefined;
  let dir: string;
  let kubeconfig: string;
  let limitedKubeconfig: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    sim = await startSimulator({
      fixtures: loadFixtures(),
      roots: false,
      // Reads pods and nodes, but not pods/log nor events.
      users: [{ name: 'no-logs', rules: [{ verbs: ['get', 'list', 'watch'], resources: ['pods', 'nodes'] }] }],
    });
    sim.state.setPodLog(
      'kube-system',
      SCHEDULER,
      'vgpu-scheduler-extender',
      [
        'I1202 06:00:00.000001       1 scheduler.go:231] Requesting node-nvidia-register from gpu-node-7',
        `I1202 06:00:01.000002       1 webhook.go:88] calling the API with Authorization: Bearer ${SA_TOKEN}`,
        'I1202 06:00:02.000003       1 config.go:40] loaded config password=hunter2-from-config',
        '',
      ].join('\n'),
    );
    sim.state.setPodLog(
      'kube-system',
      'hami-device-plugin-x7k2p',
      'device-plugin',
      'I1202 06:00:03.000004       1 main.go:82] Starting HAMi device plugin\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n',
    );
    const trainer = sim.state.get('pods', 'ml', 'trainer-0');
    sim.state.put({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'trainer-0.17f0', namespace: 'ml' },
      involvedObject: { kind: 'Pod', namespace: 'ml', name: 'trainer-0', uid: trainer?.metadata.uid },
      reason: 'Scheduled',
      message: 'Successfully assigned ml/trainer-0 to gpu-node-7',
      type: 'Normal',
      source: { component: 'hami-scheduler' },
      count: 1,
    });
    home = makeCliHome('gpumem-hami-report-', { admin: sim.kubeconfig('admin'), 'no-logs': sim.kubeconfig('no-logs') });
    ({ dir, env } = home);
    kubeconfig = home.kubeconfigs['admin']!;
    limitedKubeconfig = home.kubeconfigs['no-logs']!;
  });

  after(async () => {
    await sim?.close();
    home?.cleanup();
  });

  const gpumem = (args: readonly string[]): Promise<CliRun> => runCli(['hami-report', ...args], { env, timeoutMs: 50_000 });

  test('the bundle of a HAMi pod: every template item, the logs of both components, the secrets redacted', T, async () => {
    const created = sim.state.createdPods.length;
    const execs = sim.state.execs.length;
    const run = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', kubeconfig]);
    assert.equal(run.code, 0, run.stderr);
    const out = run.stdout;
    assert.match(out, /^# HAMi issue bundle: pod ml\/trainer-0/);
    assert.match(out, /- HAMi version: v2\.8\.1/);
    assert.match(out, /- Kubernetes version: server v1\.33\.0-gpumem-sim; kubelet v1\.33\.4 on gpu-node-7/);
    assert.match(out, /- Container runtime and version: containerd\\:\/\/2\.1\.4/);
    assert.match(out, /NVIDIA-NVIDIA H100 80GB HBM3/);
    assert.ok(
      out.includes('hami.io/vgpu-devices-allocated: GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f,NVIDIA,8192,50:;'),
      'the pod manifest section',
    );
    assert.ok(out.includes('Successfully assigned ml/trainer-0 to gpu-node-7'), 'the pod event, selected by uid');
    assert.ok(!out.includes('Serving device plugin'), 'setPodLog replaced the fixture log');
    assert.ok(out.includes('Starting HAMi device plugin'), 'the device plugin on gpu-node-7');
    assert.ok(!out.includes('hami-device-plugin-m4t9z'), 'not the device plugin of another node');
    assert.ok(out.includes('Requesting node-nvidia-register from gpu-node-7'), "the scheduler extender's log");
    assert.ok(out.includes('successfully acquired lease'), "the kube-scheduler container's log");
    assert.ok(!out.includes(SA_TOKEN) && !out.includes('c2lnbmF0dXJlLWJ5dGVz'), 'the token is redacted');
    assert.ok(!out.includes('hunter2'), 'the password is redacted');
    assert.ok(!out.includes('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'), 'the PEM block is redacted');
    assert.ok(out.includes('Authorization: <redacted>'));
    assert.match(out, /\*\*Redacted 3 values\*\*/);
    for (const item of ['## nvidia-smi -a', '## Kubelet logs', '## Kernel output (dmesg)', '## Container runtime configuration'])
      assert.ok(out.includes(`${item}\n\nNot collected:`), item);
    const logRequests = sim.state.requests.filter((r) => r.path.includes('/log?'));
    assert.ok(logRequests.length >= 4, 'one pods/log per container');
    for (const request of logRequests) assert.match(request.path, /tailLines=200/);
    assert.ok(
      sim.state.requests.some((r) => r.path.startsWith('/api/v1/namespaces/ml/events?') && r.path.includes('involvedObject.uid')),
      'events by involvedObject.uid',
    );
    assert.equal(sim.state.createdPods.length, created, 'no pod created');
    assert.equal(sim.state.execs.length, execs, 'nothing exec’d');
  });

  test('--output writes the file with mode 0600 and says how many values were redacted', T, async () => {
    const file = join(dir, 'bundle.md');
    const run = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', kubeconfig, '--output', file, '--tail-lines', '1']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /wrote .*bundle\.md \(redacted \d+ values?\)/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(file, 'utf8'), /The last 1 lines at most/);
  });

  test('--node-capture fills the node-only items; a file that is not a capture is named and left out', T, async () => {
    const capture = join(dir, 'gpu-node-7.capture');
    writeFileSync(
      capture,
      captureText('node', {
        'kernel-log': 'source=dmesg\n[ 900.1] NVRM: Xid (PCI:0000:17:00): 79, GPU has fallen off the bus.\n',
        containerd: {
          files: [
            [
              '/host/etc/containerd/config.toml',
              'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "nvidia"\n',
            ],
          ],
        },
      }),
    );
    const run = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', kubeconfig, '--node-capture', capture]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes('GPU has fallen off the bus'));
    assert.ok(run.stdout.includes('default_runtime_name = "nvidia"'));
    const notCapture = join(dir, 'notes.txt');
    writeFileSync(notCapture, 'just notes\n');
    const other = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', kubeconfig, '--node-capture', notCapture]);
    assert.equal(other.code, 0, other.stderr);
    assert.ok(other.stdout.includes('The node capture notes.txt was not used: not a gpumem probe capture.'));
    const missing = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', kubeconfig, '--node-capture', join(dir, 'absent')]);
    assert.equal(missing.code, 2);
  });

  test('without pods/log and events: the bundle still comes, those items not collected and why', T, async () => {
    const run = await gpumem(['--pod', 'ml/trainer-0', '--kubeconfig', limitedKubeconfig]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /## Pod events\n\nNot collected: Events of pod ml\/trainer-0: Your credentials for context/);
    assert.match(run.stdout, /Not collected: Log of kube-system\/hami-device-plugin-x7k2p container device-plugin: Your credentials/);
    assert.ok(run.stdout.includes('pods/log'), 'names the missing permission');
  });

  test('a missing pod and bad usage exit 2', T, async () => {
    const missing = await gpumem(['--pod', 'ml/nope', '--kubeconfig', kubeconfig]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Read pod ml\/nope/);
    const usage = await gpumem(['--kubeconfig', kubeconfig]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /give --pod/);
    const tail = await gpumem(['--pod', 'ml/trainer-0', '--tail-lines', '0']);
    assert.equal(tail.code, 2);
  });
});
