// Light activation (issue 16): what dist/extension.js holds, from esbuild's metafile. Activating on a YAML file
// loads the lint core (bench/activationBundles.ts: the Ctx, the lint service, its providers and commands) plus
// the registrations; the inspector, the verdicts and the probe are dist/inspect.js, Kubernetes and SSH
// dist/remote.js. bench/activation.mjs times the same bundles; this checks their contents, which timing cannot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { bundleInputs, isLazyModule, LINT_CORE_ENTRY, ROOT } from '../../bench/activationBundles.ts';

/** What dist/extension.js adds to the lint core: the wiring, the lazy stand-ins, the shared TransportError. */
const ACTIVATION_WIRING = [
  // Live mode's window setting (parseWindow); the judging against a cluster's snapshot is dist/remote.js's
  // (src/vscode/live/remoteLive.ts), loaded once a context is chosen.
  'src/core/fleet/promFacts.ts',
  // The fleet panel's view type, for its serializer (the panel itself is in dist/remote.js).
  'src/core/fleet/viewType.ts',
  // Live mode's status, settings and the offer lens (ageText of liveSnapshot.ts).
  'src/core/live/livePresentation.ts',
  'src/core/live/liveSettings.ts',
  'src/core/live/liveSnapshot.ts',
  'src/core/probe/transport.ts',
  // Show Rule Documentation…'s list: the rules, which the lint core has, and the live findings' ids and titles.
  'src/core/rules/ruleList.ts',
  'src/extension.ts',
  'src/vscode/clusters/commandIds.ts',
  'src/vscode/clusters/manifestScheme.ts',
  'src/vscode/commands/showRuleDocs.ts',
  'src/vscode/lazyBundle.ts',
  'src/vscode/lazyRemote.ts',
  'src/vscode/lazyTree.ts',
  'src/vscode/lifecycle.ts',
  // Live mode's choice, status bar and context pick (its trust check and failure message).
  'src/vscode/live/chooseContext.ts',
  'src/vscode/live/liveChoice.ts',
  'src/vscode/live/liveMode.ts',
  'src/vscode/live/liveStatusBar.ts',
  'src/vscode/live/namespaces.ts',
  'src/vscode/messages.ts',
  // The ids of dist/remote.js's commands, registered at activation (the handlers are that bundle's table).
  'src/vscode/remoteCommandIds.ts',
  'src/vscode/trust.ts',
];

test('dist/extension.js is the lint core plus the wiring: a new import into it is a decision, made here', async () => {
  const lintCore = await bundleInputs({ stdin: LINT_CORE_ENTRY });
  const extension = await bundleInputs({ entryPoints: ['src/extension.ts'] });
  const added = [...extension.keys()].filter((input) => !lintCore.has(input)).sort();
  assert.deepEqual(added, ACTIVATION_WIRING);
});

test('neither the lint core nor dist/extension.js holds code that loads on first use', async () => {
  for (const options of [{ stdin: LINT_CORE_ENTRY }, { entryPoints: ['src/extension.ts'] }]) {
    const lazy = [...(await bundleInputs(options)).keys()].filter(isLazyModule);
    assert.deepEqual(lazy, [], `${options.entryPoints?.[0] ?? 'the lint core'} holds modules of dist/inspect.js or dist/remote.js`);
  }
});

test('dist/inspect.js holds the inspector but no Kubernetes or SSH code: Inspect Local does not load them', async () => {
  const inputs = [...(await bundleInputs({ entryPoints: ['src/inspect.ts'] })).keys()];
  assert.ok(inputs.includes('src/vscode/inspectorPanel/panel.ts'), 'the inspector panel is in dist/inspect.js');
  const remote = inputs.filter((input) =>
    /^node_modules\/(@kubernetes\/client-node|ssh2)\/|^src\/kube\/|^src\/transports\/ssh\.ts$/.test(input),
  );
  assert.deepEqual(remote, []);
});

test('isLazyModule: first-use code by source path, package path or require.cache key; activation needs excepted', () => {
  for (const path of [
    'src/core/verdicts/oom/oomVerdicts.ts',
    'src/vscode/inspectorPanel/panel.ts',
    'src/vscode/sshHosts.ts',
    'node_modules/ssh2/lib/client.js',
    '/elsewhere/node_modules/@kubernetes/client-node/dist/index.js',
    join(ROOT, 'dist', 'remote.js'),
    join(ROOT, 'dist', 'inspect.js'),
  ])
    assert.equal(isLazyModule(path), true, path);
  for (const path of [
    'src/core/probe/transport.ts',
    'src/vscode/inspectionRun/inspections.ts',
    'src/vscode/ctx.ts',
    join(ROOT, 'dist', 'extension.js'),
  ])
    assert.equal(isLazyModule(path), false, path);
});
