// The agent's GPU watch between full cycles (src/agent/gpuWatchLoop.ts), on the cycle bench's node of 200 pods × 50
// DRM fds: what one steady watch tick costs (the watch script and its reading), what one light sweep costs when a
// rise triggers it (the light probe of every DRM fd and its levels), and so the agent's average CPU at its default
// settings (a full cycle every 30 s, a watch tick every 5 s) against the DaemonSet's CPU request. Measured in the
// cycle bench's child process (bench/agentCycle.mjs), after its rounds, with the same CPU accounting.
import { sweepLevels } from '../src/core/agent/gpuSweep.ts';
import { watchReading } from '../src/core/agent/gpuWatch.ts';
import { newNonce } from '../src/core/probe/script.ts';
import { buildGpuWatchScript } from '../src/core/probe/scripts/gpuWatchScript.ts';
import { buildLightProbeScript } from '../src/core/probe/scripts/lightScript.ts';
import { median } from './stats.mjs';
import { runScript } from './shellRun.mjs';

const WATCH_ROUNDS = 10;
const SWEEP_ROUNDS = 3;
export const CYCLE_SECONDS = 30; // the DaemonSet's --interval
export const WATCH_SECONDS = 5; // gpumem agent's --gpu-watch-interval default
/** The DaemonSet's CPU request (deploy/agent/base/daemonset.yaml), in millicores. */
export const CPU_REQUEST_MILLICORES = 50;

/**
 * @param sh a Transport into the fixture's chroot; @param cpuOf the cycle bench's CPU accounting;
 * @param cycleCpuMs the median CPU of one full cycle measured just before; @param pods the fixture's pod count.
 */
export async function benchWatch({ sh, cpuOf, cycleCpuMs, pods }) {
  const watchScript = () => buildGpuWatchScript({ nonce: newNonce(), hostRoot: '/host' });
  const sweepScript = () => buildLightProbeScript({ nonce: newNonce(), hostRoot: '/host' });
  // Warm-up, and the checks that the bench measures what the agent does.
  const reading = watchReading((await runScript(sh, watchScript())).stdout);
  if (reading.kind !== 'level') throw new Error(`the watch read no level on the fixture: ${JSON.stringify(reading)}`);
  const swept = sweepLevels((await runScript(sh, sweepScript())).stdout);
  if (swept.levels.pods.size < pods) throw new Error(`the sweep found ${swept.levels.pods.size} pods, the fixture has ${pods}`);
  const ticks = [];
  for (let i = 0; i < WATCH_ROUNDS; i++) {
    const got = await cpuOf(async () => watchReading((await runScript(sh, watchScript())).stdout));
    ticks.push(got.self + got.children);
  }
  const sweeps = [];
  for (let i = 0; i < SWEEP_ROUNDS; i++) {
    const got = await cpuOf(async () => sweepLevels((await runScript(sh, sweepScript())).stdout));
    sweeps.push(got.self + got.children);
  }
  const tickCpuMs = median(ticks);
  const sweepCpuMs = median(sweeps);
  const ticksPerCycle = CYCLE_SECONDS / WATCH_SECONDS;
  const millicores = (cpuMs) => (cpuMs / (CYCLE_SECONDS * 1000)) * 1000;
  // Steady: no sweep. Busy: the GPU memory rising at every tick, a sweep each time (the worst case the watch allows).
  const steady = millicores(cycleCpuMs + ticksPerCycle * tickCpuMs);
  const oneSweep = millicores(cycleCpuMs + ticksPerCycle * tickCpuMs + sweepCpuMs);
  const busy = millicores(cycleCpuMs + ticksPerCycle * (tickCpuMs + sweepCpuMs));
  return {
    watchSeconds: WATCH_SECONDS,
    cycleSeconds: CYCLE_SECONDS,
    tickCpuMs,
    sweepCpuMs,
    ticks,
    sweeps,
    millicores: { steady, oneSweep, busy },
    request: CPU_REQUEST_MILLICORES,
    pass: oneSweep <= CPU_REQUEST_MILLICORES,
  };
}

export function formatWatch(watch) {
  if (!watch) return [];
  if (watch.skipped) return [`SKIP agent GPU watch: ${watch.skipped}`];
  const m = watch.millicores;
  return [
    `  GPU watch: a steady tick ${watch.tickCpuMs.toFixed(1)} ms CPU (median of ${watch.ticks.length}); a triggered sweep of every DRM fd ${watch.sweepCpuMs.toFixed(0)} ms (median of ${watch.sweeps.length})`,
    `  average at the defaults (a cycle every ${watch.cycleSeconds} s, a watch tick every ${watch.watchSeconds} s): ${m.steady.toFixed(1)} millicores steady, ${m.oneSweep.toFixed(1)} with one sweep per cycle, ${m.busy.toFixed(1)} with a sweep at every tick (memory rising all the time)`,
    `${watch.pass ? 'PASS' : 'FAIL'} agent CPU at its defaults (cycle + watch + one sweep per cycle): ${m.oneSweep.toFixed(1)} millicores (target ≤ the DaemonSet's request, ${watch.request}m)`,
  ];
}
