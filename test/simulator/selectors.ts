// Label and field selectors as the API server parses and applies them
// (k8s.io/apimachinery/pkg/labels and pkg/fields): equality, inequality, set-based (`in`, `notin`),
// existence (`key`, `!key`) and the integer comparisons `>`/`<` for labels; `=`, `==`, `!=` with
// backslash escapes for fields. A field the resource does not index is refused with
// `field label not supported: <key>`, as the API server does.

export type LabelOperator = 'exists' | 'notexists' | 'eq' | 'neq' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly op: LabelOperator;
  readonly values: readonly string[];
}

export interface FieldRequirement {
  readonly field: string;
  readonly op: 'eq' | 'neq';
  readonly value: string;
}

export class SelectorError extends Error {}

const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function checkKey(key: string): string {
  const slash = key.indexOf('/');
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    throw new SelectorError(
      `unable to parse requirement: Invalid value: "${key}": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    );
  }
  if (!NAME_PART.test(name)) {
    throw new SelectorError(
      `unable to parse requirement: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return key;
}

function checkValue(value: string): string {
  if (!LABEL_VALUE.test(value)) {
    throw new SelectorError(
      `unable to parse requirement: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return value;
}

/** Splits on commas outside parentheses. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

const KEY = '([A-Za-z0-9][-A-Za-z0-9_./]*)';

export function parseLabelSelector(text: string | undefined): LabelRequirement[] {
  if (text === undefined || text.trim() === '') return [];
  const requirements: LabelRequirement[] = [];
  for (const raw of splitTop(text)) {
    const part = raw.trim();
    let m: RegExpExecArray | null;
    if (part === '') throw new SelectorError(`unable to parse requirement: found '', expected: identifier`);
    if ((m = new RegExp(`^!\\s*${KEY}$`).exec(part))) {
      requirements.push({ key: checkKey(m[1] as string), op: 'notexists', values: [] });
    } else if ((m = new RegExp(`^${KEY}\\s+(in|notin)\\s*\\(([^()]*)\\)$`).exec(part))) {
      const values = (m[3] as string).split(',').map((v) => checkValue(v.trim()));
      requirements.push({ key: checkKey(m[1] as string), op: m[2] === 'in' ? 'in' : 'notin', values });
    } else if ((m = new RegExp(`^${KEY}\\s*(==|=|!=)\\s*([^\\s=!()]*)$`).exec(part))) {
      requirements.push({ key: checkKey(m[1] as string), op: m[2] === '!=' ? 'neq' : 'eq', values: [checkValue(m[3] as string)] });
    } else if ((m = new RegExp(`^${KEY}\\s*([<>])\\s*(-?\\d+)$`).exec(part))) {
      requirements.push({ key: checkKey(m[1] as string), op: m[2] === '>' ? 'gt' : 'lt', values: [m[3] as string] });
    } else if ((m = new RegExp(`^${KEY}$`).exec(part))) {
      requirements.push({ key: checkKey(m[1] as string), op: 'exists', values: [] });
    } else {
      throw new SelectorError(`unable to parse requirement: found '${part}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }
  return requirements;
}

export function matchesLabels(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const r of requirements) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const value = has ? labels[r.key] : undefined;
    switch (r.op) {
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
      case 'eq':
      case 'in':
        if (!has || !r.values.includes(value as string)) return false;
        break;
      case 'neq':
      case 'notin':
        if (has && r.values.includes(value as string)) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(value as string)) return false;
        const n = Number(value);
        const bound = Number(r.values[0]);
        if (r.op === 'gt' ? !(n > bound) : !(n < bound)) return false;
        break;
      }
    }
  }
  return true;
}

/** Splits a field selector on unescaped commas and un-escapes `\,`, `\=`, `\\`. */
function splitEscaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\' && i + 1 < text.length) {
      current += c + (text[i + 1] as string);
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function unescapeField(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

export function parseFieldSelector(text: string | undefined, supported: ReadonlySet<string>): FieldRequirement[] {
  if (text === undefined || text.trim() === '') return [];
  const requirements: FieldRequirement[] = [];
  for (const raw of splitEscaped(text, ',')) {
    const term = raw.trim();
    if (term === '') continue;
    const m = /^([^=!\s]+)\s*(==|=|!=)(.*)$/.exec(term);
    if (!m) throw new SelectorError(`invalid selector: '${text}'; can't understand '${term}'`);
    const field = m[1] as string;
    if (!supported.has(field)) throw new SelectorError(`field label not supported: ${field}`);
    requirements.push({ field, op: m[2] === '!=' ? 'neq' : 'eq', value: unescapeField((m[3] as string).trim()) });
  }
  return requirements;
}

export function matchesFields(requirements: readonly FieldRequirement[], fields: (field: string) => string): boolean {
  for (const r of requirements) {
    const value = fields(r.field);
    if (r.op === 'eq' ? value !== r.value : value === r.value) return false;
  }
  return true;
}
