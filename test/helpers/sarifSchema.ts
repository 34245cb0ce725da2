// The SARIF 2.1.0 schema (OASIS, sarif-2.1.0-rtm.5.json as @microsoft/jest-sarif ships it) as an Ajv validator,
// for every test that checks a SARIF log gpumem wrote.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';

const SARIF_SCHEMA = fileURLToPath(new URL('../../node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json', import.meta.url));

export function sarifSchemaValidator(): ValidateFunction {
  const schema = JSON.parse(readFileSync(SARIF_SCHEMA, 'utf8')) as Record<string, unknown>;
  // The file declares draft-04 (`$schema`, `id`). Ajv 8 speaks draft-07, which gives every keyword this
  // schema uses the same meaning; the draft-04-only forms (boolean exclusiveMinimum/Maximum) do not occur.
  assert.equal(schema.$schema, 'http://json-schema.org/draft-04/schema#');
  assert.doesNotMatch(JSON.stringify(schema), /exclusiveM(in|ax)imum/);
  delete schema.$schema;
  delete schema.id;
  // unicodeRegExp: false, because one pattern in the rtm.5 schema (language codes) has a stray ']' that only non-Unicode regexps accept.
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  ajv.addFormat('uri', (value: string) => {
    if (/[\s\u0000-\u001f\\]/.test(value) || !/^[a-z][a-z0-9+.-]*:/i.test(value)) return false;
    try {
      new URL(value);
      return true;
    } catch {
      return false;
    }
  });
  ajv.addFormat('uri-reference', (value: string) => {
    if (/[\s\u0000-\u001f\\]/.test(value)) return false;
    try {
      new URL(value, 'https://base.invalid/');
      return true;
    } catch {
      return false;
    }
  });
  ajv.addFormat(
    'date-time',
    (value: string) =>
      /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value)),
  );
  ajv.addFormat('email', (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value));
  return ajv.compile(schema);
}
