// The inspector and the local inspection tools, bundled to dist/inspect.js and required by src/extension.ts
// (through src/vscode/lazyBundle.ts) on first use: the first inspection shown or inspector panel restored
// (ctx.inspections), the first Inspect Local Machine, Analyze Probe Capture, Explain OOM Kills or Copy Probe
// Script, or the SSH Hosts view first shown. None of it is needed to lint a YAML file. dist/remote.js shows
// its inspections through ctx.inspections too, so every panel is this bundle's and the extension closes them.
// TransportError's class identity is dist/extension.js's (scripts/build.mjs), as in dist/remote.js.
export { InspectionPanels } from './vscode/inspectionRun/show.ts';
export { SshHostsProvider } from './vscode/sshHosts.ts';
export { analyzeCapture } from './vscode/commands/analyzeCapture.ts';
export { explainOomInEditor } from './vscode/commands/explainOom.ts';
export { inspectLocal } from './vscode/commands/inspectLocal.ts';
export { copyProbeScript } from './vscode/commands/probeScript.ts';
export { lintRenderedOverlay } from './vscode/commands/lintRenderedOverlay.ts';
