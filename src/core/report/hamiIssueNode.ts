// The items of the HAMi issue bundle that only the node has, from a node capture when the user gives one
// (`gpumem inspect --node NAME --save FILE`, or the air-gapped `gpumem probe-script`): the node probe records
// nvidia-smi's GPU query (with driver_version) and /proc/driver/nvidia/version, containerd's configuration
// files, and the kernel log (src/core/probe/scripts/nodeScript.ts). Not `nvidia-smi -a` itself, which the
// probe does not run: the report says so.
import { parseCapture, sectionFiles, sectionText } from '../probe/capture.ts';

/** Kernel log lines about GPUs, drivers and OOM kills (what "relevant dmesg output" means for HAMi). */
const GPU_LOG_WORDS = ['nvrm', 'xid', 'nvidia', 'amdgpu', 'gpu', 'cuda', 'oom', 'out of memory', 'vgpu'];
const MAX_LOG_LINES = 200;

export interface NodeCaptureFacts {
  readonly kernel: string | undefined;
  /** nvidia-smi --query-gpu output (CSV), as captured. */
  readonly nvidiaSmiGpus: string | undefined;
  /** /proc/driver/nvidia/version, as captured. */
  readonly nvidiaDriver: string | undefined;
  /** containerd configuration files by path. */
  readonly containerdConfig: ReadonlyMap<string, string>;
  /** The last GPU-related kernel log lines, and where the log came from (dmesg, journalctl, kern.log). */
  readonly kernelLog: { readonly source: string; readonly lines: readonly string[] } | undefined;
}

export type NodeCaptureRead =
  { readonly kind: 'read'; readonly facts: NodeCaptureFacts } | { readonly kind: 'invalid'; readonly reason: string };

function meta(text: string | undefined, key: string): string | undefined {
  for (const line of (text ?? '').split('\n')) if (line.startsWith(`${key}=`)) return line.slice(key.length + 1);
  return undefined;
}

function gpuLines(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const lower = line.toLowerCase();
    if (GPU_LOG_WORDS.some((word) => lower.includes(word))) {
      out.push(line);
      if (out.length > MAX_LOG_LINES) out.shift();
    }
  }
  return out;
}

/** The node-only items from a node capture's text. Never throws. */
export function nodeCaptureFacts(text: string): NodeCaptureRead {
  const capture = parseCapture(text);
  if (capture.scope !== 'node')
    return {
      kind: 'invalid',
      reason: capture.scope === 'container' ? 'a container capture, not a node capture' : 'not a gpumem probe capture',
    };
  const log = sectionText(capture, 'kernel-log');
  const newline = log?.indexOf('\n') ?? -1;
  const first = log === undefined ? undefined : newline < 0 ? log : log.slice(0, newline);
  return {
    kind: 'read',
    facts: {
      kernel: meta(sectionText(capture, 'meta'), 'kernel'),
      nvidiaSmiGpus: sectionText(capture, 'nvidia-smi.gpu'),
      nvidiaDriver: [...sectionFiles(capture, 'nvidia-driver').values()][0],
      containerdConfig: sectionFiles(capture, 'containerd'),
      kernelLog:
        log !== undefined && first?.startsWith('source=')
          ? { source: first.slice('source='.length), lines: gpuLines(newline < 0 ? '' : log.slice(newline + 1)) }
          : undefined,
    },
  };
}
