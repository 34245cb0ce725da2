// Steps 6–7 of HAMi's troubleshooting page ("GPU Memory Enforcement: How It Works and How to Debug It",
// Quick Diagnostic Checklist): the node and cluster side, which a tenant's container cannot forge —
// containerd's default runtime and the HAMi device-plugin pods. Steps 1–5 are hamiTroubleshootingSteps.ts.
import { pushAll } from '../../arrays.ts';
import type { Capture } from '../../probe/capture.ts';
import { describeNvidiaEvidence, nvidiaRuntimeEvidence, parseContainerdRuntimes } from '../../probe/parsers/containerdConfig.ts';
import type { Check, HamiClusterFacts } from './hamiCheck.ts';
import { counted, fail, nameList, pass, unknown } from './hamiFacts.ts';
import { checkRuntimeClass, runtimeRemedy } from './hamiRuntimeClass.ts';

const STEP_COMMANDS = {
  runtime: 'containerd config dump | grep default_runtime_name (on node)',
  devicePlugin: 'kubectl get pods -n kube-system -l app.kubernetes.io/component=device-plugin',
} as const;
export function checkRuntime(node: Capture | undefined, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'hami.runtime',
    subject: "containerd's default runtime",
    group: 'seed' as const,
    step: 6,
    command: STEP_COMMANDS.runtime,
    impact: 'risk' as const,
  };
  const remedy = runtimeRemedy(cluster?.gpuOperatorVersion);
  const section = node?.sections.get('containerd');
  const files = new Map<string, string>();
  for (const record of section?.records ?? []) if (record.path !== undefined) files.set(record.path, record.body);
  const { defaultRuntime, runtimes } = parseContainerdRuntimes(files);
  const evidence: string[] = defaultRuntime ? [`${defaultRuntime.file}: ${defaultRuntime.line}`] : [];
  const byClass = checkRuntimeClass(
    common,
    evidence,
    cluster?.runtimeClassName,
    cluster?.runtimeClass,
    runtimes,
    cluster?.gpuOperatorVersion,
  );
  if (byClass) return byClass;
  if (defaultRuntime !== undefined) {
    const name = defaultRuntime.runtime;
    const definition = runtimes.get(name);
    const what = definition ? nvidiaRuntimeEvidence(definition) : undefined;
    if (definition)
      pushAll(
        evidence,
        definition.lines.map((line) => `${definition.file}: ${line}`),
      );
    if (what)
      return pass(
        { ...common, evidence },
        `containerd's default runtime ${name} runs ${describeNvidiaEvidence(what)}`,
        "pods that set no runtimeClassName run with NVIDIA's runtime",
      );
    if (definition)
      return fail(
        { ...common, evidence },
        `containerd's default runtime ${name} is not NVIDIA's`,
        definition.binary !== undefined
          ? `it runs ${definition.binary}`
          : `runtime_type ${definition.runtimeType ?? 'unset'}, no BinaryName`,
        remedy,
      );
    // A default that the captured files do not define: only its name tells (nvidia-ctk's drop-in may not be captured).
    if (name === 'nvidia')
      return pass(
        { ...common, evidence },
        "containerd's default runtime is nvidia (by name only)",
        'the captured files do not define runtimes.nvidia',
      );
    const nvidiaRuntimes = [...runtimes.values()]
      .filter((candidate) => nvidiaRuntimeEvidence(candidate) !== undefined)
      .map((candidate) => candidate.name);
    return fail(
      { ...common, evidence },
      `containerd's default runtime is ${name}, not NVIDIA's`,
      nvidiaRuntimes.length > 0
        ? `NVIDIA runtimes are defined (${nvidiaRuntimes.join(', ')}) but not the default`
        : 'the captured files define no NVIDIA runtime',
      remedy,
    );
  }
  if (section && section.records.some((record) => record.path !== undefined)) {
    return fail(
      { ...common, evidence: section.records.map((record) => `${record.path}: (no default_runtime_name)`) },
      "containerd's default runtime is runc: its config sets no default_runtime_name",
      "without it the CRI plugin falls back to runc, not NVIDIA's runtime",
      remedy,
    );
  }
  if (!node)
    return unknown(
      { ...common, evidence },
      "containerd's default runtime is not known: there is no node capture",
      'the runtime is a node setting; only the container was captured',
      'Run the node probe (gpumem inspect --scope node) on the GPU node, or containerd config dump | grep default_runtime_name there.',
    );
  return unknown(
    { ...common, evidence },
    'the node capture has no containerd config',
    "looked in /etc/containerd, k3s' and RKE2's /var/lib/rancher/*/agent/etc/containerd and MicroK8s' /var/snap/microk8s/current/args",
    'Run containerd config dump | grep default_runtime_name on the node.',
  );
}

export function checkDevicePlugin(cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'hami.device-plugin',
    subject: 'the HAMi device-plugin pods',
    group: 'seed' as const,
    step: 7,
    command: STEP_COMMANDS.devicePlugin,
    impact: 'risk' as const,
  };
  const pods = cluster?.devicePluginPods;
  if (pods === undefined)
    return unknown(
      { ...common, evidence: [] },
      'the HAMi device-plugin pods are not known: there are no cluster facts',
      'they come from the Kubernetes API, not from a capture',
      "kubectl get pods -A -l app.kubernetes.io/component=hami-device-plugin -o wide (the chart's label); gpumem fills this in when it inspects through Kubernetes.",
    );
  const evidence = pods.map(
    (pod) => `kubectl: ${pod.name} ${pod.phase}${pod.ready === undefined ? '' : pod.ready ? ' ready' : ' not-ready'}`,
  );
  const remedy =
    'Fix the hami-device-plugin DaemonSet on this node (kubectl describe pod / logs -c device-plugin); without it no new container gets the limit env, libvgpu.so or the preload mount.';
  if (pods.length === 0)
    return fail(
      { ...common, evidence },
      'no HAMi device-plugin pod runs on the node',
      'no pod labelled app.kubernetes.io/component=hami-device-plugin was found there',
      remedy,
    );
  const bad = pods.filter((pod) => pod.phase !== 'Running' || pod.ready === false);
  if (bad.length > 0)
    return fail(
      { ...common, evidence },
      `${bad.length} of ${counted(pods.length, 'HAMi device-plugin pod is', 'HAMi device-plugin pods are')} not running and ready`,
      nameList(
        bad.map((pod) => `${pod.name} (${pod.phase}${pod.ready === false ? ', not ready' : ''})`),
        5,
      ),
      remedy,
    );
  return pass(
    { ...common, evidence },
    pods.length === 1 ? 'the HAMi device-plugin pod is running' : `all ${pods.length} HAMi device-plugin pods are running`,
    nameList(
      pods.map((pod) => pod.name),
      5,
    ),
  );
}
