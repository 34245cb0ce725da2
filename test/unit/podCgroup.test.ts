// Cgroup path → pod UID, QoS class and container. Paths are the kubelet's naming (both cgroup drivers,
// cgroup v1 and v2) as they appear in real kernel logs and issue threads cited in
// test/fixtures/kernel-logs/*.source.md; the rest are built from the kubelet's documented naming.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cgroupPathFromProcCgroup, isKubepodsPath, kubepodsLevel, parsePodCgroup } from '../../src/core/probe/podCgroup.ts';

const UID = '1d7e0c6a-5b0f-4c5e-9d33-0e6f2ad2a1b9';
const UID_ = UID.replace(/-/g, '_');
const ID = '5e1c0a0f3b3d4c2e9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f';

test('systemd driver, Burstable, containerd scope: underscores become dashes in the UID', () => {
  assert.deepEqual(
    parsePodCgroup(`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/cri-containerd-${ID}.scope`),
    {
      podUid: UID,
      qos: 'Burstable',
      containerId: ID,
      runtime: 'containerd',
    },
  );
});

test('systemd driver, Guaranteed pods have no QoS level', () => {
  assert.deepEqual(parsePodCgroup(`/kubepods.slice/kubepods-pod${UID_}.slice/cri-containerd-${ID}.scope`), {
    podUid: UID,
    qos: 'Guaranteed',
    containerId: ID,
    runtime: 'containerd',
  });
});

test('systemd driver, BestEffort, CRI-O and Docker scopes', () => {
  assert.deepEqual(parsePodCgroup(`/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${UID_}.slice/crio-${ID}.scope`), {
    podUid: UID,
    qos: 'BestEffort',
    containerId: ID,
    runtime: 'cri-o',
  });
  // istio/istio#42734 (dockershim era).
  assert.deepEqual(
    parsePodCgroup(
      '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0330b2c1_a15b_4cdd_b5e5_72d4a90bee82.slice/docker-b27201334a41cd0749d053b18378d7ea65617b8e26277197ea25c974da1a5a8a.scope',
    ),
    {
      podUid: '0330b2c1-a15b-4cdd-b5e5-72d4a90bee82',
      qos: 'Burstable',
      containerId: 'b27201334a41cd0749d053b18378d7ea65617b8e26277197ea25c974da1a5a8a',
      runtime: 'docker',
    },
  );
  // conmon's own scope: kept with its prefix as the runtime name.
  assert.equal(
    parsePodCgroup(`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/crio-conmon-${ID}.scope`)?.runtime,
    'crio-conmon',
  );
});

test('cgroupfs driver: Burstable, BestEffort and Guaranteed, bare container ids', () => {
  assert.deepEqual(parsePodCgroup(`/kubepods/burstable/pod${UID}/${ID}`), { podUid: UID, qos: 'Burstable', containerId: ID });
  assert.deepEqual(parsePodCgroup(`/kubepods/besteffort/pod${UID}/${ID}`), { podUid: UID, qos: 'BestEffort', containerId: ID });
  // kubernetes/kubernetes#56891: a Guaranteed pod under cgroupfs.
  assert.deepEqual(
    parsePodCgroup('/kubepods/pod95387fa4-da9c-11e7-9d36-5254b24cbf5e/e84ed2eecf157a08df53ca510418796ccf5173f5d71e42133320e9178b9c8447'),
    {
      podUid: '95387fa4-da9c-11e7-9d36-5254b24cbf5e',
      qos: 'Guaranteed',
      containerId: 'e84ed2eecf157a08df53ca510418796ccf5173f5d71e42133320e9178b9c8447',
    },
  );
});

test('pod-level paths have no container', () => {
  assert.deepEqual(parsePodCgroup(`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice`), {
    podUid: UID,
    qos: 'Burstable',
  });
  assert.deepEqual(parsePodCgroup(`/kubepods/burstable/pod${UID}`), { podUid: UID, qos: 'Burstable' });
  assert.deepEqual(parsePodCgroup(`/kubepods/burstable/pod${UID}/`), { podUid: UID, qos: 'Burstable' });
});

test('the pod tree under a prefix: cgroup mounts, a host root, a node container, kind', () => {
  assert.deepEqual(parsePodCgroup(`/sys/fs/cgroup/memory/kubepods/burstable/pod${UID}/memory.events`), { podUid: UID, qos: 'Burstable' });
  assert.deepEqual(parsePodCgroup(`/host/sys/fs/cgroup/kubepods.slice/kubepods-pod${UID_}.slice/cri-containerd-${ID}.scope/memory.max`), {
    podUid: UID,
    qos: 'Guaranteed',
    containerId: ID,
    runtime: 'containerd',
  });
  // leptonai/gpud#70: Kubernetes inside an LXC container.
  assert.deepEqual(
    parsePodCgroup(
      '/lxc.payload.ny2g2r5hh3-lxc/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podeded8c65_6e8e_4c6e_a889_3e427565c740.slice/cri-containerd-ec9ee26695deb4cc72bc665efff1cf3a03fdfb12f1303e02fe9252985e084a95.scope',
    ),
    {
      podUid: 'eded8c65-6e8e-4c6e-a889-3e427565c740',
      qos: 'Burstable',
      containerId: 'ec9ee26695deb4cc72bc665efff1cf3a03fdfb12f1303e02fe9252985e084a95',
      runtime: 'containerd',
    },
  );
  // kind nodes use the cgroup root /kubelet.slice, so the slices gain a `kubelet-` prefix.
  assert.deepEqual(
    parsePodCgroup(
      `/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod${UID_}.slice/cri-containerd-${ID}.scope`,
    ),
    {
      podUid: UID,
      qos: 'BestEffort',
      containerId: ID,
      runtime: 'containerd',
    },
  );
});

test('cgroup v1 with the systemd driver: containerd names containers `<pod slice>:cri-containerd:<id>`', () => {
  // containerd/containerd#5226.
  assert.deepEqual(
    parsePodCgroup(
      '/sys/fs/cgroup/memory/system.slice/containerd.service/kubepods-burstable-pod7a875b5c_4d3c_4345_ac0f_5c847d8d7129.slice:cri-containerd:ee05f876e981d258209f91f25f139f7abc13a0246a5f343298572602fea8c7bb',
    ),
    {
      podUid: '7a875b5c-4d3c-4345-ac0f-5c847d8d7129',
      qos: 'Burstable',
      containerId: 'ee05f876e981d258209f91f25f139f7abc13a0246a5f343298572602fea8c7bb',
      runtime: 'containerd',
    },
  );
});

test('static pods carry a 32-hex config hash as their UID', () => {
  assert.deepEqual(parsePodCgroup('/kubepods/burstable/pod9e2b4a7c0c8b5b9d8e2e4f6a1b3c5d7e/abcdef0123456789'), {
    podUid: '9e2b4a7c0c8b5b9d8e2e4f6a1b3c5d7e',
    qos: 'Burstable',
    containerId: 'abcdef0123456789',
  });
});

test('/proc/<pid>/cgroup lines: v2 `0::` and v1 `N:controller:`', () => {
  assert.deepEqual(
    parsePodCgroup(`0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/cri-containerd-${ID}.scope`),
    {
      podUid: UID,
      qos: 'Burstable',
      containerId: ID,
      runtime: 'containerd',
    },
  );
  assert.deepEqual(parsePodCgroup(`12:memory:/kubepods/burstable/pod${UID}/${ID}`), { podUid: UID, qos: 'Burstable', containerId: ID });
  assert.deepEqual(parsePodCgroup(`4:cpu,cpuacct:/kubepods/pod${UID}/${ID}\n`), { podUid: UID, qos: 'Guaranteed', containerId: ID });
});

test('not a pod: system cgroups, the pod tree levels above pods, other container managers, cut paths', () => {
  for (const path of [
    '/',
    '',
    '/system.slice/containerd.service',
    '/user.slice/user-1000.slice/session-3.scope',
    '/podruntime.slice/kubelet.service',
    '/kubepods.slice',
    '/kubepods.slice/kubepods-burstable.slice',
    '/kubepods',
    '/kubepods/burstable',
    `/docker/${ID}`,
    `/mypods/pod${UID}/${ID}`,
    `/burstable/pod${UID}/${ID}`,
    `/kubepods/other/pod${UID}/${ID}`,
    `/kubepods/burstable/x/pod${UID}/${ID}`,
    // Cut short by a pager (course-dmesg-global-oom-group-6.1.log): no valid UID left.
    '/kubepods/burstable/pod3902af1e-8c>',
    '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8a5f1d39_5a43_4d2a_998d_43fcafa4f',
    `/kubepods/burstable/pod${UID}x/${ID}`,
    '0::/',
  ]) {
    assert.equal(parsePodCgroup(path), undefined, path);
  }
});

test('isKubepodsPath and kubepodsLevel name the level of the pod tree, even for cut paths', () => {
  assert.equal(isKubepodsPath('/kubepods/burstable/pod3902af1e-8c>'), true);
  assert.equal(isKubepodsPath('/lxc.payload.x-lxc/kubepods.slice'), true);
  assert.equal(isKubepodsPath('/podruntime.slice/kubelet.service'), false);
  assert.equal(isKubepodsPath('/mykubepodsthing'), false);
  assert.equal(isKubepodsPath(undefined), false);
  assert.equal(kubepodsLevel('/kubepods.slice'), 'kubepods');
  assert.equal(kubepodsLevel('/kubepods'), 'kubepods');
  assert.equal(kubepodsLevel('/kubepods.slice/kubepods-besteffort.slice'), 'qos');
  assert.equal(kubepodsLevel('/kubepods/burstable'), 'qos');
  assert.equal(kubepodsLevel(`/kubepods/burstable/pod${UID}`), 'pod');
  assert.equal(kubepodsLevel(`/kubepods/burstable/pod${UID}/${ID}`), 'container');
  assert.equal(kubepodsLevel('/system.slice'), undefined);
  assert.equal(kubepodsLevel('/kubepods/burstable/pod3902af1e-8c>'), undefined);
});

test('cgroupPathFromProcCgroup prefers the v2 line, or the v1 memory line', () => {
  const v2 = `0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/cri-containerd-${ID}.scope\n`;
  assert.equal(
    cgroupPathFromProcCgroup(v2),
    `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/cri-containerd-${ID}.scope`,
  );
  const v1 = [
    `12:pids:/kubepods/burstable/pod${UID}/${ID}`,
    `11:memory:/kubepods/burstable/pod${UID}/${ID}`,
    '10:cpu,cpuacct:/kubepods/burstable/other',
    '1:name=systemd:/kubepods/burstable/other',
  ].join('\n');
  assert.equal(cgroupPathFromProcCgroup(v1), `/kubepods/burstable/pod${UID}/${ID}`);
  // Hybrid with the cgroupfs driver: systemd put the process somewhere in the v2 tree, the kubelet put
  // it in the pod in the v1 trees.
  const hybridCgroupfs = `11:memory:/kubepods/burstable/pod${UID}/${ID}\n0::/system.slice/containerd.service\n`;
  assert.equal(cgroupPathFromProcCgroup(hybridCgroupfs), `/kubepods/burstable/pod${UID}/${ID}`);
  // Hybrid with the systemd driver: both trees agree; the v2 line wins.
  const hybridSystemd = `11:memory:/kubepods.slice/x.scope\n0::/kubepods.slice/kubepods-pod${UID_}.slice/cri-containerd-${ID}.scope\n`;
  assert.equal(cgroupPathFromProcCgroup(hybridSystemd), `/kubepods.slice/kubepods-pod${UID_}.slice/cri-containerd-${ID}.scope`);
  // Hybrid where the v2 line is just the root.
  assert.equal(cgroupPathFromProcCgroup('0::/\n5:memory:/user.slice\n'), '/user.slice');
  assert.equal(cgroupPathFromProcCgroup('0::/init.scope\n'), '/init.scope');
  assert.equal(cgroupPathFromProcCgroup(''), undefined);
  assert.equal(cgroupPathFromProcCgroup('garbage\n\n::\n'), undefined);
});

test('this machine: /proc/self/cgroup yields a path, and this test process is not in a pod', () => {
  let text: string;
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return; // not Linux
  }
  const path = cgroupPathFromProcCgroup(text);
  assert.equal(typeof path, 'string');
  assert.ok(path?.startsWith('/'), `${path}`);
  assert.equal(parsePodCgroup(path ?? ''), undefined);
});

test('fuzz: random and mutated paths never throw and always give a well-formed answer', () => {
  let seed = 0x5eed;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const alphabet = 'abcdef0123456789-_/.:podkubeslicescope \n\u0000\u00e9';
  const bases = [
    `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/cri-containerd-${ID}.scope`,
    `/kubepods/pod${UID}/${ID}`,
    `12:memory:/kubepods/besteffort/pod${UID}/${ID}`,
  ];
  for (let i = 0; i < 3000; i++) {
    const base = bases[i % bases.length] ?? '';
    let text = base;
    const edits = 1 + Math.floor(random() * 4);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(random() * (text.length + 1));
      const kind = random();
      if (kind < 0.4) text = text.slice(0, at);
      else if (kind < 0.8) text = text.slice(0, at) + (alphabet[Math.floor(random() * alphabet.length)] ?? '') + text.slice(at);
      else text = text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 8));
    }
    const result = parsePodCgroup(text);
    if (result) {
      assert.match(result.podUid, /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/, text);
      assert.ok(['Guaranteed', 'Burstable', 'BestEffort'].includes(result.qos), text);
    }
    cgroupPathFromProcCgroup(text);
    kubepodsLevel(text);
  }
  assert.equal(parsePodCgroup('x'.repeat(100_000)), undefined);
  assert.equal(parsePodCgroup(undefined as unknown as string), undefined);
});
