// Does NVML inside the container report the quota or the physical GPU? HAMi's troubleshooting page ("GPU
// Memory Enforcement: How It Works and How to Debug It") names it as evidence of enforcement: "check that
// nvidia-smi inside the container reports the quota rather than physical VRAM". libvgpu.so hooks
// nvmlDeviceGetMemoryInfo and answers with CUDA_DEVICE_MEMORY_LIMIT_<i>, so the probe's own nvidia-smi (run
// with the container's env, through its /etc/ld.so.preload) shows the quota when the hook is in place.
//
// Per GPU row of the container's nvidia-smi: the quota from the env the probe ran with
// (CUDA_DEVICE_MEMORY_LIMIT_<index>, then CUDA_DEVICE_MEMORY_LIMIT), else the pod's
// `hami.io/vgpu-devices-allocated` for that UUID; the physical size from the node's own nvidia-smi (driver
// side, never hooked), else HAMi's node registration (`hami.io/node-nvidia-register` devmem). Reporting the
// physical size, or more than the quota, proves NVML is not intercepted; reporting the quota is evidence for
// NVML only: allocation is proven by allocating past the quota (Test HAMi Enforcement…, gpumem hami-test).
import type { Capture } from '../../probe/capture.ts';
import { buildNvidiaNode } from '../../probe/nvidiaNode.ts';
import type { NvidiaGpu } from '../../probe/nvidiaNode.ts';
import type { SmiGpu } from '../../probe/parsers/nvidiaSmi.ts';
import type { Check, HamiClusterFacts } from './hamiCheck.ts';
import { fail, parseHamiLimit, pass, unknown } from './hamiFacts.ts';
import type { Facts } from './hamiFacts.ts';

const MiB = 1024 * 1024;
/** nvidia-smi prints whole MiB (rounded down): a quota and the total it reports may differ by one. */
const TOLERANCE_MIB = 1;

type Physical = { readonly mib: number; readonly evidence: string };
type Quota = { readonly mib: number; readonly evidence: string };

/** What one GPU row shows, as a discriminated union: each kind is one sentence of the finding. */
export type NvmlRowFinding =
  | { readonly kind: 'quota'; readonly gpu: string; readonly total: number; readonly quota: Quota; readonly physical?: Physical }
  | { readonly kind: 'physical'; readonly gpu: string; readonly total: number; readonly quota: Quota; readonly physical: Physical }
  | { readonly kind: 'above-quota'; readonly gpu: string; readonly total: number; readonly quota: Quota }
  | {
      readonly kind: 'quota-above-device';
      readonly gpu: string;
      readonly total: number;
      readonly quota: Quota;
      readonly physical: Physical;
    }
  | { readonly kind: 'below-quota'; readonly gpu: string; readonly total: number; readonly quota: Quota }
  | { readonly kind: 'no-quota'; readonly gpu: string; readonly total: number };

export function checkNvmlQuota(facts: Facts, node: Capture | undefined, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'bypass.nvml-quota',
    subject: 'the GPU memory nvidia-smi reports inside the container',
    group: 'bypass' as const,
    command: 'nvidia-smi --query-gpu=index,uuid,memory.total --format=csv,noheader,nounits (in the container and on the node)',
    impact: 'bypass' as const,
  };
  const rows = (facts.container?.nvidiaSmi.gpus?.rows ?? []).filter((row) => !row.memoryUnreported && row.memoryTotalMiB !== undefined);
  if (rows.length === 0)
    return unknown(
      { ...common, evidence: [] },
      'no GPU memory total from nvidia-smi in the container to compare with the quota',
      'nvidia-smi did not run, printed no GPU, or reports no memory (see the check of the GPU memory NVML reports)',
      'Run nvidia-smi in the container.',
    );
  // The node's GPUs, read once for every row: the physical sizes by UUID.
  const nvidia = node ? buildNvidiaNode(node) : undefined;
  const nodeGpus = nvidia?.kind === 'read' ? nvidia.gpus : [];
  const findings = rows.map((row) => rowFinding(row, facts, nodeGpus, cluster));
  const evidence = evidenceOf(rows, findings);
  const proven = findings.filter((f) => f.kind === 'physical' || f.kind === 'above-quota');
  if (proven.length > 0)
    return fail(
      { ...common, evidence },
      proven.map(sentence).join('; '),
      'libvgpu.so answers nvmlDeviceGetMemoryInfo with the quota when it is loaded and in control; a process that sees the whole GPU in NVML is not limited by HAMi-core',
      'Check the preload and the env (steps 1–3): /etc/ld.so.preload must name libvgpu.so and CUDA_DISABLE_CONTROL must not be set; restart the pod after fixing the device plugin.',
      ['hami.disable-control', 'hami.preload', 'hami.libvgpu', 'bypass.preload'],
    );
  const held = findings.filter((f) => f.kind === 'quota' || f.kind === 'quota-above-device');
  if (held.length === findings.length)
    return pass(
      { ...common, evidence },
      held.map(sentence).join('; '),
      'evidence of interception for NVML, not yet for allocation: only allocating past the quota proves that (Test HAMi Enforcement…, gpumem hami-test)',
    );
  const open = findings.filter((f) => f.kind === 'no-quota' || f.kind === 'below-quota');
  return unknown(
    { ...common, evidence },
    open.map(sentence).join('; '),
    open.some((f) => f.kind === 'no-quota')
      ? 'no quota to compare with: no CUDA_DEVICE_MEMORY_LIMIT in the env the probe ran with and no hami.io/vgpu-devices-allocated for this GPU'
      : 'less than the quota: either the quota is larger than the GPU, or the total is not the quota; the physical size is not known to tell',
    'Inspect the pod through the cluster (it reads the allocation and the node registration), or run Inspect Node for the physical size.',
  );
}

function rowFinding(row: SmiGpu, facts: Facts, nodeGpus: readonly NvidiaGpu[], cluster: HamiClusterFacts | undefined): NvmlRowFinding {
  const total = row.memoryTotalMiB ?? 0;
  const gpu = `GPU ${row.index ?? '?'}`;
  const quota = quotaOf(row, facts, cluster);
  if (quota === undefined) return { kind: 'no-quota', gpu, total };
  const physical = physicalOf(row.uuid, nodeGpus, cluster);
  const near = (a: number, b: number): boolean => Math.abs(a - b) <= TOLERANCE_MIB;
  if (near(total, quota.mib)) return { kind: 'quota', gpu, total, quota, ...(physical ? { physical } : {}) };
  if (physical && near(total, physical.mib))
    return quota.mib > physical.mib
      ? { kind: 'quota-above-device', gpu, total, quota, physical }
      : { kind: 'physical', gpu, total, quota, physical };
  if (total > quota.mib) return { kind: 'above-quota', gpu, total, quota };
  return { kind: 'below-quota', gpu, total, quota };
}

/** The quota HAMi-core applies to this row's device, in MiB; undefined when none is known or it is 0 (no limit). */
function quotaOf(row: SmiGpu, facts: Facts, cluster: HamiClusterFacts | undefined): Quota | undefined {
  // The env nvidia-smi ran with (the probe's), then PID 1's, then the pod spec's.
  const envs: [string, Readonly<Record<string, string>> | undefined][] = [
    ['env', facts.container?.env],
    ['/proc/1/environ', facts.pid1Env],
    ['pod spec', cluster?.podEnv],
  ];
  const names =
    row.index !== undefined ? [`CUDA_DEVICE_MEMORY_LIMIT_${row.index}`, 'CUDA_DEVICE_MEMORY_LIMIT'] : ['CUDA_DEVICE_MEMORY_LIMIT'];
  for (const [where, env] of envs)
    for (const name of names) {
      const value = env?.[name];
      if (value === undefined) continue;
      const bytes = parseHamiLimit(value);
      if (bytes > 0 && Number.isSafeInteger(bytes))
        return { mib: Math.floor(bytes / MiB), evidence: `${where}: ${name}=${value.slice(0, 64)}` };
    }
  const allocated = row.uuid !== undefined ? cluster?.allocatedDevices?.find((device) => device.uuid === row.uuid) : undefined;
  if (allocated && allocated.memMiB > 0)
    return { mib: allocated.memMiB, evidence: `hami.io/vgpu-devices-allocated: ${allocated.uuid},${allocated.memMiB} MiB` };
  return undefined;
}

function physicalOf(uuid: string | undefined, nodeGpus: readonly NvidiaGpu[], cluster: HamiClusterFacts | undefined): Physical | undefined {
  if (uuid === undefined) return undefined;
  const gpu = nodeGpus.find((candidate) => candidate.uuid === uuid);
  if (gpu?.memoryTotalMiB !== undefined) return { mib: gpu.memoryTotalMiB, evidence: `node: ${gpu.evidence}` };
  const registered = cluster?.registeredDevices?.find((device) => device.uuid === uuid);
  if (registered && registered.devmemMiB > 0)
    return {
      mib: registered.devmemMiB,
      evidence: `hami.io/node-nvidia-register: ${registered.uuid} devmem ${registered.devmemMiB} MiB`,
    };
  return undefined;
}

function sentence(finding: NvmlRowFinding): string {
  const total = mib(finding.total);
  switch (finding.kind) {
    case 'quota':
      return `${finding.gpu} reports the ${mib(finding.quota.mib)} quota${finding.physical ? `, not the physical ${mib(finding.physical.mib)}` : ''}: libvgpu.so intercepts NVML`;
    case 'quota-above-device':
      return `${finding.gpu} reports its physical ${total}, less than the ${mib(finding.quota.mib)} quota: the quota does not limit it`;
    case 'physical':
      return `${finding.gpu} reports the physical ${total}, not the ${mib(finding.quota.mib)} quota: libvgpu.so is not intercepting NVML`;
    case 'above-quota':
      return `${finding.gpu} reports ${total}, more than the ${mib(finding.quota.mib)} quota: libvgpu.so is not intercepting NVML`;
    case 'below-quota':
      return `${finding.gpu} reports ${total}, less than the ${mib(finding.quota.mib)} quota`;
    case 'no-quota':
      return `${finding.gpu} reports ${total}, and no quota is known to compare it with`;
  }
}

function evidenceOf(rows: readonly SmiGpu[], findings: readonly NvmlRowFinding[]): string[] {
  const out = rows.map((row) => `nvidia-smi: ${row.line}`);
  const seen = new Set(out);
  for (const finding of findings) {
    const lines = [
      ...('quota' in finding ? [finding.quota.evidence] : []),
      ...('physical' in finding && finding.physical ? [finding.physical.evidence] : []),
    ];
    for (const line of lines)
      if (!seen.has(line)) {
        seen.add(line);
        out.push(line);
      }
  }
  return out;
}

function mib(n: number): string {
  return `${n.toLocaleString('en-US')} MiB`;
}
