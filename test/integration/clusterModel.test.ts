// The Clusters view's model (src/clusters/clusterModel.ts) against the API simulator, through the real
// client-node: the kubeconfig's context, and that context loaded to its nodes. The model has no vscode import, so it
// runs here as the extension runs it (the e2e tier covers the tree on top).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_UNIFIED_MEMORY_LABELS } from '../../src/core/config.ts';
import { parseKubeSettings } from '../../src/core/settings.ts';
import { ClusterModel } from '../../src/clusters/clusterModel.ts';
import { completeFixtures, loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

describe('ClusterModel against the simulator', () => {
  let sim: Simulator;
  let dir: string;
  let model: ClusterModel;
  const lines: string[] = [];

  before(async () => {
    sim = await startSimulator({ fixtures: completeFixtures(loadFixtures()), roots: false });
    dir = mkdtempSync(join(tmpdir(), 'gpumem-cluster-model-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig('admin'), { mode: 0o600 });
    const settings = parseKubeSettings((key) => (key === 'gpumem.kubeconfig' ? kubeconfig : undefined), {
      debugImage: 'busybox:1.36',
      liveDebugPodDeadlineSeconds: 3600,
      liveDebugPodIdleMs: 120_000,
    });
    const log = (line: string) => void lines.push(line);
    model = new ClusterModel({
      readSettings: () => settings,
      unifiedMemoryLabels: () => DEFAULT_UNIFIED_MEMORY_LABELS,
      log: { debug: log, info: log, warn: log, error: log },
    });
  });

  after(async () => {
    model?.dispose();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the kubeconfig context, loaded: reachable, its nodes by name', async () => {
    const contexts = await model.ensureLoaded();
    assert.equal(contexts.length, 1, lines.join('\n'));
    const context = await model.loadContext(contexts[0] ?? assert.fail('no context'));
    assert.equal(context.state.kind, 'Reachable', lines.join('\n'));
    // The five Node objects of test/simulator/fixtures, sorted by name; only strix-node-1 carries the AMD node
    // labeller's Strix Halo device id (1586), so only it is a unified-memory node.
    assert.deepEqual(
      context.nodes?.map((node) => [node.summary.name, node.summary.unifiedMemory.unified]),
      [
        ['gpu-node-7', false],
        ['gpu-node-8', false],
        ['secure-node-1', false],
        ['strix-node-1', true],
        ['web-node-3', false],
      ],
    );
    assert.equal(model.client(context).context, context.info.name, 'one client per context, by its name');
  });
});
