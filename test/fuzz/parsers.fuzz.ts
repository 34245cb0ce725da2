// Every probe parser (src/core/probe/parsers/*) on its own input: mutated real /proc files, fdinfo, nvidia-smi
// outputs, HAMi logs and caches, ls/mountinfo lines, containerd and kubelet configs; the parsers that take a
// section's files get the files of a mutated capture.
import { parseCapture, sectionFiles } from '../../src/core/probe/capture.ts';
import { parseContainerProbe } from '../../src/core/probe/parsers/containerProbe.ts';
import { parseLsLine, parseMountInfoLine } from '../../src/core/probe/parsers/containerFiles.ts';
import { parseProcess } from '../../src/core/probe/parsers/containerProcesses.ts';
import { parseDrmCards, parseModuleParams } from '../../src/core/probe/parsers/drm.ts';
import { aggregateFdinfo, cgroupOf, parseFdinfo, parseMemoryValue } from '../../src/core/probe/parsers/fdinfo.ts';
import { parseHamiCacheRecord } from '../../src/core/probe/parsers/hamiCache.ts';
import { parseHamiLog } from '../../src/core/probe/parsers/hamiLog.ts';
import { parseCgroupValue, v1Limit } from '../../src/core/probe/parsers/cgroupMemory.ts';
import { parseDmem } from '../../src/core/probe/parsers/cgroupDmem.ts';
import { parseKernelVersion, parseKeyEquals, parseKeyNumber } from '../../src/core/probe/parsers/keyValue.ts';
import { parseMeminfo } from '../../src/core/probe/parsers/meminfo.ts';
import { parseNodeList, parseNumaMeminfo } from '../../src/core/probe/parsers/numaMeminfo.ts';
import { parseContainerdDefaultRuntime, parseKubeletReservations } from '../../src/core/probe/parsers/nodeConfig.ts';
import { parseSmiApps, parseSmiCsv, parseSmiGpus } from '../../src/core/probe/parsers/nvidiaSmi.ts';
import { parseSmiPids } from '../../src/core/probe/parsers/nvidiaSmiPids.ts';
import { parseSmiTable } from '../../src/core/probe/parsers/nvidiaSmiTable.ts';
import { podCgroupDataFromFiles } from '../../src/core/verdicts/oom/oomPodCgroups.ts';
import { amdgpuFdinfo } from '../helpers/fixtureRoot.ts';
import { parseAmdgpuDebugfs, parseGemInfo, parseTtmManager, parseTtmPool } from '../../src/core/probe/parsers/amdgpuDebugfs.ts';
import { amdgpuGemInfo, amdgpuGttMm, amdgpuVramMm, ttmGlobalPagePool } from '../helpers/amdgpuDebugfsFiles.ts';
import { CONTAINER_CAPTURES, FDINFO, HAMI_CACHE_BODY, HAMI_LOGS, NODE_CAPTURES, NVIDIA_SMI, PROC, PROC_FILES } from './corpus.ts';
import { fuzzTarget } from './harness.ts';
import { captureText } from '../unit/helpers/captureText.ts';

const line = (n: number, text: string) => text.repeat(Math.ceil(n / text.length));

fuzzTarget({
  name: 'meminfo.parseMeminfo, keyValue.parseKeyNumber/parseKeyEquals',
  corpus: PROC_FILES,
  run: (input) => ({ meminfo: parseMeminfo(input), keyNumber: parseKeyNumber(input), keyEquals: parseKeyEquals(input) }),
  growth: [
    { label: 'many lines', make: (n) => line(n, PROC.meminfo) },
    { label: 'long whitespace', make: (n) => `MemTotal:${' '.repeat(n)}1 kB\n` },
    // Found by the long run (seed 168661840): `(.*)$` failed at a CR and the blanks before it backtracked, O(n²).
    { label: 'blanks around a CR in a key line', make: (n) => `nr_gpu_active${' '.repeat(n / 2)}\r${' '.repeat(n / 2)}7\n` },
  ],
});

fuzzTarget({
  name: 'numaMeminfo.parseNumaMeminfo/parseNodeList',
  corpus: [...PROC_FILES.map((text) => text.replace(/^/gm, 'Node 1 ')), '0-1,3', '1', '(null)', '0-1023'],
  run: (input) => ({
    nodes: parseNumaMeminfo(new Map([['/sys/devices/system/node/node1/meminfo', input]])),
    list: parseNodeList(input.trim()),
  }),
  growth: [
    { label: 'a long node list', make: (n) => Array.from({ length: Math.ceil(n / 5) }, (_, i) => String(i % 1000)).join(',') },
    { label: 'many per-node lines', make: (n) => 'Node 1 MemTotal: 1 kB\n'.repeat(Math.ceil(n / 22)) },
  ],
});

const CGROUP_VALUES = [
  'max\n',
  '17179869184\n',
  '9223372036854771712\n',
  '18446744073709551615\n',
  PROC.limitInBytes,
  'drm/0000:c3:00.0/vram 536870912\ndrm/0000:03:00.0/vram max\n',
  '6.8.0-45-generic',
  '7.1.0-rc2+',
];
fuzzTarget({
  name: 'cgroupMemory.parseCgroupValue/v1Limit, cgroupDmem.parseDmem, keyValue.parseKernelVersion',
  corpus: CGROUP_VALUES,
  run: (input) => ({ value: parseCgroupValue(input), v1: v1Limit(input), dmem: parseDmem(input), kernel: parseKernelVersion(input) }),
  growth: [
    { label: 'blanks around a CR in a dmem line', make: (n) => `drm/0000:c3:00.0/vram${' '.repeat(n / 2)}\r${' '.repeat(n / 2)}1\n` },
  ],
});

const FDINFO_CORPUS = [
  ...FDINFO,
  amdgpuFdinfo({ clientId: 11, pdev: '0000:c3:00.0', pasid: 32770, gtt: 30 * 1024 ** 3, vram: 256 * 1024 ** 2, cpu: 0 }),
  amdgpuFdinfo({
    clientId: 12,
    pdev: '0000:c3:00.0',
    pasid: 32771,
    gtt: 4096,
    vram: 0,
    cpu: 1024,
    flags: '0100002',
    engines: { gfx: 1, compute: 99 },
  }),
];
fuzzTarget({
  name: 'fdinfo.parseFdinfo/parseMemoryValue/cgroupOf',
  corpus: FDINFO_CORPUS,
  run: (input) => ({ client: parseFdinfo(input), value: parseMemoryValue(input), cgroup: cgroupOf(input) }),
  growth: [
    { label: 'many keys', make: (n) => line(n, FDINFO_CORPUS[2] ?? '') },
    { label: 'long value', make: (n) => `drm-memory-gtt: ${'1'.repeat(n)} KiB\n` },
  ],
});

const GEM_INFO = amdgpuGemInfo([
  {
    pid: 4101,
    command: 'python3',
    buffers: [
      { bytes: 16 * 1024 ** 3, placement: 'GTT', fence: true },
      { bytes: 2 * 1024 ** 2, placement: 'VRAM VISIBLE', count: 3, pinned: 1 },
    ],
  },
  {
    pid: 4102,
    command: 'llama-server',
    clientName: 'llama.cpp',
    buffers: [{ bytes: 1024 ** 3, placement: 'GTT', count: 4, exported: 88213 }],
  },
]);
const DEBUGFS_CORPUS = [
  GEM_INFO,
  `${GEM_INFO}gpumem-rc 0\n`,
  'pid     4101 command python3:\n\t\tgpumem-total GTT 17179869184 1 0\n\t\t0x00000001:  17179869184 byte GTT\ngpumem-end clients 1 bos 1 rc 0\n',
  amdgpuGttMm(103079215104, 32413581312),
  amdgpuVramMm(536870912, 402653184, 402653184),
  ttmGlobalPagePool({ wc: [120, 40], uc: [], 'wc 32': [3], 'uc 32': [] }, 25165824),
  'unused\n',
  'man size:25165824 pages, gtt available:24117248 pages, usage:4096MB\n',
  'gpumem-error cat: /host/sys/kernel/debug/dri/0/amdgpu_gem_info: Operation not permitted\ngpumem-end clients 0 bos 0 rc 1\n',
];
fuzzTarget({
  name: 'amdgpuDebugfs.parseGemInfo/parseTtmManager/parseTtmPool',
  corpus: DEBUGFS_CORPUS,
  run: (input) => ({
    gem: parseGemInfo(input),
    manager: parseTtmManager(input),
    pool: parseTtmPool(input),
    section: parseAmdgpuDebugfs(
      new Map([
        ['/sys/kernel/debug', input],
        ['/sys/kernel/debug/dri/0/amdgpu_gem_info', input],
      ]),
      '',
    ),
  }),
  growth: [
    {
      label: 'many buffers',
      make: (n) => `pid     4101 command python3:\n${line(n, '\t\t0x00000001:      4194304 byte GTT CPU_GTT_USWC\n')}`,
    },
    { label: 'many clients', make: (n) => line(n, 'pid     4101 command python3:\n\t\t0x00000001:      4194304 byte GTT\n') },
    {
      label: 'long line',
      make: (n) => `pid     4101 command ${'x'.repeat(n)}:\n\t\t0x00000001: ${' '.repeat(n)}4 byte ${'GTT '.repeat(n)}\n`,
    },
    { label: 'long pool row', make: (n) => `wc\t:${' 1'.repeat(n)}\ntotal\t: 1 of 2\n` },
  ],
});

fuzzTarget({
  name: 'fdinfo.aggregateFdinfo(capture)',
  corpus: NODE_CAPTURES,
  run: (input) => aggregateFdinfo(sectionFiles(parseCapture(input), 'fdinfo')),
});

fuzzTarget({
  name: 'drm.parseDrmCards/parseModuleParams(capture)',
  corpus: NODE_CAPTURES,
  run: (input) => {
    const capture = parseCapture(input);
    return { cards: parseDrmCards(sectionFiles(capture, 'drm')), params: parseModuleParams(sectionFiles(capture, 'modparams')) };
  },
});

fuzzTarget({
  name: 'oomPodCgroups.podCgroupDataFromFiles(capture)',
  corpus: NODE_CAPTURES,
  run: (input) => podCgroupDataFromFiles(sectionFiles(parseCapture(input), 'cgroup.kubepods')),
});

fuzzTarget({
  name: 'nvidiaSmi.parseSmiGpus/parseSmiApps/parseSmiCsv',
  corpus: NVIDIA_SMI,
  run: (input) => ({
    gpus: parseSmiGpus(input),
    apps: parseSmiApps(input),
    csv: parseSmiCsv(input, ['index', 'name', 'memory.total', 'memory.used'], input),
  }),
  growth: [
    { label: 'many rows', make: (n) => line(n, NVIDIA_SMI[1] ?? '') },
    { label: 'long whitespace in a row', make: (n) => `0, ${' '.repeat(n)}, NVIDIA A10, 4096, 1024, 3072\n` },
    { label: 'long whitespace before [N/A]', make: (n) => `0, GPU-1, NVIDIA A10, 4096${' '.repeat(n)}x\n` },
  ],
});

fuzzTarget({
  name: 'nvidiaSmiTable.parseSmiTable',
  corpus: NVIDIA_SMI,
  run: (input) => parseSmiTable(input),
  growth: [
    {
      label: 'many process rows',
      make: (n) => `| Processes: |\n${line(n, '|    0   N/A  N/A     4174      G   /usr/lib/xorg/Xorg     84MiB |\n')}`,
    },
    {
      label: 'long whitespace in a GPU row',
      make: (n) => `|   0  NVIDIA H100${' '.repeat(n)}On  |   0 |\n| N/A | 1MiB /${' '.repeat(n)}81559MiB |\n`,
    },
    { label: 'a long row of cells', make: (n) => `|${'  0 |'.repeat(n)}\n` },
  ],
});

fuzzTarget({
  name: 'nvidiaSmiPids.parseSmiPids(capture)',
  corpus: NODE_CAPTURES,
  run: (input) => {
    const capture = parseCapture(input);
    return parseSmiPids(sectionFiles(capture, 'nvidia-smi.pids'), capture.sections.get('nvidia-smi.pids')?.missing ?? []);
  },
  growth: [
    {
      label: 'many one-grep lines',
      make: (n) => smiPidsBatch(`${line(n, '7/environ:CUDA_DEVICE_MEMORY_LIMIT_0=8192m\n')}`, 'rc 0\n'),
    },
    { label: 'a long one-grep value', make: (n) => smiPidsBatch(`7/environ:CUDA_DISABLE_CONTROL=${'9'.repeat(n)}\n`, 'rc 0\n') },
    { label: 'a long grep error line', make: (n) => smiPidsBatch('', `grep: ${'1'.repeat(n)}/environ${':'.repeat(n)}\nrc 2\n`) },
  ],
});

/** A pids section in the one-grep form: its matches and its status record. */
function smiPidsBatch(keys: string, status: string): string {
  return captureText('node', {
    'nvidia-smi.pids': {
      files: [
        ['/proc/environ-keys', keys],
        ['/proc/environ-status', status],
      ],
    },
  });
}

fuzzTarget({
  name: 'hamiLog.parseHamiLog',
  corpus: HAMI_LOGS,
  run: (input) => parseHamiLog(input),
  growth: [
    { label: 'many lines', make: (n) => line(n, `${HAMI_LOGS[0] ?? ''}\n`) },
    { label: 'one long line', make: (n) => `[HAMI-core Msg(51:139774888380224:libvgpu.c:838)]: ${'x'.repeat(n)}` },
  ],
});

fuzzTarget({
  name: 'hamiCache.parseHamiCacheRecord',
  corpus: [HAMI_CACHE_BODY, 'size=2008953\nod-missing\n', 'size=0\nheader=\ndevice_num=\nlimits=\nproc_num=\nslot0=status= used=\n'],
  run: (input) => parseHamiCacheRecord('/usr/local/vgpu/fuzz.cache', input),
  growth: [{ label: 'many slots', make: (n) => `${HAMI_CACHE_BODY}${line(n, 'slot3= 42 31337 status=1 used=1073741824\n')}` }],
});

const LS_LINES = [
  '-r--r--r--    1 0        0               27 Aug 21 10:00 /etc/ld.so.preload',
  'lrwxrwxrwx 1 root root 64 Mar  1 10:00 /proc/42/fd/3 -> /dev/nvidia0',
  'crw-rw-rw-    1 0        0         226, 128 Mar  1 10:00 /dev/dri/renderD128',
  '-rwxr-xr-x    1 0        0           385480 Sep 24  2025 /usr/local/vgpu/libvgpu.so',
];
const MOUNT_LINES = [
  '1071 1015 0:289 / / rw,relatime master:405 - overlay overlay rw,lowerdir=/var/lib/containerd/l1',
  '1090 1071 253:1 /usr/local/vgpu/ld.so.preload /etc/ld.so.preload ro,relatime - ext4 /dev/vda1 rw',
  '36 35 98:0 /mnt1 /mnt\\040two rw,noatime shared:1 - ext3 /dev/root rw,errors=continue',
];
fuzzTarget({
  name: 'containerFiles.parseLsLine/parseMountInfoLine',
  corpus: [...LS_LINES, ...MOUNT_LINES],
  run: (input) => input.split('\n').map((text) => ({ ls: parseLsLine(text), mount: parseMountInfoLine(text) })),
});

const PROC_RECORD =
  'pid=42\nppid=1\ncomm=python3\ncmdline=python3 train.py\nmaps=libvgpu=1 libcuda=1 ld-musl=0 ld-linux=1 lines=812\nnvidia_fd=1\nCUDA_DEVICE_MEMORY_LIMIT_0=4096m\nexe_path=/usr/bin/python3.11\nexe=dynamic via=od interp=/lib64/ld-linux-x86-64.so.2\n';
fuzzTarget({
  name: 'containerProcesses.parseProcess',
  corpus: [PROC_RECORD, 'pid=7\n@environ-unreadable\n'],
  run: (input) => parseProcess(42, input),
});

fuzzTarget({
  name: 'containerProbe.parseContainerProbe',
  corpus: CONTAINER_CAPTURES,
  run: (input) => parseContainerProbe(parseCapture(input)),
});

const KUBELET_CONFIG =
  'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\nevictionHard:\n  memory.available: 500Mi\n  nodefs.available: 10%\nkubeReserved:\n  cpu: 500m\n  memory: 1Gi\nsystemReserved:\n  cpu: 500m\n  memory: 2Gi\n';
const KUBELET_CMDLINE =
  '/usr/bin/kubelet\0--config=/var/lib/kubelet/config.yaml\0--kube-reserved=cpu=200m,memory=512Mi\0--system-reserved=memory=1Gi\0--eviction-hard=memory.available<100Mi\0';
fuzzTarget({
  name: 'nodeConfig.parseKubeletReservations',
  corpus: [KUBELET_CONFIG, KUBELET_CMDLINE],
  nest: 'yaml',
  run: (input) => ({ config: parseKubeletReservations(input, KUBELET_CMDLINE), flags: parseKubeletReservations(KUBELET_CONFIG, input) }),
});

const CONTAINERD =
  '[plugins."io.containerd.grpc.v1.cri".containerd]\n      default_runtime_name = "nvidia"\n      snapshotter = "overlayfs"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n  BinaryName = "/usr/bin/nvidia-container-runtime"\n';
fuzzTarget({
  name: 'nodeConfig.parseContainerdDefaultRuntime',
  corpus: [CONTAINERD],
  run: (input) => parseContainerdDefaultRuntime(new Map([['/etc/containerd/config.toml', input]])),
  growth: [{ label: 'long whitespace', make: (n) => `default_runtime_name${' '.repeat(n)}x\n` }],
});
