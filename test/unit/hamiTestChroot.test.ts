// The HAMi over-quota test end to end without a GPU: the real program (src/core/hamiTest/script.ts) run by a
// real python3 through the local transport as `chroot <root> python3 -I -c …`, against the libcuda.so.1 test
// double, with the libvgpu.so test double loaded through the root's real /etc/ld.so.preload
// (test/helpers/hamiTestRoot.ts). The limit, CUDA_DISABLE_CONTROL and the device size come from the
// environment, as HAMi's device plugin injects them.
//
// Covered: enforced; bypassed by CUDA_DISABLE_CONTROL=true and by a missing preload; no python3; python3
// without ctypes; no libcuda.so.1; a CUDA error before the allocation; cancel, and the program's own deadline, with no process
// left in the root afterwards. Needs root and gcc; skipped otherwise.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HamiTestPlan } from '../../src/core/hamiTest/plan.ts';
import { planHamiTest } from '../../src/core/hamiTest/plan.ts';
import { runHamiTest } from '../../src/core/hamiTest/run.ts';
import type { HamiTestOutcome } from '../../src/core/hamiTest/run.ts';
import { hamiTestArgv } from '../../src/core/hamiTest/script.ts';
import { LocalTransport } from '../../src/transports/local.ts';
import { eventually } from '../helpers/asserts.ts';
import { buildHamiTestRoot, hamiTestRootsUnavailable, processesIn } from '../helpers/hamiTestRoot.ts';
import type { HamiTestRoot } from '../helpers/hamiTestRoot.ts';

const UNAVAILABLE = hamiTestRootsUnavailable();
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const LIMIT = { CUDA_DEVICE_MEMORY_LIMIT_0: '8192m' };

function plan(): HamiTestPlan {
  const planned = planHamiTest({
    metadata: { name: 'trainer-0', namespace: 'ml', annotations: { 'hami.io/vgpu-devices-allocated': 'GPU-6f1d2c3b,NVIDIA,8192,50:;' } },
    spec: { schedulerName: 'hami-scheduler', containers: [{ name: 'trainer' }] },
    status: { phase: 'Running' },
  });
  assert.equal(planned.kind, 'ready');
  return (planned as { plan: HamiTestPlan }).plan;
}

function transport(root: string, env: Record<string, string>, selfDeadline?: number): LocalTransport {
  return new LocalTransport({ command: ['chroot', root, ...hamiTestArgv(plan().attemptBytes, selfDeadline)], env: { PATH, ...env } });
}

function verdictOf(outcome: HamiTestOutcome): string {
  if (outcome.kind === 'cancelled') return 'cancelled';
  const { verdict } = outcome;
  return `${verdict.kind}${'reason' in verdict ? `:${verdict.reason.kind}` : ''}`;
}

describe('the over-quota test in chroot container roots', { skip: UNAVAILABLE ?? false }, () => {
  let full: HamiTestRoot;
  let noPreload: HamiTestRoot;
  let noPython: HamiTestRoot;
  let noLibcuda: HamiTestRoot;
  let noCtypes: HamiTestRoot;

  before(() => {
    full = buildHamiTestRoot();
    noPreload = buildHamiTestRoot({ preload: false });
    noPython = buildHamiTestRoot({ python: false });
    noLibcuda = buildHamiTestRoot({ libcuda: false });
    noCtypes = buildHamiTestRoot({ ctypes: false });
  });
  after(() => {
    for (const root of [full, noPreload, noPython, noLibcuda, noCtypes]) root?.cleanup();
  });

  test('the preloaded interposer refuses quota + 64 MiB: enforcement proven', async () => {
    const outcome = await runHamiTest(transport(full.root, LIMIT), plan());
    assert.equal(verdictOf(outcome), 'enforced');
    assert.ok(outcome.kind === 'finished' && outcome.verdict.kind === 'enforced');
    assert.deepEqual(outcome.verdict.evidence, { envLimit: true, envDisable: false, preload: 'vgpu' });
    assert.equal(outcome.verdict.attemptBytes, 8256 * 1024 * 1024);
  });

  test('CUDA_DISABLE_CONTROL=true: the allocation succeeds and is freed, bypass proven', async () => {
    const outcome = await runHamiTest(transport(full.root, { ...LIMIT, CUDA_DISABLE_CONTROL: 'true' }), plan());
    assert.equal(verdictOf(outcome), 'bypassed');
    assert.ok(outcome.kind === 'finished' && outcome.verdict.kind === 'bypassed');
    assert.equal(outcome.verdict.freeCode, 0);
    assert.equal(outcome.verdict.evidence.envDisable, true);
  });

  test('no /etc/ld.so.preload: bypass proven, and the evidence says the preload is absent', async () => {
    const outcome = await runHamiTest(transport(noPreload.root, LIMIT), plan());
    assert.equal(verdictOf(outcome), 'bypassed');
    assert.ok(outcome.kind === 'finished' && outcome.verdict.kind === 'bypassed');
    assert.equal(outcome.verdict.evidence.preload, 'absent');
  });

  test('no python3: the test cannot run, and says why', async () => {
    const outcome = await runHamiTest(transport(noPython.root, LIMIT), plan());
    assert.equal(verdictOf(outcome), 'cannot-run:no-python3');
    assert.ok(outcome.kind === 'finished' && outcome.verdict.kind === 'cannot-run' && outcome.verdict.reason.kind === 'no-python3');
    assert.match(outcome.verdict.reason.detail, /python3/);
  });

  test('python3 without ctypes (a minimal Python): the test cannot run, and says so', async () => {
    assert.equal(verdictOf(await runHamiTest(transport(noCtypes.root, LIMIT), plan())), 'cannot-run:no-ctypes');
  });

  test('no libcuda.so.1: the test cannot run', async () => {
    assert.equal(verdictOf(await runHamiTest(transport(noLibcuda.root, LIMIT), plan())), 'cannot-run:no-libcuda');
  });

  test('a CUDA error before the allocation is inconclusive, with its name', async () => {
    const outcome = await runHamiTest(transport(full.root, { ...LIMIT, GPUMEM_STUB_INIT_ERROR: '100' }), plan());
    assert.equal(verdictOf(outcome), 'inconclusive:cuda-error');
    assert.ok(outcome.kind === 'finished' && outcome.verdict.kind === 'inconclusive' && outcome.verdict.reason.kind === 'cuda-error');
    assert.equal(outcome.verdict.reason.name, 'CUDA_ERROR_NO_DEVICE (100)');
  });

  test('cancel while the driver cuMemAlloc_v2 hangs: cancelled at once, no process left in the root', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const running = runHamiTest(transport(full.root, { ...LIMIT, CUDA_DISABLE_CONTROL: 'true', GPUMEM_STUB_ALLOC_SLEEP_S: '60' }), plan(), {
      signal: controller.signal,
    });
    await eventually('python3 runs in the root', () => processesIn(full.root).length > 0, 10_000);
    controller.abort();
    assert.equal(verdictOf(await running), 'cancelled');
    assert.ok(Date.now() - started < 15_000);
    await eventually('no process left in the root', () => processesIn(full.root).length === 0, 5_000);
  });

  test('a hung CUDA call ends by the program own deadline, before the client gives up', async () => {
    const started = Date.now();
    const outcome = await runHamiTest(
      transport(full.root, { ...LIMIT, CUDA_DISABLE_CONTROL: 'true', GPUMEM_STUB_ALLOC_SLEEP_S: '60' }, 1),
      plan(),
      {
        timeoutMs: 20_000,
      },
    );
    assert.equal(outcome.kind, 'finished');
    assert.ok(outcome.kind === 'finished' && outcome.verdict.kind === 'inconclusive', JSON.stringify(outcome));
    assert.ok(Date.now() - started < 10_000, 'SIGALRM ended it after about 1 s');
    assert.deepEqual(processesIn(full.root), []);
  });
});
