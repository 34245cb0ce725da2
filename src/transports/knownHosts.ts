// known_hosts, as OpenSSH reads and writes it (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"): pure functions over
// the file's text, so callers decide when to read and, only after the user accepted a key, append.
//
// Line format: `[@marker] hostpatterns keytype base64key [comment]`
// - hostpatterns: comma-separated names or patterns (`*`, `?`, negation `!`), `[host]:port` for a non-22
//   port, or one hashed entry `|1|base64(salt)|base64(HMAC-SHA1(salt, name))` where name is `host` or
//   `[host]:port` exactly as it would be written in clear;
// - `@cert-authority`: the key is a CA for host certificates: ignored here (plain host keys only);
// - `@revoked`: the key must never be accepted for the matching hosts.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type HostKeyCheck =
  | { readonly kind: 'known' }
  | {
      readonly kind: 'unknown';
      /** Key types known for this host in other algorithms (OpenSSH then warns but still asks). */
      readonly otherKeyTypes: readonly string[];
    }
  | {
      readonly kind: 'changed';
      /** SHA256 fingerprints of the keys known_hosts holds for this host and key type. */
      readonly expectedFingerprints: readonly string[];
      /** 1-based line numbers of those entries (for "Offending key in known_hosts:3"). */
      readonly lines: readonly number[];
    }
  | { readonly kind: 'revoked' };

export interface KnownHostEntry {
  readonly line: number;
  readonly marker: 'cert-authority' | 'revoked' | null;
  /** Clear-text patterns, or null for a hashed entry. */
  readonly patterns: readonly string[] | null;
  readonly hashed: { readonly salt: Buffer; readonly hash: Buffer } | null;
  readonly keyType: string;
  readonly keyBase64: string;
  readonly key: Buffer;
}

/** Parses known_hosts text; malformed lines are skipped (OpenSSH skips them too). */
export function parseKnownHosts(text: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/[ \t]+/);
    let marker: KnownHostEntry['marker'] = null;
    if (fields[0]?.startsWith('@')) {
      const m = fields.shift();
      if (m === '@cert-authority') marker = 'cert-authority';
      else if (m === '@revoked') marker = 'revoked';
      else return; // unknown marker: OpenSSH rejects the line
    }
    const [hosts, keyType, keyBase64] = fields;
    if (!hosts || !keyType || !keyBase64) return;
    const key = decodeBase64Strict(keyBase64);
    if (!key || key.length === 0) return;
    let hashed: KnownHostEntry['hashed'] = null;
    let patterns: string[] | null = null;
    if (hosts.startsWith('|')) {
      const parts = hosts.split('|');
      // ['', '1', salt, hash]
      if (parts.length !== 4 || parts[1] !== '1') return;
      const salt = decodeBase64Strict(parts[2] ?? '');
      const hash = decodeBase64Strict(parts[3] ?? '');
      if (!salt || !hash || hash.length !== 20) return;
      hashed = { salt, hash };
    } else {
      patterns = hosts.split(',').filter((p) => p !== '');
      if (patterns.length === 0) return;
    }
    entries.push({ line: index + 1, marker, patterns, hashed, keyType, keyBase64, key });
  });
  return entries;
}

/** The name known_hosts uses for a host and port: `host` on port 22, `[host]:port` otherwise. */
export function knownHostName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

/** Whether an entry's host field matches the name (`host` or `[host]:port`). */
export function entryMatchesHost(entry: KnownHostEntry, name: string): boolean {
  if (entry.hashed) {
    const mac = createHmac('sha1', entry.hashed.salt).update(name).digest();
    return mac.length === entry.hashed.hash.length && timingSafeEqual(mac, entry.hashed.hash);
  }
  return matchHostPatternList(name, entry.patterns ?? []);
}

/**
 * OpenSSH's match_hostname: true when a positive pattern matches and no negated one does. Case-insensitive.
 */
export function matchHostPatternList(name: string, patterns: readonly string[]): boolean {
  const subject = name.toLowerCase();
  let matched = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).toLowerCase();
    if (wildcardMatch(subject, pattern)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** `*` any run of characters, `?` exactly one; everything else literal. */
export function wildcardMatch(subject: string, pattern: string): boolean {
  // Iterative glob with backtracking on the last `*`.
  let s = 0;
  let p = 0;
  let star = -1;
  let mark = 0;
  while (s < subject.length) {
    const pc = pattern[p];
    if (pc === '*') {
      star = p++;
      mark = s;
    } else if (pc !== undefined && (pc === '?' || pc === subject[s])) {
      s++;
      p++;
    } else if (star >= 0) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/**
 * Checks a server's host key against known_hosts text. `host` and `port` are where we connected (the
 * HostName, not the alias); `keyBase64` is the key blob as it appears in known_hosts.
 * Order, as in OpenSSH: a matching `@revoked` key wins; then an exact key match is known; then a different
 * key of the same type for this host is a change; otherwise the key is unknown.
 */
export function checkHostKey(knownHostsText: string, host: string, port: number, keyType: string, keyBase64: string): HostKeyCheck {
  return checkHostKeyInEntries(parseKnownHosts(knownHostsText), host, port, keyType, keyBase64);
}

export function checkHostKeyInEntries(
  entries: readonly KnownHostEntry[],
  host: string,
  port: number,
  keyType: string,
  keyBase64: string,
): HostKeyCheck {
  const key = decodeBase64Strict(keyBase64);
  if (!key) return { kind: 'unknown', otherKeyTypes: [] };
  const name = knownHostName(host, port);
  const family = keyFamily(keyType);
  const forHost = entries.filter((e) => e.marker !== 'cert-authority' && entryMatchesHost(e, name));
  if (forHost.some((e) => e.marker === 'revoked' && e.key.equals(key))) return { kind: 'revoked' };
  const plain = forHost.filter((e) => e.marker === null);
  if (plain.some((e) => e.key.equals(key))) return { kind: 'known' };
  const sameType = plain.filter((e) => keyFamily(blobKeyType(e.key) ?? e.keyType) === family);
  if (sameType.length > 0) {
    return {
      kind: 'changed',
      expectedFingerprints: [...new Set(sameType.map((e) => fingerprintSha256(e.key)))],
      lines: sameType.map((e) => e.line),
    };
  }
  return { kind: 'unknown', otherKeyTypes: [...new Set(plain.map((e) => blobKeyType(e.key) ?? e.keyType))] };
}

/**
 * The key types known_hosts holds for a host, most useful first: what a client should prefer when it
 * negotiates the host key algorithm, so that a host known by its ed25519 key is not met with its RSA key
 * and treated as unknown (OpenSSH does the same in order_hostkeyalgs).
 */
export function knownKeyTypes(knownHostsText: string, host: string, port: number): string[] {
  const name = knownHostName(host, port);
  const types: string[] = [];
  for (const e of parseKnownHosts(knownHostsText)) {
    if (e.marker !== null || !entryMatchesHost(e, name)) continue;
    const t = blobKeyType(e.key) ?? e.keyType;
    if (!types.includes(t)) types.push(t);
  }
  return types;
}

/**
 * The line to append to known_hosts for an accepted key (no trailing newline). With `hash`, the host is
 * written as OpenSSH's HashKnownHosts does: `|1|salt|hmac`.
 */
export function appendKnownHost(
  host: string,
  port: number,
  keyType: string,
  keyBase64: string,
  options: { readonly hash?: boolean; readonly salt?: Buffer } = {},
): string {
  if (!/^[A-Za-z0-9@._+-]+$/.test(keyType)) throw new Error('invalid key type');
  if (!decodeBase64Strict(keyBase64)) throw new Error('invalid key encoding');
  const name = knownHostName(host, port);
  if (/[\s,#]/.test(name) || name.startsWith('|') || name.startsWith('@') || name.startsWith('!')) {
    throw new Error('host name cannot be written to known_hosts');
  }
  let hostField = name;
  if (options.hash) {
    const salt = options.salt ?? randomBytes(20);
    const mac = createHmac('sha1', salt).update(name).digest();
    hostField = `|1|${salt.toString('base64')}|${mac.toString('base64')}`;
  }
  return `${hostField} ${keyType} ${keyBase64}`;
}

/** OpenSSH's SHA256 fingerprint: `SHA256:` + unpadded base64 of SHA-256 over the key blob. */
export function fingerprintSha256(keyBlob: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside an SSH public key blob (its first string), or null when malformed. */
export function blobKeyType(blob: Uint8Array): string | null {
  if (blob.length < 4) return null;
  const len = (((blob[0] as number) << 24) >>> 0) + ((blob[1] as number) << 16) + ((blob[2] as number) << 8) + (blob[3] as number);
  if (len === 0 || len > 64 || 4 + len > blob.length) return null;
  const type = Buffer.from(blob.subarray(4, 4 + len)).toString('latin1');
  return /^[A-Za-z0-9@._+-]+$/.test(type) ? type : null;
}

/** Key types that OpenSSH treats as the same kind for "changed" (all ECDSA curves are KEY_ECDSA). */
function keyFamily(keyType: string): string {
  if (keyType.startsWith('ecdsa-sha2-')) return 'ecdsa';
  if (keyType.startsWith('sk-ecdsa-sha2-')) return 'sk-ecdsa';
  if (keyType === 'rsa-sha2-256' || keyType === 'rsa-sha2-512') return 'ssh-rsa';
  return keyType;
}

function decodeBase64Strict(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null;
  return Buffer.from(text, 'base64');
}
