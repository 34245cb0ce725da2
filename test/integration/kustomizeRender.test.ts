// The shared `kubectl kustomize` run (src/transports/kustomizeRender.ts) that VS Code's "Lint Rendered Kustomize
// Overlay" calls with its own kubectl path, bound and cancel: the real kubectl on the hami-debug fixture (the oracle
// is kubectl's own output, run by the test), a bound smaller than that output, and a cancel. For the cancel, the
// "kubectl" is a script written here that execs sleep: a real process whose group the abort must kill. About 1 s;
// skipped without kubectl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runKustomize } from '../../src/transports/kustomizeRender.ts';
import { kubectlOnPath } from '../helpers/kubectl.ts';

const OVERLAY = resolve('test/fixtures/manifests/kustomize/tgis/overlays/hami-debug');
const kubectl = kubectlOnPath();
const skip = kubectl ? false : 'needs kubectl on PATH (Debian package kubectl: kustomize is built in)';

test(
  'the given kubectl renders the overlay as kubectl itself does; a bound below its size stops it',
  { skip, timeout: 60_000 },
  async () => {
    const oracle = execFileSync(kubectl ?? 'kubectl', ['kustomize', OVERLAY], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    assert.deepEqual(await runKustomize({ directory: OVERLAY, maxBytes: 1 << 20, cwd: tmpdir(), kubectl: kubectl ?? 'kubectl' }), {
      kind: 'rendered',
      text: oracle,
    });
    const small = await runKustomize({
      directory: OVERLAY,
      maxBytes: Math.floor(oracle.length / 2),
      cwd: tmpdir(),
      kubectl: kubectl ?? 'kubectl',
    });
    assert.deepEqual(small, { kind: 'too-large' });
  },
);

test('a kubectl path that does not exist is kubectl missing; an abort is a cancel, not a failure', { timeout: 60_000 }, async () => {
  const missing = await runKustomize({ directory: OVERLAY, maxBytes: 1 << 20, cwd: tmpdir(), kubectl: '/nonexistent/kubectl' });
  assert.equal(missing.kind, 'no-kubectl');
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-kustomize-'));
  try {
    const slow = join(dir, 'kubectl');
    const pidFile = join(dir, 'pid');
    writeFileSync(slow, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 30\n`);
    chmodSync(slow, 0o755);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    const outcome = await runKustomize({ directory: OVERLAY, maxBytes: 1 << 20, cwd: dir, kubectl: slow, signal: abort.signal });
    assert.deepEqual(outcome, { kind: 'cancelled' });
    // The sleep (the script's pid, kept by exec) dies: the group was killed, not left to run its 30 s. The run settles
    // as soon as the kill is sent, so the reaping is waited for (a bound on liveness, not on speed).
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    assert.equal(await gone(pid, 10_000), true, `the kubectl process ${pid} was killed`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Whether `pid` is gone (or a zombie awaiting its reaper) within `ms`. */
async function gone(pid: number, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    try {
      if ((readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop() ?? '').startsWith('Z')) return true;
    } catch {
      return true;
    }
  }
  return false;
}
