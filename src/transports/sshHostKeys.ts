// The host key of every SSH hop (sshHop.ts), checked against known_hosts (user files, then global ones;
// the file format is knownHosts.ts's) before authentication:
// - A changed or @revoked key is always refused, under `no` too (OpenSSH would connect "with
//   restrictions"; gpumem never does).
// - An unknown key is refused with StrictHostKeyChecking=yes, accepted with accept-new/no (and then
//   `onUnknownKeyAccepted` is told, for the front end's loud line), and with ask (the default) accepted only
//   when `confirmUnknownHost` says so; only then is the line appended to the first user known_hosts file.
import { appendFile, mkdir } from 'node:fs/promises';
import { readBoundedText } from '../files/boundedRead.ts';
import { dirname } from 'node:path';
import type { TransportFailure } from '../core/probe/transport.ts';
import { errorMessage } from '../core/errorMessage.ts';
import { appendKnownHost, blobKeyType, checkHostKey, fingerprintSha256, knownHostName, knownKeyTypes } from './knownHosts.ts';
import type { HostKeyCheck } from './knownHosts.ts';
import type { PausableTimer } from './pausableTimer.ts';
import type { SshHop, SshTransportOptions } from './sshOptions.ts';
import { ExplainedError } from '../core/failureReport.ts';

const HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/** Host key algorithms with the types known_hosts already holds for this host first (as OpenSSH orders them). */
export async function hostKeyAlgorithms(options: SshTransportOptions, hop: SshHop): Promise<string[]> {
  const known: string[] = [];
  for (const file of knownHostsFiles(options)) {
    for (const t of knownKeyTypes(await readTextOrEmpty(file), hop.host, hop.port)) if (!known.includes(t)) known.push(t);
  }
  const first: string[] = [];
  for (const t of known) {
    const algos = t === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [t];
    for (const a of algos) if (HOST_KEY_ALGORITHMS.includes(a) && !first.includes(a)) first.push(a);
  }
  return [...first, ...HOST_KEY_ALGORITHMS.filter((a) => !first.includes(a))];
}

function knownHostsFiles(options: SshTransportOptions): string[] {
  return [...options.knownHostsFiles, ...(options.globalKnownHostsFiles ?? [])];
}

/** undefined when the key is acceptable, else the failure to report. */
export async function verifyHostKey(
  options: SshTransportOptions,
  log: (line: string) => void,
  hop: SshHop,
  keyBlob: Buffer,
  timer: PausableTimer,
): Promise<TransportFailure | undefined> {
  const name = knownHostName(hop.host, hop.port);
  const keyType = blobKeyType(keyBlob) ?? 'unknown';
  const keyBase64 = keyBlob.toString('base64');
  const fingerprint = fingerprintSha256(keyBlob);
  let changed: { check: Extract<HostKeyCheck, { kind: 'changed' }>; file: string } | undefined;
  let known = false;
  for (const file of knownHostsFiles(options)) {
    const check = checkHostKey(await readTextOrEmpty(file), hop.host, hop.port, keyType, keyBase64);
    if (check.kind === 'revoked') {
      log(`${name}: host key ${fingerprint} is marked @revoked in ${file}`);
      return { kind: 'host-key-changed', host: name, fingerprint, expected: `no key: this key is @revoked in ${file}` };
    }
    if (check.kind === 'known') known = true;
    if (check.kind === 'changed' && !changed) changed = { check, file };
  }
  if (known) return undefined;
  if (changed) {
    const where = `${changed.file}:${changed.check.lines.join(',')}`;
    const despite =
      options.strictHostKeyChecking === 'no'
        ? ' (refused although StrictHostKeyChecking is no: gpumem never connects to a changed key)'
        : '';
    log(
      `${name}: host key CHANGED (${keyType} ${fingerprint}); known_hosts has ${changed.check.expectedFingerprints.join(', ')} at ${where}${despite}`,
    );
    return { kind: 'host-key-changed', host: name, fingerprint, expected: `${changed.check.expectedFingerprints.join(', ')} (${where})` };
  }
  const policy = options.strictHostKeyChecking ?? 'ask';
  const acceptedByPolicy = policy === 'accept-new' || policy === 'no';
  let accept = acceptedByPolicy;
  if (policy === 'ask' && options.confirmUnknownHost) {
    timer.pause();
    try {
      accept = await options.confirmUnknownHost(name, keyType, fingerprint);
    } finally {
      timer.resume();
    }
  }
  if (!accept) {
    log(`${name}: unknown host key ${keyType} ${fingerprint} refused`);
    return { kind: 'host-key-unknown', host: name, fingerprint, keyType };
  }
  if (acceptedByPolicy) {
    log(`${name}: unknown host key ${keyType} ${fingerprint} accepted by StrictHostKeyChecking ${policy}`);
    options.onUnknownKeyAccepted?.(name, keyType, fingerprint);
  }
  const file = options.knownHostsFiles[0];
  if (file) {
    try {
      const line = appendKnownHost(hop.host, hop.port, keyType, keyBase64, { hash: options.hashKnownHosts ?? false });
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      const current = await readBoundedText(file, { kind: 'known-hosts' });
      // Never append to what was not read: a FIFO would block the append, a device or a huge file is no known_hosts.
      if (current.kind !== 'read' && !(current.kind === 'refused' && current.cause === 'missing'))
        throw new ExplainedError(`${file} not read: ${current.reason}`, 'file');
      const existing = current.kind === 'read' ? current.text : '';
      await appendFile(file, `${existing !== '' && !existing.endsWith('\n') ? '\n' : ''}${line}\n`, { mode: 0o600 });
      log(`${name}: added ${keyType} ${fingerprint} to ${file}`);
    } catch (err) {
      log(`${name}: could not add the host key to ${file}: ${errorMessage(err)}`);
    }
  }
  return undefined;
}

/** A known_hosts file's text; '' when it is missing, or not a regular file, or past its limit (keys in it then count as unknown). */
async function readTextOrEmpty(file: string): Promise<string> {
  const read = await readBoundedText(file, { kind: 'known-hosts' });
  return read.kind === 'read' ? read.text : '';
}
