// The HAMi over-quota test's output (src/core/hamiTest): the result-line parser on mutated program output
// (libvgpu.so log lines around the result, as in the chroot tests), the verdict built from it, and its text,
// Markdown and JSON reports; and the plan on mutated Pod JSON (annotations and env a tenant controls).
import { planHamiTest, confirmationText, describeRefusal } from '../../src/core/hamiTest/plan.ts';
import { hamiTestJson, hamiTestMarkdown, hamiTestText } from '../../src/core/hamiTest/report.ts';
import { parseHamiTestOutput } from '../../src/core/hamiTest/result.ts';
import { hamiTestVerdict } from '../../src/core/hamiTest/verdict.ts';
import { fuzzTarget, renderViolations } from './harness.ts';
import type { Violation } from './harness.ts';

const LINE = '@gpumem-hami-test v1';
const BYTES = 8256 * 1024 * 1024;

const OUTPUTS = [
  `${LINE} status=out-of-memory code=2 bytes=${BYTES} env_limit=1 env_disable=0 preload=vgpu\n`,
  `[HAMI-core Info(52113:140179:libvgpu.c:836)]: Initializing.....\n${LINE} status=allocated bytes=${BYTES} freed=0 env_limit=1 env_disable=1 preload=absent\n`,
  `${LINE} status=cuda-error step=init code=100 env_limit=0 env_disable=0 preload=other\n`,
  `${LINE} status=cuda-error step=alloc code=4242 bytes=${BYTES}\n`,
  `${LINE} status=no-libcuda env_limit=1 env_disable=0 preload=vgpu\r\n`,
  `${LINE} status=no-symbol step=cuMemAlloc_v2\n`,
  `${LINE} status=no-ctypes env_limit=1 env_disable=0 preload=vgpu\n`,
  `${LINE} status=bad-args\n`,
  'Traceback (most recent call last):\n  File "<string>", line 7, in <module>\n',
];

const PLAN = (() => {
  const planned = planHamiTest({
    metadata: { name: 'trainer-0', namespace: 'ml', annotations: { 'hami.io/vgpu-devices-allocated': 'GPU-6f1d2c3b,NVIDIA,8192,50:;' } },
    spec: { schedulerName: 'hami-scheduler', containers: [{ name: 'trainer' }] },
    status: { phase: 'Running' },
  });
  if (planned.kind !== 'ready') throw new Error('the fuzz plan is not ready');
  return planned.plan;
})();

fuzzTarget({
  name: 'hamiTest.parseHamiTestOutput+verdict+reports',
  corpus: OUTPUTS,
  run: (input) => {
    const output = parseHamiTestOutput(input);
    const verdict = hamiTestVerdict(
      { kind: 'exec', result: { stdout: input, stderr: input.slice(0, 200), exitCode: 0, truncated: false } },
      BYTES,
    );
    return {
      output,
      verdict,
      text: hamiTestText(PLAN, verdict),
      markdown: hamiTestMarkdown(PLAN, verdict),
      json: JSON.stringify(hamiTestJson(PLAN, verdict)),
    };
  },
  check: (out): Violation[] => [...renderViolations('text', out.text), ...renderViolations('markdown', out.markdown)],
  growth: [
    { label: 'many log lines', make: (n) => `${'[HAMI-core Info]: x\n'.repeat(Math.ceil(n / 20))}${LINE} status=allocated\n` },
    { label: 'one long marked line', make: (n) => `${LINE} status=allocated ${'a'.repeat(n)}\n` },
    { label: 'many marker prefixes', make: (n) => `${`${LINE}x\n`.repeat(Math.ceil(n / 22))}` },
  ],
});

const PODS = [
  JSON.stringify({
    metadata: { name: 'trainer-0', namespace: 'ml', annotations: { 'hami.io/vgpu-devices-allocated': 'GPU-6f1d2c3b,NVIDIA,8192,50:;' } },
    spec: {
      schedulerName: 'hami-scheduler',
      containers: [{ name: 'trainer', env: [{ name: 'CUDA_DEVICE_MEMORY_LIMIT_0', value: '4000m' }] }],
    },
    status: { phase: 'Running' },
  }),
  JSON.stringify({
    metadata: { name: 'infer', namespace: 'ml', annotations: { 'hami.io/bind-phase': 'success' } },
    spec: { containers: [{ name: 'a', env: [{ name: 'CUDA_DEVICE_MEMORY_LIMIT', value: '0x100000M' }] }, { name: 'b' }] },
    status: { phase: 'Running' },
  }),
];

fuzzTarget({
  name: 'hamiTest.planHamiTest+confirmation',
  corpus: PODS,
  nest: 'json',
  run: (input) => {
    let pod: unknown;
    try {
      pod = JSON.parse(input);
    } catch {
      pod = input;
    }
    const planned = planHamiTest(pod);
    return planned.kind === 'ready'
      ? confirmationText(planned.plan)
      : { title: describeRefusal(planned.target, planned.refusal), detail: '' };
  },
  check: (out): Violation[] => [...renderViolations('title', out.title), ...renderViolations('detail', out.detail)],
});
