// The manifest linter (src/core/lint.ts) and the lint report formats (src/core/report/formats.ts) on
// mutated real manifests: the text output reaches a terminal, JSON and SARIF are written to files.
import { DEFAULT_CONFIG } from '../../src/core/config.ts';
import { indexClaims, mayUseClaims } from '../../src/core/crossFile.ts';
import { lintBytes, lintText } from '../../src/core/lint.ts';
import { ClaimIndex } from '../../src/core/manifest/draClaims.ts';
import type { LintResult } from '../../src/core/lint.ts';
import { positionFindings } from '../../src/core/report/fileFindings.ts';
import { formatSarif, formatText, toJsonFindings } from '../../src/core/report/formats.ts';
import { KustomizePatchIndex, listedPatches, resolveListedPath } from '../../src/core/manifest/kustomization.ts';
import { KUSTOMIZATIONS, MANIFESTS } from './corpus.ts';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { fuzzTarget, renderViolations, SEED, terminalViolations } from './harness.ts';
import type { Growth, Violation } from './harness.ts';

const FILE = 'fuzz/manifest.yaml';
const POD = MANIFESTS.find((text) => text.includes('nvidia.com/gpu') || text.includes('amd.com/gpu')) ?? MANIFESTS[0] ?? '';

function reports(result: LintResult, input: string): Violation[] {
  const positioned = positionFindings(FILE, input, result.findings);
  const text = formatText(positioned, 1);
  const sarif = JSON.stringify(
    formatSarif(positioned, {
      toolVersion: '0.0.0-fuzz',
      docsBase: 'https://example.invalid/docs/rules',
      srcRoot: 'file:///fuzz/',
      notifications: [],
    }),
  );
  const json = JSON.stringify(toJsonFindings(positioned));
  return [
    ...terminalViolations('lint text output', text),
    ...renderViolations('lint text output', text),
    ...renderViolations('SARIF', sarif),
    ...renderViolations('lint JSON', json),
  ];
}

/** Growing manifests: many containers, one long scalar, a long flow sequence, many documents. */
const MANIFEST_GROWTH: readonly Growth[] = [
  { label: 'many documents', make: (n) => Array.from({ length: Math.ceil(n / POD.length) }, () => POD).join('\n---\n') },
  {
    label: 'one long annotation value',
    make: (n) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    gpumem.io/gpu-memory: "${'9'.repeat(n)}"\nspec:\n  containers:\n  - name: c\n    image: i\n`,
  },
  {
    label: 'a long nodeSelector value',
    make: (n) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  nodeSelector:\n    amd.com/gpu.product-name: "Radeon ${'8'.repeat(n)}"\n  containers:\n  - name: c\n    image: i\n    resources:\n      limits:\n        amd.com/gpu: 1\n`,
  },
  {
    label: 'a flow sequence of commas',
    make: (n) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [${','.repeat(n)}]\n`,
  },
  {
    label: 'many containers',
    make: (n) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n${'  - name: c\n    image: i\n    resources: {limits: {nvidia.com/gpu: 1, memory: 1Gi}}\n'.repeat(Math.ceil(n / 75))}`,
  },
];

fuzzTarget({
  name: 'lint.lintText',
  corpus: MANIFESTS,
  nest: 'yaml',
  run: (input) => lintText(input),
  check: reports,
  growth: MANIFEST_GROWTH,
});

// The bytes entry point on arbitrary bytes (every char code taken mod 256: invalid UTF-8, NULs, a BOM…).
fuzzTarget({
  name: 'lint.lintBytes',
  corpus: MANIFESTS,
  nest: 'yaml',
  run: (input) => lintBytes(Buffer.from(input, 'latin1'), DEFAULT_CONFIG, 1024 * 1024),
  check: (result, input) => reports(result, Buffer.from(input, 'latin1').toString('utf8')),
});

// The cross-file index (claims and DeviceClasses) and the text test that defers a file: a mutated file indexes
// itself and is linted against its own index, as the CLI and the workspace lint do across files.
fuzzTarget({
  name: 'lint.crossFile',
  corpus: MANIFESTS.filter(
    (text) => text.includes('DeviceClass') || text.includes('resourceClaims') || text.includes('extendedResourceName'),
  ),
  nest: 'yaml',
  run: (input) => {
    const index = new ClaimIndex();
    indexClaims(input, index, FILE);
    mayUseClaims(input);
    return lintText(input, undefined, { claims: index });
  },
  check: reports,
  growth: [
    { label: 'many resource-like keys', make: (n) => 'a.b/c: 1\n'.repeat(Math.ceil(n / 9)) },
    { label: 'one long domain run', make: (n) => `${'a.'.repeat(Math.ceil(n / 2))}/x: 1\n` },
    { label: 'many slashes', make: (n) => '/'.repeat(n) },
  ],
});

// A file linted as a kustomize patch (src/core/kustomizePatch.ts), as each field lists it: strategic merge, a JSON 6902
// list of operations, or `patches:` that tells them apart by content.
const PATCH_FIELDS = ['patchesStrategicMerge', 'patches', 'patchesJson6902'] as const;
fuzzTarget({
  name: 'lint.lintText as a kustomize patch',
  corpus: MANIFESTS,
  nest: 'yaml',
  run: (input) =>
    lintText(input, DEFAULT_CONFIG, {
      kustomizePatch: { kustomization: 'k/kustomization.yaml', field: PATCH_FIELDS[input.length % 3] ?? 'patches' },
    }),
  check: reports,
});

// The kustomization reader (src/core/manifest/kustomization.ts) on mutated kustomizations and on manifests.
fuzzTarget({
  name: 'kustomization.listedPatches',
  corpus: [...KUSTOMIZATIONS, ...MANIFESTS.slice(0, 4)],
  nest: 'yaml',
  run: (input) => {
    const index = new KustomizePatchIndex();
    index.add('/repo/o/kustomization.yaml', input);
    return listedPatches(input).map(({ path }) => index.roleOf(resolveListedPath('/repo/o', path) ?? '/'));
  },
  check: () => [],
});

// JSON 6902 operations judged for the values they write (src/core/kustomizeJsonPatch.ts): random operation lists with
// hostile pointers (bad escapes, huge indexes, `-`, deep and empty paths), drawn from the run's seed, beside the
// written-for-tests patches; each mutated by the harness. Every finding must stay inside the patch's text.
const POINTER_SEGMENTS = [
  'spec',
  'template',
  'containers',
  'initContainers',
  'env',
  'resources',
  'limits',
  '0',
  '1',
  '-',
  '00',
  '99999999999',
  'nvidia.com~1gpu',
  '~0~1',
  '~',
  '~2',
  '',
  'memory',
  '__proto__',
  'jobTemplate',
];
const operation = fc.record({
  op: fc.constantFrom('add', 'replace', 'remove', 'move', 'copy', 'test', 'ADD', ''),
  path: fc.oneof(
    fc.array(fc.constantFrom(...POINTER_SEGMENTS), { maxLength: 12 }).map((parts) => `/${parts.join('/')}`),
    fc.string({ maxLength: 20 }),
  ),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom({ name: 'CUDA_DISABLE_CONTROL', value: 'true' }, { limits: { memory: '1 Gi', 'nvidia.com/gpu': 1 } }, [
      { name: 'CUDA_DEVICE_MEMORY_LIMIT', value: '4g' },
    ]),
  ),
});
const JSON_PATCHES: readonly string[] = [
  ...['overlays/json-env/debug-ops.yaml', 'overlays/four-gpus/replicas.yaml'].map((path) =>
    readFileSync(new URL(`../fixtures/manifests/kustomize/tgis/${path}`, import.meta.url), 'utf8'),
  ),
  ...fc.sample(fc.array(operation, { maxLength: 8 }), { seed: SEED, numRuns: 12 }).map((ops) => JSON.stringify(ops)),
];
const OP = '- {op: add, path: /spec/template/spec/containers/0/env/-, value: {name: CUDA_DISABLE_CONTROL, value: "true"}}\n';
fuzzTarget({
  name: 'lint.lintText on JSON 6902 operations',
  corpus: JSON_PATCHES,
  nest: 'yaml',
  run: (input) =>
    lintText(input, DEFAULT_CONFIG, {
      kustomizePatch: { kustomization: 'k/kustomization.yaml', field: 'patchesJson6902', target: { kind: 'Deployment', name: 'x' } },
    }),
  check: (result, input) => [
    ...reports(result, input),
    ...result.findings
      .filter((finding) => finding.span.start < 0 || finding.span.end > input.length || finding.span.end < finding.span.start)
      .map((finding) => ({
        property: 'render' as const,
        message: `${finding.ruleId} at ${finding.span.start}–${finding.span.end} outside ${input.length} chars`,
      })),
  ],
  growth: [
    { label: 'many operations', make: (n) => OP.repeat(Math.ceil(n / OP.length)) },
    { label: 'one long pointer', make: (n) => `- {op: add, path: "${'/a~1'.repeat(Math.ceil(n / 4))}", value: 1}\n` },
    { label: 'one long value', make: (n) => `- {op: add, path: /spec/template/spec/containers/0/image, value: "${'x'.repeat(n)}"}\n` },
  ],
});
