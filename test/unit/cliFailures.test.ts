// Runtime failures of the CLI (no kubeconfig, no such context, an unreachable cluster, a refused request): one line
// of cause and remedy on stderr, exit 2, never the usage text and never a stack. The commands run in process
// through the dispatch (src/cli/dispatch.ts) on a recording CliIo; the "cluster" is a port nothing listens on, or
// a node:http server on 127.0.0.1 that answers every request with the API server's 403 Status.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/dispatch.ts';
import type { CliIo } from '../../src/cli/io.ts';

function recording(): CliIo & { readonly out: string[]; readonly err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readStdin: () => Promise.resolve({ kind: 'read', bytes: new Uint8Array() }),
    cwd: process.cwd(),
    version: 'test',
    docsDirectory: 'docs/rules',
  };
}

/** client-node reaches a plain http:// server only with insecure-skip-tls-verify. */
function kubeconfig(server: string): string {
  return `apiVersion: v1
kind: Config
current-context: c
clusters:
- name: c
  cluster: {server: "${server}", insecure-skip-tls-verify: ${server.startsWith('http:')}}
contexts:
- name: c
  context: {cluster: c, user: u, namespace: ml}
users:
- name: u
  user: {token: t}
`;
}

/** Runs `gpumem …args`; the failure must be exactly one line naming the command, with no usage and no stack. */
async function failsInOneLine(args: readonly string[]): Promise<string> {
  const io = recording();
  const code = await main(args, io);
  const stderr = io.err.join('');
  assert.equal(code, 2, stderr);
  assert.doesNotMatch(stderr, /Usage:/, 'no usage text');
  assert.doesNotMatch(stderr, /internal error|\n\s+at /, 'no stack');
  const lines = stderr.split('\n').filter((line) => line.startsWith(`gpumem ${args[0] ?? ''}: `));
  assert.equal(lines.length, 1, stderr);
  return lines[0] ?? '';
}

let dir: string;
let forbidding: Server;
let forbiddingUrl: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gpumem-cli-failures-'));
  // A port that was free a moment ago: nothing listens, the connection is refused. (Not a well-known port such as 9:
  // fetch refuses those itself, as "bad port", before any connection.)
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const closedAddress = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const closedPort = typeof closedAddress === 'object' && closedAddress ? closedAddress.port : 0;
  writeFileSync(join(dir, 'refused.yaml'), kubeconfig(`https://127.0.0.1:${closedPort}`));
  forbidding = createServer((request, response) => {
    response.writeHead(403, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: 'pods "p" is forbidden: User "u" cannot get resource "pods" in API group "" in the namespace "ml"',
        reason: 'Forbidden',
        code: 403,
      }),
    );
    request.resume();
  });
  await new Promise<void>((resolve) => forbidding.listen(0, '127.0.0.1', resolve));
  const address = forbidding.address();
  forbiddingUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  writeFileSync(join(dir, 'forbidding.yaml'), kubeconfig(forbiddingUrl));
});

after(() => {
  forbidding.closeAllConnections();
  forbidding.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('CLI runtime failures: one line of cause and remedy, exit 2', () => {
  test('no kubeconfig: says where it looked and how to give one', async () => {
    const missing = join(dir, 'missing.yaml');
    for (const args of [
      ['inspect', '--node', 'gpu-1', '--kubeconfig', missing],
      ['fleet', '--kubeconfig', missing],
      ['recommend', '--kubeconfig', missing],
      ['hami-report', '--pod', 'ml/p', '--kubeconfig', missing],
      ['hami-test', '--pod', 'ml/p', '--kubeconfig', missing],
    ]) {
      const line = await failsInOneLine(args);
      assert.ok(line.endsWith(`no Kubernetes context in ${missing}: give --kubeconfig FILE, or set KUBECONFIG`), line);
    }
  });

  test('a context the kubeconfig does not have: the ones it has', async () => {
    const line = await failsInOneLine(['inspect', '--pod', 'ml/p', '--kubeconfig', join(dir, 'refused.yaml'), '--context', 'nope']);
    assert.equal(line, 'gpumem inspect: no context "nope" in the kubeconfig (contexts: c)');
  });

  test('an unreachable cluster: the connection refused, named', async () => {
    const kube = join(dir, 'refused.yaml');
    for (const args of [
      ['inspect', '--pod', 'ml/p', '--kubeconfig', kube],
      ['fleet', '--kubeconfig', kube, '--source', 'agents'],
      ['recommend', '--kubeconfig', kube],
      ['hami-report', '--pod', 'ml/p', '--kubeconfig', kube],
      ['hami-test', '--pod', 'ml/p', '--kubeconfig', kube, '--yes'],
    ]) {
      const line = await failsInOneLine(args);
      assert.match(line, /ECONNREFUSED/, line);
    }
  });

  test('a refused request (403): the verb, the resource and the namespace the API server named', async () => {
    const kube = join(dir, 'forbidding.yaml');
    for (const args of [
      ['inspect', '--pod', 'ml/p', '--kubeconfig', kube],
      ['hami-test', '--pod', 'ml/p', '--kubeconfig', kube, '--yes'],
    ]) {
      const line = await failsInOneLine(args);
      assert.match(line, /get pods/, line);
      assert.match(line, /\bml\b/, line);
    }
  });

  test('a lint --config that cannot be read: the file and the reason, no usage', async () => {
    const line = await failsInOneLine(['lint', '--config', join(dir, 'absent.yaml'), join(dir, 'refused.yaml')]);
    assert.equal(line, `gpumem lint: cannot read --config ${join(dir, 'absent.yaml')}: no such file or directory`);
  });

  test('a usage error still prints the usage', async () => {
    const io = recording();
    assert.equal(await main(['fleet', '--top', 'x'], io), 2);
    assert.match(io.err.join(''), /^gpumem fleet: --top must be a number from 1 to 999\n\nUsage: gpumem fleet/);
  });
});
