// Rules about the pod as a whole: nested container runtimes (dockerInDocker.ts), resource syntax the API server rejects,
// and fields of the wrong type.
import { ANNOTATIONS } from '../config.ts';
import type { Span } from '../findings.ts';
import { parseQuantity } from '../quantity.ts';
import { classifyGpuResource } from '../gpuResources.ts';
import { isTemplated, placeholderIn } from '../manifest/source.ts';
import type { FileContext } from './types.ts';
import type { Rule } from './types.ts';
import { ruleMetaOf } from './ruleMetaOf.ts';

export { gpuDockerInDocker } from './dockerInDocker.ts';

export const gpuResourceInvalid: Rule = {
  meta: ruleMetaOf('gpu-resource-invalid'),
  check(context) {
    for (const container of context.gpuContainers) {
      for (const use of container.gpu) {
        const limit = container.limits.entries.get(use.name);
        const request = container.requests.entries.get(use.name);
        for (const entry of [limit, request]) {
          const quantity = entry?.quantity;
          if (!entry || !quantity) continue;
          if (quantity.negative) {
            context.report({
              ruleId: 'gpu-resource-invalid',
              container,
              span: entry.valueSpan,
              message: `Container "${container.name}": ${use.name} is ${entry.text}; resource quantities must not be negative.`,
            });
          } else if (!quantity.isInteger) {
            context.report({
              ruleId: 'gpu-resource-invalid',
              container,
              span: entry.valueSpan,
              message: `Container "${container.name}": ${use.name} is ${entry.text}; extended resources such as GPUs must be whole numbers, so the API server rejects this pod.`,
            });
          }
        }
        if (request && !limit && !request.templated) {
          context.report({
            ruleId: 'gpu-resource-invalid',
            container,
            span: request.keySpan,
            message: `Container "${container.name}" requests ${use.name} without a limit; extended resources must be set in limits, so the API server rejects this pod.`,
          });
        } else if (request?.quantity && limit?.quantity && request.quantity.value !== limit.quantity.value) {
          context.report({
            ruleId: 'gpu-resource-invalid',
            container,
            span: request.valueSpan,
            message: `Container "${container.name}": the ${use.name} request (${request.text}) differs from its limit (${limit.text}); for extended resources they must be equal.`,
          });
        }
      }
    }
  },
};

export const invalidQuantity: Rule = {
  meta: ruleMetaOf('invalid-quantity'),
  check(context) {
    const gpu = new Set(context.gpuContainers);
    for (const container of context.pod.containers) {
      for (const [block, resources] of [
        ['limits', container.limits],
        ['requests', container.requests],
      ] as const) {
        for (const entry of resources.entries.values()) {
          // A placeholder is noise unless it hides what a rule judges: a GPU container's value, or a GPU amount.
          const judged = gpu.has(container) || classifyGpuResource(entry.name) !== undefined;
          const unresolved = entry.templated && judged ? unresolvedValue(context.file, entry.valueSpan) : undefined;
          if (unresolved) {
            context.report({
              ruleId: 'unrendered-template',
              severity: 'info',
              container,
              span: entry.valueSpan,
              message: `Container "${container.name}": resources.${block}["${entry.name}"] is ${unresolved}, so gpumem cannot check its value.`,
            });
          } else if (entry.invalid && !entry.templated) {
            context.report({
              ruleId: 'invalid-quantity',
              container,
              span: entry.valueSpan,
              message: `Container "${container.name}": resources.${block}["${entry.name}"] is not a valid quantity: ${entry.invalid}.`,
            });
          } else if (entry.quantity?.negative && (entry.name === 'memory' || entry.name === 'cpu')) {
            context.report({
              ruleId: 'invalid-quantity',
              container,
              span: entry.valueSpan,
              message: `Container "${container.name}": resources.${block}.${entry.name} is ${entry.text}; it must not be negative.`,
            });
          }
        }
      }
    }
    if (context.gpuContainers.length === 0) return;
    for (const [key, annotation] of context.pod.annotations) {
      const declares = [ANNOTATIONS.gpuMemory, ANNOTATIONS.hostMemory].some((base) => key === base || key.startsWith(`${base}.`));
      if (!declares) continue;
      // A value from an unrendered Helm action cannot be judged (the helm-template notice says so); other placeholders are named.
      const unresolved =
        isTemplated(annotation.value) || placeholderIn(annotation.value) ? unresolvedValue(context.file, annotation.span) : undefined;
      if (unresolved)
        context.report({
          ruleId: 'unrendered-template',
          severity: 'info',
          span: annotation.span,
          message: `Annotation ${key} is ${unresolved}, so gpumem cannot check it.`,
        });
      if (isTemplated(annotation.value) || placeholderIn(annotation.value)) continue;
      const parsed = parseQuantity(annotation.value.trim());
      const reason = parsed.ok ? (parsed.quantity.negative ? 'it is negative' : undefined) : parsed.reason;
      if (reason)
        context.report({
          ruleId: 'invalid-quantity',
          span: annotation.span,
          message: `Annotation ${key} is "${annotation.value}", not a valid memory quantity: ${reason}.`,
        });
    }
  },
};

const LANGUAGE_NAMES = {
  go: 'a Go template action',
  argo: 'an Argo Workflows expression, substituted when the workflow runs',
  jinja: 'a Jinja template action',
  placeholder: 'a template placeholder',
} as const;
const PLACEHOLDER_NAMES = {
  envsubst: 'an envsubst-style variable, substituted before the manifest is applied',
  tekton: 'a Tekton parameter, substituted when the task runs',
  kustomize: 'a Kustomize var, substituted by kustomize build',
} as const;
const MAX_SHOWN = 80;

/**
 * How to name a value that is not resolved yet: `${MEM}, an envsubst-style variable …`. Undefined for Helm, whose
 * file-level helm-template notice already says that templated values are not checked.
 */
function unresolvedValue(file: FileContext, span: Span): string | undefined {
  const written = file.text.slice(span.start, Math.min(span.end, span.start + MAX_SHOWN)).trim();
  const shown = span.end - span.start > MAX_SHOWN ? `${written}…` : written;
  // `{{ $memory }}` is a template action whose variable starts with `$`, not an envsubst variable.
  const placeholder = written.includes('{{') ? undefined : placeholderIn(written);
  if (placeholder && !isTemplated(written)) return `${shown}, ${PLACEHOLDER_NAMES[placeholder.kind]}`;
  const language = file.templateLanguage;
  if (!language || language === 'helm') return undefined;
  return `${shown}, ${LANGUAGE_NAMES[language]}`;
}

export const manifestShape: Rule = {
  meta: ruleMetaOf('manifest-shape'),
  check(context) {
    const { text } = context.file;
    for (const problem of context.pod.shapeProblems) {
      // A block mapping or list in the wrong place spans many lines (and its trailing newline): underline its first line only.
      const newline = text.indexOf('\n', problem.span.start);
      let end = newline >= 0 && newline < problem.span.end ? newline : problem.span.end;
      while (end > problem.span.start + 1 && /\s/.test(text[end - 1] ?? '')) end--;
      context.report({ ruleId: 'manifest-shape', span: { start: problem.span.start, end }, message: `Field ${problem.message}.` }); // not capitalized: Spec.containers is no field
    }
  },
};
