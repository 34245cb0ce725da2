// The Kubernetes-side report sections (src/core/report/clusterReport.ts) on what the cluster returns: the
// simulator's real-shaped Event and Pod objects (test/simulator/fixtures), mutated, through the same pure
// readers the commands use (nodeMemoryEvents, summarizePod).
import { nodeMemoryEvents } from '../../src/core/kube/events.ts';
import { parseLikeKubectl } from '../../src/core/manifest/kubectlYaml.ts';
import { summarizePod } from '../../src/core/kube/pods.ts';
import { hamiClusterMarkdown, nodeEventsMarkdown } from '../../src/core/report/clusterReport.ts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fuzzTarget, renderViolations } from './harness.ts';
import type { Violation } from './harness.ts';

const FIXTURES = [
  ...['10-apu.yaml', '20-hami.yaml'].map((name) =>
    readFileSync(fileURLToPath(new URL(`../simulator/fixtures/${name}`, import.meta.url)), 'utf8'),
  ),
  hamiSlotPods(),
];

/** The real allocation annotations of public threads, with their pods (empty and padded slots), as one YAML stream. */
function hamiSlotPods(): string {
  const fixture = JSON.parse(
    readFileSync(fileURLToPath(new URL('../fixtures/hami/pod-allocation-slots.json', import.meta.url)), 'utf8'),
  ) as {
    cases: { pod: unknown; annotation?: string }[];
    pods: Record<string, { metadata: Record<string, unknown> }>;
  };
  const pods = fixture.cases.map((entry) => {
    if (typeof entry.pod !== 'string') return entry.pod;
    const base = structuredClone(fixture.pods[entry.pod]);
    if (base) base.metadata['annotations'] = { 'hami.io/vgpu-devices-allocated': entry.annotation };
    return base;
  });
  return pods.map((pod) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...(pod as object) }, null, 1)).join('\n---\n');
}

/** The objects of the mutated YAML; the API server sends parsed JSON, so a text YAML cannot read is no input here. */
function objects(text: string): Record<string, unknown>[] {
  try {
    return yamlObjects(text);
  } catch {
    return [];
  }
}

// The linter's own YAML reading (linear in the text): yaml's parseAllDocuments with default options took 2.7 s
// for a 61 KB mutation with one line of 39,000 stray `[` (FUZZ_SEED=1080805495), the harness's time, not the
// report's.
function yamlObjects(text: string): Record<string, unknown>[] {
  return parseLikeKubectl(text)
    .flatMap((doc) => ('errors' in doc && doc.errors.length === 0 ? [doc.toJS({ maxAliasCount: 50 }) as unknown] : []))
    .filter((value): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value));
}

fuzzTarget({
  name: 'clusterReport.nodeEventsMarkdown+hamiClusterMarkdown',
  corpus: FIXTURES,
  nest: 'yaml',
  run: (input) => {
    const all = objects(input);
    const events = nodeMemoryEvents(all.filter((object) => object['kind'] === 'Event'));
    const pods = all.filter((object) => object['kind'] === 'Pod').map((pod) => summarizePod(pod));
    return {
      events: nodeEventsMarkdown('strix-1', events, 'from the fuzz suite'),
      hami: pods.map((pod) =>
        hamiClusterMarkdown({
          node: pod.nodeName,
          devicePluginPods: [{ name: 'hami-device-plugin-x', phase: 'Running', ready: true }],
          schedulerPods: undefined,
          pod,
          container: pod.gpuContainers[0]?.container,
          env: { CUDA_DEVICE_MEMORY_LIMIT_0: '4096m' },
          hamiVersion: 'v2.6.1',
          problems: [],
        }),
      ),
    };
  },
  check: (output): Violation[] => [
    ...renderViolations('node events Markdown', output.events),
    ...output.hami.flatMap((text) => renderViolations('HAMi cluster Markdown', text)),
  ],
});
