// The issue #17 case: one pod of 150,000 GPU containers (16 MB of YAML), linted and, apart, parsed bare with
// yaml.parseAllDocuments, each in its own child process so that its peak memory is its own. Reported as the
// lint's throughput ratio against the bare parse of the same file (the file is under the 16 MiB size limit of
// src/core/manifest/documentScreen.ts, so the lint parses it too and the ratio is below 1),
// with the peak RSS and the heap in use when each finished. Used by `npm run bench` and bench/budget.mjs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { lintText } from '../src/core/lint.ts';

export const LARGE_POD_CONTAINERS = 150_000;

/** One pod of `containers` GPU containers, each with a memory limit (so a clean lint has no findings). */
export function manyContainerPod(containers) {
  const parts = ['apiVersion: v1\nkind: Pod\nmetadata:\n  name: many\nspec:\n  containers:\n'];
  for (let i = 0; i < containers; i++)
    parts.push(`  - name: c${i}\n    image: busybox\n    resources:\n      limits:\n        amd.com/gpu: 1\n        memory: 1Gi\n`);
  return parts.join('');
}

function measureInChild(what, containers) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', what, String(containers)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

/** Lint and bare parse of the same many-container pod, each in a fresh process. */
export function runLargeLintBench(containers = LARGE_POD_CONTAINERS) {
  const lint = measureInChild('lint', containers);
  const parse = measureInChild('parse', containers);
  return { containers, megabytes: lint.megabytes, lint, parse, ratio: parse.ms / lint.ms };
}

export function formatLargeLint(result) {
  const row = (name, run) =>
    `  ${name.padEnd(6)} ${run.ms.toFixed(0).padStart(7)} ms  peak RSS ${run.peakRssMiB.toFixed(0).padStart(5)} MiB  heap used ${run.heapUsedMiB.toFixed(0).padStart(5)} MiB${run.findings ? `  ${run.findings}` : ''}`;
  return [
    `Pod of ${result.containers} containers (${result.megabytes.toFixed(1)} MB): lint at ${result.ratio.toFixed(2)}× of the bare parse of the same file`,
    row('lint', result.lint),
    row('parse', result.parse),
  ].join('\n');
}

if (process.argv[2] === '--child') {
  const what = process.argv[3];
  const text = manyContainerPod(Number(process.argv[4]));
  const start = performance.now();
  let findings = '';
  if (what === 'lint') {
    const counts = new Map();
    for (const finding of lintText(text).findings) counts.set(finding.ruleId, (counts.get(finding.ruleId) ?? 0) + 1);
    findings = [...counts].map(([id, count]) => `${id}×${count}`).join(',') || '-';
  } else parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
  const ms = performance.now() - start;
  const heapUsedMiB = process.memoryUsage().heapUsed / 1024 / 1024;
  // maxRSS is in KiB; it includes the generated text (~32 MB as UTF-16) in both children alike.
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ ms, megabytes: text.length / 1e6, heapUsedMiB, peakRssMiB, findings }));
}
