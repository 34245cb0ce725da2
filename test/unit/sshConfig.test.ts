// ~/.ssh/config resolution. The oracle is OpenSSH itself: for configs without Match blocks,
// `ssh -G -F <file> <alias>` (OpenSSH_9.2p1 here) prints the effective settings, and resolveSshHost must
// agree on hostname, user, port, the IdentityFile list, proxyjump, stricthostkeychecking, known_hosts files
// and hashknownhosts. The `ssh -G` tests skip without openssh-client (apt-get install -y openssh-client).
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  expandTokens,
  hostMatches,
  includePath,
  listSshHosts,
  parseSshConfig,
  parseSshDestination,
  resolveSshHost,
  splitConfigWords,
} from '../../src/transports/sshConfig.ts';
import type { SshEnv, SshIncludeFile } from '../../src/transports/sshConfig.ts';
import { readIncludeFromDisk, sshSettingsFromConfig } from '../../src/transports/sshUserConfig.ts';
import { parseOnce } from '../../src/transports/sshConfigInclude.ts';

const ENV: SshEnv = { home: '/home/ana', user: 'ana', uid: 1000, localHostname: 'laptop.example.org', authSock: '/run/agent.sock' };
const haveSsh = ['/usr/bin/ssh', '/bin/ssh'].some((p) => existsSync(p));
const needSsh = haveSsh ? {} : { skip: 'ssh not installed (apt-get install -y openssh-client)' };

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpumem-sshconfig-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function cfg(lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

test('a Host block: HostName, User, Port, IdentityFile, defaults elsewhere', () => {
  const text = cfg(['Host gpu-node-1', '  HostName 10.0.0.7', '  User admin', '  Port 2222', '  IdentityFile ~/.ssh/gpu_ed25519']);
  const s = resolveSshHost('gpu-node-1', text, ENV);
  assert.equal(s.hostName, '10.0.0.7');
  assert.equal(s.user, 'admin');
  assert.equal(s.port, 2222);
  assert.deepEqual(s.identityFiles, ['/home/ana/.ssh/gpu_ed25519']);
  assert.equal(s.identityFilesConfigured, true);
  assert.deepEqual(s.proxyJump, []);
  assert.equal(s.strictHostKeyChecking, 'ask');
  assert.deepEqual(s.userKnownHostsFiles, ['/home/ana/.ssh/known_hosts', '/home/ana/.ssh/known_hosts2']);
  assert.equal(s.identityAgent, '/run/agent.sock');
  assert.deepEqual(s.warnings, []);

  const other = resolveSshHost('elsewhere', text, ENV);
  assert.equal(other.hostName, 'elsewhere');
  assert.equal(other.user, 'ana');
  assert.equal(other.port, 22);
  assert.equal(other.identityFilesConfigured, false);
  assert.deepEqual(other.identityFiles.slice(0, 4), [
    '/home/ana/.ssh/id_rsa',
    '/home/ana/.ssh/id_ecdsa',
    '/home/ana/.ssh/id_ecdsa_sk',
    '/home/ana/.ssh/id_ed25519',
  ]);
});

test('first value wins; IdentityFile accumulates across blocks in order', () => {
  const text = cfg([
    'Host gpu-*',
    '  User first',
    '  IdentityFile ~/.ssh/a',
    'Host gpu-node-1',
    '  User second',
    '  Port 2200',
    '  IdentityFile /keys/b',
    'Host *',
    '  Port 22',
    '  IdentityFile ~/.ssh/c',
  ]);
  const s = resolveSshHost('gpu-node-1', text, ENV);
  assert.equal(s.user, 'first');
  assert.equal(s.port, 2200);
  assert.deepEqual(s.identityFiles, ['/home/ana/.ssh/a', '/keys/b', '/home/ana/.ssh/c']);
});

test('patterns: *, ?, negation, several per line, case-insensitive', () => {
  assert.equal(hostMatches('gpu-node-1', ['gpu-*']), true);
  assert.equal(hostMatches('GPU-Node-1', ['gpu-node-?']), true);
  assert.equal(hostMatches('gpu-node-10', ['gpu-node-?']), false);
  assert.equal(hostMatches('bastion', ['*', '!bastion']), false);
  assert.equal(hostMatches('other', ['*', '!bastion']), true);
  assert.equal(hostMatches('x', ['!y']), false, 'only negations never match');
  assert.equal(hostMatches('b', ['a', 'b', 'c']), true);
  const text = cfg(['Host * !bastion', '  ProxyJump bastion', 'Host bastion', '  HostName 192.0.2.1']);
  assert.deepEqual(resolveSshHost('node', text, ENV).proxyJump, [{ host: 'bastion' }]);
  assert.deepEqual(resolveSshHost('bastion', text, ENV).proxyJump, []);
});

test('syntax: Key=value, quotes, inline comments, tabs, keyword case, CRLF', () => {
  const text = [
    'HOST\t"gpu node"  gpu-2 # the GPU boxes',
    '\thostname=10.0.0.8',
    '  Port = 2201',
    '  IdentityFile "~/.ssh/my key" # quoted, with a space',
    '  user\t\tadmin',
    '',
  ].join('\r\n');
  const s = resolveSshHost('gpu-2', text, ENV);
  assert.equal(s.hostName, '10.0.0.8');
  assert.equal(s.port, 2201);
  assert.equal(s.user, 'admin');
  assert.deepEqual(s.identityFiles, ['/home/ana/.ssh/my key']);
  assert.equal(resolveSshHost('gpu node', text, ENV).hostName, '10.0.0.8');
  assert.deepEqual(splitConfigWords(`a "b c" 'd e' f\\ g #x`), ['a', 'b c', 'd e', 'f g']);
  assert.equal(splitConfigWords('a "unterminated'), null);
  const p = parseSshConfig('Host x\n  User "oops\n');
  assert.match(p.warnings[0] ?? '', /line 2: unterminated quote/);
});

/** The word splitter as it was written first, one character at a time: the oracle of the slice-copying one. */
function splitWordsByCharacter(line: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
    if (i >= n) break;
    if (line[i] === '#') break;
    let word = '';
    let quote: string | null = null;
    while (i < n) {
      const c = line[i] as string;
      if (quote === null && (c === ' ' || c === '\t')) break;
      const next = line[i + 1];
      if (c === '\\' && i + 1 < n && (next === '"' || next === "'" || next === '\\' || (quote === null && next === ' '))) {
        word += next;
        i += 2;
        continue;
      }
      if (quote === null && (c === '"' || c === "'")) {
        quote = c;
        i++;
        continue;
      }
      if (quote !== null && c === quote) {
        quote = null;
        i++;
        continue;
      }
      word += c;
      i++;
    }
    if (quote !== null) return null;
    words.push(word);
  }
  return words;
}

test('splitConfigWords: the same words as the character-by-character splitter, on lines of quotes, escapes and blanks', () => {
  const line = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '\\', '"', "'", '#', '='), maxLength: 40 });
  fc.assert(
    fc.property(line, (text) => {
      assert.deepEqual(splitConfigWords(text), splitWordsByCharacter(text));
    }),
    { seed: 20261204, numRuns: 5000 },
  );
});

test('tokens in IdentityFile, UserKnownHostsFile and HostName', () => {
  const text = cfg([
    'Host gpu-node-1',
    '  HostName %h.cluster.example',
    '  User admin',
    '  Port 2222',
    '  IdentityFile %d/.ssh/%u-%r@%h:%p-%n-%l-%L-%i-100%%',
    '  UserKnownHostsFile ~/.ssh/kh_%h %d/kh2',
    '  IdentityFile ~/.ssh/odd-%C',
  ]);
  const s = resolveSshHost('gpu-node-1', text, ENV);
  assert.equal(s.hostName, 'gpu-node-1.cluster.example');
  assert.equal(
    s.identityFiles[0],
    '/home/ana/.ssh/ana-admin@gpu-node-1.cluster.example:2222-gpu-node-1-laptop.example.org-laptop-1000-100%',
  );
  assert.equal(s.identityFiles[1], '/home/ana/.ssh/odd-%C');
  assert.match(s.warnings.join('\n'), /%C .* not supported/);
  assert.deepEqual(s.userKnownHostsFiles, ['/home/ana/.ssh/kh_gpu-node-1.cluster.example', '/home/ana/kh2']);
  const warnings: string[] = [];
  assert.equal(expandTokens('~/x/%r', { env: ENV, alias: 'a', hostName: 'h', port: 22, user: 'u', jump: '' }, warnings), '/home/ana/x/u');
});

test('ProxyJump: lists, ports, users, ssh:// URIs, IPv6, none, malformed', () => {
  const s = resolveSshHost('n', cfg(['Host n', '  ProxyJump jump@bastion:2222,ssh://ops@[2001:db8::1]:22,plain']), ENV);
  assert.deepEqual(s.proxyJump, [
    { user: 'jump', host: 'bastion', port: 2222 },
    { user: 'ops', host: '2001:db8::1', port: 22 },
    { host: 'plain' },
  ]);
  assert.deepEqual(resolveSshHost('n', cfg(['Host n', '  ProxyJump none', 'Host *', '  ProxyJump x']), ENV).proxyJump, []);
  const bad = resolveSshHost('n', cfg(['Host n', '  ProxyJump ok,bad:port']), ENV);
  assert.deepEqual(bad.proxyJump, []);
  assert.match(bad.warnings.join('\n'), /ProxyJump element "bad:port" is malformed/);
  assert.match(resolveSshHost('n', cfg(['Host n', '  ProxyCommand nc %h %p']), ENV).warnings.join('\n'), /ProxyCommand is not supported/);
});

test('parseSshDestination', () => {
  assert.deepEqual(parseSshDestination('host'), { host: 'host' });
  assert.deepEqual(parseSshDestination('root@host:2222'), { user: 'root', host: 'host', port: 2222 });
  assert.deepEqual(parseSshDestination('ssh://root@host:2222/'), { user: 'root', host: 'host', port: 2222 });
  assert.deepEqual(parseSshDestination('[::1]:22'), { host: '::1', port: 22 });
  assert.deepEqual(parseSshDestination('fe80::1'), { host: 'fe80::1' });
  assert.deepEqual(parseSshDestination('a@b@host'), { user: 'a@b', host: 'host' });
  for (const bad of ['', 'host:', 'host:0', 'host:70000', 'host:x', '-oProxyCommand=x', 'a b', '@host', '[::1', 'h/x']) {
    assert.equal(parseSshDestination(bad), null, bad);
  }
});

test('Match: only `Match all` applies; other blocks are skipped with a warning', () => {
  const text = cfg([
    'Match host gpu-*',
    '  User from-match',
    'Match exec "true"',
    '  Port 9999',
    'Match all',
    '  Port 2022',
    'Host *',
    '  User from-host',
  ]);
  const s = resolveSshHost('gpu-node-1', text, ENV);
  assert.equal(s.user, 'from-host');
  assert.equal(s.port, 2022);
  assert.equal(s.warnings.length, 2);
  assert.match(s.warnings[0] ?? '', /line 1: "Match host gpu-\*" is not evaluated/);
});

test('StrictHostKeyChecking values, HashKnownHosts, IdentityAgent, IdentitiesOnly, timeouts', () => {
  const shkc = (v: string): string => resolveSshHost('h', cfg(['Host h', `  StrictHostKeyChecking ${v}`]), ENV).strictHostKeyChecking;
  assert.equal(shkc('yes'), 'yes');
  assert.equal(shkc('No'), 'no');
  assert.equal(shkc('off'), 'no');
  assert.equal(shkc('accept-new'), 'accept-new');
  assert.equal(shkc('ask'), 'ask');
  assert.equal(shkc('bogus'), 'ask');
  const s = resolveSshHost(
    'h',
    cfg([
      'Host h',
      '  HashKnownHosts yes',
      '  IdentitiesOnly yes',
      '  IdentityAgent ~/.ssh/agent-%h.sock',
      '  ConnectTimeout 7',
      '  ServerAliveInterval 15',
      '  ServerAliveCountMax 4',
      '  UserKnownHostsFile none',
      '  GlobalKnownHostsFile /etc/ssh/kh_a /etc/ssh/kh_b',
    ]),
    ENV,
  );
  assert.equal(s.hashKnownHosts, true);
  assert.equal(s.identitiesOnly, true);
  assert.equal(s.identityAgent, '/home/ana/.ssh/agent-h.sock');
  assert.equal(s.connectTimeout, 7);
  assert.equal(s.serverAliveInterval, 15);
  assert.equal(s.serverAliveCountMax, 4);
  assert.deepEqual(s.userKnownHostsFiles, []);
  assert.deepEqual(s.globalKnownHostsFiles, ['/etc/ssh/kh_a', '/etc/ssh/kh_b']);
  assert.equal(resolveSshHost('h', cfg(['Host h', '  IdentityAgent none']), ENV).identityAgent, undefined);
  assert.equal(resolveSshHost('h', cfg(['Host h', '  IdentityAgent SSH_AUTH_SOCK']), ENV).identityAgent, '/run/agent.sock');
  assert.equal(resolveSshHost('h', cfg(['Host h', '  Port banana']), ENV).port, 22);
});

test('Include: relative to ~/.ssh, conditional on its Host block, Host lines stay inside, depth limit', () => {
  const files: Record<string, string> = {
    '/home/ana/.ssh/config.d/gpu.conf': cfg(['Host gpu-*', '  User gpu-admin', 'Host *', '  Port 2222']),
    '/home/ana/.ssh/config.d/zz.conf': cfg(['Host gpu-*', '  IdentityFile ~/.ssh/gpu_key']),
    '/home/ana/only-for-bastion.conf': cfg(['HostName 192.0.2.10']),
    '/etc/loop.conf': cfg(['Include /etc/loop.conf']),
  };
  const asked: string[] = [];
  const readInclude = (pattern: string): SshIncludeFile[] => {
    asked.push(pattern);
    const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    return Object.keys(files)
      .sort()
      .filter((p) => re.test(p))
      .map((p) => ({ path: p, text: files[p] as string }));
  };
  const text = cfg([
    'Include config.d/*.conf',
    'Host bastion',
    '  Include ~/only-for-bastion.conf',
    'Host *',
    '  User fallback',
    '  Port 22',
  ]);
  const node = resolveSshHost('gpu-node-1', text, ENV, { readInclude });
  assert.equal(node.user, 'gpu-admin');
  assert.equal(node.port, 2222, 'the Host * inside the include applies');
  assert.deepEqual(node.identityFiles, ['/home/ana/.ssh/gpu_key']);
  assert.equal(node.hostName, 'gpu-node-1', 'the bastion-only include is not applied');
  assert.deepEqual(asked, ['/home/ana/.ssh/config.d/*.conf']);
  const bastion = resolveSshHost('bastion', text, ENV, { readInclude });
  assert.equal(bastion.hostName, '192.0.2.10');
  assert.equal(bastion.user, 'fallback');
  assert.equal(bastion.port, 2222, 'the included Host * matched bastion too');

  const loop = resolveSshHost('x', cfg(['Include /etc/loop.conf']), ENV, { readInclude });
  assert.match(loop.warnings.join('\n'), /Include nested too deeply/);
  assert.match(resolveSshHost('x', cfg(['Include a.conf']), ENV).warnings.join('\n'), /Include not followed/);
  assert.equal(includePath('/abs/x', ENV), '/abs/x');
  assert.equal(includePath('~/x', ENV), '/home/ana/x');
  assert.equal(includePath('x/*.conf', ENV), '/home/ana/.ssh/x/*.conf');
  assert.deepEqual(parseSshConfig(text).includes, ['config.d/*.conf', '~/only-for-bastion.conf']);
});

test('readIncludeFromDisk globs in any path component, in lexical order, skipping dotfiles', () => {
  mkdirSync(join(dir, 'inc/a'), { recursive: true });
  mkdirSync(join(dir, 'inc/b'), { recursive: true });
  writeFileSync(join(dir, 'inc/a/2.conf'), 'User two\n');
  writeFileSync(join(dir, 'inc/a/1.conf'), 'User one\n');
  writeFileSync(join(dir, 'inc/b/3.conf'), 'User three\n');
  writeFileSync(join(dir, 'inc/a/.hidden.conf'), 'User hidden\n');
  writeFileSync(join(dir, 'inc/a/skip.txt'), 'User txt\n');
  const got = readIncludeFromDisk(join(dir, 'inc/*/*.conf'));
  assert.deepEqual(
    got.map((f) => f.path),
    [join(dir, 'inc/a/1.conf'), join(dir, 'inc/a/2.conf'), join(dir, 'inc/b/3.conf')],
  );
  assert.deepEqual(readIncludeFromDisk(join(dir, 'nope/*.conf')), []);
});

// The glob was a RegExp of the pattern: `*a*a*…*b` became `^.*a.*a.*…b$`, which backtracks exponentially on a name
// of many a's (a config line stalled the extension host). Now wildcardMatch, linear in the name per star.
test('readIncludeFromDisk: a pattern of many stars against a long file name ends, and still globs', { timeout: 20_000 }, () => {
  mkdirSync(join(dir, 'stars'), { recursive: true });
  writeFileSync(join(dir, 'stars', 'a'.repeat(200)), 'User a\n');
  writeFileSync(join(dir, 'stars', `${'a'.repeat(50)}b`), 'User b\n');
  const pattern = `${'*a'.repeat(30)}*b`;
  assert.deepEqual(
    readIncludeFromDisk(join(dir, 'stars', pattern)).map((f) => f.text),
    ['User b\n'],
  );
  assert.deepEqual(
    readIncludeFromDisk(join(dir, 'stars', 'a?a*')).map((f) => f.text),
    ['User a\n', 'User b\n'],
  );
});

test('listSshHosts: concrete names only, first occurrence, includes followed', () => {
  const text = cfg(['Host gpu-node-1 gpu-node-2 gpu-* !bad', 'Host bastion', 'Host *', 'Host GPU-NODE-1', 'Include more.conf']);
  const hosts = listSshHosts(text, {
    env: ENV,
    readInclude: (p) => (p === '/home/ana/.ssh/more.conf' ? [{ path: p, text: 'Host extra\n' }] : []),
  });
  assert.deepEqual(
    hosts.map((h) => h.alias),
    ['gpu-node-1', 'gpu-node-2', 'bastion', 'extra'],
  );
  assert.deepEqual(hosts[2], { alias: 'bastion', source: 'ssh config', line: 2 });
  assert.deepEqual(
    listSshHosts(text).map((h) => h.alias),
    ['gpu-node-1', 'gpu-node-2', 'bastion'],
  );
});

test('sshSettingsFromConfig: -i first, jump hosts resolved through the config, loops stopped', () => {
  const text = cfg([
    'Host gpu',
    '  HostName 10.0.0.9',
    '  ProxyJump inner',
    '  IdentityFile ~/.ssh/gpu',
    'Host inner',
    '  HostName 10.0.1.1',
    '  User jumper',
    '  ProxyJump outer:2200',
    'Host outer',
    '  HostName 203.0.113.5',
    'Host loop',
    '  ProxyJump loop',
  ]);
  const { settings, warnings } = sshSettingsFromConfig('admin@gpu:2022', text, ENV, {}, ['/cli/key']);
  assert.deepEqual(settings.target, {
    host: '10.0.0.9',
    port: 2022,
    user: 'admin',
    identityFiles: ['/cli/key', '/home/ana/.ssh/gpu'],
    agent: '/run/agent.sock',
    identitiesOnly: false,
  });
  assert.deepEqual(
    settings.jumps?.map((j) => `${j.user}@${j.host}:${j.port}`),
    ['ana@203.0.113.5:2200', 'jumper@10.0.1.1:22'],
  );
  assert.deepEqual(warnings, []);
  const loop = sshSettingsFromConfig('loop', text, ENV);
  assert.match(loop.warnings.join('\n'), /ProxyJump loop/);
  assert.throws(() => sshSettingsFromConfig('bad host', text, ENV), /not a valid SSH destination/);
});

// ------------------------------------------------------------------------------------------------
// OpenSSH as the oracle.

const ORACLE_CONFIG = cfg([
  '# gpumem test config: no Match blocks, so ssh -G and resolveSshHost must agree',
  'Host gpu-* !gpu-bad',
  '  User admin',
  '  IdentityFile ~/.ssh/id_%h_%r',
  '  Port 2200',
  'Host gpu-node-1',
  '  HostName 10.0.0.%h',
  '  User ignored',
  '  ProxyJump jumpuser@bastion:2222,ssh://other',
  '  IdentityFile /keys/%u-%p-%n',
  'Host bastion',
  '  HostName=192.0.2.1',
  '  StrictHostKeyChecking no',
  '  HashKnownHosts yes',
  'Host "quoted host" other',
  '  Port 2022',
  '  ProxyJump none',
  'Host *',
  '  StrictHostKeyChecking accept-new',
  '  UserKnownHostsFile ~/.ssh/kh1 /etc/kh_%h',
  '  IdentityFile %d/.ssh/last',
  '  ProxyJump fallback',
]);

function sshG(configFile: string, alias: string): Map<string, string[]> {
  const out = execFileSync('ssh', ['-G', '-F', configFile, alias], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const map = new Map<string, string[]>();
  for (const line of out.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp < 0) continue;
    const key = line.slice(0, sp);
    map.set(key, [...(map.get(key) ?? []), line.slice(sp + 1)]);
  }
  return map;
}

test('a CR inside a line ends the keyword as OpenSSH reads it, and stays inside an argument (`ssh -G` agrees)', needSsh, () => {
  // readconf.c: strdelim ends the keyword at " \t\r\n"; argv_split splits the arguments on blanks only.
  const text = 'Host crhost\n  User\radmin\n  Port 2200\r\n  HostName 10.0.0.1\r9\n';
  const file = join(dir, 'cr_config');
  writeFileSync(file, text);
  const g = sshG(file, 'crhost');
  const s = resolveSshHost('crhost', text, ENV);
  assert.equal(s.user, g.get('user')?.[0]);
  assert.equal(s.user, 'admin');
  assert.equal(String(s.port), g.get('port')?.[0]);
  assert.equal(s.hostName, g.get('hostname')?.[0]);
  assert.equal(s.hostName, '10.0.0.1\r9');
  // The shape the long fuzz run found: blanks, a CR, blanks after a keyword, 1 MiB of them, parsed in one pass.
  const long = parseSshConfig(`Host a\n  P${' '.repeat(500_000)}\r${' '.repeat(500_000)}ort = 2201\n`);
  assert.deepEqual(long.items[1], { type: 'option', line: 2, keyword: 'p', args: ['ort', '=', '2201'] });
});

test('agrees with `ssh -G` on hostname, user, port, identity files, proxyjump, host key settings', needSsh, () => {
  const file = join(dir, 'oracle_config');
  writeFileSync(file, ORACLE_CONFIG);
  const me = userInfo();
  const env: SshEnv = { home: me.homedir, user: me.username, uid: me.uid };
  for (const alias of ['gpu-node-1', 'gpu-node-2', 'gpu-bad', 'bastion', 'other', 'plain']) {
    const g = sshG(file, alias);
    const s = resolveSshHost(alias, ORACLE_CONFIG, env);
    const one = (k: string): string | undefined => g.get(k)?.[0];
    assert.equal(s.hostName, one('hostname'), `${alias}: hostname`);
    assert.equal(s.user, one('user'), `${alias}: user`);
    assert.equal(String(s.port), one('port'), `${alias}: port`);
    assert.equal(
      s.strictHostKeyChecking === 'no' ? 'false' : s.strictHostKeyChecking === 'yes' ? 'true' : s.strictHostKeyChecking,
      one('stricthostkeychecking'),
      `${alias}: stricthostkeychecking`,
    );
    assert.equal(s.hashKnownHosts ? 'yes' : 'no', one('hashknownhosts'), `${alias}: hashknownhosts`);
    assert.equal(s.userKnownHostsFiles.join(' '), one('userknownhostsfile'), `${alias}: userknownhostsfile`);
    const jump = s.proxyJump.map((d) => `${d.user ? `${d.user}@` : ''}${d.host}${d.port ? `:${d.port}` : ''}`).join(',');
    assert.equal(jump, one('proxyjump') ?? '', `${alias}: proxyjump`);
    // ssh -G prints IdentityFile before token expansion; expand its list the way the manual says and compare.
    const expected = (g.get('identityfile') ?? []).map((f) =>
      f.replace(/^~/, env.home).replace(
        /%([%dhrpun])/g,
        (_w, t: string) =>
          ({
            '%': '%',
            d: env.home,
            h: s.hostName,
            r: s.user,
            p: String(s.port),
            u: env.user,
            n: alias,
          })[t] as string,
      ),
    );
    assert.deepEqual(s.identityFiles, expected, `${alias}: identityfile`);
  }
});

// Issue 17, class 5: Include was bounded in depth (16) but not in breadth: a file that includes itself twice
// meant 2^16 reads, three times effectively forever. Counted in reads, not time.
test('class 5: a config that includes itself twice stops at the included-file budget, with a warning', () => {
  let reads = 0;
  const loop = 'Include ~/.ssh/loop\nInclude ~/.ssh/loop\nHost *\n  User alice\n';
  const readInclude = (pattern: string): SshIncludeFile[] => {
    reads++;
    return [{ path: pattern, text: loop }];
  };
  const settings = resolveSshHost('gpu-node-1', loop, ENV, { readInclude });
  assert.ok(reads <= 256, `${reads} reads`);
  assert.equal(settings.user, 'alice');
  assert.equal(settings.warnings.filter((warning) => warning.includes('included files')).length, 1, settings.warnings.join('\n'));
  reads = 0;
  resolveSshHost('gpu-node-1', loop, ENV, { readInclude, maxIncludedFiles: 10 });
  assert.ok(reads <= 10, `${reads} reads with a budget of 10`);
});

test('where StrictHostKeyChecking was set: file:line and the Host block, through Include; the first value wins', () => {
  const include: SshIncludeFile = {
    path: '/home/ana/.ssh/conf.d/gpu',
    text: ['# gpu nodes', 'Host gpu-* !gpu-admin', '  StrictHostKeyChecking accept-new', ''].join('\n'),
  };
  const readInclude = (pattern: string): SshIncludeFile[] => (pattern === '/home/ana/.ssh/conf.d/*' ? [include] : []);
  const text = cfg(['Include conf.d/*', 'Host *', '  StrictHostKeyChecking no']);
  const viaInclude = resolveSshHost('gpu-1', text, ENV, { readInclude, configPath: '/home/ana/.ssh/config' });
  assert.equal(viaInclude.strictHostKeyChecking, 'accept-new');
  assert.deepEqual(viaInclude.strictHostKeyCheckingOrigin, { file: '/home/ana/.ssh/conf.d/gpu', line: 3, block: 'Host gpu-* !gpu-admin' });
  const viaStar = resolveSshHost('gpu-admin', text, ENV, { readInclude, configPath: '/home/ana/.ssh/config' });
  assert.deepEqual(viaStar.strictHostKeyCheckingOrigin, { file: '/home/ana/.ssh/config', line: 3, block: 'Host *' });
  const global = resolveSshHost('x', cfg(['StrictHostKeyChecking no', 'Host y']), ENV);
  assert.deepEqual(global.strictHostKeyCheckingOrigin, { file: 'ssh config', line: 1, block: undefined });
  assert.equal(resolveSshHost('x', cfg(['Host x', '  User a']), ENV).strictHostKeyCheckingOrigin, undefined);
});

test('class 5: listSshHosts stops at the same included-file budget (found by the fuzz suite)', () => {
  let reads = 0;
  const loop = 'Include ~/.ssh/loop\nInclude ~/.ssh/loop\nHost gpu-node-1\n';
  const readInclude = (pattern: string): SshIncludeFile[] => {
    reads++;
    return [{ path: pattern, text: loop }];
  };
  const hosts = listSshHosts(loop, { env: ENV, readInclude });
  assert.deepEqual(
    hosts.map((host) => host.alias),
    ['gpu-node-1'],
  );
  assert.ok(reads <= 257, `${reads} reads`);
});

test('Include: thousands of lines naming the same glob read it once per resolution (long fuzz run: 286 KB took 37 s)', () => {
  let reads = 0;
  const readInclude = (): SshIncludeFile[] => {
    reads++;
    return [];
  };
  const text = `${'Include ~/.ssh/config.d/*\n'.repeat(11_000)}Host gpu-node-1\n  HostName 192.0.2.10\n`;
  assert.equal(resolveSshHost('gpu-node-1', text, ENV, { readInclude }).hostName, '192.0.2.10');
  assert.equal(reads, 1);
  reads = 0;
  assert.deepEqual(
    listSshHosts(text, { readInclude, env: ENV }).map((entry) => entry.alias),
    ['gpu-node-1'],
  );
  assert.equal(reads, 1);
});

// The long fuzz run (seed 796215241): a config of a megabyte that includes itself was read 256 times (the file
// cap), its IdentityFile list kept each time, and the heap ran out. Included text is capped at 8 MiB in all.
test('ssh config: a megabyte that includes itself stops at 8 MiB of included text, within a small heap', () => {
  const module = new URL('../../src/transports/sshConfig.ts', import.meta.url).href;
  const script = `import { resolveSshHost } from ${JSON.stringify(module)};
const text = 'Include ~/.ssh/config\\nHost *\\n' + '  IdentityFile ~/.ssh/k\\n'.repeat(45000);
const env = { home: '/home/ana', user: 'ana', uid: 1000, localHostname: 'laptop' };
const s = resolveSshHost('gpu-node-1', text, env, { readInclude: () => [{ path: '/home/ana/.ssh/config', text }] });
console.log(JSON.stringify({ warnings: s.warnings.filter((w) => w.includes('included text')).length, keys: s.identityFiles.length }));`;
  const child = execFileSync(process.execPath, ['--max-old-space-size=160', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const result = JSON.parse(child) as { warnings: number; keys: number };
  assert.equal(result.warnings, 1, 'one warning names the cap');
  assert.ok(result.keys > 0);
});

const ENV_FOR_PARSE_ONCE: SshEnv = { home: '/home/ana', user: 'ana', uid: 1000, localHostname: 'laptop' };

// The long fuzz run was slow, not stuck: a 256 KB config that includes itself was parsed again for each of its
// 256 inclusions (2 s per resolution). Each distinct text is now parsed once per resolution and walked again.
test('ssh config: an included text is parsed once per resolution, however often it is included', () => {
  const parse = parseOnce();
  const text = 'Host gpu-*\n  User ops\nInclude ~/.ssh/config\n';
  const first = parse(text);
  assert.equal(parse(`${text}`), first, 'the same parse for the same text');
  assert.notEqual(parse(`${text}Host b\n`), first);
  // And the resolution still follows every inclusion up to the budget, as before.
  let reads = 0;
  const settings = resolveSshHost('gpu-2', text, ENV_FOR_PARSE_ONCE, {
    readInclude: () => (reads++, [{ path: '/home/ana/.ssh/config', text }]),
  });
  assert.equal(settings.user, 'ops');
  assert.ok(reads >= 1);
  assert.ok(
    settings.warnings.some((warning) => /included files|Include nested too deeply/.test(warning)),
    settings.warnings.join('\n'),
  );
});
