// The live findings go through the user's settings as the static findings do: the per-rule settings (`rules` of the
// --config file and of gpumem.lint.rules) turn them off or change their severity, a workload's
// `ignore-check.gpumem.io/<id>` or `gpumem.io/ignore-all` annotation suppresses them for that workload, and a
// `# gpumem-ignore` comment for its line. The CLI (liveFileReport) and the editor (liveLayerModel) both judge through
// judgeLive, so both are checked here. The rows are written by hand; the expected ids and severities are the
// findings' documented defaults (docs/live/*.md), not values read from the code under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/core/config.ts';
import { lintText } from '../../src/core/lint.ts';
import { judgeLive } from '../../src/core/live/liveFindings.ts';
import { liveLayerModel } from '../../src/core/live/liveLayerModel.ts';
import { liveFileReport } from '../../src/core/live/liveReport.ts';
import { liveSnapshot } from '../../src/core/live/liveSnapshot.ts';
import type { RecommendationRow } from '../../src/core/rightsizing/rows.ts';
import { NO_KILLS } from '../../src/core/rightsizing/kills.ts';
import type { KillCounts } from '../../src/core/rightsizing/kills.ts';
import { annotationSuppression, suppressesRule } from '../../src/core/suppression.ts';

const GiB = 1024 ** 3;
const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);

/** A GPU Deployment in `ml` with an 8Gi limit; `metadata` and `template` add lines to the two metadata blocks. */
function deployment(name: string, lines: { metadata?: string; template?: string; aboveContainer?: string } = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ml
${lines.metadata ?? ''}spec:
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
${lines.template ?? ''}    spec:
      containers:
${lines.aboveContainer ?? ''}        - name: server
          image: vllm/vllm-openai:v0.11.0
          resources:
            limits:
              memory: 8Gi
              nvidia.com/gpu: 1
`;
}

function row(name: string, kills: KillCounts): RecommendationRow {
  return {
    workload: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ml', name, uid: `${name}-uid` },
    container: 'server',
    current: { name: 'server', request: undefined, limit: { text: '16Gi', bytes: 16 * GiB }, usesGpu: true },
    observed: {
      cgroupPeak: { bytes: 10 * GiB, at: undefined, pod: `${name}-0` },
      gpuInRamPeak: undefined,
      vramPeak: undefined,
      trueFootprintPeak: { bytes: 10 * GiB, at: undefined, pod: `${name}-0` },
      samples: 1000,
      hours: 168,
      dropped: 0,
    },
    kernelPeak: undefined,
    kills,
    recommendation: {
      kind: 'sized',
      case: 'memcg-kills',
      targetBytes: 13 * GiB,
      memory: { text: '13Gi', bytes: 13 * GiB },
      gpuMemory: undefined,
      lowerSaves: undefined,
      reason: 'the limit was hit',
      notes: [],
    },
    notes: [],
  };
}

/** llm: a global kill (information); embed: a memcg kill (warning). Both run a 16Gi limit (drift against 8Gi) and
 *  peaked at 10 GiB (13 GiB with 30 % headroom, over the 8Gi limit). */
const SNAPSHOT = (() => {
  const names = ['llm', 'embed'];
  const workloads = names.map((name) => ({
    ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ml', name, uid: `${name}-uid` },
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'ml', uid: `${name}-uid` },
      spec: { template: { spec: { containers: [{ name: 'server', resources: { limits: { memory: '16Gi', 'nvidia.com/gpu': '1' } } }] } } },
    },
    pods: [{ name: `${name}-0`, uid: `${name}-p`, node: 'gpu-1', oldTemplate: false }],
  }));
  return liveSnapshot({
    context: 'prod-eu',
    defaultNamespace: 'default',
    source: 'Prometheus monitoring/prometheus-k8s',
    window: '7d',
    windowSeconds: 7 * 86_400,
    fetchedAtMs: NOW - 60_000,
    matching: { workloads, unmatched: [] },
    rows: [row('llm', { ...NO_KILLS, globalOther: 1 }), row('embed', { ...NO_KILLS, memcg: 1 })],
  });
})();

function judged(text: string, rules: Record<string, 'off' | 'error' | 'warning' | 'info'> = {}): string[] {
  return judgeLive(lintText(text).containers, SNAPSHOT, { headroomPercent: 30, rules, nowMs: NOW, text })
    .findings.map((one) => `${one.object?.name}:${one.ruleId}:${one.severity}`)
    .sort();
}

const BOTH = `${deployment('llm')}---\n${deployment('embed')}`;

test('without settings: both workloads get the three findings at their documented severities', () => {
  assert.deepEqual(judged(BOTH), [
    'embed:manifest-drift:info',
    'embed:observed-footprint-over-limit:warning',
    'embed:observed-oom-kills:warning',
    'llm:manifest-drift:info',
    'llm:observed-footprint-over-limit:warning',
    'llm:observed-oom-kills:info',
  ]);
});

test('a rule set to "off" drops that live finding, a severity set replaces the default', () => {
  assert.deepEqual(judged(BOTH, { 'observed-oom-kills': 'off', 'observed-footprint-over-limit': 'error', 'manifest-drift': 'warning' }), [
    'embed:manifest-drift:warning',
    'embed:observed-footprint-over-limit:error',
    'llm:manifest-drift:warning',
    'llm:observed-footprint-over-limit:error',
  ]);
});

test('ignore-check.gpumem.io/<id> on the workload silences that finding for that workload only; ignore-all on the template silences all of it', () => {
  const text = `${deployment('llm', { metadata: '  annotations:\n    ignore-check.gpumem.io/manifest-drift: "rollout pending"\n' })}---\n${deployment(
    'embed',
    {
      template: '      annotations:\n        gpumem.io/ignore-all: "batch job, sized by hand"\n',
    },
  )}`;
  assert.deepEqual(judged(text), ['llm:observed-footprint-over-limit:warning', 'llm:observed-oom-kills:info']);
});

test('gpumem.io/ignore-all: "false" silences nothing, as for the static rules', () => {
  const suppression = annotationSuppression(new Map([['gpumem.io/ignore-all', { value: 'false' }]]));
  assert.equal(suppressesRule(suppression, 'observed-oom-kills'), false);
  const text = deployment('llm', { metadata: '  annotations:\n    gpumem.io/ignore-all: "false"\n' });
  assert.equal(judged(text).length, 3);
});

test('a # gpumem-ignore comment above the container drops that finding on its line', () => {
  const text = deployment('llm', { aboveContainer: '        # gpumem-ignore observed-oom-kills -- a known node problem\n' });
  assert.deepEqual(judged(text), ['llm:manifest-drift:info', 'llm:observed-footprint-over-limit:warning']);
});

test('the CLI (liveFileReport) and the editor (liveLayerModel) apply the same settings', () => {
  const rules = { 'manifest-drift': 'off', 'observed-oom-kills': 'error' } as const;
  const expected = ['llm:observed-footprint-over-limit:warning', 'llm:observed-oom-kills:error'];
  const text = deployment('llm');
  const { containers } = lintText(text);
  const cli = liveFileReport(text, containers, SNAPSHOT, { headroomPercent: 30, rules, nowMs: NOW });
  const editor = liveLayerModel(
    text,
    containers,
    { snapshot: SNAPSHOT, headroomPercent: 30, rules, staleAfterMs: 900_000, commentOnFix: false, inspectPodCommand: 'x' },
    NOW,
  );
  for (const findings of [cli.findings, editor.findings])
    assert.deepEqual(findings.map((one) => `${one.object?.name}:${one.ruleId}:${one.severity}`).sort(), expected);
  assert.equal(cli.lenses.length, 1, 'the lens stays: settings silence findings, not the live data');
});

test('the settings accept the live ids as rule ids, with no "unknown rule id" problem', () => {
  const { config, problems } = resolveConfig({ rules: { 'observed-oom-kills': 'off', 'manifest-drift': 'warning' } });
  assert.deepEqual(problems, []);
  assert.deepEqual(config.rules, { 'observed-oom-kills': 'off', 'manifest-drift': 'warning' });
});
