// The node's nvidia-smi: the default table parser on real outputs, the pid records, the NVIDIA node model,
// per-pod GPU memory (discrete and GB10), and the node-side HAMi quota verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { parseSmiPids } from '../../src/core/probe/parsers/nvidiaSmiPids.ts';
import { parseSmiTable } from '../../src/core/probe/parsers/nvidiaSmiTable.ts';
import { isUnifiedMemoryProduct } from '../../src/core/probe/nvidiaNode.ts';
import type { HamiPodQuota } from '../../src/core/verdicts/hami/hamiQuota.ts';
import { inspectionSource, reanalyzeSource } from '../../src/core/inspectorPanel/restore.ts';
import { INSPECTOR_STATE_VERSION, parseInspectorState } from '../../src/core/inspector/protocol.ts';
import { serializeCapture } from '../../src/core/probe/captureWriter.ts';
import { inspectionToJson } from '../../src/core/report/inspectionReport.ts';
import { containerDir, GiB, MiB, nodeCapture } from './helpers/nodeCapture.ts';
import { H100, H100_ROW, OTHER, pidFiles, POD, withNvidia } from './helpers/nvidiaCapture.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/nvidia-smi/${name}`, import.meta.url), 'utf8');

test('default table, 8 × H100 (thamada/nvidia-smi): GPU rows, driver, an empty process list', () => {
  const table = parseSmiTable(fixture('table-h100x8-thamada-no-processes.txt'));
  assert.equal(table.driverVersion, '565.57.01');
  assert.equal(table.gpus.length, 8);
  assert.deepEqual(
    table.gpus.map((gpu) => [gpu.index, gpu.name, gpu.memoryUsedMiB, gpu.memoryTotalMiB]),
    Array.from({ length: 8 }, (_, i) => [i, 'NVIDIA H100 80GB HBM3', 1, 81559]),
  );
  assert.equal(table.noProcesses, true);
  assert.deepEqual(table.processes, []);
});

test('default table, GB10 (ObrienlabsDev/blog): "Not Supported" memory is unknown, processes with GI/CI N/A', () => {
  const table = parseSmiTable(fixture('table-gb10-obrienlabs-processes.txt'));
  const [gpu] = table.gpus;
  assert.equal(gpu?.name, 'NVIDIA GB10');
  assert.equal(gpu?.memoryUsedMiB, undefined, 'never 0');
  assert.equal(gpu?.memoryTotalMiB, undefined);
  assert.equal(gpu?.memoryUnavailable, 'Not Supported');
  assert.deepEqual(
    table.processes.map((p) => [p.gpu, p.gi, p.ci, p.pid, p.type, p.name, p.usedMemoryMiB]),
    [
      [0, undefined, undefined, 4174, 'G', '/usr/lib/xorg/Xorg', 84],
      [0, undefined, undefined, 4399, 'G', '/usr/bin/gnome-shell', 125],
      [0, undefined, undefined, 4761, 'G', '.../7182/usr/lib/firefox/firefox', 273],
    ],
  );
  assert.equal(isUnifiedMemoryProduct(gpu?.name), true);
  assert.equal(isUnifiedMemoryProduct('NVIDIA H100 80GB HBM3'), false);
});

test('default table, A100 in MIG mode (NVIDIA k8s-dra-driver-gpu docs): the MIG devices block', () => {
  const table = parseSmiTable(fixture('table-a100-mig-dra-openshift.txt'));
  assert.deepEqual(
    table.gpus.map((gpu) => [gpu.index, gpu.name, gpu.memoryUsedMiB, gpu.memoryTotalMiB]),
    [[0, 'NVIDIA A100 80GB PCIe', 249, 81920]],
  );
  assert.deepEqual(
    table.migDevices.map((d) => [d.gpu, d.gi, d.ci, d.migDevice, d.memoryUsedMiB, d.memoryTotalMiB]),
    [
      [0, 1, 0, 0, 107, 40192],
      [0, 5, 0, 1, 71, 19968],
      [0, 13, 0, 2, 36, 9728],
      [0, 14, 0, 3, 36, 9728],
    ],
    'the BAR1 line under each device is not a device',
  );
  assert.equal(table.noProcesses, true);
});

test('default table process rows: MIG GI/CI numbers, the pre-450 layout without them, N/A usage', () => {
  // Row layouts as the fixtures print them; the MIG row's GI/CI numbers and the old layout are the column
  // order of the header each table carries ("GPU GI CI PID Type Process name GPU Memory Usage", and
  // "GPU PID Type Process name Usage" before driver 450).
  const text = [
    '| Processes:                                                                              |',
    '|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |',
    '|=========================================================================================|',
    '|    0    1    0          123456      C   python3 train.py                      14195MiB |',
    '|    0   N/A  N/A             45      C   /python3.12                           N/A      |',
    '|    1        2211      C   ./old-driver-app      901MiB |',
  ].join('\n');
  const table = parseSmiTable(text);
  assert.deepEqual(
    table.processes.map((p) => [p.gpu, p.gi, p.ci, p.pid, p.name, p.usedMemoryMiB]),
    [
      [0, 1, 0, 123456, 'python3 train.py', 14195],
      [0, undefined, undefined, 45, '/python3.12', undefined],
      [1, undefined, undefined, 2211, './old-driver-app', 901],
    ],
  );
});

test('pid records: only HAMi limit variables are kept, unreadable and absent pids are named', () => {
  const pids = parseSmiPids(
    new Map([
      ['/host/proc/41/cgroup', '0::/kubepods.slice/kubepods-pod0b3b7a41_1c1d_4e2f_9a3b_5c6d7e8f9a0b.slice/cri-containerd-ab.scope\n'],
      ['/host/proc/41/comm', 'python3\n'],
      ['/host/proc/41/environ', 'CUDA_DEVICE_MEMORY_LIMIT_0=4000m\nAWS_SECRET_ACCESS_KEY=leak\nCUDA_DISABLE_CONTROL=true\n'],
      ['/host/proc/42/environ', '@environ-unreadable\n'],
    ]),
    ['/host/proc/77', 'pids beyond 1000'],
  );
  const record = pids.records.get(41);
  assert.equal(record?.comm, 'python3');
  assert.deepEqual(
    [...(record?.env ?? [])],
    [
      ['CUDA_DEVICE_MEMORY_LIMIT_0', '4000m'],
      ['CUDA_DISABLE_CONTROL', 'true'],
    ],
  );
  assert.equal(pids.records.get(42)?.environUnreadable, true);
  assert.deepEqual(pids.absent, [77]);
  assert.equal(pids.truncated, true);
});

test('pid records from the one grep: variables per pid, its errors unreadable, an unfinished grep knows nothing', () => {
  const cgroup = '0::/kubepods.slice/kubepods-pod0b3b7a41_1c1d_4e2f_9a3b_5c6d7e8f9a0b.slice/cri-containerd-ab.scope\n';
  const files = (status: string) =>
    new Map([
      ['/host/proc/41/cgroup', cgroup],
      ['/host/proc/41/comm', 'python3\n'],
      ['/host/proc/42/cgroup', cgroup],
      ['/host/proc/43/cgroup', cgroup],
      [
        '/host/proc/environ-keys',
        [
          '41/environ:CUDA_DEVICE_MEMORY_LIMIT_0=4000m',
          '41/environ:CUDA_DISABLE_CONTROL=true',
          // Not a kept name, and a line whose pid part is not the file's: both dropped.
          '41/environ:AWS_SECRET_ACCESS_KEY=leak',
          'x41/environ:CUDA_DEVICE_MEMORY_LIMIT_0=1m',
          '',
        ].join('\n'),
      ],
      ['/host/proc/environ-status', status],
    ]);
  const done = parseSmiPids(files('grep: 42/environ: Permission denied\nrc 2\n'));
  const cgroupsForm = parseSmiPids(
    new Map([
      // v1: several lines, each newline a tab; a line naming another pid's file cannot come from inside one.
      ['/proc/pid-cgroups', `44/cgroup:12:memory:/kubepods/burstable/pod0b3b7a41-1c1d-4e2f-9a3b-5c6d7e8f9a0b/ab\t1:cpu:/x\t\n`],
      ['/proc/environ-keys', ''],
      ['/proc/environ-status', 'grep: 45/environ: No such file or directory\ngrep: 44/environ: Permission denied\nrc 2\n'],
    ]),
  );
  assert.equal(cgroupsForm.records.get(44)?.cgroup, '/kubepods/burstable/pod0b3b7a41-1c1d-4e2f-9a3b-5c6d7e8f9a0b/ab');
  assert.equal(cgroupsForm.records.get(44)?.environUnreadable, true);
  assert.deepEqual(cgroupsForm.absent, [45], 'no such file: nvidia-smi sees another PID namespace');
  assert.equal(cgroupsForm.records.has(45), false);
  assert.deepEqual(
    [...(done.records.get(41)?.env ?? [])],
    [
      ['CUDA_DEVICE_MEMORY_LIMIT_0', '4000m'],
      ['CUDA_DISABLE_CONTROL', 'true'],
    ],
  );
  assert.equal(done.records.get(41)?.comm, 'python3');
  assert.deepEqual([done.records.get(42)?.environUnreadable, done.records.get(42)?.env], [true, undefined]);
  assert.deepEqual([...(done.records.get(43)?.env ?? ['not read'])], [], 'read, no HAMi variable');
  // grep killed by timeout (rc 124 or 143), or /proc gone ('rc cd'): a pid without a match is not known to have none.
  for (const status of ['rc 124\n', 'rc 143\n', 'rc cd\n', '']) {
    const cut = parseSmiPids(files(status));
    assert.equal(cut.records.get(43)?.env, undefined, status);
    assert.equal(cut.records.get(41)?.env?.get('CUDA_DISABLE_CONTROL'), 'true', status);
  }
});

// --- Captures -------------------------------------------------------------------------------------------

function h100Node(apps: string, pids: [string, string][], options: { quotas?: ReadonlyMap<string, HamiPodQuota> } = {}) {
  const text = withNvidia(nodeCapture({ kernel: '6.8.0-60-generic', memTotal: 512 * GiB, pods: [POD, OTHER] }), {
    'nvidia-smi.gpu': { body: H100_ROW, rc: 0 },
    'nvidia-smi.apps': { body: apps, rc: 0 },
    'nvidia-smi.pids': { files: pids },
  });
  return analyzeCaptureText(text, { target: 'test', ...(options.quotas ? { hamiQuotas: options.quotas } : {}) });
}

test('H100: per-pod VRAM from the compute apps, through the pid cgroup; a process in no pod is the node’s', () => {
  const inspection = h100Node(`${H100}, 501, python3, 9000\n${H100}, 502, python3, 1000\n${H100}, 900, /usr/bin/dcgm, 120\n`, [
    ...pidFiles(501, containerDir(POD, 1), 'python3', ''),
    ...pidFiles(502, containerDir(POD, 1), 'python3', ''),
    ...pidFiles(900, '/system.slice/dcgm.service', 'dcgm', ''),
  ]);
  const node = inspection.node;
  assert.ok(node);
  const pod = node.pods.find((p) => p.podUid === POD.uid);
  assert.equal(pod?.vram, 10000 * MiB);
  assert.equal(pod?.gtt, 0);
  assert.deepEqual(
    pod?.nvidia?.gpus.map((row) => [row.gpu, row.usedBytes]),
    [['GPU 0', 10000 * MiB]],
  );
  assert.equal(node.pods.find((p) => p.podUid === OTHER.uid)?.nvidia, undefined);
  assert.deepEqual(
    node.nvidia.nodeProcesses.map((p) => p.pid),
    [900],
  );
  assert.equal(node.accounting.vramUsed, 19000 * MiB, 'the GPU’s memory.used when DRM sysfs has none');
  assert.equal(node.accounting.unifiedMemory, false);
  assert.deepEqual(node.hamiQuotas, [], 'no HAMi pod: no quota rows');
});

test('[N/A] used_memory is unknown, never 0: the pod’s VRAM cell and the quota verdict say so', () => {
  const inspection = h100Node(
    `${H100}, 501, python3, [N/A]\n`,
    pidFiles(501, containerDir(POD, 1), 'python3', 'CUDA_DEVICE_MEMORY_LIMIT_0=4000m\n'),
  );
  const pod = inspection.node?.pods.find((p) => p.podUid === POD.uid);
  assert.equal(pod?.nvidia?.usedBytes, undefined);
  const [verdict] = inspection.verdicts.filter((v) => v.id.startsWith('hami.quota'));
  assert.equal(verdict?.id, 'hami.quota-unknown');
  assert.match(verdict?.title ?? '', /printed no number/);
});

test('HAMi quota from the annotation: exceeded (error) and held (info), per GPU UUID', () => {
  const quotas = new Map<string, HamiPodQuota>([
    [POD.uid, { devices: new Map([[H100, 4000]]) }],
    [OTHER.uid, { devices: new Map([[H100, 8000]]) }],
  ]);
  const inspection = h100Node(
    `${H100}, 501, python3, 9000\n${H100}, 601, vllm, 7000\n`,
    [
      ...pidFiles(501, containerDir(POD, 1), 'python3', 'CUDA_DISABLE_CONTROL=true\n'),
      ...pidFiles(601, containerDir(OTHER, 2), 'vllm', 'CUDA_DEVICE_MEMORY_LIMIT_0=8000m\n'),
    ],
    { quotas },
  );
  const exceeded = inspection.verdicts.find((v) => v.id === 'hami.quota-exceeded');
  assert.equal(exceeded?.severity, 'error');
  assert.match(exceeded?.title ?? '', /^pod 3f0a5c2e-\S+ uses 8\.8 GiB of its 3\.9 GiB quota on GPU 0/);
  assert.ok(exceeded?.evidence.includes(`pod ${POD.uid}: hami.io/vgpu-devices-allocated ${H100} 4000 MiB`));
  assert.ok(exceeded?.evidence.some((line) => line.includes('CUDA_DISABLE_CONTROL=true')));
  assert.ok(exceeded?.evidence.some((line) => line.includes('no CUDA_DEVICE_MEMORY_LIMIT_<i>')));
  const held = inspection.verdicts.find((v) => v.id === 'hami.quota-held');
  assert.match(held?.title ?? '', /uses 6\.8 GiB of its 7\.8 GiB quota on GPU 0: within it, 1000 MiB left/);
  assert.equal(inspection.verdicts[0]?.id, 'hami.quota-exceeded');
});

test('HAMi quota from the environ when the cluster is not known; a GPU HAMi did not allocate is unknown', () => {
  const env = h100Node(`${H100}, 501, python3, 5000\n`, pidFiles(501, containerDir(POD, 1), 'python3', 'CUDA_DEVICE_MEMORY_LIMIT_0=4g\n'));
  const row = env.node?.hamiQuotas[0];
  assert.equal(row?.quotaSource?.kind, 'environ');
  assert.equal(row?.quotaBytes, 4 * GiB);
  assert.equal(row?.status.kind, 'exceeded');

  const quotas = new Map<string, HamiPodQuota>([[POD.uid, { devices: new Map([['GPU-another', 4000]]) }]]);
  const elsewhere = h100Node(`${H100}, 501, python3, 100\n`, pidFiles(501, containerDir(POD, 1), 'python3', ''), { quotas });
  const status = elsewhere.node?.hamiQuotas[0]?.status;
  assert.equal(status?.kind, 'unknown');
  assert.match(status?.kind === 'unknown' ? status.reason : '', /names no device GPU-b42dd28e/);
});

test('nvidia-smi that lists no process, or pids of another PID namespace: HAMi pods are unknown, with the reason', () => {
  const quotas = new Map<string, HamiPodQuota>([[POD.uid, { devices: new Map([[H100, 4000]]) }]]);
  const none = h100Node('', [], { quotas });
  const [verdict] = none.verdicts.filter((v) => v.id === 'hami.quota-unknown');
  assert.match(verdict?.title ?? '', /lists no compute process although 19000 MiB of GPU memory is in use; a containerised nvidia-smi/);
  assert.match(verdict?.remedy ?? '', /host PID namespace/);

  const text = withNvidia(nodeCapture({ kernel: '6.8.0-60-generic', memTotal: 512 * GiB, pods: [POD] }), {
    'nvidia-smi.gpu': { body: H100_ROW, rc: 0 },
    'nvidia-smi.apps': { body: `${H100}, 31337, python3, 100\n`, rc: 0 },
    'nvidia-smi.pids': { missing: ['/host/proc/31337'] },
  });
  const other = analyzeCaptureText(text, { target: 't', hamiQuotas: quotas });
  assert.match(other.verdicts.find((v) => v.id === 'hami.quota-unknown')?.title ?? '', /another PID namespace/);
});

test('no nvidia-smi on the node: no NVIDIA section, HAMi pods (known from the cluster) unknown', () => {
  const text = withNvidia(nodeCapture({ kernel: '6.8.0-60-generic', memTotal: 64 * GiB, pods: [POD] }), {
    'nvidia-smi.gpu': { missing: ['nvidia-smi'] },
    'nvidia-smi.apps': { missing: ['nvidia-smi'] },
  });
  const inspection = analyzeCaptureText(text, { target: 't', hamiQuotas: new Map([[POD.uid, { devices: new Map([[H100, 1000]]) }]]) });
  assert.equal(inspection.node?.nvidia.node.kind, 'absent');
  assert.match(inspection.verdicts.find((v) => v.id === 'hami.quota-unknown')?.title ?? '', /no nvidia-smi on the node/);
});

test('GB10 (llama-swap#782 outputs): the node is unified-memory and the process memory counts like GTT', () => {
  // The gpu row is the node probe's field order with GB10's placeholders (memory.* [N/A], as in
  // llama-swap-782-gb10-gpu.csv); the apps row is llama-swap-782-gb10-apps.csv verbatim (UUID elided "GPU-...").
  const apps = fixture('llama-swap-782-gb10-apps.csv');
  const gb10 = { ...POD, current: 4 * GiB, max: 32 * GiB };
  const text = withNvidia(nodeCapture({ kernel: '6.17.0-1008-nvidia', memTotal: 128 * GiB, pods: [gb10] }), {
    'nvidia-smi.gpu': {
      body: '0, GPU-2dee1e25-b3b5-007e-2b55-79f2d0f2ebe5, NVIDIA GB10, 0000000F:01:00.0, 580.95.05, [N/A], [N/A], [N/A], [N/A], 0, Default, [N/A]\n',
      rc: 0,
    },
    'nvidia-smi.apps': { body: apps, rc: 0 },
    'nvidia-smi.pids': { files: pidFiles(114687, containerDir(gb10, 1), 'python', '') },
  });
  const inspection = analyzeCaptureText(text, { target: 'spark' });
  const node = inspection.node;
  assert.equal(node?.accounting.unifiedMemory, true);
  assert.match(node?.accounting.gpuSummary ?? '', /NVIDIA GB10 \(unified memory/);
  assert.equal(node?.accounting.nvidiaUnifiedUsed, 19135 * MiB);
  const pod = node?.pods[0];
  assert.equal(pod?.gtt, 19135 * MiB, 'system RAM no cgroup is charged for');
  assert.equal(pod?.vram, 0);
  assert.equal(pod?.trueFootprint, 4 * GiB + 19135 * MiB);
  const verdict = inspection.verdicts.find((v) => v.id.startsWith('memory.pod-'));
  assert.ok(verdict, 'the headroom verdicts apply');
  assert.match(verdict.title, /unified GPU memory \(nvidia-smi\)/);
  assert.ok(verdict.evidence.some((line) => line.includes('nvidia-smi --query-compute-apps') && line.includes('unified memory')));
  assert.ok(inspection.verdicts.some((v) => v.id === 'memory.unaccounted-node'));
});

test('MIG GPU: the table gives the processes by GI/CI even when the queries work', () => {
  const quotas = new Map<string, HamiPodQuota>([[POD.uid, { devices: new Map([[H100, 4000]]) }]]);
  const table = [
    ...fixture('table-a100-mig-dra-openshift.txt').split('\n').slice(0, 30),
    '| Processes:                                                                              |',
    '|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |',
    '|=========================================================================================|',
    '|    0    5    0             501      C   python3                                 5000MiB |',
  ].join('\n');
  const text = withNvidia(nodeCapture({ kernel: '6.8.0-60-generic', memTotal: 512 * GiB, pods: [POD] }), {
    'nvidia-smi.gpu': {
      body: `0, ${H100}, NVIDIA A100 80GB PCIe, 00000000:B6:00.0, 570.148.08, 81920, 454, 249, 81000, 0, Default, Enabled\n`,
      rc: 0,
    },
    'nvidia-smi.apps': { body: `${H100}, 501, python3, [N/A]\n`, rc: 0 },
    'nvidia-smi.pids': { files: pidFiles(501, containerDir(POD, 1), 'python3', '') },
    'nvidia-smi.table': { body: table, rc: 0 },
  });
  const inspection = analyzeCaptureText(text, { target: 't', hamiQuotas: quotas });
  const row = inspection.node?.hamiQuotas[0];
  assert.equal(row?.gpu, 'GPU 0 GI 5 CI 0');
  assert.equal(row?.usedBytes, 5000 * MiB);
  assert.equal(row?.status.kind, 'exceeded');
});

test('a compute-apps query that fails (and no table): the processes are unknown, not "none"', () => {
  const text = withNvidia(nodeCapture({ kernel: '6.8.0-60-generic', memTotal: 64 * GiB, pods: [POD] }), {
    'nvidia-smi.gpu': { body: H100_ROW, rc: 0 },
    // The error nvidia-smi prints for a field its driver does not know (one of nvidiaSmi.ts's ERROR_PATTERNS).
    'nvidia-smi.apps': { body: 'Field "used_memory" is not a valid field to query.\n', rc: 2 },
  });
  const inspection = analyzeCaptureText(text, { target: 't', hamiQuotas: new Map([[POD.uid, { devices: new Map([[H100, 1000]]) }]]) });
  const nvidia = inspection.node?.nvidia.node;
  assert.equal(nvidia?.kind === 'read' ? nvidia.view.kind : undefined, 'apps-failed');
  assert.match(
    inspection.verdicts.find((v) => v.id === 'hami.quota-unknown')?.title ?? '',
    /--query-compute-apps failed: Field "used_memory"/,
  );
});

test('the inspector’s HAMi section lists each HAMi pod’s quota first, and one exists without HAMi files on the node', () => {
  const quotas = new Map<string, HamiPodQuota>([[POD.uid, { devices: new Map([[H100, 4000]]) }]]);
  const inspection = h100Node(`${H100}, 501, python3, 9000\n`, pidFiles(501, containerDir(POD, 1), 'python3', ''), { quotas });
  const hami = buildInspectorViewModel(inspection).hami;
  assert.equal(hami?.verdict, 'bypassed');
  assert.deepEqual(
    hami?.rows.map((row) => [row.id, row.status, row.summary]),
    [['hami.quota-exceeded', 'fail', 'uses 8.8 GiB of its 3.9 GiB quota: not enforced']],
  );
});

test('a panel restored after a reload re-analyses its capture with the saved HAMi allocations: the same quota verdicts', () => {
  const quotas = new Map<string, HamiPodQuota>([[POD.uid, { devices: new Map([[H100, 4000]]) }]]);
  const shown = h100Node(`${H100}, 501, python3, 9000\n`, pidFiles(501, containerDir(POD, 1), 'python3', ''), { quotas });
  assert.ok(shown.verdicts.some((v) => v.id === 'hami.quota-exceeded'));
  const source = inspectionSource(shown, 'i-1', serializeCapture(shown.capture));
  // Through the webview's saved state (JSON) and its untrusted-state check, as VS Code hands it back.
  const state = parseInspectorState(
    JSON.parse(JSON.stringify({ v: INSPECTOR_STATE_VERSION, model: buildInspectorViewModel(shown), source, ui: {} })),
  );
  assert.ok(state);
  const restored = reanalyzeSource(state.source);
  assert.deepEqual(
    restored?.verdicts.map((v) => v.id),
    shown.verdicts.map((v) => v.id),
  );
  assert.deepEqual(inspectionToJson(restored!), inspectionToJson(shown), 'the restored exports are the shown ones');
  // A state saved without them (before they were kept) is analysed as it was: the quota is then unknown.
  const old = reanalyzeSource({ ...state.source, clusterFacts: null });
  assert.equal(
    old?.verdicts.some((v) => v.id === 'hami.quota-exceeded'),
    false,
  );
});
