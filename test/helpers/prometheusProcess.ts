// A real Prometheus (Debian's package) for the tests, the bench and the `npm start` demo: started on a free port of
// 127.0.0.1 with a config written here (static scrape targets, or none when it serves blocks made by
// `promtool tsdb create-blocks-from openmetrics`), waited on until /-/ready answers, stopped with SIGTERM. Its
// stderr is kept for the message when it does not become ready.
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './sshd.ts';

/** Why no Prometheus can run here (the reason a test skips with), or undefined. */
export function prometheusUnavailable(): string | undefined {
  const has = (tool: string): boolean => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
  return has('prometheus') && has('promtool') ? undefined : 'prometheus/promtool not installed (Debian package prometheus)';
}

export interface PrometheusOptions {
  /** Its config file and (unless `tsdb` is given) its TSDB go here. */
  readonly dir: string;
  /** `host:port` targets scraped as job gpumem-agent; none when it only serves existing blocks. */
  readonly scrapeTargets?: readonly string[];
  readonly scrapeIntervalSeconds?: number;
  /** An existing TSDB directory (blocks from promtool); default `<dir>/tsdb`. */
  readonly tsdb?: string;
  /** Listen on this port (a setting written before it starts); default a free one. */
  readonly port?: number;
  readonly readyTimeoutMs?: number;
  readonly env?: NodeJS.ProcessEnv;
}

export interface PrometheusProcess {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly child: ChildProcess;
  /** What it wrote to stderr so far. */
  log(): string;
  stop(): Promise<void>;
}

function configText(targets: readonly string[], intervalSeconds: number): string {
  const lines = [
    'global:',
    `  scrape_interval: ${intervalSeconds}s`,
    `  scrape_timeout: ${Math.min(intervalSeconds, 10)}s`,
    `  evaluation_interval: ${intervalSeconds}s`,
  ];
  if (targets.length === 0) return `${lines.join('\n')}\nscrape_configs: []\n`;
  const list = targets.map((target) => `'${target}'`).join(', ');
  return [...lines, 'scrape_configs:', '  - job_name: gpumem-agent', '    static_configs:', `      - targets: [${list}]`, ''].join('\n');
}

export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusProcess> {
  const port = options.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const config = join(options.dir, 'prometheus.yml');
  writeFileSync(config, configText(options.scrapeTargets ?? [], options.scrapeIntervalSeconds ?? 1));
  const child = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${options.tsdb ?? join(options.dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], ...(options.env ? { env: options.env } : {}) },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Prometheus exited with ${child.exitCode}: ${log}`);
    try {
      if ((await fetch(`${base}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Prometheus did not become ready on ${base}: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { port, base, child, log: () => log, stop };
}
