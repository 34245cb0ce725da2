// Rules about HAMi's user-space enforcement (libvgpu.so through /etc/ld.so.preload) and what bypasses it.
import { removeSequenceItem } from '../edits.ts';
import type { QuickFix, Span } from '../findings.ts';
import type { ContainerModel, EnvVar, Located } from '../manifest/podModel.ts';
import { isTemplated } from '../manifest/source.ts';
import { spanOf } from '../manifest/yamlTree.ts';
import type { PodContext, Rule } from './types.ts';
import { ruleMetaOf } from './ruleMetaOf.ts';

/** Go's strconv.ParseBool, which HAMi's device plugin uses on CUDA_DISABLE_CONTROL. */
export function goParseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

function removeEnvFix(context: PodContext, env: EnvVar): QuickFix[] {
  const edit = removeSequenceItem(context.file.text, env.item);
  return edit ? [{ title: `Remove ${env.name}`, edits: [edit], preferred: true }] : [];
}

interface ResolvedVar {
  readonly value: string;
  readonly span: Span;
  readonly via: string | undefined;
  readonly env: EnvVar | undefined;
}

/** The value a container sees for a variable: env wins over envFrom; ConfigMaps are resolved when defined in the same file. */
function resolveVar(context: PodContext, container: ContainerModel, name: string): ResolvedVar | undefined {
  const env = container.env.find((entry) => entry.name === name);
  if (env) {
    if (env.value !== undefined) return { value: env.value, span: env.valueSpan ?? env.nameSpan, via: undefined, env };
    if (env.fromValueFrom) {
      const { tree } = context.pod;
      const item = env.item;
      const mapName = tree.text(tree.path(item, 'valueFrom', 'configMapKeyRef', 'name'));
      const key = tree.text(tree.path(item, 'valueFrom', 'configMapKeyRef', 'key'));
      const entry = mapName && key ? findConfigMap(context, mapName)?.data.get(key) : undefined;
      if (entry)
        return {
          value: entry.value,
          span: spanOf(tree.path(item, 'valueFrom', 'configMapKeyRef', 'key')) ?? env.nameSpan,
          via: `ConfigMap "${mapName}" key "${key}"`,
          env,
        };
      return undefined;
    }
    // `- name: X` alone sets X to the empty string, and the empty string is still "present".
    return { value: '', span: env.nameSpan, via: undefined, env };
  }
  for (const source of [...container.envFrom].reverse()) {
    if (!source.configMapName || !name.startsWith(source.prefix)) continue;
    const entry = findConfigMap(context, source.configMapName)?.data.get(name.slice(source.prefix.length));
    if (entry) return { value: entry.value, span: source.span, via: `envFrom ConfigMap "${source.configMapName}"`, env: undefined };
  }
  return undefined;
}

function findConfigMap(context: PodContext, name: string) {
  const namespace = context.pod.object.namespace;
  return context.file.configMaps.find(
    (map) => map.name === name && (map.namespace === undefined || namespace === undefined || map.namespace === namespace),
  );
}

export const cudaDisableControl: Rule = {
  meta: ruleMetaOf('cuda-disable-control'),
  check(context) {
    for (const container of context.gpuContainers) {
      const resolved = resolveVar(context, container, 'CUDA_DISABLE_CONTROL');
      if (!resolved) continue;
      const parsed = goParseBool(resolved.value);
      // A value from an unrendered Helm action is masking sentinels: never true, and not text to show.
      const shown = isTemplated(resolved.value) ? '{{…}}' : resolved.value;
      if (parsed === true) {
        context.report({
          ruleId: 'cuda-disable-control',
          container,
          span: resolved.span,
          message: `Container "${container.name}": CUDA_DISABLE_CONTROL=${resolved.value}${resolved.via ? ` (from ${resolved.via})` : ''} turns off HAMi memory enforcement: the device plugin skips the /etc/ld.so.preload mount, so the container can use the whole GPU while the scheduler still shares the card.`,
          fixes: resolved.env ? removeEnvFix(context, resolved.env) : [],
        });
      } else {
        context.report({
          ruleId: 'cuda-disable-control-present',
          container,
          span: resolved.span,
          message: `Container "${container.name}": CUDA_DISABLE_CONTROL is set to "${shown}"${resolved.via ? ` (from ${resolved.via})` : ''}; HAMi before v2.4.0 disabled enforcement whenever the variable was present.`,
          fixes: resolved.env ? removeEnvFix(context, resolved.env) : [],
        });
      }
    }
  },
};

export const hamiReadOnlyRootfs: Rule = {
  meta: ruleMetaOf('hami-readonly-rootfs'),
  check(context) {
    for (const container of context.gpuContainers) {
      if (!container.readOnlyRootFilesystem?.value || !context.isHami(container)) continue;
      context.report({
        ruleId: 'hami-readonly-rootfs',
        container,
        span: container.readOnlyRootFilesystem.span,
        message: `Container "${container.name}": readOnlyRootFilesystem is fine to keep; verify in the running pod that HAMi's /etc/ld.so.preload mount is present and libvgpu.so is loaded, as some runtimes and admission policies break the file mount.`,
      });
    }
  },
};

export const hamiPrivileged: Rule = {
  meta: ruleMetaOf('hami-privileged'),
  check(context) {
    for (const container of context.gpuContainers) {
      if (!container.privileged?.value || !context.isHami(container)) continue;
      context.report({
        ruleId: 'hami-privileged',
        container,
        span: container.privileged.span,
        message: `Container "${container.name}" is privileged and requests HAMi resources: HAMi before v2.10 ran it with no GPU memory limit, and v2.10 and later reject the pod.`,
      });
    }
  },
};

const MANUAL_LIMIT = /^CUDA_DEVICE_MEMORY_LIMIT(_\d+)?$/;

export const hamiManualMemoryLimit: Rule = {
  meta: ruleMetaOf('hami-manual-memory-limit'),
  check(context) {
    for (const container of context.gpuContainers) {
      if (!context.isHami(container) && !container.gpu.some((use) => use.info.vendor === 'NVIDIA')) continue;
      for (const env of container.env) {
        if (!MANUAL_LIMIT.test(env.name)) continue;
        const value = env.value?.trim();
        const unlimited = value !== undefined && /^0+[gGmMkK]?$/.test(value);
        context.report({
          ruleId: 'hami-manual-memory-limit',
          container,
          span: env.nameSpan,
          message: unlimited
            ? `Container "${container.name}": ${env.name}=${value} means no memory limit to HAMi-core, and overrides the limit the device plugin injects.`
            : `Container "${container.name}": ${env.name} is injected by HAMi's device plugin from nvidia.com/gpumem; setting it by hand conflicts with the scheduled quota.`,
          fixes: removeEnvFix(context, env),
        });
      }
    }
  },
};

export const hamiResourceConflict: Rule = {
  meta: ruleMetaOf('hami-resource-conflict'),
  check(context) {
    for (const container of context.gpuContainers) {
      const byName = new Map(container.gpu.map((use) => [use.name, use]));
      for (const use of container.gpu) {
        if (!use.info.hamiOnly || use.info.role === 'count') continue;
        const hasCount = container.gpu.some((other) => other.info.vendor === use.info.vendor && other.info.role === 'count');
        // Some HAMi backends (AMD, Enflame) admit a memory or core share alone, so no count is needed there.
        if (!hasCount && !use.info.countOptional) {
          context.report({
            ruleId: 'hami-resource-conflict',
            container,
            span: use.entry.keySpan,
            message: `Container "${container.name}" requests ${use.name} without a ${use.info.vendor} GPU count (such as ${use.info.vendor === 'AMD' ? 'amd.com/gpu' : 'nvidia.com/gpu'}); HAMi sizes quotas per requested GPU.`,
          });
        }
        const value = use.entry.quantity?.value;
        if (value !== undefined && use.info.role === 'memory-percentage' && (value < 1 || value > 100)) {
          context.report({
            ruleId: 'hami-resource-conflict',
            container,
            span: use.entry.valueSpan,
            message: `Container "${container.name}": ${use.name} is ${use.entry.text}; it must be between 1 and 100.`,
          });
        }
        if (value !== undefined && use.info.role === 'cores' && use.name.endsWith('/gpucores') && (value < 0 || value > 100)) {
          context.report({
            ruleId: 'hami-resource-conflict',
            container,
            span: use.entry.valueSpan,
            message: `Container "${container.name}": ${use.name} is ${use.entry.text}; it is a percentage from 0 to 100.`,
          });
        }
      }
      const memory = byName.get('nvidia.com/gpumem');
      const percentage = byName.get('nvidia.com/gpumem-percentage');
      if (memory && percentage) {
        context.report({
          ruleId: 'hami-resource-conflict',
          container,
          span: percentage.entry.keySpan,
          message: `Container "${container.name}" requests both nvidia.com/gpumem and nvidia.com/gpumem-percentage; HAMi uses only one of them, so the quota may not be the one you meant.`,
        });
      }
    }
  },
};

export const hamiGvisor: Rule = {
  meta: ruleMetaOf('hami-gvisor'),
  check(context) {
    const runtime = context.pod.runtimeClassName;
    if (!runtime || !/gvisor|runsc/i.test(runtime.value)) return;
    const container = context.gpuContainers.find((candidate) => context.isHami(candidate));
    if (!container) return;
    context.report({
      ruleId: 'hami-gvisor',
      container,
      span: runtime.span,
      message: `runtimeClassName "${runtime.value}" runs container "${container.name}" under gVisor, which ignores /etc/ld.so.preload: HAMi-core never loads and its GPU memory quota is not enforced.`,
    });
  },
};

const MUSL_OR_STATIC = /(^|[/:@-])(alpine|musl|busybox)([:@.-]|$)|distroless\/static/i;

export const hamiMuslImage: Rule = {
  meta: ruleMetaOf('hami-musl-image'),
  check(context) {
    for (const container of context.gpuContainers) {
      const image: Located<string> | undefined = container.image;
      if (!image || !context.isHami(container) || !MUSL_OR_STATIC.test(image.value)) continue;
      context.report({
        ruleId: 'hami-musl-image',
        container,
        span: image.span,
        message: `Container "${container.name}": image "${image.value}" looks musl-based or static; only glibc's loader reads /etc/ld.so.preload, so verify that the workload process maps libvgpu.so.`,
      });
    }
  },
};
