import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { parseContainerProbe } from '../../src/core/probe/parsers/containerProbe.ts';
import { evaluateHamiChecklist } from '../../src/core/verdicts/hami/hamiChecklist.ts';
import { parseHamiLimit } from '../../src/core/verdicts/hami/hamiFacts.ts';
import type { Check, HamiChecklistInput, HamiChecklistResult } from '../../src/core/verdicts/hami/hamiChecklist.ts';
import { captureText, procRecord } from './helpers/captureText.ts';
import type { SectionSpec } from './helpers/captureText.ts';

// Captures here are written by hand in the probe's output format; the same checklist runs on real
// probe output in containerProbe.test.ts (chroot fixture roots). Log lines are the real ones from
// test/fixtures/hami/log-lines.json (sources there).

const CACHE = '/usr/local/vgpu/4b1d9a0c-3f7e-4c55-9a1e-0d2b6f8e7a11.cache';
const LIMIT_ENV = ['CUDA_DEVICE_MEMORY_LIMIT_0=4096m', 'CUDA_DEVICE_SM_LIMIT=50', `CUDA_DEVICE_MEMORY_SHARED_CACHE=${CACHE}`];
const ENFORCED_MAPS = 'libvgpu=1 libcuda=1 ld-musl=0 ld-linux=1 lines=812';

type Sections = Record<string, SectionSpec | string>;

function healthy(): Sections {
  return {
    meta: 'hostname=train-0\nkernel=6.8.0-45-generic\nmachine=x86_64\nuid=0\nself=999\n',
    env: `source=proc\n${LIMIT_ENV.join('\n')}\nLIBCUDA_LOG_LEVEL=1\nNVIDIA_VISIBLE_DEVICES=GPU-8dcd1b3e-5c2f-4a4e-9f0b-2f4c7a1d9e10\n`,
    preload: {
      files: [
        ['ls', '-r--r--r--    1 0        0               27 Aug 21 10:00 /etc/ld.so.preload\n'],
        ['/etc/ld.so.preload', '/usr/local/vgpu/libvgpu.so\n'],
      ],
    },
    mounts: [
      '1071 1015 0:289 / / rw,relatime master:405 - overlay overlay rw,lowerdir=/var/lib/containerd/l1,upperdir=/var/lib/containerd/u1,workdir=/var/lib/containerd/w1',
      '1090 1071 253:1 /usr/local/vgpu/ld.so.preload /etc/ld.so.preload ro,relatime - ext4 /dev/vda1 rw',
      '1091 1071 253:1 /usr/local/vgpu/containers/0f4c9d3e_main /usr/local/vgpu rw,relatime - ext4 /dev/vda1 rw',
      '1092 1091 253:1 /usr/local/vgpu/libvgpu.so.v2.6.1 /usr/local/vgpu/libvgpu.so ro,relatime - ext4 /dev/vda1 rw',
      '',
    ].join('\n'),
    vgpu: {
      files: [
        [
          'ls',
          'total 2340\n-rw-rw-rw-    1 0        0          2008953 Aug 21 10:01 4b1d9a0c-3f7e-4c55-9a1e-0d2b6f8e7a11.cache\n-rwxr-xr-x    1 0        0           385480 Sep 24  2025 libvgpu.so\n',
        ],
        ['libvgpu', '-rwxr-xr-x    1 0        0           385480 Sep 24  2025 /usr/local/vgpu/libvgpu.so\n'],
      ],
    },
    'hami.caches': {
      files: [
        [
          CACHE,
          `size=2008953\nheader= 19920718 1 2 0 \ndevice_num=1\nlimits= 4294967296 ${new Array(15).fill('0').join(' ')} \nproc_num=1\nslot0= 42 31337 status=1 used=1073741824\n${Array.from({ length: 15 }, (_, i) => `slot${i + 1}= 0 0 status=0 used=0`).join('\n')}\n`,
        ],
      ],
    },
    loader: '/lib64/ld-linux-x86-64.so.2\n',
    dind: '',
    cgroup: {
      files: [
        ['/proc/self/cgroup', '0::/\n'],
        ['/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids\n'],
        ['/sys/fs/cgroup/memory.current', '2147483648\n'],
        ['/sys/fs/cgroup/memory.max', '17179869184\n'],
        ['/sys/fs/cgroup/memory.events', 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n'],
      ],
    },
    'hami.log': '',
    'nvidia-smi.gpu': { body: '0, GPU-8dcd1b3e-5c2f-4a4e-9f0b-2f4c7a1d9e10, NVIDIA A10, 4096, 1024, 3072\n', rc: 0 },
    'nvidia-smi.apps': { body: '', rc: 0 },
    procs: {
      files: [
        procRecord({
          pid: 1,
          comm: 'sleep',
          maps: 'libvgpu=1 libcuda=0 ld-musl=0 ld-linux=1 lines=30',
          env: LIMIT_ENV,
          exePath: '/usr/bin/sleep',
        }),
        procRecord({
          pid: 42,
          ppid: 1,
          comm: 'python3',
          cmdline: 'python3 train.py --epochs 3 ',
          maps: ENFORCED_MAPS,
          nvidiaFd: '1',
          env: LIMIT_ENV,
          exePath: '/usr/bin/python3.11',
        }),
        ['summary', 'count=2\nlimit=500\ntruncated=0\n'],
      ],
    },
  };
}

function evaluate(sections: Sections, extra: Omit<HamiChecklistInput, 'container'> = {}): { result: HamiChecklistResult; text: string } {
  const text = captureText('container', sections);
  const container = parseContainerProbe(parseCapture(text));
  return { result: evaluateHamiChecklist({ ...extra, container }), text };
}

function check(result: HamiChecklistResult, id: string): Check {
  const found = result.checks.find((candidate) => candidate.id === id);
  assert.ok(found, `no check ${id}`);
  return found;
}

function withProcs(sections: Sections, ...records: (readonly [string, string])[]): Sections {
  const procs = sections['procs'] as SectionSpec;
  return {
    ...sections,
    procs: {
      files: [...(procs.files ?? []).filter(([path]) => path !== 'summary'), ...records, ['summary', 'count=9\nlimit=500\ntruncated=0\n']],
    },
  };
}

test('checklist: a healthy HAMi container is enforced; node and cluster checks stay unknown', () => {
  const { result, text } = evaluate(healthy());
  assert.equal(result.verdict, 'enforced', result.summary);
  for (const id of ['hami.disable-control', 'hami.env', 'hami.preload', 'hami.libvgpu', 'hami.loaded'])
    assert.equal(check(result, id).status, 'pass', id);
  assert.equal(check(result, 'hami.runtime').status, 'unknown');
  assert.equal(check(result, 'hami.device-plugin').status, 'unknown');
  assert.equal(check(result, 'bypass.cache').status, 'pass');
  assert.match(check(result, 'bypass.cache').summary, /4096 MiB, 1 live slot/);
  assert.equal(check(result, 'bypass.limit-zero').status, 'pass');
  assert.equal(check(result, 'bypass.unified-memory').status, 'pass');
  assert.deepEqual(
    result.processes.map((process) => [process.pid, process.verdict]),
    [[42, 'enforced']],
  );
  assert.match(result.summary, /^enforced: libvgpu\.so is preloaded and 1 of 1 CUDA process/);

  // The seed's command column, verbatim.
  assert.equal(check(result, 'hami.disable-control').command, 'kubectl exec <pod> -- env | grep CUDA_DISABLE');
  assert.equal(check(result, 'hami.runtime').command, 'containerd config dump | grep default_runtime_name (on node)');
  assert.equal(
    result.checks
      .filter((c) => c.group === 'seed')
      .map((c) => c.step)
      .join(','),
    '1,2,3,4,5,6,7',
  );

  // Evidence is verbatim capture text behind a "<where>: " prefix.
  for (const c of result.checks) {
    for (const line of c.evidence) {
      const quoted = line.slice(line.indexOf(': ') + 2);
      assert.ok(text.includes(quoted), `${c.id} evidence not verbatim: ${line}`);
    }
    if (c.status === 'pass' || c.status === 'covered') assert.equal('remedy' in c, false);
    else assert.ok(c.remedy.length > 20, `${c.id} needs a remedy`);
  }
});

test('checklist: silence in the logs is unknown, never pass or fail', () => {
  const { result } = evaluate(healthy());
  const logs = check(result, 'bypass.logs');
  assert.equal(logs.status, 'unknown');
  assert.equal(logs.title, 'no HAMi-core log lines, which proves nothing');
  assert.match(logs.summary, /only ERROR lines print/);
  assert.deepEqual(logs.evidence, ['env: LIBCUDA_LOG_LEVEL=1']);
  // Even with every other check failing, silence stays unknown.
  const broken = { ...healthy(), preload: { missing: ['/etc/ld.so.preload'] } };
  assert.equal(check(evaluate(broken).result, 'bypass.logs').status, 'unknown');
});

test('checklist: HAMi-core lines in the logs — active, invalid limit, underflow, loader error', () => {
  const init = evaluate({
    ...healthy(),
    'hami.log': { files: [['/tmp/vgpulog', '[HAMI-core Msg(51:139774888380224:libvgpu.c:838)]: Initializing.....\n']] },
  }).result;
  assert.equal(check(init, 'bypass.logs').status, 'pass');

  const kubectlLog = '[HAMI-core ERROR (pid:1 thread=140160828682240 allocator.c:53)]: Device 0 OOM 18446744073707737660 / 24146608128\n';
  const underflow = evaluate(healthy(), { cluster: { containerLog: kubectlLog } }).result;
  const logs = check(underflow, 'bypass.logs');
  assert.equal(logs.status, 'fail');
  assert.equal(logs.impact, 'risk');
  assert.match(logs.summary, /HAMi#1181/);
  assert.deepEqual(logs.evidence, [`kubectl logs: ${kubectlLog.trim()}`]);
  assert.equal(underflow.verdict, 'enforced', 'a risk is not a bypass');
  assert.match(underflow.summary, /\(risks: HAMi-core's usage counter underflowed/);

  const invalid = evaluate(healthy(), {
    cluster: { containerLog: '[HAMI-core Warn]: invalid device memory limit CUDA_DEVICE_MEMORY_LIMIT_0=0m\n' },
  }).result;
  // The log line and the limit check see one cause: the limit check names it, the log check is covered by it.
  assert.equal(check(invalid, 'bypass.limit-zero').status, 'fail');
  assert.equal(check(invalid, 'bypass.limit-zero').title, 'CUDA_DEVICE_MEMORY_LIMIT_0=0m parses to 0: HAMi-core enforces no memory limit');
  assert.deepEqual(check(invalid, 'bypass.logs'), { ...check(invalid, 'bypass.logs'), status: 'covered', coveredBy: 'bypass.limit-zero' });
  assert.equal(invalid.verdict, 'bypassed');
  assert.equal(invalid.summary, 'bypassed: CUDA_DEVICE_MEMORY_LIMIT_0=0m parses to 0: HAMi-core enforces no memory limit');

  const loader =
    "ERROR: ld.so: object '/usr/local/vgpu/libvgpu.so' from /etc/ld.so.preload cannot be preloaded (cannot read file data): ignored.\n";
  const preloadFailed = evaluate(healthy(), { cluster: { containerLog: loader } }).result;
  assert.equal(check(preloadFailed, 'bypass.preload').status, 'fail');
  assert.equal(
    check(preloadFailed, 'bypass.preload').title,
    'the loader could not preload /usr/local/vgpu/libvgpu.so: processes run without it',
  );
  assert.equal(check(preloadFailed, 'bypass.logs').status, 'covered', 'the same loader line, named once');
  assert.equal(preloadFailed.verdict, 'bypassed');
  assert.equal(preloadFailed.summary, 'bypassed: the loader could not preload /usr/local/vgpu/libvgpu.so: processes run without it');
});

test('checklist: CUDA_DISABLE_CONTROL=true, with the preload mount skipped', () => {
  const sections = healthy();
  sections['env'] = `source=proc\n${LIMIT_ENV.join('\n')}\nCUDA_DISABLE_CONTROL=true\n`;
  sections['preload'] = { missing: ['/etc/ld.so.preload'] };
  const env = [...LIMIT_ENV, 'CUDA_DISABLE_CONTROL=true'];
  sections['procs'] = {
    files: [procRecord({ pid: 1, comm: 'python3', maps: 'libvgpu=0 libcuda=1 ld-musl=0 ld-linux=1 lines=700', nvidiaFd: '1', env })],
  };
  const { result } = evaluate(sections);
  assert.equal(result.verdict, 'bypassed');
  assert.equal(check(result, 'hami.disable-control').status, 'fail');
  assert.deepEqual(check(result, 'hami.disable-control').evidence, [
    'env: CUDA_DISABLE_CONTROL=true',
    '/proc/1 environ: CUDA_DISABLE_CONTROL=true',
  ]);
  assert.equal(
    check(result, 'hami.disable-control').title,
    "CUDA_DISABLE_CONTROL=true in the container env and PID 1: HAMi's limits are off",
  );
  // The per-process check sees the same variable: covered by step 1, its evidence kept, its finding not repeated.
  const perProcess = check(result, 'bypass.disable-control');
  assert.equal(perProcess.status, 'covered');
  assert.deepEqual(perProcess.status === 'covered' && perProcess.coveredBy, 'hami.disable-control');
  assert.equal(perProcess.title, 'the same cause as step 1, counted there');
  assert.deepEqual(perProcess.evidence, ['/proc/1: CUDA_DISABLE_CONTROL=true']);
  assert.equal(check(result, 'hami.preload').status, 'fail');
  assert.equal(check(result, 'bypass.preload').status, 'covered');
  assert.equal(check(result, 'hami.loaded').status, 'fail');
  // Each cause once in the whole checklist: no two failures share a title.
  const failures = result.checks.filter((c) => c.status === 'fail').map((c) => c.title);
  assert.deepEqual(failures, [
    "CUDA_DISABLE_CONTROL=true in the container env and PID 1: HAMi's limits are off",
    '/etc/ld.so.preload does not exist: nothing preloads libvgpu.so',
    'libvgpu.so is not mapped in 1 of 1 CUDA process (python3)',
  ]);
  assert.deepEqual(
    result.processes.map((process) => process.verdict),
    ['bypassed'],
  );
  // The verdict says what is wrong, each cause once: the env var, the missing file, the one python3 process.
  assert.equal(
    result.summary,
    "bypassed: CUDA_DISABLE_CONTROL=true in the container env and PID 1: HAMi's limits are off; /etc/ld.so.preload does not exist: nothing preloads libvgpu.so; libvgpu.so is not mapped in 1 of 1 CUDA process (python3)",
  );

  // ParseBool semantics: "false" and "0" do not disable.
  const off = healthy();
  off['env'] = `source=proc\n${LIMIT_ENV.join('\n')}\nCUDA_DISABLE_CONTROL=false\n`;
  assert.equal(check(evaluate(off).result, 'hami.disable-control').status, 'pass');
});

test('checklist: no HAMi env at all (not a HAMi container, or MIG)', () => {
  const sections = healthy();
  sections['env'] = 'source=proc\nNVIDIA_VISIBLE_DEVICES=all\n';
  sections['procs'] = { files: [procRecord({ pid: 1, comm: 'sleep', env: [] })] };
  const { result } = evaluate(sections);
  assert.equal(check(result, 'hami.env').status, 'fail');
  assert.equal(result.verdict, 'bypassed');
  assert.equal(check(result, 'bypass.limit-zero').status, 'unknown');
});

/** A container HAMi never touched: no preload, no /usr/local/vgpu, no limit env, no CUDA process. */
function plain(): Sections {
  const sections = healthy();
  sections['env'] = 'source=proc\nPATH=/usr/bin:/bin\n';
  sections['preload'] = { missing: ['/etc/ld.so.preload'] };
  sections['mounts'] =
    '1071 1015 0:289 / / rw,relatime master:405 - overlay overlay rw,lowerdir=/var/lib/containerd/l1,upperdir=/var/lib/containerd/u1,workdir=/var/lib/containerd/w1\n';
  sections['vgpu'] = { missing: ['/usr/local/vgpu'] };
  sections['hami.caches'] = '';
  sections['procs'] = {
    files: [
      procRecord({ pid: 1, comm: 'nginx', env: ['PATH=/usr/bin:/bin'], exePath: '/usr/sbin/nginx' }),
      ['summary', 'count=1\nlimit=500\ntruncated=0\n'],
    ],
  };
  return sections;
}

test('checklist: a pod HAMi does not manage is not-hami, even with cluster facts that would fail', () => {
  // No device plugin on the node, gVisor, privileged under an old HAMi: findings for a HAMi pod, not for this one.
  const cluster = {
    devicePluginPods: [],
    runtimeClassName: 'gvisor',
    privileged: true,
    hamiVersion: 'v2.7.1',
    podEnv: { PATH: '/usr/bin:/bin' },
  };
  const notManaged = evaluate(plain(), { cluster: { ...cluster, managedByHami: false } }).result;
  assert.equal(notManaged.verdict, 'not-hami', notManaged.summary);
  assert.match(notManaged.summary, /^not a HAMi container: HAMi does not manage this pod/);
  assert.equal(check(notManaged, 'hami.device-plugin').status, 'fail', 'the checks still show what HAMi would need');
  assert.equal(evaluate(plain()).result.verdict, 'not-hami', 'without cluster facts the container decides alone');

  // HAMi manages the pod (or nobody says): a container without HAMi's injection is not enforced.
  const managed = evaluate(plain(), { cluster: { devicePluginPods: [], managedByHami: true } }).result;
  assert.equal(managed.verdict, 'bypassed', managed.summary);
  assert.equal(check(managed, 'hami.device-plugin').status, 'fail');
  assert.doesNotMatch(managed.summary, /does not manage/);
  assert.equal(evaluate(plain(), { cluster: { devicePluginPods: [] } }).result.verdict, 'bypassed');
  // A HAMi container whose node lost its device plugin: the running processes stay limited, new ones are at risk.
  assert.match(
    evaluate(healthy(), { cluster: { devicePluginPods: [], managedByHami: true } }).result.summary,
    /^enforced: .*\(risks: no HAMi device-plugin pod runs on the node\)$/,
  );
});

test('checklist: HAMi traces in a pod HAMi does not manage: the evidence decides, and the summary says the mismatch', () => {
  const preloaded = plain();
  preloaded['preload'] = {
    files: [
      ['ls', '-r--r--r--    1 0        0               27 Aug 21 10:00 /etc/ld.so.preload\n'],
      ['/etc/ld.so.preload', '/usr/local/vgpu/libvgpu.so\n'],
    ],
  };
  const result = evaluate(preloaded, { cluster: { devicePluginPods: [], managedByHami: false } }).result;
  assert.notEqual(result.verdict, 'not-hami');
  assert.equal(result.verdict, 'bypassed', result.summary);
  assert.match(
    result.summary,
    /HAMi does not manage this pod \(no hami\.io annotation, HAMi scheduler or HAMi-only resource\), yet the container has a CUDA process or HAMi traces$/,
  );

  // HAMi-core's lines in kubectl logs are a trace too.
  const logged = evaluate(plain(), {
    cluster: {
      managedByHami: false,
      containerLog: '[HAMI-core Warn(42:139872:utils.c:183)]: invalid device memory limit CUDA_DEVICE_MEMORY_LIMIT_0=0m\n',
    },
  }).result;
  assert.notEqual(logged.verdict, 'not-hami', logged.summary);

  // A capture cut short cannot prove HAMi's absence, managed or not.
  const cut = plain();
  cut['procs'] = { files: [procRecord({ pid: 1, comm: 'nginx', env: [] }), ['summary', 'count=501\nlimit=500\ntruncated=1\n']] };
  const truncated = evaluate(cut, { cluster: { managedByHami: false } }).result;
  assert.notEqual(truncated.verdict, 'not-hami');
  assert.match(truncated.summary, /HAMi does not manage this pod, but the capture is incomplete/);
});

test('checklist: /etc/ld.so.preload as a directory, empty, or naming a missing library', () => {
  const dir = healthy();
  dir['preload'] = { files: [['ls', 'drwxr-xr-x    2 0        0             4096 Aug 21 10:00 /etc/ld.so.preload\n']] };
  const dirResult = evaluate(dir).result;
  assert.equal(check(dirResult, 'hami.preload').status, 'fail');
  assert.equal(check(dirResult, 'hami.preload').title, '/etc/ld.so.preload is a directory: nothing preloads libvgpu.so');
  assert.match(check(dirResult, 'hami.preload').summary, /the kubelet created a directory/);

  const empty = healthy();
  empty['preload'] = {
    files: [
      ['ls', '-r--r--r--    1 0        0                0 Aug 21 10:00 /etc/ld.so.preload\n'],
      ['/etc/ld.so.preload', ''],
    ],
  };
  assert.equal(check(evaluate(empty).result, 'hami.preload').status, 'fail');
  assert.equal(check(evaluate(empty).result, 'bypass.preload').status, 'covered', 'the same empty file, counted under step 3');

  const elsewhere = healthy();
  elsewhere['preload'] = { files: [['/etc/ld.so.preload', '/usr/local/vgpu/libvgpu-custom.so\n']] };
  const elsewhereResult = evaluate(elsewhere).result;
  assert.equal(check(elsewhereResult, 'hami.preload').status, 'fail', 'not libvgpu.so');
  const target = check(elsewhereResult, 'bypass.preload');
  assert.equal(target.status, 'covered', 'the wrong preload entry, counted under step 3');
  assert.match(target.summary, /skips a preload entry it cannot open/);
});

test('checklist: libvgpu.so empty or missing', () => {
  const zero = healthy();
  zero['vgpu'] = {
    files: [
      ['ls', 'total 0\n-rwxr-xr-x    1 0        0                0 Sep 24  2025 libvgpu.so\n'],
      ['libvgpu', '-rwxr-xr-x    1 0        0                0 Sep 24  2025 /usr/local/vgpu/libvgpu.so\n'],
    ],
  };
  const zeroResult = evaluate(zero).result;
  assert.equal(check(zeroResult, 'hami.libvgpu').status, 'fail');
  assert.equal(check(zeroResult, 'hami.libvgpu').title, '/usr/local/vgpu/libvgpu.so is empty: the loader cannot preload it');
  assert.equal(check(zeroResult, 'bypass.preload').status, 'covered');
  assert.deepEqual(
    zeroResult.checks.filter((c) => c.status === 'fail').map((c) => c.id),
    ['hami.libvgpu'],
  );

  const missing = healthy();
  missing['vgpu'] = { missing: ['/usr/local/vgpu'] };
  assert.equal(check(evaluate(missing).result, 'hami.libvgpu').status, 'fail');
});

test('checklist: a login session without the limit env (HAMi#1112)', () => {
  const sections = withProcs(
    healthy(),
    procRecord({ pid: 77, ppid: 70, comm: 'python3', cmdline: 'python3 notebook.py ', maps: ENFORCED_MAPS, nvidiaFd: '1', env: [] }),
  );
  const { result } = evaluate(sections);
  const login = check(result, 'bypass.login-session');
  assert.equal(login.status, 'fail');
  assert.match(login.summary, /77 \(python3\)/);
  assert.equal(result.verdict, 'bypassed');
  assert.deepEqual(
    result.processes.map((process) => [process.pid, process.verdict]),
    [
      [42, 'enforced'],
      [77, 'bypassed'],
    ],
  );
  assert.equal(check(result, 'hami.loaded').status, 'pass', 'the preload still applies; the env does not');
});

test('checklist: static and musl CUDA processes', () => {
  const staticResult = evaluate(
    withProcs(
      healthy(),
      procRecord({
        pid: 50,
        comm: 'cuda-static',
        maps: 'libvgpu=0 libcuda=1 ld-musl=0 ld-linux=0 lines=90',
        nvidiaFd: '1',
        env: LIMIT_ENV,
        exePath: '/opt/app/cuda-static',
        exe: 'exe=static via=od',
      }),
    ),
  ).result;
  assert.equal(check(staticResult, 'bypass.static').status, 'fail');
  // Titles say what is wrong (issue #16): the process, not the name of the check.
  assert.equal(check(staticResult, 'bypass.static').title, 'cuda-static is a static executable: ld.so.preload cannot load libvgpu.so');
  assert.equal(check(staticResult, 'hami.loaded').title, 'libvgpu.so is not mapped in 1 of 2 CUDA processes (cuda-static)');
  assert.equal(check(staticResult, 'hami.loaded').summary, 'pid 50 is not limited');
  assert.deepEqual(
    check(staticResult, 'bypass.static').evidence.filter((line) => line.startsWith('/proc/50')),
    ['/proc/50: exe_path=/opt/app/cuda-static', '/proc/50: exe=static via=od'],
  );
  assert.equal(staticResult.verdict, 'bypassed');

  const muslResult = evaluate(
    withProcs(
      healthy(),
      procRecord({
        pid: 60,
        comm: 'app',
        maps: 'libvgpu=0 libcuda=1 ld-musl=1 ld-linux=0 lines=90',
        nvidiaFd: '1',
        env: LIMIT_ENV,
        exe: 'exe=dynamic via=readelf interp=/lib/ld-musl-x86_64.so.1',
      }),
    ),
  ).result;
  assert.equal(check(muslResult, 'bypass.musl').status, 'fail');
  assert.equal(muslResult.processes.find((process) => process.pid === 60)?.verdict, 'bypassed');

  // A static init (tini) that does not use the GPU is no bypass.
  const tini = evaluate(
    withProcs(
      healthy(),
      procRecord({
        pid: 5,
        comm: 'tini',
        maps: 'libvgpu=0 libcuda=0 ld-musl=0 ld-linux=0 lines=5',
        env: LIMIT_ENV,
        exe: 'exe=static via=od',
      }),
    ),
  ).result;
  assert.equal(check(tini, 'bypass.static').status, 'pass');
  assert.equal(tini.verdict, 'enforced');
});

test('checklist: a limit of 0m means no limit', () => {
  const sections = healthy();
  const zero = ['CUDA_DEVICE_MEMORY_LIMIT_0=0m', 'CUDA_DEVICE_SM_LIMIT=50'];
  sections['env'] = `source=proc\n${zero.join('\n')}\n`;
  sections['procs'] = { files: [procRecord({ pid: 42, comm: 'python3', maps: ENFORCED_MAPS, nvidiaFd: '1', env: zero })] };
  const { result } = evaluate(sections);
  assert.equal(check(result, 'bypass.limit-zero').status, 'fail');
  assert.equal(check(result, 'hami.env').status, 'pass', 'the variable is there');
  assert.equal(result.verdict, 'bypassed');
  assert.equal(result.processes[0]?.verdict, 'bypassed');
});

test('checklist: parseHamiLimit follows get_limit_from_env', () => {
  assert.equal(parseHamiLimit('4096m'), 4096 * 1024 ** 2);
  assert.equal(parseHamiLimit('4G'), 4 * 1024 ** 3);
  assert.equal(parseHamiLimit('1k'), 1024);
  assert.equal(parseHamiLimit('1048576'), 1048576);
  assert.equal(parseHamiLimit('0x10m'), 16 * 1024 ** 2);
  assert.equal(parseHamiLimit('010m'), 8 * 1024 ** 2, 'strtoul base 0: leading 0 is octal');
  assert.equal(parseHamiLimit('0m'), 0);
  assert.equal(parseHamiLimit('0'), 0);
  assert.equal(parseHamiLimit(''), 0);
  assert.equal(parseHamiLimit('lots'), 0);
});

test('checklist: gVisor, privileged and the runtime from cluster facts and the node capture', () => {
  const gvisor = evaluate(healthy(), { cluster: { runtimeClassName: 'gvisor' } }).result;
  assert.equal(check(gvisor, 'bypass.gvisor').status, 'fail');
  assert.equal(gvisor.verdict, 'bypassed');
  assert.equal(check(evaluate(healthy(), { cluster: { runtimeClassName: null } }).result, 'bypass.gvisor').status, 'pass');
  assert.equal(check(evaluate(healthy(), { cluster: { runtimeClassName: 'nvidia' } }).result, 'hami.runtime').status, 'pass');
  const hint = healthy();
  hint['meta'] = 'kernel=4.4.0\n';
  assert.match(check(evaluate(hint).result, 'bypass.gvisor').title, /^probably gVisor: the kernel reports 4\.4\.0/);

  const privileged = evaluate(healthy(), { cluster: { privileged: true, hamiVersion: 'v2.7.1' } }).result;
  assert.equal(check(privileged, 'bypass.privileged').status, 'fail');
  assert.equal(
    check(evaluate(healthy(), { cluster: { privileged: true, hamiVersion: 'v2.10.0' } }).result, 'bypass.privileged').status,
    'pass',
  );

  const node = (config: string) => parseCapture(captureText('node', { containerd: { files: [['/etc/containerd/config.toml', config]] } }));
  const nvidia = evaluate(healthy(), {
    node: node('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "nvidia"\n'),
  }).result;
  assert.equal(check(nvidia, 'hami.runtime').status, 'pass');
  assert.deepEqual(check(nvidia, 'hami.runtime').evidence, ['/etc/containerd/config.toml: default_runtime_name = "nvidia"']);
  assert.equal(
    check(
      evaluate(healthy(), { node: node("[plugins.'io.containerd.cri.v1.runtime'.containerd]\n  default_runtime_name = 'runc'\n") }).result,
      'hami.runtime',
    ).status,
    'fail',
  );
  assert.equal(check(evaluate(healthy(), { node: node('version = 2\n') }).result, 'hami.runtime').status, 'fail');
  assert.equal(
    check(evaluate(healthy(), { node: parseCapture(captureText('node', { containerd: '' })) }).result, 'hami.runtime').status,
    'unknown',
  );
});

test('checklist: device-plugin health from cluster facts', () => {
  assert.equal(
    check(
      evaluate(healthy(), { cluster: { devicePluginPods: [{ name: 'hami-device-plugin-x7k2p', phase: 'Running', ready: true }] } }).result,
      'hami.device-plugin',
    ).status,
    'pass',
  );
  const crash = check(
    evaluate(healthy(), { cluster: { devicePluginPods: [{ name: 'hami-device-plugin-x7k2p', phase: 'Running', ready: false }] } }).result,
    'hami.device-plugin',
  );
  assert.equal(crash.status, 'fail');
  assert.equal(crash.impact, 'risk');
  assert.equal(check(evaluate(healthy(), { cluster: { devicePluginPods: [] } }).result, 'hami.device-plugin').status, 'fail');
});

test('checklist: Docker-in-Docker is a risk with evidence', () => {
  const sections = withProcs(
    healthy(),
    procRecord({ pid: 30, comm: 'dockerd', maps: 'libvgpu=1 libcuda=0 ld-musl=0 ld-linux=1 lines=100', env: LIMIT_ENV }),
  );
  sections['dind'] = 'socket=/var/run/docker.sock\nbinary=/usr/local/bin/dockerd\n';
  const { result } = evaluate(sections);
  const dind = check(result, 'bypass.dind');
  assert.equal(dind.status, 'fail');
  assert.equal(dind.impact, 'risk');
  assert.deepEqual(dind.evidence, [
    'dind: socket=/var/run/docker.sock',
    'dind: binary=/usr/local/bin/dockerd',
    'dind: pid 30 comm=dockerd',
  ]);
  assert.equal(result.verdict, 'enforced', 'the outer container is still limited');
});

test('checklist: a unified-memory GPU (GB10) cannot be enforced', () => {
  const sections = healthy();
  sections['nvidia-smi.gpu'] = { body: '0, GPU-0b10, NVIDIA GB10, [N/A], [N/A], [N/A]\n', rc: 0 };
  const { result } = evaluate(sections);
  assert.equal(check(result, 'bypass.unified-memory').status, 'fail');
  assert.equal(result.verdict, 'bypassed');
});

test('checklist: without processes, or with unreadable maps, the verdict is unknown', () => {
  const noProcs = healthy();
  delete noProcs['procs'];
  const a = evaluate(noProcs).result;
  assert.equal(a.verdict, 'unknown');
  assert.equal(check(a, 'hami.loaded').status, 'unknown');

  const unreadable = healthy();
  unreadable['procs'] = { files: [procRecord({ pid: 42, comm: 'python3', maps: 'unreadable', nvidiaFd: '1', environUnreadable: true })] };
  const b = evaluate(unreadable).result;
  assert.equal(check(b, 'hami.loaded').status, 'unknown');
  assert.equal(b.processes[0]?.verdict, 'unknown');
  assert.equal(b.verdict, 'unknown');

  // Only a node capture: every container check is unknown, nothing passes by default.
  const nodeOnly = evaluateHamiChecklist({ node: parseCapture(captureText('node', {})) });
  assert.equal(nodeOnly.verdict, 'unknown');
  for (const id of ['hami.disable-control', 'hami.env', 'hami.preload', 'hami.libvgpu', 'hami.loaded'])
    assert.equal(check(nodeOnly, id).status, 'unknown', id);
  // …and the summary says what the node shows and where the container side is checked, not "not proven: 1–5".
  const runtime = parseCapture(
    captureText('node', {
      containerd: {
        files: [
          [
            '/etc/containerd/config.toml',
            'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "nvidia"\n',
          ],
        ],
      },
    }),
  );
  const nodeSide = evaluateHamiChecklist({
    node: runtime,
    cluster: { devicePluginPods: [{ name: 'hami-device-plugin-x7k2p', phase: 'Running', ready: true }] },
  });
  assert.equal(nodeSide.verdict, 'unknown');
  assert.equal(
    nodeSide.summary,
    'unknown: node side only (containerd\'s default runtime is nvidia (by name only); the HAMi device-plugin pod is running); the container side (steps 1–5) is checked per pod: "Run HAMi Checklist on Pod", or gpumem inspect --pod',
  );
});

test('checklist: no CUDA process yet, but the preload works in other processes', () => {
  const sections = healthy();
  sections['procs'] = {
    files: [procRecord({ pid: 1, comm: 'sleep', maps: 'libvgpu=1 libcuda=0 ld-musl=0 ld-linux=1 lines=30', env: LIMIT_ENV })],
  };
  const { result } = evaluate(sections);
  assert.equal(check(result, 'hami.loaded').status, 'pass');
  assert.equal(result.verdict, 'enforced');
  assert.match(result.summary, /no CUDA process was running/);

  const notTaking = healthy();
  notTaking['procs'] = {
    files: [procRecord({ pid: 1, comm: 'sleep', maps: 'libvgpu=0 libcuda=0 ld-musl=0 ld-linux=1 lines=30', env: LIMIT_ENV })],
  };
  assert.equal(check(evaluate(notTaking).result, 'hami.loaded').status, 'fail');
});

test('checklist: no /etc/ld.so.preload but LD_PRELOAD carries libvgpu.so (HAMi-core standalone) is a risk, not a bypass', () => {
  const sections = healthy();
  const env = [...LIMIT_ENV, 'LD_PRELOAD=/usr/local/vgpu/libvgpu.so'];
  sections['preload'] = { missing: ['/etc/ld.so.preload'] };
  sections['procs'] = { files: [procRecord({ pid: 42, comm: 'python3', maps: ENFORCED_MAPS, nvidiaFd: '1', env })] };
  const { result } = evaluate(sections);
  const preload = check(result, 'hami.preload');
  assert.equal(preload.status, 'fail');
  assert.equal(preload.impact, 'risk');
  assert.ok(preload.evidence.includes('/proc/42: LD_PRELOAD=/usr/local/vgpu/libvgpu.so'));
  assert.equal(check(result, 'bypass.preload').impact, 'risk');
  assert.equal(result.verdict, 'unknown', 'not bypassed, and not proven for new processes');
  assert.deepEqual(
    result.processes.map((process) => process.verdict),
    ['enforced'],
  );

  // Without LD_PRELOAD the same capture is a bypass.
  const without = healthy();
  without['preload'] = { missing: ['/etc/ld.so.preload'] };
  without['procs'] = { files: [procRecord({ pid: 42, comm: 'python3', maps: ENFORCED_MAPS, nvidiaFd: '1', env: LIMIT_ENV })] };
  assert.equal(evaluate(without).result.verdict, 'bypassed');
});

test('a container capture is reported by the container itself; node-side checks that pass are named as corroboration', async () => {
  const { evidenceSourceNote, CONTAINER_REPORTED } = await import('../../src/core/verdicts/hami/hamiChecklist.ts');
  const alone = evaluate(healthy()).result;
  assert.deepEqual(alone.source, { kind: 'container-reported', corroboratedBy: [] });
  assert.ok(alone.summary.includes(`(${CONTAINER_REPORTED}; no node-side evidence confirms it)`), alone.summary);
  assert.match(
    evidenceSourceNote(alone.source) ?? '',
    /^Reported by the container itself: .*forged the whole capture, nonce included; no node-side evidence corroborates it/,
  );
  const withPlugin = evaluate(healthy(), {
    cluster: { devicePluginPods: [{ name: 'hami-device-plugin-x', phase: 'Running', ready: true }] },
  }).result;
  assert.equal(check(withPlugin, 'hami.device-plugin').status, 'pass');
  assert.deepEqual(withPlugin.source, { kind: 'container-reported', corroboratedBy: [check(withPlugin, 'hami.device-plugin').title] });
  assert.match(evidenceSourceNote(withPlugin.source) ?? '', /node-side evidence that agrees: /);
  // A node-side check that fails is no corroboration.
  const noPlugin = evaluate(healthy(), { cluster: { devicePluginPods: [] } }).result;
  assert.equal(check(noPlugin, 'hami.device-plugin').status, 'fail');
  assert.deepEqual(noPlugin.source, { kind: 'container-reported', corroboratedBy: [] });
  assert.equal(evidenceSourceNote({ kind: 'node-side' }), undefined);
});

test('node-side evidence wins when the container reports otherwise: a forged "enforced" capture with a pod spec that disables control', () => {
  // The container's own shell wrote every line of the capture: its env and processes carry the limits and no
  // CUDA_DISABLE_CONTROL. The API server's pod spec, which the tenant's shell cannot rewrite, sets it.
  const forged = healthy();
  assert.equal(evaluate(forged).result.verdict, 'enforced', 'the capture alone says enforced');
  const result = evaluate(forged, { cluster: { managedByHami: true, podEnv: { CUDA_DISABLE_CONTROL: 'true' } } }).result;
  assert.equal(result.verdict, 'bypassed', result.summary);
  assert.equal(check(result, 'hami.disable-control').status, 'fail');
  assert.match(check(result, 'hami.disable-control').evidence.join('\n'), /pod spec env/);
  assert.match(result.summary, /CUDA_DISABLE_CONTROL/);
});

/** Every scenario above in one list, to hold each checklist to the same wording rules. */
function scenarios(): HamiChecklistResult[] {
  const disabled = healthy();
  disabled['env'] = `source=proc\n${LIMIT_ENV.join('\n')}\nCUDA_DISABLE_CONTROL=true\n`;
  disabled['preload'] = { missing: ['/etc/ld.so.preload'] };
  disabled['procs'] = {
    files: [
      procRecord({
        pid: 1,
        comm: 'python3',
        maps: 'libvgpu=0 libcuda=1 ld-musl=0 ld-linux=1 lines=700',
        nvidiaFd: '1',
        env: [...LIMIT_ENV, 'CUDA_DISABLE_CONTROL=true'],
      }),
    ],
  };
  const loader =
    "ERROR: ld.so: object '/usr/local/vgpu/libvgpu.so' from /etc/ld.so.preload cannot be preloaded (cannot read file data): ignored.\n";
  const noProcs = healthy();
  delete noProcs['procs'];
  return [
    evaluate(healthy()).result,
    evaluate(disabled).result,
    evaluate(healthy(), { cluster: { containerLog: loader } }).result,
    evaluate({ ...healthy(), preload: { missing: ['/etc/ld.so.preload'] } }, { cluster: { containerLog: loader } }).result,
    evaluate(plain(), { cluster: { devicePluginPods: [], runtimeClassName: 'gvisor', privileged: true, hamiVersion: 'v2.7.1' } }).result,
    evaluate(noProcs).result,
    evaluateHamiChecklist({ node: parseCapture(captureText('node', {})) }),
  ];
}

test('checklist wording: titles state the finding, never the name of the check; each cause is counted once', () => {
  const oldNames = new Set([
    'CUDA_DISABLE_CONTROL',
    'HAMi env vars',
    'libvgpu.so exists, non-zero',
    'library loaded in the workload processes',
    'containerd default runtime',
    'device-plugin health',
    'static executable',
    'musl loader',
    'Docker-in-Docker',
    'gVisor runtime',
    'limit 0 (no limit)',
    'shared-region cache',
  ]);
  for (const result of scenarios()) {
    const ids = new Set<string>();
    for (const c of result.checks) {
      ids.add(c.id);
      assert.ok(c.title.length > 0 && c.summary.length > 0, `${c.id}: a title and a summary`);
      assert.ok(!oldNames.has(c.title) && c.title !== c.subject, `${c.id}: "${c.title}" names the check, not a finding`);
      assert.ok(!c.summary.startsWith(c.title), `${c.id}: the summary repeats the title`);
      if (c.status === 'covered') {
        const by = result.checks.find((other) => other.id === c.coveredBy);
        assert.equal(by?.status, 'fail', `${c.id} is covered by a failure that names the cause`);
      }
    }
    assert.equal(ids.size, 20, 'all twenty checks, ids stable, whatever they found');
    const failed = result.checks.filter((c) => c.status === 'fail').map((c) => c.title);
    assert.equal(new Set(failed).size, failed.length, `a title twice: ${failed.join(' | ')}`);
    // The verdict quotes the failures' titles, each once.
    if (result.verdict === 'bypassed')
      for (const c of result.checks.filter((c) => c.status === 'fail' && c.impact === 'bypass'))
        assert.ok(result.summary.includes(c.title));
  }
});

test('checklist: a covered check points at the check that names the cause, through a chain', () => {
  // No preload file, and the loader complained (logs from before it vanished): step 3 names the cause; the preload
  // target check and the log check both see it, and both point at step 3, not at each other.
  const loader =
    "ERROR: ld.so: object '/usr/local/vgpu/libvgpu.so' from /etc/ld.so.preload cannot be preloaded (cannot read file data): ignored.\n";
  const result = evaluate({ ...healthy(), preload: { missing: ['/etc/ld.so.preload'] } }, { cluster: { containerLog: loader } }).result;
  const covered = result.checks.filter((c) => c.status === 'covered').map((c) => [c.id, c.status === 'covered' ? c.coveredBy : '']);
  assert.deepEqual(covered, [
    ['bypass.preload', 'hami.preload'],
    ['bypass.logs', 'hami.preload'],
  ]);
  assert.equal(check(result, 'bypass.logs').title, 'the same cause as step 3, counted there');
  assert.deepEqual(
    result.checks.filter((c) => c.status === 'fail').map((c) => c.id),
    ['hami.preload'],
  );
});

// bypass.nvml-quota: nvidia-smi inside the container against the quota and the physical size (issue #11; HAMi's
// troubleshooting page: "check that nvidia-smi inside the container reports the quota rather than physical VRAM").
const H100 = 'GPU-8dcd1b3e-5c2f-4a4e-9f0b-2f4c7a1d9e10';
function withContainerTotal(totalMiB: number, sections: Sections = healthy()): Sections {
  return { ...sections, 'nvidia-smi.gpu': { body: `0, ${H100}, NVIDIA H100 80GB HBM3, ${totalMiB}, 0, ${totalMiB}\n`, rc: 0 } };
}
function nodeWithH100(): ReturnType<typeof parseCapture> {
  const row = `0, ${H100}, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 565.57.01, 81559, 454, 19000, 62105, 30, Default, Disabled\n`;
  return parseCapture(captureText('node', { meta: 'hostname=gpu-node-7\n', 'nvidia-smi.gpu': { body: row, rc: 0 } }));
}

test('nvml-quota: the quota reported is evidence for NVML, not yet for allocation', () => {
  const { result } = evaluate(healthy(), { node: nodeWithH100() });
  const nvml = check(result, 'bypass.nvml-quota');
  assert.equal(nvml.status, 'pass');
  assert.equal(nvml.title, 'GPU 0 reports the 4,096 MiB quota, not the physical 81,559 MiB: libvgpu.so intercepts NVML');
  assert.match(
    nvml.summary,
    /not yet for allocation: only allocating past the quota proves that \(Test HAMi Enforcement…, gpumem hami-test\)/,
  );
  assert.ok(nvml.evidence.includes('env: CUDA_DEVICE_MEMORY_LIMIT_0=4096m'), nvml.evidence.join('\n'));
  assert.ok(nvml.evidence.some((line) => line.startsWith('node: nvidia-smi --query-gpu: 0, GPU-8dcd1b3e')));
  assert.equal(result.verdict, 'enforced');
});

test('nvml-quota: the physical size inside the container is a proven bypass, from the node or the HAMi registration', () => {
  const fromNode = check(evaluate(withContainerTotal(81559), { node: nodeWithH100() }).result, 'bypass.nvml-quota');
  assert.equal(fromNode.status, 'fail');
  assert.equal(fromNode.title, 'GPU 0 reports the physical 81,559 MiB, not the 4,096 MiB quota: libvgpu.so is not intercepting NVML');
  const { result } = evaluate(withContainerTotal(81559), { cluster: { registeredDevices: [{ uuid: H100, devmemMiB: 81559 }] } });
  const fromRegistration = check(result, 'bypass.nvml-quota');
  assert.equal(fromRegistration.title, fromNode.title);
  assert.ok(fromRegistration.evidence.includes(`hami.io/node-nvidia-register: ${H100} devmem 81559 MiB`));
  assert.equal(result.verdict, 'bypassed');
  assert.match(result.summary, /libvgpu\.so is not intercepting NVML/);
  // Without the physical size, more than the quota is still proof.
  const above = check(evaluate(withContainerTotal(16384)).result, 'bypass.nvml-quota');
  assert.equal(above.status, 'fail');
  assert.equal(above.title, 'GPU 0 reports 16,384 MiB, more than the 4,096 MiB quota: libvgpu.so is not intercepting NVML');
});

test('nvml-quota: the quota from hami.io/vgpu-devices-allocated when the env has none; unknown without any', () => {
  const sections = healthy();
  sections['env'] = 'source=proc\nLIBCUDA_LOG_LEVEL=1\n';
  const noLimit: Sections = {
    ...sections,
    procs: { files: [procRecord({ pid: 1, comm: 'sleep', maps: 'libvgpu=1 libcuda=0 ld-musl=0 ld-linux=1 lines=30' })] },
  };
  const annotated = check(evaluate(noLimit, { cluster: { allocatedDevices: [{ uuid: H100, memMiB: 4096 }] } }).result, 'bypass.nvml-quota');
  assert.equal(annotated.status, 'pass', annotated.title);
  assert.ok(annotated.evidence.includes(`hami.io/vgpu-devices-allocated: ${H100},4096 MiB`), annotated.evidence.join('\n'));
  const none = check(evaluate(noLimit).result, 'bypass.nvml-quota');
  assert.equal(none.status, 'unknown');
  assert.equal(none.title, 'GPU 0 reports 4,096 MiB, and no quota is known to compare it with');
});

test('nvml-quota: a quota larger than the GPU passes; a missing preload covers the same cause', () => {
  const big = healthy();
  big['env'] = 'source=proc\nCUDA_DEVICE_MEMORY_LIMIT_0=100000m\n';
  const larger = check(evaluate(withContainerTotal(81559, big), { node: nodeWithH100() }).result, 'bypass.nvml-quota');
  assert.equal(larger.status, 'pass');
  assert.match(larger.title, /reports its physical 81,559 MiB, less than the 100,000 MiB quota/);

  const noPreload = withContainerTotal(81559);
  noPreload['preload'] = { files: [], missing: ['/etc/ld.so.preload'] };
  const { result } = evaluate(noPreload, { node: nodeWithH100() });
  assert.equal(check(result, 'hami.preload').status, 'fail');
  const covered = check(result, 'bypass.nvml-quota');
  assert.equal(covered.status, 'covered');
  assert.ok(
    covered.evidence.some((line) => line.startsWith('nvidia-smi: 0, GPU-8dcd1b3e')),
    'the evidence stays',
  );
});

test("checklist: HAMi-core's crash in its cuMemCreate hook (VMM with a non-device location) is named", () => {
  // Project-HAMi/HAMi-core#169: vLLM 0.18's NCCL asks cuMemCreate for host memory under HAMi 2.8.0; the same bug as
  // Project-HAMi/HAMi-core#187 (llama.cpp's VMM pool). The log lines as posted there.
  const log = [
    '[HAMI-core ERROR (pid:565 thread=140267266266944 multiprocess_memory_limit.c:831)]: Illegal device id: 850725928',
    '!!!!!!! Segfault encountered !!!!!!!',
    '  File "/libvgpu/src/multiprocess/multiprocess_memory_limit.c", line 833, in get_current_device_memory_limit',
    '  File "/libvgpu/src/allocator/allocator.c", line 44, in oom_check',
    '  File "/libvgpu/src/cuda/memory.c", line 582, in cuMemCreate',
    '  File "misc/cudawrap.cc", line 92, in ncclCuMemHostEnable()',
    '',
  ].join('\n');
  const result = evaluate(healthy(), { cluster: { containerLog: log } }).result;
  const logs = check(result, 'bypass.logs');
  assert.equal(logs.status, 'fail');
  assert.equal(logs.impact, 'risk');
  assert.equal(logs.title, 'HAMi-core crashed in its cuMemCreate hook: it breaks on VMM allocations whose location is not a device');
  assert.match(logs.summary, /Project-HAMi\/HAMi-core#187/);
  assert.match(logs.remedy, /GGML_CUDA_NO_VMM=ON/);
  assert.deepEqual(logs.evidence, [
    'kubectl logs: [HAMI-core ERROR (pid:565 thread=140267266266944 multiprocess_memory_limit.c:831)]: Illegal device id: 850725928',
    'kubectl logs:   File "/libvgpu/src/cuda/memory.c", line 582, in cuMemCreate',
  ]);
  // "Illegal device id" alone stays the generic shared-region trouble.
  const alone = evaluate(healthy(), { cluster: { containerLog: `${log.split('\n')[0]}\n` } }).result;
  assert.match(check(alone, 'bypass.logs').title, /trouble with its shared region \(illegal-device-id\)/);
});
