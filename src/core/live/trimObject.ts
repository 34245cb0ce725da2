// What the editor's live cache keeps of an API object: only the fields the matching (ownerReferences, selectors,
// revisions), the rows (the pod template's containers and resources) and the pod lines (node, last terminations,
// HAMi annotations) read. A Deployment as the API returns it carries managedFields, the last-applied annotation and
// a status several times larger than this; 500 workloads with their ReplicaSets and pods must fit in a few MiB.
// Values come out as plain JSON (client-node's Dates as RFC 3339 text). Pure.
import { asArray, asRecord, asString, asTime, path } from '../kube/json.ts';
import { kindKey } from '../manifest/workloads.ts';
import { atPath, isMultiTemplateLiveKind, templateSlots } from '../rightsizing/podTemplates.ts';

type Json = Record<string, unknown>;

const DROPPED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);
/** Kinds that only carry pods for a parent (by kindKey: not Volcano's Job): without a controller they are workloads of their own. */
const INTERMEDIATE = new Set(['ReplicaSet', 'Job']);

function strings(value: unknown, drop?: ReadonlySet<string>): Json | undefined {
  const record = asRecord(value);
  if (!record) return undefined;
  const out: Json = {};
  for (const [key, one] of Object.entries(record)) if (typeof one === 'string' && !drop?.has(key)) out[key] = one;
  return Object.keys(out).length > 0 ? out : undefined;
}

function defined(entries: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}

function metadataOf(object: unknown): Json {
  const meta = path(object, 'metadata');
  return defined({
    name: asString(path(meta, 'name')),
    namespace: asString(path(meta, 'namespace')),
    uid: asString(path(meta, 'uid')),
    resourceVersion: asString(path(meta, 'resourceVersion')),
    labels: strings(path(meta, 'labels')),
    annotations: strings(path(meta, 'annotations'), DROPPED_ANNOTATIONS),
    ownerReferences: asArray(path(meta, 'ownerReferences')).map((ref) =>
      defined({
        apiVersion: asString(path(ref, 'apiVersion')),
        kind: asString(path(ref, 'kind')),
        name: asString(path(ref, 'name')),
        uid: asString(path(ref, 'uid')),
        controller: path(ref, 'controller') === true ? true : undefined,
      }),
    ),
  });
}

function containersOf(value: unknown): Json[] {
  return asArray(value).map((container) =>
    defined({
      name: asString(path(container, 'name')),
      resources: defined({
        requests: strings(path(container, 'resources', 'requests')),
        limits: strings(path(container, 'resources', 'limits')),
      }),
      // Literal values only (HAMi's variables are literal); valueFrom is resolved by the kubelet, not here.
      env: asArray(path(container, 'env'))
        .filter((one) => typeof path(one, 'value') === 'string')
        .map((one) => ({ name: asString(path(one, 'name')) ?? '', value: asString(path(one, 'value')) ?? '' })),
    }),
  );
}

function podTemplateOf(template: unknown): Json | undefined {
  if (template === undefined) return undefined;
  return {
    metadata: defined({
      labels: strings(path(template, 'metadata', 'labels')),
      annotations: strings(path(template, 'metadata', 'annotations')),
    }),
    spec: defined({
      containers: containersOf(path(template, 'spec', 'containers')),
      initContainers:
        asArray(path(template, 'spec', 'initContainers')).length > 0 ? containersOf(path(template, 'spec', 'initContainers')) : undefined,
      nodeSelector: strings(path(template, 'spec', 'nodeSelector')),
      runtimeClassName: asString(path(template, 'spec', 'runtimeClassName')),
    }),
  };
}

/** A workload (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob) as the cache keeps it. */
export function trimWorkload(object: unknown, kind: string, apiVersion: string): Json {
  const spec = path(object, 'spec');
  const controlled = asArray(path(object, 'metadata', 'ownerReferences')).some((ref) => path(ref, 'controller') === true);
  // A ReplicaSet or Job with a controller only links pods to it: its template is its parent's, never judged.
  const keepTemplate = !(INTERMEDIATE.has(kindKey(kind, apiVersion)) && controlled);
  const jobSpec = path(spec, 'jobTemplate', 'spec');
  if (keepTemplate && isMultiTemplateLiveKind(kind, apiVersion)) return trimMultiTemplate(object, kind, apiVersion);
  return {
    apiVersion,
    kind,
    metadata: metadataOf(object),
    spec: defined({
      replicas: typeof path(spec, 'replicas') === 'number' ? path(spec, 'replicas') : undefined,
      selector: path(spec, 'selector') === undefined ? undefined : JSON.parse(JSON.stringify(path(spec, 'selector'))),
      template: keepTemplate ? podTemplateOf(path(spec, 'template')) : undefined,
      jobTemplate: jobSpec === undefined ? undefined : { spec: defined({ template: podTemplateOf(path(jobSpec, 'template')) }) },
    }),
  };
}

/**
 * A kind with several templates (RayCluster, LeaderWorkerSet…): each template kept at its place, with the names of
 * the list items on the way (a worker group's groupName), which the templates' roles are made of.
 */
function trimMultiTemplate(object: unknown, kind: string, apiVersion: string): Json {
  const out: Json = { apiVersion, kind, metadata: metadataOf(object) };
  const slots = templateSlots(kind, apiVersion, object);
  for (const slot of slots.kind === 'slots' ? slots.slots : []) {
    let holder: Record<string | number, unknown> = out;
    let source: unknown = object;
    slot.path.forEach((step, depth) => {
      // A list keeps every item before this one (their names at least), so indexes and roles stay as the API's.
      if (typeof step === 'number' && Array.isArray(holder))
        for (let index = 0; index < step; index++) holder[index] ??= namesOf(atPath(source, [index]));
      source = atPath(source, [step]);
      const last = depth === slot.path.length - 1;
      if (last) {
        holder[step] = podTemplateOf(source);
        return;
      }
      const nextIsIndex = typeof slot.path[depth + 1] === 'number';
      const existing = holder[step];
      const child = (existing ?? (nextIsIndex ? [] : typeof step === 'number' ? namesOf(source) : {})) as Record<string | number, unknown>;
      holder[step] = child;
      holder = child;
    });
  }
  return out;
}

/** A list item's `groupName` and `name` (a worker group's role is made of them). */
function namesOf(item: unknown): Json {
  return defined({ groupName: asString(path(item, 'groupName')), name: asString(path(item, 'name')) });
}

function terminatedOf(state: unknown): Json | undefined {
  const terminated = path(state, 'terminated');
  if (terminated === undefined) return undefined;
  return { terminated: defined({ reason: asString(path(terminated, 'reason')), finishedAt: asTime(path(terminated, 'finishedAt')) }) };
}

/** A pod as the cache keeps it: owners, labels, node, container names, the terminations the API reports. */
export function trimPod(object: unknown): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: metadataOf(object),
    spec: defined({
      nodeName: asString(path(object, 'spec', 'nodeName')),
      containers: asArray(path(object, 'spec', 'containers')).map((one) => ({ name: asString(path(one, 'name')) ?? '' })),
    }),
    status: defined({
      phase: asString(path(object, 'status', 'phase')),
      containerStatuses: asArray(path(object, 'status', 'containerStatuses')).map((status) =>
        defined({
          name: asString(path(status, 'name')),
          restartCount: typeof path(status, 'restartCount') === 'number' ? path(status, 'restartCount') : undefined,
          state: terminatedOf(path(status, 'state')),
          lastState: terminatedOf(path(status, 'lastState')),
        }),
      ),
    }),
  };
}
