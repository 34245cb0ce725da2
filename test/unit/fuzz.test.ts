// The fuzz suite's short, deterministic slice (test/fuzz/README.md): every target of test/fuzz/*.fuzz.ts with
// a fixed seed, few runs and small sizes, so `npm test` catches regressions; `npm run fuzz` runs the same
// properties long with a random seed.
import '../fuzz/agent.fuzz.ts';
import '../fuzz/capture.fuzz.ts';
import '../fuzz/clusterReport.fuzz.ts';
import '../fuzz/fleet.fuzz.ts';
import '../fuzz/hamiTest.fuzz.ts';
import '../fuzz/kernelLog.fuzz.ts';
import '../fuzz/kfd.fuzz.ts';
import '../fuzz/kubeconfig.fuzz.ts';
import '../fuzz/lint.fuzz.ts';
import '../fuzz/parsers.fuzz.ts';
import '../fuzz/prometheus.fuzz.ts';
import '../fuzz/protocol.fuzz.ts';
import '../fuzz/quantity.fuzz.ts';
import '../fuzz/redact.fuzz.ts';
import '../fuzz/rightsizing.fuzz.ts';
import '../fuzz/specialFiles.fuzz.ts';
import '../fuzz/ssh.fuzz.ts';
