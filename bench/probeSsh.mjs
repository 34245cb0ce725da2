// The SSH part of the probe bench (bench/probe.mjs): one SshTransport inspection against a bare `ssh host true`.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { runProbe } from '../src/core/inspectionRun/runProbe.ts';
import { LocalTransport } from '../src/transports/local.ts';
import { SshTransport } from '../src/transports/ssh.ts';
import { sshSettingsFromConfig } from '../src/transports/sshUserConfig.ts';
import { spawnWait } from './shellRun.mjs';
import { count, median, rotated, timed } from './stats.mjs';

const SSH_WARMUP = 3;
const SSH_ROUNDS = 15;
export const SSH_TARGET = 1.5;

// ---- 1. SSH: one inspection against a bare `ssh host true` ----------------------------------------------------
// A real sshd (test/helpers/sshd.ts) on 127.0.0.1 at LogLevel VERBOSE, which logs every TCP connection
// ("Connection from"), every login ("Accepted publickey for") and every exec ("Starting session: command"), so
// the server itself proves how many of each an inspection used. ssh2's Client is also wrapped to count connect()
// and exec() calls on the client side.
export async function benchSsh() {
  const { ensureSshTools, generateKey, startSshd, tempDir } = await import('../test/helpers/sshd.ts');
  ensureSshTools(); // root only; installs openssh-server & co. with apt-get (non-interactive) when missing
  const work = tempDir('gpumem-bench-ssh-');
  const proto = ssh2.Client.prototype;
  const { connect, exec } = proto;
  const client = { connects: 0, execs: 0 };
  proto.connect = function countedConnect(...args) {
    client.connects++;
    return connect.apply(this, args);
  };
  proto.exec = function countedExec(...args) {
    client.execs++;
    return exec.apply(this, args);
  };
  let sshd;
  try {
    const key = generateKey(work.dir, 'client', 'ed25519');
    sshd = await startSshd({ authorizedKeys: [key.publicLine], logLevel: 'VERBOSE' });
    const knownHosts = join(work.dir, 'known_hosts');
    writeFileSync(knownHosts, `${sshd.knownHostsLine}\n`, { mode: 0o600 });
    // -F none: neither ~/.ssh/config nor /etc/ssh/ssh_config, as the transport below reads only its own config.
    const sshArgs = [
      '-F',
      'none',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      `UserKnownHostsFile=${knownHosts}`,
      '-o',
      'IdentitiesOnly=yes',
      '-i',
      key.privateKeyPath,
      '-p',
      String(sshd.port),
      'root@127.0.0.1',
      'true',
    ];
    // The transport's settings come from an ssh config, as the CLI and the extension build them.
    const config = [
      'Host gpumem-bench',
      '  HostName 127.0.0.1',
      `  Port ${sshd.port}`,
      '  User root',
      `  IdentityFile ${key.privateKeyPath}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${knownHosts}`,
      '  StrictHostKeyChecking yes',
      '',
    ].join('\n');
    const env = { home: work.dir, user: 'root' };

    let captureBytes = 0;
    const ops = {
      bare: () => spawnWait('ssh', sshArgs),
      inspection: async () => {
        const { settings } = sshSettingsFromConfig('gpumem-bench', config, env);
        const transport = new SshTransport(settings);
        try {
          const run = await runProbe(transport, { scope: 'node' });
          if (run.exec.exitCode !== 0 || !run.captureText.includes(':done@@'))
            throw new Error(`the inspection did not complete (exit ${run.exec.exitCode}): ${run.exec.stderr.slice(0, 300)}`);
          captureBytes = Buffer.byteLength(run.captureText);
        } finally {
          await transport.close();
        }
      },
      script: async () => {
        const transport = new LocalTransport(); // sh -s on this machine: the script's own time
        try {
          const run = await runProbe(transport, { scope: 'node' });
          if (run.exec.exitCode !== 0 || !run.captureText.includes(':done@@'))
            throw new Error(`the local probe did not complete (exit ${run.exec.exitCode})`);
        } finally {
          await transport.close();
        }
      },
    };

    // What the server and ssh2 saw during one operation; waits (untimed) until sshd logged the disconnect.
    const observe = async (name) => {
      const from = sshd.log().length;
      const before = { ...client };
      const { ms: took } = await timed(ops[name]);
      if (name !== 'script') {
        for (let waited = 0; waited < 3000 && !/Disconnected from user/.test(sshd.log().slice(from)); waited += 10) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      const log = sshd.log().slice(from);
      return {
        ms: took,
        connections: count(log, /^Connection from /gm),
        logins: count(log, /^Accepted publickey for /gm),
        execs: count(log, /^Starting session: command /gm),
        clientConnects: client.connects - before.connects,
        clientExecs: client.execs - before.execs,
      };
    };

    for (let i = 0; i < SSH_WARMUP; i++) for (const name of Object.keys(ops)) await observe(name);
    const samples = { bare: [], inspection: [], script: [] };
    const roundRatios = [];
    for (let round = 0; round < SSH_ROUNDS; round++) {
      const got = {};
      for (const name of rotated(Object.keys(ops), round)) {
        got[name] = await observe(name);
        samples[name].push(got[name]);
      }
      roundRatios.push((got.inspection.ms - got.script.ms) / got.bare.ms);
    }
    const times = (name) => samples[name].map((s) => s.ms);
    const perOp = (name) => {
      const keys = ['connections', 'logins', 'execs', 'clientConnects', 'clientExecs'];
      const out = {};
      for (const k of keys) {
        const values = samples[name].map((s) => s[k]);
        out[k] = { min: Math.min(...values), max: Math.max(...values) };
      }
      return out;
    };
    const bareMs = median(times('bare'));
    const inspectionMs = median(times('inspection'));
    const scriptMs = median(times('script'));
    const ratio = median(roundRatios);
    const inspectionCounts = perOp('inspection');
    const oneEach = ['connections', 'logins', 'execs', 'clientConnects', 'clientExecs'].every(
      (k) => inspectionCounts[k].min === 1 && inspectionCounts[k].max === 1,
    );
    return {
      rounds: SSH_ROUNDS,
      warmup: SSH_WARMUP,
      openssh: (await sshVersion()).trim(),
      bareSshMs: times('bare'),
      inspectionMs: times('inspection'),
      scriptLocalMs: times('script'),
      medianBareSshMs: bareMs,
      medianInspectionMs: inspectionMs,
      medianScriptLocalMs: scriptMs,
      overheadMs: inspectionMs - scriptMs,
      ratio,
      ratioOfMedians: (inspectionMs - scriptMs) / bareMs,
      roundRatios,
      captureBytes,
      perInspection: inspectionCounts,
      perBareSsh: perOp('bare'),
      oneConnectionOneExec: oneEach,
      target: SSH_TARGET,
      pass: ratio <= SSH_TARGET && oneEach,
    };
  } finally {
    proto.connect = connect;
    proto.exec = exec;
    await sshd?.stop();
    work.cleanup();
  }
}

function sshVersion() {
  return new Promise((resolve) => {
    const child = spawn('ssh', ['-V'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => (text += chunk));
    child.once('error', () => resolve('unknown'));
    child.once('close', () => resolve(text));
  });
}
