// Where the container runtime or the GPU takes the container out of HAMi's reach: a runtime reachable
// from inside starts containers without HAMi's mounts (HAMi#1777), gVisor's Sentry ignores
// /etc/ld.so.preload (HAMi#2581), HAMi < v2.10.0 let privileged containers run unlimited (HAMi#2138), and a
// unified-memory GPU reports no memory for HAMi-core to divide (KAI-Scheduler#1967).
import type { Check, HamiClusterFacts } from './hamiCheck.ts';
import { fail, pass, unknown } from './hamiFacts.ts';
import type { Facts } from './hamiFacts.ts';

export function checkDind(facts: Facts): Check {
  const common = {
    id: 'bypass.dind',
    subject: 'container runtimes reachable from the container',
    group: 'bypass' as const,
    command: 'ls -l /var/run/docker.sock /run/containerd/containerd.sock; echo $DOCKER_HOST; ps | grep -E "dockerd|containerd"',
    impact: 'risk' as const,
  };
  const dind = facts.container?.dind;
  if (!dind)
    return unknown(
      { ...common, evidence: [] },
      'the runtime sockets and daemons were not captured',
      'the capture has no dind section',
      'Run the container probe in the workload container.',
    );
  const evidence = dind.lines.map((line) => `dind: ${line}`);
  if (dind.sockets.length > 0 || dind.dockerHost !== undefined || dind.daemons.length > 0) {
    const found = [
      ...dind.sockets,
      ...(dind.dockerHost !== undefined ? [`DOCKER_HOST=${dind.dockerHost}`] : []),
      ...dind.daemons.map((daemon) => `pid ${daemon.pid} ${daemon.comm}`),
    ];
    return fail(
      { ...common, evidence },
      'a container runtime is reachable from this container: the containers it starts are not limited',
      `${found.slice(0, 4).join(', ')}; its containers get none of HAMi's hostPath mounts or env (HAMi#1777)`,
      "Avoid Docker-in-Docker for GPU workloads; run them as pods. (With hostPID, the node's own containerd shows up here too: check the evidence.)",
    );
  }
  return pass(
    { ...common, evidence },
    'no container runtime is reachable from this container',
    'no runtime socket, DOCKER_HOST or daemon process',
  );
}

export function checkGvisor(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'bypass.gvisor',
    subject: "the pod's runtime class",
    group: 'bypass' as const,
    command: "kubectl get pod <pod> -o jsonpath='{.spec.runtimeClassName}'",
    impact: 'bypass' as const,
  };
  const runtimeClass = cluster?.runtimeClassName;
  const remedy = "gVisor's Sentry does not honour /etc/ld.so.preload (HAMi#2581): run HAMi-limited pods with runc/nvidia, not runsc.";
  if (runtimeClass !== undefined) {
    const evidence = [`pod spec: runtimeClassName: ${runtimeClass ?? '(none)'}`];
    if (runtimeClass !== null && /gvisor|runsc/i.test(runtimeClass))
      return fail(
        { ...common, evidence },
        `the pod runs under gVisor (${runtimeClass}): /etc/ld.so.preload is ignored`,
        "gVisor's Sentry does not honour the preload, so libvgpu.so is never loaded (HAMi#2581)",
        remedy,
      );
    return pass(
      { ...common, evidence },
      'the pod does not run under gVisor',
      runtimeClass === null ? 'it sets no runtimeClassName' : `its runtimeClassName is ${runtimeClass}`,
    );
  }
  const kernel = facts.container?.kernel;
  const hint = kernel === '4.4.0' || /gvisor/i.test(facts.container?.procVersion ?? '');
  const evidence = kernel !== undefined ? [`meta: kernel=${kernel}`] : [];
  return unknown(
    { ...common, evidence },
    hint ? "probably gVisor: the kernel reports 4.4.0, gVisor's default" : "the pod's runtimeClassName is not known: there is no pod spec",
    hint
      ? "the pod's runtimeClassName, which would tell for sure, is not in this capture"
      : 'gVisor shows there (runsc); gpumem fills it in when it inspects through Kubernetes',
    remedy,
  );
}

export function checkUnifiedMemory(facts: Facts): Check {
  const common = {
    id: 'bypass.unified-memory',
    subject: 'the GPU memory NVML reports',
    group: 'bypass' as const,
    command: 'nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits',
    impact: 'bypass' as const,
  };
  const gpus = facts.container?.nvidiaSmi.gpus;
  if (!gpus)
    return unknown(
      { ...common, evidence: facts.container?.nvidiaSmi.missing ? ['nvidia-smi.gpu: missing nvidia-smi'] : [] },
      'nvidia-smi did not run in the container',
      'without it the GPU memory NVML reports is not known',
      'Run nvidia-smi in the container.',
    );
  const evidence = [...gpus.rows.map((row) => `nvidia-smi: ${row.line}`), ...gpus.errors.map((line) => `nvidia-smi: ${line}`)];
  const unreported = gpus.rows.filter((row) => row.memoryUnreported);
  if (unreported.length > 0) {
    return fail(
      { ...common, evidence },
      'a unified-memory GPU (memory.total [N/A]): HAMi-core cannot enforce a limit',
      'NVML reports no GPU memory, as on GB10, so there is nothing for HAMi-core to divide (KAI-Scheduler#1967)',
      'Do not rely on HAMi memory limits on unified-memory GPUs; bound the pod with its memory cgroup (resources.limits.memory) instead.',
    );
  }
  if (gpus.rows.length === 0)
    return unknown(
      { ...common, evidence },
      'nvidia-smi printed no GPU',
      'so the GPU memory is not known',
      'Check nvidia-smi in the container.',
    );
  return pass(
    { ...common, evidence },
    'the GPU reports its own memory: HAMi-core can enforce a limit on it',
    `nvidia-smi reports memory.total ${gpus.rows.map((row) => `${row.memoryTotalMiB ?? '?'} MiB`).join(', ')}; whether that is the quota is the check of the GPU memory nvidia-smi reports inside the container`,
  );
}

export function checkPrivileged(cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'bypass.privileged',
    subject: 'privileged containers',
    group: 'bypass' as const,
    command: "kubectl get pod <pod> -o jsonpath='{.spec.containers[*].securityContext.privileged}'",
    impact: 'bypass' as const,
  };
  if (cluster?.privileged === undefined)
    return unknown(
      { ...common, evidence: [] },
      'whether a container is privileged is not known: there is no pod spec',
      'privileged is a pod-spec fact; gpumem fills it in when it inspects through Kubernetes',
      'gpumem fills this in when it inspects through Kubernetes.',
    );
  const evidence = [
    `pod spec: privileged: ${cluster.privileged}`,
    ...(cluster.hamiVersion ? [`hami version: ${cluster.hamiVersion}`] : []),
  ];
  if (!cluster.privileged)
    return pass({ ...common, evidence }, 'no container of the pod is privileged', 'the pod spec sets privileged on none');
  const version = /(?<!\d)v?(\d+)\.(\d+)/.exec(cluster.hamiVersion ?? '');
  const remedy =
    'Upgrade HAMi to v2.10.0+ (its webhook denies privileged pods with HAMi resources, PR#2139) and drop privileged from GPU containers.';
  if (!version)
    return unknown(
      { ...common, evidence },
      'a privileged container, and the HAMi version is not known',
      'HAMi before v2.10.0 lets a privileged container run without limits (HAMi#2138)',
      remedy,
    );
  const old = Number(version[1]) < 2 || (Number(version[1]) === 2 && Number(version[2]) < 10);
  if (old)
    return fail(
      { ...common, evidence },
      `a privileged container under HAMi ${version[0]}: it runs without limits`,
      "HAMi before v2.10.0's webhook skips privileged containers (HAMi#2138)",
      remedy,
    );
  return pass(
    { ...common, evidence },
    `HAMi ${version[0]} denies privileged pods that request HAMi resources`,
    'since v2.10.0 (PR#2139), so a privileged container here was not given HAMi resources',
  );
}
