// A kubeconfig for the simulator's users: one context per user, client-certificate or token credentials.
import { stringify } from 'yaml';
import type { SimulatorUser } from './fixtures.ts';
import type { Json } from './objects.ts';
import type { CertPair } from './pki.ts';
import { DEMO_CONTEXT } from './types.ts';
import type { KubeconfigOptions } from './types.ts';

export function kubeconfigFor(users: ReadonlyMap<string, SimulatorUser>, certs: ReadonlyMap<string, CertPair>, url: string, ca: string) {
  return (user: string | readonly string[], kcOptions: KubeconfigOptions = {}): string => {
    const names = typeof user === 'string' ? [user] : [...user];
    if (names.length === 0) throw new Error('kubeconfig: no user');
    const contexts: Json[] = [];
    const userEntries: Json[] = [];
    names.forEach((name, i) => {
      const u = users.get(name);
      if (!u) throw new Error(`kubeconfig: no simulator user "${name}" (users: ${[...users.keys()].join(', ')})`);
      const cert = certs.get(name);
      const auth = kcOptions.auth ?? (cert ? 'cert' : 'token');
      let credentials: Json;
      if (auth === 'cert') {
        if (!cert) throw new Error(`kubeconfig: user "${name}" has no client certificate`);
        credentials = {
          'client-certificate-data': Buffer.from(cert.cert).toString('base64'),
          'client-key-data': Buffer.from(cert.key).toString('base64'),
        };
      } else {
        if (!u.token) throw new Error(`kubeconfig: user "${name}" has no token`);
        credentials = { token: u.token };
      }
      const base = kcOptions.context ?? DEMO_CONTEXT;
      const contextName = i === 0 ? base : `${base}-${name}`;
      userEntries.push({ name: `${name}@${DEMO_CONTEXT}`, user: credentials });
      contexts.push({
        name: contextName,
        context: {
          cluster: DEMO_CONTEXT,
          user: `${name}@${DEMO_CONTEXT}`,
          ...(kcOptions.namespace ? { namespace: kcOptions.namespace } : {}),
        },
      });
    });
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      preferences: {},
      clusters: [{ name: DEMO_CONTEXT, cluster: { server: url, 'certificate-authority-data': Buffer.from(ca).toString('base64') } }],
      users: userEntries,
      contexts,
      'current-context': contexts[0]?.['name'],
    });
  };
}
