// The agent image users deploy, built and run here: scripts/agent-image.mjs builds deploy/agent/Dockerfile on the
// staged root with buildah into an OCI archive (no registry: nothing is pulled), umoci unpacks it into a runtime
// bundle, and runc runs it as the DaemonSet does: read-only root filesystem, the node's root bind-mounted read-only
// at /host (a fixture root, test/helpers/fixtureRoot.ts), `--host-root /host`, no capability but SYS_PTRACE, no new
// privileges. /readyz turns ready; /metrics passes `promtool check metrics` and its node, pod, container, HAMi and
// OOM series equal those of `gpumem agent` run directly on the same fixture (test/helpers/agentProcess.ts); Debian's
// Prometheus scrapes it. The test prints the image's size and its files, and checks that none is writable.
// The container gets no CAP_SYSLOG (the DaemonSet adds it): with kernel.dmesg_restrict, the image's `dmesg` is then
// refused and the probe reads the fixture's /var/log/kern.log, as the direct run's fixture root (which has no dmesg)
// does; with it, dmesg would read this machine's kernel log.
// crun is tried too; on a host whose cgroup v2 hierarchy has a controller while v1 is mounted (hybrid), crun refuses
// to run anything ("cgroups in hybrid mode not supported"), and that subtest skips with its message.
// Needs root, buildah, umoci, runc and the prometheus package; skips with the reason otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePromText } from '../../src/core/agent/promText.ts';
import { startAgentProcess, stopAgentProcess } from '../helpers/agentProcess.ts';
import type { AgentProcess } from '../helpers/agentProcess.ts';
import { buildApuNode, fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import type { Fixture } from '../helpers/fixtureRoot.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';
import { freePort } from '../helpers/sshd.ts';
import { waitFor as pollUntil } from '../helpers/waitFor.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = 'strix-node-1';
const T = { timeout: 300_000 };
const tool = (name: string) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0;
const SKIP =
  fixtureRootsUnavailable() ??
  prometheusUnavailable() ??
  ((['buildah', 'umoci', 'runc'].find((name) => !tool(name)) ?? false)
    ? `${['buildah', 'umoci', 'runc'].filter((name) => !tool(name)).join(', ')} not installed (Debian packages; .ci/run installs them)`
    : false);
/** The inventory series a node's agent exports: not its own health (cycles, durations, build info). */
const INVENTORY = /^gpumem_(node|pod|container|hami|oom)_/;

/** Three probe cycles done: what both agents serve from then on is the fixture's steady state. */
function settled(metrics: string): boolean {
  const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
  return value('gpumem_probe_cycles_total') >= 3;
}

/** name{labels} → value, of the inventory series of an exposition. */
function inventory(text: string): Map<string, number> {
  const parsed = parsePromText(text);
  return new Map(
    parsed.samples
      .filter((sample) => INVENTORY.test(sample.name))
      .map((sample) => [`${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`, sample.value]),
  );
}

const waitFor = <V>(
  what: string,
  probe: () => Promise<V | undefined> | V | undefined,
  timeoutMs = 90_000,
  signal?: AbortSignal,
): Promise<V> => pollUntil(what, probe, { timeoutMs, pollMs: 300, ...(signal ? { signal } : {}) });

describe('the agent image, built with buildah and run under an OCI runtime', { skip: SKIP }, () => {
  let work = '';
  let archive = '';
  let bundle = '';
  let fixture: Fixture<unknown>;
  let direct: AgentProcess | undefined;
  let directMetrics = '';

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-agent-image-'));
    archive = join(work, 'gpumem-agent.tar');
    const started = Date.now();
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'agent-image.mjs'), 'build', archive], { cwd: ROOT, stdio: 'inherit' });
    console.log(`image built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const layout = join(work, 'layout');
    mkdirSync(layout);
    execFileSync('tar', ['-xf', archive, '-C', layout]);
    const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8'));
    const tag = index.manifests[0].annotations['org.opencontainers.image.ref.name'];
    assert.equal(tag, `ghcr.io/gpumem/gpumem-agent:${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}`);
    bundle = join(work, 'bundle');
    execFileSync('umoci', ['unpack', '--image', `${layout}:${tag}`, bundle], { stdio: 'inherit' });
    fixture = buildApuNode({ hostRoot: '/host' });
    direct = await startAgentProcess({ node: NODE, root: fixture.root, hostRoot: fixture.hostRoot, port: 0, intervalSeconds: 1 });
    directMetrics = await waitFor('the direct agent', async () => {
      const response = await fetch(`http://127.0.0.1:${direct?.port}/metrics`);
      const text = await response.text();
      return settled(text) ? text : undefined;
    });
  });
  after(async () => {
    if (direct) await stopAgentProcess(direct);
    fixture?.cleanup();
    if (work) {
      spawnSync('chmod', ['-R', 'u+w', work]);
      rmSync(work, { recursive: true, force: true });
    }
  });

  test("prints the image's size and files; nothing in it is writable", () => {
    const rootfs = join(bundle, 'rootfs');
    const listing = execFileSync('find', [rootfs, '-mindepth', '1', '-printf', '%M %s %P\\n'], { encoding: 'utf8' }).trim().split('\n');
    const bytes = listing.reduce((sum, line) => sum + Number(line.split(' ')[1]), 0);
    console.log(
      `image: ${(statSync(archive).size / 2 ** 20).toFixed(1)} MiB compressed (OCI archive), ${(bytes / 2 ** 20).toFixed(1)} MiB unpacked, ${listing.length} entries:`,
    );
    console.log(listing.filter((line) => !line.includes(' app/dist/cli/chunks/')).join('\n'));
    console.log(`… and ${listing.filter((line) => line.includes(' app/dist/cli/chunks/')).length} chunks in app/dist/cli/chunks`);
    const writable = listing.filter((line) => !line.startsWith('l') && /w/.test(line.split(' ')[0] ?? ''));
    assert.deepEqual(writable, [], 'no file or directory of the image is writable');
    const paths = listing.map((line) => line.split(' ').slice(2).join(' '));
    for (const absent of ['bin/sh', 'usr/bin/apt', 'usr/bin/dpkg', 'bin/bash', 'usr/local/bin/npm'])
      assert.ok(!paths.includes(absent), absent);
    assert.ok(paths.includes('usr/local/bin/sh') && paths.includes('nodejs/bin/node') && paths.includes('app/dist/cli.js'));
  });

  /** Runs the image's bundle under `runtime` as the DaemonSet runs it; returns its /metrics once it is ready. */
  async function runImage(runtime: 'runc' | 'crun', t: { skip(message: string): void }): Promise<string | undefined> {
    const port = await freePort();
    const config = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8'));
    const entrypoint = config.process.args as string[];
    assert.deepEqual(entrypoint, ['/nodejs/bin/node', '--no-concurrent-recompilation', '/app/dist/cli.js', 'agent']);
    const caps = ['CAP_SYS_PTRACE'];
    const run = {
      ...config,
      root: { path: join(bundle, 'rootfs'), readonly: true },
      process: {
        ...config.process,
        terminal: false,
        noNewPrivileges: true,
        args: [...entrypoint, '--listen', `127.0.0.1:${port}`, '--host-root', '/host', '--node-name', NODE, '--interval', '1'],
        env: [...config.process.env, 'NODE_OPTIONS=--max-old-space-size=160 --max-semi-space-size=2 --expose-gc', 'MALLOC_ARENA_MAX=2'],
        capabilities: { bounding: caps, effective: caps, permitted: caps },
      },
      mounts: [
        ...config.mounts,
        { destination: '/host', type: 'bind', source: join(fixture.root, 'host'), options: ['rbind', 'ro'] },
        // On a node, /host/proc/<pid>/fd/<n> are the kernel's magic links: `ls -lL` reaches the device from any mount
        // namespace. The fixture's are plain symlinks to /dev/dri/renderD128, which resolve inside the container: the
        // fixture's device nodes stand in for the node's, read-only.
        ...['dev/dri', 'dev/kfd']
          .filter((device) => existsSync(join(fixture.root, device)))
          .map((device) => ({ destination: `/${device}`, type: 'bind', source: join(fixture.root, device), options: ['rbind', 'ro'] })),
      ],
      // The host's pids (the DaemonSet's hostPID) and network (so that it listens on this machine's 127.0.0.1).
      linux: {
        ...config.linux,
        namespaces: config.linux.namespaces.filter((ns: { type: string }) => ns.type !== 'network' && ns.type !== 'pid'),
      },
    };
    const runBundle = join(work, `bundle-${runtime}`);
    mkdirSync(runBundle);
    writeFileSync(join(runBundle, 'config.json'), JSON.stringify(run));
    const id = `gpumem-agent-test-${process.pid}-${runtime}`;
    const child: ChildProcess = spawn(runtime, ['run', '-b', runBundle, id], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // A runtime that exits at once (crun on a hybrid cgroup host) must also stop the /readyz poll: left running, it
    // kept this file alive for the poll's 90 s after its last test.
    const stopPolling = new AbortController();
    void exited.then(() => stopPolling.abort());
    try {
      const ready = await Promise.race([
        waitFor(
          `${runtime}: /readyz`,
          async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined),
          90_000,
          stopPolling.signal,
        ).catch((error: unknown) => ({ waited: String(error) })),
        exited.then((code) => ({ code })),
      ]);
      if (ready !== true) {
        if (runtime === 'crun' && /cgroups in hybrid mode not supported/.test(log)) {
          t.skip(`crun refuses this host: ${log.trim()}`);
          return undefined;
        }
        assert.fail(`${runtime} not ready (${JSON.stringify(ready)}): ${log}`);
      }
      const metrics = await waitFor(`${runtime}: three cycles`, async () => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return settled(text) ? text : undefined;
      });
      const checked = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
      assert.equal(checked.status, 0, `promtool check metrics: ${checked.stdout}${checked.stderr}`);
      if (runtime === 'runc') {
        const prometheus = await startPrometheus({ dir: mkdtempSync(join(work, 'prometheus-')), scrapeTargets: [`127.0.0.1:${port}`] });
        try {
          const series = await waitFor('Prometheus to scrape the container', async () => {
            const query = encodeURIComponent(`gpumem_node_memory_total_bytes{node="${NODE}"}`);
            const body = (await (await fetch(`${prometheus.base}/api/v1/query?query=${query}`)).json()) as {
              data?: { result: { value: [number, string] }[] };
            };
            return body.data?.result[0];
          });
          assert.equal(
            Number(series.value[1]),
            inventory(metrics).get(`gpumem_node_memory_total_bytes${JSON.stringify([['node', NODE]])}`),
          );
        } finally {
          await prometheus.stop();
        }
      }
      return metrics;
    } finally {
      spawnSync(runtime, ['kill', id, 'TERM'], { stdio: 'ignore' });
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      spawnSync(runtime, ['delete', '--force', id], { stdio: 'ignore' });
      console.log(`${runtime} log:\n${log.trim().split('\n').slice(-5).join('\n')}`);
    }
  }

  for (const runtime of ['runc', 'crun'] as const) {
    test(
      `${runtime}: ready, promtool-clean, and the same series as gpumem agent run directly`,
      { ...T, skip: !tool(runtime) && `${runtime} not installed` },
      async (t) => {
        const metrics = await runImage(runtime, t);
        if (metrics === undefined) return;
        const fromImage = inventory(metrics);
        const fromDirect = inventory(directMetrics);
        assert.ok(fromDirect.size > 10, `the fixture gives the direct agent ${fromDirect.size} inventory series`);
        assert.deepEqual([...fromImage].sort(), [...fromDirect].sort());
      },
    );
  }
});
