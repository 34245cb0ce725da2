// The HAMi issue bundle: what HAMi's bug template asks for
// (https://github.com/Project-HAMi/HAMi/blob/master/.github/ISSUE_TEMPLATE/bug-report.md: the Environment
// list, then the pod manifest, pod events, node annotations, nvidia-smi -a, the container runtime
// configuration, device-plugin, scheduler and kubelet logs, dmesg), as Markdown to paste into an issue.
// Filled from the Kubernetes API only (hamiIssueInput.ts); what the API cannot give is listed as "not
// collected" with the command to run on the node. Every text from the cluster passes the redactor
// (text/redact.ts) and then the Markdown escaping (text/escape.ts); the header says how many values went.
import { pushAll } from '../arrays.ts';
import { hamiNodeInfo } from '../kube/hamiNodeAnnotations.ts';
import { asArray, asNumber, asString, asTime, path, stringMap } from '../kube/json.ts';
import { markdownCodeBlock, markdownText } from '../text/escape.ts';
import { RedactionTally } from '../text/redact.ts';
import { imageTag } from './clusterReport.ts';
import type { ComponentPod, ContainerLog, HamiReportInput, Lookup } from './hamiIssueInput.ts';
import { podImages, podSection, requestedResourceNames } from './hamiIssuePod.ts';

/** At most this many events, the most recent (a pod in a crash loop can have hundreds). */
const MAX_EVENTS = 100;

const NODE_ANNOTATION_PREFIXES = ['hami.io/', 'nvidia.com/'];
// GPU feature discovery's labels (NVIDIA/k8s-device-plugin, docs/gpu-feature-discovery): driver and CUDA versions.
const DRIVER_LABELS = ['nvidia.com/cuda.driver-version.full', 'nvidia.com/cuda.driver.major'];
const RUNTIME_LABELS = ['nvidia.com/cuda.runtime-version.full', 'nvidia.com/cuda.runtime.major'];

function podRef(pod: unknown): string {
  return `${asString(path(pod, 'metadata', 'namespace')) ?? 'default'}/${asString(path(pod, 'metadata', 'name')) ?? ''}`;
}

/** The HAMi image tags of component pods' containers (a HAMi image: its name has `hami`), distinct. */
function hamiImages(pods: Lookup<readonly ComponentPod[]> | undefined): string[] {
  if (pods?.kind !== 'read') return [];
  const images = pods.value.flatMap((component) =>
    asArray(path(component.pod, 'spec', 'containers'))
      .map((c) => asString(path(c, 'image')))
      .filter((image): image is string => image !== undefined && /hami/i.test(image)),
  );
  return [...new Set(images)];
}

function versionLine(input: HamiReportInput): string {
  const plugin = hamiImages(input.devicePlugins);
  const scheduler = hamiImages(input.schedulers);
  const tags = [...new Set([...plugin, ...scheduler].map(imageTag).filter((tag): tag is string => tag !== undefined))];
  if (tags.length === 0) return 'unknown (no HAMi device-plugin or scheduler image was found)';
  const from = [
    ...(plugin.length > 0 ? [`device plugin ${plugin.map(markdownText).join(', ')}`] : []),
    ...(scheduler.length > 0 ? [`scheduler ${scheduler.map(markdownText).join(', ')}`] : []),
  ];
  return `${tags.map(markdownText).join(', ')} (image tags: ${from.join('; ')})`;
}

function lookupValue<T>(lookup: Lookup<T> | undefined): T | undefined {
  return lookup?.kind === 'read' ? lookup.value : undefined;
}

function environment(input: HamiReportInput, tally: RedactionTally): string[] {
  const node = lookupValue(input.node);
  const info = (key: string): string | undefined => asString(path(node, 'status', 'nodeInfo', key));
  const nodeName = asString(path(input.pod, 'spec', 'nodeName'));
  const labels = stringMap(path(node, 'metadata', 'labels'));
  const annotations = stringMap(path(node, 'metadata', 'annotations'));
  const hami = hamiNodeInfo(annotations);
  const nodeNote =
    input.node === undefined ? 'the pod is not scheduled to a node' : input.node.kind === 'failed' ? markdownText(input.node.reason) : '';
  const fromNode = (value: string | undefined): string =>
    value ? markdownText(value) : `unknown (${nodeNote || 'not in the node status'})`;
  const server =
    input.serverVersion.kind === 'read' ? markdownText(input.serverVersion.value) : `unknown (${markdownText(input.serverVersion.reason)})`;
  const kubelet = info('kubeletVersion');
  const devices = hami?.registrations.flatMap((registration) => registration.devices.map((device) => ({ registration, device }))) ?? [];
  const models = new Map<string, number>();
  for (const { registration, device } of devices) {
    const key = `${registration.vendor}: ${device.type} (${device.devmemMiB.toLocaleString('en-US')} MiB, split into ${device.count})`;
    models.set(key, (models.get(key) ?? 0) + 1);
  }
  const model =
    models.size > 0
      ? `${[...models].map(([key, count]) => `${count} × ${markdownText(key)}`).join('; ')} (HAMi's node registration)`
      : labels.get('nvidia.com/gpu.product')
        ? `${markdownText(labels.get('nvidia.com/gpu.product') ?? '')} (label nvidia.com/gpu.product)`
        : 'unknown (the node has no HAMi device registration)';
  const modes = [...new Set(devices.map(({ device }) => device.mode ?? 'unknown'))];
  const resources = requestedResourceNames(input.pod);
  const driver = DRIVER_LABELS.map((key) => labels.get(key)).find((value) => value !== undefined);
  const runtime = RUNTIME_LABELS.map((key) => labels.get(key)).find((value) => value !== undefined);
  const captured = input.nodeCapture?.read.kind === 'read' ? input.nodeCapture.read.facts.nvidiaDriver?.split('\n')[0]?.trim() : undefined;
  const driverLine =
    driver || runtime
      ? `driver ${markdownText(driver ?? 'unknown')}, CUDA ${markdownText(runtime ?? 'unknown')} (GPU feature discovery labels)`
      : captured
        ? `${markdownText(tally.text(captured))} (/proc/driver/nvidia/version in the node capture); the CUDA version is in \`nvidia-smi\`'s header`
        : `not collected (the API does not have it): run \`nvidia-smi\` on node ${markdownText(nodeName ?? '(unscheduled)')}; its header shows the driver and CUDA versions`;
  const os = [info('osImage'), info('kernelVersion') ? `kernel ${info('kernelVersion') ?? ''}` : undefined, info('architecture')]
    .filter((part): part is string => part !== undefined)
    .join(', ');
  const images = podImages(input.pod).map((image) => markdownText(tally.text(image)));
  return [
    '## Environment',
    '',
    `- HAMi version: ${versionLine(input)}`,
    `- Kubernetes version: server ${server}; kubelet ${fromNode(kubelet)}${nodeName ? ` on ${markdownText(nodeName)}` : ''}`,
    `- Accelerator vendor and model: ${model}`,
    `- HAMi device backend and requested resource names: ${modes.length > 0 ? modes.map(markdownText).join(', ') : 'unknown'}; ${resources.length > 0 ? resources.map(markdownText).join(', ') : 'no extended resource requested'}`,
    `- Accelerator driver and runtime version: ${driverLine}`,
    `- Container runtime and version: ${fromNode(info('containerRuntimeVersion'))}`,
    `- Workload image and tag: ${images.length > 0 ? images.join(', ') : 'none'} (check for private image names before posting)`,
    `- Operating system and kernel version: ${os ? markdownText(os) : fromNode(undefined)}; \`uname -a\` not collected (run it on the node)`,
    '',
  ];
}

function eventRows(events: readonly unknown[], tally: RedactionTally): string[] {
  const sorted = events
    .map((event) => ({
      event,
      time:
        asTime(path(event, 'lastTimestamp')) ??
        asTime(path(event, 'eventTime')) ??
        asTime(path(event, 'metadata', 'creationTimestamp')) ??
        '',
    }))
    .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0))
    .slice(-MAX_EVENTS);
  const rows = ['| Last seen | Type | Reason | Count | From | Message |', '| --- | --- | --- | --- | --- | --- |'];
  for (const { event, time } of sorted) {
    const from = asString(path(event, 'source', 'component')) ?? asString(path(event, 'reportingComponent')) ?? '';
    rows.push(
      `| ${markdownText(time || '—')} | ${markdownText(asString(path(event, 'type')) ?? '')} | ${markdownText(asString(path(event, 'reason')) ?? '')} | ${asNumber(path(event, 'count')) ?? 1} | ${markdownText(from)} | ${markdownText(tally.text(asString(path(event, 'message')) ?? ''))} |`,
    );
  }
  return rows;
}

function eventsSection(input: HamiReportInput, tally: RedactionTally): string[] {
  const out = ['## Pod events', ''];
  if (input.events.kind === 'failed') return [...out, `Not collected: ${markdownText(input.events.reason)}`, ''];
  if (input.events.value.length === 0)
    return [...out, 'No events about the pod (the API server keeps events for about an hour by default).', ''];
  const shown = Math.min(input.events.value.length, MAX_EVENTS);
  return [
    ...out,
    `${shown} of ${input.events.value.length} events (involvedObject.uid = the pod's uid), oldest first.`,
    '',
    ...eventRows(input.events.value, tally),
    '',
  ];
}

function nodeSection(input: HamiReportInput, tally: RedactionTally): string[] {
  const out = ['## Node annotations (accelerator-related)', ''];
  if (input.node === undefined) return [...out, 'Not collected: the pod is not scheduled to a node.', ''];
  if (input.node.kind === 'failed') return [...out, `Not collected: ${markdownText(input.node.reason)}`, ''];
  const annotations = stringMap(path(input.node.value, 'metadata', 'annotations'));
  const kept = [...annotations].filter(([key]) => NODE_ANNOTATION_PREFIXES.some((prefix) => key.startsWith(prefix)));
  if (kept.length === 0)
    return [
      ...out,
      `Node ${markdownText(asString(path(input.node.value, 'metadata', 'name')) ?? '')} has no hami.io/ or nvidia.com/ annotation: HAMi's device plugin has not registered its devices there.`,
      '',
    ];
  const text = kept.map(([key, value]) => `${key}: ${value}`).join('\n');
  return [
    ...out,
    `Node ${markdownText(asString(path(input.node.value, 'metadata', 'name')) ?? '')}, its hami.io/ and nvidia.com/ annotations:`,
    '',
    markdownCodeBlock(tally.text(text)),
    '',
  ];
}

function logBlock(log: ContainerLog, tailLines: number, tally: RedactionTally): string[] {
  const title = `#### ${markdownText(log.container)}${log.previous ? ' (previous instance, before its last restart)' : ''}`;
  if (log.log.kind === 'failed') return [title, '', `Not collected: ${markdownText(log.log.reason)}`, ''];
  const { text, truncated } = log.log.value;
  const note = `The last ${tailLines} lines at most${truncated ? ', cut at the byte bound' : ''}.`;
  if (text.trim() === '') return [title, '', `${note} The log is empty.`, ''];
  return [title, '', note, '', markdownCodeBlock(tally.text(text.replace(/\n$/, ''))), ''];
}

function componentSection(
  heading: string,
  lookup: Lookup<readonly ComponentPod[]> | undefined,
  absent: string,
  input: HamiReportInput,
  tally: RedactionTally,
): string[] {
  const out = [`## ${heading}`, ''];
  if (lookup === undefined) return [...out, `Not collected: ${absent}`, ''];
  if (lookup.kind === 'failed') return [...out, `Not collected: ${markdownText(lookup.reason)}`, ''];
  if (lookup.value.length === 0) return [...out, markdownText(absent), ''];
  for (const component of lookup.value) {
    const phase = asString(path(component.pod, 'status', 'phase')) ?? 'Unknown';
    const node = asString(path(component.pod, 'spec', 'nodeName'));
    out.push(`### ${markdownText(podRef(component.pod))} (${markdownText(phase)}${node ? ` on ${markdownText(node)}` : ''})`, '');
    for (const log of component.logs) pushAll(out, logBlock(log, input.tailLines, tally));
  }
  return out;
}

/** The node-only items from the node capture, or "not collected" with the command to run. */
function nodeOnlySections(input: HamiReportInput, nodeArg: string, tally: RedactionTally): string[] {
  const capture = input.nodeCapture;
  const facts = capture?.read.kind === 'read' ? capture.read.facts : undefined;
  const from = capture ? `From the node capture ${markdownText(capture.source)}` : '';
  const out: string[] = [];
  if (capture?.read.kind === 'invalid')
    out.push(`The node capture ${markdownText(capture.source)} was not used: ${markdownText(capture.read.reason)}.`, '');
  const inspect = `\`gpumem inspect --node ${markdownText(nodeArg)} --save node.capture\` (Inspect Node in VS Code) captures nvidia-smi's GPU and process tables, containerd's configuration and the kernel log from a short-lived debug pod; give the file to \`gpumem hami-report --node-capture\` to fill these items.`;
  if (facts?.nvidiaSmiGpus !== undefined || facts?.nvidiaDriver !== undefined) {
    out.push(
      '## nvidia-smi -a',
      '',
      `${from}: nvidia-smi's GPU query and the driver's version file (not \`nvidia-smi -a\` itself, which the probe does not run).`,
      '',
    );
    if (facts.nvidiaDriver !== undefined) out.push(markdownCodeBlock(tally.text(facts.nvidiaDriver.trim())), '');
    if (facts.nvidiaSmiGpus !== undefined) out.push(markdownCodeBlock(tally.text(facts.nvidiaSmiGpus.trim())), '');
  } else
    pushAll(
      out,
      notCollected('nvidia-smi -a', 'the Kubernetes API cannot run it (gpumem does not exec for this report).', ['nvidia-smi -a'], inspect),
    );
  if (facts && facts.containerdConfig.size > 0) {
    out.push('## Container runtime configuration', '', `${from}:`, '');
    for (const [file, text] of facts.containerdConfig)
      out.push(`### ${markdownText(file)}`, '', markdownCodeBlock(tally.text(text.trim())), '');
  } else
    pushAll(
      out,
      notCollected('Container runtime configuration', 'a file on the node.', [
        'cat /etc/containerd/config.toml   # or: containerd config dump',
        'cat /etc/docker/daemon.json        # Docker',
      ]),
    );
  pushAll(
    out,
    notCollected('Kubelet logs', 'the kubelet journal is on the node, not in the API.', [
      'sudo journalctl -r -u kubelet --no-pager | head -n 500',
    ]),
  );
  if (facts?.kernelLog) {
    out.push(
      '## Kernel output (dmesg)',
      '',
      `${from} (${markdownText(facts.kernelLog.source)}): its last ${facts.kernelLog.lines.length} lines about GPUs, drivers and OOM kills.`,
      '',
    );
    if (facts.kernelLog.lines.length > 0) out.push(markdownCodeBlock(tally.text(facts.kernelLog.lines.join('\n'))), '');
  } else
    pushAll(
      out,
      notCollected(
        'Kernel output (dmesg)',
        'the kernel log is on the node.',
        ["sudo dmesg -T | grep -iE 'nvrm|xid|nvidia|oom'"],
        `\`gpumem inspect --node ${markdownText(nodeArg)}\` reads the kernel log and explains its OOM kills.`,
      ),
    );
  return out;
}

function notCollected(heading: string, why: string, commands: readonly string[], alternative?: string): string[] {
  return [
    `## ${heading}`,
    '',
    `Not collected: ${why} Run on the node:`,
    '',
    markdownCodeBlock(commands.join('\n')),
    '',
    ...(alternative ? [alternative, ''] : []),
  ];
}

/** The bundle as Markdown, with the number of values the redactor replaced. Never throws. */
export function hamiIssueMarkdown(input: HamiReportInput): { markdown: string; redacted: number } {
  const tally = new RedactionTally();
  const ref = podRef(input.pod);
  const node = asString(path(input.pod, 'spec', 'nodeName'));
  const nodeArg = node ?? 'NODE';
  const pod = podSection(input.pod);
  const podYaml = tally.text(pod.yaml);
  tally.add(pod.envValuesHidden);
  const body = [
    ...environment(input, tally),
    '## Pod manifest (trimmed)',
    '',
    `Resources, env names and HAMi annotations of ${markdownText(ref)}; env values are kept only for HAMi, CUDA and NVIDIA variables${pod.annotationsLeftOut > 0 ? `, and ${pod.annotationsLeftOut} other annotation${pod.annotationsLeftOut === 1 ? ' is' : 's are'} left out` : ''}.`,
    '',
    markdownCodeBlock(podYaml.replace(/\n$/, '')),
    '',
    ...eventsSection(input, tally),
    ...nodeSection(input, tally),
    ...componentSection(
      'HAMi device-plugin logs',
      input.devicePlugins,
      node === undefined
        ? 'the pod is not scheduled to a node.'
        : `no HAMi device-plugin pod (label app.kubernetes.io/component=hami-device-plugin) on node ${node}.`,
      input,
      tally,
    ),
    ...componentSection(
      'HAMi scheduler logs',
      input.schedulers,
      'no HAMi scheduler pod (label app.kubernetes.io/component=hami-scheduler) in any namespace.',
      input,
      tally,
    ),
    ...nodeOnlySections(input, nodeArg, tally),
  ];
  const head = [
    `# HAMi issue bundle: pod ${markdownText(ref)}`,
    '',
    `Collected by gpumem ${markdownText(input.toolVersion)} from the Kubernetes API of context ${markdownText(input.context)} at ${markdownText(input.collectedAt)}: reads only (no exec, no write).`,
    '',
    `**Redacted ${tally.count} value${tally.count === 1 ? '' : 's'}** (tokens, keys, passwords, PEM blocks, and env values outside the HAMi, CUDA and NVIDIA variables). Read it before posting: HAMi's template asks to remove credentials, tokens, registry secrets and private image names.`,
    '',
  ];
  return { markdown: `${[...head, ...body].join('\n')}\n`, redacted: tally.count };
}
