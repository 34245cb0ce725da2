// gpu-no-memory-limit on an unrendered Helm chart whose limits block holds a template action: the memory limit is
// unknown (the values may set it), not missing. The chart is the shape Helm's own `helm create` scaffold and GPU
// charts use, `{{- toYaml … | nindent N }}` under a key, here under `limits:` beside a literal `nvidia.com/gpu: 1`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_CONFIG } from '../../src/core/config.ts';
import { lint } from './helpers/lint.ts';

const chart = (underLimits: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "vllm.fullname" . }}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          resources:
            limits:
              nvidia.com/gpu: 1
${underLimits ? '              {{- toYaml .Values.extraLimits | nindent 14 }}' : '          env:\n            {{- toYaml .Values.env | nindent 12 }}'}
`;

const noLimit = (text: string) => lint(text).findings.filter((finding) => finding.ruleId === 'gpu-no-memory-limit');

test('{{ toYaml }} inside limits: the memory limit is unknown (information naming the action), not missing', () => {
  const [finding, ...more] = noLimit(chart(true));
  assert.equal(more.length, 0);
  assert.equal(finding?.severity, 'info');
  assert.match(
    finding?.message ?? '',
    /template action inside resources\.limits \(\{\{- toYaml \.Values\.extraLimits \| nindent 14 \}\}\): unknown until the chart is rendered/,
  );
});

test("the unknown limit stays a hint whatever the rule's severity setting, which still applies to a missing one", () => {
  const severity = (underLimits: boolean) =>
    lint(chart(underLimits), { ...DEFAULT_CONFIG, rules: { 'gpu-no-memory-limit': 'error' } })
      .findings.filter((finding) => finding.ruleId === 'gpu-no-memory-limit')
      .map((finding) => finding.severity);
  assert.deepEqual(severity(true), ['info']);
  assert.deepEqual(severity(false), ['error']);
});

test('a template action elsewhere in the container (env) does not make the limit unknown', () => {
  assert.equal(noLimit(chart(false))[0]?.severity, 'warning');
});
