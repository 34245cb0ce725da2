// The CLI's output formats: text for people, JSON for scripts, SARIF 2.1.0 for code-scanning UIs.
import type { Severity } from '../findings.ts';
import { RULES } from '../rules/catalog.ts';
import { terminalSafe } from '../text/escape.ts';
import type { PositionedFinding } from './fileFindings.ts';

export interface JsonFinding {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly ruleId: string;
  readonly severity: Severity;
  readonly message: string;
  readonly kind: string | null;
  readonly namespace: string | null;
  readonly name: string | null;
  readonly container: string | null;
}

export function toJsonFindings(findings: readonly PositionedFinding[]): JsonFinding[] {
  return findings.map(({ file, line, column, endLine, endColumn, finding }) => ({
    file,
    line,
    column,
    endLine,
    endColumn,
    ruleId: finding.ruleId,
    severity: finding.severity,
    message: finding.message,
    kind: finding.object?.kind ?? null,
    namespace: finding.object?.namespace ?? null,
    name: finding.object?.name ?? null,
    container: finding.container ?? null,
  }));
}

export function formatText(findings: readonly PositionedFinding[], filesLinted: number): string {
  const lines = findings.map(
    ({ file, line, column, finding }) =>
      `${terminalSafe(file, 'single-line')}:${line}:${column}: ${finding.severity} [${finding.ruleId}] ${terminalSafe(finding.message, 'single-line')}`,
  );
  const count = (severity: Severity) => findings.filter((f) => f.finding.severity === severity).length;
  const files = new Set(findings.map((f) => f.file)).size;
  const total = findings.length;
  lines.push(
    total === 0
      ? `No findings in ${filesLinted} file${filesLinted === 1 ? '' : 's'}.`
      : `${total} finding${total === 1 ? '' : 's'} (${count('error')} error${count('error') === 1 ? '' : 's'}, ${count('warning')} warning${count('warning') === 1 ? '' : 's'}, ${count('info')} info) in ${files} of ${filesLinted} file${filesLinted === 1 ? '' : 's'}.`,
  );
  return `${lines.join('\n')}\n`;
}

export const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

export interface SarifOptions {
  readonly toolVersion: string;
  /** Base of the rule documentation: helpUri = `${docsBase}/${id}.md`. */
  readonly docsBase: string;
  /** file:// URI of the directory relative file paths are resolved against. */
  readonly srcRoot: string;
  readonly notifications: readonly string[];
  /** Rules beyond the catalog (the live checks of `lint --live`), as SARIF reportingDescriptors with an `id`. */
  readonly extraRules?: readonly ({ readonly id: string } & object)[];
}

export function formatSarif(findings: readonly PositionedFinding[], options: SarifOptions): object {
  const extraRules = options.extraRules ?? [];
  const ruleIndex = new Map([...RULES.map((rule) => rule.id), ...extraRules.map((rule) => rule.id)].map((id, index) => [id, index]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'gpumem',
            version: options.toolVersion,
            semanticVersion: options.toolVersion,
            rules: [
              ...RULES.map((rule) => ({
                id: rule.id,
                name: rule.id
                  .split('-')
                  .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
                  .join(''),
                shortDescription: { text: rule.title },
                fullDescription: { text: rule.summary },
                help: { text: rule.remedy, markdown: `${rule.summary}\n\n**Remedy:** ${rule.remedy}` },
                helpUri: `${options.docsBase}/${rule.id}.md`,
                defaultConfiguration: { level: SARIF_LEVEL[rule.defaultSeverity], enabled: !rule.offByDefault },
              })),
              ...extraRules,
            ],
          },
        },
        originalUriBaseIds: { SRCROOT: { uri: options.srcRoot.endsWith('/') ? options.srcRoot : `${options.srcRoot}/` } },
        invocations: [
          {
            executionSuccessful: options.notifications.length === 0,
            toolExecutionNotifications: options.notifications.map((text) => ({ level: 'warning', message: { text } })),
          },
        ],
        results: findings.map(({ file, line, column, endLine, endColumn, finding }) => {
          const object = finding.object;
          const logical = object
            ? [
                {
                  fullyQualifiedName: [object.namespace ?? '', object.kind, object.name ?? '', finding.container ?? '']
                    .filter(Boolean)
                    .join('/'),
                  kind: 'object',
                },
              ]
            : undefined;
          return {
            ruleId: finding.ruleId,
            ...(ruleIndex.has(finding.ruleId) ? { ruleIndex: ruleIndex.get(finding.ruleId) } : {}),
            level: SARIF_LEVEL[finding.severity],
            message: { text: finding.message },
            ...sarifLocations(file, { startLine: line, startColumn: column, endLine, endColumn }, object?.helmSource, logical),
            ...(finding.fixes.length > 0 ? { properties: { fixes: finding.fixes.map((fix) => fix.title) } } : {}),
          };
        }),
      },
    ],
  };
}

/**
 * Where code scanning annotates a finding. Rendered Helm output read from standard input (`helm template … | gpumem
 * lint -`) has no file of its own: the object's `# Source:` template (relative to where helm ran, as helm prints it)
 * is the location, without a region (the template's line is not the rendered one), and the rendered line is a related
 * location. Anything else is located where it was read.
 */
function sarifLocations(
  file: string,
  region: { startLine: number; startColumn: number; endLine: number; endColumn: number },
  helmSource: string | undefined,
  logical: object[] | undefined,
): object {
  const rendered = {
    physicalLocation: {
      artifactLocation: isAbsoluteUri(file) ? { uri: file } : { uri: encodePath(file), uriBaseId: 'SRCROOT' },
      region,
    },
  };
  if (file !== STDIN_NAME || helmSource === undefined || helmSource.trim() === '')
    return { locations: [{ ...rendered, ...(logical ? { logicalLocations: logical } : {}) }] };
  return {
    locations: [
      {
        physicalLocation: { artifactLocation: { uri: encodePath(helmSource.trim()), uriBaseId: 'SRCROOT' } },
        ...(logical ? { logicalLocations: logical } : {}),
      },
    ],
    relatedLocations: [{ id: 1, ...rendered, message: { text: 'The rendered line (helm template output on standard input).' } }],
  };
}

/** The name the CLI gives standard input (`gpumem lint -`). */
export const STDIN_NAME = '<stdin>';

function isAbsoluteUri(file: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(file) && !/^[a-z]:[\\/]/i.test(file);
}

function encodePath(file: string): string {
  return file.split(/[\\/]/).map(encodeURIComponent).join('/');
}
