// Step 6 of HAMi's checklist when the pod names a RuntimeClass: the class's `handler` is the containerd
// runtime (`runtimes.<handler>`) that runs the pod, so the node's default runtime does not matter then, and
// the class's name proves nothing (HAMi's chart names its class after `devicePlugin.runtimeClassName`, any
// name, with `handler: nvidia`: charts/hami/templates/device-plugin/runtime-class.yaml).
//
// The remedy for a GPU pod with neither follows the NVIDIA GPU Operator's version: from v25.10.0 the operator
// enables CDI and no longer makes `nvidia` containerd's default runtime (NVIDIA/gpu-operator
// controllers/object_controls.go transformToolkitCtrForCDI sets NVIDIA_RUNTIME_SET_AS_DEFAULT=false), so pods
// reach NVIDIA's runtime only through the `nvidia` RuntimeClass; HAMi's troubleshooting page for GPU Operator
// 25.10+ asks for `devicePlugin.runtimeClassName=nvidia`, which makes HAMi's webhook set it on GPU pods
// (HAMi pkg/device/nvidia/device.go).
import { pushAll } from '../../arrays.ts';
import type { ContainerdRuntime } from '../../probe/parsers/containerdConfig.ts';
import { describeNvidiaEvidence, nvidiaRuntimeEvidence } from '../../probe/parsers/containerdConfig.ts';
import type { Check, RuntimeClassLookup } from './hamiCheck.ts';
import type { CheckBase } from './hamiFacts.ts';
import { fail, pass, unknown } from './hamiFacts.ts';

/** Handlers that are known not to be NVIDIA's runtime (runc-compatible runtimes, gVisor, Kata). */
function isOtherRuntime(handler: string): boolean {
  return ['runc', 'crun', 'youki', 'runsc', 'gvisor'].includes(handler) || handler.startsWith('runsc-') || handler.startsWith('kata');
}

/** Whether the version string (an image tag such as "v25.10.0") is the GPU Operator 25.10 or later; undefined when unreadable. */
export function gpuOperatorUsesCdiByDefault(version: string | undefined): boolean | undefined {
  const match = /^v?(\d{1,4})\.(\d{1,4})/.exec(version ?? '');
  if (!match) return undefined;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  return major > 25 || (major === 25 && minor >= 10);
}

/** What to do when no NVIDIA runtime runs the pod, for the GPU Operator's version. */
export function runtimeRemedy(gpuOperatorVersion: string | undefined): string {
  if (gpuOperatorUsesCdiByDefault(gpuOperatorVersion) === true)
    return `GPU Operator ${gpuOperatorVersion ?? ''} uses CDI and no longer makes nvidia containerd's default runtime: give GPU pods the nvidia RuntimeClass. For HAMi, set devicePlugin.runtimeClassName=nvidia (helm upgrade hami hami-charts/hami --reuse-values --set devicePlugin.runtimeClassName=nvidia): HAMi's webhook then sets runtimeClassName: nvidia on GPU pods. Recreate the pod.`;
  const operator = gpuOperatorVersion ? `GPU Operator ${gpuOperatorVersion} makes nvidia the default unless CDI is on; ` : '';
  return `${operator}Set default_runtime_name = "nvidia" in containerd's CRI config (nvidia-ctk runtime configure --runtime=containerd --set-as-default) and restart containerd, or give GPU pods runtimeClassName: nvidia (for HAMi: devicePlugin.runtimeClassName=nvidia).`;
}

/**
 * Step 6 for a pod that names a RuntimeClass; undefined when the pod names none, or when neither the class
 * nor its name tells (the caller then judges containerd's default).
 */
export function checkRuntimeClass(
  step: Omit<CheckBase, 'evidence'>,
  evidence: readonly string[],
  runtimeClassName: string | null | undefined,
  lookup: RuntimeClassLookup | undefined,
  runtimes: ReadonlyMap<string, ContainerdRuntime>,
  gpuOperatorVersion: string | undefined,
): Check | undefined {
  if (runtimeClassName === undefined || runtimeClassName === null) return undefined;
  const common = { ...step, subject: "the pod's RuntimeClass" };
  const found = lookup?.kind === 'found' && lookup.name === runtimeClassName ? lookup : undefined;
  const remedy = runtimeRemedy(gpuOperatorVersion);
  if (found) {
    const handler = found.handler;
    const lines = [...evidence, `kubectl: RuntimeClass ${found.name} handler: ${handler}`];
    const definition = runtimes.get(handler);
    if (definition) {
      pushAll(
        lines,
        definition.lines.map((line) => `${definition.file}: ${line}`),
      );
      const what = nvidiaRuntimeEvidence(definition);
      if (what)
        return pass(
          { ...common, evidence: lines },
          `the pod's RuntimeClass ${found.name} runs containerd's runtime ${handler}, which runs ${describeNvidiaEvidence(what)}`,
          "NVIDIA's runtime runs this pod whatever containerd's default is",
        );
      return fail(
        { ...common, evidence: lines },
        `the pod's RuntimeClass ${found.name} runs containerd's runtime ${handler}, not NVIDIA's`,
        definition.binary !== undefined
          ? `it runs ${definition.binary}`
          : `runtime_type ${definition.runtimeType ?? 'unset'}, no BinaryName`,
        remedy,
      );
    }
    if (/nvidia/i.test(handler))
      return pass(
        { ...common, evidence: lines },
        `the pod's RuntimeClass ${found.name} runs the handler ${handler} (by its name only)`,
        runtimes.size > 0
          ? `the captured containerd files do not define runtimes.${handler}`
          : 'there is no node capture to show what it runs',
      );
    if (isOtherRuntime(handler))
      return fail(
        { ...common, evidence: lines },
        `the pod's RuntimeClass ${found.name} runs the handler ${handler}, not NVIDIA's runtime`,
        `${handler} is not nvidia-container-runtime, whatever containerd's default is`,
        remedy,
      );
    return unknown(
      { ...common, evidence: lines },
      `what the pod's RuntimeClass ${found.name} runs is not known: handler ${handler}`,
      runtimes.size > 0
        ? `the captured containerd files do not define runtimes.${handler}`
        : 'there is no node capture to show what it runs',
      `Look up runtimes.${handler} in containerd config dump on the node: it must run nvidia-container-runtime.`,
    );
  }
  const byName = /nvidia/i.test(runtimeClassName);
  const why =
    lookup?.kind === 'missing'
      ? `the API server has no RuntimeClass ${runtimeClassName}`
      : lookup?.kind === 'unreadable'
        ? `RuntimeClass ${runtimeClassName} could not be read (${lookup.reason})`
        : 'its RuntimeClass object was not read';
  if (lookup?.kind === 'missing')
    return fail(
      { ...common, evidence: [...evidence, `pod spec: runtimeClassName: ${runtimeClassName}`] },
      `the pod's RuntimeClass ${runtimeClassName} does not exist`,
      'new pods naming it are refused, and nothing shows which runtime ran this one',
      `Create it with handler: nvidia (kubectl get runtimeclass shows the classes there are), then recreate the pod. ${remedy}`,
    );
  if (byName)
    return pass(
      { ...common, evidence: [...evidence, `pod spec: runtimeClassName: ${runtimeClassName}`] },
      `the pod selects runtimeClassName ${runtimeClassName} (by its name only)`,
      `${why}; an NVIDIA-named class usually has handler nvidia`,
    );
  return undefined;
}
