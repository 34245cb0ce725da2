// Report sections that only the Kubernetes side can write: the node's SystemOOM events next to the kernel
// log's OOM kills ("Explain OOM Kills on Node"), and the HAMi cluster checks of "Run HAMi Checklist on Pod"
// (device-plugin pod on the node, scheduler, the pod's scheduler, annotations, runtime class, privileged,
// env). Every value from the cluster is escaped with markdownText() / markdownCodeBlock().
import { pushAll } from '../arrays.ts';
import type { NodeMemoryEvent } from '../kube/events.ts';
import type { GpuPodSummary } from '../kube/pods.ts';
import { markdownCodeBlock, markdownText } from '../text/escape.ts';

/** The kubelet's memory events about the node (SystemOOM = a global OOM kill the kubelet saw). */
export function nodeEventsMarkdown(node: string, events: readonly NodeMemoryEvent[], note?: string): string {
  const out = ['## Node events (Kubernetes API)', ''];
  if (note) out.push(markdownText(note), '');
  if (events.length === 0) {
    out.push(
      `No SystemOOM, OOMKilling or memory-eviction events about node ${markdownText(node)} (the API server keeps events for about an hour by default).`,
      '',
    );
    return `${out.join('\n')}\n`;
  }
  out.push(
    'The kubelet records `SystemOOM` for every kill by the **global** OOM killer (the node ran out of memory; a pod hitting its own cgroup limit is a memory-cgroup kill, not a SystemOOM). Compare the victims with the kernel log above.',
    '',
    '| Last seen | Reason | Count | Victim | Message |',
    '| --- | --- | --- | --- | --- |',
  );
  for (const event of events) {
    const victim =
      event.victim !== undefined ? `${markdownText(event.victim)}${event.pid !== undefined ? ` (pid ${event.pid})` : ''}` : '—';
    out.push(
      `| ${markdownText(event.lastTime ?? '—')} | ${markdownText(event.kind)} | ${event.count} | ${victim} | ${markdownText(event.message)} |`,
    );
  }
  out.push('');
  return `${out.join('\n')}\n`;
}

export interface HamiClusterSection {
  readonly node: string | undefined;
  /** Device-plugin pods on the pod's node (label app.kubernetes.io/component=hami-device-plugin). */
  readonly devicePluginPods: readonly { readonly name: string; readonly phase: string; readonly ready?: boolean }[] | undefined;
  /** HAMi scheduler pods anywhere (label app.kubernetes.io/component=hami-scheduler); undefined when they could not be listed. */
  readonly schedulerPods: readonly { readonly namespace: string; readonly name: string; readonly phase: string }[] | undefined;
  readonly pod: GpuPodSummary;
  readonly container: string | undefined;
  /** The container's literal env from the spec (valueFrom not resolved). */
  readonly env: Readonly<Record<string, string>>;
  readonly hamiVersion: string | undefined;
  /** The pod carries HAMi annotations, HAMi's scheduler or a HAMi-only resource. */
  readonly managed?: boolean;
  /** Lookups that failed (RBAC…), explained. */
  readonly problems: readonly string[];
}

const ENV_OF_INTEREST =
  /^(CUDA_DISABLE_CONTROL|CUDA_DEVICE_MEMORY_LIMIT(_\d+)?|CUDA_DEVICE_SM_LIMIT|CUDA_DEVICE_MEMORY_SHARED_CACHE|CUDA_OVERSUBSCRIBE|GPU_CORE_UTILIZATION_POLICY|LIBCUDA_LOG_LEVEL|NVIDIA_VISIBLE_DEVICES|LD_PRELOAD|DOCKER_HOST)$/;

/** The cluster-side HAMi checks, as a Markdown section appended to the container report. */
export function hamiClusterMarkdown(section: HamiClusterSection): string {
  const { pod } = section;
  const ok = '✅';
  const bad = '❌';
  const unknown = '❔';
  const rows: string[] = [];
  const plugins = section.devicePluginPods;
  if (plugins === undefined) rows.push(`| ${unknown} | HAMi device plugin on ${markdownText(section.node ?? '?')} | could not be listed |`);
  else if (plugins.length === 0)
    rows.push(
      `| ${bad} | HAMi device plugin on ${markdownText(section.node ?? '?')} | no pod labelled app.kubernetes.io/component=hami-device-plugin runs on this node: nothing mounts libvgpu.so into new containers |`,
    );
  else {
    for (const plugin of plugins) {
      const healthy = plugin.phase === 'Running' && plugin.ready !== false;
      rows.push(
        `| ${healthy ? ok : bad} | HAMi device plugin on ${markdownText(section.node ?? '?')} | ${markdownText(plugin.name)}: ${markdownText(plugin.phase)}${plugin.ready === false ? ', not ready' : plugin.ready ? ', ready' : ''} |`,
      );
    }
  }
  const schedulers = section.schedulerPods;
  if (schedulers === undefined) rows.push(`| ${unknown} | HAMi scheduler | could not be listed |`);
  else if (schedulers.length === 0)
    rows.push(`| ${bad} | HAMi scheduler | no pod labelled app.kubernetes.io/component=hami-scheduler in any namespace |`);
  else
    rows.push(
      `| ${schedulers.some((s) => s.phase === 'Running') ? ok : bad} | HAMi scheduler | ${schedulers.map((s) => `${markdownText(s.namespace)}/${markdownText(s.name)} (${markdownText(s.phase)})`).join(', ')} |`,
    );
  const scheduler = pod.schedulerName ?? 'default-scheduler';
  rows.push(
    `| ${/hami/i.test(scheduler) ? ok : unknown} | Pod's scheduler | ${markdownText(scheduler)}${/hami/i.test(scheduler) ? '' : " (HAMi's webhook normally sets hami-scheduler on GPU pods)"} |`,
  );
  const bind = pod.hami?.bindPhase;
  rows.push(
    `| ${bind === 'success' ? ok : bind === undefined ? unknown : bad} | hami.io/bind-phase | ${markdownText(bind ?? 'absent (HAMi did not schedule this pod)')} |`,
  );
  const allocated = [...(pod.hami?.allocated ?? []), ...(pod.hami?.amdAllocated ?? [])].flatMap((entry) => entry.devices);
  rows.push(
    `| ${allocated.length > 0 ? ok : unknown} | Allocated devices | ${allocated.length > 0 ? allocated.map((d) => `${markdownText(d.uuid)} ${d.usedMemMiB} MiB ${d.usedCores}%`).join(', ') : 'none in hami.io/vgpu-devices-allocated'} |`,
  );
  rows.push(
    `| ${pod.runtimeClassName ? unknown : ok} | runtimeClassName | ${pod.runtimeClassName ? `${markdownText(pod.runtimeClassName)}: check that this runtime is the NVIDIA runtime (gVisor and Kata bypass HAMi-core)` : "none (the node's default runtime)"} |`,
  );
  rows.push(
    `| ${pod.privilegedContainers.length > 0 ? bad : ok} | Privileged | ${pod.privilegedContainers.length > 0 ? `${markdownText(pod.privilegedContainers.join(', '))}: a privileged container sees every GPU device` : 'no privileged container'} |`,
  );
  const disable = section.env['CUDA_DISABLE_CONTROL'];
  rows.push(
    `| ${disable !== undefined && /^(1|t|true)$/i.test(disable.trim()) ? bad : ok} | CUDA_DISABLE_CONTROL in the spec | ${disable === undefined ? 'not set' : `${markdownText(disable)}: HAMi skips the ld.so.preload mount`} |`,
  );

  const out = [
    '## HAMi cluster checks (Kubernetes API)',
    '',
    `Pod ${markdownText(pod.namespace)}/${markdownText(pod.name)}${section.container ? `, container ${markdownText(section.container)}` : ''}${section.node ? ` on ${markdownText(section.node)}` : ''}${section.hamiVersion ? `; HAMi ${markdownText(section.hamiVersion)}` : ''}.`,
    '',
    ...(section.managed === false
      ? [
          '**HAMi does not manage this pod:** it has no hami.io annotation, does not use the HAMi scheduler and requests no HAMi-only resource (nvidia.com/gpumem, gpucores…). The checks below show what HAMi would need.',
          '',
        ]
      : []),
    '| | Check | Finding |',
    '| --- | --- | --- |',
    ...rows,
    '',
  ];
  const env = Object.entries(section.env).filter(([key]) => ENV_OF_INTEREST.test(key));
  if (env.length > 0)
    out.push('Container env from the spec:', '', markdownCodeBlock(env.map(([key, value]) => `${key}=${value}`).join('\n')), '');
  if (pod.hami && pod.hami.raw.size > 0)
    out.push('HAMi annotations:', '', markdownCodeBlock([...pod.hami.raw].map(([key, value]) => `${key}: ${value}`).join('\n')), '');
  if (section.problems.length > 0)
    pushAll(
      out,
      section.problems.map((problem) => `- ${markdownText(problem)}`),
    ).push('');
  return `${out.join('\n')}\n`;
}

/** "v2.8.1" from an image such as `projecthami/hami:v2.8.1` (the device plugin's). */
export function imageTag(image: string | undefined): string | undefined {
  if (!image) return undefined;
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(colon + 1) : undefined;
}
