import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Quantity, QuantityFormat } from '../../src/core/quantity.ts';
import { isQuantityInRange, parseApiQuantity, parseQuantity } from '../../src/core/quantity.ts';
import { describeBytes, formatBytes, toMemoryQuantity } from '../../src/core/sizing.ts';
import { mulberry32 } from '../helpers/random.ts';

function parsed(text: string): Quantity {
  const r = parseApiQuantity(text);
  assert.ok(r.ok, `${JSON.stringify(text.slice(0, 40))} should parse, got: ${r.ok ? '' : r.reason}`);
  assert.equal(r.quantity.text, text);
  return r.quantity;
}

function rejected(text: string): string {
  const r = parseApiQuantity(text);
  assert.ok(!r.ok, `${JSON.stringify(text.slice(0, 40))} should be rejected, parsed as ${r.ok ? r.quantity.value : ''}`);
  assert.equal(typeof r.reason, 'string');
  assert.ok(r.reason.length > 0 && r.reason.length < 200, `reason should be short: ${r.reason}`);
  return r.reason;
}

/** Exact decimal -> nearest double, and whether it is a whole number. */
function expectValue(q: Quantity, exact: string, label: string): void {
  assert.equal(q.value, Number(exact), `${label}: value`);
  assert.equal(q.isInteger, !exact.includes('.'), `${label}: isInteger`);
  assert.equal(q.negative, exact.startsWith('-'), `${label}: negative`);
}

const MAX_INT64 = '9223372036854775807';

// ------------------------------------------------------------------------------------------------
// Provenance: kubernetes/kubernetes, staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go
// at commit 002cd1a0cd960ebe9d6f194d342384d6fe0fedcf (TestQuantityParse's table and invalid list,
// TestQuantityParseZero, TestParseQuantityString, TestInterpretExponentInt32Bounds,
// TestNegativeValueRoundsAwayFromZero, TestParseQuantity, TestQuantityString's strings,
// TestQuantityParseEmit, TestStringQuantityAsApproximateFloat64). Parser semantics from quantity.go
// at 009f4971a05ddf1edc5616eab805f5b79017da08 and suffix.go at 7125a5f011b453b866574f0181ab0caf70505cdc.
// Inputs are copied verbatim; the expected Quantity (decQuantity(m, e, f) = m * 10^e) is written out
// as the exact decimal value, which the test turns into a number with Number(). A '.' in the
// expected value means "not a whole number".

/** TestQuantityParse's table: [input, exact value, format]. */
const UPSTREAM_PARSE: ReadonlyArray<readonly [string, string, QuantityFormat]> = [
  ['0', '0', 'DecimalSI'],
  ['0n', '0', 'DecimalSI'],
  ['0u', '0', 'DecimalSI'],
  ['0m', '0', 'DecimalSI'],
  ['0Ki', '0', 'BinarySI'],
  ['0k', '0', 'DecimalSI'],
  ['0Mi', '0', 'BinarySI'],
  ['0M', '0', 'DecimalSI'],
  ['0Gi', '0', 'BinarySI'],
  ['0G', '0', 'DecimalSI'],
  ['0Ti', '0', 'BinarySI'],
  ['0T', '0', 'DecimalSI'],

  // Quantity less numbers are allowed
  ['1', '1', 'DecimalSI'],

  // Binary suffixes
  ['1Ki', '1024', 'BinarySI'],
  ['8Ki', '8192', 'BinarySI'],
  ['7Mi', '7340032', 'BinarySI'],
  ['6Gi', '6442450944', 'BinarySI'],
  ['5Ti', '5497558138880', 'BinarySI'],
  ['4Pi', '4503599627370496', 'BinarySI'],
  ['3Ei', '3458764513820540928', 'BinarySI'],

  ['10Ti', '10995116277760', 'BinarySI'],
  ['100Ti', '109951162777600', 'BinarySI'],

  // Decimal suffixes
  ['5n', '0.000000005', 'DecimalSI'],
  ['4u', '0.000004', 'DecimalSI'],
  ['3m', '0.003', 'DecimalSI'],
  ['9', '9', 'DecimalSI'],
  ['8k', '8000', 'DecimalSI'],
  ['50k', '50000', 'DecimalSI'],
  ['7M', '7000000', 'DecimalSI'],
  ['6G', '6000000000', 'DecimalSI'],
  ['5T', '5000000000000', 'DecimalSI'],
  ['40T', '40000000000000', 'DecimalSI'],
  ['300T', '300000000000000', 'DecimalSI'],
  ['2P', '2000000000000000', 'DecimalSI'],
  ['1E', '1000000000000000000', 'DecimalSI'],

  // Decimal exponents
  ['1E-3', '0.001', 'DecimalExponent'],
  ['1e3', '1000', 'DecimalExponent'],
  ['1E6', '1000000', 'DecimalExponent'],
  ['1e9', '1000000000', 'DecimalExponent'],
  ['1E12', '1000000000000', 'DecimalExponent'],
  ['1e15', '1000000000000000', 'DecimalExponent'],
  ['1E18', '1000000000000000000', 'DecimalExponent'],

  // Nonstandard but still parsable
  ['1e14', '100000000000000', 'DecimalExponent'],
  ['1e13', '10000000000000', 'DecimalExponent'],
  ['1e3', '1000', 'DecimalExponent'],
  ['100.035k', '100035', 'DecimalSI'],

  // Things that look like floating point
  ['0.001', '0.001', 'DecimalSI'],
  ['0.0005k', '0.5', 'DecimalSI'],
  ['0.005', '0.005', 'DecimalSI'],
  ['0.05', '0.05', 'DecimalSI'],
  ['0.5', '0.5', 'DecimalSI'],
  ['0.00050k', '0.5', 'DecimalSI'],
  ['0.00500', '0.005', 'DecimalSI'],
  ['0.05000', '0.05', 'DecimalSI'],
  ['0.50000', '0.5', 'DecimalSI'],
  ['0.5e0', '0.5', 'DecimalExponent'],
  ['0.5e-1', '0.05', 'DecimalExponent'],
  ['0.5e-2', '0.005', 'DecimalExponent'],
  ['0.5e0', '0.5', 'DecimalExponent'],
  ['10.035M', '10035000', 'DecimalSI'],

  ['1.2e3', '1200', 'DecimalExponent'],
  ['1.3E+6', '1300000', 'DecimalExponent'],
  ['1.40e9', '1400000000', 'DecimalExponent'],
  ['1.53E12', '1530000000000', 'DecimalExponent'],
  ['1.6e15', '1600000000000000', 'DecimalExponent'],
  ['1.7E18', '1700000000000000000', 'DecimalExponent'],

  ['9.01', '9.01', 'DecimalSI'],
  ['8.1k', '8100', 'DecimalSI'],
  ['7.123456M', '7123456', 'DecimalSI'],
  ['6.987654321G', '6987654321', 'DecimalSI'],
  ['5.444T', '5444000000000', 'DecimalSI'],
  ['40.1T', '40100000000000', 'DecimalSI'],
  ['300.2T', '300200000000000', 'DecimalSI'],
  ['2.5P', '2500000000000000', 'DecimalSI'],
  ['1.01E', '1010000000000000000', 'DecimalSI'],

  // Things that saturate/round
  ['3.001n', '0.000000004', 'DecimalSI'],
  ['1.1E-9', '0.000000002', 'DecimalExponent'],
  ['0.0000000001', '0.000000001', 'DecimalSI'],
  ['0.0000000005', '0.000000001', 'DecimalSI'],
  ['0.00000000050', '0.000000001', 'DecimalSI'],
  ['0.5e-9', '0.000000001', 'DecimalExponent'],
  ['0.9n', '0.000000001', 'DecimalSI'],
  ['0.00000012345', '0.000000124', 'DecimalSI'],
  ['0.00000012354', '0.000000124', 'DecimalSI'],
  ['9Ei', MAX_INT64, 'BinarySI'], // maxAllowed
  ['9223372036854775807Ki', MAX_INT64, 'BinarySI'], // maxAllowed
  ['12E', '12000000000000000000', 'DecimalSI'],

  // We'll accept fractional binary stuff, too.
  ['100.035Ki', '102435.84', 'BinarySI'],
  ['0.5Mi', '524288', 'BinarySI'],
  ['0.05Gi', '53687091.2', 'BinarySI'],
  ['0.025Ti', '27487790694.4', 'BinarySI'],

  // Things written by trolls
  ['0.000000000001Ki', '0.000000002', 'DecimalSI'], // rounds up, changes format
  ['.001', '0.001', 'DecimalSI'],
  ['.0001k', '0.1', 'DecimalSI'],
  ['1.', '1', 'DecimalSI'],
  ['1.G', '1000000000', 'DecimalSI'],
];

/** TestQuantityParse's invalid list, plus ParseQuantity("") and the strings other tests expect to fail. */
const UPSTREAM_INVALID: readonly string[] = [
  '1.1.M',
  '1+1.0M',
  '0.1mi',
  '0.1am',
  'aoeu',
  '.5i',
  '1i',
  '-3.01i',
  '-3.01e-',
  // an exponent outside the int32 scale is rejected rather than truncated
  '1e4294967297',
  // trailing whitespace is forbidden
  ' 1',
  '1 ',
  '', // TestQuantityParse: ParseQuantity("") must fail
  'Non-Numeric', // TestQuantityParseNonNumericPanic
  'invalid', // TestQuantityValueSet
];

test('upstream TestQuantityParse table: value, exactness and format', () => {
  for (const [input, exact, format] of UPSTREAM_PARSE) {
    const q = parsed(input);
    expectValue(q, exact, input);
    assert.equal(q.format, format, `${input}: format`);
  }
});

test('upstream TestQuantityParse: the negative of everything', () => {
  for (const [input, exact, format] of UPSTREAM_PARSE) {
    const q = parsed(`-${input}`);
    expectValue(q, exact === '0' ? '0' : `-${exact}`, `-${input}`);
    assert.equal(q.format, format, `-${input}: format`);
  }
});

test('upstream TestQuantityParse: everything with an explicit +', () => {
  for (const [input, exact, format] of UPSTREAM_PARSE) {
    const q = parsed(`+${input}`);
    expectValue(q, exact, `+${input}`);
    assert.equal(q.format, format, `+${input}: format`);
  }
});

test('upstream invalid quantities are rejected', () => {
  for (const input of UPSTREAM_INVALID) rejected(input);
});

test('upstream TestQuantityParseZero', () => {
  const q = parsed('0');
  assert.equal(q.value, 0);
  assert.ok(Object.is(q.value, 0));
  assert.equal(q.format, 'DecimalSI');
  assert.equal(q.negative, false);
  assert.equal(q.isInteger, true);
});

test('upstream TestParseQuantityString inputs parse', () => {
  const rows: ReadonlyArray<readonly [string, string]> = [
    ['0.025Ti', '27487790694.4'],
    ['1.025Ti', '1126999418470.4'],
    ['-1.025Ti', '-1126999418470.4'],
    ['.', '0'],
    ['-.', '0'],
    ['1E-3', '0.001'],
  ];
  for (const [input, exact] of rows) expectValue(parsed(input), exact, input);
});

test('upstream TestInterpretExponentInt32Bounds: exponents within ±MaxInt32 only', () => {
  const rows: ReadonlyArray<readonly [string, boolean]> = [
    ['e14', true],
    ['E2147483647', true], // MaxInt32
    ['E-2147483647', true], // -MaxInt32
    ['E2147483648', false], // MaxInt32 + 1
    ['E-2147483648', false], // MinInt32; -MinInt32 overflows int32
    ['E4294967297', false], // 2^32 + 1, truncated to 1 before the fix
    ['E8589934592', false], // 2^33
    ['E9223372036854775807', false], // MaxInt64
    ['E9223372036854775808', false], // past int64
    ['E6024865272343', false], // far past int32
  ];
  for (const [suffix, ok] of rows) {
    const r = parseApiQuantity(`1${suffix}`);
    assert.equal(r.ok, ok, `1${suffix}`);
    if (!r.ok) assert.match(r.reason, /exponent out of range/);
  }
  assert.equal(parsed('1e14').value, 1e14);
  assert.equal(parsed('1E2147483647').value, Infinity);
  assert.equal(parsed('1E2147483647').isInteger, true);
  // Far below nano: rounded up to 1n, as ParseQuantity's RoundUp does.
  expectValue(parsed('1E-2147483647'), '0.000000001', '1E-2147483647');
  expectValue(parsed('-1E-2147483647'), '-0.000000001', '-1E-2147483647');
});

test('upstream TestNegativeValueRoundsAwayFromZero: rounding to nano is away from zero', () => {
  const rows: ReadonlyArray<readonly [string, string]> = [
    ['-.484785E-7466', '-0.000000001'],
    ['.484785E-7466', '0.000000001'],
    ['-.484785E-1', '-0.0484785'],
    ['.484785E-1', '0.0484785'],
    ['-0.0005', '-0.0005'],
    ['0.0005', '0.0005'],
    ['-1500m', '-1.5'],
    ['1500m', '1.5'],
    // exact value is +/-10200547328.1073741824, rounded up to a whole nano
    ['-9.5000000001Gi', '-10200547328.107374183'],
    ['9.5000000001Gi', '10200547328.107374183'],
    ['-1', '-1'],
    ['1', '1'],
    ['0', '0'],
  ];
  for (const [input, exact] of rows) expectValue(parsed(input), exact, input);
});

test('upstream TestParseQuantity: values past int64 stay exact (decimal forms are not capped)', () => {
  const rows: ReadonlyArray<readonly [string, string]> = [
    ['-999999999999999999', '-999999999999999999'],
    ['999999999999999999', '999999999999999999'],
    ['-999999999999999999.0', '-999999999999999999'],
    ['999999999999999999.1', '999999999999999999.1'],
    ['-9999999999999999999', '-9999999999999999999'],
    ['-1E', '-1000000000000000000'],
    ['1000000000000000000', '1000000000000000000'],
    ['9999999999999999999.0', '9999999999999999999'],
    ['-1.0E', '-1000000000000000000'],
    ['9999999999999999999000m', '9999999999999999999'],
    ['-9999999999999999999.1', '-9999999999999999999.1'],
    ['-1.0000000000000000001E', '-1000000000000000000.1'],
    ['1.0000000000000000001E', '1000000000000000000.1'],
    ['1.000000000000000001E', '1000000000000000001'],
    ['10E', '10000000000000000000'],
    ['-10000000000000000000000m', '-10000000000000000000'],
    ['10.0000000000000000001E', '10000000000000000000.1'],
    ['-9223372036854775809', '-9223372036854775809'],
    ['9223372036854775806.1', '9223372036854775806.1'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9223372036854775807000m', '9223372036854775807'],
    ['9223372036854775808', '9223372036854775808'],
    ['9223372036854775808.1', '9223372036854775808.1'],
  ];
  for (const [input, exact] of rows) {
    const q = parsed(input);
    expectValue(q, exact, input);
    assert.notEqual(q.format, 'BinarySI');
  }
});

test('upstream TestQuantityString / TestQuantityParseEmit spellings', () => {
  const rows: ReadonlyArray<readonly [string, string, QuantityFormat]> = [
    ['1024Mi', '1073741824', 'BinarySI'],
    ['307200Ki', '314572800', 'BinarySI'],
    ['1025024Mi', '1074815565824', 'BinarySI'],
    ['1024Gi', '1099511627776', 'BinarySI'],
    ['5000m', '5', 'DecimalSI'],
    ['1000M', '1000000000', 'DecimalSI'],
    ['0.001T', '1000000000', 'DecimalSI'],
    ['1000u', '0.001', 'DecimalSI'],
    ['1.08', '1.08', 'DecimalSI'],
    ['1080000000n', '1.08', 'DecimalSI'],
    ['.001e12', '1000000000', 'DecimalExponent'],
    ['0.001e0', '0.001', 'DecimalExponent'],
    ['1000e-12', '0.000000001', 'DecimalExponent'],
    ['00', '0', 'DecimalSI'],
    ['1e21', '1000000000000000000000', 'DecimalExponent'],
    ['1000E', '1000000000000000000000', 'DecimalSI'],
    ['5000E', '5000000000000000000000', 'DecimalSI'],
    ['10e69', `1${'0'.repeat(70)}`, 'DecimalExponent'],
    ['1180591620717411303424', '1180591620717411303424', 'DecimalSI'], // 2^70, TestBinarySIPastEiArithmeticRoundTrip
    ['.001Ki', '1.024', 'BinarySI'],
    ['.000001Ki', '0.001024', 'DecimalSI'], // below 1: reported as DecimalSI
    ['.000000001Ki', '0.000001024', 'DecimalSI'],
    ['.000000000001Ki', '0.000000002', 'DecimalSI'],
    ['2Ki', '2048', 'BinarySI'],
    ['1.1Ki', '1126.4', 'BinarySI'],
    ['1Mi', '1048576', 'BinarySI'],
    ['2Gi', '2147483648', 'BinarySI'],
  ];
  for (const [input, exact, format] of rows) {
    const q = parsed(input);
    expectValue(q, exact, input);
    assert.equal(q.format, format, `${input}: format`);
  }
  // TestQuantityCmp
  assert.ok(parsed('10000T').value > parsed('100Gi').value);
  assert.ok(parsed('100m').value > parsed('50m').value);
});

// ------------------------------------------------------------------------------------------------
// Cases beyond the upstream tables.

test('every suffix', () => {
  const rows: ReadonlyArray<readonly [string, number, QuantityFormat]> = [
    ['1n', 1e-9, 'DecimalSI'],
    ['1u', 1e-6, 'DecimalSI'],
    ['1m', 1e-3, 'DecimalSI'],
    ['1', 1, 'DecimalSI'],
    ['1k', 1e3, 'DecimalSI'],
    ['1M', 1e6, 'DecimalSI'],
    ['1G', 1e9, 'DecimalSI'],
    ['1T', 1e12, 'DecimalSI'],
    ['1P', 1e15, 'DecimalSI'],
    ['1E', 1e18, 'DecimalSI'],
    ['1Ki', 2 ** 10, 'BinarySI'],
    ['1Mi', 2 ** 20, 'BinarySI'],
    ['1Gi', 2 ** 30, 'BinarySI'],
    ['1Ti', 2 ** 40, 'BinarySI'],
    ['1Pi', 2 ** 50, 'BinarySI'],
    ['1Ei', 2 ** 60, 'BinarySI'],
    ['1e0', 1, 'DecimalExponent'],
    ['1E0', 1, 'DecimalExponent'],
    ['1e+2', 100, 'DecimalExponent'],
    ['1e-2', 0.01, 'DecimalExponent'],
  ];
  for (const [input, value, format] of rows) {
    const q = parsed(input);
    assert.equal(q.value, value, input);
    assert.equal(q.format, format, `${input}: format`);
  }
});

test('signs', () => {
  assert.equal(parsed('+512Mi').value, 512 * 2 ** 20);
  assert.equal(parsed('+512Mi').negative, false);
  assert.equal(parsed('-512Mi').value, -512 * 2 ** 20);
  assert.equal(parsed('-512Mi').negative, true);
  assert.equal(parsed('-1m').negative, true);
  // negative zero is not negative, and its value is +0
  for (const zero of ['-0', '-0Gi', '-0.000', '-.0e5']) {
    const q = parsed(zero);
    assert.equal(q.negative, false, zero);
    assert.ok(Object.is(q.value, 0), zero);
  }
  for (const bad of ['--1', '+-1', '-+1', '1-', '1+', '1Gi-', '- 1']) rejected(bad);
});

test('exponents', () => {
  assert.equal(parsed('1e3').value, 1000);
  assert.equal(parsed('12E6').value, 12_000_000);
  assert.equal(parsed('12E6').format, 'DecimalExponent');
  const q = parsed('-1e-3');
  assert.equal(q.value, -0.001);
  assert.equal(q.negative, true);
  assert.equal(q.isInteger, false);
  assert.equal(parsed('1e-0').value, 1);
  assert.equal(parsed('2.5e+1').value, 25);
  assert.equal(parsed(`1e${'0'.repeat(50)}5`).value, 1e5); // leading zeros in the exponent are fine
  for (const bad of ['1e', '1E+', '1e-', '1e1.5', '1ee3', '1e3e3', '1e3Ki', '1Ki3', '1e 3', 'e']) rejected(bad);
});

test('isInteger is exact (the API server test for extended resources)', () => {
  const rows: ReadonlyArray<readonly [string, boolean]> = [
    ['1.5', false],
    ['1500m', false],
    ['2000m', true],
    ['1Ki', true],
    ['0.5Ki', true],
    ['100m', false],
    ['1', true],
    ['0', true],
    ['1.0', true],
    ['0.999999999', false],
    ['0.9999999999', true], // rounds up to nano: exactly 1
    ['999999999999999999.1', false], // the nearest double is a whole number; the quantity is not
    ['9007199254740993.5', false],
    ['1.0009765625Ki', true], // 1025
    ['1.00097656Ki', false],
    ['0.001Ki', false],
    ['1e-3', false],
    ['1000e-3', true],
    ['3m', false],
    ['-2', true],
    ['-2.5', false],
    ['9Ei', true],
  ];
  for (const [input, isInteger] of rows) assert.equal(parsed(input).isInteger, isInteger, input);
});

test('quirks ParseQuantity really has: digit-less numbers are zero, unless the inf.Dec path needs a digit', () => {
  // parseQuantityString turns an empty number into "0"; the fast path then yields zero.
  for (const input of ['+', '-', '.', '+.', '-.', 'Ki', 'Mi', 'Gi', 'Ti', 'm', 'k', 'E', 'e5', '.e3', '-Ki', '1.Ki']) {
    const q = parsed(input);
    assert.equal(q.value, input === '1.Ki' ? 1024 : 0, input);
  }
  // Pi/Ei and scales below nano go through inf.Dec's SetString, which needs at least one digit.
  for (const input of ['Pi', 'Ei', '-Pi', '.Ei', 'e-10', '.e-10', '-E-99']) {
    assert.match(rejected(input), /a number is needed/, input);
  }
  assert.equal(parsed('0Pi').value, 0);
  assert.equal(parsed('0e-10').value, 0);
});

test('rejections with helpful reasons', () => {
  assert.equal(rejected('1Gb'), 'unknown suffix "Gb" (did you mean "G" or "Gi"?)');
  assert.equal(rejected('1gi'), 'unknown suffix "gi" (did you mean "Gi"?)');
  assert.equal(rejected('1KI'), 'unknown suffix "KI" (did you mean "Ki"?)');
  assert.equal(rejected('1K'), 'unknown suffix "K" (did you mean "k" or "Ki"?)');
  assert.equal(rejected('2GiB'), 'unknown suffix "GiB" (did you mean "Gi"?)');
  assert.equal(rejected('0.1mi'), 'unknown suffix "mi" (did you mean "Mi"?)');
  assert.equal(rejected('1MB'), 'unknown suffix "MB" (did you mean "M" or "Mi"?)');
  assert.match(rejected('1i'), /^unknown suffix "i" \(use Ki, Mi/);
  assert.match(rejected('1e'), /needs digits/);
  assert.match(rejected('1e4294967297'), /exponent out of range/);
  assert.match(rejected(' 1'), /whitespace/);
  assert.match(rejected('1 Gi'), /whitespace/);
  assert.match(rejected('1\t'), /whitespace/);
  assert.match(rejected('1,5Gi'), /","/);
  assert.match(rejected('1.1.M'), /decimal point/);
  assert.match(rejected('aoeu'), /not a number/);
  assert.match(rejected(''), /empty/);
  // everything else the grammar does not allow
  for (const bad of ['0x10', '1_000', '１', 'Infinity', 'NaN', '1Gi\n', '1.5.', '--', '1/2', '"1"', '1Mi ', '１Gi', '1Ki\u0000']) {
    rejected(bad);
  }
  // never throws, even when typed wrong at runtime (YAML numbers, nulls)
  for (const notText of [512, null, undefined, {}]) {
    assert.equal(parseApiQuantity(notText as unknown as string).ok, false);
  }
});

// How the cost of these grows is measured by bench/growth.mjs; here, each gets its answer.
test('huge and hostile inputs return a result', () => {
  const n = 100_000;
  const ones = '1'.repeat(n);

  const big = parsed(ones);
  assert.equal(big.value, Infinity);
  assert.equal(big.isInteger, true);

  const frac = parsed(`0.${ones}`); // 0.111...1 rounded up to nano
  assert.equal(frac.value, 0.111111112);
  assert.equal(frac.isInteger, false);

  const capped = parsed(`${ones}Ki`);
  assert.equal(capped.value, Number(MAX_INT64));
  assert.equal(capped.format, 'BinarySI');

  // 10^10 - 10^-99990 rounds up to exactly 10^10
  const nines = parsed(`${'9'.repeat(n)}e-99990`);
  assert.equal(nines.value, 1e10);
  assert.equal(nines.isInteger, true);

  // 1024 - (tiny) rounds up to exactly 1024
  const almostKi = parsed(`0.${'9'.repeat(n)}Ki`);
  assert.equal(almostKi.value, 1024);
  assert.equal(almostKi.isInteger, true);
  assert.equal(almostKi.format, 'BinarySI');

  const tiny = parsed(`.${'0'.repeat(n)}1Ei`);
  assert.equal(tiny.value, 1e-9);
  assert.equal(tiny.format, 'DecimalSI');

  assert.equal(parsed('0'.repeat(n)).value, 0);
  assert.equal(parsed(`-${'0'.repeat(n)}.${'0'.repeat(n)}`).negative, false);

  for (const bad of [
    `1${'e'.repeat(n)}`,
    '-'.repeat(n),
    '1.'.repeat(n / 2),
    `1${' '.repeat(n)}`,
    `1e${'9'.repeat(n)}`,
    `e${'9'.repeat(n)}`,
    `${ones}x`,
    `${ones}Gb`,
    'a'.repeat(n),
    'Ki'.repeat(n / 2),
  ]) {
    rejected(bad);
  }
});

// ------------------------------------------------------------------------------------------------
// An independent oracle: the grammar written as one regular expression, exact BigInt arithmetic,
// then the same rounding (up to nano, away from zero) and BinarySI cap. Random inputs must agree.

const GRAMMAR = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(|n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)$/;
const DECIMAL_EXP: Readonly<Record<string, number>> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_EXP: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

interface Expected {
  value: number;
  isInteger: boolean;
  negative: boolean;
  format: QuantityFormat;
}

function oracle(text: string): Expected | undefined {
  if (text === '') return undefined;
  const m = GRAMMAR.exec(text);
  if (!m) return undefined;
  const sign = m[1] ?? '';
  const int = m[2] ?? '';
  const frac = m[3] ?? '';
  const suffix = m[4] ?? '';
  let base: 2 | 10 = 10;
  let exp: number;
  let format: QuantityFormat = 'DecimalSI';
  if (suffix in BINARY_EXP) {
    base = 2;
    exp = BINARY_EXP[suffix] as number;
    format = 'BinarySI';
  } else if (suffix in DECIMAL_EXP) {
    exp = DECIMAL_EXP[suffix] as number;
  } else {
    const e = BigInt(suffix.slice(1));
    if (e > 2147483647n || e < -2147483647n) return undefined;
    exp = Number(e);
    format = 'DecimalExponent';
  }
  const hasDigit = int.length + frac.length > 0;
  if (!hasDigit && ((base === 2 && exp >= 50) || (base === 10 && exp < -9))) return undefined;
  let num = BigInt(int + frac || '0') * 1_000_000_000n; // nano units
  let den = 10n ** BigInt(frac.length);
  if (base === 2) num <<= BigInt(exp);
  else if (exp >= 0) num *= 10n ** BigInt(exp);
  else den *= 10n ** BigInt(-exp);
  let nano = (num + den - 1n) / den;
  const maxNano = BigInt(MAX_INT64) * 1_000_000_000n;
  if (base === 2 && nano > maxNano) nano = maxNano;
  if (base === 2 && nano > 0n && nano < 1_000_000_000n) format = 'DecimalSI';
  const negative = sign === '-' && nano > 0n;
  const magnitude = Number(`${nano}e-9`);
  return { value: negative ? -magnitude : magnitude, isInteger: nano % 1_000_000_000n === 0n, negative, format };
}

function randomQuantity(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const digits = (max: number): string => {
    let s = '';
    const len = Math.floor(rand() * (max + 1));
    for (let i = 0; i < len; i++) s += rand() < 0.3 ? '0' : rand() < 0.2 ? '9' : String(Math.floor(rand() * 10));
    return s;
  };
  let s = pick(['', '', '', '+', '-']);
  s += digits(pick([0, 1, 3, 12, 25]));
  if (rand() < 0.5) s += '.' + digits(pick([0, 1, 3, 12, 30]));
  const suffixes = [
    '',
    'n',
    'u',
    'm',
    'k',
    'M',
    'G',
    'T',
    'P',
    'E',
    'Ki',
    'Mi',
    'Gi',
    'Ti',
    'Pi',
    'Ei',
    'i',
    'K',
    'gi',
    'Gb',
    'e',
    'E+',
    'mi',
    'KI',
  ];
  if (rand() < 0.35) {
    s += pick(['e', 'E']) + pick(['', '+', '-']) + String(Math.floor(rand() * 45)) + (rand() < 0.05 ? pick(['x', 'i', '.']) : '');
  } else {
    s += pick(suffixes);
  }
  if (rand() < 0.03) {
    const i = Math.floor(rand() * (s.length + 1));
    s = s.slice(0, i) + pick([' ', '.', '-', 'x', ',', 'e']) + s.slice(i);
  }
  return s;
}

test('random quantities agree with an independent BigInt oracle', () => {
  const rand = mulberry32(20240611);
  let accepted = 0;
  let rejectedCount = 0;
  for (let i = 0; i < 20_000; i++) {
    const text = randomQuantity(rand);
    const want = oracle(text);
    const got = parseApiQuantity(text);
    if (!want) {
      assert.equal(got.ok, false, `${JSON.stringify(text)} should be rejected`);
      rejectedCount++;
      continue;
    }
    assert.ok(got.ok, `${JSON.stringify(text)} should parse: ${got.ok ? '' : got.reason}`);
    const q = got.quantity;
    assert.deepEqual({ value: q.value, isInteger: q.isInteger, negative: q.negative, format: q.format }, want, JSON.stringify(text));
    accepted++;
  }
  // the generator must exercise both sides
  assert.ok(accepted > 5_000 && rejectedCount > 1_000, `accepted ${accepted}, rejected ${rejectedCount}`);
});

// ------------------------------------------------------------------------------------------------
// Byte formatting.

test('formatBytes', () => {
  const rows: ReadonlyArray<readonly [number, string]> = [
    [512 * 2 ** 20, '512 MiB'],
    [31.5 * 2 ** 30, '31.5 GiB'],
    [1.2 * 2 ** 40, '1.2 TiB'],
    [0, '0 B'],
    [-0, '0 B'],
    [900, '900 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [1126.4, '1.1 KiB'],
    [2 ** 30 - 1, '1 GiB'], // 1023.999... MiB rounds to 1024 MiB, shown as 1 GiB
    [1.04 * 2 ** 20, '1 MiB'],
    [1.05 * 2 ** 20, '1.1 MiB'],
    [34359738368, '32 GiB'],
    [2 ** 63, '8 EiB'],
    [2 ** 70, '1024 EiB'],
    [-512 * 2 ** 20, '-512 MiB'],
    [0.5, '0.5 B'],
  ];
  for (const [bytes, text] of rows) assert.equal(formatBytes(bytes), text, String(bytes));
  // Never "Infinity B" (issue 17, class 1): a number that is no byte count says so.
  assert.equal(formatBytes(Infinity), 'an out-of-range number of bytes');
  assert.equal(formatBytes(NaN), 'an out-of-range number of bytes');
  assert.equal(describeBytes(-Infinity), 'an out-of-range number of bytes');
});

test('parseQuantity refuses magnitudes above 2^63 that parseApiQuantity keeps (issue 17, class 1)', () => {
  for (const text of ['1e309', '1e308', '-1e309', '1e19', '9223372036854775809000', '1E2147483647', '1'.repeat(400)]) {
    assert.equal(parseApiQuantity(text).ok, true, text.slice(0, 30));
    const r = parseQuantity(text);
    assert.equal(r.ok, false, text.slice(0, 30));
    if (!r.ok) assert.match(r.reason, /^out of range: .* is beyond 2\^63 \(8 EiB\)/);
  }
  // The edges stay: the BinarySI cap (2^63-1, nearest double 2^63), 8Ei itself, and the largest decimal below it.
  for (const [text, value] of [
    ['9Ei', 2 ** 63],
    ['8Ei', 2 ** 63],
    ['9223372036854775807', 2 ** 63],
    ['-8Ei', -(2 ** 63)],
    ['9.2e18', 9.2e18],
  ] as const) {
    const r = parseQuantity(text);
    assert.ok(r.ok, text);
    if (r.ok) assert.equal(r.quantity.value, value, text);
  }
  assert.equal(isQuantityInRange(2 ** 63), true);
  assert.equal(isQuantityInRange(2 ** 63 * 1.0000001), false);
  assert.equal(isQuantityInRange(Infinity), false);
  assert.equal(isQuantityInRange(NaN), false);
});

test('describeBytes', () => {
  const rows: ReadonlyArray<readonly [number, string]> = [
    [34359738368, '34,359,738,368 bytes (32 GiB)'],
    [900, '900 bytes'],
    [1, '1 byte'],
    [0, '0 bytes'],
    [1024, '1,024 bytes (1 KiB)'],
    [-2048, '-2,048 bytes (-2 KiB)'],
    [123456789, '123,456,789 bytes (117.7 MiB)'],
    [2 ** 63, '9,223,372,036,854,775,808 bytes (8 EiB)'],
    [1.5, '1.5 bytes'],
    [102435.84, '102,435.84 bytes (100 KiB)'],
  ];
  for (const [bytes, text] of rows) assert.equal(describeBytes(bytes), text, String(bytes));
});

test('toMemoryQuantity rounds up to a whole Mi, in Gi when whole', () => {
  const rows: ReadonlyArray<readonly [number, string]> = [
    [34359738368, '32Gi'],
    [33285996544, '31Gi'], // exactly 31 Gi
    [33285996545, '31745Mi'],
    [31 * 2 ** 30 - 2 ** 20, '31743Mi'],
    [31.5 * 2 ** 30, '32256Mi'],
    [1, '1Mi'],
    [0.25, '1Mi'],
    [0, '0'],
    [-0, '0'],
    [-5, '0'],
    [2 ** 20, '1Mi'],
    [2 ** 20 + 1, '2Mi'],
    [2 ** 30, '1Gi'],
    [2 ** 30 + 1, '1025Mi'],
    [1.5 * 2 ** 30, '1536Mi'],
    [2 ** 63, '8589934592Gi'],
    [1e300, `${BigInt(1e300 / 2 ** 30)}Gi`],
  ];
  for (const [bytes, text] of rows) assert.equal(toMemoryQuantity(bytes), text, String(bytes));
  // Found by the fuzz suite: 5e-324 / 2^20 underflows to 0, which gave '0', a quantity below the input.
  assert.equal(toMemoryQuantity(5e-324), '1Mi');
  assert.throws(() => toMemoryQuantity(NaN), RangeError);
  assert.throws(() => toMemoryQuantity(Infinity), RangeError);
});

test('toMemoryQuantity output parses back to the smallest whole Mi >= the input', () => {
  const rand = mulberry32(7);
  for (let i = 0; i < 2_000; i++) {
    const bytes = Math.floor(rand() * 2 ** (10 + rand() * 40));
    const text = toMemoryQuantity(bytes);
    const q = parsed(text);
    assert.ok(q.value >= bytes, `${bytes} -> ${text}`);
    assert.ok(bytes === 0 ? q.value === 0 : q.value - bytes < 2 ** 20, `${bytes} -> ${text}`);
    assert.equal(q.format, bytes === 0 ? 'DecimalSI' : 'BinarySI');
    assert.equal(q.isInteger, true);
  }
});
