// What the kubelet does with a scheduled pod: Pending, ContainerCreating (or a waiting reason the faults ask for),
// Running with its root built, and DeadlineExceeded after activeDeadlineSeconds, each with its Events.
import type { SimContext } from './context.ts';
import type { RecordEvent } from './events.ts';
import type { Json, KubeObject } from './objects.ts';
import { containersOf, podConditions, podSpec, runningContainerStatus, timestamp, waitingContainerStatus } from './objects.ts';
import type { PodRuntime } from './types.ts';

export function podStarterFor(
  ctx: SimContext,
  deps: {
    readonly runtime: (uid: string) => PodRuntime;
    readonly updatePod: (
      namespace: string,
      name: string,
      uid: string,
      change: (pod: KubeObject) => boolean | void,
    ) => KubeObject | undefined;
    readonly recordEvent: RecordEvent;
  },
) {
  const { store, roots, later, startDelay } = ctx;
  const { runtime, updatePod, recordEvent } = deps;

  const nodeIP = (name: string | undefined): string | undefined => {
    if (!name) return undefined;
    const node = store.get('nodes', undefined, name);
    const addresses = ((node?.['status'] as Json | undefined)?.['addresses'] ?? []) as Json[];
    const ip = addresses.find((a) => a['type'] === 'InternalIP')?.['address'];
    return typeof ip === 'string' ? ip : undefined;
  };

  let podIpCounter = 10;

  const startPod = (created: KubeObject): void => {
    const { namespace, name, uid } = created.metadata as { namespace: string; name: string; uid: string };
    const spec = podSpec(created);
    if (!spec.nodeName || !store.get('nodes', undefined, spec.nodeName)) return; // nothing schedules it: stays Pending
    const r = runtime(uid);
    const hostIP = nodeIP(spec.nodeName);
    // The kubelet refuses recursiveReadOnly Enabled on a runtime that does not report the feature (KEP-3857).
    const wantsRro = containersOf(created).some((c) => (c.volumeMounts ?? []).some((vm) => vm.recursiveReadOnly === 'Enabled'));
    const handlers = ((store.get('nodes', undefined, spec.nodeName)?.['status'] as Json | undefined)?.['runtimeHandlers'] ?? []) as {
      name?: string;
      features?: { recursiveReadOnlyMounts?: boolean };
    }[];
    const rroMissing = wantsRro && handlers.find((h) => (h.name ?? '') === '')?.features?.recursiveReadOnlyMounts !== true;
    r.timers.push(
      later(Math.floor(startDelay / 2), () => {
        updatePod(namespace, name, uid, (pod) => {
          const status = pod['status'] as Json;
          status['hostIP'] = hostIP;
          status['hostIPs'] = hostIP ? [{ ip: hostIP }] : [];
          status['startTime'] = timestamp();
          status['conditions'] = podConditions(false, timestamp());
          const neverStarts = spec.nodeName !== undefined && ctx.faults.podsNeverStartOnNodes?.includes(spec.nodeName) === true;
          const reason =
            ctx.faults.podWaitingReason ?? (neverStarts ? 'ImagePullBackOff' : rroMissing ? 'CreateContainerConfigError' : undefined);
          status['containerStatuses'] = containersOf(pod).map((c) =>
            waitingContainerStatus(
              c,
              reason ?? 'ContainerCreating',
              reason === 'ImagePullBackOff'
                ? `Back-off pulling image "${c.image ?? ''}"`
                : rroMissing
                  ? 'failed to create a recursive read-only mount: the runtime handler does not support it'
                  : undefined,
            ),
          );
          if (reason && !rroMissing) {
            r.timers.forEach((t) => clearTimeout(t));
            for (const c of containersOf(pod))
              recordEvent(
                pod,
                'Failed',
                `Failed to pull image "${c.image ?? ''}": failed to resolve reference "${c.image ?? ''}": not found`,
                'Warning',
                'kubelet',
                `spec.containers{${c.name}}`,
              );
          }
        });
        if (
          ctx.faults.podWaitingReason ||
          rroMissing ||
          (spec.nodeName !== undefined && ctx.faults.podsNeverStartOnNodes?.includes(spec.nodeName))
        )
          return;
        r.timers.push(
          later(Math.ceil(startDelay / 2), () => {
            const pod = store.get('pods', namespace, name);
            if (!pod || pod.metadata.uid !== uid || pod.metadata.deletionTimestamp) return;
            if (!roots.unavailable) {
              try {
                roots.podRoot(pod);
              } catch (err) {
                recordEvent(pod, 'FailedMount', `MountVolume.SetUp failed: ${(err as Error).message}`, 'Warning');
                return;
              }
            }
            const running = updatePod(namespace, name, uid, (p) => {
              const status = p['status'] as Json;
              const at = timestamp();
              status['phase'] = 'Running';
              status['conditions'] = podConditions(true, at);
              status['podIP'] = `10.244.${200 + (Math.floor(podIpCounter / 250) % 50)}.${(podIpCounter++ % 250) + 2}`;
              status['podIPs'] = [{ ip: status['podIP'] }];
              status['containerStatuses'] = containersOf(p).map((c) => runningContainerStatus(p, c, at));
            });
            if (!running) return;
            for (const c of containersOf(running)) {
              recordEvent(
                running,
                'Pulled',
                `Container image "${c.image ?? ''}" already present on machine`,
                'Normal',
                'kubelet',
                `spec.containers{${c.name}}`,
              );
              recordEvent(running, 'Created', `Created container: ${c.name}`, 'Normal', 'kubelet', `spec.containers{${c.name}}`);
              recordEvent(running, 'Started', `Started container ${c.name}`, 'Normal', 'kubelet', `spec.containers{${c.name}}`);
            }
            const deadline = podSpec(running).activeDeadlineSeconds;
            if (typeof deadline === 'number' && deadline > 0) {
              // As the kubelet's activeDeadlineHandler: counted from status.startTime, not from Running.
              const startedAt = Date.parse(String((running['status'] as Json)['startTime'] ?? ''));
              const elapsed = Number.isFinite(startedAt) ? Math.max(0, Date.now() - startedAt) : 0;
              r.timers.push(
                later(Math.max(0, deadline * 1000 - elapsed), () => {
                  for (const e of r.execs) e.kill();
                  roots.releasePod(uid);
                  const failed = updatePod(namespace, name, uid, (p) => {
                    const status = p['status'] as Json;
                    const at = timestamp();
                    status['phase'] = 'Failed';
                    status['reason'] = 'DeadlineExceeded';
                    status['message'] = 'Pod was active on the node longer than the specified deadline';
                    status['conditions'] = podConditions(false, at);
                    status['containerStatuses'] = containersOf(p).map((c) => ({
                      ...runningContainerStatus(p, c, at),
                      ready: false,
                      started: false,
                      state: { terminated: { exitCode: 137, reason: 'Error', startedAt: at, finishedAt: at } },
                    }));
                  });
                  if (failed)
                    recordEvent(failed, 'DeadlineExceeded', 'Pod was active on the node longer than the specified deadline', 'Warning');
                }),
              );
            }
          }),
        );
      }),
    );
  };

  return startPod;
}
