// Run as a child process by test/integration/agentImageFlags.test.ts, with the node options under test and
// --expose-gc: an Agent's cycles on a large node capture. After each cycle (whose collection the agent runs itself),
// the next macrotask and one more full collection, it reads V8's large-object space, where a capture (megabytes, one
// string) lives: a capture still held after its cycle shows as a capture's size above the least seen. (A string cannot
// be a FinalizationRegistry's target, and a heap snapshot's own collection frees what is looked for.)
// Prints {"captureBytes":N,"largeObjectBytes":[…]} on stdout.
import { getHeapSpaceStatistics } from 'node:v8';
import { Agent, exposedGarbageCollector } from '../../src/agent/agent.ts';
import type { ExecRequest, ExecResult, Transport } from '../../src/core/probe/transport.ts';
import { manyPodsNode, nodeCapture } from '../unit/helpers/nodeCapture.ts';

const CYCLES = 12;

/** Answers each probe with the capture, made afresh from bytes under the script's nonce, as a pipe's text would be. */
class LargeCaptureTransport implements Transport {
  readonly target = 'large capture';
  readonly #bytes: Buffer;
  readonly #nonce: string;

  constructor(capture: string) {
    const found = /nonce=([0-9a-f]+) /.exec(capture)?.[1];
    if (!found) throw new Error('no nonce in the capture');
    this.#nonce = Buffer.from(found, 'latin1').toString('latin1');
    this.#bytes = Buffer.from(capture, 'utf8');
  }

  run(request: ExecRequest): Promise<ExecResult> {
    const nonce = /GPUMEM_NONCE='([0-9a-f]+)'/.exec(request.script)?.[1];
    if (!nonce) throw new Error('no nonce in the script');
    const stdout = this.#bytes.toString('utf8').replaceAll(this.#nonce, nonce);
    return Promise.resolve({ stdout, stderr: '', exitCode: 0, truncated: false });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const macrotask = () => new Promise((resolve) => setImmediate(resolve));
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const largeObjectBytes = () => getHeapSpaceStatistics().find((space) => space.space_name === 'large_object_space')?.space_used_size ?? 0;
const capture = nodeCapture(manyPodsNode(120));
const captureBytes = capture.length;
const agent = new Agent({
  nodeName: 'strix-1',
  version: 'test',
  transport: new LargeCaptureTransport(capture),
  hostRoot: undefined,
  intervalMs: 30_000,
  probeTimeoutMs: 60_000,
  pods: () => ({ identities: new Map(), hamiQuotas: new Map(), api: { kind: 'unavailable', reason: 'no-credentials', detail: 'test' } }),
  log: () => {},
  ...exposedGarbageCollector(),
});
const sizes: number[] = [];
for (let cycle = 1; cycle <= CYCLES; cycle++) {
  const outcome = await agent.runCycle();
  if (outcome.kind !== 'ok') throw new Error(`cycle ${cycle} failed: ${outcome.reason} ${outcome.detail}`);
  await macrotask();
  gc();
  sizes.push(largeObjectBytes());
}
process.stdout.write(JSON.stringify({ captureBytes, largeObjectBytes: sizes }));
