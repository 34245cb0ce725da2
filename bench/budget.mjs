// Issue 17 class 5: what large and broken YAML costs the lint. `node bench/budget.mjs` (pinned Node 22).
// Measured 2026-12-01 on the shared 2-core dev machine, before the budget (commit d895827):
//   1 MB comma flow line `a: [,,,…]`: parseAllDocuments ~13 µs per empty entry (an error object each, stack
//   trace included): 160k commas 2.0 s, so 1 MB ~13 s plus the lint; linear, but a large constant.
//   `{a: [1,1,…]}` (valid, 40k items): 0.7 s, linear.
//   One pod of n GPU containers: 5k 1.8 s, 20k 5.1 s: linear (~0.25 ms per container), so 150k ~40 s.
// After: the comma line is screened before parsing (src/core/manifest/flowScreen.ts) and reported as
// analysis-budget in linear time; many containers stay linear under the lint's work budget.
// One pod of 150k containers (16.2 MB), measured 2026-12-02 by bench/lintLarge.mjs (a child process each) on the
// same machine under a 1-min load average of ~16 (times ~5× those of an idle machine, so compare the ratios):
//   before (commit 7732ccd): lint 164.9 s, peak RSS 1785 MiB; bare parse 97.3 s, peak RSS 1380 MiB: ratio 0.59.
//   with a 3 MiB per-document cap (2026-12-02 to 2026-12-07): skipped before parsing, 0.64 s, peak RSS 155 MiB.
//   now: the size limit (`--max-file-size`, 16 MiB by default) is the only cap, since the per-document cap also
//   skipped every `kubectl get pods -A -o yaml` List above 3 MiB; this file is under it, so it is parsed and
//   costs about what the bare parse costs. Lower --max-file-size to refuse such files unparsed.
import { lintText } from '../src/core/lint.ts';
import { formatLargeLint, manyContainerPod as pod, runLargeLintBench } from './lintLarge.mjs';

const cases = [
  ['comma line 1 MB', `a: [${','.repeat(1_000_000)}]\n`],
  ['flow map of empties 1 MB', `{a: [1${',,'.repeat(500_000)}]}\n`],
  ['valid flow list 40k', `{a: [${'1,'.repeat(40_000)}]}\n`],
  ['pod of 5k containers', pod(5_000)],
  ['pod of 20k containers', pod(20_000)],
];
for (const [name, text] of cases) {
  const start = performance.now();
  const result = lintText(text);
  const ms = performance.now() - start;
  const ids = [...new Set(result.findings.map((finding) => finding.ruleId))].join(',') || '-';
  console.log(`${name.padEnd(28)} ${(text.length / 1e6).toFixed(2).padStart(6)} MB ${ms.toFixed(0).padStart(7)} ms  ${ids}`);
}
console.log(formatLargeLint(runLargeLintBench()));
