// The HAMi over-quota test's pure parts (src/core/hamiTest): the argv and stdin it sends, the result-line
// parser, the verdict of every exec outcome, the plan and refusals from Pod objects, and the reports.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { confirmationText, describeRefusal, planHamiTest } from '../../src/core/hamiTest/plan.ts';
import type { HamiTestPlan } from '../../src/core/hamiTest/plan.ts';
import { hamiTestJson, hamiTestMarkdown, hamiTestText, summarizeHamiTest } from '../../src/core/hamiTest/report.ts';
import { parseHamiTestOutput } from '../../src/core/hamiTest/result.ts';
import {
  HAMI_TEST_BOOTSTRAP,
  HAMI_TEST_END,
  HAMI_TEST_SCRIPT,
  attemptBytesFor,
  hamiTestArgv,
  hamiTestStdin,
} from '../../src/core/hamiTest/script.ts';
import { hamiTestVerdict } from '../../src/core/hamiTest/verdict.ts';
import type { HamiTestVerdict } from '../../src/core/hamiTest/verdict.ts';
import type { ExecResult } from '../../src/core/probe/transport.ts';
import { summarizePod } from '../../src/core/kube/pods.ts';
import { podTreeItem } from '../../src/core/kube/podTreeItem.ts';
import { UsageError } from '../../src/cli/args.ts';
import { exitCodeOfVerdict, hamiTestCommand } from '../../src/cli/hamiTestCommand.ts';
import type { CliIo } from '../../src/cli/io.ts';

const MiB = 1024 * 1024;
const LINE = '@gpumem-hami-test v1';

function exec(stdout: string, extra: Partial<ExecResult> = {}): { kind: 'exec'; result: ExecResult } {
  return { kind: 'exec', result: { stdout, stderr: '', exitCode: 0, truncated: false, ...extra } };
}

function hamiPod(
  overrides: {
    annotations?: Record<string, string>;
    env?: { name: string; value: string }[];
    phase?: string;
    scheduler?: string;
    containers?: string[];
  } = {},
): unknown {
  const names = overrides.containers ?? ['trainer'];
  return {
    metadata: {
      name: 'trainer-0',
      namespace: 'ml',
      annotations: overrides.annotations ?? { 'hami.io/vgpu-devices-allocated': 'GPU-6f1d2c3b,NVIDIA-H100,8192,50:;' },
    },
    spec: {
      nodeName: 'gpu-node-7',
      schedulerName: overrides.scheduler ?? 'hami-scheduler',
      containers: names.map((name, i) => ({
        name,
        ...(i === 0 && overrides.env ? { env: overrides.env } : {}),
        resources: { limits: { 'nvidia.com/gpu': '1', 'nvidia.com/gpumem': '8192' } },
      })),
    },
    status: { phase: overrides.phase ?? 'Running' },
  };
}

function readyPlan(pod: unknown = hamiPod(), container?: string): HamiTestPlan {
  const planned = planHamiTest(pod, container);
  assert.equal(planned.kind, 'ready', JSON.stringify(planned));
  return (planned as { plan: HamiTestPlan }).plan;
}

test('the argv is constant text plus two numbers, and the program goes to stdin followed by the end line', () => {
  const argv = hamiTestArgv(4064 * MiB);
  assert.deepEqual(argv.slice(0, 3), ['python3', '-I', '-c']);
  assert.equal(argv[3], HAMI_TEST_BOOTSTRAP);
  assert.deepEqual(argv.slice(4), [String(4064 * MiB), '25']);
  // Nonsense never reaches the argv as such.
  assert.deepEqual(hamiTestArgv(Number.NaN).slice(4), ['1', '25']);
  assert.deepEqual(hamiTestArgv(-5, Infinity).slice(4), ['1', '25']);
  assert.ok(hamiTestStdin().endsWith(`${HAMI_TEST_END}\n`));
  assert.ok(HAMI_TEST_BOOTSTRAP.includes(JSON.stringify(HAMI_TEST_END)));
  for (const call of ['cuInit', 'cuDeviceGet', 'cuCtxCreate_v2', 'cuMemAlloc_v2', 'cuMemFree_v2', 'signal.alarm'])
    assert.ok(HAMI_TEST_SCRIPT.includes(call), call);
  assert.equal(attemptBytesFor(4000), 4064 * MiB);
});

test('the parser reads the one marked line among other output and rejects everything doubtful', () => {
  const good = parseHamiTestOutput(
    `[HAMI-core Info]: init\n${LINE} status=out-of-memory code=2 bytes=4261412864 env_limit=1 env_disable=0 preload=vgpu\n`,
  );
  assert.deepEqual(good, {
    kind: 'result',
    line: { status: 'out-of-memory', bytes: 4261412864, evidence: { envLimit: true, envDisable: false, preload: 'vgpu' } },
  });
  assert.deepEqual(parseHamiTestOutput('nothing here\n'), { kind: 'missing' });
  assert.deepEqual(parseHamiTestOutput(''), { kind: 'missing' });
  assert.deepEqual(parseHamiTestOutput('@gpumem-hami-test v2 status=allocated\n'), { kind: 'unsupported-version', version: 'v2' });
  const malformed = [
    `${LINE} status=allocated\n${LINE} status=out-of-memory\n`, // two results
    `${LINE} status=allocated bytes=1e9\n`,
    `${LINE} status=allocated bytes=99999999999999999999\n`,
    `${LINE} status=allocated bytes=-1 freed=0\n`, // a negative size (long fuzz seed 168661840)
    `${LINE} status=allocated bytes=1 freed=-5\n`,
    `${LINE} status=allocated status=allocated\n`,
    `${LINE} status=allocated color=red\n`,
    `${LINE} status=exploded\n`,
    `${LINE} status=allocated bytes=1;rm\n`,
    `${LINE} status=cuda-error code=100\n`, // no step
    `${LINE} status=cuda-error step=launch code=100\n`,
    `${LINE} status=no-symbol step=cuLaunchKernel\n`,
    `${LINE} status=allocated ${'x'.repeat(600)}\n`,
  ];
  for (const text of malformed) assert.equal(parseHamiTestOutput(text).kind, 'malformed', text.slice(0, 80));
  // A marker inside a line is not a result line.
  assert.deepEqual(parseHamiTestOutput(`echo ${LINE} status=allocated\n`), { kind: 'missing' });
  // CRLF line ends are read.
  assert.equal(parseHamiTestOutput(`${LINE} status=no-libcuda\r\n`).kind, 'result');
});

test('the verdict: OOM is enforcement, success is a bypass, anything else is inconclusive or cannot run', () => {
  const bytes = 8256 * MiB;
  const kinds = (verdict: HamiTestVerdict): string => `${verdict.kind}${'reason' in verdict ? `:${verdict.reason.kind}` : ''}`;
  assert.equal(kinds(hamiTestVerdict(exec(`${LINE} status=out-of-memory code=2 bytes=${bytes}\n`), bytes)), 'enforced');
  const bypass = hamiTestVerdict(exec(`${LINE} status=allocated bytes=${bytes} freed=0 env_disable=1 preload=absent\n`), bytes);
  assert.equal(bypass.kind, 'bypassed');
  assert.equal(bypass.kind === 'bypassed' && bypass.freeCode, 0);
  const init = hamiTestVerdict(exec(`${LINE} status=cuda-error step=init code=100\n`), bytes);
  assert.equal(kinds(init), 'inconclusive:cuda-error');
  assert.equal(init.kind === 'inconclusive' && init.reason.kind === 'cuda-error' && init.reason.name, 'CUDA_ERROR_NO_DEVICE (100)');
  const odd = hamiTestVerdict(exec(`${LINE} status=cuda-error step=alloc code=4242\n`), bytes);
  assert.equal(odd.kind === 'inconclusive' && odd.reason.kind === 'cuda-error' && odd.reason.name, 'CUresult 4242');
  assert.equal(kinds(hamiTestVerdict(exec(`${LINE} status=no-libcuda\n`), bytes)), 'cannot-run:no-libcuda');
  assert.equal(kinds(hamiTestVerdict(exec(`${LINE} status=no-ctypes env_limit=1\n`), bytes)), 'cannot-run:no-ctypes');
  assert.equal(kinds(hamiTestVerdict(exec(`${LINE} status=no-symbol step=cuMemAlloc_v2\n`), bytes)), 'cannot-run:no-symbol');
  // No python3: chroot's exit 127, the exec API's start failure, a shell's "not found".
  const chroot = exec('', { exitCode: 127, stderr: "chroot: failed to run command 'python3': No such file or directory\n" });
  assert.equal(kinds(hamiTestVerdict(chroot, bytes)), 'cannot-run:no-python3');
  const oci = {
    kind: 'failure',
    failure: { kind: 'spawn', detail: 'python3 -I -c …: exec: "python3": executable file not found in $PATH: unknown' },
  } as const;
  assert.equal(kinds(hamiTestVerdict(oci, bytes)), 'cannot-run:no-python3');
  assert.equal(
    kinds(hamiTestVerdict({ kind: 'failure', failure: { kind: 'spawn', detail: 'OCI runtime exec failed' } }, bytes)),
    'cannot-run:exec-failed',
  );
  assert.equal(
    kinds(
      hamiTestVerdict({ kind: 'failure', failure: { kind: 'forbidden', verb: 'create', resource: 'pods/exec', detail: 'RBAC' } }, bytes),
    ),
    'cannot-run:exec-failed',
  );
  assert.equal(
    kinds(hamiTestVerdict({ kind: 'failure', failure: { kind: 'timeout', phase: 'command', ms: 30_000 } }, bytes)),
    'inconclusive:timeout',
  );
  assert.equal(
    kinds(hamiTestVerdict({ kind: 'failure', failure: { kind: 'disconnected', detail: 'EOF' } }, bytes)),
    'inconclusive:disconnected',
  );
  assert.equal(kinds(hamiTestVerdict(exec('', { exitCode: 142 }), bytes)), 'inconclusive:self-deadline');
  assert.equal(kinds(hamiTestVerdict(exec('', { exitCode: 1, stderr: 'Segmentation fault' }), bytes)), 'inconclusive:no-result');
  assert.equal(kinds(hamiTestVerdict(exec(`${LINE} status=allocated\n`, { truncated: true }), bytes)), 'inconclusive:malformed');
  assert.equal(kinds(hamiTestVerdict(exec(`${LINE} status=bad-args\n`), bytes)), 'inconclusive:malformed');
});

test('the plan takes the quota from the allocation annotation, else the spec env, and names it all in the confirmation', () => {
  const plan = readyPlan();
  assert.equal(plan.container, 'trainer');
  assert.equal(plan.quotaMiB, 8192);
  assert.equal(plan.attemptMiB, 8256);
  assert.equal(plan.attemptBytes, 8256 * MiB);
  assert.deepEqual(plan.quotaSource, { kind: 'annotation', annotation: 'hami.io/vgpu-devices-allocated' });
  assert.equal(plan.gpu?.uuid, 'GPU-6f1d2c3b');
  const { title, detail } = confirmationText(plan);
  for (const part of ['ml/trainer-0', '"trainer"']) assert.ok(title.includes(part), part);
  for (const part of [
    'runs code inside the container',
    '8,256 MiB',
    '8,192 MiB',
    'GPU-6f1d2c3b',
    'NVIDIA-H100',
    'libcuda.so.1',
    'freed at once',
    '30 s',
  ])
    assert.ok(detail.includes(part), part);

  const fromEnv = readyPlan(hamiPod({ annotations: {}, env: [{ name: 'CUDA_DEVICE_MEMORY_LIMIT_0', value: '4000m' }] }));
  assert.equal(fromEnv.quotaMiB, 4000);
  assert.deepEqual(fromEnv.quotaSource, { kind: 'env', variable: 'CUDA_DEVICE_MEMORY_LIMIT_0', value: '4000m' });
  assert.equal(readyPlan(hamiPod({ annotations: {}, env: [{ name: 'CUDA_DEVICE_MEMORY_LIMIT', value: '2g' }] })).quotaMiB, 2048);
  // Bytes that are not whole MiB round up, so the attempt stays above the limit.
  assert.equal(readyPlan(hamiPod({ annotations: {}, env: [{ name: 'CUDA_DEVICE_MEMORY_LIMIT_0', value: '1048577' }] })).quotaMiB, 2);
  // Two GPUs: the first is tested, and the confirmation says so.
  const two = readyPlan(hamiPod({ annotations: { 'hami.io/vgpu-devices-allocated': 'GPU-a,NVIDIA,1000,10:GPU-b,NVIDIA,1000,10:;' } }));
  assert.equal(two.gpuCount, 2);
  assert.ok(confirmationText(two).detail.includes('the first of its 2 GPUs'));
});

test('the plan refuses pods that are not HAMi-managed, not running, without a quota or with a quota of 0', () => {
  const refusal = (pod: unknown, container?: string): string => {
    const planned = planHamiTest(pod, container);
    assert.equal(planned.kind, 'refused');
    return planned.kind === 'refused' ? planned.refusal.kind : '';
  };
  const plain = { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'web' }] }, status: { phase: 'Running' } };
  assert.equal(refusal(plain), 'not-hami');
  assert.equal(refusal(hamiPod({ phase: 'Pending' })), 'not-running');
  assert.equal(refusal(hamiPod(), 'sidecar'), 'no-container');
  assert.equal(refusal(hamiPod({ annotations: { 'hami.io/bind-phase': 'success' } })), 'no-quota');
  assert.equal(refusal(hamiPod({ annotations: {}, env: [{ name: 'CUDA_DEVICE_MEMORY_LIMIT_0', value: '0m' }] })), 'unlimited');
  assert.equal(
    refusal(hamiPod({ annotations: { 'hami.io/vgpu-devices-allocated': 'GPU-a,NVIDIA,999999999999,0:;' } })),
    'implausible-quota',
  );
  for (const garbage of [null, 42, 'pod', [], { metadata: 7 }]) assert.equal(planHamiTest(garbage).kind, 'refused');
  const planned = planHamiTest(plain);
  assert.ok(planned.kind === 'refused' && describeRefusal(planned.target, planned.refusal).includes('not managed by HAMi'));
});

test('the reports say what was proven, with the evidence, in text, Markdown and JSON', () => {
  const plan = readyPlan();
  const enforced = hamiTestVerdict(
    exec(`${LINE} status=out-of-memory code=2 bytes=${plan.attemptBytes} env_limit=1 env_disable=0 preload=vgpu\n`),
    plan.attemptBytes,
  );
  assert.equal(summarizeHamiTest(plan, enforced).status, 'enforced');
  assert.match(
    hamiTestText(plan, enforced),
    /Enforcement proven for allocation: cuMemAlloc_v2 of 8,256 MiB returned CUDA_ERROR_OUT_OF_MEMORY \(2\) on a 8,192 MiB quota/,
  );
  assert.match(hamiTestText(plan, enforced), /does not prove what nvidia-smi reports/);
  const bypassed = hamiTestVerdict(
    exec(`${LINE} status=allocated bytes=${plan.attemptBytes} freed=0 env_limit=1 env_disable=1 preload=absent\n`),
    plan.attemptBytes,
  );
  const markdown = hamiTestMarkdown(plan, bypassed);
  assert.match(markdown, /^# HAMi enforcement test: bypassed/);
  assert.match(markdown, /CUDA\\_DISABLE\\_CONTROL is true/);
  assert.match(markdown, /freed at once/);
  const json = hamiTestJson(plan, bypassed);
  assert.equal(json['status'], 'bypassed');
  assert.deepEqual(JSON.parse(JSON.stringify(json)), json);
});

test('the Clusters tree offers "Test HAMi Enforcement…" on HAMi pods only, and every other pod command on both kinds', () => {
  const now = Date.parse('2026-12-01T00:00:00Z');
  assert.equal(podTreeItem(summarizePod(hamiPod()), now).contextValue, 'gpumem.hamiPod');
  const plain = {
    metadata: { name: 'llama-0', namespace: 'default' },
    spec: { containers: [{ name: 'llama', resources: { limits: { 'amd.com/gpu': '1' } } }] },
  };
  assert.equal(podTreeItem(summarizePod(plain), now).contextValue, 'gpumem.gpuPod');
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    contributes: { menus: Record<string, { command?: string; when?: string }[]> };
  };
  const items = manifest.contributes.menus['view/item/context'] ?? [];
  const test = items.filter((entry) => entry.command === 'gpumem.testHamiEnforcement');
  assert.equal(test.length, 1);
  assert.match(test[0]?.when ?? '', /viewItem == gpumem\.hamiPod && isWorkspaceTrusted/);
  for (const entry of items.filter((e) => e.command !== 'gpumem.testHamiEnforcement' && (e.when ?? '').includes('gpuPod')))
    assert.ok((entry.when ?? '').includes('viewItem =~ /^gpumem\\.(gpuPod|hamiPod)$/'), `${entry.command}: ${entry.when}`);
});

test('gpumem hami-test: usage errors before anything is read, --help, and the exit code of each verdict', async () => {
  const out: string[] = [];
  const io: CliIo = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void out.push(text),
    readStdin: () => Promise.resolve({ kind: 'read', bytes: new Uint8Array() }),
    cwd: '/',
    version: 'test',
    docsDirectory: '/',
  };
  for (const [argv, message] of [
    [[], /--pod \[NAMESPACE\/\]NAME is required/],
    [['--pod', 'ml/Not_A_Name'], /is not \[NAMESPACE\/\]NAME of a pod/],
    [['--pod', 'ml/trainer-0', '--format', 'markdown'], /--format must be text or json/],
    [['--pod', 'ml/trainer-0', 'extra'], /unexpected argument "extra"/],
    [['--pod', 'ml/trainer-0', '--timeout', '5'], /unknown option --timeout/],
    [['--pod', 'ml/trainer-0', '-c', 'Bad Name'], /is not a container name/],
  ] as const)
    await assert.rejects(hamiTestCommand(argv, io), (error: unknown) => error instanceof UsageError && message.test(error.message));
  assert.equal(await hamiTestCommand(['--help'], io), 0);
  assert.match(out.join(''), /RUNS CODE IN THE CONTAINER/);
  const verdicts: [HamiTestVerdict, number][] = [
    [{ kind: 'enforced', attemptBytes: 1, evidence: { envLimit: true, envDisable: false, preload: 'vgpu' } }, 0],
    [{ kind: 'bypassed', attemptBytes: 1, freeCode: 0, evidence: { envLimit: true, envDisable: true, preload: 'vgpu' } }, 1],
    [{ kind: 'inconclusive', reason: { kind: 'self-deadline' }, evidence: undefined }, 3],
    [{ kind: 'cannot-run', reason: { kind: 'no-libcuda' } }, 3],
  ];
  for (const [verdict, code] of verdicts) assert.equal(exitCodeOfVerdict(verdict), code, verdict.kind);
});
