// Which of a Node's addresses "Inspect Node" dials when gpumem.kubernetes.nodeProbe is "ssh": the first
// InternalIP, else the first ExternalIP, else the Hostname, as `kubectl get node -o wide` ranks them and as a
// node is usually reached from inside its network. The address becomes an SSH destination, so it is turned
// into one that cannot be read as `user@host:port` by accident (an IPv6 address goes in brackets); the user's
// ~/.ssh/config still applies to it (`Host 10.0.4.*`, `Host *.internal`).

/** Node address types in the order they are tried. */
export const SSH_ADDRESS_TYPES = ['InternalIP', 'ExternalIP', 'Hostname'] as const;
export type SshAddressType = (typeof SSH_ADDRESS_TYPES)[number];

export type NodeSshAddress =
  | {
      readonly kind: 'found';
      readonly type: SshAddressType;
      /** The address as the node reports it. */
      readonly address: string;
      /** The SSH destination for it: the address, bracketed when it is an IPv6 literal. */
      readonly destination: string;
    }
  | { readonly kind: 'none'; readonly reason: string };

/** Characters an IP address or a DNS name may hold; anything else is not dialled. */
const ADDRESS = /^[A-Za-z0-9._:-]+$/;

export function nodeSshAddress(node: {
  readonly name: string;
  readonly addresses: readonly { readonly type: string; readonly address: string }[];
}): NodeSshAddress {
  const rejected: string[] = [];
  for (const type of SSH_ADDRESS_TYPES) {
    for (const entry of node.addresses) {
      if (entry.type !== type) continue;
      const address = entry.address.trim();
      if (address === '') continue;
      if (!ADDRESS.test(address) || address.startsWith('-')) {
        rejected.push(`${type} ${JSON.stringify(address.slice(0, 80))}`);
        continue;
      }
      return { kind: 'found', type, address, destination: address.includes(':') ? `[${address}]` : address };
    }
  }
  const base = `node ${node.name} reports no InternalIP, ExternalIP or Hostname address to reach over SSH`;
  return { kind: 'none', reason: rejected.length > 0 ? `${base} (not an address: ${rejected.join(', ')})` : base };
}
