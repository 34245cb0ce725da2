// ~/.ssh/config and known_hosts (src/transports/sshConfig.ts, knownHosts.ts): the pure parsers and resolvers on
// mutated configs in OpenSSH's syntax (ssh_config(5), sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT").
import { listSshHosts, parseSshConfig, parseSshDestination, resolveSshHost, splitConfigWords } from '../../src/transports/sshConfig.ts';
import type { SshEnv, SshIncludeFile } from '../../src/transports/sshConfig.ts';
import { checkHostKey, knownKeyTypes, matchHostPatternList, parseKnownHosts, wildcardMatch } from '../../src/transports/knownHosts.ts';
import { fuzzTarget } from './harness.ts';
import type { Violation } from './harness.ts';

const ENV: SshEnv = { home: '/home/ana', user: 'ana', uid: 1000, localHostname: 'laptop.example.org' };

const SSH_CONFIGS = [
  [
    'Host * !bastion',
    '  ProxyJump bastion',
    'Host bastion',
    '  HostName 192.0.2.1',
    'HOST\t"gpu node"  gpu-2 # the GPU boxes',
    '\thostname=10.0.0.8',
    '  Port = 2201',
    '  IdentityFile "~/.ssh/my key" # quoted, with a space',
    '  user\t\tadmin',
  ].join('\r\n'),
  [
    'Include ~/.ssh/config.d/*',
    'Host gpu-node-1',
    '  HostName %h.cluster.example',
    '  User admin',
    '  Port 2222',
    '  IdentityFile %d/.ssh/%u-%r@%h:%p-%n-%l-%L-%i-100%%',
    '  UserKnownHostsFile ~/.ssh/kh_%h %d/kh2',
    '  StrictHostKeyChecking accept-new',
    'Match host *.cluster.example user admin',
    '  ProxyJump admin@jump.example:2022,bastion',
    'Host *',
    '  ServerAliveInterval 30',
    '  IdentitiesOnly yes',
  ].join('\n'),
];

const INCLUDED: SshIncludeFile[] = [{ path: '/home/ana/.ssh/config.d/gpu', text: 'Host gpu-*\n  User ops\n  Port 22\n' }];

/**
 * Include reads the three resolutions below may cause: the resolver stops after 256 included files in all
 * (sshConfig.ts MAX_INCLUDED_FILES), plus one read per Include pattern (a word) whose files add nothing. Reads past
 * it fail (the resolver turns that into a warning), so a config that includes itself many times cannot stall
 * the suite, and the check reports the breadth.
 */
const includeBudget = (text: string) => 3 * (256 + text.split(/\s+/).length);

function resolveAll(text: string): unknown {
  let reads = 0;
  const MAX_INCLUDE_READS = includeBudget(text);
  const readInclude = (): readonly SshIncludeFile[] => {
    if (++reads > MAX_INCLUDE_READS) throw new Error(`include breadth: more than ${MAX_INCLUDE_READS} Include reads`);
    return INCLUDED;
  };
  const selfInclude = (): readonly SshIncludeFile[] => {
    if (++reads > MAX_INCLUDE_READS) throw new Error(`include breadth: more than ${MAX_INCLUDE_READS} Include reads`);
    return [{ path: '/home/ana/.ssh/config', text }];
  };
  return {
    parsed: parseSshConfig(text),
    words: text
      .split('\n')
      .slice(0, 50)
      .map((line) => splitConfigWords(line)),
    node: resolveSshHost('gpu-node-1', text, ENV, { readInclude }),
    alias: resolveSshHost('gpu-2', text, ENV, { readInclude: selfInclude }),
    hosts: listSshHosts(text, { env: ENV, readInclude }),
    get reads() {
      return reads;
    },
  };
}

fuzzTarget({
  name: 'sshConfig.resolveSshHost/listSshHosts',
  corpus: SSH_CONFIGS,
  run: (input) => {
    const result = resolveAll(input) as { reads: number };
    return { result, reads: result.reads };
  },
  check: (output, input): Violation[] =>
    output.reads > includeBudget(input)
      ? [{ property: 'time', message: `include breadth: ${output.reads} Include reads for ${input.split('\n').length} lines` }]
      : [],
  growth: [
    { label: 'many Host blocks', make: (n) => (SSH_CONFIGS[0] ?? '').repeat(Math.ceil(n / (SSH_CONFIGS[0] ?? ' ').length)) },
    { label: 'a long quoted word', make: (n) => `Host a\n  IdentityFile "${'x'.repeat(n)}\n` },
    { label: 'a long pattern list', make: (n) => `Host ${'*a'.repeat(n / 2)}\n  User u\n` },
    // Found by the long run (seed 168661840): `.*` stopped at a CR and the keyword's blanks backtracked, O(n²).
    { label: 'blanks around a CR after a keyword', make: (n) => `Host a\n  P${' '.repeat(n / 2)}\r${' '.repeat(n / 2)}ort = 2201\n` },
  ],
});

fuzzTarget({
  name: 'sshConfig.parseSshDestination',
  corpus: ['ana@gpu-node-1:2222', 'gpu-node-1', '[2001:db8::1]:22', 'ssh://admin@10.0.0.7:2201', 'root@[fe80::1%eth0]'],
  run: (input) => parseSshDestination(input),
});

// Provenance: test/unit/knownHosts.test.ts (ssh-keygen -t ed25519 and ssh-keygen -H on Debian 12, OpenSSH_9.2p1).
const KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIO9WpyA7p32UtalsLWq66gzPzT4jQSKnsHBe555lcmIA';
const KNOWN_HOSTS = [
  [
    `|1|+8T9nzXElWXw8+nzxlpJ3NnS/fI=|Iqy0ezNZAgQ9relGLjcXeTNVaec= ssh-ed25519 ${KEY}`,
    `|1|kUfGnKVRB5pFQBtF/UMnp3t1Dy8=|RtbRpxpY8ZkdGl1YaybVffFQDsI= ssh-ed25519 ${KEY}`,
    `[127.0.0.1]:2222 ssh-ed25519 ${KEY}`,
    `gpu-node-1,10.0.0.7 ssh-ed25519 ${KEY} comment`,
    `@revoked * ssh-ed25519 ${KEY}`,
    `@cert-authority *.cluster.example ssh-ed25519 ${KEY}`,
    `!bad.example,*.example ssh-ed25519 ${KEY}`,
    '# a comment',
  ].join('\n'),
];

fuzzTarget({
  name: 'knownHosts.parseKnownHosts/checkHostKey',
  corpus: KNOWN_HOSTS,
  run: (input) => ({
    entries: parseKnownHosts(input),
    check: checkHostKey(input, 'gpu-node-1', 22, 'ssh-ed25519', KEY),
    port: checkHostKey(input, '127.0.0.1', 2222, 'ssh-ed25519', KEY),
    types: knownKeyTypes(input, '10.0.0.7', 22),
  }),
  growth: [
    { label: 'many entries', make: (n) => (KNOWN_HOSTS[0] ?? '').repeat(Math.ceil(n / (KNOWN_HOSTS[0] ?? ' ').length)) },
    { label: 'a long wildcard pattern', make: (n) => `${'*a'.repeat(n / 2)}b ssh-ed25519 ${KEY}\n` },
  ],
});

fuzzTarget({
  name: 'knownHosts.wildcardMatch/matchHostPatternList',
  corpus: ['*.cluster.example', 'gpu-?', '!bad.example,*.example', '*a*a*a*a*b'],
  run: (input) => ({
    wild: wildcardMatch('gpu-node-1.cluster.example', input),
    own: wildcardMatch(input, input),
    list: matchHostPatternList('gpu-1', input.split(',')),
  }),
  growth: [{ label: 'a long star pattern', make: (n) => `${'*a'.repeat(n / 2)}b` }],
});
