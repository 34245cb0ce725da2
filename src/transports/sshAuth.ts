// Public-key authentication of one SSH hop (sshHop.ts): the IdentityFile keys, then the agent, offered
// through ssh2's authHandler, with passphrases asked only when needed; kept apart from the connection logic
// because it is the part that touches key material.
import { readBounded } from '../files/boundedRead.ts';
import ssh2 from 'ssh2';
import type { AnyAuthMethod, AuthenticationType, NextAuthHandler, ParsedKey, SignCallback, SigningRequestOptions } from 'ssh2';
import { blobKeyType } from './knownHosts.ts';
import { errorMessage } from '../core/errorMessage.ts';
import type { PausableTimer } from './pausableTimer.ts';
import type { SshHop, SshTransportOptions } from './sshOptions.ts';

const { BaseAgent, utils } = ssh2;

interface Attempt {
  label: string;
  result: string | undefined;
}

/** Offers the hop's keys one by one through ssh2's authHandler, and remembers what happened for the error. */
export class AuthPlan {
  readonly #hop: SshHop;
  readonly #options: SshTransportOptions;
  readonly #timer: PausableTimer;
  readonly #log: (line: string) => void;
  #fileIndex = 0;
  #agentTried = false;
  readonly #attempts: Attempt[] = [];
  readonly #skipped: string[] = [];
  #serverMethods: string[] | null = null;
  readonly #unlocked = new Map<string, Promise<ParsedKey | null>>();

  constructor(hop: SshHop, options: SshTransportOptions, timer: PausableTimer, log: (line: string) => void) {
    this.#hop = hop;
    this.#options = options;
    this.#timer = timer;
    this.#log = log;
  }

  readonly handler = (methodsLeft: AuthenticationType[] | null, _partial: boolean | null, next: NextAuthHandler): void => {
    const last = this.#attempts[this.#attempts.length - 1];
    if (last && last.result === undefined) last.result = 'refused';
    if (methodsLeft) this.#serverMethods = methodsLeft;
    const done = next as unknown as (m: AnyAuthMethod | false) => void;
    if (methodsLeft && !methodsLeft.includes('publickey')) {
      done(false);
      return;
    }
    this.#next().then(
      (method) => done(method ?? false),
      (err: unknown) => {
        this.#skipped.push(`internal error: ${errorMessage(err)}`);
        done(false);
      },
    );
  };

  noteError(message: string): void {
    const last = this.#attempts[this.#attempts.length - 1];
    if (!last) return;
    // Messages from ssh2 or from DeferredKeyAgent: no secrets in either.
    if (/Failed to connect to agent/i.test(message)) last.result = 'agent not reachable';
    else if (/no passphrase|passphrase not given/i.test(message)) last.result = 'the server accepted the key but no passphrase was given';
    else last.result = message;
  }

  describe(): string {
    const parts: string[] = [];
    if (this.#attempts.length === 0) {
      parts.push('no key to offer');
    } else {
      parts.push(`tried ${this.#attempts.map((a) => `${a.label} (${a.result ?? 'refused'})`).join(', ')}`);
    }
    if (this.#skipped.length > 0) parts.push(`skipped ${this.#skipped.join(', ')}`);
    if (!this.#hop.agent && !this.#hop.identitiesOnly) parts.push('no agent (SSH_AUTH_SOCK is not set)');
    if (this.#serverMethods) parts.push(`the server accepts: ${this.#serverMethods.join(', ') || 'nothing'}`);
    return parts.join('; ');
  }

  async #next(): Promise<AnyAuthMethod | null> {
    const username = this.#hop.user;
    while (this.#fileIndex < this.#hop.identityFiles.length) {
      const file = this.#hop.identityFiles[this.#fileIndex++] as string;
      const method = await this.#fromFile(file, username);
      if (method) return method;
    }
    if (!this.#agentTried && this.#hop.agent && !this.#hop.identitiesOnly) {
      this.#agentTried = true;
      this.#attempts.push({ label: `the agent at ${this.#hop.agent}`, result: undefined });
      this.#log('trying the agent');
      return { type: 'agent', username, agent: this.#hop.agent };
    }
    return null;
  }

  async #fromFile(file: string, username: string): Promise<AnyAuthMethod | null> {
    const read = await readBounded(file, { kind: 'ssh-key' });
    if (read.kind !== 'read') {
      if (read.kind === 'too-large' || read.cause !== 'missing') this.#skipped.push(`${file} (${read.reason})`);
      return null;
    }
    const data = Buffer.from(read.bytes);
    const parsed = firstKey(utils.parseKey(data));
    if (!(parsed instanceof Error)) {
      if (!parsed.isPrivateKey()) {
        this.#skipped.push(`${file} (not a private key)`);
        return null;
      }
      this.#attempts.push({ label: `key ${file}`, result: undefined });
      this.#log(`offering key ${file}`);
      return { type: 'publickey', username, key: parsed };
    }
    if (!/no passphrase given/i.test(parsed.message)) {
      this.#skipped.push(`${file} (unsupported key format)`);
      return null;
    }
    // Encrypted.
    const publicKey = await encryptedKeyPublicHalf(file, data);
    if (publicKey) {
      this.#attempts.push({ label: `encrypted key ${file}`, result: undefined });
      this.#log(`offering encrypted key ${file} (passphrase only if the server accepts it)`);
      return { type: 'agent', username, agent: new DeferredKeyAgent(publicKey, () => this.#unlock(file, data)) };
    }
    const key = await this.#unlock(file, data);
    if (!key) {
      this.#skipped.push(`${file} (encrypted, no passphrase given)`);
      return null;
    }
    this.#attempts.push({ label: `key ${file}`, result: undefined });
    this.#log(`offering key ${file}`);
    return { type: 'publickey', username, key };
  }

  #unlock(file: string, data: Buffer): Promise<ParsedKey | null> {
    let p = this.#unlocked.get(file);
    if (!p) {
      p = this.#askAndDecrypt(file, data);
      this.#unlocked.set(file, p);
    }
    return p;
  }

  async #askAndDecrypt(file: string, data: Buffer): Promise<ParsedKey | null> {
    const ask = this.#options.passphrase;
    if (!ask) return null;
    for (let attempt = 1; attempt <= 3; attempt++) {
      this.#timer.pause();
      let pass: string | undefined;
      try {
        pass = await ask(file, attempt);
      } finally {
        this.#timer.resume();
      }
      if (pass === undefined || pass === null) return null;
      const key = firstKey(utils.parseKey(data, pass));
      if (!(key instanceof Error) && key.isPrivateKey()) return key;
      this.#log(`wrong passphrase for ${file} (attempt ${attempt})`);
    }
    return null;
  }
}

function firstKey(result: ParsedKey | ParsedKey[] | Error): ParsedKey | Error {
  if (Array.isArray(result)) return result[0] ?? new Error('no key in file');
  return result;
}

/**
 * The public half of an encrypted private key: from `<file>.pub`, or from the clear header of an
 * `openssh-key-v1` file (which stores the public key unencrypted). null when neither is available.
 */
async function encryptedKeyPublicHalf(file: string, data: Buffer): Promise<ParsedKey | null> {
  const header = opensshPublicBlob(data.toString('latin1'));
  if (header) {
    const type = blobKeyType(header);
    if (type) {
      const key = firstKey(utils.parseKey(`${type} ${header.toString('base64')}`));
      if (!(key instanceof Error)) return key;
    }
  }
  const read = await readBounded(`${file}.pub`, { kind: 'ssh-key' });
  if (read.kind !== 'read') return null;
  const pub = firstKey(utils.parseKey(Buffer.from(read.bytes)));
  return pub instanceof Error ? null : pub;
}

/** The first public key blob of an `-----BEGIN OPENSSH PRIVATE KEY-----` file, or null. */
function opensshPublicBlob(text: string): Buffer | null {
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (!m) return null;
  const bin = Buffer.from((m[1] as string).replace(/\s+/g, ''), 'base64');
  const magic = 'openssh-key-v1\0';
  if (bin.subarray(0, magic.length).toString('latin1') !== magic) return null;
  let pos = magic.length;
  const readString = (): Buffer | null => {
    if (pos + 4 > bin.length) return null;
    const len = bin.readUInt32BE(pos);
    pos += 4;
    if (pos + len > bin.length) return null;
    const s = bin.subarray(pos, pos + len);
    pos += len;
    return s;
  };
  if (!readString() || !readString() || !readString()) return null; // cipher, kdf, kdf options
  if (pos + 4 > bin.length || bin.readUInt32BE(pos) < 1) return null;
  pos += 4;
  return readString();
}

/**
 * A one-key "agent" for an encrypted key file: it offers the public key, and decrypts the private key (asking
 * the passphrase) only when the server accepted the public key and a signature is needed.
 */
class DeferredKeyAgent extends BaseAgent<ParsedKey> {
  readonly #publicKey: ParsedKey;
  readonly #unlock: () => Promise<ParsedKey | null>;

  constructor(publicKey: ParsedKey, unlock: () => Promise<ParsedKey | null>) {
    super();
    this.#publicKey = publicKey;
    this.#unlock = unlock;
  }

  getIdentities(cb: (err?: Error | null, keys?: ParsedKey[]) => void): void {
    cb(null, [this.#publicKey]);
  }

  sign(_pubKey: ParsedKey, data: Buffer, options: SigningRequestOptions | SignCallback, cb?: SignCallback): void {
    const callback = (typeof options === 'function' ? options : cb) as SignCallback;
    const hash = typeof options === 'object' && options !== null ? options.hash : undefined;
    this.#unlock().then(
      (key) => {
        if (!key) {
          callback(new Error('passphrase not given'));
          return;
        }
        const signature = key.sign(data, hash) as Buffer | Error;
        if (signature instanceof Error) callback(new Error('could not sign with the key'));
        else callback(null, signature);
      },
      () => callback(new Error('could not decrypt the key')),
    );
  }
}
