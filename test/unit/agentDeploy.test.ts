// The agent's deployment (deploy/agent, issue #12) checked with the real tools: kustomize (kubectl kustomize)
// renders the base and the overlays (events, nvidia, nvidia-events: the components under deploy/agent/components),
// every object is validated against the Kubernetes OpenAPI schema and the prometheus-operator CRD schemas, the
// DaemonSet is linted by gpumem's own linter, promtool checks and unit-tests the alerts, and every metric the rules,
// the dashboard and the scrape job use must exist in the agent's metric contract. Where kubectl or promtool is
// missing, the raw files are still checked and only the assertions that need the tool are skipped, with the reason.
//
// Schemas: kubernetes-models (compiled ajv validators of the Kubernetes OpenAPI schema: core v1, apps/v1, rbac,
// networking) and @kubernetes-models/prometheus-operator (the operator's CRD schemas), one maintained monorepo
// (tommy351/kubernetes-models-ts). The devDependency is the operator package; kubernetes-models is its declared
// dependency. Kubernetes' schemas accept unknown fields (the API server prunes or rejects them per request), so
// the built-in kinds are also walked against @kubernetes/client-node's model field lists: a misspelt field fails.
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import type { IClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { METRIC_FAMILIES } from '../../src/core/agent/metricContract.ts';
import { severityRank } from '../../src/core/findings.ts';
import { lintText } from '../../src/core/lint.ts';
import { PROBE_APPLETS } from '../helpers/fixtureRoot.ts';
import { IMAGE_NODE_FLAGS } from '../helpers/agentProcess.ts';
import { IMAGE as IMAGE_REFERENCE, IMAGE_APPLETS, VERSION as IMAGE_VERSION } from '../../scripts/agent-image.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AGENT = join(ROOT, 'deploy/agent');
const BASE = join(AGENT, 'base');
const EVENTS = join(AGENT, 'overlays/events');
const NVIDIA = join(AGENT, 'overlays/nvidia');
const NVIDIA_EVENTS = join(AGENT, 'overlays/nvidia-events');
const EVENTS_COMPONENT = join(AGENT, 'components/events');
const NVIDIA_COMPONENT = join(AGENT, 'components/nvidia');
const RULES = join(AGENT, 'prometheus/rules.yaml');
const RULES_TEST = join(AGENT, 'prometheus/rules.test.yaml');
const RIGHTSIZING_RULES = join(AGENT, 'prometheus/rightsizing-rules.yaml');
const RIGHTSIZING_RULES_TEST = join(AGENT, 'prometheus/rightsizing-rules.test.yaml');
const SCRAPE_JOB = join(AGENT, 'prometheus/scrape-job.yaml');
const DASHBOARD = join(AGENT, 'grafana/gpumem-dashboard.json');
const NETWORK_POLICY = join(AGENT, 'examples/networkpolicy.yaml');
const DOCS = join(ROOT, 'docs/agent-deploy.md');
const IMAGE = 'ghcr.io/gpumem/gpumem-agent';
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly [field: string]: unknown;
}

const read = (path: string) => readFileSync(path, 'utf8');

function parseObjects(text: string, where: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    assert.deepEqual(doc.errors, [], `${where}: YAML errors`);
    const value = doc.toJS() as KubeObject | null;
    if (value !== null) out.push(value);
  }
  return out;
}

/** The tool's path when it runs, else undefined (the tests that need it skip with the reason). */
function tool(name: string, args: readonly string[]): string | undefined {
  const result = spawnSync(name, args, { encoding: 'utf8' });
  return result.error || result.status !== 0 ? undefined : name;
}
const KUBECTL = tool('kubectl', ['version', '--client']);
const PROMTOOL = tool('promtool', ['--version']);
const NO_KUBECTL = 'kubectl is not on PATH: the kustomize render is not checked (the raw files are)';
const NO_PROMTOOL = 'promtool is not on PATH (Debian: apt-get install prometheus): the rules are not run';

function render(dir: string): KubeObject[] {
  assert.ok(KUBECTL);
  return parseObjects(execFileSync(KUBECTL, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }), dir);
}

interface Kustomization {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly resources?: readonly string[];
  readonly components?: readonly string[];
  readonly labels?: readonly { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  readonly images?: readonly { name: string; newTag?: string }[];
  readonly configMapGenerator?: readonly {
    name: string;
    files: readonly string[];
    options?: { labels?: Record<string, string>; disableNameSuffixHash?: boolean };
  }[];
  readonly commonLabels?: unknown;
  readonly namespace?: string;
  readonly patches?: readonly { target: Record<string, string>; patch: string }[];
}
const kustomization = (dir: string) => parseYaml(read(join(dir, 'kustomization.yaml'))) as Kustomization;

/** The base's objects as written (what kustomize starts from): its resources and the dashboard ConfigMap. */
function rawBase(): KubeObject[] {
  const base = kustomization(BASE);
  const objects = (base.resources ?? []).flatMap((file) => parseObjects(read(join(BASE, file)), file));
  for (const component of base.components ?? []) {
    const dir = join(BASE, component);
    for (const generator of kustomization(dir).configMapGenerator ?? []) {
      const data: Record<string, string> = {};
      for (const file of generator.files) data[file] = read(join(dir, file));
      objects.push({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: generator.name, namespace: base.namespace, labels: { ...generator.options?.labels } },
        data,
      });
    }
  }
  return objects;
}

function find<T>(objects: readonly KubeObject[], kind: string, name?: string): T {
  const found = objects.filter((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
  assert.equal(found.length, 1, `exactly one ${kind}${name ? ` ${name}` : ''}`);
  return found[0] as T;
}

// --- Schema validation -------------------------------------------------------------------------------------------

/** The schema validator of each kind, and its @kubernetes/client-node model for the unknown-field walk. */
const SCHEMAS: Record<string, { readonly check: (data: never) => void; readonly clientNode?: string }> = {
  'v1/Namespace': { check: (data) => new Namespace(data).validate(), clientNode: 'V1Namespace' },
  'v1/ServiceAccount': { check: (data) => new ServiceAccount(data).validate(), clientNode: 'V1ServiceAccount' },
  'v1/Service': { check: (data) => new Service(data).validate(), clientNode: 'V1Service' },
  'v1/ConfigMap': { check: (data) => new ConfigMap(data).validate(), clientNode: 'V1ConfigMap' },
  'apps/v1/DaemonSet': { check: (data) => new DaemonSet(data).validate(), clientNode: 'V1DaemonSet' },
  'rbac.authorization.k8s.io/v1/ClusterRole': { check: (data) => new ClusterRole(data).validate(), clientNode: 'V1ClusterRole' },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': {
    check: (data) => new ClusterRoleBinding(data).validate(),
    clientNode: 'V1ClusterRoleBinding',
  },
  'networking.k8s.io/v1/NetworkPolicy': { check: (data) => new NetworkPolicy(data).validate(), clientNode: 'V1NetworkPolicy' },
  'monitoring.coreos.com/v1/PodMonitor': { check: (data) => new PodMonitor(data).validate() },
  'monitoring.coreos.com/v1/PrometheusRule': { check: (data) => new PrometheusRule(data).validate() },
};

type AttributeMap = readonly { readonly baseName: string; readonly type: string }[];
const CLIENT_MODELS = k8s as unknown as Record<string, { getAttributeTypeMap?: () => AttributeMap } | undefined>;

/** Every field of `value` must be one @kubernetes/client-node's model `type` knows, recursively. */
function unknownFields(value: unknown, type: string, path: string, out: string[]): string[] {
  const element = /^Array<(.+)>$/.exec(type)?.[1];
  if (element !== undefined) {
    if (Array.isArray(value)) value.forEach((item, i) => unknownFields(item, element, `${path}[${i}]`, out));
    return out;
  }
  const fields = CLIENT_MODELS[type]?.getAttributeTypeMap?.();
  if (!fields || typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [key, child] of Object.entries(value)) {
    const field = fields.find((candidate) => candidate.baseName === key);
    if (!field) out.push(`${path}.${key}`);
    else unknownFields(child, field.type, `${path}.${key}`, out);
  }
  return out;
}

function validate(object: KubeObject, where: string): void {
  const key = `${object.apiVersion}/${object.kind}`;
  const schema = SCHEMAS[key];
  assert.ok(schema, `${where}: ${key} has no schema here; add its model to SCHEMAS`);
  try {
    schema.check(object as never);
  } catch (error) {
    assert.fail(`${where}: ${key} ${object.metadata.name} does not match its schema: ${(error as Error).message}`);
  }
  if (schema.clientNode) {
    assert.deepEqual(
      unknownFields(object, schema.clientNode, object.kind, []),
      [],
      `${where}: ${key} ${object.metadata.name}: unknown fields`,
    );
  }
}

// --- The security and scheduling contract ----------------------------------------------------------------------

const BASE_RULES = [{ apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }];
const EVENT_RULES = [
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];
const BASE_ARGS = ['--listen', '0.0.0.0:9400', '--host-root', '/host', '--node-name', '$(NODE_NAME)'];
// NODE_OPTIONS and MALLOC_ARENA_MAX: the heap cap, young generation and malloc arenas bench/agent.mjs sized the memory
// request with (its memory run has the same environment).
const BASE_ENV = [
  { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
  { name: 'NODE_OPTIONS', value: '--max-old-space-size=160 --max-semi-space-size=2 --expose-gc' },
  { name: 'MALLOC_ARENA_MAX', value: '2' },
];
/** What the NVIDIA Container Toolkit needs to inject nvidia-smi and NVML (deploy/agent/components/nvidia). */
const NVIDIA_ENV = [
  { name: 'NVIDIA_VISIBLE_DEVICES', value: 'all' },
  { name: 'NVIDIA_DRIVER_CAPABILITIES', value: 'utility' },
];

interface Variant {
  readonly rendered: boolean;
  readonly events: boolean;
  readonly nvidia?: boolean;
}

function checkObjects(objects: readonly KubeObject[], where: string, options: Variant): void {
  for (const object of objects) validate(object, where);
  const kinds = objects.map((object) => `${object.kind}/${object.metadata.name}`).sort();
  assert.deepEqual(kinds, [
    'ClusterRole/gpumem-agent',
    'ClusterRoleBinding/gpumem-agent',
    'ConfigMap/gpumem-agent-dashboard',
    'DaemonSet/gpumem-agent',
    'Namespace/gpumem-system',
    'PodMonitor/gpumem-agent',
    'PrometheusRule/gpumem-agent',
    'PrometheusRule/gpumem-rightsizing',
    'Service/gpumem-agent',
    'ServiceAccount/gpumem-agent',
  ]);
  for (const object of objects) {
    const namespaced = !['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(object.kind);
    assert.equal(object.metadata.namespace, namespaced ? 'gpumem-system' : undefined, `${where}: ${object.kind} namespace`);
    if (options.rendered) {
      assert.equal(object.metadata.labels?.['app.kubernetes.io/name'], 'gpumem-agent', `${where}: ${object.kind} name label`);
      assert.equal(object.metadata.labels?.['app.kubernetes.io/part-of'], 'gpumem', `${where}: ${object.kind} part-of label`);
    }
  }

  const role = find<IClusterRole>(objects, 'ClusterRole', 'gpumem-agent');
  assert.deepEqual(role.rules, options.events ? [...BASE_RULES, ...EVENT_RULES] : BASE_RULES, `${where}: ClusterRole rules`);
  const binding = find<{ roleRef: unknown; subjects: unknown }>(objects, 'ClusterRoleBinding', 'gpumem-agent');
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gpumem-agent' });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'gpumem-agent', namespace: 'gpumem-system' }]);

  const daemonSet = find<IDaemonSet>(objects, 'DaemonSet', 'gpumem-agent');
  const pod = daemonSet.spec?.template.spec;
  assert.ok(pod, `${where}: the DaemonSet has a pod spec`);
  assert.deepEqual(daemonSet.spec?.selector.matchLabels, { 'app.kubernetes.io/name': 'gpumem-agent' }, 'the selector stays as written');
  assert.equal(pod.hostPID, true);
  assert.equal(pod.serviceAccountName, 'gpumem-agent');
  assert.equal(pod.automountServiceAccountToken, true);
  assert.equal(pod.priorityClassName, 'system-node-critical');
  assert.equal(pod.hostNetwork, undefined, 'no hostNetwork');
  assert.equal(pod.initContainers, undefined);
  assert.equal(pod.containers.length, 1);
  const container = pod.containers[0]!;
  assert.equal(container.image, `${IMAGE}:${VERSION}`, 'the image tag is package.json version');
  assert.equal(container.command, undefined, "the image's entrypoint runs `node /app/dist/cli.js agent`");
  assert.deepEqual(container.args, options.events ? [...BASE_ARGS, '--events'] : BASE_ARGS);
  assert.deepEqual(container.env, options.nvidia ? [...BASE_ENV, ...NVIDIA_ENV] : BASE_ENV);
  assert.equal(pod.runtimeClassName, options.nvidia ? 'nvidia' : undefined, `${where}: runtimeClassName`);
  assert.deepEqual(container.ports, [{ name: 'metrics', containerPort: 9400, protocol: 'TCP' }]);
  assert.deepEqual(container.livenessProbe?.httpGet, { path: '/healthz', port: 'metrics' });
  assert.deepEqual(container.readinessProbe?.httpGet, { path: '/readyz', port: 'metrics' });
  assert.ok(container.resources?.requests?.cpu && container.resources.requests.memory && container.resources.limits?.memory);
  // No extended resource (nvidia.com/gpu, amd.com/gpu…): the agent must not take a GPU from the scheduler.
  assert.deepEqual(Object.keys(container.resources.requests).sort(), ['cpu', 'memory'], `${where}: requests`);
  assert.deepEqual(Object.keys(container.resources.limits).sort(), ['memory'], `${where}: limits`);

  const security = container.securityContext;
  assert.ok(security, 'a container securityContext');
  assert.equal(security.privileged, false);
  assert.equal(security.allowPrivilegeEscalation, false);
  assert.equal(security.readOnlyRootFilesystem, true);
  assert.equal(security.runAsUser, 0);
  assert.deepEqual(security.capabilities, { drop: ['ALL'], add: ['SYS_PTRACE', 'SYSLOG'] });
  assert.deepEqual(security.seccompProfile, { type: 'RuntimeDefault' });

  assert.deepEqual(container.volumeMounts, [{ name: 'host-root', mountPath: '/host', readOnly: true, recursiveReadOnly: 'IfPossible' }]);
  assert.deepEqual(pod.volumes, [{ name: 'host-root', hostPath: { path: '/', type: 'Directory' } }], 'no volume but the host root');

  const terms = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const keys = terms.flatMap((term) => (term.matchExpressions ?? []).map((expression) => expression.key));
  for (const key of [
    'nvidia.com/gpu.present',
    'feature.node.kubernetes.io/pci-10de.present',
    'feature.node.kubernetes.io/pci-1002.present',
    'amd.com/gpu.device-id',
    'intel.feature.node.kubernetes.io/gpu',
    'gpumem.io/agent',
  ])
    assert.ok(keys.includes(key), `node affinity term on ${key}`);
  for (const term of terms) assert.equal(term.matchExpressions?.length, 1, 'one expression a term: the terms are ORed, each label alone');
  assert.deepEqual(
    pod.tolerations,
    ['nvidia.com/gpu', 'amd.com/gpu', 'gpu.intel.com/i915', 'gpu.intel.com/xe'].map((key) => ({ key, operator: 'Exists' })),
    'the GPU taints by key, and no catch-all toleration',
  );

  const service = find<{ spec: { clusterIP?: string; ports: unknown; selector: unknown } }>(objects, 'Service', 'gpumem-agent');
  assert.equal(service.spec.clusterIP, 'None');
  assert.deepEqual(service.spec.ports, [{ name: 'metrics', port: 9400, targetPort: 'metrics', protocol: 'TCP' }]);
  assert.deepEqual(service.spec.selector, { 'app.kubernetes.io/name': 'gpumem-agent' });

  const monitor = find<{ spec: { selector: unknown; podMetricsEndpoints: { port: string; interval: string; honorLabels: boolean }[] } }>(
    objects,
    'PodMonitor',
  );
  assert.deepEqual(monitor.spec.selector, { matchLabels: { 'app.kubernetes.io/name': 'gpumem-agent' } });
  assert.equal(monitor.spec.podMetricsEndpoints.length, 1);
  assert.equal(monitor.spec.podMetricsEndpoints[0]?.port, 'metrics');
  assert.equal(monitor.spec.podMetricsEndpoints[0]?.interval, '30s');
  assert.equal(monitor.spec.podMetricsEndpoints[0]?.honorLabels, true, "keeps the agent's namespace/pod labels");

  const rule = find<{ spec: { groups: unknown } }>(objects, 'PrometheusRule', 'gpumem-agent');
  assert.deepEqual(rule.spec.groups, rulesFile().groups, 'the PrometheusRule carries prometheus/rules.yaml groups unchanged');
  const recording = find<{ spec: { groups: unknown } }>(objects, 'PrometheusRule', 'gpumem-rightsizing');
  assert.deepEqual(
    recording.spec.groups,
    rightsizingRulesFile().groups,
    'the recording rules of prometheus/rightsizing-rules.yaml, unchanged',
  );

  const dashboard = find<{ metadata: { labels: Record<string, string> }; data: Record<string, string> }>(objects, 'ConfigMap');
  assert.equal(dashboard.metadata.labels.grafana_dashboard, '1');
  assert.deepEqual(Object.keys(dashboard.data), ['gpumem-dashboard.json']);
  assert.equal(dashboard.data['gpumem-dashboard.json'], read(DASHBOARD));

  // The linter's verdict on the workloads: nothing at warning or above.
  const text = objects.map((object) => JSON.stringify(object)).join('\n---\n');
  const findings = lintText(text).findings.filter((finding) => severityRank[finding.severity] >= severityRank.warning);
  assert.deepEqual(
    findings.map((finding) => `${finding.ruleId} (${finding.severity}): ${finding.message}`),
    [],
    `${where}: gpumem lint findings`,
  );
}

/** The rendered objects without what the events component adds (its two rules and `--events`). */
function undoEvents(objects: readonly KubeObject[]): KubeObject[] {
  const undone = objects.map((object) => structuredClone(object) as KubeObject & Record<string, unknown>);
  const role = find<{ rules: unknown[] }>(undone, 'ClusterRole');
  role.rules = role.rules.slice(0, BASE_RULES.length);
  const container = find<IDaemonSet>(undone, 'DaemonSet').spec?.template.spec?.containers[0];
  assert.ok(container?.args);
  container.args = container.args.filter((arg) => arg !== '--events');
  return undone;
}

/** The rendered objects without what the nvidia component adds (the two variables and runtimeClassName). */
function undoNvidia(objects: readonly KubeObject[]): KubeObject[] {
  const undone = objects.map((object) => structuredClone(object) as KubeObject & Record<string, unknown>);
  const pod = find<IDaemonSet>(undone, 'DaemonSet').spec?.template.spec;
  const container = pod?.containers[0];
  assert.ok(pod && container?.env);
  assert.deepEqual(container.env.slice(-NVIDIA_ENV.length), NVIDIA_ENV, 'the NVIDIA variables come last');
  container.env = container.env.slice(0, -NVIDIA_ENV.length);
  delete pod.runtimeClassName;
  return undone;
}

describe('deploy/agent manifests', () => {
  test('the base kustomization lists the resources, labels with `labels` and tags the image with the package version', () => {
    assert.deepEqual(kustomization(AGENT).resources, ['base']);
    const base = kustomization(BASE);
    assert.deepEqual(base.resources, [
      'namespace.yaml',
      'rbac.yaml',
      'daemonset.yaml',
      'service.yaml',
      'podmonitor.yaml',
      'prometheusrule.yaml',
      'prometheusrule-rightsizing.yaml',
    ]);
    assert.equal(base.commonLabels, undefined, 'commonLabels is deprecated');
    assert.deepEqual(base.labels?.[0]?.pairs, { 'app.kubernetes.io/name': 'gpumem-agent', 'app.kubernetes.io/part-of': 'gpumem' });
    assert.equal(base.labels?.[0]?.includeSelectors, false, "a DaemonSet's selector is immutable");
    assert.deepEqual(base.images, [{ name: IMAGE, newTag: VERSION }]);
    const generator = kustomization(join(BASE, '../grafana')).configMapGenerator?.[0];
    assert.deepEqual(generator?.options, { labels: { grafana_dashboard: '1' }, disableNameSuffixHash: true });
  });

  test('the raw resource files validate and hold the security properties', () => {
    checkObjects(rawBase(), 'deploy/agent/base (raw)', { rendered: false, events: false });
  });

  test('kubectl kustomize deploy/agent renders objects that validate and hold the security properties', (t: TestContext) => {
    if (!KUBECTL) return t.skip(NO_KUBECTL);
    checkObjects(render(AGENT), 'kubectl kustomize deploy/agent', { rendered: true, events: false });
  });

  test('the events overlay is the base with the events component, which adds only `--events` and create/patch on events', (t: TestContext) => {
    const overlay = kustomization(EVENTS);
    assert.deepEqual(overlay.resources, ['../../base']);
    assert.deepEqual(overlay.components, ['../../components/events']);
    const component = kustomization(EVENTS_COMPONENT);
    assert.equal(component.kind, 'Component');
    assert.deepEqual(
      component.patches?.map((patch) => patch.target.kind),
      ['ClusterRole', 'DaemonSet'],
    );
    if (!KUBECTL) return t.skip(NO_KUBECTL);
    const events = render(EVENTS);
    checkObjects(events, 'kubectl kustomize deploy/agent/overlays/events', { rendered: true, events: true });
    // Nothing else differs: undo the two additions and the objects are the base's.
    assert.deepEqual(undoEvents(events), render(AGENT));
  });

  test('the nvidia overlay is the base with the nvidia component, which adds only the two NVIDIA_* variables and runtimeClassName', (t: TestContext) => {
    const overlay = kustomization(NVIDIA);
    assert.deepEqual(overlay.resources, ['../../base']);
    assert.deepEqual(overlay.components, ['../../components/nvidia']);
    const component = kustomization(NVIDIA_COMPONENT);
    assert.equal(component.kind, 'Component');
    assert.deepEqual(
      component.patches?.map((patch) => patch.target.kind),
      ['DaemonSet'],
    );
    if (!KUBECTL) return t.skip(NO_KUBECTL);
    const nvidia = render(NVIDIA);
    checkObjects(nvidia, 'kubectl kustomize deploy/agent/overlays/nvidia', { rendered: true, events: false, nvidia: true });
    assert.deepEqual(undoNvidia(nvidia), render(AGENT));
  });

  test('the nvidia-events overlay composes both components and adds nothing else', (t: TestContext) => {
    const overlay = kustomization(NVIDIA_EVENTS);
    assert.deepEqual(overlay.resources, ['../../base']);
    assert.deepEqual(overlay.components, ['../../components/nvidia', '../../components/events']);
    if (!KUBECTL) return t.skip(NO_KUBECTL);
    const both = render(NVIDIA_EVENTS);
    checkObjects(both, 'kubectl kustomize deploy/agent/overlays/nvidia-events', { rendered: true, events: true, nvidia: true });
    assert.deepEqual(undoNvidia(undoEvents(both)), render(AGENT));
  });

  test('the NetworkPolicy example validates and admits only the monitoring namespace to TCP 9400', () => {
    const [policy, ...rest] = parseObjects(read(NETWORK_POLICY), 'examples/networkpolicy.yaml');
    assert.ok(policy);
    assert.equal(rest.length, 0);
    validate(policy, 'examples/networkpolicy.yaml');
    const spec = (policy as unknown as INetworkPolicy).spec;
    assert.equal(policy.metadata.namespace, 'gpumem-system');
    assert.deepEqual(spec?.podSelector, { matchLabels: { 'app.kubernetes.io/name': 'gpumem-agent' } });
    assert.deepEqual(spec?.policyTypes, ['Ingress']);
    assert.deepEqual(spec?.ingress, [
      {
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
        ports: [{ protocol: 'TCP', port: 9400 }],
      },
    ]);
    assert.ok(!kustomization(BASE).resources?.some((file) => file.includes('networkpolicy')), 'an example, not a resource');
  });

  test('the Dockerfile builds from the root scripts/agent-image.mjs stages and runs dist/cli.js agent under root', () => {
    const dockerfile = read(join(AGENT, 'Dockerfile'));
    // Nothing pulled: the staged root is the image (the pinned Node, its libraries, busybox, the CLI bundle).
    assert.deepEqual(dockerfile.match(/^FROM .*$/gm), ['FROM scratch']);
    assert.match(dockerfile, /^COPY \. \/$/m);
    assert.match(dockerfile, /^USER 0$/m);
    // The image runs the agent as the integration tests start it (test/helpers/agentProcess.ts).
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1] ?? assert.fail('an ENTRYPOINT in exec form');
    assert.deepEqual(JSON.parse(entrypoint), ['/nodejs/bin/node', ...IMAGE_NODE_FLAGS, '/app/dist/cli.js', 'agent']);
    // The image's busybox applets are those the probe's tests run with: a missing xargs or find silently turns the
    // batched reads into a process per file.
    for (const applet of PROBE_APPLETS) assert.ok(IMAGE_APPLETS.includes(applet), `the image links busybox's ${applet}`);
    assert.equal(IMAGE_REFERENCE, IMAGE);
    assert.equal(IMAGE_VERSION, VERSION);
    const build = `docker build -f deploy/agent/Dockerfile -t ${IMAGE}:${VERSION} /tmp/gpumem-agent-root`;
    assert.ok(dockerfile.includes(build), `the Dockerfile documents: ${build}`);
    assert.ok(read(DOCS).includes(build), `docs/agent-deploy.md documents: ${build}`);
  });
});

// --- Prometheus ------------------------------------------------------------------------------------------------

interface AlertRule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
const rulesFile = () => parseYaml(read(RULES)) as { groups: { name: string; rules: AlertRule[] }[] };
const alerts = () => rulesFile().groups.flatMap((group) => group.rules);
const rightsizingRulesFile = () =>
  parseYaml(read(RIGHTSIZING_RULES)) as { groups: { name: string; rules: { record?: string; expr: string }[] }[] };

const CONTRACT = new Map<string, readonly string[]>(METRIC_FAMILIES.map((family) => [family.name, family.labels]));
/** Series the agent does not serve but the rules may use: Prometheus' own per-target `up`. */
const PROMETHEUS_SERIES = new Set(['up']);

/** Every gpumem_* name in a PromQL expression must be in the contract, and every label it matches on its family's labels. */
function checkPromql(expr: string, where: string): void {
  for (const [name] of expr.matchAll(/\bgpumem_[a-z0-9_]+\b/g)) {
    assert.ok(CONTRACT.has(name), `${where}: ${name} is not in METRIC_FAMILIES (src/core/agent/metricContract.ts)`);
  }
  for (const match of expr.matchAll(/\b([a-z_][a-z0-9_]*)\{([^}]*)\}/g)) {
    const [, name = '', matchers = ''] = match;
    const labels = CONTRACT.get(name);
    if (!labels) continue;
    for (const [, label] of matchers.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)/g)) {
      assert.ok(label === 'node' || labels.includes(label ?? ''), `${where}: ${name} has no label ${label}`);
    }
  }
}

describe('deploy/agent Prometheus rules', () => {
  test('every alert has a severity, a summary and description, and a runbook_url to its section of docs/agent-deploy.md', () => {
    const docs = read(DOCS);
    const list = alerts();
    assert.ok(list.length >= 6);
    for (const rule of list) {
      assert.ok(rule.alert, 'only alerts in rules.yaml');
      assert.ok(['warning', 'critical'].includes(rule.labels?.severity ?? ''), `${rule.alert}: severity`);
      assert.ok(rule.annotations?.summary?.includes('{{'), `${rule.alert}: a templated summary`);
      assert.ok(rule.annotations?.description?.includes('{{'), `${rule.alert}: a templated description`);
      assert.equal(
        rule.annotations?.runbook_url,
        `https://github.com/gpumem/gpumem/blob/main/docs/agent-deploy.md#${rule.alert.toLowerCase()}`,
        `${rule.alert}: runbook_url`,
      );
      assert.match(docs, new RegExp(`^### ${rule.alert}$`, 'm'), `docs/agent-deploy.md has a "### ${rule.alert}" heading`);
    }
    const byName = new Map(list.map((rule) => [rule.alert, rule]));
    assert.equal(byName.get('GpumemPodOverLimit')?.for, '2m');
    assert.equal(byName.get('GpumemNodeMemoryNearFull')?.for, '5m');
    assert.equal(byName.get('GpumemGlobalOomKillGpu')?.for, undefined, 'an OOM kill alerts at once');
    assert.equal(byName.get('GpumemGlobalOomKillGpu')?.labels?.severity, 'critical');
    assert.equal(byName.get('GpumemHamiQuotaBypassed')?.labels?.severity, 'critical');
    assert.equal(byName.get('GpumemAgentDown')?.for, '5m');
    assert.equal(byName.get('GpumemAgentFailing')?.labels?.severity, 'warning');
    assert.equal(byName.get('GpumemProbeBlind')?.for, '15m', 'a probe blind for a quarter of an hour, not one cut cycle');
  });

  test('every metric the rules, the dashboard and the scrape job use is in the metric contract', () => {
    for (const rule of alerts()) checkPromql(rule.expr, `rules.yaml ${rule.alert}`);
    for (const [, name] of alerts()
      .map((rule) => rule.expr)
      .join('\n')
      .matchAll(/\b([a-z_][a-z0-9_]*)\s*\{/g))
      assert.ok(CONTRACT.has(name ?? '') || PROMETHEUS_SERIES.has(name ?? ''), `rules.yaml: unknown series ${name}`);
    const dashboard = JSON.parse(read(DASHBOARD)) as Dashboard;
    const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
    for (const variable of dashboard.templating.list) if (variable.definition) exprs.push(variable.definition);
    for (const expr of exprs) checkPromql(expr, 'gpumem-dashboard.json');
    const used = new Set([...exprs.join('\n').matchAll(/\bgpumem_[a-z0-9_]+\b/g)].map(([name]) => name));
    for (const name of ['gpumem_pod_cgroup_memory_bytes', 'gpumem_node_gtt_used_bytes', 'gpumem_pod_unaccounted_bytes'])
      assert.ok(used.has(name), `the dashboard shows ${name}`);
    const scrape = read(SCRAPE_JOB);
    for (const [name] of scrape.matchAll(/\bgpumem_[a-z0-9_]+\b/g)) assert.ok(CONTRACT.has(name), `scrape-job.yaml: ${name}`);
  });

  test('promtool check rules accepts rules.yaml', (t: TestContext) => {
    if (!PROMTOOL) return t.skip(NO_PROMTOOL);
    const result = spawnSync(PROMTOOL, ['check', 'rules', RULES], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stdout + result.stderr);
  });

  test('promtool test rules: every alert fires and clears on synthetic series', (t: TestContext) => {
    const tests = (parseYaml(read(RULES_TEST)) as { rule_files: string[]; tests: RuleTest[] }).tests;
    assert.deepEqual((parseYaml(read(RULES_TEST)) as { rule_files: string[] }).rule_files, ['rules.yaml']);
    const cases = tests.flatMap((group) => group.alert_rule_test ?? []);
    for (const rule of alerts()) {
      const mine = cases.filter((item) => item.alertname === rule.alert);
      assert.ok(
        mine.some((item) => item.exp_alerts.length > 0),
        `rules.test.yaml: ${rule.alert} is never expected to fire`,
      );
      assert.ok(
        mine.some((item) => item.exp_alerts.length === 0),
        `rules.test.yaml: ${rule.alert} is never expected to be clear (exp_alerts: [])`,
      );
      const fired = mine.findIndex((item) => item.exp_alerts.length > 0);
      assert.ok(
        mine.slice(fired + 1).some((item) => item.exp_alerts.length === 0),
        `rules.test.yaml: ${rule.alert} is never expected to clear after firing`,
      );
    }
    if (!PROMTOOL) return t.skip(NO_PROMTOOL);
    const result = spawnSync(PROMTOOL, ['test', 'rules', RULES_TEST], { encoding: 'utf8', cwd: join(AGENT, 'prometheus') });
    assert.equal(result.status, 0, result.stdout + result.stderr);
  });

  test('the recording rules: records only, every series in the contract, promtool check and test rules, the same groups in their PrometheusRule', (t: TestContext) => {
    const recording = rightsizingRulesFile().groups.flatMap((group) => group.rules);
    assert.ok(recording.length >= 2);
    for (const rule of recording) {
      assert.ok(rule.record, 'only recording rules in rightsizing-rules.yaml');
      checkPromql(rule.expr, `rightsizing-rules.yaml ${rule.record}`);
      for (const [name] of rule.expr.matchAll(/\bgpumem_[a-z0-9_]+\b/g))
        assert.ok(CONTRACT.has(name), `rightsizing-rules.yaml: unknown series ${name}`);
    }
    const [object] = parseObjects(read(join(BASE, 'prometheusrule-rightsizing.yaml')), 'prometheusrule-rightsizing.yaml');
    assert.ok(object);
    assert.deepEqual((object as unknown as { spec: { groups: unknown } }).spec.groups, rightsizingRulesFile().groups);
    assert.deepEqual((parseYaml(read(RIGHTSIZING_RULES_TEST)) as { rule_files: string[] }).rule_files, ['rightsizing-rules.yaml']);
    if (!PROMTOOL) return t.skip(NO_PROMTOOL);
    const check = spawnSync(PROMTOOL, ['check', 'rules', RIGHTSIZING_RULES], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    const unit = spawnSync(PROMTOOL, ['test', 'rules', RIGHTSIZING_RULES_TEST], { encoding: 'utf8', cwd: join(AGENT, 'prometheus') });
    assert.equal(unit.status, 0, unit.stdout + unit.stderr);
  });

  test('the PrometheusRule carries exactly the groups of rules.yaml', () => {
    const [rule] = parseObjects(read(join(BASE, 'prometheusrule.yaml')), 'prometheusrule.yaml');
    assert.ok(rule);
    assert.deepEqual((rule as unknown as { spec: { groups: unknown } }).spec.groups, rulesFile().groups);
  });

  test('the scrape job keeps only the agent pods of gpumem-system on port 9400, and promtool accepts it where it can', (t: TestContext) => {
    const { scrape_configs: jobs } = parseYaml(read(SCRAPE_JOB)) as { scrape_configs: ScrapeJob[] };
    assert.equal(jobs.length, 1);
    const job = jobs[0]!;
    assert.match(job.job_name, /gpumem-agent/, 'GpumemAgentDown selects up{job=~".*gpumem-agent.*"}');
    assert.equal(job.honor_labels, true);
    assert.deepEqual(job.kubernetes_sd_configs, [{ role: 'pod', namespaces: { names: ['gpumem-system'] } }]);
    const keeps = job.relabel_configs.filter((step) => step.action === 'keep');
    assert.deepEqual(keeps, [
      { source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_name'], regex: 'gpumem-agent', action: 'keep' },
      { source_labels: ['__meta_kubernetes_pod_container_port_number'], regex: '9400', action: 'keep' },
    ]);
    if (!PROMTOOL) return t.skip(NO_PROMTOOL);
    const dir = mkdtempSync(join(tmpdir(), 'gpumem-scrape-'));
    try {
      const file = join(dir, 'prometheus.yml');
      writeFileSync(file, read(SCRAPE_JOB));
      const result = spawnSync(PROMTOOL, ['check', 'config', file], { encoding: 'utf8' });
      const output = result.stdout + result.stderr;
      // Debian's prometheus is built without Kubernetes service discovery: its promtool cannot parse the job.
      if (result.status !== 0 && /field kubernetes_sd_configs not found/.test(output))
        return t.skip('this promtool is built without Kubernetes service discovery (Debian): the job is checked structurally only');
      assert.equal(result.status, 0, output);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

interface RuleTest {
  readonly name: string;
  readonly alert_rule_test?: readonly { eval_time: string; alertname: string; exp_alerts: readonly unknown[] }[];
}
interface ScrapeJob {
  readonly job_name: string;
  readonly honor_labels?: boolean;
  readonly kubernetes_sd_configs: unknown;
  readonly relabel_configs: readonly { source_labels?: string[]; regex?: string; action?: string }[];
}

// --- Grafana -------------------------------------------------------------------------------------------------

interface Dashboard {
  readonly schemaVersion: number;
  readonly uid: string;
  readonly templating: { list: { name: string; type: string; query?: unknown; definition?: string; datasource?: unknown }[] };
  readonly panels: { title: string; type: string; datasource: { uid: string }; targets: { expr: string; datasource: { uid: string } }[] }[];
}

describe('deploy/agent Grafana dashboard', () => {
  test('parses, has the datasource and node variables, and every panel queries the chosen datasource', () => {
    const dashboard = JSON.parse(read(DASHBOARD)) as Dashboard;
    assert.ok(dashboard.schemaVersion >= 39);
    const variables = new Map(dashboard.templating.list.map((variable) => [variable.name, variable]));
    assert.equal(variables.get('datasource')?.type, 'datasource');
    assert.equal(variables.get('datasource')?.query, 'prometheus');
    assert.equal(variables.get('node')?.definition, 'label_values(gpumem_node_memory_total_bytes, node)');
    assert.ok(dashboard.panels.length >= 4);
    for (const panel of dashboard.panels) {
      assert.ok(panel.targets.length > 0, `panel "${panel.title}" has a target`);
      assert.equal(panel.datasource.uid, '${datasource}', `panel "${panel.title}" datasource`);
      for (const target of panel.targets) {
        assert.equal(target.datasource.uid, '${datasource}', `panel "${panel.title}" target datasource`);
        assert.ok(target.expr.includes('node=~"$node"'), `panel "${panel.title}" follows the node variable`);
      }
    }
    const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)).join('\n');
    assert.match(exprs, /clamp_min\(/, 'free memory is clamped at 0');
    assert.match(exprs, /topk\(\d+, gpumem_pod_unaccounted_bytes/);
    assert.match(exprs, /increase\(gpumem_oom_kills_total\{[^}]*\}\[\$__range\]\)/);
    assert.match(exprs, /gpumem_hami_enforcement/);
  });
});
