// SshTransport against real OpenSSH servers on 127.0.0.1, started by test/helpers/sshd.ts: key and agent
// login, encrypted keys, exit codes, a 1 MB script on stdin, the output cap, the command timeout and
// cancellation (checked with pgrep: sshd runs here, so the remote processes are local ones), host key
// acceptance, refusal, change, revocation and hashed known_hosts, auth and connect failures, ProxyJump
// through a second sshd, keepalive loss, and ChrootDirectory into a busybox fixture root.
//
// Needs root; installs openssh-server, openssh-client, busybox-static and procps with apt-get when missing,
// or fails with the command to run. Every server, agent, temp dir and remote process is cleaned up in
// after()/finally, on success and on failure.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { TransportError } from '../../src/core/probe/transport.ts';
import type { ExecRequest, TransportFailure } from '../../src/core/probe/transport.ts';
import { SshTransport } from '../../src/transports/ssh.ts';
import type { SshHop, SshTransportOptions } from '../../src/transports/sshOptions.ts';
import { sshSettingsFromConfig } from '../../src/transports/sshUserConfig.ts';
import { sshTransportFromConfig } from '../../src/transports/sshFromConfig.ts';
import type { SshFromConfigOptions } from '../../src/transports/sshFromConfig.ts';
import { cliSshOptions } from '../../src/cli/sshTarget.ts';
import type { CliIo } from '../../src/cli/io.ts';
import {
  ensureSshTools,
  freePort,
  generateKey,
  makeChrootRoot,
  pgrep,
  startAgent,
  startSshd,
  tempDir,
  waitGone,
  waitStarted,
} from '../helpers/sshd.ts';
import type { ChrootRoot, KeyPair, SshdInstance } from '../helpers/sshd.ts';

const USER = 'root';
const PASSPHRASE = `pass-${randomBytes(6).toString('hex')}`;
const T = { timeout: 90_000 };

let work: { dir: string; cleanup(): void };
let clientKey: KeyPair;
let encryptedKey: KeyPair; // ed25519, openssh format, .pub present, authorized
let encryptedPem: KeyPair; // RSA, PEM format, .pub removed: the passphrase must be asked up front
let encryptedRsa: KeyPair; // RSA, openssh format, .pub removed: the public half comes from the file header
let strangerKey: KeyPair; // not authorized
let encryptedStranger: KeyPair; // encrypted, not authorized
let agentKey: KeyPair; // authorized, only loaded in the agent
let main: SshdInstance;
let jump: SshdInstance;
let chrooted: SshdInstance;
let chrootRoot: ChrootRoot;
const cleanups: Array<() => unknown> = [];

before(async () => {
  ensureSshTools();
  work = tempDir('gpumem-ssh-test-');
  cleanups.push(() => work.cleanup());
  clientKey = generateKey(work.dir, 'id_client', 'ed25519');
  encryptedKey = generateKey(work.dir, 'id_encrypted', 'ed25519', PASSPHRASE);
  encryptedPem = generateKey(work.dir, 'id_encrypted_pem', 'rsa', PASSPHRASE);
  execFileSync('ssh-keygen', ['-q', '-p', '-m', 'PEM', '-P', PASSPHRASE, '-N', PASSPHRASE, '-f', encryptedPem.privateKeyPath]);
  unlinkSync(encryptedPem.publicKeyPath);
  encryptedRsa = generateKey(work.dir, 'id_encrypted_rsa', 'rsa', PASSPHRASE);
  unlinkSync(encryptedRsa.publicKeyPath);
  strangerKey = generateKey(work.dir, 'id_stranger', 'ed25519');
  encryptedStranger = generateKey(work.dir, 'id_encrypted_stranger', 'ed25519', PASSPHRASE);
  agentKey = generateKey(work.dir, 'id_agent', 'ed25519');
  const authorized = [clientKey, encryptedKey, encryptedPem, encryptedRsa, agentKey].map((k) => k.publicLine);
  main = await startSshd({ authorizedKeys: authorized });
  cleanups.push(() => main.stop());
  jump = await startSshd({ authorizedKeys: [clientKey.publicLine], hostKeyType: 'ecdsa' });
  cleanups.push(() => jump.stop());
  chrootRoot = makeChrootRoot({ 'etc/gpumem/fixture.txt': 'fixture node: gpu-node-7\n' });
  cleanups.push(() => chrootRoot.cleanup());
  chrooted = await startSshd({ authorizedKeys: [clientKey.publicLine], chrootDirectory: chrootRoot.root });
  cleanups.push(() => chrooted.stop());
});

after(async () => {
  for (const c of cleanups.reverse()) {
    try {
      await c();
    } catch {
      // keep cleaning
    }
  }
});

function hop(server: Pick<SshdInstance, 'port'>, extra: Partial<SshHop> = {}): SshHop {
  return { host: '127.0.0.1', port: server.port, user: USER, identityFiles: [clientKey.privateKeyPath], ...extra };
}

/** A known_hosts file in a fresh temp path with these lines. */
function knownHosts(...lines: string[]): string {
  const file = join(work.dir, `known_hosts_${randomBytes(4).toString('hex')}`);
  writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

interface Made {
  transport: SshTransport;
  logs: string[];
  asked: Array<[string, string, string]>;
}

function make(options: Partial<SshTransportOptions> & { target: SshHop }, answer = false): Made {
  const logs: string[] = [];
  const asked: Array<[string, string, string]> = [];
  const transport = new SshTransport({
    knownHostsFiles: [knownHosts(main.knownHostsLine, jump.knownHostsLine, chrooted.knownHostsLine)],
    globalKnownHostsFiles: [],
    confirmUnknownHost: async (host, keyType, fingerprint) => {
      asked.push([host, keyType, fingerprint]);
      return answer;
    },
    log: (l) => logs.push(l),
    ...options,
  });
  return { transport, logs, asked };
}

function req(script: string, extra: Partial<ExecRequest> = {}): ExecRequest {
  return { script, timeoutMs: 30_000, maxOutputBytes: 4 << 20, ...extra };
}

async function failure(p: Promise<unknown>, kind: TransportFailure['kind']): Promise<TransportFailure & { detail?: string }> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof TransportError, `expected a TransportError, got ${err instanceof Error ? err.stack : String(err)}`);
    assert.equal(err.failure.kind, kind, err.message);
    return err.failure as TransportFailure & { detail?: string };
  }
  assert.fail(`expected a ${kind} failure`);
}

function uniqueSleep(): string {
  return `3${String(randomBytes(4).readUInt32BE(0) % 100000).padStart(5, '0')}.${randomBytes(2).readUInt16BE(0)}`;
}

/** ssh-keygen -lf's SHA256 fingerprint of a public key file. */
function keygenFingerprint(pubFile: string): string {
  return execFileSync('ssh-keygen', ['-lf', pubFile], { encoding: 'utf8' }).split(' ')[1] as string;
}

function acceptedLogins(server: SshdInstance): number {
  return (server.log().match(/Accepted publickey for /g) ?? []).length;
}

describe('login and running scripts', () => {
  test('key login, then `echo hello; id -u` over sh -s', T, async () => {
    const { transport, asked } = make({ target: hop(main) });
    try {
      const r = await transport.run(req('echo hello; id -u'));
      assert.deepEqual(r, { stdout: 'hello\n0\n', stderr: '', exitCode: 0, truncated: false });
      assert.deepEqual(asked, [], 'a known host is not asked about');
      assert.equal(transport.target, `ssh root@127.0.0.1:${main.port}`);
    } finally {
      await transport.close();
    }
  });

  test('exit codes, stderr, and several runs on one connection', T, async () => {
    const before = acceptedLogins(main);
    const { transport } = make({ target: hop(main) });
    try {
      assert.equal((await transport.run(req('exit 0'))).exitCode, 0);
      assert.equal((await transport.run(req('exit 3'))).exitCode, 3);
      assert.equal((await transport.run(req('false'))).exitCode, 1);
      const r = await transport.run(req('echo out; echo err >&2; exit 42'));
      assert.deepEqual(r, { stdout: 'out\n', stderr: 'err\n', exitCode: 42, truncated: false });
      const killed = await transport.run(req('echo before; kill -9 $$'));
      assert.equal(killed.exitCode, null, 'killed by a signal: no exit status');
      assert.equal(killed.stdout, 'before\n');
      const [a, b] = await Promise.all([transport.run(req('echo a')), transport.run(req('echo b'))]);
      assert.equal(a.stdout + b.stdout, 'a\nb\n');
    } finally {
      await transport.close();
    }
    assert.equal(acceptedLogins(main) - before, 1, 'one SSH connection for all runs');
  });

  test('a 1 MB script arrives whole on stdin', T, async () => {
    const { transport } = make({ target: hop(main) });
    try {
      const payload = Array.from({ length: 16_384 }, (_, i) => `${String(i).padStart(6, '0')} ${'x'.repeat(56)}`).join('\n');
      assert.ok(payload.length > 1_000_000);
      const script = `cat <<'GPUMEM_EOF' | sha256sum\n${payload}\nGPUMEM_EOF\necho "lines: $(printf '%s' x | wc -c)"\n`;
      const r = await transport.run(req(script));
      const expected = createHash('sha256').update(`${payload}\n`).digest('hex');
      assert.equal(r.stdout.split(' ')[0], expected);
      assert.match(r.stdout, /lines: 1\n$/);
      assert.equal(r.exitCode, 0);
    } finally {
      await transport.close();
    }
  });

  test('the output cap truncates, stops the remote process group, and keeps the connection', T, async () => {
    const { transport } = make({ target: hop(main) });
    const s = uniqueSleep();
    try {
      const r = await transport.run(req(`sleep ${s} &\nwhile :; do echo 0123456789; done\n`, { maxOutputBytes: 100_000 }));
      assert.equal(r.truncated, true);
      assert.equal(r.stdout.length, 100_000);
      assert.ok(r.stdout.startsWith('0123456789\n0123456789\n'));
      assert.equal(r.exitCode, null);
      assert.deepEqual(await waitGone(`sleep ${s}`), [], 'the remote background process was killed');
      assert.equal((await transport.run(req('echo still here'))).stdout, 'still here\n');
    } finally {
      await transport.close();
      for (const pid of pgrep(`sleep ${s}`)) process.kill(pid, 'SIGKILL');
    }
  });

  test('the command timeout stops the remote process', T, async () => {
    const { transport } = make({ target: hop(main) });
    const s = uniqueSleep();
    try {
      const f = await failure(transport.run(req(`sleep ${s}`, { timeoutMs: 700 })), 'timeout');
      assert.deepEqual(f, { kind: 'timeout', phase: 'command', ms: 700 });
      assert.deepEqual(await waitGone(`sleep ${s}`), []);
    } finally {
      await transport.close();
      for (const pid of pgrep(`sleep ${s}`)) process.kill(pid, 'SIGKILL');
    }
  });

  test('cancellation mid-run returns cancelled, closes the connection and leaves no remote process', T, async () => {
    const { transport } = make({ target: hop(main) });
    const s = uniqueSleep();
    const controller = new AbortController();
    try {
      const running = transport.run(req(`sleep ${s} & sleep ${s}; echo never`, { signal: controller.signal }));
      assert.equal((await waitStarted(`sleep ${s}`, 2)).length, 2, 'both remote sleeps started');
      const t0 = Date.now();
      controller.abort();
      await failure(running, 'cancelled');
      assert.ok(Date.now() - t0 < 5_000, 'cancel returns promptly (generous watchdog)');
      assert.deepEqual(await waitGone(`sleep ${s}`), [], 'no remote process left');
      await failure(transport.run(req('echo after')), 'disconnected');
    } finally {
      await transport.close();
      for (const pid of pgrep(`sleep ${s}`)) process.kill(pid, 'SIGKILL');
    }
  });

  test('a signal aborted before connecting is cancelled at once', T, async () => {
    const { transport } = make({ target: hop(main) });
    const controller = new AbortController();
    controller.abort();
    await failure(transport.run(req('echo no', { signal: controller.signal })), 'cancelled');
    await transport.close();
  });
});

describe('host keys', () => {
  test('unknown host key: refused when the user says no, and known_hosts is untouched', T, async () => {
    const file = knownHosts();
    const { transport, asked } = make({ target: hop(main), knownHostsFiles: [file] }, false);
    try {
      const f = await failure(transport.run(req('echo no')), 'host-key-unknown');
      const fp = keygenFingerprint(main.hostKey.publicKeyPath);
      assert.deepEqual(f, { kind: 'host-key-unknown', host: `[127.0.0.1]:${main.port}`, fingerprint: fp, keyType: 'ssh-ed25519' });
      assert.deepEqual(asked, [[`[127.0.0.1]:${main.port}`, 'ssh-ed25519', fp]]);
      assert.equal(readFileSync(file, 'utf8'), '');
    } finally {
      await transport.close();
    }
  });

  test('unknown host key: accepted when the user says yes, appended, then known', T, async () => {
    const file = knownHosts('# my hosts', 'other.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKa5Kw4ZGy0xg1GgcnzsCSJ5hp0VPHuSp9S1Y3ZnEVhT');
    writeFileSync(file, readFileSync(file, 'utf8').trimEnd()); // no final newline: the append must add one
    const first = make({ target: hop(main), knownHostsFiles: [file] }, true);
    try {
      assert.equal((await first.transport.run(req('echo ok'))).stdout, 'ok\n');
      assert.equal(first.asked.length, 1);
    } finally {
      await first.transport.close();
    }
    const lines = readFileSync(file, 'utf8').split('\n');
    assert.equal(lines[2], main.knownHostsLine);
    assert.equal(lines[3], '');
    const second = make({ target: hop(main), knownHostsFiles: [file] }, false);
    try {
      assert.equal((await second.transport.run(req('echo again'))).stdout, 'again\n');
      assert.deepEqual(second.asked, [], 'now known: not asked again');
    } finally {
      await second.transport.close();
    }
  });

  test('HashKnownHosts: an accepted key is written hashed, and found again', T, async () => {
    const file = knownHosts();
    const first = make({ target: hop(main), knownHostsFiles: [file], hashKnownHosts: true }, true);
    try {
      await first.transport.run(req('true'));
    } finally {
      await first.transport.close();
    }
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+ ssh-ed25519 [A-Za-z0-9+/=]+\n$/);
    assert.ok(!text.includes('127.0.0.1'));
    // OpenSSH's own tools find it.
    const found = execFileSync('ssh-keygen', ['-F', `[127.0.0.1]:${main.port}`, '-f', file], { encoding: 'utf8' });
    assert.match(found, /Host \[127\.0\.0\.1\]:\d+ found/);
    const second = make({ target: hop(main), knownHostsFiles: [file] }, false);
    try {
      await second.transport.run(req('true'));
      assert.deepEqual(second.asked, []);
    } finally {
      await second.transport.close();
    }
  });

  test('known_hosts hashed by ssh-keygen -H is honoured', T, async () => {
    const file = knownHosts(main.knownHostsLine);
    execFileSync('ssh-keygen', ['-q', '-H', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    rmSync(`${file}.old`, { force: true });
    assert.match(readFileSync(file, 'utf8'), /^\|1\|/);
    const { transport, asked } = make({ target: hop(main), knownHostsFiles: [file] });
    try {
      assert.equal((await transport.run(req('echo hashed'))).stdout, 'hashed\n');
      assert.deepEqual(asked, []);
    } finally {
      await transport.close();
    }
  });

  test('StrictHostKeyChecking yes refuses unknown keys without asking; accept-new adds them', T, async () => {
    const strict = make({ target: hop(main), knownHostsFiles: [knownHosts()], strictHostKeyChecking: 'yes' }, true);
    try {
      await failure(strict.transport.run(req('true')), 'host-key-unknown');
      assert.deepEqual(strict.asked, []);
    } finally {
      await strict.transport.close();
    }
    const file = knownHosts();
    const acceptNew = make({ target: hop(main), knownHostsFiles: [file], strictHostKeyChecking: 'accept-new' }, false);
    try {
      await acceptNew.transport.run(req('true'));
      assert.deepEqual(acceptNew.asked, []);
      assert.equal(readFileSync(file, 'utf8'), `${main.knownHostsLine}\n`);
    } finally {
      await acceptNew.transport.close();
    }
  });

  test('a changed host key is always refused, whatever the policy and the user say', T, async () => {
    const impostor = generateKey(work.dir, `impostor_${randomBytes(3).toString('hex')}`, 'ed25519');
    for (const policy of ['ask', 'accept-new', 'no'] as const) {
      const file = knownHosts(`[127.0.0.1]:${main.port} ${impostor.type} ${impostor.base64}`);
      const { transport, asked } = make({ target: hop(main), knownHostsFiles: [file], strictHostKeyChecking: policy }, true);
      try {
        const f = await failure(transport.run(req('echo no')), 'host-key-changed');
        assert.equal(f.kind === 'host-key-changed' && f.fingerprint, keygenFingerprint(main.hostKey.publicKeyPath));
        assert.ok(f.kind === 'host-key-changed' && f.expected.includes(keygenFingerprint(impostor.publicKeyPath)), JSON.stringify(f));
        assert.deepEqual(asked, [], `${policy}: never asked`);
        assert.equal(readFileSync(file, 'utf8').split('\n').length, 2, 'known_hosts untouched');
      } finally {
        await transport.close();
      }
    }
  });

  test('a @revoked host key is refused even when also listed as known', T, async () => {
    const file = knownHosts(main.knownHostsLine, `@revoked * ${main.hostKey.type} ${main.hostKey.base64}`);
    const { transport, asked } = make({ target: hop(main), knownHostsFiles: [file] }, true);
    try {
      const f = await failure(transport.run(req('true')), 'host-key-changed');
      assert.match(f.kind === 'host-key-changed' ? f.expected : '', /revoked/);
      assert.deepEqual(asked, []);
    } finally {
      await transport.close();
    }
  });

  test('a key of another type for the host: the known type is negotiated, not a surprise', T, async () => {
    // jump's host key is ECDSA; listing it makes the client ask for ECDSA first and match.
    const { transport, asked } = make({ target: hop(jump), knownHostsFiles: [knownHosts(jump.knownHostsLine)] });
    try {
      assert.equal((await transport.run(req('echo ecdsa'))).stdout, 'ecdsa\n');
      assert.deepEqual(asked, []);
    } finally {
      await transport.close();
    }
  });
});

describe('authentication', () => {
  test('a key the server does not accept: auth failure naming what was tried, no secrets', T, async () => {
    const { transport, logs } = make({ target: hop(main, { identityFiles: [strangerKey.privateKeyPath, join(work.dir, 'id_missing')] }) });
    try {
      const f = await failure(transport.run(req('true')), 'auth');
      assert.match(f.detail ?? '', new RegExp(`root@127\\.0\\.0\\.1:${main.port}: tried key ${strangerKey.privateKeyPath} \\(refused\\)`));
      assert.match(f.detail ?? '', /the server accepts: publickey/);
      assert.match(f.detail ?? '', /no agent/);
      const secret = readFileSync(strangerKey.privateKeyPath, 'utf8').split('\n')[1] as string;
      assert.ok(!JSON.stringify([f, logs]).includes(secret));
    } finally {
      await transport.close();
    }
  });

  test('no key at all: auth failure says so', T, async () => {
    const { transport } = make({ target: hop(main, { identityFiles: [join(work.dir, 'nope')] }) });
    try {
      const f = await failure(transport.run(req('true')), 'auth');
      assert.match(f.detail ?? '', /no key to offer/);
    } finally {
      await transport.close();
    }
  });

  test('an encrypted key: the passphrase callback unlocks it; wrong passphrases are retried', T, async () => {
    const calls: Array<[string, number]> = [];
    const { transport, logs } = make({
      target: hop(main, { identityFiles: [encryptedKey.privateKeyPath] }),
      passphrase: async (file, attempt) => {
        calls.push([file, attempt]);
        return attempt === 1 ? 'wrong' : PASSPHRASE;
      },
    });
    try {
      assert.equal((await transport.run(req('echo unlocked'))).stdout, 'unlocked\n');
      assert.deepEqual(calls, [
        [encryptedKey.privateKeyPath, 1],
        [encryptedKey.privateKeyPath, 2],
      ]);
      assert.ok(!logs.join('\n').includes(PASSPHRASE), 'the passphrase is never logged');
    } finally {
      await transport.close();
    }
  });

  test('an encrypted key whose passphrase is declined: auth failure without secrets', T, async () => {
    const { transport, logs } = make({
      target: hop(main, { identityFiles: [encryptedKey.privateKeyPath] }),
      passphrase: async () => undefined,
    });
    try {
      const f = await failure(transport.run(req('true')), 'auth');
      assert.match(f.detail ?? '', /accepted the key but no passphrase was given/);
      assert.ok(!JSON.stringify([f, logs]).includes(PASSPHRASE));
    } finally {
      await transport.close();
    }
  });

  test('an encrypted key the server would refuse is not unlocked: no passphrase prompt', T, async () => {
    let prompts = 0;
    const { transport } = make({
      target: hop(main, { identityFiles: [encryptedStranger.privateKeyPath, clientKey.privateKeyPath] }),
      passphrase: async () => {
        prompts++;
        return PASSPHRASE;
      },
    });
    try {
      assert.equal((await transport.run(req('echo second key'))).stdout, 'second key\n');
      assert.equal(prompts, 0);
    } finally {
      await transport.close();
    }
  });

  test('an encrypted RSA key without .pub: offered from its header, unlocked on acceptance (rsa-sha2)', T, async () => {
    let prompts = 0;
    const { transport, logs } = make({
      target: hop(main, { identityFiles: [encryptedRsa.privateKeyPath] }),
      passphrase: async () => {
        prompts++;
        return PASSPHRASE;
      },
    });
    try {
      assert.equal((await transport.run(req('echo rsa-sha2'))).stdout, 'rsa-sha2\n');
      assert.equal(prompts, 1);
      assert.match(logs.join('\n'), /offering encrypted key .*id_encrypted_rsa \(passphrase only if the server accepts it\)/);
    } finally {
      await transport.close();
    }
    assert.match(main.log(), /Accepted publickey for root .* RSA SHA256:/);
  });

  test('an encrypted PEM key without .pub: the passphrase is asked up front', T, async () => {
    let prompts = 0;
    const { transport } = make({
      target: hop(main, { identityFiles: [encryptedPem.privateKeyPath] }),
      passphrase: async () => {
        prompts++;
        return PASSPHRASE;
      },
    });
    try {
      assert.equal((await transport.run(req('echo rsa'))).stdout, 'rsa\n');
      assert.equal(prompts, 1);
    } finally {
      await transport.close();
    }
  });

  test('the agent: used after the identity files, as OpenSSH does', T, async () => {
    const agent = await startAgent(work.dir, [agentKey.privateKeyPath]);
    try {
      const { transport, logs } = make({ target: hop(main, { identityFiles: [strangerKey.privateKeyPath], agent: agent.socket }) });
      try {
        assert.equal((await transport.run(req('echo via agent'))).stdout, 'via agent\n');
        const order = logs.filter((l) => /offering|trying the agent/.test(l));
        assert.match(order[0] ?? '', /offering key .*id_stranger/);
        assert.match(order[1] ?? '', /trying the agent/);
      } finally {
        await transport.close();
      }
      const only = make({ target: hop(main, { identityFiles: [strangerKey.privateKeyPath], agent: agent.socket, identitiesOnly: true }) });
      try {
        await failure(only.transport.run(req('true')), 'auth');
      } finally {
        await only.transport.close();
      }
    } finally {
      await agent.stop();
      rmSync(agent.socket, { force: true });
    }
  });

  test('an agent socket that does not answer is reported, not fatal', T, async () => {
    const { transport } = make({
      target: hop(main, { identityFiles: [strangerKey.privateKeyPath], agent: join(work.dir, 'no-agent.sock') }),
    });
    try {
      const f = await failure(transport.run(req('true')), 'auth');
      assert.match(f.detail ?? '', /agent not reachable/);
    } finally {
      await transport.close();
    }
  });
});

describe('connection failures', () => {
  test('connection refused', T, async () => {
    const port = await freePort();
    const { transport } = make({ target: hop({ port }) });
    try {
      const f = await failure(transport.run(req('true')), 'connect');
      assert.match(f.detail ?? '', new RegExp(`connection refused by 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
    } finally {
      await transport.close();
    }
  });

  test('a host name that does not resolve', T, async () => {
    const { transport } = make({ target: { ...hop(main), host: 'gpumem-no-such-host.invalid' } });
    try {
      const f = await failure(transport.run(req('true')), 'connect');
      assert.match(f.detail ?? '', /cannot resolve the host name "gpumem-no-such-host\.invalid"/);
    } finally {
      await transport.close();
    }
  });

  test('a server that never speaks: connect timeout', T, async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as { port: number }).port;
    const { transport } = make({ target: hop({ port }), connectTimeoutMs: 800 });
    try {
      const f = await failure(transport.run(req('true')), 'timeout');
      assert.deepEqual(f, { kind: 'timeout', phase: 'connect', ms: 800 });
    } finally {
      await transport.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  test('the connect timeout does not run while the user is deciding', T, async () => {
    const { transport } = make({
      target: hop(main),
      knownHostsFiles: [knownHosts()],
      connectTimeoutMs: 1500,
      confirmUnknownHost: () => new Promise((r) => setTimeout(() => r(true), 2500)),
    });
    try {
      assert.equal((await transport.run(req('echo patient'))).stdout, 'patient\n');
    } finally {
      await transport.close();
    }
  });

  test('a dead peer is detected by keepalives', T, async () => {
    // A TCP relay to sshd that can freeze: data stops flowing both ways, the sockets stay open.
    let frozen = false;
    const pairs: Socket[] = [];
    const relay = createServer((client) => {
      const upstream = createConnection({ host: '127.0.0.1', port: main.port });
      pairs.push(client, upstream);
      client.on('data', (d) => {
        if (!frozen) upstream.write(d);
      });
      upstream.on('data', (d) => {
        if (!frozen) client.write(d);
      });
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
    const port = (relay.address() as { port: number }).port;
    const s = uniqueSleep();
    const { transport } = make({
      target: hop({ port }),
      knownHostsFiles: [knownHosts(`[127.0.0.1]:${port} ${main.hostKey.type} ${main.hostKey.base64}`)],
      keepaliveIntervalMs: 200,
      keepaliveCountMax: 2,
    });
    try {
      assert.equal((await transport.run(req('echo alive'))).stdout, 'alive\n');
      const running = transport.run(req(`sleep ${s}`));
      await waitStarted(`sleep ${s}`);
      frozen = true;
      const f = await failure(running, 'disconnected');
      assert.match(f.detail ?? '', /stopped answering keepalives/);
    } finally {
      await transport.close();
      for (const p of pairs) p.destroy();
      await new Promise<void>((r) => relay.close(() => r()));
      for (const pid of pgrep(`sleep ${s}`)) process.kill(pid, 'SIGKILL');
    }
  });
});

describe('ProxyJump', () => {
  test('through a second sshd, each hop verified', T, async () => {
    const { transport, asked } = make({ target: hop(main), jumps: [hop(jump)] });
    try {
      const r = await transport.run(req('echo behind the jump; id -u'));
      assert.equal(r.stdout, 'behind the jump\n0\n');
      assert.equal(transport.target, `ssh root@127.0.0.1:${main.port} via root@127.0.0.1:${jump.port}`);
      assert.deepEqual(asked, []);
    } finally {
      await transport.close();
    }
  });

  test('an unknown jump host key is asked about under the jump host name, and refusal stops there', T, async () => {
    const { transport, asked } = make({ target: hop(main), jumps: [hop(jump)], knownHostsFiles: [knownHosts(main.knownHostsLine)] }, false);
    try {
      const f = await failure(transport.run(req('true')), 'host-key-unknown');
      assert.equal(f.kind === 'host-key-unknown' && f.host, `[127.0.0.1]:${jump.port}`);
      assert.equal(asked.length, 1);
    } finally {
      await transport.close();
    }
  });

  test('the target behind the jump is verified too (changed key refused)', T, async () => {
    const impostor = generateKey(work.dir, `impostor_${randomBytes(3).toString('hex')}`, 'ed25519');
    const file = knownHosts(jump.knownHostsLine, `[127.0.0.1]:${main.port} ${impostor.type} ${impostor.base64}`);
    const { transport } = make({ target: hop(main), jumps: [hop(jump)], knownHostsFiles: [file] }, true);
    try {
      const f = await failure(transport.run(req('true')), 'host-key-changed');
      assert.equal(f.kind === 'host-key-changed' && f.host, `[127.0.0.1]:${main.port}`);
    } finally {
      await transport.close();
    }
  });

  test('a target the jump host cannot reach', T, async () => {
    const port = await freePort();
    const { transport } = make({ target: hop({ port }), jumps: [hop(jump)] });
    try {
      const f = await failure(transport.run(req('true')), 'connect');
      assert.match(
        f.detail ?? '',
        new RegExp(`jump host root@127\\.0\\.0\\.1:${jump.port} could not open a connection to 127\\.0\\.0\\.1:${port}`),
      );
    } finally {
      await transport.close();
    }
  });

  test('from an ssh config: Host aliases, HostName, Port, User, IdentityFile, ProxyJump', T, async () => {
    const config = [
      'Host gpu-node',
      '  HostName 127.0.0.1',
      `  Port ${main.port}`,
      '  User root',
      `  IdentityFile ${clientKey.privateKeyPath}`,
      '  ProxyJump bastion',
      'Host bastion',
      '  HostName 127.0.0.1',
      `  Port ${jump.port}`,
      `  IdentityFile ${clientKey.privateKeyPath}`,
      'Host *',
      `  UserKnownHostsFile ${knownHosts(main.knownHostsLine, jump.knownHostsLine)}`,
      '  StrictHostKeyChecking yes',
      '',
    ].join('\n');
    const { settings, warnings } = sshSettingsFromConfig('gpu-node', config, { home: work.dir, user: 'root' });
    assert.deepEqual(warnings, []);
    const transport = new SshTransport(settings);
    try {
      assert.equal((await transport.run(req('echo configured'))).stdout, 'configured\n');
      assert.equal(transport.target, `ssh root@127.0.0.1:${main.port} via root@127.0.0.1:${jump.port}`);
    } finally {
      await transport.close();
    }
  });
});

describe('StrictHostKeyChecking from the ssh config, as the CLI applies it (a loud line names the entry)', () => {
  /** An ssh config in a fresh home: `Host gpu-*` sets the policy on line 5, an Include file sets the rest. */
  function configFor(policy: string | undefined, knownHostsFile: string): SshFromConfigOptions['config'] {
    const include = join(work.dir, `include_${randomBytes(3).toString('hex')}`);
    writeFileSync(
      include,
      [
        `Host gpu-*`,
        '  HostName 127.0.0.1',
        `  Port ${main.port}`,
        '  User root',
        `  IdentityFile ${clientKey.privateKeyPath}`,
        `  UserKnownHostsFile ${knownHostsFile}`,
        '  GlobalKnownHostsFile none',
        '',
      ].join('\n'),
    );
    const lines = ['# test config', `Include ${include}`, '', 'Host gpu-*', ...(policy ? [`  StrictHostKeyChecking ${policy}`] : []), ''];
    return {
      text: lines.join('\n'),
      path: '/home/tester/.ssh/config',
      resolve: { readInclude: (path) => (path === include ? [{ path, text: readFileSync(path, 'utf8') }] : []) },
    };
  }
  function cli(acceptNew: boolean): { options: SshFromConfigOptions; stderr: string[] } {
    const stderr: string[] = [];
    const io: CliIo = {
      stdout: () => undefined,
      stderr: (text) => void stderr.push(text),
      readStdin: async () => ({ kind: 'read', bytes: new Uint8Array() }),
      cwd: work.dir,
      version: 'test',
      docsDirectory: work.dir,
    };
    return { options: cliSshOptions({ identityFile: undefined, knownHostsFile: undefined, acceptNew, timeoutMs: 30_000, io }), stderr };
  }
  const loud = (stderr: readonly string[]): string[] =>
    stderr.filter((line) => line.startsWith('gpumem: WARNING: trusted the unknown host key'));

  for (const policy of ['accept-new', 'no'] as const) {
    test(`${policy}: the unknown key is added, and stderr names /home/tester/.ssh/config:5 (Host gpu-*)`, T, async () => {
      const file = knownHosts();
      const { options, stderr } = cli(false);
      const transport = sshTransportFromConfig('gpu-a', { ...options, config: configFor(policy, file) });
      try {
        assert.equal((await transport.run(req('echo trusted'))).stdout, 'trusted\n');
      } finally {
        await transport.close();
      }
      assert.equal(readFileSync(file, 'utf8'), `${main.knownHostsLine}\n`);
      const lines = loud(stderr);
      assert.equal(lines.length, 1, stderr.join(''));
      assert.ok(lines[0]?.includes(`"StrictHostKeyChecking ${policy}" at /home/tester/.ssh/config:5 (Host gpu-*)`), lines[0]);
      assert.ok(lines[0]?.includes(keygenFingerprint(main.hostKey.publicKeyPath)), lines[0]);
    });

    test(`${policy}: a changed key is still refused, with nothing announced and known_hosts untouched`, T, async () => {
      const impostor = generateKey(work.dir, `impostor_${randomBytes(3).toString('hex')}`, 'ed25519');
      const file = knownHosts(`[127.0.0.1]:${main.port} ${impostor.type} ${impostor.base64}`);
      const { options, stderr } = cli(false);
      const transport = sshTransportFromConfig('gpu-a', { ...options, config: configFor(policy, file) });
      try {
        await failure(transport.run(req('echo no')), 'host-key-changed');
      } finally {
        await transport.close();
      }
      assert.deepEqual(loud(stderr), []);
      assert.equal(readFileSync(file, 'utf8'), `[127.0.0.1]:${main.port} ${impostor.type} ${impostor.base64}\n`);
    });
  }

  test('no StrictHostKeyChecking (ask): the CLI refuses the unknown key; --accept-new accepts it without the config line', T, async () => {
    const file = knownHosts();
    const refused = cli(false);
    const strict = sshTransportFromConfig('gpu-a', { ...refused.options, config: configFor(undefined, file) });
    try {
      await failure(strict.run(req('true')), 'host-key-unknown');
    } finally {
      await strict.close();
    }
    assert.equal(readFileSync(file, 'utf8'), '');
    const flagged = cli(true);
    const accepted = sshTransportFromConfig('gpu-a', { ...flagged.options, config: configFor(undefined, file) });
    try {
      await accepted.run(req('true'));
    } finally {
      await accepted.close();
    }
    assert.deepEqual(loud(flagged.stderr), [], 'the user asked with --accept-new: no config entry to blame');
    assert.equal(readFileSync(file, 'utf8'), `${main.knownHostsLine}\n`);
  });

  test('yes: refused, nothing asked, nothing announced', T, async () => {
    const file = knownHosts();
    const { options, stderr } = cli(false);
    const transport = sshTransportFromConfig('gpu-a', {
      ...options,
      config: configFor('yes', file),
      confirmUnknownHost: async () => assert.fail('yes never asks'),
    });
    try {
      await failure(transport.run(req('true')), 'host-key-unknown');
    } finally {
      await transport.close();
    }
    assert.deepEqual(loud(stderr), []);
  });
});

describe('ChrootDirectory', () => {
  test('a chrooted sh -s (busybox) reads the fixture root', T, async () => {
    const { transport } = make({ target: hop(chrooted) });
    try {
      const r = await transport.run(
        req('cat /etc/gpumem/fixture.txt\nls /\n[ -e /usr/bin/ssh-keygen ] && echo host-visible || echo isolated\n'),
      );
      assert.equal(r.stdout, 'fixture node: gpu-node-7\nbin\netc\nisolated\n');
      assert.equal(r.exitCode, 0);
      assert.equal(r.stderr, '');
    } finally {
      await transport.close();
    }
  });
});
