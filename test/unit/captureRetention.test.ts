// What outlives a capture must not hold it: V8 keeps a sliced string's whole parent alive, and most strings of an
// analysis are slices of the capture (src/core/text/ownString.ts). Holders found: the agent's facts (label values,
// pod UIDs) and V8's last-match info (the subject of the last regular expression match), each keeping the last 7 MiB
// capture between cycles (bench/agent.mjs: heap after GC 14.9 -> 8.1 MiB once fixed); live sampling's points (a pod
// UID from a cgroupfs path), each keeping its own capture, 300 of them. These tests look in a heap snapshot for any
// string as large as a capture: deterministic, where a heap-size delta is MiB-noisy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapSnapshot } from 'node:v8';
import type { AgentOptions } from '../../src/agent/agent.ts';
import { Agent, exposedGarbageCollector } from '../../src/agent/agent.ts';
import type { ExecRequest, ExecResult, Transport } from '../../src/core/probe/transport.ts';
import { appendBounded, sampleFromCapture } from '../../src/core/inspectorPanel/sample.ts';
import type { SamplePoint } from '../../src/core/inspectorPanel/sample.ts';
import { captureText } from './helpers/captureText.ts';
import { manyPodsNode, nodeCapture } from './helpers/nodeCapture.ts';

/** What one read of a pipe gives node: the size of the pieces BytesTransport streams. */
const PIECE = 64 * 1024;

/** Answers every probe with one capture, kept as bytes (so the test itself holds no such string), under its nonce. */
class BytesTransport implements Transport {
  readonly target = 'bytes';
  readonly #bytes: Buffer;
  readonly #nonce: string;

  constructor(capture: string) {
    const found = /nonce=([0-9a-f]+) /.exec(capture)?.[1] ?? assert.fail('no nonce');
    this.#nonce = Buffer.from(found, 'latin1').toString('latin1'); // a copy: the match is a slice, holding the capture
    this.#bytes = Buffer.from(capture, 'utf8');
  }

  run(request: ExecRequest): Promise<ExecResult> {
    const nonce = /GPUMEM_NONCE='([0-9a-f]+)'/.exec(request.script)?.[1] ?? assert.fail('no nonce in the script');
    const onStdout = request.onStdout;
    if (!onStdout)
      return Promise.resolve({
        stdout: this.#bytes.toString('utf8').replaceAll(this.#nonce, nonce),
        stderr: '',
        exitCode: 0,
        truncated: false,
      });
    // As a pipe brings it: pieces of PIECE bytes, each its own string (the capture is ASCII), under the run's nonce (the
    // text made for that is garbage once the bytes are).
    const bytes = Buffer.from(this.#bytes.toString('utf8').replaceAll(this.#nonce, nonce), 'utf8');
    for (let at = 0; at < bytes.length; at += PIECE) onStdout(bytes.subarray(at, at + PIECE).toString('utf8'));
    return Promise.resolve({ stdout: '', stderr: '', exitCode: 0, truncated: false });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The heap's strings of at least `min` characters (a heap snapshot's string nodes, by self size): their first words. */
async function largeStrings(min: number, only?: RegExp): Promise<string[]> {
  let json = '';
  for await (const chunk of getHeapSnapshot()) json += String(chunk);
  const snapshot = JSON.parse(json) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  json = '';
  const {
    node_fields: fields,
    node_types: [types],
  } = snapshot.snapshot.meta;
  const width = fields.length;
  const type = fields.indexOf('type');
  const size = fields.indexOf('self_size');
  const name = fields.indexOf('name');
  const out: string[] = [];
  const nodes = snapshot.nodes;
  for (let i = 0; i < nodes.length; i += width) {
    // A sequential string's self size is its characters (one byte each here) plus a header.
    if (types[nodes[i + type] as number] !== 'string' || (nodes[i + size] as number) < min) continue;
    const text = String(snapshot.strings[nodes[i + name] as number]);
    if (only === undefined || only.test(text)) out.push(text.slice(0, 40));
  }
  return out;
}

/**
 * The large strings (not starting with `except`) still there in each of three snapshots taken a moment apart. A holder
 * that goes on its own is not state: under a loaded run (CI) one capture was once still held by a job of the process
 * finishing, and gone the moment after; what is kept stays in every snapshot.
 */
async function lastingLargeStrings(min: number, except?: string, only?: RegExp): Promise<string[]> {
  let kept: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    kept = (await largeStrings(min, only)).filter((start) => except === undefined || !start.startsWith(except));
    if (kept.length === 0) break;
  }
  return kept;
}

/** An agent on node strix-1 without API access, probing through `transport`. */
function testAgent(transport: Transport, options: Partial<AgentOptions> = {}): Agent {
  const view = {
    identities: new Map(),
    hamiQuotas: new Map(),
    api: { kind: 'unavailable', reason: 'no-credentials', detail: 'test' },
  } as const;
  return new Agent({
    nodeName: 'strix-1',
    version: 'test',
    transport,
    hostRoot: undefined,
    intervalMs: 30_000,
    probeTimeoutMs: 60_000,
    pods: () => view,
    log: () => {},
    ...options,
  });
}

test('after a cycle the agent holds no string as large as its capture', async () => {
  // A dmem region (a label longer than V8's shortest slice, 13 characters) as well as the pods.
  let capture: string | undefined = nodeCapture({ ...manyPodsNode(400), dmemCapacity: 'drm/0000:c5:00.0/vram0 536870912\n' });
  const length = capture.length;
  assert.ok(length > 500_000, `a large capture: ${length}`);
  const transport = new BytesTransport(capture);
  capture = undefined;
  const agent = testAgent(transport);
  for (let cycle = 0; cycle < 2; cycle++) {
    const outcome = await agent.runCycle();
    assert.equal(outcome.kind, 'ok', JSON.stringify(outcome));
  }
  const scrape = agent.metrics();
  assert.ok(scrape.text.includes('gpumem_node_dmem_capacity_bytes{node="strix-1",region="drm/0000:c5:00.0/vram0"} 536870912'));
  assert.ok(scrape.series > 400 * 3, 'the facts are there: pod series for 400 pods');
  // The exposition (the agent keeps the last one for the next scrape) is the only string of that size left.
  assert.deepEqual(await lastingLargeStrings(length / 2, '# HELP'), [], 'a string of the capture is still referenced');
});

test('the agent takes its capture as it streams in, and after a cycle holds none of the pieces', async () => {
  let capture: string | undefined = nodeCapture({ ...manyPodsNode(400), fdinfoBatched: true });
  assert.ok(capture.length > 8 * PIECE, `a capture of many pieces: ${capture.length}`);
  let streamed = 0;
  const bytes = new BytesTransport(capture);
  capture = undefined;
  const transport: Transport = {
    target: 'streamed bytes',
    run: (request) => {
      assert.ok(request.onStdout, 'the agent asks for its output as it arrives');
      streamed++;
      return bytes.run(request);
    },
    close: () => Promise.resolve(),
  };
  const agent = testAgent(transport);
  for (let cycle = 0; cycle < 2; cycle++) assert.equal((await agent.runCycle()).kind, 'ok');
  assert.equal(streamed, 2);
  assert.ok(agent.metrics().series > 400 * 3, 'the facts are there: pod series for 400 pods');
  // Strings of half a piece or more that hold capture text (module sources are as large): one kept piece is found here.
  const captureLike = /@@gpumem:|==> \d+\/|drm-client-id|kubepods/;
  assert.deepEqual(await lastingLargeStrings(PIECE / 2, '# HELP', captureLike), [], 'a piece of the capture is still referenced');
});

test('the agent collects garbage after every cycle, ok or failed, when it is given a collector', async () => {
  let collections = 0;
  let fail = false;
  const capture = new BytesTransport(nodeCapture(manyPodsNode(3)));
  const transport: Transport = {
    target: 'sometimes failing',
    run: (request) => (fail ? Promise.resolve({ stdout: 'garbled', stderr: '', exitCode: 0, truncated: false }) : capture.run(request)),
    close: () => Promise.resolve(),
  };
  const agent = testAgent(transport, { collectGarbage: () => collections++ });
  assert.equal((await agent.runCycle()).kind, 'ok');
  fail = true;
  assert.equal((await agent.runCycle()).kind, 'failed');
  assert.equal(collections, 2);
});

test("exposedGarbageCollector: node's gc when exposed (--expose-gc), nothing otherwise", () => {
  const global = globalThis as { gc?: unknown };
  const saved = global.gc;
  try {
    delete global.gc;
    assert.deepEqual(exposedGarbageCollector(), {});
    const calls: unknown[] = [];
    global.gc = (options: unknown) => calls.push(options);
    exposedGarbageCollector().collectGarbage?.();
    // The memory-reducing flavour: pages freed go back to the system at once.
    assert.deepEqual(calls, [{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
  } finally {
    if (saved === undefined) delete global.gc;
    else global.gc = saved;
  }
});

test("live sampling's history holds none of the captures its points came from", async () => {
  // A cgroupfs node (pod<uid> with dashes): the pod UID is then read straight out of the capture, a slice of it. Each
  // capture is made large (an extra section) so that one kept would be found.
  const history: SamplePoint[] = [];
  let length = 0;
  for (let i = 0; i < 10; i++) {
    const uid = `0a1b2c3d-1111-4222-8333-${String(i).padStart(12, '0')}`;
    let text: string | undefined = captureText(
      'node',
      {
        meta: `now=${1767225600 + i}\n`,
        proc: { files: [['/proc/meminfo', 'MemTotal: 1000 kB\nMemAvailable: 500 kB\n']] },
        'cgroup.kubepods': {
          files: [
            ['/sys/fs/cgroup/kubepods/burstable/memory.current', '8192\n'],
            [`/sys/fs/cgroup/kubepods/burstable/pod${uid}/memory.current`, `${4096 + i}\n`],
          ],
        },
        padding: `${String(i).repeat(300_000)}\n`,
      },
      { done: i % 2 === 0 }, // half of them cut off, so the points carry the capture's problems too
    );
    length = text.length;
    appendBounded(history, sampleFromCapture(text, i));
    text = undefined;
  }
  assert.deepEqual(
    history.map((point) => point.pods.map((pod) => pod.podUid.slice(-2))),
    Array.from({ length: 10 }, (_, i) => [String(i).padStart(2, '0')]),
  );
  assert.ok(history.some((point) => point.problems.length > 0));
  /(?:)/.exec(''); // the last match's subject is not the history's (the inspector's next sample lets it go too)
  assert.deepEqual(await lastingLargeStrings(length / 2), [], 'a capture is still referenced by the history');
});
