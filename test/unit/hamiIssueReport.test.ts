// The HAMi issue bundle's assembly (src/core/report/hamiIssueReport.ts, hamiIssuePod.ts) on the simulator's
// HAMi fixtures (test/simulator/fixtures/20-hami.yaml) as the API returns them: every item of HAMi's bug
// template is there or "not collected" with its command, env values outside HAMi/CUDA/NVIDIA variables and
// non-HAMi annotations never appear, secrets in logs and events are redacted and counted, failed lookups say
// why, and hostile names cannot form Markdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseAllDocuments } from 'yaml';
import type { ComponentPod, HamiReportInput } from '../../src/core/report/hamiIssueInput.ts';
import { hamiIssueMarkdown } from '../../src/core/report/hamiIssueReport.ts';
import { nodeCaptureFacts } from '../../src/core/report/hamiIssueNode.ts';
import { keepsEnvValue, NOT_SHOWN, podSection } from '../../src/core/report/hamiIssuePod.ts';
import { captureText } from './helpers/captureText.ts';

// What a reader of the pasted issue sees: the Markdown rendered by markdown-it (the CommonMark renderer of VS
// Code's preview; GitHub renders the same text alike), tags dropped and entities decoded. Assertions on it do not
// depend on which characters the escaper chose to backslash.
const markdownIt = (createRequire(import.meta.url)('markdown-it') as (options: object) => { render(text: string): string })({
  html: false,
});
function rendered(markdown: string): string {
  return markdownIt
    .render(markdown)
    .replace(/<[^>]*>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

type Json = Record<string, unknown>;

const objects = parseAllDocuments(readFileSync(new URL('../simulator/fixtures/20-hami.yaml', import.meta.url), 'utf8')).map(
  (doc) => doc.toJS() as Json,
);

function object(kind: string, name: string): Json {
  const found = objects.find((o) => o['kind'] === kind && (o['metadata'] as Json)['name'] === name);
  assert.ok(found, `${kind} ${name} in the fixture`);
  return structuredClone(found);
}

const TOKEN = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJl';

function component(pod: Json, logs: Record<string, string>): ComponentPod {
  return {
    pod,
    logs: Object.entries(logs).map(([container, text]) => ({
      container,
      previous: false,
      log: { kind: 'read', value: { text, truncated: false } },
    })),
  };
}

function input(overrides: Partial<HamiReportInput> = {}): HamiReportInput {
  const pod = object('Pod', 'trainer-0');
  const spec = pod['spec'] as Json;
  const [container] = spec['containers'] as Json[];
  (container as Json)['env'] = [
    { name: 'CUDA_DEVICE_MEMORY_LIMIT_0', value: '8192m' },
    { name: 'NVIDIA_VISIBLE_DEVICES', value: 'GPU-6f1d2c3b' },
    { name: 'DATABASE_URL', value: 'postgres://app:hunter2@db:5432/app' },
    { name: 'WANDB_API_KEY', valueFrom: { secretKeyRef: { name: 'wandb', key: 'key' } } },
    { name: 'CUDA_AUTH_TOKEN', value: 'should-not-show' },
  ];
  (pod['metadata'] as Json)['annotations'] = {
    ...((pod['metadata'] as Json)['annotations'] as Json),
    'kubectl.kubernetes.io/last-applied-configuration': '{"env":[{"name":"DATABASE_URL","value":"postgres://app:hunter2@db"}]}',
  };
  return {
    context: 'prod',
    serverVersion: { kind: 'read', value: 'v1.33.4' },
    pod,
    events: {
      kind: 'read',
      value: [
        {
          type: 'Warning',
          reason: 'FailedScheduling',
          count: 3,
          lastTimestamp: '2026-11-29T21:40:00Z',
          source: { component: 'hami-scheduler' },
          message: `webhook call failed, token=${TOKEN}`,
        },
      ],
    },
    node: { kind: 'read', value: object('Node', 'gpu-node-7') },
    devicePlugins: {
      kind: 'read',
      value: [
        component(object('Pod', 'hami-device-plugin-x7k2p'), { 'device-plugin': `I1129 started\nI1129 Authorization: Bearer ${TOKEN}\n` }),
      ],
    },
    schedulers: {
      kind: 'read',
      value: [component(object('Pod', 'hami-scheduler-6d9c7b8f5-q8w2r'), { 'vgpu-scheduler-extender': 'I1129 ok\n' })],
    },
    tailLines: 200,
    collectedAt: '2026-12-02T06:00:00Z',
    toolVersion: '0.1.0',
    ...overrides,
  };
}

test('every item of the template: environment from the node, the registration and the image tags', () => {
  const { markdown } = hamiIssueMarkdown(input());
  const text = rendered(markdown);
  assert.ok(text.includes('HAMi version: v2.8.1 (image tags: device plugin projecthami/hami:v2.8.1'), 'the HAMi version');
  assert.ok(text.includes('Kubernetes version: server v1.33.4; kubelet v1.33.4 on gpu-node-7'), 'the Kubernetes version');
  assert.ok(text.includes('Accelerator vendor and model: 1 × NVIDIA: NVIDIA-NVIDIA H100 80GB HBM3 (81,559 MiB'), 'the accelerator');
  assert.ok(text.includes('requested resource names: hami-core; nvidia.com/gpu, nvidia.com/gpucores, nvidia.com/gpumem'), 'the resources');
  assert.ok(text.includes('Container runtime and version: containerd://2.1.4'), 'the runtime');
  assert.ok(text.includes('kernel 6.8.0-60-generic'), 'the kernel');
  for (const heading of [
    '## Pod manifest (trimmed)',
    '## Pod events',
    '## Node annotations (accelerator-related)',
    '## nvidia-smi -a',
    '## Container runtime configuration',
    '## HAMi device-plugin logs',
    '## HAMi scheduler logs',
    '## Kubelet logs',
    '## Kernel output (dmesg)',
  ])
    assert.ok(markdown.includes(`\n${heading}\n`), heading);
  assert.ok(markdown.includes('sudo journalctl -r -u kubelet'), 'the kubelet command of the template');
  assert.ok(text.includes('gpumem inspect --node gpu-node-7'), 'points at gpumem inspect --node');
  assert.ok(markdown.includes('hami.io/node-nvidia-register: [{"id":"GPU-6f1d2c3b'), 'the node annotations, verbatim in a code block');
});

test('env values only for HAMi/CUDA/NVIDIA variables; other annotations left out; secrets in logs and events redacted and counted', () => {
  const { markdown, redacted } = hamiIssueMarkdown(input());
  assert.ok(markdown.includes('value: 8192m'), 'the HAMi limit is kept');
  assert.ok(markdown.includes('value: GPU-6f1d2c3b'));
  assert.ok(!markdown.includes('hunter2'), 'no application env value, not even through last-applied-configuration');
  assert.ok(!markdown.includes('should-not-show'), 'a CUDA_ name that looks secret is not kept');
  assert.ok(!markdown.includes('wandb'), "a valueFrom names its source kind, not the Secret's name");
  assert.ok(markdown.includes('valueFrom: secretKeyRef'));
  assert.ok(!markdown.includes('last-applied-configuration'));
  assert.ok(markdown.includes('1 other annotation is left out'));
  assert.ok(!markdown.includes(TOKEN) && !markdown.includes('c2lnbmF0dXJl'), 'the token is gone from the log and the event');
  // 2 hidden env values (DATABASE_URL, CUDA_AUTH_TOKEN), the event's token, the log's Authorization header.
  assert.equal(redacted, 4);
  assert.match(markdown, /\*\*Redacted 4 values\*\*/);
});

test('lookups that failed say why; an unscheduled pod has no node items', () => {
  const failed = hamiIssueMarkdown(
    input({
      events: { kind: 'failed', reason: 'Your credentials may not list events (RBAC).' },
      schedulers: { kind: 'failed', reason: 'HAMi scheduler pods: forbidden' },
      serverVersion: { kind: 'failed', reason: 'GET /version: Unreachable' },
    }),
  ).markdown;
  const failedText = rendered(failed);
  assert.ok(failedText.includes('Not collected: Your credentials may not list events (RBAC).'));
  assert.ok(failedText.includes('Not collected: HAMi scheduler pods: forbidden'));
  assert.ok(failedText.includes('server unknown (GET /version: Unreachable)'));
  const pod = input().pod as Json;
  delete (pod['spec'] as Json)['nodeName'];
  const unscheduled = hamiIssueMarkdown(input({ pod, node: undefined, devicePlugins: undefined })).markdown;
  assert.ok(unscheduled.includes('Not collected: the pod is not scheduled to a node.'));
  assert.ok(unscheduled.includes('gpumem inspect --node NODE'));
  const noHami = hamiIssueMarkdown(input({ devicePlugins: { kind: 'read', value: [] }, schedulers: { kind: 'read', value: [] } })).markdown;
  assert.ok(noHami.includes('- HAMi version: unknown (no HAMi device-plugin or scheduler image was found)'));
});

test('hostile names and log text cannot form Markdown or close the code block', () => {
  const pod = input().pod as Json;
  (pod['metadata'] as Json)['name'] = '[x](javascript:alert(1))';
  const fence = 'I1129 ```\n## injected heading\n```';
  const { markdown } = hamiIssueMarkdown(
    input({
      pod,
      devicePlugins: { kind: 'read', value: [component(object('Pod', 'hami-device-plugin-x7k2p'), { 'device-plugin': fence })] },
    }),
  );
  // Outside the code blocks (where text is literal) nothing of it is Markdown.
  const prose = markdown.replace(/^(`{3,})\n[\s\S]*?\n\1$/gm, '');
  assert.ok(!prose.includes('[x](javascript'), 'the name is escaped');
  assert.ok(rendered(prose).includes('[x](javascript:alert(1))'), 'and still readable');
  assert.ok(!markdownIt.render(markdown).includes('href="javascript'), 'no link is rendered');
  assert.ok(!/^## injected heading$/m.test(prose), 'the log stays inside its fence');
  assert.ok(markdown.includes('````\n'), "a fence longer than the log's backticks");
});

test('podSection: garbage in, no throw; keepsEnvValue decides by name', () => {
  for (const garbage of [
    undefined,
    null,
    42,
    'pod',
    [],
    { spec: { containers: 'x' } },
    { spec: { containers: [null, { env: [null, 7] }] } },
  ]) {
    const section = podSection(garbage);
    assert.equal(typeof section.yaml, 'string');
  }
  assert.ok(keepsEnvValue('CUDA_DISABLE_CONTROL') && keepsEnvValue('LD_PRELOAD') && keepsEnvValue('HAMI_VGPU'));
  assert.ok(!keepsEnvValue('HOME') && !keepsEnvValue('NVIDIA_API_KEY') && !keepsEnvValue('CUDA_TOKEN'));
  const section = podSection({ spec: { containers: [{ name: 'c', env: [{ name: 'SECRET_THING', value: 'v' }] }] } });
  assert.ok(section.yaml.includes(NOT_SHOWN));
  assert.equal(section.envValuesHidden, 1);
});

test('a node capture fills nvidia-smi, the containerd configuration and the kernel log; redacted like the rest', () => {
  const capture = captureText('node', {
    meta: 'hostname=gpu-node-7\nkernel=6.8.0-60-generic\n',
    'kernel-log': [
      'source=dmesg',
      '[  12.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.133.20',
      '[  13.0] eth0: link up',
      '[ 900.1] NVRM: Xid (PCI:0000:17:00): 79, pid=52113, GPU has fallen off the bus.',
      '',
    ].join('\n'),
    'nvidia-smi.gpu':
      '0, GPU-6f1d2c3b, NVIDIA H100 80GB HBM3, 00000000:17:00.0, 570.133.20, 81559, 0, 6144, 75415, 12, Default, Disabled\n',
    'nvidia-driver': { files: [['/host/proc/driver/nvidia/version', 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20\n']] },
    containerd: {
      files: [
        [
          '/host/etc/containerd/config.toml',
          '[plugins."io.containerd.grpc.v1.cri".registry.configs."r.io".auth]\n  password = "registry-pass"\n',
        ],
      ],
    },
  });
  const read = nodeCaptureFacts(capture);
  assert.equal(read.kind, 'read');
  const { markdown, redacted } = hamiIssueMarkdown(input({ nodeCapture: { source: 'gpu-node-7.capture', read } }));
  assert.ok(markdown.includes('GPU has fallen off the bus'), 'the Xid line');
  assert.ok(!markdown.includes('eth0: link up'), 'only GPU, driver and OOM lines');
  assert.ok(markdown.includes('NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20'));
  assert.ok(
    rendered(markdown).includes('Accelerator driver and runtime version: NVRM version: NVIDIA UNIX'),
    'the driver in the environment',
  );
  assert.ok(markdown.includes('81559, 0, 6144'), "nvidia-smi's GPU query");
  assert.ok(rendered(markdown).includes('\n/host/etc/containerd/config.toml\n'), 'a heading per containerd file');
  assert.ok(!markdown.includes('registry-pass'), "the registry password in containerd's configuration is redacted");
  assert.equal(redacted, 5, 'the 4 of the other test, and the registry password');
  assert.ok(markdown.includes('## Kubelet logs\n\nNot collected:'), 'the kubelet journal is never in a capture');
  const container = nodeCaptureFacts(captureText('container', {}));
  assert.deepEqual(container, { kind: 'invalid', reason: 'a container capture, not a node capture' });
  const notUsed = hamiIssueMarkdown(input({ nodeCapture: { source: 'x.txt', read: nodeCaptureFacts('hello') } })).markdown;
  assert.ok(rendered(notUsed).includes('The node capture x.txt was not used: not a gpumem probe capture.'));
  assert.ok(notUsed.includes('## nvidia-smi -a\n\nNot collected:'));
});
