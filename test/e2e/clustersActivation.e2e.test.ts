// Light activation: opening a YAML file activates gpumem with dist/extension.js alone (the linter works; neither
// the inspector, dist/inspect.js, nor Kubernetes and SSH, dist/remote.js, is loaded), and dist/remote.js loads
// when the Clusters view is first shown. These facts come from the gpumem output channel: "activated in N ms;
// loaded bundles: …" and "loaded remote.js … first used by …".
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import { showClusters, waitForClusterItem, withHome } from './harness/clusters.ts';
import { gpumemLog } from './harness/outputLog.ts';
import { withWorkbench } from './harness/session.ts';
import { openFile, waitFor, waitForCodeLens } from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 5 * 60_000;
const ACTIVATED = /activated in \d+ ms; loaded bundles: (.+)$/m;
const REMOTE_LOADED = /loaded remote\.js \(Kubernetes, SSH\) in \d+ ms, first used by (.+)$/m;
const INSPECT_LOADED = /loaded inspect\.js \(inspector, local inspection\) in \d+ ms/m;

test(
  'a YAML file activates the linter without the Kubernetes and SSH bundle; the Clusters view loads it',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    const sim = await startSimulator({ fixtures: loadFixtures(), roots: true });
    try {
      await withHome(async (home) => {
        await writeFile(path.join(home, '.kube', 'config'), sim.kubeconfig(['admin']), { mode: 0o600 });
        await withWorkbench('clusters-activation', { fixture: 'single', home, env: { KUBECONFIG: '' } }, async (s) => {
          await s.step('open hami-dind-trainer.yaml with Quick Open', () => openFile(s.page, 'hami-dind-trainer.yaml'));
          await s.step('the linter runs (a GPU CodeLens)', () => waitForCodeLens(s.page, /^GPU:/));
          const activated = await s.step('the activation line in the gpumem output', () =>
            waitFor(
              'the activation line',
              () => gpumemLog(s),
              (log) => ACTIVATED.test(log),
              { timeoutMs: 20_000 },
            ),
          );
          assert.equal(ACTIVATED.exec(activated)?.[1], 'extension.js', 'activation loaded dist/extension.js only');
          assert.doesNotMatch(activated, REMOTE_LOADED, 'linting a YAML file did not load dist/remote.js');
          assert.doesNotMatch(activated, INSPECT_LOADED, 'linting a YAML file did not load dist/inspect.js');

          await showClusters(s);
          await s.step('the Clusters view lists gpumem-demo', () => waitForClusterItem(s.page, 'gpumem-demo', 'is listed', () => true));
          const loaded = await s.step('remote.js was loaded for the view', () =>
            waitFor(
              'the remote.js line',
              () => gpumemLog(s),
              (log) => REMOTE_LOADED.test(log),
              { timeoutMs: 20_000 },
            ),
          );
          assert.equal(REMOTE_LOADED.exec(loaded)?.[1], 'the Clusters view');
        });
      });
    } finally {
      await sim.close();
    }
  },
);
