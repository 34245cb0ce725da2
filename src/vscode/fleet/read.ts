// Reads a context's fleet for the panel: the settings (gpumem.fleet.*), the Prometheus credentials from
// SecretStorage, the CA file, then readFleet (src/fleet/readFleet.ts: Prometheus at the URL; without one, the
// cluster's Prometheus service when one is found, else each agent's /metrics through the pod proxy; or, when the
// user confirmed one, a scan with debug pods) under a cancellable progress notification. Throws what readFleet throws; the
// caller shows it.
import { readBoundedText } from '../../files/boundedRead.ts';
import os from 'node:os';
import * as vscode from 'vscode';
import { parseWindow } from '../../core/fleet/promFacts.ts';
import type { FleetFacts } from '../../core/fleet/facts.ts';
import type { FleetWindowChoice } from '../../core/fleet/fleetProtocol.ts';
import type { FleetSettings } from '../../core/settings.ts';
import type { FleetRead } from '../../fleet/readFleet.ts';
import { readFleet } from '../../fleet/readFleet.ts';
import type { ClusterClient } from '../../kube/clusterClient.ts';
import type { PrometheusAuth } from '../../prometheus/httpGet.ts';
import { readPrometheusAuth } from './credentials.ts';

export interface FleetReadRequest {
  readonly context: string;
  readonly client: ClusterClient;
  readonly window: FleetWindowChoice;
  readonly settings: FleetSettings;
  readonly secrets: vscode.SecretStorage;
  readonly log: (line: string) => void;
  /** Each step, for the panel's status line. */
  readonly progress: (text: string) => void;
  /** A one-shot scan with debug pods, which the user confirmed (the panel asks); otherwise none is made. */
  readonly scan?: { readonly namespace: string; readonly image: string };
  /** A scan's fleet so far, while it goes on (results as they arrive). */
  readonly partial?: (facts: FleetFacts) => void;
}

/** Per GPU node of a scan: the debug pod's start and the probe (as gpumem fleet --source scan). */
const SCAN_NODE_TIMEOUT_MS = 120_000;

export class FleetReadCancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

function expandHome(file: string): string {
  return file === '~' || file.startsWith('~/') ? `${os.homedir()}${file.slice(1)}` : file;
}

/** The Prometheus gpumem.fleet.prometheusUrl names, with its credentials (SecretStorage) and CA file; none without a URL. */
export async function prometheusAccess(
  settings: FleetSettings,
  secrets: vscode.SecretStorage,
): Promise<{ readonly url: string; readonly auth: PrometheusAuth; readonly ca?: string } | undefined> {
  const url = settings.prometheusUrl;
  if (!url) return undefined;
  const auth = await readPrometheusAuth(secrets, url);
  if (!settings.prometheusCaFile) return { url, auth };
  const file = expandHome(settings.prometheusCaFile);
  const read = await readBoundedText(file, { kind: 'ca-bundle' });
  if (read.kind !== 'read') throw new Error(`gpumem.fleet.prometheusCaFile ${file}: not read: ${read.reason}`);
  return { url, auth, ca: read.text };
}

export async function readContextFleet(request: FleetReadRequest): Promise<FleetRead> {
  const window = parseWindow(request.window);
  if (!window) throw new Error(`window ${request.window}`);
  const { settings } = request;
  const url = settings.prometheusUrl;
  const prometheus = await prometheusAccess(settings, request.secrets);
  const scan = request.scan;
  const where = scan
    ? `a scan of the GPU nodes with debug pods (${settings.scanConcurrency} at a time)`
    : url
      ? `Prometheus at ${new URL(url).host}`
      : "the cluster's Prometheus or the gpumem agents";
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `gpumem: reading the fleet of ${request.context}`, cancellable: true },
    async (progress, token) => {
      const controller = new AbortController();
      const subscription = token.onCancellationRequested(() => controller.abort());
      const step = (text: string): void => {
        progress.report({ message: text });
        request.progress(text);
      };
      step(`from ${where}, window ${window.label}…`);
      try {
        return await readFleet({
          // With a URL: that Prometheus. Without: the cluster's Prometheus service if one is found, else the agents.
          // A confirmed scan: the debug pods, whatever else there is.
          source: scan ? 'scan' : prometheus ? 'prometheus' : 'auto',
          ...(scan
            ? {
                scan: {
                  namespace: scan.namespace,
                  image: scan.image,
                  concurrency: settings.scanConcurrency,
                  timeoutMs: SCAN_NODE_TIMEOUT_MS,
                  onNode: (scrape, done, total) =>
                    step(
                      `scanned ${done} of ${total} GPU nodes${scrape.kind === 'failed' ? ` (${scrape.node ?? '?'}: ${scrape.reason})` : ''}`,
                    ),
                  ...(request.partial ? { onPartial: request.partial } : {}),
                },
              }
            : {}),
          window,
          top: settings.top,
          headroomPercent: settings.headroomPercent,
          client: request.client,
          ...(prometheus ? { prometheus } : {}),
          signal: controller.signal,
          log: (line) => {
            request.log(line);
            step(line.replace(/^fleet: /, ''));
          },
        });
      } catch (error) {
        if (controller.signal.aborted) throw new FleetReadCancelled();
        throw error;
      } finally {
        subscription.dispose();
      }
    },
  );
}
