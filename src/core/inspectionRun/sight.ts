// What an inspection could not see: each input the verdicts need that the probe could not read, why, and which
// verdicts that leaves unknown. Every report states it before the verdicts, and says "No problems found" only when the
// probe saw what the verdicts need: a probe that could not look must never read as a clean bill of health.
// (amdgpu's debugfs has its own verdict, memory.debugfs-unavailable, and is not repeated here.)
import type { Capture } from '../probe/capture.ts';
import type { NodeModel } from '../probe/nodeModel.ts';
import type { ContainerProbe } from '../probe/parsers/containerProbe.ts';

/** A stable name for each input (the agent's `gpumem_probe_input_unread{input}` label for the node probe's). */
export type UnreadInputId = 'kernel-log' | 'fdinfo' | 'capture' | 'process-maps';
/** The node probe's inputs: the agent runs only it, so these are the gauge's labels. */
export const UNREAD_INPUT_IDS: readonly UnreadInputId[] = ['kernel-log', 'fdinfo', 'capture'];

/** One input the verdicts need that the probe could not read. */
export interface UnreadInput {
  readonly id: UnreadInputId;
  /** What was not read, e.g. "other processes' /proc/<pid>/fd and fdinfo". */
  readonly input: string;
  /** Why, with what the capture shows. */
  readonly why: string;
  /** How to let the probe read it. */
  readonly remedy: string;
  /** The verdict ids this leaves unknown ("any" when the probe stopped before reading it). */
  readonly unknownVerdicts: readonly string[] | 'any';
}

/** What the probe saw, as the reports state it first. */
export type Sight =
  /** Every input the verdicts need was read. */
  | { readonly kind: 'whole' }
  /** Everything was read, and there is nothing for the GPU verdicts to judge: no GPU and no pod. */
  | { readonly kind: 'nothing-to-judge'; readonly reason: string }
  /** The probe finished, but some inputs were refused to it. */
  | { readonly kind: 'partial'; readonly unread: readonly UnreadInput[]; readonly nothingToJudge: string | undefined }
  /** The capture is cut short (timeout, dropped connection, truncated file): an error, whatever else was read. */
  | { readonly kind: 'cut-short'; readonly unread: readonly UnreadInput[] };

const OOM_VERDICTS = ['oom.global', 'oom.global-gtt', 'oom.memcg', 'oom.unclassified'];
const FDINFO_VERDICTS = [
  'memory.pod-gtt',
  'memory.pod-over-limit-in-reality',
  'memory.pod-headroom-low',
  'memory.gtt-sources-disagree',
  'memory.unaccounted-node',
];

const NOTHING_TO_JUDGE =
  'No GPU (no GPU among the DRM cards in /sys/class/drm, no nvidia-smi) and no Kubernetes pod (no kubepods cgroup) on this machine: nothing for the GPU memory verdicts to judge.';

export function sightOf(capture: Capture, model: NodeModel | undefined, container?: ContainerProbe): Sight {
  const unread = model ? nodeUnread(capture, model) : container ? containerUnread(container) : [];
  if (!capture.complete) return { kind: 'cut-short', unread: [...cutShortUnread(capture), ...unread] };
  const empty = model && !model.gpus.some(isGpu) && model.pods.length === 0 && !hasNvidiaGpu(capture) ? NOTHING_TO_JUDGE : undefined;
  if (unread.length > 0) return { kind: 'partial', unread, nothingToJudge: empty };
  return empty ? { kind: 'nothing-to-judge', reason: empty } : { kind: 'whole' };
}

/**
 * A DRM card is not necessarily a GPU: servers have a BMC display adapter (ASPEED ast, Matrox mgag200) and VMs a
 * virtual one (virtio-gpu, bochs), DRM cards without GPU memory.
 */
function isGpu(card: NodeModel['gpus'][number]): boolean {
  return (
    card.vendorId === '0x1002' ||
    card.vendorId === '0x10de' ||
    ['amdgpu', 'radeon', 'xe', 'i915', 'nouveau', 'nvidia'].includes(card.driver ?? '') ||
    card.gttTotal !== undefined ||
    card.vramTotal !== undefined
  );
}

function hasNvidiaGpu(capture: Capture): boolean {
  const section = capture.sections.get('nvidia-smi.gpu');
  return section !== undefined && !section.missing.includes('nvidia-smi') && section.records.some((record) => record.body.trim() !== '');
}

function nodeUnread(capture: Capture, model: NodeModel): UnreadInput[] {
  const unread: UnreadInput[] = [];
  const kernelLog = capture.sections.get('kernel-log');
  if (kernelLog?.missing.includes('kernel-log')) {
    const dmesgRefused = kernelLog.missing.some((what) => what.startsWith('dmesg'));
    unread.push({
      id: 'kernel-log',
      input: 'the kernel log (OOM kills)',
      why: dmesgRefused
        ? `${dmesgRefusedWhy(model)}; and no /var/log/kern.log, messages or syslog was readable`
        : 'no dmesg, no journald kernel log and no readable /var/log/kern.log, messages or syslog',
      remedy: 'Run the probe as root (sudo, or a debug pod with CAP_SYSLOG), or make /var/log/kern.log readable to it.',
      unknownVerdicts: OOM_VERDICTS,
    });
  }
  const fdBlind = fdBlindWhy(model);
  if (fdBlind !== undefined && (model.gpus.some(isGpu) || model.pods.length > 0)) {
    unread.push({
      id: 'fdinfo',
      input: "other processes' /proc/<pid>/fd and fdinfo (GPU memory per process and pod)",
      why: fdBlind,
      remedy: 'Run the probe as root with CAP_SYS_PTRACE (sudo, or a debug pod with SYS_PTRACE, e.g. kubectl debug --profile=sysadmin).',
      unknownVerdicts: FDINFO_VERDICTS,
    });
  }
  return unread;
}

/** The verdicts on each process of a container: whether it loads libvgpu.so and has its limit. */
const PROCESS_VERDICTS = ['hami.loaded', 'hami.env', 'hami.enforced', 'hami.bypassed'];

/**
 * A container probe that could not read its processes' maps or environ: which processes, and why, from the
 * capabilities it recorded (the same ptrace access check as the node probe's fdinfo).
 */
function containerUnread(container: ContainerProbe): UnreadInput[] {
  const processes = (container.processes ?? []).filter((process) => !process.kernelThread);
  const maps = processes.filter((process) => !process.maps.readable);
  const environ = processes.filter((process) => !process.environReadable);
  if (maps.length === 0 && environ.length === 0) return [];
  const uid = container.meta['uid'];
  const who = uid !== undefined && uid !== '0' ? `uid ${uid}` : 'root';
  const capabilities = container.probeRights.capabilities;
  const reasons: string[] = [];
  if (maps.length > 0) {
    const refused = `${count(maps, processes)} maps were refused (${pids(maps)})`;
    reasons.push(
      capabilities.kind === 'unrecorded'
        ? `${refused}${who === 'root' ? '' : ` (the probe ran as ${who}, not root)`}: without CAP_SYS_PTRACE the kernel lets only a process's owner read them`
        : capabilities.sysPtrace
          ? `${refused} although the probe held CAP_SYS_PTRACE (CapEff ${capabilities.hex}): a seccomp profile or a security module (AppArmor, SELinux) may block it, or the processes exited while it ran`
          : `${refused}: the probe ran as ${who} without CAP_SYS_PTRACE (CapEff ${capabilities.hex}), and the kernel lets only a process's owner (holding every capability the process holds) or a holder of CAP_SYS_PTRACE read them`,
    );
  }
  if (environ.length > 0) {
    const dac =
      capabilities.kind === 'known' &&
      (hasCapability(capabilities.hex, CAP_DAC_OVERRIDE) || hasCapability(capabilities.hex, CAP_DAC_READ_SEARCH));
    reasons.push(
      `${count(environ, processes)} environ were refused (${pids(environ)}): /proc/<pid>/environ is readable by its owner only (mode 0400), so another user's needs CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE as well as the ptrace access check${
        capabilities.kind === 'known'
          ? `; the probe ran as ${who} (CapEff ${capabilities.hex}${dac ? ', with a DAC capability: a security module may block it' : ''})`
          : ''
      }`,
    );
  }
  return [
    {
      id: 'process-maps',
      input: "the container's processes' /proc/<pid>/maps and environ (whether each loads libvgpu.so and has its limit)",
      why: reasons.join('; '),
      remedy:
        "Run the probe as the workload's user, or as root with CAP_SYS_PTRACE (kubectl debug --profile=sysadmin --target=<container>).",
      unknownVerdicts: PROCESS_VERDICTS,
    },
  ];
}

/** include/uapi/linux/capability.h. */
const CAP_DAC_OVERRIDE = 1n;
const CAP_DAC_READ_SEARCH = 2n;

function hasCapability(hex: string, bit: bigint): boolean {
  return ((BigInt(`0x${hex}`) >> bit) & 1n) === 1n;
}

function count(some: readonly unknown[], all: readonly unknown[]): string {
  return `${some.length} of ${all.length} process${all.length === 1 ? "'s" : "es'"}`;
}

function pids(processes: readonly { readonly pid: number }[]): string {
  return `${processes
    .slice(0, 5)
    .map((process) => `pid ${process.pid}`)
    .join(', ')}${processes.length > 5 ? ', …' : ''}`;
}

/** Why dmesg was refused: from kernel.dmesg_restrict and CAP_SYSLOG as the probe recorded them, else inferred. */
function dmesgRefusedWhy(model: NodeModel): string {
  const { dmesgRestrict, capabilities } = model.probeRights;
  if (dmesgRestrict === 1 || dmesgRestrict === 2) {
    const caps =
      capabilities.kind === 'known'
        ? ` and the probe's processes lack CAP_SYSLOG (CapEff ${capabilities.hex}${nonRoot(model)})`
        : `; only a process with CAP_SYSLOG may read it${nonRoot(model)}`;
    return `dmesg was refused: kernel.dmesg_restrict is ${dmesgRestrict} on this machine (read from /proc/sys/kernel/dmesg_restrict)${caps}`;
  }
  if (dmesgRestrict === 0)
    return 'dmesg failed although kernel.dmesg_restrict is 0 on this machine (read from /proc/sys/kernel/dmesg_restrict): a seccomp profile or a security module (AppArmor, SELinux) may block the syslog call';
  return `dmesg was refused${nonRoot(model)}: with kernel.dmesg_restrict=1 (the default on Debian and Ubuntu) only a process with CAP_SYSLOG may read it`;
}

/**
 * Why other processes' fd and fdinfo were not readable, or undefined when they were. The kernel's ptrace access check
 * (PTRACE_MODE_READ) lets a process read another's fds when it owns it and holds every capability the other holds,
 * or when it has CAP_SYS_PTRACE. With the capabilities recorded, CAP_SYS_PTRACE decides; without (an older probe),
 * only root is taken to see.
 */
function fdBlindWhy(model: NodeModel): string | undefined {
  const capabilities = model.probeRights.capabilities;
  const uid = model.probeUid;
  if (capabilities.kind === 'known') {
    if (capabilities.sysPtrace) return undefined;
    return uid !== undefined && uid !== '0'
      ? `the probe ran as uid ${uid} without CAP_SYS_PTRACE (CapEff ${capabilities.hex}): the kernel lets only a process's owner or a holder of CAP_SYS_PTRACE list its fds and read their fdinfo, so the GTT and VRAM the pods' processes hold were not seen`
      : `the probe ran as root without CAP_SYS_PTRACE (CapEff ${capabilities.hex}): the kernel refuses the fds and fdinfo of processes of other users and of processes holding capabilities the probe lacks, so some pods' GTT and VRAM may not have been seen`;
  }
  if (uid === undefined || uid === '0') return undefined;
  return `the probe ran as uid ${uid}, not root: the kernel lets only a process's owner or a holder of CAP_SYS_PTRACE list its fds and read their fdinfo, so the GTT and VRAM the pods' processes hold were not seen`;
}

function nonRoot(model: NodeModel): string {
  return model.probeUid !== undefined && model.probeUid !== '0' ? ` (the probe ran as uid ${model.probeUid}, not root)` : '';
}

function cutShortUnread(capture: Capture): UnreadInput[] {
  const sections = [...capture.sections.values()];
  const cut = sections.find((section) => !section.complete);
  const last = cut ?? sections.at(-1);
  const where = last ? `in section "${last.name}"` : 'before its first section';
  return [
    {
      id: 'capture',
      input: `everything the probe would have printed from ${last ? `section "${last.name}"` : 'its start'} on`,
      why: `the capture ends ${where} without the probe's "done" marker: the probe timed out, the connection dropped, or the file was truncated`,
      remedy: 'Run the probe again (a longer --timeout, or save the whole output) and analyse the complete capture.',
      unknownVerdicts: 'any',
    },
  ];
}

/** The line a report prints where it has no verdict to show: "No problems found" only when the probe saw enough. */
export function noVerdictLine(sight: Sight): string {
  switch (sight.kind) {
    case 'whole':
      return 'No problems found.';
    case 'nothing-to-judge':
      return sight.reason;
    case 'partial':
      if (sight.nothingToJudge) return `${sight.nothingToJudge} The inputs under "Not read" were not seen.`;
      return 'No problem in what the probe could read; the verdicts listed under "Not read" are unknown.';
    case 'cut-short':
      return 'The capture is cut short: no verdict can be trusted to be complete.';
  }
}

export function unreadOf(sight: Sight): readonly UnreadInput[] {
  return sight.kind === 'partial' || sight.kind === 'cut-short' ? sight.unread : [];
}

export function unknownVerdictsText(input: UnreadInput): string {
  return input.unknownVerdicts === 'any' ? 'any verdict' : input.unknownVerdicts.join(', ');
}
