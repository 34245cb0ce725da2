// How the editor shows live mode, as data: the status-bar item of each state (context, source, age, stale and failed
// said in words), where a container's live CodeLens and pod hover sit (its own `resources:` block, found by
// indentation in multi-document and flow-style files), the quick fix's source comment, and gpumem.live.* parsed with
// its defaults written out here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { liveAnchor, liveStatus, fixComment } from '../../src/core/live/livePresentation.ts';
import { DEFAULT_STALE_AFTER_MS } from '../../src/core/live/liveFindings.ts';
import { LIVE_STALE_AFTER_MS, parseLiveSettings } from '../../src/core/live/liveSettings.ts';

const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);
const MIN = 60_000;

const TWO_CONTAINERS = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  template:
    spec:
      containers:
        - name: server
          image: vllm
          # a comment at a shallower indent does not end the container
          resources:
            limits:
              memory: 56Gi

            requests:
              memory: 56Gi
          env: []
        - name: sidecar
          image: busybox
        - {name: flow, resources: {limits: {memory: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: only
    resources: {}
`;

function offsetOf(text: string, needle: string, from = 0): number {
  const at = text.indexOf(needle, from);
  assert.ok(at >= 0, needle);
  return at;
}

test('the live lens of a container sits on its resources: line, and the pod hover covers that block to its last line', () => {
  const start = offsetOf(TWO_CONTAINERS, 'name: server') + 'name: '.length;
  const anchor = liveAnchor(TWO_CONTAINERS, start);
  const resources = offsetOf(TWO_CONTAINERS, 'resources:');
  assert.equal(anchor.lensOffset, resources);
  const block = TWO_CONTAINERS.slice(anchor.resources?.start, anchor.resources?.end);
  assert.equal(block, 'resources:\n            limits:\n              memory: 56Gi\n\n            requests:\n              memory: 56Gi');
});

test('name need not be the first key: the container is found from its - line, and resources before name count', () => {
  const text =
    'containers:\n  - resources:\n      limits: {memory: 1Gi}\n    image: x\n    name: first\n  - image: y\n    name: second\n    resources: {}\n';
  const first = liveAnchor(text, offsetOf(text, 'first'));
  assert.equal(first.lensOffset, offsetOf(text, 'resources:'));
  assert.equal(text.slice(first.resources?.start, first.resources?.end), 'resources:\n      limits: {memory: 1Gi}');
  const second = liveAnchor(text, offsetOf(text, 'second'));
  assert.equal(second.lensOffset, offsetOf(text, 'resources: {}'));
});

test('a container without resources gets its lens on its second line; a flow-style one on its own line', () => {
  const sidecar = offsetOf(TWO_CONTAINERS, 'name: sidecar') + 'name: '.length;
  assert.deepEqual(liveAnchor(TWO_CONTAINERS, sidecar), { lensOffset: offsetOf(TWO_CONTAINERS, 'image: busybox'), resources: undefined });
  const flow = offsetOf(TWO_CONTAINERS, 'name: flow') + 'name: '.length;
  assert.deepEqual(liveAnchor(TWO_CONTAINERS, flow), { lensOffset: flow, resources: undefined });
});

test("the second document's container (sequence not indented under its key) finds its own resources, not the first one's", () => {
  const only = offsetOf(TWO_CONTAINERS, 'name: only') + 'name: '.length;
  const anchor = liveAnchor(TWO_CONTAINERS, only);
  assert.equal(anchor.lensOffset, offsetOf(TWO_CONTAINERS, 'resources: {}'));
  assert.equal(TWO_CONTAINERS.slice(anchor.resources?.start, anchor.resources?.end), 'resources: {}');
});

test('the status bar says off, reading, ready with the source and age, stale past the limit, and failed with the reason', () => {
  const stale = 15 * MIN;
  assert.equal(liveStatus({ kind: 'off' }, NOW, stale).text, '$(circle-slash) gpumem: live off');
  assert.equal(liveStatus({ kind: 'reading', context: 'prod-eu' }, NOW, stale).text, '$(sync~spin) gpumem: live · prod-eu');
  const ready = {
    kind: 'ready',
    context: 'prod-eu',
    fetchedAtMs: NOW - 2 * MIN,
    workloads: 3,
    source: 'Prometheus monitoring/prometheus-k8s',
  } as const;
  const fresh = liveStatus(ready, NOW, stale);
  assert.equal(fresh.text, '$(pulse) gpumem: live · prod-eu');
  assert.equal(fresh.tone, 'normal');
  assert.match(fresh.tooltip, /^3 workloads of prod-eu, from Prometheus monitoring\/prometheus-k8s, read 2 min ago\. Click/);
  const old = liveStatus({ ...ready, fetchedAtMs: NOW - 20 * MIN }, NOW, stale);
  assert.equal(old.text, '$(history) gpumem: live · prod-eu (stale)');
  assert.equal(old.tone, 'warning');
  assert.match(old.tooltip, /read 20 min ago \(stale: the next read is overdue\)/);
  const failed = liveStatus({ kind: 'failed', context: 'prod-eu', reason: 'connect ECONNREFUSED 127.0.0.1:6443' }, NOW, stale);
  assert.equal(failed.text, '$(warning) gpumem: live · prod-eu');
  assert.match(failed.tooltip, /^Reading prod-eu failed, so no live findings are shown: connect ECONNREFUSED 127\.0\.0\.1:6443\./);
  assert.match(liveStatus({ kind: 'untrusted', context: 'prod-eu' }, NOW, stale).tooltip, /only in a trusted workspace/);
});

test('the quick fix comment names the context, the source and the window up to the read, in UTC', () => {
  assert.equal(
    fixComment('prod-eu', 'Prometheus monitoring/prometheus-k8s', '7d', NOW - 5 * MIN),
    'gpumem: resources set from what the pods used in prod-eu (Prometheus monitoring/prometheus-k8s, 7d to 2026-12-07 11:55 UTC)',
  );
});

test('gpumem.live settings: 7d, every 300 s, stale after 15 min, comment on; clamped and reported when invalid', () => {
  const defaults = parseLiveSettings(() => undefined);
  assert.deepEqual(defaults, {
    window: { label: '7d', seconds: 604_800 },
    refreshMs: 300_000,
    staleAfterMs: 900_000,
    commentOnFix: true,
    problems: [],
  });
  const values: Record<string, unknown> = {
    'gpumem.live.window': '24h',
    'gpumem.live.refreshSeconds': 600,
    'gpumem.live.commentOnFix': false,
  };
  const set = parseLiveSettings((key) => values[key]);
  assert.deepEqual(set, {
    window: { label: '24h', seconds: 86_400 },
    refreshMs: 600_000,
    staleAfterMs: 1_800_000,
    commentOnFix: false,
    problems: [],
  });
  const bad = parseLiveSettings((key) => ({ 'gpumem.live.window': 'a week', 'gpumem.live.refreshSeconds': 1 })[key]);
  assert.equal(bad.window.label, '7d');
  assert.equal(bad.refreshMs, 30_000, 'at least 30 s between reads');
  assert.deepEqual(bad.problems, ['gpumem.live.window: "a week" is not a window from 5m to 90d such as 24h or 7d (using 7d)']);
  assert.equal(parseLiveSettings((key) => (key === 'gpumem.live.refreshSeconds' ? 0 : undefined)).refreshMs, 0, '0: on demand only');
});

test("the settings' stale limit is the one judgeLive applies by default", () => {
  assert.equal(LIVE_STALE_AFTER_MS, DEFAULT_STALE_AFTER_MS);
});
