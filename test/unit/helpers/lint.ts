// Shared helpers for the rule tests: lint a fixture, find the findings of one rule, and assert them
// with exact ranges (the text under the span and its 1-based line), and apply quick fixes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { resolveConfig } from '../../../src/core/config.ts';
import type { LintConfig } from '../../../src/core/config.ts';
import type { Finding, QuickFix, Severity, TextEdit } from '../../../src/core/findings.ts';
import { LineIndex } from '../../../src/core/lineIndex.ts';
import { lintText } from '../../../src/core/lint.ts';
import type { LintResult } from '../../../src/core/lint.ts';
import { TEMPLATE_SENTINEL } from '../../../src/core/manifest/source.ts';
import { ruleMeta } from '../../../src/core/rules/catalog.ts';

/**
 * A YAML fixture written as an indented template literal: drops the one newline after the opening
 * backtick, so line 1 of the fixture is the first line written.
 */
export function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += String(value) + (strings[i + 1] ?? '');
  });
  return out.startsWith('\n') ? out.slice(1) : out;
}

/** A fixture under test/fixtures/manifests/. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/manifests/${name}`, import.meta.url), 'utf8');
}

/** A config from the same untrusted shape the CLI's --config file and the VS Code settings use; it must be valid. */
export function config(input: Record<string, unknown>): LintConfig {
  const { config: resolved, problems } = resolveConfig(input);
  assert.deepEqual(problems, [], 'test config should be valid');
  return resolved;
}

/**
 * Lints `text` and checks what must hold for every finding, whatever the rule: a catalog rule id,
 * a non-empty span inside the text on a single line (narrow ranges, never whole blocks), a one-line
 * message without Helm masking characters, and fix edits inside the text.
 */
export function lint(text: string, lintConfig?: LintConfig): LintResult {
  const result = lintText(text, lintConfig);
  for (const finding of result.findings) {
    const where = `${finding.ruleId} "${finding.message}"`;
    assert.ok(ruleMeta(finding.ruleId), `${where}: rule id is in the catalog`);
    const { start, end } = finding.span;
    assert.ok(start >= 0 && end <= text.length, `${where}: span ${start}-${end} inside the text`);
    if (finding.ruleId !== 'manifest-skipped') {
      assert.ok(start < end, `${where}: span is not empty`);
      assert.ok(!text.slice(start, end).includes('\n'), `${where}: span stays on one line, got ${JSON.stringify(text.slice(start, end))}`);
    }
    assert.ok(!finding.message.includes('\n'), `${where}: message is one line`);
    assert.ok(!finding.message.includes(TEMPLATE_SENTINEL), `${where}: message shows no Helm masking characters`);
    for (const fix of finding.fixes) {
      for (const edit of fix.edits)
        assert.ok(
          edit.start >= 0 && edit.start <= edit.end && edit.end <= text.length,
          `${where}: fix "${fix.title}" edits inside the text`,
        );
    }
  }
  for (const summary of result.containers)
    assert.ok(!summary.title.includes(TEMPLATE_SENTINEL), `summary "${summary.title}" shows no Helm masking characters`);
  return result;
}

export function findingsOf(result: LintResult, ruleId: string): Finding[] {
  return result.findings.filter((finding) => finding.ruleId === ruleId);
}

/** The rule ids of a result, in finding order. */
export function ruleIds(result: LintResult): string[] {
  return result.findings.map((finding) => finding.ruleId);
}

export function assertNone(result: LintResult, ...ids: string[]): void {
  for (const id of ids) {
    assert.deepEqual(
      findingsOf(result, id).map((f) => f.message),
      [],
      `expected no ${id} finding`,
    );
  }
}

export interface Expected {
  readonly ruleId: string;
  readonly severity: Severity;
  /** The container the finding names; undefined for pod-level findings. */
  readonly container: string | undefined;
  /** Exactly the text under the finding's span. */
  readonly token: string;
  /** 1-based line of the span's start. */
  readonly line: number;
  /** Something the message must contain (strings) or match (regular expressions). */
  readonly message?: string | RegExp | readonly (string | RegExp)[];
}

/** Asserts one finding against an expectation: rule, severity, container, the exact text under its span, and its line. */
export function assertFinding(text: string, finding: Finding | undefined, expected: Expected): Finding {
  assert.ok(finding, `expected a ${expected.ruleId} finding on "${expected.token}"`);
  assert.equal(finding.ruleId, expected.ruleId);
  assert.equal(text.slice(finding.span.start, finding.span.end), expected.token, `${expected.ruleId}: text under the span`);
  assert.equal(new LineIndex(text).position(finding.span.start).line, expected.line, `${expected.ruleId} on "${expected.token}": line`);
  assert.equal(finding.severity, expected.severity, `${expected.ruleId}: severity`);
  assert.equal(finding.container, expected.container, `${expected.ruleId}: container`);
  if (expected.container !== undefined)
    assert.ok(
      finding.message.includes(`"${expected.container}"`),
      `${expected.ruleId}: the message names container "${expected.container}": ${finding.message}`,
    );
  const patterns = expected.message === undefined ? [] : Array.isArray(expected.message) ? expected.message : [expected.message];
  for (const pattern of patterns as (string | RegExp)[]) {
    if (typeof pattern === 'string')
      assert.ok(
        finding.message.includes(pattern),
        `${expected.ruleId}: message should contain ${JSON.stringify(pattern)}: ${finding.message}`,
      );
    else assert.match(finding.message, pattern);
  }
  return finding;
}

/** Exactly one finding of `expected.ruleId`, asserted in full. */
export function expectOne(text: string, result: LintResult, expected: Expected): Finding {
  const found = findingsOf(result, expected.ruleId);
  assert.equal(found.length, 1, `expected exactly one ${expected.ruleId}, got: ${JSON.stringify(found.map((f) => f.message))}`);
  return assertFinding(text, found[0], expected);
}

/** Exactly these findings of one rule, in source order. */
export function expectAll(text: string, result: LintResult, ruleId: string, expected: readonly Omit<Expected, 'ruleId'>[]): Finding[] {
  const found = findingsOf(result, ruleId);
  assert.equal(
    found.length,
    expected.length,
    `expected ${expected.length} ${ruleId} findings, got: ${JSON.stringify(found.map((f) => f.message))}`,
  );
  return expected.map((e, i) => assertFinding(text, found[i], { ...e, ruleId }));
}

/** 1-based line of an offset. */
export function lineAt(text: string, offset: number): number {
  return new LineIndex(text).position(offset).line;
}

/** Applies text edits computed on `text` (from the end backwards, so earlier offsets stay valid). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  for (let i = 1; i < sorted.length; i++) {
    assert.ok(sorted[i]!.end <= sorted[i - 1]!.start, 'fix edits must not overlap');
  }
  for (const edit of sorted) out = out.slice(0, edit.start) + edit.newText + out.slice(edit.end);
  return out;
}

/** The finding's fix whose title matches. */
export function fixOf(finding: Finding, title: string | RegExp): QuickFix {
  const fix = finding.fixes.find((candidate) => (typeof title === 'string' ? candidate.title === title : title.test(candidate.title)));
  assert.ok(fix, `expected a fix ${String(title)} on ${finding.ruleId}, have: ${JSON.stringify(finding.fixes.map((f) => f.title))}`);
  return fix;
}

/** Every document parses without errors (as YAML 1.1, as the linter reads it). */
export function assertParses(text: string): void {
  const docs = parseAllDocuments(text, { version: '1.1' });
  assert.ok(Array.isArray(docs), 'the text parses into documents');
  for (const doc of docs)
    assert.deepEqual(
      doc.errors.map((e) => e.message),
      [],
      'fixed YAML parses cleanly',
    );
}

/** The plain JavaScript value of each document. */
export function documentsOf(text: string): unknown[] {
  const docs = parseAllDocuments(text, { version: '1.1' });
  assert.ok(Array.isArray(docs));
  return docs.map((doc) => doc.toJS() as unknown);
}
