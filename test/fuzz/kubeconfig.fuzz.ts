// Kubeconfig loading, its pure part (src/kube/kubeconfig.ts parseKubeconfigText + mergeKubeconfigs), on mutated
// kubeconfigs in the shape kubectl writes (https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/).
// parseKubeconfigText's contract: it throws when the text is not YAML (the yaml library's YAMLParseError, e.g.
// duplicate keys), not a mapping or nested deeper than any kubeconfig, which loadKubeconfigs turns into "not a kubeconfig (<first line>)"
// and goes
// on with the other files; any other exception (a TypeError from a strange shape) is a defect.
import { mergeKubeconfigs, parseKubeconfigText } from '../../src/kube/kubeconfig.ts';
import { fuzzTarget } from './harness.ts';

const KUBECONFIGS = [
  `apiVersion: v1
kind: Config
current-context: strix
preferences: {}
clusters:
- name: strix
  cluster:
    server: https://192.0.2.10:6443
    certificate-authority: ca.crt
- name: hami
  cluster:
    server: https://hami.example:6443
    insecure-skip-tls-verify: true
    proxy-url: http://proxy.example:3128
users:
- name: admin
  user:
    client-certificate: admin.crt
    client-key: admin.key
- name: oidc
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/kubelogin
      args: [get-token, --oidc-issuer-url=https://issuer.example]
      interactiveMode: IfAvailable
- name: token
  user:
    token-file: token
contexts:
- name: strix
  context: {cluster: strix, user: admin, namespace: ml}
- name: hami
  context:
    cluster: hami
    user: oidc
`,
  'apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\ncurrent-context: ""\n',
];

const isContractError = (error: unknown) =>
  error instanceof Error &&
  (/^the file (?:is not a YAML mapping|nests deeper than)/.test(error.message) || error.name === 'YAMLParseError');

fuzzTarget({
  name: 'kubeconfig.parseKubeconfigText+mergeKubeconfigs',
  corpus: KUBECONFIGS,
  nest: 'yaml',
  run: (input) => {
    const { parsed, problems } = parseKubeconfigText(input, '/home/ana/.kube/config');
    const second = parseKubeconfigText(KUBECONFIGS[1] ?? '', '/home/ana/.kube/other');
    return { problems, merged: mergeKubeconfigs([second.parsed, parsed]) };
  },
  allowedError: isContractError,
  growth: [
    {
      label: 'many contexts',
      make: (n) =>
        `${KUBECONFIGS[0] ?? ''}${Array.from({ length: Math.ceil(n / 60) }, (_, i) => `- name: c${i}\n  context: {cluster: strix, user: admin}\n`).join('')}`,
    },
  ],
});
