// One light sweep (the live sampling's light probe, lightScript.ts) read as the agent's maxima need it: each pod's
// memory.current, GPU memory in RAM and VRAM, per container too, counted as a full cycle counts them
// (unaccountedMemory.ts with nvidiaPodMemory.ts, as the inspector's samples do in inspector/sample.ts). Pure.
import { parseCapture } from '../probe/capture.ts';
import { buildNodeModel } from '../probe/nodeModel.ts';
import { buildNvidiaNode } from '../probe/nvidiaNode.ts';
import { nvidiaAccounting, withNvidiaPods } from '../verdicts/memory/nvidiaPodMemory.ts';
import { podAccounting } from '../verdicts/memory/unaccountedMemory.ts';
import type { NodeInspection } from '../inspectionRun/analyze.ts';
import type { GpuLevels } from './gpuLevels.ts';
import { gpuLevels } from './gpuLevels.ts';
import type { WatchReading } from './gpuWatch.ts';
import { watchLevel } from './gpuWatch.ts';

export function sweepLevels(text: string): { readonly levels: GpuLevels; readonly problems: readonly string[] } {
  const capture = parseCapture(text);
  const model = buildNodeModel(capture);
  const pods = withNvidiaPods(podAccounting(model), nvidiaAccounting(buildNvidiaNode(capture)));
  return { levels: gpuLevels(pods, model.gpuProcesses), problems: capture.problems };
}

/** The watch level of a full cycle's node, computed as a watch reading computes it (gpuWatch.ts). */
export function inspectionWatchLevel(node: NodeInspection): WatchReading {
  const nvidia = node.nvidia.node;
  return watchLevel({
    cards: node.model.gpus,
    nvidiaUsedMiB: nvidia.kind === 'read' ? nvidia.gpus.map((gpu) => gpu.memoryUsedMiB) : undefined,
    meminfo: node.model.meminfo,
  });
}
