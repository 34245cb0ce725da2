// yaml-syntax fires only where kubectl refuses the document. kubectl reads YAML with go-yaml, which does not
// check indentation inside flow collections or multi-line quoted scalars (eemeli/yaml#113, #114, #328, #539):
// gpumem re-parses those documents relaxed and analyses them. The real kubectl is the oracle where installed:
// `kubectl kustomize` on a folder with the file and a kustomization.yaml parses it offline.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { relaxForGoYaml } from '../../src/core/manifest/lenientYaml.ts';
import { kubectlOnPath } from '../helpers/kubectl.ts';
import { findingsOf, lint } from './helpers/lint.ts';

const HEAD = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: busybox\n';

/** kubectl accepts these; the strict parser alone would not. */
const ACCEPTED: Record<string, string> = {
  'closing bracket at the dash': `${HEAD}      args: [\n        --a\n    ]\n`,
  'closing bracket below the key': `${HEAD}      args: [\n        --a,\n  ]\n`,
  'entries at the key column': `${HEAD}      args: [\n      --a,\n      --b\n      ]\n`,
  'inner flow mapping closed at the parent': `${HEAD}      env: [ {\n  name: A, value: b\n} ]\n`,
  'flow mapping entries at column 0': `${HEAD}      resources: {\nlimits: {memory: 1Gi}\n}\n`,
  'multi-line plain scalar in a flow sequence': `${HEAD}      command: [sh, -c, echo one\ntwo]\n`,
  'double-quoted scalar continued at column 0': `${HEAD}      args: ["--a=one\ntwo"]\n      workingDir: "/one\ntwo"\n`,
  'single-quoted scalar continued at column 0': `${HEAD}      workingDir: '/one\ntwo'\n`,
  'comment glued to a closing quote': `${HEAD}      workingDir: "/w"#comment\n`,
};

/** kubectl refuses these too. */
const REFUSED: Record<string, string> = {
  'tab as indentation': `${HEAD}\t  workingDir: /w\n`,
  'duplicate key': `${HEAD}      image: busybox\n`,
  'unclosed quote': `${HEAD}      workingDir: "/w`,
  'bad escape': `${HEAD}      workingDir: "\\q"\n`,
  'items at different columns': `${HEAD}       workingDir: /w\n`,
  'empty flow entry': `${HEAD}      args: [a,,b]\n`,
  'reserved character': `${HEAD}      workingDir: @w\n`,
  'unclosed flow sequence': `${HEAD}      args: [a, b`,
};

const kubectl = kubectlOnPath();

function kubectlAccepts(text: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-kustomize-'));
  try {
    writeFileSync(join(dir, 'pod.yaml'), text);
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources:\n- pod.yaml\n');
    return spawnSync(kubectl ?? 'kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 30_000 }).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('yaml-syntax agrees with kubectl', () => {
  test('documents kubectl accepts are analysed, with no yaml-syntax', () => {
    for (const [label, text] of Object.entries(ACCEPTED)) {
      const result = lint(text);
      assert.deepEqual(findingsOf(result, 'yaml-syntax'), [], label);
      assert.ok(relaxForGoYaml(text) !== undefined, `${label}: relaxed`);
      assert.equal(relaxForGoYaml(text)?.length, text.length, `${label}: offsets kept`);
    }
    // Analysed for real: the GPU rules see a container whose args are a dedented flow sequence.
    const gpu = `${HEAD}      args: [\n        --a\n    ]\n      resources: {limits: {nvidia.com/gpu: 1}}\n`;
    assert.deepEqual(
      findingsOf(lint(gpu), 'gpu-no-memory-limit').map((f) => f.container),
      ['c'],
    );
  });

  test('documents kubectl refuses are yaml-syntax warnings', () => {
    for (const [label, text] of Object.entries(REFUSED)) {
      const found = findingsOf(lint(text), 'yaml-syntax');
      assert.equal(found.length, 1, label);
      assert.equal(found[0]?.severity, 'warning', label);
      assert.match(found[0]?.message ?? '', /^This YAML document was not analysed: /, label);
    }
  });

  test("a limit of gpumem's parser is an info that does not claim kubectl refuses the document", () => {
    const found = findingsOf(lint(`a: ${'['.repeat(5000)}${']'.repeat(5000)}\n`), 'yaml-syntax');
    for (const finding of found) {
      assert.equal(finding.severity, 'info');
      assert.match(finding.message, /limit of gpumem's YAML parser; kubectl may still accept the document/);
    }
  });

  test('relaxing a long flow sequence keeps its length, and leaves block scalars alone (cost: bench/growth.mjs)', () => {
    const script = `${HEAD}      args:\n        - |\n          [ "not flow\n          ]\n`;
    assert.equal(relaxForGoYaml(script), undefined);
    const big = `${HEAD}      args: [\n${'        a,\n'.repeat(200_000)}    ]\n`;
    assert.equal(relaxForGoYaml(big)?.length, big.length);
  });

  test(
    'the real kubectl agrees with every case',
    { skip: kubectl ? false : 'needs the kubectl binary on PATH: `kubectl kustomize` is the oracle for what kubectl parses' },
    () => {
      for (const [label, text] of Object.entries(ACCEPTED)) assert.equal(kubectlAccepts(text), true, `kubectl accepts: ${label}`);
      for (const [label, text] of Object.entries(REFUSED)) assert.equal(kubectlAccepts(text), false, `kubectl refuses: ${label}`);
    },
  );
});
