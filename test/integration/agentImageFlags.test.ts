// The node options the agent's image starts it with (deploy/agent/Dockerfile's ENTRYPOINT, IMAGE_NODE_FLAGS) keep
// what they are there for: with V8's background optimizing compiler, a cycle's capture was often still held after
// the collection the agent runs at the end of each cycle, until the next cycle, so the agent's peak held two captures
// (bench/agent.mjs: max RSS 121 -> 100 MiB once the image passed --no-concurrent-recompilation). The agent runs in a
// child process with those options and the DaemonSet's --expose-gc (test/helpers/agentCaptureLifetime.ts), which
// reports V8's large-object space after each cycle. Without the flag this test fails: from the fifth cycle on, most
// leave one capture (sometimes two) behind on this machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { IMAGE_NODE_FLAGS } from '../helpers/agentProcess.ts';

const CHILD = fileURLToPath(new URL('../helpers/agentCaptureLifetime.ts', import.meta.url));

test("with the image's node options, no cycle's capture outlives the cycle's collection", () => {
  const run = spawnSync(process.execPath, [...IMAGE_NODE_FLAGS, '--expose-gc', CHILD], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, run.stderr);
  const { captureBytes, largeObjectBytes } = JSON.parse(run.stdout) as { captureBytes: number; largeObjectBytes: number[] };
  assert.ok(captureBytes > 100_000, `a capture large enough to see: ${captureBytes} bytes`);
  assert.equal(largeObjectBytes.length, 12);
  const least = Math.min(...largeObjectBytes);
  const held = largeObjectBytes.map((bytes) => Math.round((bytes - least) / captureBytes));
  assert.deepEqual(
    held,
    held.map(() => 0),
    `captures still held after each cycle (in capture sizes above the least): ${held.join(' ')}`,
  );
});
