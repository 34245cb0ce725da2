// Light activation: opening a YAML file activates gpumem with dist/extension.js alone (the linter works; neither
// the inspector, dist/inspect.js, nor Kubernetes and SSH, dist/remote.js, is loaded), and dist/remote.js loads
// when the Clusters view is first shown. These facts come from the gpumem output channel: "activated in N ms;
// loaded bundles: …" and "loaded remote.js … first used by …".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openClusters, withClusterWorkbench } from './harness/clusters.ts';
import { gpumemLog, waitForLogLine } from './harness/outputLog.ts';
import { openFile, waitForCodeLens } from './harness/workbench.ts';

const SCENARIO_TIMEOUT_MS = 5 * 60_000;
const ACTIVATED = /activated in \d+ ms; loaded bundles: (.+)$/m;
const REMOTE_LOADED = /loaded remote\.js \(Kubernetes, SSH\) in \d+ ms, first used by (.+)$/m;
const INSPECT_LOADED = /loaded inspect\.js \(inspector, local inspection\) in \d+ ms/m;

test(
  'a YAML file activates the linter without the Kubernetes and SSH bundle; the Clusters view loads it',
  { timeout: SCENARIO_TIMEOUT_MS },
  async () => {
    await withClusterWorkbench('clusters-activation', {}, async (s) => {
      await s.step('open hami-dind-trainer.yaml with Quick Open', () => openFile(s.page, 'hami-dind-trainer.yaml'));
      await s.step('the linter runs (a GPU CodeLens)', () => waitForCodeLens(s.page, /^GPU:/));
      const activated = await waitForLogLine(s, 'the activation line', ACTIVATED);
      assert.equal(activated[1], 'extension.js', 'activation loaded dist/extension.js only');
      const log = await gpumemLog(s);
      assert.doesNotMatch(log, REMOTE_LOADED, 'linting a YAML file did not load dist/remote.js');
      assert.doesNotMatch(log, INSPECT_LOADED, 'linting a YAML file did not load dist/inspect.js');

      await openClusters(s);
      const loaded = await waitForLogLine(s, 'the remote.js line', REMOTE_LOADED);
      assert.equal(loaded[1], 'the Clusters view');
    });
  },
);
