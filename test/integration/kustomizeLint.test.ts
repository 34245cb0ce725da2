// `gpumem lint` on kustomize overlays, run from source as a child process, with the real `kubectl kustomize` as the
// oracle: the test renders each overlay itself and reads the rendered container (GPU count, memory limit, env) with
// the yaml package, independently of gpumem. Fixtures: test/fixtures/manifests/kustomize (a real GPU base from
// IBM/text-generation-inference and overlays written for these tests). About 8 s; skipped without kubectl.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../helpers/cli.ts';
import { kubectlOnPath } from '../helpers/kubectl.ts';

const T = { timeout: 60_000 };
const RUN = { timeoutMs: 50_000 };
const TGIS = 'test/fixtures/manifests/kustomize/tgis';
const kubectl = kubectlOnPath();
const skip = kubectl ? false : 'needs kubectl on PATH (Debian package kubectl: kustomize is built in)';

interface RenderedContainer {
  readonly gpus: string | undefined;
  readonly memory: string | undefined;
  readonly env: Map<string, string>;
}

/** The oracle: kubectl kustomize's own output, read with the yaml package. */
function renderedServer(overlay: string): { text: string; server: RenderedContainer } {
  const text = execFileSync(kubectl ?? 'kubectl', ['kustomize', overlay], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  for (const doc of parseAllDocuments(text)) {
    const object = doc.toJS() as {
      kind?: string;
      spec?: {
        template?: {
          spec?: {
            containers?: { name: string; env?: { name: string; value?: string }[]; resources?: { limits?: Record<string, string> } }[];
          };
        };
      };
    };
    if (object.kind !== 'Deployment') continue;
    const server = object.spec?.template?.spec?.containers?.find((container) => container.name === 'server');
    if (!server) continue;
    return {
      text,
      server: {
        gpus: server.resources?.limits?.['nvidia.com/gpu'],
        memory: server.resources?.limits?.memory,
        env: new Map((server.env ?? []).map((entry) => [entry.name, entry.value ?? ''])),
      },
    };
  }
  throw new Error(`no Deployment with a server container in kubectl kustomize ${overlay}`);
}

function ruleIds(stdout: string): string[] {
  return (JSON.parse(stdout) as { ruleId: string; severity: string }[]).map((finding) => `${finding.severity} ${finding.ruleId}`);
}

describe('gpumem lint on kustomize overlays', { skip }, () => {
  test('a patch raising the GPU count: the patch alone is no longer a failure, and the rendered overlay is clean', T, async () => {
    const { server } = renderedServer(`${TGIS}/overlays/four-gpus`);
    assert.equal(server.gpus, '4', 'oracle: the overlay raises the GPU count');
    assert.equal(server.memory, '512Gi', "oracle: the base's memory limit stays");

    // The control: the same patch as a workload of its own (standard input, no kustomization beside it).
    const control = await runCli(['lint', '-', '--format', 'json'], {
      input: readFileSync(`${TGIS}/overlays/four-gpus/gpus-4.yaml`, 'utf8'),
      ...RUN,
    });
    assert.equal(control.code, 1);
    assert.deepEqual(ruleIds(control.stdout), ['warning gpu-no-memory-limit']);

    const patches = await runCli(['lint', `${TGIS}/overlays/four-gpus`, '--format', 'json'], RUN);
    assert.equal(patches.code, 0, patches.stderr);
    assert.deepEqual(ruleIds(patches.stdout), ['info kustomize-patch', 'info gpu-no-memory-limit', 'info kustomize-patch']);
    assert.match(patches.stderr, /2 files listed as patches by a kustomization were judged only for what they set/);

    const rendered = await runCli(['lint', '--kustomize', `${TGIS}/overlays/four-gpus`, '--format', 'json'], RUN);
    assert.equal(rendered.code, 0, rendered.stderr);
    assert.deepEqual(ruleIds(rendered.stdout), []);
    assert.match(rendered.stderr, /the rendered overlay \(kubectl kustomize\) was linted/);

    // A CI gate that ranks the rule as an error fails the patch as a workload of its own, not the patch as a patch.
    const dir = mkdtempSync(join(tmpdir(), 'gpumem-kustomize-config-'));
    try {
      const config = join(dir, 'gpumem.yaml');
      writeFileSync(config, 'rules:\n  gpu-no-memory-limit: error\n');
      const strictControl = await runCli(['lint', '-', '--format', 'json', '--config', config], {
        input: readFileSync(`${TGIS}/overlays/four-gpus/gpus-4.yaml`, 'utf8'),
        ...RUN,
      });
      assert.equal(strictControl.code, 1);
      assert.deepEqual(ruleIds(strictControl.stdout), ['error gpu-no-memory-limit']);
      const strict = await runCli(['lint', `${TGIS}/overlays/four-gpus`, '--format', 'json', '--config', config], RUN);
      assert.equal(strict.code, 0, strict.stderr);
      assert.deepEqual(ruleIds(strict.stdout), ['info kustomize-patch', 'info gpu-no-memory-limit', 'info kustomize-patch']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a patch that sets CUDA_DISABLE_CONTROL=true fails both ways', T, async () => {
    const { text, server } = renderedServer(`${TGIS}/overlays/hami-debug`);
    assert.equal(server.env.get('CUDA_DISABLE_CONTROL'), 'true', 'oracle');
    assert.equal(server.gpus, '8', 'oracle: the GPU comes from the base');
    const line = text.split('\n').findIndex((row) => row.includes('CUDA_DISABLE_CONTROL')) + 2; // the value is on the next line

    const patches = await runCli(['lint', `${TGIS}/overlays/hami-debug`], RUN);
    assert.equal(patches.code, 1, patches.stdout);
    assert.match(patches.stdout, /debug-env\.yaml:13:22: warning \[cuda-disable-control\]/);

    const rendered = await runCli(['lint', '-k', `${TGIS}/overlays/hami-debug`, '--format', 'json'], RUN);
    assert.equal(rendered.code, 1, rendered.stderr);
    const findings = JSON.parse(rendered.stdout) as { ruleId: string; file: string; line: number; message: string }[];
    assert.deepEqual(
      findings.map((finding) => finding.ruleId),
      ['cuda-disable-control'],
    );
    assert.equal(findings[0]?.file, `${TGIS}/overlays/hami-debug/kustomization.yaml`);
    assert.match(findings[0]?.message ?? '', new RegExp(`rendered by kubectl kustomize ${TGIS}/overlays/hami-debug, line ${line}\\]`));
  });

  test('a JSON patch whose operation appends CUDA_DISABLE_CONTROL=true by container index fails both ways', T, async () => {
    const { text, server } = renderedServer(`${TGIS}/overlays/json-env`);
    assert.equal(server.env.get('CUDA_DISABLE_CONTROL'), 'true', 'oracle: the operation appends the variable to the server container');
    assert.equal(server.gpus, '8', 'oracle: the GPU comes from the base');
    const ops = readFileSync(`${TGIS}/overlays/json-env/debug-ops.yaml`, 'utf8').split('\n');
    const valueLine = ops.findIndex((row) => row.includes('name: CUDA_DISABLE_CONTROL')) + 1;
    const valueColumn = (ops[valueLine - 1] ?? '').indexOf('name:') + 1;

    const patches = await runCli(['lint', `${TGIS}/overlays/json-env`, '--format', 'json'], RUN);
    assert.equal(patches.code, 1, patches.stderr);
    const found = JSON.parse(patches.stdout) as { ruleId: string; file: string; line: number; column: number; message: string }[];
    assert.deepEqual(
      found.map((finding) => finding.ruleId),
      ['kustomize-patch', 'cuda-disable-control'],
    );
    assert.equal(found[1]?.file, `${TGIS}/overlays/json-env/debug-ops.yaml`);
    assert.deepEqual([found[1]?.line, found[1]?.column], [valueLine, valueColumn]);
    assert.match(found[1]?.message ?? '', /^Container containers\[0\]: CUDA_DISABLE_CONTROL=true/);

    const rendered = await runCli(['lint', '-k', `${TGIS}/overlays/json-env`, '--format', 'json'], RUN);
    assert.equal(rendered.code, 1, rendered.stderr);
    const renderedFindings = JSON.parse(rendered.stdout) as { ruleId: string; message: string }[];
    assert.deepEqual(
      renderedFindings.map((finding) => finding.ruleId),
      ['cuda-disable-control'],
    );
    const line = text.split('\n').findIndex((row) => row.includes('CUDA_DISABLE_CONTROL')) + 2; // the value is on the next line
    assert.match(renderedFindings[0]?.message ?? '', new RegExp(`^Container "server": .*, line ${line}\\]`));
  });

  test('without kubectl, --kustomize says so in one line and exits 2; without the option nothing runs kubectl', T, async () => {
    // A PATH with only node's directory: no kubectl on it.
    const bin = mkdtempSync(join(tmpdir(), 'gpumem-nokubectl-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const env = { ...process.env, PATH: `${bin}:${dirname(bin)}/nonexistent` };
    const missing = await runCli(['lint', '--kustomize', `${TGIS}/overlays/four-gpus`], { env, ...RUN });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /not rendered: --kustomize runs kubectl kustomize, and kubectl could not be started \(kubectl: not found/);
    const plain = await runCli(['lint', `${TGIS}/overlays/four-gpus`], { env, ...RUN });
    rmSync(bin, { recursive: true, force: true });
    assert.equal(plain.code, 0, plain.stderr);
  });

  test(
    'a patch named alone (as pre-commit passes it) is read as a patch when an overlay elsewhere in its repository lists it',
    T,
    async () => {
      // The layout of an overlay that lists a patch kept beside the base: nothing beside the patch says it is one.
      const repo = mkdtempSync(join(tmpdir(), 'gpumem-kustomize-repo-'));
      try {
        const patch = join(repo, 'base', 'patches', 'gpus-4.yaml');
        mkdirSync(dirname(patch), { recursive: true });
        mkdirSync(join(repo, 'overlays', 'prod'), { recursive: true });
        writeFileSync(patch, readFileSync(`${TGIS}/overlays/four-gpus/gpus-4.yaml`));
        writeFileSync(
          join(repo, 'overlays', 'prod', 'kustomization.yaml'),
          'resources:\n  - ../../base\npatches:\n  - path: ../../base/patches/gpus-4.yaml\n',
        );
        // A symlinked directory loop in the repository: the search does not follow it.
        symlinkSync(repo, join(repo, 'overlays', 'loop'));

        const outside = await runCli(['lint', patch, '--format', 'json'], RUN);
        assert.equal(outside.code, 1, 'not in a git repository: only the kustomizations beside it are read, the control');
        assert.deepEqual(ruleIds(outside.stdout), ['warning gpu-no-memory-limit']);

        mkdirSync(join(repo, '.git'));
        const inside = await runCli(['lint', patch, '--format', 'json'], RUN);
        assert.equal(inside.code, 0, inside.stderr);
        assert.deepEqual(ruleIds(inside.stdout), ['info kustomize-patch', 'info gpu-no-memory-limit']);
        assert.match(
          (JSON.parse(inside.stdout) as { message: string }[])[0]?.message ?? '',
          /overlays\/prod\/kustomization\.yaml lists this file under `patches`/,
        );

        // A repository too large to search whole: the search stops (names in order: aaa/* before overlays/prod),
        // and the run says what that leaves.
        for (let n = 0; n < 5_000; n++) mkdirSync(join(repo, 'aaa', String(n)), { recursive: true });
        const large = await runCli(['lint', patch, '--format', 'json'], RUN);
        assert.equal(large.code, 1);
        assert.match(
          large.stderr,
          /has too many directories to search whole .* a patch listed only beyond them is linted as a whole object/,
        );
      } finally {
        rmSync(repo, { recursive: true, force: true });
      }
    },
  );

  test(
    'an overlay kustomize refuses (files outside its directory) is an error with the way to render it; a directory without a kustomization too',
    T,
    async () => {
      const refused = await runCli(['lint', '--kustomize', `${TGIS}/models/flan-ul2-tp`], RUN);
      assert.equal(refused.code, 2);
      assert.match(
        refused.stderr,
        /kubectl kustomize failed: security; file '[^']*2-gpu\.yaml' is not in or below .*--load-restrictor LoadRestrictionsNone/,
      );
      const none = await runCli(['lint', '--kustomize', `${TGIS}/base/patches`], RUN);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /not a kustomization directory/);
      const stdin = await runCli(['lint', '--kustomize', '-'], RUN);
      assert.equal(stdin.code, 2);
      const live = await runCli(['lint', '--kustomize', '--live', `${TGIS}/overlays/four-gpus`], RUN);
      assert.equal(live.code, 2);
      assert.match(live.stderr, /--kustomize and --live do not combine/);
    },
  );
});
