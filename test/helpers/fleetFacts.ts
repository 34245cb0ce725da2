// A large synthetic fleet as FleetFacts (src/core/fleet/facts.ts), of the shape the Prometheus source gives: nodes of
// both vendors (every tenth an APU with GPU memory outside cgroups), labels, and pods spread over 25 namespaces, some
// over their limit once GPU memory is counted, a few global OOM kills and HAMi rows. For bench/fleetView.mjs run alone
// (bench/fleet.mjs reads its fleet from a real Prometheus) and for tests that need a fleet of thousands.
import type { FleetFacts, NodeFacts, PodFacts } from '../../src/core/fleet/facts.ts';

const GiB = 1024 ** 3;

export function syntheticFleetFacts(nodeCount: number, podsPerNode: number, at = 1_767_225_600): FleetFacts {
  const nodes: NodeFacts[] = [];
  const pods: PodFacts[] = [];
  for (let n = 0; n < nodeCount; n++) {
    const name = `gpu-node-${String(n).padStart(5, '0')}`;
    const apu = n % 10 === 0;
    nodes.push({
      node: name,
      memTotal: (apu ? 128 : 512) * GiB,
      memAvailable: (apu ? 32 : 256) * GiB,
      cgroup: (n % 97) * GiB,
      unaccounted: apu ? (n % 13) * GiB : 0,
      peakUsed: undefined,
      gttUsed: apu ? (n % 13) * GiB : undefined,
      pods: podsPerNode,
      vendor: apu || n % 3 !== 0 ? 'amd' : 'nvidia',
      unifiedMemory: apu,
      labels: { 'kubernetes.io/hostname': name, pool: apu ? 'apu' : 'dgpu', zone: `z${n % 4}` },
      lastSeen: at - 10,
    });
    for (let p = 0; p < podsPerNode; p++) {
      const serial = String(n * podsPerNode + p);
      const unaccounted = apu ? p * GiB : 0;
      pods.push({
        node: name,
        namespace: `team-${(n + p) % 25}`,
        pod: `pod-${serial}`,
        uid: `00000000-0000-4000-8000-${serial.padStart(12, '0')}`,
        cgroup: 4 * GiB,
        limit: 8 * GiB,
        unaccounted,
        footprint: 4 * GiB + unaccounted,
        peakFootprint: undefined,
      });
    }
  }
  const over = pods.filter((pod) => (pod.footprint ?? 0) > (pod.limit ?? Infinity)).length;
  return {
    source: { kind: 'prometheus', description: 'a synthetic fleet' },
    window: { label: '24h', seconds: 86_400 },
    at,
    nodes,
    pods,
    podCounts: { total: pods.length, overLimit: over },
    kills: nodes
      .filter((_, i) => i % 500 === 0)
      .map((node, i) => ({
        node: node.node,
        namespace: 'team-1',
        pod: `pod-${i}`,
        uid: `u${i}`,
        scope: 'global',
        gpuSignature: true,
        count: 1,
      })),
    killsMeaning: 'window',
    killsOverTime: [],
    hami: nodes
      .filter((node) => node.vendor === 'nvidia')
      .slice(0, 200)
      .map((node, i) => ({
        node: node.node,
        namespace: 'team-2',
        pod: `pod-h${i}`,
        container: 'main',
        state: i % 7 === 0 ? 'bypassed' : 'enforced',
        quotaBytes: 4 * GiB,
      })),
    silentNodes: [],
    problems: [],
  };
}
