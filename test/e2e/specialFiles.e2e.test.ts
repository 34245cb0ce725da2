// End-to-end: "Lint Workspace Manifests" in a real VS Code (code-server) on a workspace that a hostile repository
// could hold: *.yaml symlinks to /dev/zero and /dev/urandom, a named pipe nobody writes, a listening socket, a
// file one byte over the scan's 16 MiB limit and a symlink out of the workspace. The scan must finish, each file
// it met must carry a manifest-skipped notice (never a hang, never an engine error), the real manifests must still
// be linted, and the editor must stay responsive. Run with `npm run test:e2e -- test/e2e/specialFiles.e2e.test.ts`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { withWorkbench } from './harness/session.ts';
import { openFile, openTabs, runCommand, showProblems, waitFor, waitForNotification, waitForProblems } from './harness/workbench.ts';
import type { ProblemRow } from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 8 * 60_000;
const LIMIT = 16 * 1024 * 1024;

/** What each hostile file's notice says, if the workspace search lists it (it may leave out what is not a file). */
const NOTICES: Readonly<Record<string, RegExp>> = {
  'zero.yaml': /Skipped: a symbolic link to \/dev\/zero, outside the workspace folder \(not followed\)\./,
  'urandom.yaml': /Skipped: a symbolic link to \/dev\/urandom, outside the workspace folder \(not followed\)\./,
  'pipe.yaml': /Skipped: is a named pipe \(FIFO\), not a regular file\./,
  'socket.yaml': /Skipped: is a socket, not a regular file\./,
  'huge.yaml': /Skipped: stopped at 16 MiB: manifests are read up to --max-file-size 16 MiB\./,
  'outside.yaml': /Skipped: a symbolic link to .*\/elsewhere\.yaml, outside the workspace folder \(not followed\)\./,
};

function gpumemRows(rows: ProblemRow[]): ProblemRow[] {
  return rows.filter((row) => row.source === 'gpumem');
}

test(
  '"Lint Workspace Manifests" on a workspace of special files finishes, with a notice on each',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'gpumem-outside-'));
    let server: Server | undefined;
    try {
      await withWorkbench('lint-special-files', { fixture: 'lint-workspace' }, async (s) => {
        await s.step('add the hostile files to the workspace', async () => {
          // The workspace lint scenario's DeviceClass files add GPU rows that would push these notices out of the
          // Problems panel's visible rows (it renders only those that fit): this scenario is about the special files.
          for (const name of ['accel-pod.yaml', 'accel-deviceclass.yaml']) rmSync(s.file(name));
          symlinkSync('/dev/zero', s.file('zero.yaml'));
          symlinkSync('/dev/urandom', s.file('urandom.yaml'));
          execFileSync('mkfifo', [s.file('pipe.yaml')]);
          server = createServer();
          await new Promise<void>((resolve) => server!.listen(s.file('socket.yaml'), resolve));
          writeFileSync(s.file('huge.yaml'), '');
          truncateSync(s.file('huge.yaml'), LIMIT + 1);
          writeFileSync(path.join(outside, 'elsewhere.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: elsewhere\n');
          symlinkSync(path.join(outside, 'elsewhere.yaml'), s.file('outside.yaml'));
        });

        await s.step('run "gpumem: Lint Workspace Manifests"', () => runCommand(s.page, 'gpumem: Lint Workspace Manifests'));
        const done = await s.step('the scan finishes and says how many files it linted', () =>
          waitForNotification(s.page, /gpumem: linted \d+ manifest files?: \d+ findings? in \d+ files?\./, { timeoutMs: 120_000 }),
        );
        assert.match(done, /linted \d+ manifest files/);

        const rows = await s.step(
          'the real manifests are linted and the oversized file and the outside link carry their notices',
          async () => {
            await showProblems(s.page);
            return waitForProblems(s.page, 'gpumem rows for the trainer, huge.yaml and outside.yaml', (all) => {
              const files = new Set(gpumemRows(all).map((row) => path.basename(row.file)));
              return files.has('hami-dind-trainer.yaml') && files.has('huge.yaml') && files.has('outside.yaml');
            });
          },
          90_000,
        );
        for (const row of gpumemRows(rows)) {
          const file = path.basename(row.file);
          const notice = NOTICES[file];
          if (notice === undefined) continue;
          assert.equal(row.code, 'manifest-skipped', `${file}: ${row.message}`);
          assert.match(row.message, notice, file);
        }
        for (const row of gpumemRows(rows))
          assert.doesNotMatch(row.message, /Invalid string length|Maximum call stack|internal-error/, `${row.file}: ${row.message}`);
        await s.screenshot('problems');

        await s.step('the editor still answers: a manifest opens and is linted as you type', async () => {
          await openFile(s.page, 'unlimited-inference.yaml');
          await waitFor(
            'the opened manifest in a tab',
            () => openTabs(s.page),
            (tabs) => tabs.some((tab) => tab.startsWith('unlimited-inference')),
            { timeoutMs: 30_000 },
          );
          await waitForProblems(s.page, 'the opened manifest with its finding', (all) =>
            gpumemRows(all).some((row) => path.basename(row.file) === 'unlimited-inference.yaml' && row.code === 'gpu-no-memory-limit'),
          );
        });
      });
    } finally {
      server?.close();
      rmSync(outside, { recursive: true, force: true });
    }
  },
);
