// `gpumem agent`: the node exporter (docs/agent.md). Runs until SIGTERM or SIGINT, then stops the cycle in flight,
// the pod watch and the server, and exits 0. Exit 2 on a usage error or when the port cannot be bound.
import { hostname } from 'node:os';
import { Agent, exposedGarbageCollector } from '../agent/agent.ts';
import { OomEventPoster } from '../agent/oomEvents.ts';
import { chooseKubeconfig, PodSource } from '../agent/podSource.ts';
import { parseListen, startServer } from '../agent/server.ts';
import { isDnsSubdomain } from '../core/kube/names.ts';
import { withoutTrailingSlashes } from '../core/probe/script.ts';
import { DEFAULT_LOCAL_COMMAND, LocalTransport } from '../transports/local.ts';
import { headroomOf, parseArgs, UsageError } from './args.ts';
import { DEFAULT_HEADROOM_PERCENT } from '../core/sizing.ts';
import { describeError } from './files.ts';
import type { CliIo } from './io.ts';

export const AGENT_USAGE = `Usage: gpumem agent --listen HOST:PORT [--host-root DIR] [--interval SECONDS] [--probe-timeout SECONDS]
                    [--node-name NAME] [--kubeconfig FILE] [--events] [--probe-command JSON]
                    [--gpu-watch-interval SECONDS] [--peak-window SECONDS] [--headroom PERCENT]

Runs the node probe every --interval seconds (default 30) and serves what it finds to Prometheus:
  /metrics   the Prometheus text format (the metrics are listed in docs/agent.md)
  /healthz   200 while the process is alive
  /readyz    200 once a cycle has completed, 503 before
--listen        where to serve, e.g. 0.0.0.0:9400, 127.0.0.1:9400, [::]:9400
--host-root     where the host's / is mounted (/host in the DaemonSet); default: this machine's /
--probe-timeout a probe that runs longer is stopped and counted as an error (default 60)
--node-name     the node's Kubernetes name (default: $NODE_NAME, else the hostname)
--kubeconfig    a kubeconfig to read the node's pods with; in a pod, the ServiceAccount is used. Without
                either, pods are labelled by UID only.
--events        on a global OOM kill of a pod, post a Warning Event "GlobalOOMKill" on it that says what gpumem
                found (needs create and patch on events: deploy/agent/overlays/events)
--headroom      the headroom the remedies add to what a pod really used, in percent from 0 to 1000 (default 30),
                as in gpumem inspect: the limit the GlobalOOMKill Event suggests is sized with it
--gpu-watch-interval  between cycles, how often to read each GPU's memory in use (a few sysfs files); when it
                rises by 64 MiB or more, a light sweep of the DRM fds says which pod and container took it, so a
                spike between two scrapes reaches the *_max_bytes metrics (default 5; 0: off, the maxima then
                follow the full cycles only)
--peak-window   the window the *_max_bytes metrics cover (default 60: two scrapes at 30 s)
--probe-command the shell the probe script is written to, as a JSON array (default ["sh","-s"]), e.g.
                ["busybox","sh","-s"]; run as given, never through a shell
`;

function option(options: ReadonlyMap<string, string | true>, name: string): string | undefined {
  const value = options.get(name);
  return typeof value === 'string' ? value : undefined;
}

function seconds(text: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = /^\d{1,6}(\.\d{1,3})?$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`--${name} must be a number of seconds from ${min} to ${max}`);
  return value;
}

/** A JSON array of 1 to 16 non-empty strings: an argv, never a shell string. */
function probeCommand(text: string | undefined): readonly string[] {
  if (text === undefined) return DEFAULT_LOCAL_COMMAND;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length === 0 ||
    parsed.length > 16 ||
    !parsed.every((arg): arg is string => typeof arg === 'string' && arg !== '' && arg.length <= 4096)
  )
    throw new UsageError('--probe-command must be a JSON array of strings, e.g. ["busybox","sh","-s"]');
  return parsed;
}

export async function agentCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(
    argv,
    {
      listen: true,
      'host-root': true,
      interval: true,
      'probe-timeout': true,
      'node-name': true,
      kubeconfig: true,
      'probe-command': true,
      'gpu-watch-interval': true,
      'peak-window': true,
      headroom: true,
      events: false,
      help: false,
    },
    { '-h': '--help' },
  );
  if (args.options.has('help')) {
    io.stdout(AGENT_USAGE);
    return 0;
  }
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0] ?? ''}`);
  const listenText = option(args.options, 'listen');
  if (listenText === undefined) throw new UsageError('--listen HOST:PORT is required');
  const listen = parseListen(listenText);
  if (!listen) throw new UsageError(`--listen ${listenText}: expected HOST:PORT, :PORT or [IPv6]:PORT`);
  const interval = seconds(option(args.options, 'interval'), 'interval', 30, 1, 86_400);
  const gpuWatch = seconds(option(args.options, 'gpu-watch-interval'), 'gpu-watch-interval', 5, 0, 3600);
  const peakWindow = seconds(option(args.options, 'peak-window'), 'peak-window', 60, 1, 86_400);
  const probeTimeout = seconds(option(args.options, 'probe-timeout'), 'probe-timeout', 60, 1, 3600);
  const headroomPercent = headroomOf(args.options.get('headroom')) ?? DEFAULT_HEADROOM_PERCENT;
  const hostRootText = option(args.options, 'host-root');
  if (hostRootText !== undefined && !/^\/[A-Za-z0-9._/-]{0,255}$/.test(hostRootText))
    throw new UsageError('--host-root must be an absolute path');
  // `/` is the default's own root: the probe's empty prefix, as when the option is not given.
  const hostRoot = hostRootText === undefined ? undefined : withoutTrailingSlashes(hostRootText) || undefined;
  const nodeName = option(args.options, 'node-name') ?? process.env['NODE_NAME'] ?? hostname();
  if (!isDnsSubdomain(nodeName)) throw new UsageError(`node name "${nodeName.slice(0, 80)}" is not a Kubernetes node name`);

  const command = probeCommand(option(args.options, 'probe-command'));
  const log = (line: string): void => io.stderr(`gpumem agent: ${new Date().toISOString()} ${line}\n`);
  const pods = PodSource.start(chooseKubeconfig(option(args.options, 'kubeconfig')), nodeName, log);
  let events: OomEventPoster | undefined;
  if (args.options.has('events')) {
    if (pods.client) events = new OomEventPoster(pods.client, nodeName, log, { headroomPercent });
    else log('--events: no Kubernetes API, so no Event can be posted');
  }
  const agent = new Agent({
    nodeName,
    version: io.version,
    transport: new LocalTransport({ command, target: `local ${hostRoot ?? '/'}` }),
    hostRoot,
    intervalMs: interval * 1000,
    probeTimeoutMs: probeTimeout * 1000,
    gpuWatchIntervalMs: gpuWatch * 1000,
    peakWindowMs: peakWindow * 1000,
    headroomPercent,
    pods: () => pods.view,
    ...(events ? { onNewKills: (advance, inspection, view) => void events.post(advance, inspection, view) } : {}),
    ...exposedGarbageCollector(),
    log,
  });
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(agent, listen, log);
  } catch (error) {
    pods.stop();
    io.stderr(`gpumem agent: cannot listen on ${listenText}: ${describeError(error)}\n`);
    return 2;
  }
  log(
    `serving ${server.url}/metrics for node ${nodeName} (host root ${hostRoot ?? '/'}, every ${interval} s; GPU watch ${gpuWatch > 0 ? `every ${gpuWatch} s` : 'off'}; headroom ${headroomPercent} %)`,
  );
  agent.start();
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      log(`${signal}: stopping`);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  pods.stop();
  await agent.stop();
  await new Promise<void>((resolve) => {
    server.server.close(() => resolve());
    server.server.closeAllConnections();
  });
  return 0;
}
