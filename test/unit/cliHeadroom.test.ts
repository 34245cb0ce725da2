// The CLI's --headroom on every command that prints a remedy (lint, inspect, analyze, explain-oom, fleet, agent): parsed
// one way, documented in each --help, and reaching the remedies. The commands run in process on a recording CliIo.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AGENT_USAGE, agentCommand } from '../../src/cli/agentCommand.ts';
import { headroomOf, UsageError } from '../../src/cli/args.ts';
import { FLEET_USAGE } from '../../src/cli/fleetCommand.ts';
import { INSPECT_USAGE } from '../../src/cli/inspectCommand.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { LINT_USAGE, lintCommand } from '../../src/cli/lintCommand.ts';
import { ANALYZE_USAGE, analyzeCommand, EXPLAIN_OOM_USAGE, explainOomCommand } from '../../src/cli/probeCommands.ts';
import { GiB, MiB, nodeCapture, STRIX_HALO } from './helpers/nodeCapture.ts';

const KERNEL_LOG = new URL('../fixtures/kernel-logs/istio-42734-syslog-task-in.log', import.meta.url);

function recording(stdin = ''): CliIo & { readonly out: string[]; readonly err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readStdin: () => Promise.resolve({ kind: 'read', bytes: new TextEncoder().encode(stdin) }),
    cwd: process.cwd(),
    version: 'test',
    docsDirectory: 'docs/rules',
  };
}

describe('--headroom', () => {
  test('a plain number of percent from 0 to 1000; anything else is a usage error', () => {
    assert.equal(headroomOf(undefined), undefined);
    assert.equal(headroomOf('25'), 25);
    assert.equal(headroomOf('12.5'), 12.5);
    assert.equal(headroomOf('0'), 0);
    assert.equal(headroomOf('1000'), 1000);
    for (const bad of ['', ' 25', '-5', '1001', '0x10', '1e2', '25%', 'abc', true] as const)
      assert.throws(() => headroomOf(bad), UsageError, String(bad));
  });

  test('every command that prints a remedy documents it in --help', () => {
    for (const [name, usage] of Object.entries({ LINT_USAGE, INSPECT_USAGE, ANALYZE_USAGE, EXPLAIN_OOM_USAGE, FLEET_USAGE, AGENT_USAGE }))
      assert.match(usage, /--headroom PERCENT/, name);
  });

  test('agent --headroom: refused as the other commands refuse it, before anything is started or bound', async () => {
    for (const bad of ['1001', '25%', '-5', ''])
      await assert.rejects(
        agentCommand(['--listen', '127.0.0.1:0', '--node-name', 'n1', '--headroom', bad], recording()),
        (error: unknown) => error instanceof UsageError && /--headroom must be a number from 0 to 1000/.test(error.message),
        bad,
      );
  });

  test('explain-oom --headroom 25: the new limit is 25 % over the 1 GiB the container hit', async () => {
    const io = recording(readFileSync(KERNEL_LOG, 'utf8'));
    assert.equal(await explainOomCommand(['-', '--headroom', '25'], io), 1);
    // 1 GiB × 1.25 = 1280 MiB.
    assert.match(io.out.join(''), /to at least 1280Mi \(25 % over the 1 GiB it hit\)/);
    const byDefault = recording(readFileSync(KERNEL_LOG, 'utf8'));
    await explainOomCommand(['-'], byDefault);
    // 1 GiB × 1.3 = 1331.2 MiB → 1332Mi.
    assert.match(byDefault.out.join(''), /to at least 1332Mi \(30 % over the 1 GiB it hit\)/);
  });

  test('analyze --headroom 25: 25 % over a 32 GiB true footprint', async () => {
    const capture = nodeCapture({
      kernel: '7.1.0-39-generic',
      memTotal: 128 * GiB,
      gpuActive: 40 * GiB,
      gpus: [STRIX_HALO],
      pods: [
        {
          uid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
          current: 2 * GiB,
          max: 8 * GiB,
          processes: [{ pid: 4242, comm: 'llama-server', fds: [{ fd: 7, client: '4181', gtt: 30 * GiB, vram: 256 * MiB }] }],
        },
      ],
    });
    const io = recording(capture);
    assert.equal(await analyzeCommand(['-', '--headroom=25', '--format', 'json'], io), 1);
    const report = JSON.parse(io.out.join('')) as { verdicts: { id: string; remedy: string }[] };
    const verdict = report.verdicts.find((candidate) => candidate.id === 'memory.pod-over-limit-in-reality');
    // 2 GiB + 30 GiB = 32 GiB; × 1.25 = 40 GiB.
    assert.match(verdict?.remedy ?? '', /at least 40Gi \(true footprint \+ 25 %\)/);
  });

  test('lint --headroom 25: the quick fix and the message add 25 %', async () => {
    const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 48Gi
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: server
      image: rocm/vllm:latest
      resources:
        limits:
          amd.com/gpu: 1
`;
    const io = recording(manifest);
    assert.equal(await lintCommand(['-', '--headroom', '25', '--format', 'json'], io), 1);
    const findings = JSON.parse(io.out.join('')) as { ruleId: string; message: string }[];
    // 48 GiB × 1.25 = 60 GiB.
    assert.match(findings.find((finding) => finding.ruleId === 'gpu-no-memory-limit')?.message ?? '', /60 GiB \(GPU 48 GiB \+ 25 %\)/);
    await assert.rejects(lintCommand(['-', '--headroom', 'lots'], recording(manifest)), UsageError);
  });
});
