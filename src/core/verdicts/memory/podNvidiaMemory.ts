// One pod's GPU memory as the node's nvidia-smi lists it, per GPU (built by nvidiaPodMemory.ts). A leaf:
// the pod accounting (unaccountedMemory.ts) carries it and nvidiaPodMemory.ts fills it.
import type { NvidiaProcess } from '../../probe/nvidiaNode.ts';

export interface PodGpuMemory {
  /** `GPU 0`, or `GPU 0 GI 1 CI 0` on a MIG instance. */
  readonly gpu: string;
  readonly gpuIndex: number | undefined;
  readonly gpuUuid: string | undefined;
  /** Bytes the pod's processes hold there; undefined when nvidia-smi printed a placeholder for any of them. */
  readonly usedBytes: number | undefined;
  readonly processes: readonly NvidiaProcess[];
}

export interface PodNvidiaMemory {
  readonly gpus: readonly PodGpuMemory[];
  /** The sum over GPUs; undefined when any is unknown. */
  readonly usedBytes: number | undefined;
  /** The memory is system RAM (a unified-memory GPU). */
  readonly unified: boolean;
}
