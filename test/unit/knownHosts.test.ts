// known_hosts parsing and host key checks, against real OpenSSH output: keys from ssh-keygen, hashed
// entries from `ssh-keygen -H`, fingerprints from `ssh-keygen -lf`, and lookups by `ssh-keygen -F` of the
// lines appendKnownHost writes. Tests that call ssh-keygen skip when it is not installed
// (apt-get install -y openssh-client).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendKnownHost,
  blobKeyType,
  checkHostKey,
  fingerprintSha256,
  knownHostName,
  knownKeyTypes,
  matchHostPatternList,
  parseKnownHosts,
  wildcardMatch,
} from '../../src/transports/knownHosts.ts';

// Provenance: this machine (Debian 12, OpenSSH_9.2p1 Debian-2+deb12u10). `ssh-keygen -t ed25519`, then a
// known_hosts with `[127.0.0.1]:2222 <key>` and `gpu-node-1,10.0.0.7 <key>`, hashed by `ssh-keygen -H -f`
// (which splits the comma list into one hashed line per name).
const CAPTURED_KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIO9WpyA7p32UtalsLWq66gzPzT4jQSKnsHBe555lcmIA';
const CAPTURED_HASHED = [
  `|1|+8T9nzXElWXw8+nzxlpJ3NnS/fI=|Iqy0ezNZAgQ9relGLjcXeTNVaec= ssh-ed25519 ${CAPTURED_KEY}`,
  `|1|kUfGnKVRB5pFQBtF/UMnp3t1Dy8=|RtbRpxpY8ZkdGl1YaybVffFQDsI= ssh-ed25519 ${CAPTURED_KEY}`,
  `|1|Qm0Ai8awkWjdpCE4v94O0zdVyMk=|70TnBdBNiWYoJ7FY1REL3tvJ+R8= ssh-ed25519 ${CAPTURED_KEY}`,
].join('\n');

const haveKeygen = ['/usr/bin/ssh-keygen', '/bin/ssh-keygen'].some((p) => existsSync(p));
const needKeygen = haveKeygen ? {} : { skip: 'ssh-keygen not installed (apt-get install -y openssh-client)' };

let dir = '';
interface Key {
  type: string;
  base64: string;
  pubFile: string;
}
const keys: Record<string, Key> = {};

function keygen(name: string, type: string, bits?: number): Key {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', name, '-f', file]);
  const [t, b] = readFileSync(`${file}.pub`, 'utf8').trim().split(' ') as [string, string];
  return { type: t, base64: b, pubFile: `${file}.pub` };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpumem-knownhosts-'));
  if (!haveKeygen) return;
  keys.ed = keygen('ed', 'ed25519');
  keys.ed2 = keygen('ed2', 'ed25519');
  keys.rsa = keygen('rsa', 'rsa', 2048);
  keys.ecdsa = keygen('ecdsa', 'ecdsa', 256);
  keys.ecdsa384 = keygen('ecdsa384', 'ecdsa', 384);
});

after(() => rmSync(dir, { recursive: true, force: true }));

function k(name: string): Key {
  const key = keys[name];
  assert.ok(key, `key ${name}`);
  return key;
}

test('captured ssh-keygen -H output: each hashed name is found, others are not', () => {
  assert.deepEqual(checkHostKey(CAPTURED_HASHED, '127.0.0.1', 2222, 'ssh-ed25519', CAPTURED_KEY), { kind: 'known' });
  assert.deepEqual(checkHostKey(CAPTURED_HASHED, 'gpu-node-1', 22, 'ssh-ed25519', CAPTURED_KEY), { kind: 'known' });
  assert.deepEqual(checkHostKey(CAPTURED_HASHED, '10.0.0.7', 22, 'ssh-ed25519', CAPTURED_KEY), { kind: 'known' });
  assert.deepEqual(checkHostKey(CAPTURED_HASHED, 'GPU-Node-1', 22, 'ssh-ed25519', CAPTURED_KEY), { kind: 'known' }, 'names are lowercased');
  assert.equal(checkHostKey(CAPTURED_HASHED, '127.0.0.1', 22, 'ssh-ed25519', CAPTURED_KEY).kind, 'unknown', 'port 22 is another name');
  assert.equal(checkHostKey(CAPTURED_HASHED, 'gpu-node-2', 22, 'ssh-ed25519', CAPTURED_KEY).kind, 'unknown');
  const entries = parseKnownHosts(CAPTURED_HASHED);
  assert.equal(entries.length, 3);
  assert.ok(entries.every((e) => e.hashed && e.patterns === null && e.hashed.salt.length === 20));
});

test('fingerprints match ssh-keygen -lf for ed25519, RSA and ECDSA', needKeygen, () => {
  for (const name of ['ed', 'rsa', 'ecdsa', 'ecdsa384']) {
    const key = k(name);
    const expected = execFileSync('ssh-keygen', ['-lf', key.pubFile], { encoding: 'utf8' }).split(' ')[1];
    assert.equal(fingerprintSha256(Buffer.from(key.base64, 'base64')), expected, name);
    assert.equal(blobKeyType(Buffer.from(key.base64, 'base64')), key.type);
  }
  assert.equal(blobKeyType(Buffer.from([0, 0, 0, 200, 1])), null);
});

test('hashed entries written by ssh-keygen -H are matched, with [host]:port', needKeygen, () => {
  const file = join(dir, 'kh_hash');
  const ed = k('ed');
  writeFileSync(file, [`gpu-node-1,10.1.2.3 ${ed.type} ${ed.base64}`, `[bastion.example]:2222 ${ed.type} ${ed.base64}`, ''].join('\n'));
  execFileSync('ssh-keygen', ['-q', '-H', '-f', file], { stdio: 'ignore' });
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes('gpu-node-1') && !text.includes('bastion'), 'the file is hashed');
  for (const [host, port] of [
    ['gpu-node-1', 22],
    ['10.1.2.3', 22],
    ['bastion.example', 2222],
  ] as const) {
    assert.deepEqual(checkHostKey(text, host, port, ed.type, ed.base64), { kind: 'known' }, `${host}:${port}`);
  }
  assert.equal(checkHostKey(text, 'bastion.example', 22, ed.type, ed.base64).kind, 'unknown');
  const other = k('ed2');
  const changed = checkHostKey(text, 'gpu-node-1', 22, other.type, other.base64);
  assert.equal(changed.kind, 'changed');
  assert.deepEqual(changed.kind === 'changed' && changed.expectedFingerprints, [fingerprintSha256(Buffer.from(ed.base64, 'base64'))]);
});

test('plain entries: comma lists, wildcards, negation, comments, blank and malformed lines', needKeygen, () => {
  const ed = k('ed');
  const text = [
    '# comment line',
    '',
    `   gpu-node-1,gpu-node-2 ${ed.type} ${ed.base64} a comment`,
    `*.gpu.example,!bad.gpu.example ${ed.type} ${ed.base64}`,
    `[10.0.0.?]:2222 ${ed.type} ${ed.base64}`,
    'garbage',
    `broken-base64 ${ed.type} !!!notbase64`,
    `@unknown-marker host ${ed.type} ${ed.base64}`,
    `|1|bad|hash ${ed.type} ${ed.base64}`,
    '\r',
  ].join('\r\n');
  assert.equal(parseKnownHosts(text).length, 3);
  const known = (h: string, p = 22): string => checkHostKey(text, h, p, ed.type, ed.base64).kind;
  assert.equal(known('gpu-node-1'), 'known');
  assert.equal(known('GPU-NODE-2'), 'known');
  assert.equal(known('a.gpu.example'), 'known');
  assert.equal(known('bad.gpu.example'), 'unknown', 'negated');
  assert.equal(known('10.0.0.5', 2222), 'known');
  assert.equal(known('10.0.0.50', 2222), 'unknown');
  assert.equal(known('gpu-node-3'), 'unknown');
});

test('changed, unknown with other key types, and ECDSA curves as one type', needKeygen, () => {
  const ed = k('ed');
  const rsa = k('rsa');
  const ecdsa = k('ecdsa');
  const ecdsa384 = k('ecdsa384');
  const text = [`node ${ed.type} ${ed.base64}`, `node ${ecdsa.type} ${ecdsa.base64}`].join('\n');
  const r = checkHostKey(text, 'node', 22, rsa.type, rsa.base64);
  assert.deepEqual(r, { kind: 'unknown', otherKeyTypes: ['ssh-ed25519', 'ecdsa-sha2-nistp256'] });
  const c = checkHostKey(text, 'node', 22, ecdsa384.type, ecdsa384.base64);
  assert.equal(c.kind, 'changed', 'an ECDSA key on another curve is a change, as OpenSSH sees it');
  assert.deepEqual(c.kind === 'changed' && c.lines, [2]);
  assert.deepEqual(knownKeyTypes(text, 'node', 22), ['ssh-ed25519', 'ecdsa-sha2-nistp256']);
  assert.deepEqual(knownKeyTypes(text, 'other', 22), []);
});

test('@revoked refuses the key, even when it is also listed as known; @cert-authority is not a host key', needKeygen, () => {
  const ed = k('ed');
  const ed2 = k('ed2');
  const text = [
    `node ${ed.type} ${ed.base64}`,
    `@revoked * ${ed.type} ${ed.base64}`,
    `@cert-authority *.example ${ed2.type} ${ed2.base64}`,
  ].join('\n');
  assert.deepEqual(checkHostKey(text, 'node', 22, ed.type, ed.base64), { kind: 'revoked' });
  assert.deepEqual(checkHostKey(text, 'any', 2222, ed.type, ed.base64), { kind: 'revoked' });
  assert.deepEqual(checkHostKey(text, 'a.example', 22, ed2.type, ed2.base64), { kind: 'unknown', otherKeyTypes: [] });
  const scoped = `@revoked other ${ed.type} ${ed.base64}\nnode ${ed.type} ${ed.base64}`;
  assert.deepEqual(checkHostKey(scoped, 'node', 22, ed.type, ed.base64), { kind: 'known' }, '@revoked applies to its hosts only');
});

test('appendKnownHost lines are read back by ssh-keygen -F, plain and hashed', needKeygen, () => {
  const ed = k('ed');
  const file = join(dir, 'kh_append');
  const lines = [
    appendKnownHost('gpu-node-9', 22, ed.type, ed.base64),
    appendKnownHost('127.0.0.1', 2200, ed.type, ed.base64),
    appendKnownHost('hashed-node', 22, ed.type, ed.base64, { hash: true }),
    appendKnownHost('Hashed-Node2', 2022, ed.type, ed.base64, { hash: true }),
  ];
  assert.equal(lines[0], `gpu-node-9 ${ed.type} ${ed.base64}`);
  assert.equal(lines[1], `[127.0.0.1]:2200 ${ed.type} ${ed.base64}`);
  assert.match(lines[2] ?? '', /^\|1\|[A-Za-z0-9+/]{27}=\|[A-Za-z0-9+/]{27}= ssh-ed25519 /);
  writeFileSync(file, `${lines.join('\n')}\n`);
  for (const name of ['gpu-node-9', '[127.0.0.1]:2200', 'hashed-node', '[hashed-node2]:2022']) {
    const out = execFileSync('ssh-keygen', ['-F', name, '-f', file], { encoding: 'utf8' });
    assert.match(out, new RegExp(`Host ${name.replace(/[[\].]/g, '\\$&')} found`), name);
  }
  const text = readFileSync(file, 'utf8');
  assert.deepEqual(checkHostKey(text, 'hashed-node2', 2022, ed.type, ed.base64), { kind: 'known' });
  const salt = Buffer.alloc(20, 7);
  assert.equal(
    appendKnownHost('x', 22, ed.type, ed.base64, { hash: true, salt }),
    appendKnownHost('x', 22, ed.type, ed.base64, { hash: true, salt }),
    'deterministic for a given salt',
  );
});

test('appendKnownHost refuses what cannot be written safely', () => {
  const key = CAPTURED_KEY;
  assert.throws(() => appendKnownHost('a b', 22, 'ssh-ed25519', key));
  assert.throws(() => appendKnownHost('a,b', 22, 'ssh-ed25519', key));
  assert.throws(() => appendKnownHost('a\nb', 22, 'ssh-ed25519', key));
  assert.throws(() => appendKnownHost('|1|x', 22, 'ssh-ed25519', key));
  assert.throws(() => appendKnownHost('@revoked', 22, 'ssh-ed25519', key));
  assert.throws(() => appendKnownHost('host', 22, 'ssh ed25519', key));
  assert.throws(() => appendKnownHost('host', 22, 'ssh-ed25519', 'not base64!'));
});

test('names and patterns', () => {
  assert.equal(knownHostName('Host', 22), 'host');
  assert.equal(knownHostName('::1', 2222), '[::1]:2222');
  assert.equal(wildcardMatch('gpu-node-12', 'gpu-*'), true);
  assert.equal(wildcardMatch('gpu-node-12', 'gpu-node-?'), false);
  assert.equal(wildcardMatch('gpu-node-1', 'gpu-node-?'), true);
  assert.equal(wildcardMatch('abcabd', '*abd'), true);
  assert.equal(wildcardMatch('', '*'), true);
  assert.equal(wildcardMatch('a', ''), false);
  assert.equal(matchHostPatternList('x.example', ['*.example', '!y.example']), true);
  assert.equal(matchHostPatternList('y.example', ['*.example', '!y.example']), false);
  assert.equal(matchHostPatternList('y.example', ['!y.example']), false);
});
