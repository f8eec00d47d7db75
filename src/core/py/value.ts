// Values as Python's yaml.safe_load would hold them, and how Python prints them (str/repr).

/**
 * A float that JavaScript would print as an integer (1.0, 1e3 written `1000.0`) or a
 * non-finite one. Non-integral floats stay plain numbers: they print the same in both.
 */
export class PyFloat {
  constructor(readonly value: number) {}
  toString(): string {
    return pyFloatRepr(this.value);
  }
}

export type PyScalar = null | boolean | number | string | PyFloat;
export type PyMap = Map<PyScalar, PyValue>;
export type PyValue = PyScalar | PyValue[] | PyMap;

export function isPyMap(v: PyValue | undefined): v is PyMap {
  return v instanceof Map;
}

/** A Python int: a JS integer that did not come from a float literal (bool excluded). */
export function isPyInt(v: PyValue | undefined): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

export function isPyNumber(v: PyValue | undefined): boolean {
  return typeof v === 'number' || v instanceof PyFloat;
}

/** The numeric value of an int or float, else undefined. */
export function pyNumber(v: PyValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof PyFloat) return v.value;
  return undefined;
}

/** Python's repr(float): shortest round-trip digits, exponent outside [1e-4, 1e16). */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expStr] = x.toExponential().split('e') as [string, string];
  const exp = Number(expStr);
  if (exp < -4 || exp >= 16) {
    const digits = mant.includes('.') ? mant : mant;
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${digits}e${sign}${abs < 10 ? '0' : ''}${abs}`;
  }
  const neg = x < 0;
  const ds = mant.replace('-', '').replace('.', '');
  let out: string;
  if (exp >= 0) {
    out = ds.length <= exp + 1 ? ds + '0'.repeat(exp + 1 - ds.length) + '.0' : `${ds.slice(0, exp + 1)}.${ds.slice(exp + 1)}`;
  } else {
    out = `0.${'0'.repeat(-exp - 1)}${ds}`;
  }
  return neg ? `-${out}` : out;
}

/** Python's repr() of a str: quotes chosen as Python chooses them, unprintable characters escaped. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp > 0x7f && !isPrintable(ch)) {
      const hex = cp.toString(16);
      out += cp <= 0xff ? `\\x${hex.padStart(2, '0')}` : cp <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

// Python's str.isprintable(): not Other (Cc, Cf, Cs, Co, Cn) and not a separator other than space.
const UNPRINTABLE = /[\p{C}\p{Z}]/u;
function isPrintable(ch: string): boolean {
  return ch === ' ' || !UNPRINTABLE.test(ch);
}

/** Python's repr() of a value. */
export function pyRepr(v: PyValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return pyStrRepr(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${[...v].map(([k, val]) => `${pyRepr(k)}: ${pyRepr(val)}`).join(', ')}}`;
}

/** Python's str() of a value (repr except for plain strings). */
export function pyStr(v: PyValue): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** Python's == between two loaded values (1 == 1.0 == True, dicts ignore order). */
export function pyEqual(a: PyValue, b: PyValue): boolean {
  const na = typeof a === 'boolean' ? Number(a) : pyNumber(a);
  const nb = typeof b === 'boolean' ? Number(b) : pyNumber(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na === nb;
  if (a === null || b === null || typeof a === 'string' || typeof b === 'string') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEqual(x, b[i] as PyValue));
  }
  if (!(a instanceof Map) || !(b instanceof Map)) return false;
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    if (!b.has(k) || !pyEqual(v, b.get(k) as PyValue)) return false;
  }
  return true;
}

/** Plain JSON for schema checks and --json output (Map -> object, PyFloat -> number). */
export function toJson(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value;
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, val] of v) o[k instanceof PyFloat ? pyFloatRepr(k.value) : String(k)] = toJson(val);
    return o;
  }
  return v;
}
