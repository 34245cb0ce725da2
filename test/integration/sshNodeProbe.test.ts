// The node probe end to end over a real OpenSSH server: sshd's ChrootDirectory puts the login into a
// chroot fixture root (a Strix Halo node with a GTT-heavy pod, a HAMi node), so the SSH transport, the
// probe script, the parsers and the verdicts all run as they would against a real node.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { SshTransport } from '../../src/transports/ssh.ts';
import { buildApuNode, buildHamiNode, GiB, pathIsChrootSafe } from '../helpers/fixtureRoot.ts';
import type { Fixture } from '../helpers/fixtureRoot.ts';
import { addLoginShellShim, generateKey, sshUnavailableReason, startSshd, tempDir } from '../helpers/sshd.ts';
import type { SshdInstance } from '../helpers/sshd.ts';

const unavailable = sshUnavailableReason();
const T = { timeout: 120_000 };

async function inspectOverSsh(sshd: SshdInstance, key: string, knownHosts: string, hostRoot: string) {
  const transport = new SshTransport({
    target: { host: sshd.host, port: sshd.port, user: 'root', identityFiles: [key] },
    knownHostsFiles: [knownHosts],
    globalKnownHostsFiles: [],
    strictHostKeyChecking: 'yes',
  });
  try {
    const run = await runProbe(transport, { scope: 'node', hostRoot, timeoutMs: 60_000 });
    return { run, inspection: analyzeCaptureText(run.captureText, { target: transport.target }) };
  } finally {
    await transport.close();
  }
}

describe('node probe over SSH into chroot fixture roots', { skip: unavailable ?? false }, () => {
  const fixtures: Fixture<unknown>[] = [];
  const servers: SshdInstance[] = [];
  const temp = tempDir('gpumem-ssh-node-');
  let key = '';

  after(async () => {
    for (const server of servers) await server.stop();
    for (const fixture of fixtures) fixture.cleanup();
    temp.cleanup();
  });

  async function serve<F>(fixture: Fixture<F>): Promise<{ sshd: SshdInstance; knownHosts: string }> {
    fixtures.push(fixture as Fixture<unknown>);
    assert.ok(pathIsChrootSafe(fixture.root), `${fixture.root} must be acceptable to sshd as a ChrootDirectory`);
    addLoginShellShim(fixture.root);
    const client = generateKey(temp.dir, `client-${servers.length}`, 'ed25519');
    key = client.privateKeyPath;
    const sshd = await startSshd({ authorizedKeys: [client.publicLine], chrootDirectory: fixture.root });
    servers.push(sshd);
    const knownHosts = join(temp.dir, `known_hosts_${servers.length}`);
    writeFileSync(knownHosts, `${sshd.knownHostsLine}\n`);
    return { sshd, knownHosts };
  }

  test('APU node: the GTT-heavy pod is over its limit in reality, seen through SSH', T, async () => {
    const apu = buildApuNode();
    const { sshd, knownHosts } = await serve(apu);
    const { run, inspection } = await inspectOverSsh(sshd, key, knownHosts, apu.hostRoot);
    assert.equal(run.exec.exitCode, 0, run.exec.stderr);
    assert.ok(inspection.capture.complete, inspection.problems.join('; '));
    const pod = inspection.node?.pods.find((candidate) => candidate.podUid === apu.facts.podUid);
    assert.equal(pod?.gtt, 30 * GiB, "the pod's GTT, each DRM client counted once");
    assert.ok(inspection.verdicts.some((verdict) => verdict.id === 'memory.pod-over-limit-in-reality' && verdict.severity === 'error'));
    assert.ok(
      inspection.verdicts.some((verdict) => verdict.id.startsWith('oom.global')),
      'the global OOM kill in kern.log is explained',
    );
    assert.match(sshd.log(), /Accepted publickey/);
  });

  test('HAMi node: the host preload and the shared-region caches arrive through SSH', T, async () => {
    const hami = buildHamiNode();
    const { sshd, knownHosts } = await serve(hami);
    const { inspection } = await inspectOverSsh(sshd, key, knownHosts, hami.hostRoot);
    assert.ok(inspection.capture.complete, inspection.problems.join('; '));
    const caches = inspection.capture.sections.get('hami.caches');
    assert.ok(caches && caches.records.filter((record) => record.path?.endsWith('.cache')).length === 2, 'one record per container cache');
    assert.ok(
      caches.records.every((record) => /^header=\s*19920718 /m.test(record.body)),
      'the HAMi-core magic in every cache header',
    );
    assert.ok(inspection.hami, 'the HAMi checklist ran on the node capture');
  });
});
