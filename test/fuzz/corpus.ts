// The fuzz suite's seeds: the project's real fixtures (each with its provenance in the fixture folder's
// README or .source.md), and probe captures built in the probe's format around them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureText, procRecord } from '../unit/helpers/captureText.ts';
import type { SectionSpec } from '../unit/helpers/captureText.ts';
import { containerDir, GiB, MiB, manyPodsNode, nodeCapture, STRIX_HALO } from '../unit/helpers/nodeCapture.ts';
import { NONCE } from '../unit/helpers/captureText.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function filesIn(dir: string, accept: (name: string) => boolean): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter(accept)
    .sort()
    .map((name) => readFileSync(join(ROOT, dir, name), 'utf8'));
}

const yamlFile = (name: string) => /\.ya?ml$/.test(name);

/** Workload manifests: the fixtures, the e2e workspaces, the demo, and the simulator's cluster objects. */
export const MANIFESTS: readonly string[] = [
  ...filesIn('test/fixtures/manifests', yamlFile),
  ...filesIn('test/e2e/fixtures', yamlFile),
  ...filesIn('demo/workspace', yamlFile),
  ...filesIn('test/simulator/fixtures', yamlFile),
];

/** Kustomization files, real and written (sources in test/fixtures/manifests/kustomize/README.md). */
export const KUSTOMIZATIONS: readonly string[] = filesIn('test/fixtures/manifests/kustomize', (name) =>
  name.endsWith('kustomization.yaml'),
);

/** Real kernel logs (dmesg, dmesg -T, --decode, syslog, journal), sources in each .source.md. */
export const KERNEL_LOGS: readonly string[] = filesIn('test/fixtures/kernel-logs', (name) => name.endsWith('.log'));

/** Real nvidia-smi outputs (CSV queries and error texts), sources in test/fixtures/nvidia-smi/README.md. */
export const NVIDIA_SMI: readonly string[] = filesIn('test/fixtures/nvidia-smi', (name) => /\.(csv|txt)$/.test(name));

interface HamiLogFixture {
  readonly real: readonly { readonly line: string }[];
  readonly synthetic: readonly { readonly line: string }[];
  readonly negatives: readonly (string | { readonly line?: string; readonly text?: string })[];
}

const hamiLogFixture = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/hami/log-lines.json'), 'utf8')) as HamiLogFixture;

/** HAMi-core log lines, real and synthetic (test/fixtures/hami/README.md), one text per line and all together. */
export const HAMI_LOG_LINES: readonly string[] = [...hamiLogFixture.real, ...hamiLogFixture.synthetic].map((entry) => entry.line);
export const HAMI_LOGS: readonly string[] = [HAMI_LOG_LINES.join('\n'), ...HAMI_LOG_LINES];

/** This machine's /proc and cgroup v1 files (test/fixtures/proc/README.md). */
export const PROC = {
  meminfo: readFileSync(join(ROOT, 'test/fixtures/proc/meminfo'), 'utf8'),
  vmstat: readFileSync(join(ROOT, 'test/fixtures/proc/vmstat'), 'utf8'),
  memoryStat: readFileSync(join(ROOT, 'test/fixtures/proc/memory.stat'), 'utf8'),
  oomControl: readFileSync(join(ROOT, 'test/fixtures/proc/memory.oom_control'), 'utf8'),
  limitInBytes: readFileSync(join(ROOT, 'test/fixtures/proc/memory.limit_in_bytes'), 'utf8'),
  osRelease: readFileSync(join(ROOT, 'test/fixtures/proc/os-release'), 'utf8'),
  selfCgroup: readFileSync(join(ROOT, 'test/fixtures/proc/self-cgroup'), 'utf8'),
  /** A meminfo pasted with notes after the values. */
  annotatedMeminfo: readFileSync(join(ROOT, 'test/fixtures/proc/annotated-meminfo-chromeos.txt'), 'utf8'),
};
export const PROC_FILES: readonly string[] = Object.values(PROC);

/** DRM fdinfo as amdgpu prints it (the layout of test/helpers/fixtureRoot.ts, after amdgpu_show_fdinfo()). */
export const FDINFO: readonly string[] = [
  'pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1073\ndrm-driver:\tamdgpu\ndrm-client-id:\t11\ndrm-pdev:\t0000:c3:00.0\npasid:\t32770\n' +
    'drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-resident-cpu:\t0\ndrm-total-gtt:\t31457280 KiB\ndrm-shared-gtt:\t0\ndrm-resident-gtt:\t31457280 KiB\n' +
    'drm-total-vram:\t262144 KiB\ndrm-resident-vram:\t262144 KiB\ndrm-memory-vram:\t262144 KiB\ndrm-memory-gtt: \t31457280 KiB\ndrm-memory-cpu: \t0 KiB\n' +
    'amd-evicted-vram:\t0 KiB\namd-requested-vram:\t262144 KiB\namd-requested-gtt:\t31457280 KiB\ndrm-engine-gfx:\t1200000 ns\n',
  // A hand-made `grep drm-memory` line with no driver line (issue 17, class 8).
  'drm-memory-gtt: \t6291456 KiB\ndrm-memory-vram:\t0 KiB\n',
];

const TRAINER = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const VICTIM = '0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f';

function oomLines(uid: string, comm: string, pid: number): string {
  const memcg = `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid.replace(/-/g, '_')}.slice/cri-containerd-3.scope`;
  return [
    `Mar  1 10:00:00 strix-1 kernel: [100.000001] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=${memcg},task=${comm},pid=${pid},uid=0`,
    `Mar  1 10:00:00 strix-1 kernel: [100.000002] Out of memory: Killed process ${pid} (${comm}) total-vm:41656kB, anon-rss:2120kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:48kB oom_score_adj:1000`,
  ].join('\n');
}

const apuLog = KERNEL_LOGS.find((log) => log.includes('amdgpu')) ?? KERNEL_LOGS[0] ?? '';

/** Node captures: the inspector e2e's Strix Halo node, a cgroup v1 node with this machine's /proc files and real kernel logs, many pods. */
/** A node capture with the NVIDIA sections (GB10 rows, the apps fixture, pid records, the fallback table). */
function nvidiaNode(): string {
  const mark = (text: string) => `\n@@gpumem:${NONCE}:${text}@@\n`;
  const pod = { uid: TRAINER, current: 6 * GiB, max: 32 * GiB };
  const fixture = (name: string) => readFileSync(join(ROOT, 'test/fixtures/nvidia-smi', name), 'utf8');
  const sections =
    `${mark('begin nvidia-smi.gpu')}0, GPU-2dee1e25-b3b5-007e-2b55-79f2d0f2ebe5, NVIDIA GB10, 0000000F:01:00.0, 580.95.05, [N/A], [N/A], [N/A], [N/A], 0, Default, [N/A]\n${mark('rc 0')}${mark('end nvidia-smi.gpu')}` +
    `${mark('begin nvidia-smi.apps')}${fixture('llama-swap-782-gb10-apps.csv')}${mark('rc 0')}${mark('end nvidia-smi.apps')}` +
    `${mark('begin nvidia-smi.pids')}${mark('file /proc/114687/cgroup')}0::${containerDir(pod, 1)}\n${mark('file /proc/114687/comm')}python\n${mark('file /proc/114687/environ')}CUDA_DEVICE_MEMORY_LIMIT_0=4000m\nCUDA_DISABLE_CONTROL=true\n${mark('missing /proc/4174')}` +
    // The one-grep form of the same section (a grep with -z): a second pid, one it may not read.
    `${mark('file /proc/114688/cgroup')}0::${containerDir(pod, 1)}\n${mark('file /proc/114688/comm')}python\n${mark('file /proc/environ-keys')}114688/environ:CUDA_DEVICE_MEMORY_LIMIT_0=8000m\n114688/environ:CUDA_DEVICE_MEMORY_SHARED_CACHE=/usr/local/vgpu/${TRAINER}.cache\n${mark('file /proc/environ-status')}grep: 4175/environ: Permission denied\nrc 2\n${mark('end nvidia-smi.pids')}` +
    `${mark('begin nvidia-smi.table')}${fixture('table-gb10-obrienlabs-processes.txt')}${mark('rc 0')}${mark('end nvidia-smi.table')}`;
  return nodeCapture({ kernel: '6.17.0-1008-nvidia', memTotal: 128 * GiB, pods: [pod] }).replace(
    mark('done'),
    `${sections}${mark('done')}`,
  );
}

export const NODE_CAPTURES: readonly string[] = [
  nvidiaNode(),
  // The fdinfo sweep in one batched heads record, as the probe reads it with head -c (the streaming parse splits it).
  nodeCapture({ ...manyPodsNode(4), fdinfoBatched: true }),
  nodeCapture({
    hostname: 'strix-1',
    kernel: '7.1.0-gpumem',
    memTotal: 128 * GiB,
    memAvailable: 41 * GiB,
    gpuActive: 55 * GiB,
    gpus: [{ ...STRIX_HALO, gttUsed: 54 * GiB }],
    pods: [
      {
        uid: TRAINER,
        current: 6 * GiB,
        max: 32 * GiB,
        processes: [{ pid: 4242, comm: 'python3', fds: [{ fd: 7, client: '11', gtt: 30 * GiB, vram: 256 * MiB }] }],
      },
      {
        uid: VICTIM,
        current: 2 * GiB,
        max: 16 * GiB,
        events: 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\noom_group_kill 0\n',
        processes: [{ pid: 6161, comm: 'vllm-worker', fds: [{ fd: 4, client: '13', gtt: 6 * GiB }] }],
      },
      { uid: '3d6fb5d1-5178-42fa-9cbe-ac2efc5e4c8e', current: 512 * MiB, max: 'max' },
    ],
    kernelLog: `${oomLines(VICTIM, 'vllm-worker', 6161)}\n${apuLog}`,
    modparams: [
      ['/sys/module/ttm/parameters/pages_limit', '25165824\n'],
      ['/sys/module/amdgpu/parameters/gttsize', '-1\n'],
    ],
    dmemCapacity: 'drm/0000:c3:00.0/vram 536870912\n',
    // The driver's debugfs books (the probe's summarised gem_info), so analysis of that section is fuzzed too.
    debugfs: [
      ['/sys/kernel/debug', 'mounted\n'],
      ['/sys/kernel/security/lockdown', '[none] integrity confidentiality\n'],
      ['/sys/kernel/debug/dri/1/name', 'amdgpu dev=0000:c5:00.0 unique=0000:c5:00.0\n'],
      [
        '/sys/kernel/debug/dri/1/amdgpu_gem_info',
        'pid     4242 command python3:\n\t\tgpumem-total GTT 32212254720 2 0\n\t\tgpumem-total VRAM 268435456 1 0\n' +
          '\t\t0x00000001:  30064771072 byte GTT CPU_GTT_USWC\n\t\t0x00000003:    268435456 byte VRAM VISIBLE pin count 1\n' +
          'pid     6161 command vllm-worker/vllm:\n\t\tgpumem-total GTT 6442450944 1 6442450944\n' +
          '\t\t0x00000001:   6442450944 byte GTT exported as ino:9912\ngpumem-end clients 2 bos 4 rc 0\n',
      ],
      [
        '/sys/kernel/debug/dri/1/amdgpu_gtt_mm',
        '  use_type: 1\n  use_tt: 1\n  size: 103079215104\n  usage: 57982058496\ntotal: 131072, used 5376 free 125696\n',
      ],
      [
        '/sys/kernel/debug/ttm/page_pool',
        '\t  --- 0--- --- 1---\nwc\t:      120       40\nuc\t:        0        0\n\ntotal\t:      200 of 25165824\n',
      ],
    ],
  }),
  nodeCapture({
    kernel: '6.8.0-45-generic',
    mode: 'v1',
    memTotal: 64 * GiB,
    memAvailable: 3 * GiB,
    pods: [{ uid: VICTIM, current: 3 * GiB, max: 4 * GiB }],
    kernelLog: KERNEL_LOGS.slice(0, 4).join('\n'),
  }),
  nodeCapture({ ...manyPodsNode(6), kernelLog: KERNEL_LOGS.slice(4, 9).join('\n') }),
  captureText(
    'node',
    {
      meta: 'hostname=ci-1\nkernel=6.1.0-28-amd64\nmachine=x86_64\nnow=1767225600\nuid=0\n',
      'os-release': { files: [['/etc/os-release', PROC.osRelease]] },
      proc: {
        files: [
          ['/proc/meminfo', PROC.meminfo],
          ['/proc/vmstat', PROC.vmstat],
        ],
      },
      'cgroup.mode': 'hybrid\n',
      'cgroup.root': {
        files: [
          ['/sys/fs/cgroup/memory/memory.stat', PROC.memoryStat],
          ['/sys/fs/cgroup/memory/memory.limit_in_bytes', PROC.limitInBytes],
        ],
      },
      'cgroup.kubepods': { files: [['/sys/fs/cgroup/memory/kubepods/memory.oom_control', PROC.oomControl]] },
      'kernel-log': `source=dmesg\n${KERNEL_LOGS.slice(9).join('\n')}`,
      drm: { files: [] },
      fdinfo: {
        files: FDINFO.map((text, i): [string, string] => [
          `/proc/${100 + i}/fdinfo/${7 + i}`,
          `${text}@cgroup 0::/kubepods.slice/kubepods-pod${TRAINER.replace(/-/g, '_')}.slice\n`,
        ]),
      },
      'hami.host': { missing: ['/usr/local/vgpu'] },
    },
    { done: false },
  ),
];

const CACHE = '/usr/local/vgpu/4b1d9a0c-3f7e-4c55-9a1e-0d2b6f8e7a11.cache';
const LIMIT_ENV = ['CUDA_DEVICE_MEMORY_LIMIT_0=4096m', 'CUDA_DEVICE_SM_LIMIT=50', `CUDA_DEVICE_MEMORY_SHARED_CACHE=${CACHE}`];

/** A HAMi container capture (the healthy one of test/unit/hamiChecklist.test.ts) with real HAMi log lines and nvidia-smi output. */
export const HAMI_CACHE_BODY = `size=2008953\nheader= 19920718 1 2 0 \ndevice_num=1\nlimits= 4294967296 ${new Array(15).fill('0').join(' ')} \nproc_num=1\nslot0= 42 31337 status=1 used=1073741824\n${Array.from({ length: 15 }, (_, i) => `slot${i + 1}= 0 0 status=0 used=0`).join('\n')}\n`;

const containerSections: Record<string, SectionSpec | string> = {
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
    '',
  ].join('\n'),
  vgpu: {
    files: [
      [
        'ls',
        'total 2340\n-rw-rw-rw-    1 0        0          2008953 Aug 21 10:01 4b1d9a0c-3f7e-4c55-9a1e-0d2b6f8e7a11.cache\n-rwxr-xr-x    1 0        0           385480 Sep 24  2025 libvgpu.so\n',
      ],
    ],
  },
  'hami.caches': { files: [[CACHE, HAMI_CACHE_BODY]] },
  loader: '/lib64/ld-linux-x86-64.so.2\n',
  dind: '',
  cgroup: {
    files: [
      ['/proc/self/cgroup', '0::/\n'],
      ['/sys/fs/cgroup/memory.current', '2147483648\n'],
      ['/sys/fs/cgroup/memory.max', '17179869184\n'],
      ['/sys/fs/cgroup/memory.events', 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n'],
    ],
  },
  'hami.log': `${HAMI_LOG_LINES.slice(0, 8).join('\n')}\n`,
  'nvidia-smi.gpu': { body: '0, GPU-8dcd1b3e-5c2f-4a4e-9f0b-2f4c7a1d9e10, NVIDIA A10, 4096, 1024, 3072\n', rc: 0 },
  'nvidia-smi.apps': { body: '', rc: 0 },
  procs: {
    files: [
      procRecord({ pid: 1, comm: 'sleep', env: LIMIT_ENV, exePath: '/usr/bin/sleep' }),
      procRecord({
        pid: 42,
        ppid: 1,
        comm: 'python3',
        cmdline: 'python3 train.py --epochs 3 ',
        maps: 'libvgpu=1 libcuda=1 ld-musl=0 ld-linux=1 lines=812',
        nvidiaFd: '1',
        env: LIMIT_ENV,
        exePath: '/usr/bin/python3.11',
      }),
      ['summary', 'count=2\nlimit=500\ntruncated=0\n'],
    ],
  },
};

export const CONTAINER_CAPTURES: readonly string[] = [
  captureText('container', containerSections),
  captureText('container', {
    ...containerSections,
    'nvidia-smi.gpu': { body: NVIDIA_SMI.join('\n'), rc: 9 },
    env: 'source=proc\nLD_PRELOAD=\n',
  }),
];

export const CAPTURES: readonly string[] = [...NODE_CAPTURES, ...CONTAINER_CAPTURES];
