// Python's operations on JSON values, exactly: format(x, '.2f'), str(), float(), bool(), truthiness,
// string ordering by code point, and dotted lookups. The compare report's bytes depend on each.
import { pyFloatRepr, pyStrRepr } from './value';

export { pyStrRepr };
import { isPySpace, type PyJson, type PyObject } from './json';

const TEN = 10n;

/** x = mantissa * 2^exponent exactly, for a finite non-zero double (sign dropped). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exponent: number;
  if (biased === 0) {
    exponent = -1074; // subnormal
  } else {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  return { mantissa, exponent };
}

/**
 * Python's format(x, f'.{digits}f'): the exact binary value rounded half to even, so
 * 0.125 -> '0.12', 2.675 -> '2.67' (it is 2.67499999...), -0.0 -> '-0.00', 1e300 -> all 301 digits.
 */
export function pyFormatFixed(x: number, digits = 2): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const negative = x < 0 || Object.is(x, -0);
  let scaled: bigint; // round(|x| * 10^digits), half to even
  if (x === 0) {
    scaled = 0n;
  } else {
    const { mantissa, exponent } = decompose(x);
    const pow10 = TEN ** BigInt(digits);
    if (exponent >= 0) {
      scaled = (mantissa << BigInt(exponent)) * pow10;
    } else {
      const num = mantissa * pow10;
      const shift = BigInt(-exponent);
      const den = 1n << shift;
      let q = num >> shift;
      const rem2 = (num - (q << shift)) * 2n;
      if (rem2 > den || (rem2 === den && (q & 1n) === 1n)) q += 1n;
      scaled = q;
    }
  }
  let text = scaled.toString();
  if (digits > 0) {
    if (text.length <= digits) text = '0'.repeat(digits - text.length + 1) + text;
    text = `${text.slice(0, text.length - digits)}.${text.slice(text.length - digits)}`;
  }
  return negative ? `-${text}` : text;
}

/** format(x, '.2f'), the compare report's cell format for floats. */
export function pyFormatFixed2(x: number): string {
  return pyFormatFixed(x, 2);
}

/** str(float): JS's shortest digits where both languages print fixed notation, else Python's repr. */
export function pyFloatStr(x: number): string {
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e16) {
    // Same digits, same notation; Python only adds `.0` to integral values.
    return Number.isInteger(x) ? `${x}.0` : String(x);
  }
  return pyFloatRepr(x);
}

/** Python's repr() of a JSON value. */
export function pyRepr(v: PyJson): string {
  if (typeof v === 'string') return pyStrRepr(v);
  return pyStr(v);
}

/** Python's str() of a JSON value: None, True, 1.0, 1e-05, [1, 'a'], {'k': None}. */
export function pyStr(v: PyJson): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return pyFloatStr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  const parts: string[] = [];
  for (const [k, val] of v) parts.push(`${pyStrRepr(k)}: ${pyRepr(val)}`);
  return `{${parts.join(', ')}}`;
}

/** Python's bool(value). */
export function pyTruthy(v: PyJson | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'number') return v !== 0; // NaN is truthy in Python, and NaN !== 0
  if (Array.isArray(v)) return v.length > 0;
  return v.size > 0;
}

// float() of a str: optional sign, digits with single underscores between them, or inf/infinity/nan.
const PY_FLOAT_RE = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_SPECIAL_RE = /^([+-]?)(inf|infinity|nan)$/i;

/** Python's float(value), or undefined where Python raises TypeError/ValueError. */
export function pyFloat(v: PyJson | undefined): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'string') return undefined;
  let a = 0;
  let b = v.length;
  while (a < b && isPySpace(v.charCodeAt(a))) a++;
  while (b > a && isPySpace(v.charCodeAt(b - 1))) b--;
  const s = v.slice(a, b);
  const special = PY_SPECIAL_RE.exec(s);
  if (special) {
    if (special[2]?.toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  if (!PY_FLOAT_RE.test(s)) return undefined;
  return Number(s.replace(/_/g, ''));
}

/** The playbook's boolean reading: booleans as is; strings true only for 1/true/yes/y in any case; else bool(). */
export function pyBoolish(v: PyJson | undefined): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const low = v.toLowerCase();
    return low === '1' || low === 'true' || low === 'yes' || low === 'y';
  }
  return pyTruthy(v);
}

const splitPaths = new Map<string, readonly string[]>();

/** Dotted lookup through objects only, like the playbook's `_get`: undefined when a step is missing. */
export function pyGet(row: PyObject, path: string): PyJson | undefined {
  // Paths are a handful of constants; splitting each once keeps 100,000-row files free of garbage.
  let parts = splitPaths.get(path);
  if (!parts) splitPaths.set(path, (parts = path.split('.')));
  let cur: PyJson | undefined = row;
  for (const part of parts) {
    if (!(cur instanceof Map)) return undefined;
    cur = cur.get(part);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Python's `<` on two str: code point order (JS `<` compares UTF-16 units, which differs above U+FFFF). */
export function pyStrCompare(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only surrogates (U+D800..U+DFFF) sort differently; lift them above the rest of the BMP.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) {
      const ax = a.codePointAt(i) ?? x;
      const by = b.codePointAt(i) ?? y;
      return ax < by ? -1 : 1;
    }
    return x < y ? -1 : 1;
  }
  return a.length - b.length < 0 ? -1 : a.length === b.length ? 0 : 1;
}
