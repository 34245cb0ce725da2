// A GPU memory spike between two scrapes reaches the agent's maxima. A real `gpumem agent` process probes a Strix Halo
// fixture root (test/helpers/apuNode.ts) with full cycles far apart (300 s) and its GPU watch every second: while the
// node is steady the watch reads only the cards' counters and sweeps nothing; then one DRM client of the pod takes
// 22 GiB more GTT for 5 s (its fdinfo and the card's mem_info_gtt_used rewritten, as the kernel would show them) and
// falls back. Afterwards no full cycle has run, the current series still say what the first cycle saw, and the
// *_max_bytes series hold the spike, for the pod, its true footprint at the same look, and its container. The
// expectations come from the fixture's own numbers.
//
// Needs root (chroot, mknod); skips with the reason otherwise.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePromText } from '../../src/core/agent/promText.ts';
import type { AgentProcess } from '../helpers/agentProcess.ts';
import { startAgentProcess, stopAgentProcess } from '../helpers/agentProcess.ts';
import type { ApuFacts, Fixture } from '../helpers/fixtureRoot.ts';
import { buildApuNode, fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';

const SKIP = fixtureRootsUnavailable() ?? false;
const GiB = 1024 ** 3;
const SPIKE = 22 * GiB;
/** The pod's first DRM client (apuNode.ts: clientA, 18 GiB of GTT), shared by a dup'ed fd and a forked child. */
const CLIENT = '1041';

let fixture: Fixture<ApuFacts> | undefined;
let agent: AgentProcess | undefined;

before(async () => {
  if (SKIP) return;
  fixture = buildApuNode({ hostRoot: '/host' });
  agent = await startAgentProcess({
    node: 'strix-node-1',
    root: fixture.root,
    hostRoot: fixture.hostRoot,
    intervalSeconds: 300,
    extraArgs: ['--gpu-watch-interval', '1', '--peak-window', '300'],
  });
});

after(async () => {
  if (agent) await stopAgentProcess(agent);
  fixture?.cleanup();
});

async function scrape(): Promise<ReturnType<typeof parsePromText>['samples']> {
  const response = await fetch(`http://127.0.0.1:${agent?.port ?? 0}/metrics`);
  return parsePromText(await response.text()).samples;
}

function value(
  samples: Awaited<ReturnType<typeof scrape>>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  return samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, want]) => sample.labels[key] === want))
    ?.value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every fdinfo file of the client, and the card's GTT counter, with `extra` bytes more GTT (0: as built). */
function setSpike(root: string, facts: ApuFacts, extra: number): void {
  const proc = join(root, 'proc');
  for (const pid of readdirSync(proc)) {
    let fds: string[];
    try {
      fds = readdirSync(join(proc, pid, 'fdinfo'));
    } catch {
      continue;
    }
    for (const fd of fds) {
      const path = join(proc, pid, 'fdinfo', fd);
      const text = readFileSync(path, 'utf8');
      if (!new RegExp(`^drm-client-id:\\t${CLIENT}$`, 'm').test(text)) continue;
      const gtt = `${(18 * GiB + extra) / 1024} KiB`;
      writeFileSync(path, text.replace(/^(drm-(?:total|resident)-gtt:\t).*$/gm, `$1${gtt}`));
    }
  }
  writeFileSync(join(root, 'sys/class/drm/card0/device/mem_info_gtt_used'), `${facts.gttUsed + extra}\n`);
}

test(
  'a 5 s GTT spike between two scrapes is in the maxima, with the pod and container that held it',
  { skip: SKIP, timeout: 120_000 },
  async () => {
    assert.ok(fixture && agent);
    const { facts } = fixture;
    const root = join(fixture.root, fixture.hostRoot);
    const pod = { uid: facts.podUid };
    let samples = await scrape();
    for (let i = 0; i < 120 && value(samples, 'gpumem_pod_unaccounted_max_bytes', pod) === undefined; i++) {
      await sleep(500);
      samples = await scrape();
    }
    assert.equal(value(samples, 'gpumem_pod_unaccounted_max_bytes', pod), facts.podGtt, 'after the first cycle: its GTT');
    // Steady: the watch reads the counters every second and sweeps nothing.
    await sleep(3000);
    samples = await scrape();
    assert.equal(value(samples, 'gpumem_gpu_watch_sweeps_total'), 0, 'no sweep while the GPU memory stands still');

    setSpike(root, facts, SPIKE);
    await sleep(5000);
    setSpike(root, facts, 0);
    samples = await scrape();

    assert.equal(value(samples, 'gpumem_probe_cycles_total'), 1, 'no full cycle ran during the spike');
    assert.equal(value(samples, 'gpumem_pod_unaccounted_bytes', pod), facts.podGtt, 'the current series: the last full cycle');
    assert.equal(value(samples, 'gpumem_pod_unaccounted_max_bytes', pod), facts.podGtt + SPIKE);
    assert.equal(value(samples, 'gpumem_pod_true_footprint_max_bytes', pod), facts.memoryCurrent + facts.podGtt + SPIKE);
    // Both of the pod's DRM clients run in its one container (apuNode.ts), labelled by ID without API access.
    assert.equal(
      value(samples, 'gpumem_container_unaccounted_max_bytes', { ...pod, container: facts.containerId.slice(0, 12) }),
      facts.podGtt + SPIKE,
    );
    const sweeps = value(samples, 'gpumem_gpu_watch_sweeps_total') ?? 0;
    assert.ok(sweeps >= 1 && sweeps <= 3, `the rise was swept once or twice, not every second: ${sweeps}`);
  },
);
