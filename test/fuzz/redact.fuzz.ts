// The HAMi issue bundle's redactor (src/core/text/redact.ts) and assembly (src/core/report/hamiIssueReport.ts)
// on mutated input: the simulator's HAMi pod logs and lines holding every credential shape the redactor
// promises, and the HAMi fixture objects (test/simulator/fixtures/20-hami.yaml) as the pod, node and HAMi
// pods. Properties beyond the harness's: redacting the redactor's output again changes nothing (no half of a
// secret is left looking like one), and the count is a finite, non-negative whole number.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { ComponentPod } from '../../src/core/report/hamiIssueInput.ts';
import { nodeCaptureFacts } from '../../src/core/report/hamiIssueNode.ts';
import { hamiIssueMarkdown } from '../../src/core/report/hamiIssueReport.ts';
import { redactSecrets } from '../../src/core/text/redact.ts';
import { fuzzTarget, renderViolations } from './harness.ts';
import type { Violation } from './harness.ts';

function fixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../simulator/fixtures/${name}`, import.meta.url)), 'utf8');
}

const LOGS = parseAllDocuments(fixture('25-hami-logs.yaml')).map((doc) => String((doc.toJS() as { spec: { text: string } }).spec.text));
const SECRETS = [
  'password=hunter2 user=bob\n{"client_secret": "s3cr3t"}\nDB_PASSWORD=x; TOKEN="a b c"\n',
  'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln" https://bob:pw@registry.example.com/v2\n',
  'AKIAIOSFODNN7EXAMPLE AIzaSyA-1234567890abcdefghijklmnopqrstu ghp_abcdefghijklmnopqrstuvwxyz0123456789 --token abc\n',
  '-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n.dockerconfigjson: eyJhdXRocyI6e319\n',
];

fuzzTarget({
  name: 'redact.redactSecrets',
  corpus: [...LOGS, ...SECRETS],
  run: (input) => redactSecrets(input),
  check: (output): Violation[] => {
    const again = redactSecrets(output.text);
    return [
      ...(Number.isSafeInteger(output.count) && output.count >= 0
        ? []
        : [{ property: 'finite' as const, message: `count ${output.count}` }]),
      ...(again.count === 0 && again.text === output.text
        ? []
        : [
            {
              property: 'render' as const,
              message: `redacting twice redacts ${again.count} more: ${JSON.stringify(again.text.slice(0, 200))}`,
            },
          ]),
    ];
  },
  growth: [
    { label: 'on secret-shaped lines repeated', make: (n) => (SECRETS.join('') + '\n').repeat(Math.ceil(n / 600)).slice(0, n) },
    { label: 'on one line of keys and separators', make: (n) => 'password="a" token: '.repeat(Math.ceil(n / 20)).slice(0, n) },
  ],
});

// The bundle gets its objects from the API server as JSON (client-node parses it): the fixtures become one JSON array,
// mutated as JSON, and JSON.parse (linear) reads them back. Parsing YAML here put the yaml library's cost on deeply
// nested mutations into the timed run, where it stalled the long run for minutes without saying anything of the bundle.
const HAMI_OBJECTS = JSON.stringify(
  parseAllDocuments(fixture('20-hami.yaml')).flatMap((doc) => (doc.errors.length === 0 ? [doc.toJS() as unknown] : [])),
);

function objects(text: string): Record<string, unknown>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).filter(
    (value): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value),
  );
}

fuzzTarget({
  name: 'hamiIssueReport.hamiIssueMarkdown',
  corpus: [HAMI_OBJECTS],
  nest: 'json',
  run: (input) => {
    const all = objects(input);
    const pods = all.filter((o) => o['kind'] === 'Pod');
    const component = (pod: unknown): ComponentPod => ({
      pod,
      logs: [
        { container: 'device-plugin', previous: false, log: { kind: 'read', value: { text: input.slice(0, 4000), truncated: true } } },
      ],
    });
    return hamiIssueMarkdown({
      context: 'fuzz',
      serverVersion: { kind: 'read', value: 'v1.33.0' },
      pod: pods[0],
      events: { kind: 'read', value: all.filter((o) => o['kind'] === 'Event') },
      node: { kind: 'read', value: all.find((o) => o['kind'] === 'Node') },
      devicePlugins: { kind: 'read', value: pods.slice(1, 3).map(component) },
      schedulers: { kind: 'failed', reason: 'fuzz: forbidden' },
      tailLines: 200,
      collectedAt: '2026-12-02T00:00:00Z',
      toolVersion: '0.1.0',
      nodeCapture: { source: 'fuzz.capture', read: nodeCaptureFacts(input) },
    });
  },
  check: (output): Violation[] => [
    ...renderViolations('HAMi issue bundle', output.markdown),
    ...(Number.isSafeInteger(output.redacted) && output.redacted >= 0
      ? []
      : [{ property: 'finite' as const, message: `redacted ${output.redacted}` }]),
  ],
});
