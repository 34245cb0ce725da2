// The redactor of the HAMi issue bundle (src/core/text/redact.ts): every credential shape it promises is
// replaced and counted, ordinary log lines are left alone, hostile input (long runs of the characters it
// looks for, unterminated quotes and PEM blocks) stays linear, and redacting twice changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCredentialShape, isSecretName, REDACTED, redactSecrets } from '../../src/core/text/redact.ts';
import { runsOnLargeInput } from '../helpers/growth.ts';

function redacts(input: string, expected: string, count = 1): void {
  const result = redactSecrets(input);
  assert.equal(result.text, expected, input);
  assert.equal(result.count, count, `count for ${JSON.stringify(input)}`);
  assert.deepEqual(redactSecrets(result.text), { text: result.text, count: 0 }, `redacting twice changes nothing: ${result.text}`);
}

const R = REDACTED;

test('values after secret-looking keys, in the forms logs, env files, JSON, YAML and flags write them', () => {
  redacts('password=hunter2 user=bob', `password=${R} user=bob`);
  redacts('DB_PASSWORD=x; TOKEN="a b c"', `DB_PASSWORD=${R}; TOKEN="${R}"`, 2);
  redacts('{"client_secret": "s3cr3t", "name": "x"}', `{"client_secret": "${R}", "name": "x"}`);
  redacts("apiKey: 'k-123'", `apiKey: '${R}'`);
  redacts('  aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', `  aws_secret_access_key = ${R}`);
  redacts('kube-apiserver --token abcdef --v=2', `kube-apiserver --token ${R} --v=2`);
  redacts('--password=p4ss', `--password=${R}`);
  redacts('"auth":"dXNlcjpwYXNz"', `"auth":"${R}"`);
  redacts('escaped "secret": "a\\"b" tail', `escaped "secret": "${R}" tail`);
});

test('Authorization headers and Bearer credentials, the whole header value', () => {
  redacts('Authorization: Bearer abc.def.ghi', `Authorization: ${R}`);
  redacts('curl -H "Authorization: Basic dXNlcjpwYXNz" https://x', `curl -H "Authorization: ${R}" https://x`);
  redacts('sent bearer 0123456789abcdef to the webhook', `sent bearer ${R} to the webhook`);
  // "Basic" is an ordinary word outside an Authorization line.
  redacts('basic setup done', 'basic setup done', 0);
});

test('URL passwords, credential-shaped words and PEM blocks', () => {
  redacts('pull https://bob:pw@registry.example.com/v2/x', `pull https://bob:${R}@registry.example.com/v2/x`);
  redacts('no password in https://registry.example.com:5000/v2', 'no password in https://registry.example.com:5000/v2', 0);
  redacts('user@host:22 is not a URL password', 'user@host:22 is not a URL password', 0);
  redacts('key AKIAIOSFODNN7EXAMPLE used', `key ${R} used`);
  redacts('jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln', `jwt ${R}`);
  // A base64 dockerconfigjson starts with base64 of {"auths": …
  redacts(`.dockerconfigjson: ${Buffer.from('{"auths":{"r.io":{"auth":"eDp5"}}}').toString('base64')}`, `.dockerconfigjson: ${R}`);
  redacts('AIzaSyA-1234567890abcdefghijklmnopqrstu', R);
  redacts('ya29.a0AfH6SMBexampleexampleexample', R);
  redacts('ghp_abcdefghijklmnopqrstuvwxyz0123456789 pushed', `${R} pushed`);
  redacts('-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----\nafter', `${R} (PEM block)\nafter`);
  redacts('cert: -----BEGIN CERTIFICATE-----\nMIIB\nno end line', `cert: ${R} (PEM block)`);
});

// A URL whose authority ends in `https:` (a pasted URL inside another): the second password was left for a second
// pass, so redacting the output again found more (long fuzz run, seed 814983).
test("a URL right after another URL's authority has its password redacted too, in one pass", () => {
  const cases: readonly (readonly [string, string])[] = [
    [
      'curl https://bob:pw@https://bob:pw@registry.example.com/v2',
      `curl https://bob:${REDACTED}@https://bob:${REDACTED}@registry.example.com/v2`,
    ],
    ['x https://bob:pw@https://carol:qq@host/y', `x https://bob:${REDACTED}@https://carol:${REDACTED}@host/y`],
  ];
  for (const [line, expected] of cases) {
    const once = redactSecrets(line);
    assert.equal(once.text, expected);
    assert.equal(once.count, 2);
    assert.deepEqual(redactSecrets(once.text), { text: once.text, count: 0 });
  }
});

test('ordinary HAMi and scheduler log lines are left as they are', () => {
  for (const line of [
    'I1129 21:30:04.020311       1 register.go:141] Reported node-nvidia-register for gpu-node-7: 1 device(s)',
    'I1129 21:41:12.530021       1 score.go:70] Allocated GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f 8192 MiB to ml/trainer-0',
    'W1129 token bucket refilled, key=nvidia.com/gpu',
    'CUDA_DEVICE_MEMORY_LIMIT_0=8192m',
    'image projecthami/hami:v2.8.1 pulled',
  ])
    redacts(line, line, 0);
});

test('names: secret-looking env and key names', () => {
  for (const name of [
    'PASSWORD',
    'db_password',
    'GITHUB_TOKEN',
    'x-api-key',
    'apiKey',
    'AWS_SECRET_ACCESS_KEY',
    'auth',
    'BASIC_AUTH',
    'client.secret',
  ])
    assert.ok(isSecretName(name), name);
  for (const name of ['CUDA_DEVICE_MEMORY_LIMIT_0', 'NVIDIA_VISIBLE_DEVICES', 'author', 'key', 'PATH', 'HOSTNAME', 'passage'])
    assert.ok(!isSecretName(name), name);
  assert.ok(!isCredentialShape('eyJ'), 'too short for a JWT');
  assert.ok(!isCredentialShape('AKIAshort'));
});

test('hostile input: no throw, linear cost', () => {
  for (const input of [
    '',
    '\n\n',
    '=',
    'password',
    'password=',
    'password="',
    '"',
    '://',
    ':@',
    'a://:@',
    'Bearer',
    'Bearer ',
    '\\',
    '-----BEGIN ',
  ]) {
    const result = redactSecrets(input);
    assert.equal(typeof result.text, 'string');
    assert.ok(Number.isFinite(result.count));
  }
  const runs: Record<string, (n: number) => string> = {
    letters: (n) => `${'a'.repeat(n)}!`,
    'secret keys without values': (n) => 'password '.repeat(n / 9),
    'chained keys': (n) => 'password='.repeat(n / 9),
    'open quotes': (n) => `password="${'\\"'.repeat(n / 2)}`,
    'URL schemes': (n) => 'a://b:c'.repeat(n / 7),
    'userinfo without @': (n) => `x://${':'.repeat(n)}`,
    'PEM openers': (n) => '-----BEGIN \n'.repeat(n / 12),
    'Bearer runs': (n) => 'Bearer '.repeat(n / 7),
    flags: (n) => '--token '.repeat(n / 8),
    'base64 JSON': (n) => `eyJ${'A'.repeat(n)}`,
    'authorization lines': (n) => 'authorization: '.repeat(n / 15),
  };
  for (const [label, make] of Object.entries(runs))
    runsOnLargeInput(`redactSecrets on ${label}`, make, (text) => redactSecrets(text), 20_000);
});
