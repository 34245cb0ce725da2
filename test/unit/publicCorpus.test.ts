// The linter against real public manifests: every file that test/fixtures/manifests/public/corpus.json lists,
// linted with the real core, scored against the labels there (how each GPU container gets its GPU, which GPU
// rules should fire). The manifests themselves are not committed; `npm run corpus:assemble` extracts them
// from fetched snapshots at the pinned commits (see that folder's README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lintText } from '../../src/core/lint.ts';
import { ALLOWED_ON_NON_GPU, formatScore, isGpuRule, precision, recall, scoreCorpus } from '../helpers/corpusScore.ts';
import type { ActualFile, ExpectedContainer, ExpectedFile } from '../helpers/corpusScore.ts';

const REPO_ROOT = new URL('../../', import.meta.url).pathname;
const LABELS = join(REPO_ROOT, 'test/fixtures/manifests/public/corpus.json');

interface CorpusJson {
  readonly format: 1;
  readonly projects: readonly {
    readonly repo: string;
    readonly commit: string;
    readonly files: readonly {
      readonly path: string;
      readonly block?: number;
      readonly blob: string;
      readonly gpu: boolean;
      readonly containers?: readonly ExpectedContainer[];
    }[];
  }[];
}

function corpusRoot(): string | undefined {
  const candidates = [
    process.env.GPUMEM_PUBLIC_CORPUS,
    join(REPO_ROOT, '../shared/manifest-corpus'),
    join(REPO_ROOT, '.cache/public-corpus'),
  ];
  return candidates.find((dir): dir is string => !!dir && existsSync(dir));
}

const root = corpusRoot();
const labels = JSON.parse(readFileSync(LABELS, 'utf8')) as CorpusJson;

test('the label file lists at least 100 GPU manifests from 10 projects and 500 others', () => {
  const gpuProjects = labels.projects.filter((project) => project.files.some((file) => file.gpu));
  const gpuFiles = labels.projects.flatMap((project) => project.files.filter((file) => file.gpu));
  const otherFiles = labels.projects.flatMap((project) => project.files.filter((file) => !file.gpu));
  assert.ok(gpuProjects.length >= 10, `${gpuProjects.length} projects with GPU manifests`);
  assert.ok(gpuFiles.length >= 100, `${gpuFiles.length} GPU manifests`);
  assert.ok(otherFiles.length >= 500, `${otherFiles.length} non-GPU manifests`);
  for (const file of gpuFiles)
    assert.ok(file.containers && file.containers.length > 0, `${file.path}: a GPU file labels its GPU containers`);
});

test(
  'public corpus: GPU detection and GPU rules reach 0.95 precision and recall, non-GPU files stay quiet',
  {
    skip: root
      ? false
      : 'no public corpus: run `npm run corpus:assemble` (needs the snapshots named in test/fixtures/manifests/public/README.md), or set GPUMEM_PUBLIC_CORPUS',
  },
  () => {
    const expected: ExpectedFile[] = [];
    const actual = new Map<string, ActualFile>();
    const absent: string[] = [];
    for (const project of labels.projects) {
      for (const file of project.files) {
        const id = `${project.repo}:${file.path}${file.block === undefined ? '' : `#${file.block}`}`;
        expected.push({ id, gpu: file.gpu, ...(file.containers ? { containers: file.containers } : {}) });
        // The layout scripts/corpus/assemble.mjs writes (assembledPath in scripts/corpus/markdownBlocks.mjs).
        const path = join(root as string, project.repo, file.block === undefined ? file.path : `${file.path}.block${file.block}.yaml`);
        if (!existsSync(path)) {
          absent.push(id);
          continue;
        }
        const result = lintText(readFileSync(path, 'utf8'));
        actual.set(id, {
          gpuContainers: result.containers.map((summary) => ({
            kind: summary.object.kind,
            name: summary.object.name,
            container: summary.container,
          })),
          findings: result.findings.map((finding) => ({
            ruleId: finding.ruleId,
            severity: finding.severity,
            kind: finding.object?.kind,
            name: finding.object?.name,
            container: finding.container,
            message: finding.message,
          })),
        });
      }
    }
    assert.deepEqual(absent, [], `files missing from ${root}: re-run npm run corpus:assemble`);

    const score = scoreCorpus(expected, actual, { isGpuRule, allowedOnNonGpu: ALLOWED_ON_NON_GPU });
    console.log(formatScore(score));
    assert.ok(precision(score.detection) >= 0.95, `GPU-container detection precision ${precision(score.detection).toFixed(3)}`);
    assert.ok(recall(score.detection) >= 0.95, `GPU-container detection recall ${recall(score.detection).toFixed(3)}`);
    assert.ok(precision(score.rules) >= 0.95, `GPU-rule precision ${precision(score.rules).toFixed(3)}`);
    assert.ok(recall(score.rules) >= 0.95, `GPU-rule recall ${recall(score.rules).toFixed(3)}`);
    assert.deepEqual(score.nonGpuFindings, [], 'non-GPU manifests report only syntax/template information');
  },
);
