// `gpumem recommend --apply DIR` on a real directory: the diff of each changed file is printed before any write,
// a workload no manifest holds is named, and a file with nothing to change is not written. The printed diff is
// checked by GNU patch where it is installed: applied to the original, it must give the written file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyToDirectory } from '../../src/cli/recommendApply.ts';
import type { WorkloadChange } from '../../src/core/rightsizing/changes.ts';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm   # the server
spec:
  template:
    spec:
      containers:
        - name: server
          resources:
            limits:
              memory: 8Gi
`;

test('--apply prints every diff first, then writes only the files that change', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-apply-'));
  try {
    mkdirSync(join(dir, 'apps'));
    writeFileSync(join(dir, 'apps', 'llm.yaml'), DEPLOYMENT);
    writeFileSync(join(dir, 'other.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
    const events: string[] = [];
    const out: string[] = [];
    const changes: WorkloadChange[] = [
      {
        ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ml', name: 'llm' },
        containers: [{ container: 'server', memory: '12Gi' }],
        annotations: new Map(),
      },
      {
        ref: { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'ml', name: 'db' },
        containers: [{ container: 'pg', memory: '5Gi' }],
        annotations: new Map(),
      },
    ];
    const result = await applyToDirectory(
      dir,
      changes,
      { stdout: (text: string) => (events.push('stdout'), out.push(text)), stderr: (text: string) => out.push(text) } as never,
      async (path, text) => {
        events.push(`write ${path}`);
        writeFileSync(path, text);
      },
    );
    assert.deepEqual(result, { kind: 'applied', files: 1 });
    assert.deepEqual(events, ['stdout', `write ${join(dir, 'apps', 'llm.yaml')}`]);
    const written = readFileSync(join(dir, 'apps', 'llm.yaml'), 'utf8');
    assert.ok(written !== DEPLOYMENT);
    assert.match(written, /name: llm {3}# the server/);
    assert.match(written, /limits:\n {14}memory: 12Gi/);
    assert.match(written, /requests:\n {14}memory: 12Gi/);
    assert.match(out.join(''), /no manifest under .* holds StatefulSet db/);
    const diff = out.find((text) => text.startsWith('--- a/'));
    assert.ok(diff, 'a diff was printed');
    if (spawnSync('patch', ['--version'], { stdio: 'ignore' }).status === 0) {
      const original = join(dir, 'original.yaml');
      writeFileSync(original, DEPLOYMENT);
      const patched = spawnSync('patch', ['-s', '-o', '-', original], { input: diff, encoding: 'utf8' });
      assert.equal(patched.status, 0, patched.stderr);
      assert.equal(patched.stdout, written);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
