// The Python behaviours the compare report's bytes depend on: format(x, '.2f'), str(), float(),
// the playbook's boolean reading, code-point string order, and json.loads (values and errors).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePyJson, pyStrip, type PyJson } from '../../../src/core/py/json';
import { pyListSort, pySortedDesc } from '../../../src/core/py/listsort';
import { pyBoolish, pyFloat, pyFormatFixed2, pyRepr, pyStr, pyStrCompare, pyTruthy } from '../../../src/core/py/ops';

const parse = (s: string): PyJson => {
  const r = parsePyJson(s);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.value;
};
const parseError = (s: string): string => {
  const r = parsePyJson(s);
  assert.ok(!r.ok, `expected an error for ${s}`);
  return r.message;
};

describe("format(x, '.2f')", () => {
  test('rounds the exact binary value half to even', () => {
    // 0.125 and 2.375 are exact ties (round to even); 2.675, 1.005, 0.995 and 0.045 sit just below
    // their "half" in binary, so they round down where naive half-up rounding would not.
    assert.equal(pyFormatFixed2(0.125), '0.12');
    assert.equal(pyFormatFixed2(0.375), '0.38');
    assert.equal(pyFormatFixed2(2.375), '2.38');
    assert.equal(pyFormatFixed2(40.125), '40.12');
    assert.equal(pyFormatFixed2(2.675), '2.67');
    assert.equal(pyFormatFixed2(1.005), '1.00');
    assert.equal(pyFormatFixed2(0.995), '0.99');
    assert.equal(pyFormatFixed2(0.045), '0.04');
    assert.equal(pyFormatFixed2(123456789.125), '123456789.12');
  });

  test('keeps the sign of negative zero and of values that round to zero', () => {
    assert.equal(pyFormatFixed2(-0), '-0.00');
    assert.equal(pyFormatFixed2(-0.001), '-0.00');
    assert.equal(pyFormatFixed2(0), '0.00');
    assert.equal(pyFormatFixed2(5e-324), '0.00');
  });

  test('prints every digit of huge values, and inf/nan as Python does', () => {
    assert.equal(pyFormatFixed2(1e22), '10000000000000000000000.00');
    assert.equal(
      pyFormatFixed2(1e300),
      '1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.00',
    );
    assert.equal(pyFormatFixed2(Infinity), 'inf');
    assert.equal(pyFormatFixed2(-Infinity), '-inf');
    assert.equal(pyFormatFixed2(NaN), 'nan');
  });
});

describe('str() and repr()', () => {
  test('floats print like Python, ints (bigint) as digits', () => {
    assert.equal(pyStr(1e-5), '1e-05');
    assert.equal(pyStr(0.1 + 0.2), '0.30000000000000004');
    assert.equal(pyStr(1e16), '1e+16');
    assert.equal(pyStr(1), '1.0');
    assert.equal(pyStr(-0), '-0.0');
    assert.equal(pyStr(2.5e-7), '2.5e-07');
    assert.equal(pyStr(12345678901234567890123n), '12345678901234567890123');
  });

  test('containers print as Python lists and dicts', () => {
    const v = parse('[1, "a", null, true, 1.5, {"k": "v\'q"}]');
    assert.equal(pyStr(v), `[1, 'a', None, True, 1.5, {'k': "v'q"}]`);
    assert.equal(pyRepr('a\u2028b\u0085c\u00e9'), "'a\\u2028b\\x85c\u00e9'");
  });
});

describe('float(), bool() and the playbook boolean', () => {
  test('float() accepts what Python accepts, else undefined', () => {
    assert.equal(pyFloat(' 7 '), 7);
    assert.equal(pyFloat('1_000'), 1000);
    assert.equal(pyFloat('1e3'), 1000);
    assert.equal(pyFloat('.5'), 0.5);
    assert.equal(pyFloat('5.'), 5);
    assert.equal(pyFloat('-Infinity'), -Infinity);
    assert.ok(Number.isNaN(pyFloat('nan')));
    assert.equal(pyFloat(true), 1);
    assert.equal(pyFloat(3n), 3);
    for (const bad of ['abc', '', '1__0', '_1', '1,5', '0x10']) assert.equal(pyFloat(bad), undefined, bad);
    assert.equal(pyFloat(null), undefined);
    assert.equal(pyFloat([] as PyJson), undefined);
  });

  test('strings are true only for 1/true/yes/y in any case; other values by bool()', () => {
    for (const yes of ['1', 'true', 'TRUE', 'True', 'yes', 'Yes', 'Y', 'y']) assert.equal(pyBoolish(yes), true, yes);
    for (const no of ['0', 'false', 'no', 'on', ' true', 'yes ', '', 'passed']) assert.equal(pyBoolish(no), false, no);
    assert.equal(pyBoolish(true), true);
    assert.equal(pyBoolish(1n), true);
    assert.equal(pyBoolish(0n), false);
    assert.equal(pyBoolish(0), false);
    assert.equal(pyBoolish(null), false);
    assert.equal(pyBoolish(undefined), false);
    assert.equal(pyBoolish(parse('[0]')), true);
    assert.equal(pyBoolish(parse('{}')), false);
    assert.equal(pyTruthy(NaN), true);
  });

  test('strings order by code point, as Python compares them', () => {
    // U+FFFD is above every BMP char, and an astral char (UTF-16 surrogates) is above it in Python.
    const sorted = ['\u{1D518}', '\uFFFD', 'b', 'a', 'B'].sort(pyStrCompare);
    assert.deepEqual(sorted, ['B', 'a', 'b', '\uFFFD', '\u{1D518}']);
    assert.equal(pyStrip('\u001c x \u0085'), 'x');
    assert.equal(pyStrip('\ufeff{}'), '\ufeff{}');
  });
});

describe('json.loads', () => {
  test('ints stay ints, floats stay floats, objects keep first-key order and last value', () => {
    const v = parse('{"b": 1, "a": 1.0, "b": 2, "big": 12345678901234567890123, "e": 1E2, "neg": -0}');
    assert.ok(v instanceof Map);
    assert.deepEqual([...v.keys()], ['b', 'a', 'big', 'e', 'neg']);
    assert.equal(v.get('b'), 2n);
    assert.equal(v.get('a'), 1);
    assert.equal(v.get('big'), 12345678901234567890123n);
    assert.equal(v.get('e'), 100);
    assert.equal(v.get('neg'), 0n);
    assert.equal(pyStr(parse('"\\ud83d\\ude00"')), '\u{1F600}');
    assert.equal(pyStr(parse('"\\u00e9\\n"')), '\u00e9\n');
    assert.equal(parse('1e400'), Infinity);
  });

  test("errors read like Python's", () => {
    assert.equal(parseError('{"a": }'), 'Expecting value: line 1 column 7 (char 6)');
    assert.equal(parseError('{"a":1,}'), 'Expecting property name enclosed in double quotes: line 1 column 8 (char 7)');
    assert.equal(parseError('[1 2]'), "Expecting ',' delimiter: line 1 column 4 (char 3)");
    assert.equal(parseError('{"a" 1}'), "Expecting ':' delimiter: line 1 column 6 (char 5)");
    assert.equal(parseError('"abc'), 'Unterminated string starting at: line 1 column 1 (char 0)');
    assert.equal(parseError('"\\q"'), 'Invalid \\escape: line 1 column 2 (char 1)');
    assert.equal(parseError('"\\u12"'), 'Invalid \\uXXXX escape: line 1 column 3 (char 2)');
    assert.equal(parseError('{"a":"\u0001"}'), 'Invalid control character at: line 1 column 7 (char 6)');
    assert.equal(parseError('{"a":1}x'), 'Extra data: line 1 column 8 (char 7)');
    assert.equal(parseError('01'), 'Extra data: line 1 column 2 (char 1)');
    assert.equal(parseError('\ufeff{}'), 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)');
    // Positions count code points, as Python's do.
    assert.equal(parseError('["\u{1F600}" x]'), "Expecting ',' delimiter: line 1 column 6 (char 5)");
  });

  test('NaN and Infinity literals are refused unless asked for (compare reads them, as Python does)', () => {
    assert.match(parseError('{"a": NaN}'), /^NaN is not a JSON number .*: line 1 column 7 \(char 6\)$/);
    assert.match(parseError('[Infinity]'), /^Infinity is not a JSON number/);
    assert.match(parseError('[-Infinity]'), /^-Infinity is not a JSON number/);
  });

  test('with nonFinite, NaN, Infinity and -Infinity are the numbers Python reads', () => {
    const r = parsePyJson('[NaN, Infinity, -Infinity, -1]', { nonFinite: true });
    assert.ok(r.ok);
    assert.deepEqual(r.value, [NaN, Infinity, -Infinity, -1n]);
    assert.equal(parsePyJson('[+Infinity]', { nonFinite: true }).ok, false);
  });

  test('hostile nesting ends in an error, not a stack overflow', () => {
    assert.match(parseError('['.repeat(100_000)), /nesting too deep/);
  });
});

describe("CPython's list.sort (py/listsort.ts)", () => {
  test('with a consistent `<` it is a stable sort, at every size and shape (runs, reversals, duplicates, galloping)', () => {
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const n of [0, 1, 2, 5, 63, 64, 65, 200, 1000, 5000]) {
      for (const shape of ['random', 'dups', 'sorted', 'reversed', 'sawtooth']) {
        const xs = Array.from({ length: n }, (_, i) => {
          const v = shape === 'random' ? rand() : shape === 'dups' ? Math.floor(rand() * 5) : shape === 'sorted' ? i : shape === 'reversed' ? n - i : i % 37;
          return { v, i };
        });
        const mine = [...xs];
        pyListSort(mine, (a, b) => a.v < b.v);
        const stable = [...xs].sort((a, b) => a.v - b.v || a.i - b.i);
        assert.deepEqual(mine.map((x) => x.i), stable.map((x) => x.i), `${shape} ${n}`);
        assert.deepEqual(pySortedDesc(xs, (a, b) => a.v < b.v).map((x) => x.i), [...xs].sort((a, b) => b.v - a.v || a.i - b.i).map((x) => x.i), `desc ${shape} ${n}`);
      }
    }
  });

  test('with NaN it compares what CPython compares, so the order is the one Python leaves', () => {
    // Python 3.11.7: sorted([3.0, nan, 1.0, 2.0]) is [3.0, nan, 1.0, 2.0]; sorted([2.0, 1.0, nan, 0.5]) is [0.5, 1.0, 2.0, nan].
    const a = [3, NaN, 1, 2];
    pyListSort(a, (x, y) => x < y);
    assert.deepEqual(a, [3, NaN, 1, 2]);
    const b = [2, 1, NaN, 0.5];
    pyListSort(b, (x, y) => x < y);
    assert.deepEqual(b, [0.5, 1, 2, NaN]);
  });
});
