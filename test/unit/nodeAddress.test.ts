// src/core/kube/nodeAddress.ts: which Node address "Inspect Node" dials over SSH.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeSshAddress } from '../../src/core/kube/nodeAddress.ts';
import { summarizeNode } from '../../src/core/kube/nodes.ts';

const node = (addresses: { type: string; address: string }[]) => ({ name: 'gpu-1', addresses });

test('InternalIP first, then ExternalIP, then Hostname, whatever the order the kubelet wrote them in', () => {
  const all = node([
    { type: 'Hostname', address: 'gpu-1' },
    { type: 'ExternalIP', address: '203.0.113.9' },
    { type: 'InternalDNS', address: 'ip-10-0-4-21.ec2.internal' },
    { type: 'InternalIP', address: '10.0.4.21' },
  ]);
  assert.deepEqual(nodeSshAddress(all), { kind: 'found', type: 'InternalIP', address: '10.0.4.21', destination: '10.0.4.21' });
  assert.deepEqual(
    nodeSshAddress(
      node([
        { type: 'Hostname', address: 'gpu-1' },
        { type: 'ExternalIP', address: '203.0.113.9' },
      ]),
    ),
    { kind: 'found', type: 'ExternalIP', address: '203.0.113.9', destination: '203.0.113.9' },
  );
  assert.deepEqual(nodeSshAddress(node([{ type: 'Hostname', address: 'gpu-1.lab.example' }])), {
    kind: 'found',
    type: 'Hostname',
    address: 'gpu-1.lab.example',
    destination: 'gpu-1.lab.example',
  });
});

test('an IPv6 InternalIP becomes a bracketed destination, so its colons are not read as a port', () => {
  assert.deepEqual(nodeSshAddress(node([{ type: 'InternalIP', address: 'fd00:10:244::5' }])), {
    kind: 'found',
    type: 'InternalIP',
    address: 'fd00:10:244::5',
    destination: '[fd00:10:244::5]',
  });
});

test('no usable address: a reason naming the node; values that are no address are named and skipped', () => {
  assert.deepEqual(nodeSshAddress(node([])), {
    kind: 'none',
    reason: 'node gpu-1 reports no InternalIP, ExternalIP or Hostname address to reach over SSH',
  });
  assert.deepEqual(
    nodeSshAddress(
      node([
        { type: 'InternalDNS', address: 'x.internal' },
        { type: 'InternalIP', address: '  ' },
      ]),
    ).kind,
    'none',
  );
  const hostile = nodeSshAddress(
    node([
      { type: 'InternalIP', address: '-oProxyCommand=sh' },
      { type: 'ExternalIP', address: 'root@10.0.0.1' },
      { type: 'Hostname', address: 'ok-host' },
    ]),
  );
  assert.deepEqual(hostile, { kind: 'found', type: 'Hostname', address: 'ok-host', destination: 'ok-host' });
  const none = nodeSshAddress(node([{ type: 'InternalIP', address: 'a b' }]));
  assert.equal(none.kind, 'none');
  assert.match(none.kind === 'none' ? none.reason : '', /\(not an address: InternalIP "a b"\)$/);
});

test('works on a summarized Node object as the Clusters view holds it', () => {
  const summary = summarizeNode({
    metadata: { name: 'strix-node-1' },
    status: {
      addresses: [
        { type: 'Hostname', address: 'strix-node-1' },
        { type: 'InternalIP', address: '10.0.4.21' },
      ],
    },
  });
  assert.deepEqual(nodeSshAddress(summary), { kind: 'found', type: 'InternalIP', address: '10.0.4.21', destination: '10.0.4.21' });
});
