// Rules about GPUs that a scheduler shares out through pod annotations (KAI Scheduler / Run:ai).
// What KAI refuses: NVIDIA/KAI-Scheduler pkg/binder/plugins/gpusharing/gpu-request/gpu_request_validator.go.
import { SHARING_ANNOTATIONS } from '../manifest/schedulerAnnotations.ts';
import type { Rule } from './types.ts';
import { ruleMetaOf } from './ruleMetaOf.ts';

export const gpuShareAnnotationInvalid: Rule = {
  meta: ruleMetaOf('gpu-share-annotation-invalid'),
  check(context) {
    const { pod } = context;
    const parsed = pod.schedulerAnnotations;
    const target = parsed.targetIndex === undefined ? undefined : pod.containers[parsed.targetIndex];
    for (const problem of parsed.problems) {
      const message = target ? `${problem.message} (The share is meant for container "${target.name}".)` : problem.message;
      context.report({
        ruleId: 'gpu-share-annotation-invalid',
        ...(target ? { container: target } : {}),
        span: problem.span,
        message,
        severity: problem.severity,
      });
    }
    // KAI counts a whole GPU as an nvidia.com/gpu limit on any app or init container.
    const fraction = pod.podAnnotations.get(SHARING_ANNOTATIONS.fraction);
    const memory = pod.podAnnotations.get(SHARING_ANNOTATIONS.memory);
    const annotation = fraction ?? memory;
    if (!annotation) return;
    const key = fraction ? SHARING_ANNOTATIONS.fraction : SHARING_ANNOTATIONS.memory;
    const whole = pod.containers.find((container) => container.role !== 'ephemeral' && container.limits.entries.has('nvidia.com/gpu'));
    if (!whole) return;
    context.report({
      ruleId: 'gpu-share-annotation-invalid',
      container: whole,
      span: annotation.span,
      message: `Annotation ${key} asks KAI Scheduler for a shared GPU while container "${whole.name}" requests whole GPUs with nvidia.com/gpu; KAI refuses the pod ("${fraction ? 'cannot have both GPU fraction request and whole GPU resource request/limit' : 'cannot request both GPU and GPU memory'}"). Keep one of the two.`,
    });
  },
};
