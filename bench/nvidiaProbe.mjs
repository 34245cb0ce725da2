// gpumem NVIDIA probe benchmark (issue #11, "npm run bench"): on a node with 8 GPUs and 400 compute processes
// (a stub nvidia-smi that prints recorded-format output), the node probe's NVIDIA part plus its analysis,
// against a shell that runs the same two queries and `cat`s the same 400 /proc/<pid>/{cgroup,environ} files. Both run in
// the same chroot (static busybox sh -s through LocalTransport), interleaved round by round; the figure is the
// median of the per-round ratios (target ≤ 1.5×). `bench/run.mjs` stores it under `nvidia`. Needs root (chroot).
import { performance } from 'node:perf_hooks';
import { analyzeCaptureText } from '../src/core/inspectionRun/analyze.ts';
import { newNonce } from '../src/core/probe/script.ts';
import { NODE_APPS_QUERY, NODE_GPU_QUERY, NVIDIA_SMI_BLOCKS, NVIDIA_SMI_QUERIES } from '../src/core/probe/scripts/nodeNvidiaScript.ts';
import { NODE_HELPERS } from '../src/core/probe/scripts/nodeScript.ts';
import { LocalTransport } from '../src/transports/local.ts';
import { nodeProbeWith } from './probeSweep.mjs';
import { runScript } from './shellRun.mjs';
import { median, ms, list, rotated, timed } from './stats.mjs';

const GPUS = 8;
const PROCESSES = 400;
const WARMUP = 2;
const ROUNDS = 9;
const TARGET = 1.5;

/** The node probe with its body cut down to the smi helpers and the NVIDIA block: same prelude and header. */
export function nvidiaScript(nonce) {
  return nodeProbeWith(nonce, NODE_HELPERS + NVIDIA_SMI_BLOCKS);
}

/** The same script without its pid section: the two queries as the probe runs them (timeout, byte cap), for the split. */
export function nvidiaQueriesScript(nonce) {
  return nodeProbeWith(nonce, NODE_HELPERS + NVIDIA_SMI_QUERIES);
}

const uuid = (i) => `GPU-${(0x3a7c9e10 + i).toString(16)}-5d2f-4a6c-8e1b-7d9f2a4c6e${(0x10 + i).toString(16)}`;
const podUid = (i) => `${(0x10000000 + i * 7919).toString(16)}-1111-4222-8333-${(0x100000000000 + i).toString(16)}`;

/** The chroot root: the stub nvidia-smi, and per process /proc/<pid>/{cgroup,comm,environ} in 100 pods. */
export async function buildNvidiaFixture() {
  const { NodeTree } = await import('../test/helpers/fixtureRoot.ts');
  const tree = new NodeTree();
  try {
    const gpuRows = Array.from(
      { length: GPUS },
      (_, i) =>
        `${i}, ${uuid(i)}, NVIDIA H100 80GB HBM3, 00000000:${(0x18 + i * 8).toString(16).toUpperCase()}:00.0, 565.57.01, 81559, 454, 40000, 41105, 37, Default, Disabled`,
    );
    const pids = Array.from({ length: PROCESSES }, (_, i) => 20000 + i * 3);
    const appRows = pids.map((pid, i) => `${uuid(i % GPUS)}, ${pid}, python3, ${512 + (i % 64) * 16}`);
    // A TEST DOUBLE of nvidia-smi: recorded-format output, reads nothing (as test/helpers/nvidiaSmiRoot.ts).
    tree.file(
      '/usr/bin/nvidia-smi',
      `#!/bin/sh\n# TEST DOUBLE of nvidia-smi for bench/nvidiaProbe.mjs: prints recorded-format output.\ncase "$*" in\n  *--query-gpu=*) cat <<'EOF'\n${gpuRows.join('\n')}\nEOF\n  ;;\n  *--query-compute-apps=*) cat <<'EOF'\n${appRows.join('\n')}\nEOF\n  ;;\n  *) exit 2 ;;\nesac\n`,
      0o755,
    );
    pids.forEach((pid, i) => {
      const pod = podUid(i % 100);
      tree.file(`/proc/${pid}/comm`, 'python3\n', 0o444);
      tree.file(
        `/proc/${pid}/cgroup`,
        `0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${pod.replace(/-/g, '_')}.slice/cri-containerd-${(i * 2654435761).toString(16).padStart(64, '0').slice(0, 64)}.scope\n`,
        0o444,
      );
      tree.file(
        `/proc/${pid}/environ`,
        `PATH=/usr/bin:/bin\0CUDA_DEVICE_MEMORY_LIMIT_0=8192m\0CUDA_DEVICE_MEMORY_SHARED_CACHE=/usr/local/vgpu/${pod}.cache\0HOME=/root\0`,
        0o400,
      );
    });
    return { tree, pids };
  } catch (err) {
    tree.cleanup();
    throw err;
  }
}

export async function runNvidiaBench() {
  let built;
  try {
    built = await buildNvidiaFixture();
  } catch (err) {
    return { skipped: err instanceof Error ? err.message.split('\n')[0] : String(err) };
  }
  const { tree, pids } = built;
  const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/' };
  const sh = new LocalTransport({ command: ['chroot', tree.root, '/bin/sh', '-s'], env });
  try {
    const nonce = newNonce();
    const script = nvidiaScript(nonce);
    const queries = nvidiaQueriesScript(nonce);
    const baseline = [
      `nvidia-smi --query-gpu=${NODE_GPU_QUERY} --format=csv,noheader,nounits`,
      `nvidia-smi --query-compute-apps=${NODE_APPS_QUERY} --format=csv,noheader,nounits`,
      `cat ${pids.map((pid) => `/proc/${pid}/cgroup`).join(' ')}`,
      // The probe reads each process's environ too (only HAMi's variables leave the node): the same reads.
      `cat ${pids.map((pid) => `/proc/${pid}/environ`).join(' ')} > /dev/null`,
      '',
    ].join('\n');
    // The floor: what the issue's bounds and secrecy alone cost, with no capture format, no capability check but the
    // timeout syntax's, no pid extraction (the pids are given, as the baseline's cats are) and no analysis: each query
    // under timeout and cut at 1 MiB, one grep that makes each cgroup file one line (no name forges another), one grep
    // under timeout that lets only HAMi's variables of each environ through (no other value leaves the node).
    const envKeys = '(CUDA_DEVICE_MEMORY_LIMIT(_[0-9]{1,3})?|CUDA_DEVICE_MEMORY_SHARED_CACHE|CUDA_DISABLE_CONTROL)=.*';
    const floor = [
      'T=timeout; timeout 2 true 2>/dev/null || T="timeout -t"',
      `$T 10 nvidia-smi --query-gpu=${NODE_GPU_QUERY} --format=csv,noheader,nounits | head -c 1048576`,
      `$T 10 nvidia-smi --query-compute-apps=${NODE_APPS_QUERY} --format=csv,noheader,nounits | head -c 1048576`,
      'cd /proc',
      `grep -a -z -H -m 1 '' ${pids.map((pid) => `${pid}/cgroup`).join(' ')} | tr '\\n\\000' '\\t\\n'`,
      `$T 10 grep -a -z -H -x -m 24 -E '${envKeys}' ${pids.map((pid) => `${pid}/environ`).join(' ')} | tr '\\000' '\\n'`,
      '',
    ].join('\n');
    const run = async (text) => (await runScript(sh, text)).stdout;
    let pods = 0;
    let analysisMs = 0;
    const ops = {
      gpumem: async () => {
        const text = await run(script);
        const start = performance.now();
        const inspection = analyzeCaptureText(text, { target: 'bench' });
        analysisMs = performance.now() - start;
        pods = inspection.node?.nvidia.pods.size ?? 0;
      },
      shell: () => run(baseline),
      queries: () => run(queries),
      floor: () => run(floor),
    };
    for (let i = 0; i < WARMUP; i++) for (const name of Object.keys(ops)) await ops[name]();
    // The floor did its reads (a grep that failed at once would make it look cheap): a line per cgroup, HAMi's limit
    // variable of every process, and no other variable.
    const floorText = await run(floor);
    const count = (re) => (floorText.match(re) ?? []).length;
    if (
      count(/^\d+\/cgroup:0::\/kubepods/gm) !== PROCESSES ||
      count(/^\d+\/environ:CUDA_DEVICE_MEMORY_LIMIT_0=/gm) !== PROCESSES ||
      count(/(PATH|HOME)=/g) !== 0
    )
      throw new Error('the floor script did not read what the probe reads');
    if (pods !== 100) throw new Error(`the analysis attributed VRAM to ${pods} pods, expected 100`);
    const samples = { gpumem: [], shell: [], queries: [], floor: [], analysis: [] };
    const ratios = [];
    const floorRatios = [];
    for (let round = 0; round < ROUNDS; round++) {
      const got = {};
      for (const name of rotated(Object.keys(ops), round)) {
        got[name] = (await timed(ops[name])).ms;
        samples[name].push(got[name]);
      }
      samples.analysis.push(analysisMs);
      ratios.push(got.gpumem / got.shell);
      floorRatios.push(got.floor / got.shell);
    }
    const ratio = median(ratios);
    return {
      gpus: GPUS,
      processes: PROCESSES,
      rounds: ROUNDS,
      warmup: WARMUP,
      gpumemMs: samples.gpumem,
      shellMs: samples.shell,
      analysisMs: samples.analysis,
      medianGpumemMs: median(samples.gpumem),
      medianShellMs: median(samples.shell),
      medianAnalysisMs: median(samples.analysis),
      queriesMs: samples.queries,
      medianQueriesMs: median(samples.queries),
      floorMs: samples.floor,
      medianFloorMs: median(samples.floor),
      floorRatio: median(floorRatios),
      roundRatios: ratios,
      ratio,
      target: TARGET,
      pass: ratio <= TARGET,
    };
  } catch (err) {
    return { skipped: err instanceof Error ? err.message.split('\n')[0] : String(err) };
  } finally {
    await sh.close();
    tree.cleanup();
  }
}

export function formatNvidiaBench(result) {
  if (result.skipped) return `NVIDIA probe (8 GPUs × 400 processes)  skipped: ${result.skipped}`;
  return [
    `NVIDIA probe: ${result.gpus} GPUs × ${result.processes} compute processes (stub nvidia-smi, chroot busybox sh), ${result.rounds} rounds after ${result.warmup} warm-up, interleaved`,
    `  a. probe NVIDIA block + analysis   ${ms(result.medianGpumemMs)} median (analysis ${ms(result.medianAnalysisMs)})`,
    `  b. two queries + cat of 800 files ${ms(result.medianShellMs)} median`,
    `  ratio a / b                        ${result.ratio.toFixed(3)}× (target ≤ ${result.target}×) ${result.pass ? 'PASS' : 'FAIL'}`,
    `  split of a: c. the two queries as the probe runs them ${ms(result.medianQueriesMs)}, the pid section ${ms(result.medianGpumemMs - result.medianAnalysisMs - result.medianQueriesMs)}, the analysis ${ms(result.medianAnalysisMs)}`,
    `  per round                          ${list(result.roundRatios, 2)}`,
    `  d. the floor: the queries bounded, the cgroups as one line each, only HAMi's variables (no analysis) ${ms(result.medianFloorMs)}, ${result.floorRatio.toFixed(3)}× b`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(formatNvidiaBench(await runNvidiaBench()));
