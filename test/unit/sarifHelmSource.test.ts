// SARIF of rendered Helm output on standard input (`helm template … | gpumem lint - --format sarif`): the finding is
// located at the object's `# Source:` template, the rendered line a related location, so code scanning annotates the
// chart. The input is in the shape helm template prints (pkg/action/install.go: `---\n# Source: <chart>/templates/<file>`),
// two documents from two templates; checked against the SARIF 2.1.0 schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { sarifSchemaValidator } from '../helpers/sarifSchema.ts';

const RENDERED = `---
# Source: vllm/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: release-vllm
spec:
  ports:
    - port: 8000
---
# Source: vllm/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: release-vllm
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.8.5
          resources:
            limits:
              nvidia.com/gpu: 1
`;

interface Location {
  physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region?: { startLine: number } };
}

test('stdin: the # Source: template is the location, the rendered line a related location', async () => {
  const run = await runCli(['lint', '-', '--format', 'sarif'], { input: RENDERED, timeoutMs: 60_000 });
  assert.equal(run.code, 1, run.stderr);
  const log = JSON.parse(run.stdout) as { runs: { results: { ruleId: string; locations: Location[]; relatedLocations?: Location[] }[] }[] };
  const validate = sarifSchemaValidator();
  assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 5)));
  const result = log.runs[0]?.results.find((r) => r.ruleId === 'gpu-no-memory-limit');
  assert.deepEqual(result?.locations[0]?.physicalLocation.artifactLocation, {
    uri: 'vllm/templates/deployment.yaml',
    uriBaseId: 'SRCROOT',
  });
  assert.equal(result?.locations[0]?.physicalLocation.region, undefined, "the template's own line is not known");
  const related = result?.relatedLocations?.[0]?.physicalLocation;
  assert.equal(related?.artifactLocation.uri, '%3Cstdin%3E');
  assert.equal(related?.region?.startLine, 20, 'the container line (- name: vllm) of the rendered output');
});

test('a file on disk keeps its own location', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-sarif-'));
  writeFileSync(join(dir, 'rendered.yaml'), RENDERED);
  const run = await runCli(['lint', 'rendered.yaml', '--format', 'sarif'], { cwd: dir, timeoutMs: 60_000 });
  const log = JSON.parse(run.stdout) as { runs: { results: { locations: Location[]; relatedLocations?: Location[] }[] }[] };
  const result = log.runs[0]?.results[0];
  assert.equal(result?.locations[0]?.physicalLocation.artifactLocation.uri, 'rendered.yaml');
  assert.equal(result?.relatedLocations, undefined);
});
