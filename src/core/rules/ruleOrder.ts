// The rules that run on every pod template, in the order their findings are most useful.
import { gpuClaimUnresolved } from './claimRules.ts';
import {
  cudaDisableControl,
  hamiGvisor,
  hamiManualMemoryLimit,
  hamiMuslImage,
  hamiPrivileged,
  hamiReadOnlyRootfs,
  hamiResourceConflict,
} from './hamiRules.ts';
import {
  gpuNoMemoryLimit,
  gpuShmUnbounded,
  umaGpuMemoryUndeclared,
  umaHeadroom,
  umaMissingToleration,
  umaNotGuaranteed,
} from './memoryRules.ts';
import { gpuDockerInDocker, gpuResourceInvalid, invalidQuantity, manifestShape } from './podRules.ts';
import { gpuShareAnnotationInvalid } from './schedulerRules.ts';
import type { Rule } from './types.ts';

export const POD_RULES: readonly Rule[] = [
  manifestShape,
  invalidQuantity,
  gpuResourceInvalid,
  gpuShareAnnotationInvalid,
  gpuClaimUnresolved,
  gpuNoMemoryLimit,
  umaHeadroom,
  umaGpuMemoryUndeclared,
  umaNotGuaranteed,
  umaMissingToleration,
  gpuShmUnbounded,
  cudaDisableControl,
  gpuDockerInDocker,
  hamiPrivileged,
  hamiManualMemoryLimit,
  hamiResourceConflict,
  hamiReadOnlyRootfs,
  hamiGvisor,
  hamiMuslImage,
];
