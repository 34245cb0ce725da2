// Cluster fixtures for the API simulator: YAML files (test/simulator/fixtures/*.yaml) of real Kubernetes
// objects (Namespace, Node, Pod, Event, DaemonSet, Deployment, ReplicaSet, StatefulSet, Job, CronJob, with the
// ownerReferences their controllers write) served as written, plus three simulator-only
// kinds under apiVersion `sim.gpumem.dev/v1`:
// - `NodeRoot`      metadata.name = node; spec.scenario = apu | apu-cgroup-v1 | hami | plain | empty
//                   (the chroot scenarios of test/helpers/fixtureRoot.ts);
// - `ContainerRoot` spec.namespace / spec.pod / spec.container, and the busybox root's files, directories
//                   and fake /proc processes (test/unit/helpers/probeRoot.ts);
// - `User`          metadata.name = user (the client certificate's CN); spec.groups (O), spec.token,
//                   spec.cert (default true), spec.rules [{verbs, resources, namespaces?, apiGroups?}];
// - `PodLog`        spec.namespace / spec.pod / spec.container, spec.text (the container's log, served by
//                   pods/log: podLogs.ts) and spec.previous (true: the last terminated instance's log).
//
// Strings `@now` / `@now-20m` / `@now-3d` become timestamps relative to load time: a real API server drops
// events after an hour, so "recent" events must stay recent whenever the tests run.
// The loader fills what the API server or the kubelet would have written and a fixture leaves out: uids
// (stable per name), creationTimestamp, resourceVersion, pod status (conditions, IPs, container statuses,
// qosClass), event defaults and the Namespace of every namespaced object.
//
// generateCluster() builds a large cluster in memory (no roots) for the performance benchmarks.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Json, KubeObject } from './objects.ts';
import { completeFixturePod, containerIdFor, relativeTime, stableUid, timestamp } from './objects.ts';
import { podLogKey } from './podLogs.ts';
import type { ContainerRootSpec, NodeRootSpec } from './roots.ts';

export const FIXTURES_DIR = join(import.meta.dirname, 'fixtures');
export const SIM_API_VERSION = 'sim.gpumem.dev/v1';

export interface RbacRule {
  readonly verbs: readonly string[];
  /** Plural resources, `pods/exec` for a subresource, `*` for all. */
  readonly resources: readonly string[];
  /** Namespaces the rule applies in; absent = every namespace and the cluster scope. */
  readonly namespaces?: readonly string[];
  /** API groups ('' = core); absent = any. */
  readonly apiGroups?: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface SimulatorUser {
  readonly name: string;
  readonly groups?: readonly string[];
  /** A bearer token that authenticates as this user. */
  readonly token?: string;
  /** Issue a client certificate (CN = name, O = groups). Default true. */
  readonly cert?: boolean;
  /** Allow rules; a member of `system:masters` may do anything. */
  readonly rules?: readonly RbacRule[];
}

export interface ClusterFixtures {
  readonly objects: KubeObject[];
  readonly nodeRoots: Record<string, NodeRootSpec>;
  /** Keyed `namespace/pod/container`. */
  readonly containerRoots: Record<string, ContainerRootSpec>;
  readonly users: SimulatorUser[];
  /** Container logs keyed by podLogKey() (`namespace/pod/container`, `#previous` for the last terminated instance). */
  readonly podLogs?: Record<string, string>;
}

export function emptyFixtures(): ClusterFixtures {
  return { objects: [], nodeRoots: {}, containerRoots: {}, users: [], podLogs: {} };
}

function resolveTimes(value: unknown, now: number): unknown {
  if (typeof value === 'string') return relativeTime(value, now) ?? value;
  if (Array.isArray(value)) return value.map((v) => resolveTimes(v, now));
  if (value !== null && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value as Json)) out[k] = resolveTimes(v, now);
    return out;
  }
  return value;
}

/** Parses one YAML stream of fixture documents. */
export function parseFixtures(text: string, options: { readonly now?: number; readonly source?: string } = {}): ClusterFixtures {
  const now = options.now ?? Date.now();
  const out = emptyFixtures();
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${options.source ?? 'fixture'}: ${doc.errors[0]?.message ?? 'YAML error'}`);
    const raw = doc.toJS() as unknown;
    if (raw === null || raw === undefined) continue;
    const obj = resolveTimes(raw, now) as KubeObject;
    if (typeof obj.kind !== 'string' || typeof obj.metadata?.name !== 'string') {
      throw new Error(`${options.source ?? 'fixture'}: every document needs kind and metadata.name`);
    }
    if (obj.apiVersion === SIM_API_VERSION) {
      const spec = (obj['spec'] ?? {}) as Json;
      if (obj.kind === 'NodeRoot') out.nodeRoots[obj.metadata.name as string] = spec as unknown as NodeRootSpec;
      else if (obj.kind === 'ContainerRoot') {
        const key = `${String(spec['namespace'])}/${String(spec['pod'])}/${String(spec['container'])}`;
        out.containerRoots[key] = spec as unknown as ContainerRootSpec;
      } else if (obj.kind === 'PodLog') {
        const key = podLogKey(String(spec['namespace']), String(spec['pod']), String(spec['container']), spec['previous'] === true);
        (out.podLogs as Record<string, string>)[key] = String(spec['text'] ?? '');
      } else if (obj.kind === 'User') out.users.push({ name: obj.metadata.name as string, ...(spec as Omit<SimulatorUser, 'name'>) });
      else throw new Error(`${options.source ?? 'fixture'}: unknown simulator kind ${obj.kind}`);
      continue;
    }
    out.objects.push(obj);
  }
  return out;
}

export function mergeFixtures(...parts: readonly ClusterFixtures[]): ClusterFixtures {
  const out = emptyFixtures();
  for (const part of parts) {
    out.objects.push(...part.objects);
    Object.assign(out.nodeRoots, part.nodeRoots);
    Object.assign(out.containerRoots, part.containerRoots);
    Object.assign(out.podLogs as Record<string, string>, part.podLogs ?? {});
    for (const user of part.users) {
      const i = out.users.findIndex((u) => u.name === user.name);
      if (i >= 0) out.users[i] = user;
      else out.users.push(user);
    }
  }
  return out;
}

/** Loads every *.yaml in a directory (sorted by name) and completes the objects. */
/** Workloads with several pod templates (a KubeRay RayCluster, a LeaderWorkerSet, a JobSet), loaded with `groups: true`. */
export const GROUPS_FIXTURES_DIR = join(import.meta.dirname, 'fixtures-groups');

export function loadFixtures(
  dir: string = FIXTURES_DIR,
  options: { readonly now?: number; readonly groups?: boolean } = {},
): ClusterFixtures {
  const yamlIn = (from: string) =>
    readdirSync(from)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => join(from, f));
  const files = [...yamlIn(dir), ...(options.groups ? yamlIn(GROUPS_FIXTURES_DIR) : [])];
  const merged = mergeFixtures(
    ...files.map((f) =>
      parseFixtures(readFileSync(f, 'utf8'), { ...(options.now === undefined ? {} : { now: options.now }), source: basename(f) }),
    ),
  );
  return completeFixtures(merged, options.now);
}

function labelsOf(obj: KubeObject): Record<string, string> {
  return (obj.metadata.labels ??= {});
}

/** Fills the fields a real cluster would hold and the fixtures leave out. */
export function completeFixtures(fixtures: ClusterFixtures, now: number = Date.now()): ClusterFixtures {
  const objects = fixtures.objects.map((o) => structuredClone(o));
  const namespaces = new Set(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name as string));
  const nodeIPs = new Map<string, string>();
  for (const o of objects) {
    o.metadata.uid ??= stableUid(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);
    o.metadata.creationTimestamp ??= timestamp(now - 86_400_000);
    if (o.kind === 'Node') {
      const addresses = ((o['status'] as Json | undefined)?.['addresses'] ?? []) as Json[];
      const ip = addresses.find((a) => a['type'] === 'InternalIP')?.['address'];
      if (typeof ip === 'string') nodeIPs.set(o.metadata.name as string, ip);
      labelsOf(o)['kubernetes.io/hostname'] ??= o.metadata.name as string;
    }
  }
  for (const ns of [
    'default',
    'kube-system',
    'kube-public',
    'kube-node-lease',
    ...objects.flatMap((o) => (o.metadata.namespace ? [o.metadata.namespace] : [])),
  ]) {
    if (namespaces.has(ns)) continue;
    namespaces.add(ns);
    objects.push({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns, uid: stableUid(`Namespace//${ns}`), creationTimestamp: timestamp(now - 40 * 86_400_000) },
    });
  }
  let podIndex = 0;
  for (const o of objects) {
    if (o.kind === 'Namespace') {
      labelsOf(o)['kubernetes.io/metadata.name'] = o.metadata.name as string;
      o['spec'] ??= { finalizers: ['kubernetes'] };
      o['status'] ??= { phase: 'Active' };
    } else if (o.kind === 'Pod') {
      const node = (o['spec'] as Json | undefined)?.['nodeName'];
      podIndex++;
      completeFixturePod(
        o,
        typeof node === 'string' ? nodeIPs.get(node) : undefined,
        `10.244.${Math.floor(podIndex / 250) % 250}.${(podIndex % 250) + 2}`,
      );
    } else if (o.kind === 'Event') {
      o.metadata.namespace ??= 'default';
      const at = (o['lastTimestamp'] ?? o['firstTimestamp'] ?? o.metadata.creationTimestamp) as string;
      o['firstTimestamp'] ??= at;
      o['lastTimestamp'] ??= at;
      o['count'] ??= 1;
      o['type'] ??= 'Normal';
      o['eventTime'] ??= null;
      o['reportingComponent'] ??= ((o['source'] as Json | undefined)?.['component'] as string | undefined) ?? '';
      o['reportingInstance'] ??= ((o['source'] as Json | undefined)?.['host'] as string | undefined) ?? '';
    }
  }
  return { ...fixtures, objects };
}

// ---------------------------------------------------------------------------------------------------
// Bench-scale generator

export interface GenerateOptions {
  readonly nodes: number;
  readonly podsPerNode: number;
  /** Namespaces the pods spread over (default 20). */
  readonly namespaces?: number;
  readonly now?: number;
}

function hex(seed: string, length: number): string {
  return stableUid(seed).replace(/-/g, '').repeat(4).slice(0, length);
}

/**
 * A cluster of `nodes` nodes and `nodes × podsPerNode` pods, in memory, without roots: every 10th node an
 * APU (amd.com/gpu, some under memory pressure with a SystemOOM event), 3 in 10 HAMi NVIDIA nodes (the
 * register annotation alternating between the JSON and the CSV format), the rest CPU nodes. On GPU nodes
 * half the pods request GPUs (HAMi pods with the allocation annotations), and one pod in 25 restarted after
 * an OOM kill. Deterministic: the same options give the same objects.
 */
export function generateCluster(options: GenerateOptions): ClusterFixtures {
  const now = options.now ?? Date.now();
  const nsCount = options.namespaces ?? 20;
  const objects: KubeObject[] = [];
  for (let n = 0; n < nsCount; n++)
    objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${String(n).padStart(2, '0')}` } });
  let podSerial = 0;
  for (let i = 0; i < options.nodes; i++) {
    const kind = i % 10 === 0 ? 'apu' : i % 10 <= 3 ? 'hami' : 'cpu';
    const name = `${kind === 'apu' ? 'apu' : kind === 'hami' ? 'gpu' : 'cpu'}-node-${String(i).padStart(4, '0')}`;
    const ip = `10.${20 + Math.floor(i / 62500)}.${Math.floor(i / 250) % 250}.${(i % 250) + 2}`;
    const labels: Record<string, string> = {
      'kubernetes.io/hostname': name,
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'node.kubernetes.io/instance-type': kind === 'cpu' ? 'c6.8xlarge' : kind === 'apu' ? 'strix-halo-128' : 'p5.48xlarge',
    };
    const annotations: Record<string, string> = {
      'node.alpha.kubernetes.io/ttl': '0',
      'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
    };
    const capacity: Record<string, string> = {
      cpu: kind === 'apu' ? '32' : '64',
      memory: kind === 'apu' ? '133175944Ki' : '528012084Ki',
      pods: '110',
      'ephemeral-storage': '1966788624Ki',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
    };
    const taints: Json[] = [];
    const pressure = kind === 'apu' && i % 30 === 0;
    const gpuUuid = `GPU-${stableUid(`gpu/${name}`)}`;
    if (kind === 'apu') {
      labels['amd.com/gpu.device-id'] = '1586';
      capacity['amd.com/gpu'] = '1';
      taints.push({ key: 'amd.com/gpu', value: 'present', effect: 'NoSchedule' });
      if (pressure)
        taints.push({ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule', timeAdded: timestamp(now - 25 * 60_000) });
    } else if (kind === 'hami') {
      labels['gpu'] = 'on';
      capacity['nvidia.com/gpu'] = '10';
      annotations['hami.io/node-handshake'] = `Requesting_${timestamp(now - 20_000)
        .replace('T', ' ')
        .replace('Z', '')}`;
      annotations['hami.io/node-nvidia-register'] =
        i % 2 === 0
          ? JSON.stringify([
              {
                id: gpuUuid,
                count: 10,
                devmem: 81559,
                devcore: 100,
                type: 'NVIDIA-NVIDIA H100 80GB HBM3',
                numa: 0,
                mode: 'hami-core',
                health: true,
              },
            ])
          : `${gpuUuid},10,81559,100,NVIDIA-NVIDIA H100 80GB HBM3,0,true,0,hami-core:`;
    }
    const condition = (type: string, status: string, reason: string, message: string): Json => ({
      type,
      status,
      lastHeartbeatTime: timestamp(now - 10_000),
      lastTransitionTime: timestamp(now - 40 * 86_400_000),
      reason,
      message,
    });
    objects.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels, annotations, creationTimestamp: timestamp(now - 40 * 86_400_000) },
      spec: { podCIDR: `10.244.${i % 250}.0/24`, podCIDRs: [`10.244.${i % 250}.0/24`], ...(taints.length ? { taints } : {}) },
      status: {
        capacity,
        allocatable: { ...capacity, cpu: String(Number(capacity['cpu']) - 1) },
        conditions: [
          pressure
            ? condition('MemoryPressure', 'True', 'KubeletHasInsufficientMemory', 'kubelet has insufficient memory available')
            : condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
          condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
          condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
          condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
        ],
        addresses: [
          { type: 'InternalIP', address: ip },
          { type: 'Hostname', address: name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: hex(`m/${name}`, 32),
          systemUUID: stableUid(`s/${name}`),
          bootID: stableUid(`b/${name}`),
          kernelVersion: kind === 'apu' ? '7.1.0-9-generic' : '6.8.0-60-generic',
          osImage: kind === 'apu' ? 'Ubuntu 26.04 LTS' : 'Ubuntu 24.04.2 LTS',
          containerRuntimeVersion: 'containerd://2.1.4',
          kubeletVersion: 'v1.33.4',
          kubeProxyVersion: 'v1.33.4',
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
      },
    });
    if (pressure) {
      objects.push({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${name}.${hex(`ev/${name}`, 16)}`, namespace: 'default' },
        involvedObject: { kind: 'Node', name, uid: name },
        reason: 'SystemOOM',
        message: `System OOM encountered, victim process: llama-server, pid: ${4000 + i}`,
        source: { component: 'kubelet', host: name },
        lastTimestamp: timestamp(now - 20 * 60_000),
        type: 'Warning',
      });
    }
    for (let p = 0; p < options.podsPerNode; p++) {
      podSerial++;
      const ns = `team-${String(podSerial % nsCount).padStart(2, '0')}`;
      const podName = `job-${String(i).padStart(4, '0')}-${p}-${hex(`p/${podSerial}`, 5)}`;
      const gpu = kind !== 'cpu' && p % 2 === 0;
      const requests: Record<string, string> = { cpu: '500m', memory: '1Gi' };
      const limits: Record<string, string> = { memory: '2Gi' };
      const podAnnotations: Record<string, string> = {};
      const podLabels: Record<string, string> = { app: `job-${p}`, 'app.kubernetes.io/part-of': ns };
      let schedulerName: string | undefined;
      if (gpu && kind === 'apu') limits['amd.com/gpu'] = requests['amd.com/gpu'] = '1';
      if (gpu && kind === 'hami') {
        limits['nvidia.com/gpu'] = requests['nvidia.com/gpu'] = '1';
        limits['nvidia.com/gpumem'] = requests['nvidia.com/gpumem'] = '8000';
        schedulerName = 'hami-scheduler';
        podAnnotations['hami.io/vgpu-node'] = name;
        podAnnotations['hami.io/bind-phase'] = 'success';
        podAnnotations['hami.io/vgpu-devices-allocated'] = `${gpuUuid},NVIDIA,8000,0:;`;
        podAnnotations['hami.io/vgpu-devices-to-allocate'] = ';';
      }
      const oom = podSerial % 25 === 0;
      const uid = stableUid(`pod/${ns}/${podName}`);
      const containerStatus: Json = { name: 'main', restartCount: oom ? 2 : 0 };
      if (oom)
        containerStatus['lastState'] = {
          terminated: {
            exitCode: 137,
            reason: 'OOMKilled',
            startedAt: timestamp(now - 7_200_000),
            finishedAt: timestamp(now - 3_600_000),
            containerID: containerIdFor(`${uid}/main/old`),
          },
        };
      objects.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: podName,
          namespace: ns,
          uid,
          labels: podLabels,
          ...(Object.keys(podAnnotations).length ? { annotations: podAnnotations } : {}),
          creationTimestamp: timestamp(now - 86_400_000 - p * 60_000),
        },
        spec: {
          nodeName: name,
          ...(schedulerName ? { schedulerName } : {}),
          containers: [
            { name: 'main', image: gpu ? 'ghcr.io/example/infer:1.4.2' : 'ghcr.io/example/worker:2.0.1', resources: { requests, limits } },
          ],
          ...(kind === 'apu' ? { tolerations: [{ key: 'amd.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] } : {}),
          restartPolicy: 'Always',
        },
        status: { phase: 'Running', containerStatuses: [containerStatus] },
      });
    }
  }
  return completeFixtures(
    {
      objects,
      nodeRoots: {},
      containerRoots: {},
      users: [
        { name: 'admin', groups: ['system:masters'] },
        { name: 'viewer', token: 'gpumem-bench-viewer-token', cert: false, rules: [{ verbs: ['get', 'list', 'watch'], resources: ['*'] }] },
      ],
    },
    now,
  );
}
