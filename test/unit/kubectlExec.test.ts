// The kubectl exec mode's pure half (src/core/kube/kubectlExec.ts): the argv handed to kubectl, the names it
// refuses, and what kubectl's exit status and stderr mean. The stderr texts are kubectl 1.33's, captured
// against the API simulator (test/simulator) and, for the connection errors, against a closed port:
//   Error from server (Forbidden): pods "llama-0" is forbidden: User "limited" cannot create resource "pods/exec" in API group "" in the
// namespace "default"
//   Error from server (NotFound): pods "nope" not found
//   error: You must be logged in to the server (Unauthorized)
//   command terminated with exit code 3
// The end-to-end behaviour with the real binary is in test/integration/kubectlExec.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  classifyKubectlFailure,
  interpretKubectlExit,
  kubectlErrorLine,
  kubectlExecInvocation,
  kubectlNameProblem,
} from '../../src/core/kube/kubectlExec.ts';
import type { KubectlExecTarget } from '../../src/core/kube/kubectlExec.ts';
import { podProbeCommand } from '../../src/core/kube/probeCommand.ts';
import { kubectlExecArgs } from '../helpers/kubectl.ts';

const TARGET: KubectlExecTarget = { context: 'prod-eu', namespace: 'ml', pod: 'trainer-0', container: 'trainer' };

describe('kubectlExecInvocation: the argv', () => {
  test('the by-hand command of "Copy Probe Command", with --quiet and the context in the = form', () => {
    const invocation = kubectlExecInvocation(TARGET, ':');
    assert.equal(invocation.kind, 'ok');
    assert.deepEqual(invocation.kind === 'ok' && invocation.args, [
      '--context=prod-eu',
      'exec',
      '-i',
      '--quiet',
      '-n',
      'ml',
      'trainer-0',
      '-c',
      'trainer',
      '--',
      'sh',
      '-s',
    ]);
    assert.equal(invocation.kind === 'ok' && invocation.kubeconfigEnv, undefined);
    assert.deepEqual(invocation.kind === 'ok' && invocation.args, kubectlExecArgs(TARGET), 'the words the other kubectl tests expect');
    // The same words as the by-hand line, apart from --quiet.
    const byHand = podProbeCommand({ context: 'prod-eu', namespace: 'ml', pod: 'trainer-0', container: 'trainer' }).command.replace(
      / < probe\.sh > capture\.txt$/,
      '',
    );
    assert.equal(byHand, ['kubectl', ...(invocation.kind === 'ok' ? invocation.args : [])].filter((a) => a !== '--quiet').join(' '));
  });

  test('no container: no -c (kubectl picks the default container)', () => {
    const invocation = kubectlExecInvocation({ context: 'c', namespace: 'default', pod: 'llama-0' }, ':');
    assert.deepEqual(invocation.kind === 'ok' && invocation.args, kubectlExecArgs({ context: 'c', namespace: 'default', pod: 'llama-0' }));
    assert.ok(invocation.kind === 'ok' && !invocation.args.includes('-c'));
  });

  test('one kubeconfig file: --kubeconfig=<file>; several: KUBECONFIG joined with the delimiter (kubectl --kubeconfig takes ONE path)', () => {
    const one = kubectlExecInvocation({ ...TARGET, kubeconfigFiles: ['/home/u/.kube/config'] }, ':');
    assert.deepEqual(one.kind === 'ok' && one.args, kubectlExecArgs({ ...TARGET, kubeconfig: '/home/u/.kube/config' }));
    assert.equal(one.kind === 'ok' && one.kubeconfigEnv, undefined);
    const several = kubectlExecInvocation({ ...TARGET, kubeconfigFiles: ['/a/config', '/b/config'] }, ':');
    assert.equal(several.kind === 'ok' && several.args.some((a) => a.startsWith('--kubeconfig')), false);
    assert.equal(several.kind === 'ok' && several.kubeconfigEnv, '/a/config:/b/config');
    const windows = kubectlExecInvocation({ ...TARGET, kubeconfigFiles: ['C:\\a\\config', 'C:\\b\\config'] }, ';');
    assert.equal(windows.kind === 'ok' && windows.kubeconfigEnv, 'C:\\a\\config;C:\\b\\config');
    const none = kubectlExecInvocation({ ...TARGET, kubeconfigFiles: [] }, ':');
    assert.equal(none.kind === 'ok' && none.args[0], '--context=prod-eu');
  });

  test('a context that looks like a flag or holds shell syntax stays one value of --context=', () => {
    for (const context of [
      '-n',
      '--kubeconfig=/tmp/evil',
      'prod; rm -rf ~',
      'arn:aws:eks:eu-west-1:123456789012:cluster/gpu',
      'user@cluster $(id)',
    ]) {
      const invocation = kubectlExecInvocation({ ...TARGET, context }, ':');
      assert.equal(invocation.kind, 'ok', context);
      assert.equal(invocation.kind === 'ok' && invocation.args[0], `--context=${context}`);
    }
  });

  test('names that could become flags or are not Kubernetes names are refused before any argv exists', () => {
    const cases: [Partial<KubectlExecTarget>, RegExp][] = [
      [{ pod: '-c' }, /pod "-c" is not a valid Kubernetes name/],
      [{ pod: '--help' }, /pod "--help"/],
      [{ pod: 'Trainer' }, /pod "Trainer"/],
      [{ pod: '' }, /pod ""/],
      [{ namespace: '-n' }, /namespace "-n"/],
      [{ namespace: 'a.b' }, /namespace "a.b"/],
      [{ container: '--' }, /container "--"/],
      [{ container: 'x'.repeat(64) }, /container/],
      [{ context: '' }, /context name is empty/],
      [{ context: 'a\nb' }, /control characters/],
      [{ kubeconfigFiles: ['/a:b', '/c'] }, /list separator/],
      [{ kubeconfigFiles: [''] }, /kubeconfig path/],
    ];
    for (const [patch, problem] of cases) {
      const invocation = kubectlExecInvocation({ ...TARGET, ...patch }, ':');
      assert.equal(invocation.kind, 'invalid', JSON.stringify(patch));
      assert.match(invocation.kind === 'invalid' ? invocation.problem : '', problem);
    }
    // A single kubeconfig path may hold the delimiter: it goes to --kubeconfig=, not into a list.
    assert.equal(kubectlExecInvocation({ ...TARGET, kubeconfigFiles: ['/odd:dir/config'] }, ':').kind, 'ok');
    assert.equal(kubectlNameProblem('pod', 'web-7d9f.v2'), undefined, 'a pod name is a DNS subdomain');
    assert.equal(kubectlNameProblem('pod', 'a'.repeat(254))?.includes('subdomain'), true);
  });
});

describe('interpretKubectlExit: exit status and stderr', () => {
  const ran = (stdout: string, stderr: string, exitCode: number | null, truncated = false) => ({ stdout, stderr, exitCode, truncated });

  test('status 0: the result as it is', () => {
    assert.deepEqual(interpretKubectlExit(ran('out\n', 'warn\n', 0), TARGET), { kind: 'ran', result: ran('out\n', 'warn\n', 0) });
  });

  test("the remote exit status from kubectl's last line, which is removed from stderr", () => {
    assert.deepEqual(interpretKubectlExit(ran('hello\n', 'oops\ncommand terminated with exit code 3\n', 3), TARGET), {
      kind: 'ran',
      result: ran('hello\n', 'oops\n', 3),
    });
    assert.deepEqual(
      interpretKubectlExit(ran('', 'command terminated with exit code 1\n', 1), TARGET),
      { kind: 'ran', result: ran('', '', 1) },
      'exit 1 of the script is not a kubectl failure',
    );
    assert.deepEqual(interpretKubectlExit(ran('', 'command terminated with exit code 137', 137), TARGET), {
      kind: 'ran',
      result: ran('', '', 137),
    });
    // Only the LAST line counts: the same words earlier in the script's stderr stay, and decide nothing.
    const outcome = interpretKubectlExit(
      ran(
        '',
        'command terminated with exit code 9\nError from server (Forbidden): x is forbidden: User "u" cannot get resource "pods"\n',
        1,
      ),
      TARGET,
    );
    assert.equal(outcome.kind, 'failed');
  });

  test('killed or over the output cap (exit status null): passed through', () => {
    assert.deepEqual(interpretKubectlExit(ran('x'.repeat(10), '', null, true), TARGET), {
      kind: 'ran',
      result: ran('x'.repeat(10), '', null, true),
    });
  });

  test("RBAC: forbidden with the verb and resource of the API server's message", () => {
    const stderr =
      'Error from server (Forbidden): pods "llama-0" is forbidden: User "limited" cannot create resource "pods/exec" in API group "" in the namespace "default"\n';
    const outcome = interpretKubectlExit(ran('', stderr, 1), TARGET);
    assert.deepEqual(outcome, {
      kind: 'failed',
      failure: {
        kind: 'forbidden',
        verb: 'create',
        resource: 'pods/exec',
        detail: 'pods "llama-0" is forbidden: User "limited" cannot create resource "pods/exec" in API group "" in the namespace "default"',
      },
    });
    // kubectl reads the pod first: a user who may not get it is refused on get pods.
    const get = classifyKubectlFailure(
      'Error from server (Forbidden): pods "llama-0" is forbidden: User "nobody" cannot get resource "pods" in API group "" in the namespace "default"',
      1,
      TARGET,
    );
    assert.deepEqual(get.kind === 'forbidden' && [get.verb, get.resource], ['get', 'pods']);
    // A 403 without the usual message still names the exec subresource.
    const bare = classifyKubectlFailure('Error from server (Forbidden): forbidden', 1, TARGET);
    assert.deepEqual(bare.kind === 'forbidden' && [bare.verb, bare.resource], ['create', 'pods/exec']);
  });

  test('not found, unauthorized, credentials, no sh in the image, unreachable, dropped stream, anything else', () => {
    assert.deepEqual(classifyKubectlFailure('Error from server (NotFound): pods "nope" not found\n', 1, { ...TARGET, pod: 'nope' }), {
      kind: 'connect',
      detail: 'pod ml/nope was not found (kubectl: pods "nope" not found)',
    });
    assert.equal(classifyKubectlFailure('error: You must be logged in to the server (Unauthorized)\n', 1, TARGET).kind, 'auth');
    assert.equal(
      classifyKubectlFailure('Unable to connect to the server: getting credentials: exec: executable aws not found\n', 1, TARGET).kind,
      'auth',
    );
    const spawn = classifyKubectlFailure(
      'error: Internal error occurred: error executing command in container: failed to exec in container: OCI runtime exec failed: exec: "sh": executable file not found in $PATH: unknown\n',
      1,
      TARGET,
    );
    assert.equal(spawn.kind, 'spawn');
    assert.match(spawn.kind === 'spawn' ? spawn.detail : '', /^sh -s in pod ml\/trainer-0 -c trainer: Internal error/);
    const refused = classifyKubectlFailure(
      'E1129 23:36:39.555917 423 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API group list"\nThe connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n',
      1,
      TARGET,
    );
    assert.deepEqual(refused, {
      kind: 'connect',
      detail: 'kubectl (context prod-eu): The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?',
    });
    assert.equal(
      classifyKubectlFailure(
        'error: error reading from error stream: websocket: close 1006 (abnormal closure): unexpected EOF\n',
        1,
        TARGET,
      ).kind,
      'disconnected',
    );
    assert.deepEqual(classifyKubectlFailure('error: context "gone" does not exist\n', 1, TARGET), {
      kind: 'connect',
      detail: 'kubectl (context prod-eu): context "gone" does not exist',
    });
    assert.deepEqual(classifyKubectlFailure('', 2, TARGET), {
      kind: 'connect',
      detail: 'kubectl (context prod-eu): kubectl exited with status 2 and printed nothing',
    });
  });

  test('kubectlErrorLine: the reason and the message of the last line', () => {
    assert.deepEqual(kubectlErrorLine('noise\nError from server (BadRequest): container nope is not valid for pod llama-0\n\n'), {
      reason: 'BadRequest',
      message: 'container nope is not valid for pod llama-0',
    });
    assert.deepEqual(kubectlErrorLine('error: unknown flag: --quiet\n'), { reason: undefined, message: 'unknown flag: --quiet' });
  });
});

test('a remote command other than sh -s goes after -- as its own argv entries (the HAMi over-quota test)', () => {
  const invocation = kubectlExecInvocation(
    {
      context: 'prod',
      namespace: 'ml',
      pod: 'trainer-0',
      container: 'main',
      remoteCommand: ['python3', '-I', '-c', 'import sys\nprint(1)', '42', '25'],
    },
    ':',
  );
  assert.equal(invocation.kind, 'ok');
  const args = invocation.kind === 'ok' ? invocation.args : [];
  assert.deepEqual(args.slice(args.indexOf('--')), ['--', 'python3', '-I', '-c', 'import sys\nprint(1)', '42', '25']);
  const probe = kubectlExecInvocation({ context: 'prod', namespace: 'ml', pod: 'trainer-0' }, ':');
  assert.deepEqual(probe.kind === 'ok' ? probe.args.slice(-3) : [], ['--', 'sh', '-s']);
});
