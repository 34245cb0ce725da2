// The pods table: one row per pod, with numbers for sorting and texts for display.
import type { Inspection } from '../inspectionRun/analyze.ts';
import { parsePodCgroup } from '../probe/podCgroup.ts';
import type { OomVerdict } from '../verdicts/oom/oomVerdictTypes.ts';
import { leavesTooLittleHeadroom } from '../sizing.ts';
import type { Tone, PodRow } from './viewModelTypes.ts';
import { bytesCell, plural } from './cells.ts';
import type { PodEviction } from '../verdicts/eviction/kfdEviction.ts';
import { formatEvictedMs, formatRate } from '../verdicts/eviction/kfdEviction.ts';

function evictedCell(eviction: PodEviction): PodRow['evicted'] {
  const rate = eviction.ratePerSecond === undefined ? '' : `, ${formatRate(eviction.ratePerSecond)}`;
  return {
    value: eviction.evictedMs,
    text: `${formatEvictedMs(eviction.evictedMs)}${rate}`,
    exact: `${eviction.evictedMs} ms evicted by ${plural(eviction.processes, 'KFD process', 'KFD processes')} since ${eviction.processes === 1 ? 'it' : 'they'} started${rate ? ` (${formatRate(eviction.ratePerSecond)} over ${eviction.processes === 1 ? 'its lifetime' : 'their lifetimes'})` : ''}`,
  };
}

function shortId(id: string): string {
  return id.slice(0, 12);
}

function oomVerdictsOf(inspection: Inspection): readonly OomVerdict[] {
  return inspection.node?.oom?.verdicts ?? [];
}

export function buildPods(inspection: Inspection, names: ReadonlyMap<string, string>): PodRow[] {
  const node = inspection.node;
  if (!node) return [];
  const kills = oomVerdictsOf(inspection);
  // Containers holding GPU memory, per pod: from the GPU processes' own cgroup lines (one pass).
  const gpuContainers = new Map<string, Set<string>>();
  for (const process of node.model.gpuProcesses) {
    const parsed = process.cgroup !== undefined ? parsePodCgroup(process.cgroup) : undefined;
    if (!parsed?.containerId) continue;
    const set = gpuContainers.get(parsed.podUid) ?? new Set<string>();
    set.add(shortId(parsed.containerId));
    gpuContainers.set(parsed.podUid, set);
  }
  for (const process of node.nvidia.node.kind === 'read' ? node.nvidia.node.processes : []) {
    if (process.podUid === undefined || process.containerId === undefined) continue;
    const set = gpuContainers.get(process.podUid) ?? new Set<string>();
    set.add(shortId(process.containerId));
    gpuContainers.set(process.podUid, set);
  }
  const cgroups = new Map(node.model.pods.map((candidate) => [candidate.podUid, candidate]));
  const evictions = new Map(node.kfd.pods.map((eviction) => [eviction.podUid, eviction]));
  return node.pods.map((pod) => {
    const cgroup = cgroups.get(pod.podUid);
    const held = gpuContainers.get(pod.podUid);
    const containers =
      held && held.size > 0
        ? [...held]
        : (cgroup?.containers ?? []).flatMap((container) => (container.containerId ? [shortId(container.containerId)] : []));
    const podKills = kills.filter((kill) => kill.victim.podUid === pod.podUid);
    const last = podKills[podKills.length - 1];
    // A verdict may stand for several kills alike (oomRepeats.ts): count them all, and name the last one's time.
    const killCount = podKills.reduce((sum, kill) => sum + (kill.repeats?.count ?? 1), 0);
    const lastTime = last?.repeats?.last ?? last?.timestamp;
    const oomKillEvents = pod.events.get('oom_kill') ?? 0;
    let lastOom: PodRow['lastOom'];
    if (last) {
      lastOom = {
        text: `${lastTime ?? 'time unknown'}: ${last.kind === 'global' ? 'global OOM' : last.kind === 'memcg' ? 'cgroup OOM' : 'OOM'} (${last.victim.comm ?? '?'})${killCount > 1 ? `, ${killCount} kills` : ''}`,
        sortKey: `2 ${lastTime ?? ''}`,
        tone: 'error',
      };
    } else if (oomKillEvents > 0) {
      lastOom = {
        text: `${plural(oomKillEvents, 'kill')} (memory.events oom_kill)`,
        sortKey: `1 ${String(oomKillEvents).padStart(10, '0')}`,
        tone: 'warning',
      };
    } else {
      lastOom = { text: 'none', sortKey: '0', tone: 'ok' };
    }
    // The same judgement as the memory.pod-headroom-low verdict, by the headroom the inspection's remedies used.
    const headroomTone: Tone =
      pod.headroom === undefined || pod.limit === undefined || pod.trueFootprint === undefined
        ? 'info'
        : pod.headroom < 0
          ? 'error'
          : leavesTooLittleHeadroom(pod.limit, pod.trueFootprint, inspection.headroomPercent)
            ? 'warning'
            : 'ok';
    return {
      podUid: pod.podUid,
      pod: names.get(pod.podUid) ?? pod.podUid,
      named: names.has(pod.podUid),
      qos: pod.qos,
      container: containers.join(', ') || '—',
      processes: pod.processes.map((process) => `${process.comm ?? '?'} (${process.pid})`),
      limit: bytesCell(pod.limit, 'none'),
      current: bytesCell(pod.accounted),
      gtt: bytesCell(pod.gtt),
      // nvidia-smi printed a placeholder for one of the pod's processes: unknown, never 0.
      vram: pod.nvidia && pod.nvidia.usedBytes === undefined ? bytesCell(undefined, 'unknown') : bytesCell(pod.vram),
      footprint: bytesCell(pod.trueFootprint),
      headroom: bytesCell(pod.headroom),
      headroomTone,
      ...(pod.debugfsGtt !== undefined ? { debugfsGtt: bytesCell(pod.debugfsGtt) } : {}),
      ...(evictions.has(pod.podUid) ? { evicted: evictedCell(evictions.get(pod.podUid) as PodEviction) } : {}),
      lastOom,
      cgroupPath: pod.cgroupPath,
    };
  });
}
