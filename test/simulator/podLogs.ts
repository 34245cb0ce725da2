// GET /api/v1/namespaces/{ns}/pods/{name}/log as the API server answers it (it proxies the kubelet's
// containerLogs; pkg/registry/core/pod/rest/log.go and pkg/kubelet/server): text/plain, `container` required
// when the pod has several, `tailLines` (the last N lines), `limitBytes` (the first N bytes of what is left),
// `previous` (the last terminated instance), and the 400s of kubelet/apiserver for a container that is not in
// the pod, is waiting to start or has no previous instance. The text comes from the fixtures' `PodLog`
// documents (test/simulator/fixtures.ts) or setPodLog().
import type { Json, KubeObject } from './objects.ts';
import type { StatusBody } from './status.ts';
import { badRequest } from './status.ts';

/** `namespace/pod/container`, with `#previous` for the last terminated instance. */
export function podLogKey(namespace: string, pod: string, container: string, previous = false): string {
  return `${namespace}/${pod}/${container}${previous ? '#previous' : ''}`;
}

export type PodLogAnswer = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'status'; readonly status: StatusBody };

function positiveInteger(value: string | null, name: string): number | undefined | StatusBody {
  if (value === null) return undefined;
  if (!/^\d{1,15}$/.test(value)) return badRequest(`${name}: Invalid value: "${value}": must be a non-negative integer`);
  return Number(value);
}

function containerState(pod: KubeObject, container: string): Json | undefined {
  const statuses = ((pod['status'] as Json | undefined)?.['containerStatuses'] ?? []) as Json[];
  return statuses.find((s) => s['name'] === container);
}

/** The answer to one log request for `pod` (found), given the stored logs. */
export function podLogAnswer(pod: KubeObject, query: URLSearchParams, logs: ReadonlyMap<string, string>): PodLogAnswer {
  const namespace = pod.metadata.namespace ?? 'default';
  const name = pod.metadata.name as string;
  const spec = (pod['spec'] ?? {}) as Json;
  const names = [...((spec['containers'] ?? []) as Json[]), ...((spec['initContainers'] ?? []) as Json[])].map((c) => String(c['name']));
  let container = query.get('container') ?? '';
  if (container === '') {
    const app = ((spec['containers'] ?? []) as Json[]).map((c) => String(c['name']));
    if (app.length !== 1)
      return {
        kind: 'status',
        status: badRequest(`a container name must be specified for pod ${name}, choose one of: [${app.join(' ')}]`),
      };
    container = app[0] as string;
  }
  if (!names.includes(container)) return { kind: 'status', status: badRequest(`container ${container} is not valid for pod ${name}`) };
  const tailLines = positiveInteger(query.get('tailLines'), 'tailLines');
  const limitBytes = positiveInteger(query.get('limitBytes'), 'limitBytes');
  if (typeof tailLines === 'object') return { kind: 'status', status: tailLines };
  if (typeof limitBytes === 'object') return { kind: 'status', status: limitBytes };
  if (limitBytes === 0) return { kind: 'status', status: badRequest('limitBytes: Invalid value: 0: must be greater than 0') };
  const previous = query.get('previous') === 'true';
  const state = containerState(pod, container);
  const waiting = (state?.['state'] as Json | undefined)?.['waiting'] as Json | undefined;
  if (previous) {
    const text = logs.get(podLogKey(namespace, name, container, true));
    if (text === undefined)
      return { kind: 'status', status: badRequest(`previous terminated container "${container}" in pod "${name}" not found`) };
    return { kind: 'text', text: cut(text, tailLines, limitBytes) };
  }
  if (waiting && waiting['reason'] !== 'CrashLoopBackOff')
    return {
      kind: 'status',
      status: badRequest(
        `container "${container}" in pod "${name}" is waiting to start: ${String(waiting['reason'] ?? 'ContainerCreating')}`,
      ),
    };
  return { kind: 'text', text: cut(logs.get(podLogKey(namespace, name, container)) ?? '', tailLines, limitBytes) };
}

/** The last `tailLines` lines, then at most `limitBytes` bytes of them (as the kubelet applies them). */
function cut(text: string, tailLines: number | undefined, limitBytes: number | undefined): string {
  let out = text;
  if (tailLines !== undefined) {
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    out = tailLines === 0 ? '' : `${lines.slice(-tailLines).join('\n')}\n`;
    if (lines.length === 0) out = '';
  }
  if (limitBytes !== undefined) {
    const bytes = Buffer.from(out, 'utf8');
    if (bytes.length > limitBytes) out = bytes.subarray(0, limitBytes).toString('utf8');
  }
  return out;
}
