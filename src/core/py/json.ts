// Reads one JSONL line the way Python's json.loads does: ints stay ints (bigint), floats stay
// floats (number), objects keep key order (Map), and errors carry Python's wording and positions.

/** A JSON value as Python holds it: `bigint` is a Python int, `number` a Python float. */
export type PyJson = null | boolean | string | number | bigint | PyJson[] | PyObject;
export type PyObject = Map<string, PyJson>;

export type JsonParse = { ok: true; value: PyJson } | { ok: false; message: string };

const SMALL_INTS: readonly bigint[] = Array.from({ length: 10_000 }, (_, i) => BigInt(i));

/** Nesting deeper than this is refused (Python would hit its recursion limit near 1,000). */
const MAX_DEPTH = 512;

class ParseError extends Error {
  constructor(
    readonly msg: string,
    readonly pos: number,
  ) {
    super(msg);
  }
}

const isWs = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Python's str.isspace() for one UTF-16 unit (every Python whitespace char is in the BMP). */
export function isPySpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    (c >= 0x1c && c <= 0x20) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Python's str.strip() with no argument (JS trim() differs: it strips U+FEFF, keeps U+001C..U+001F and U+0085). */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isPySpace(s.charCodeAt(a))) a++;
  while (b > a && isPySpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** Python counts positions in code points; JS strings index UTF-16 units. */
function codePointIndex(s: string, unitIndex: number): number {
  let n = 0;
  for (let i = 0; i < unitIndex && i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff && i + 1 < unitIndex) i++;
    }
    n++;
  }
  return n;
}

class Parser {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly nonFinite = false,
  ) {}

  parseDocument(): PyJson {
    const s = this.s;
    if (s.charCodeAt(0) === 0xfeff) throw new ParseError('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    this.skipWs();
    const v = this.value(0);
    this.skipWs();
    if (this.i !== s.length) throw new ParseError('Extra data', this.i);
    return v;
  }

  private skipWs(): void {
    const s = this.s;
    while (this.i < s.length && isWs(s.charCodeAt(this.i))) this.i++;
  }

  private value(depth: number): PyJson {
    const s = this.s;
    const at = this.i;
    if (at >= s.length) throw new ParseError('Expecting value', at);
    const c = s.charCodeAt(at);
    switch (c) {
      case 0x22: // "
        return this.string();
      case 0x7b: // {
        return this.object(depth + 1);
      case 0x5b: // [
        return this.array(depth + 1);
      case 0x6e: // n
        if (s.startsWith('null', at)) {
          this.i += 4;
          return null;
        }
        break;
      case 0x74: // t
        if (s.startsWith('true', at)) {
          this.i += 4;
          return true;
        }
        break;
      case 0x66: // f
        if (s.startsWith('false', at)) {
          this.i += 5;
          return false;
        }
        break;
      case 0x4e: // N
        if (s.startsWith('NaN', at)) return this.special('NaN', NaN);
        break;
      case 0x49: // I
        if (s.startsWith('Infinity', at)) return this.special('Infinity', Infinity);
        break;
      case 0x2d: // -
        if (s.startsWith('-Infinity', at)) return this.special('-Infinity', -Infinity);
        break;
    }
    if (c === 0x2d || isDigit(c)) return this.number();
    throw new ParseError('Expecting value', at);
  }

  /** NaN, Infinity or -Infinity: read as Python reads them when asked for (nonFinite), else refused. */
  private special(literal: string, value: number): number {
    if (!this.nonFinite) throw new ParseError(`${literal} is not a JSON number (write null for a missing value)`, this.i);
    this.i += literal.length;
    return value;
  }

  private number(): number | bigint {
    const s = this.s;
    const start = this.i;
    let j = start;
    if (s.charCodeAt(j) === 0x2d) j++;
    if (j >= s.length || !isDigit(s.charCodeAt(j))) throw new ParseError('Expecting value', start);
    if (s.charCodeAt(j) === 0x30) j++;
    else while (j < s.length && isDigit(s.charCodeAt(j))) j++;
    let isFloat = false;
    // A fraction or exponent only counts when digits follow, as in Python's NUMBER_RE.
    if (s.charCodeAt(j) === 0x2e && isDigit(s.charCodeAt(j + 1))) {
      j += 2;
      while (j < s.length && isDigit(s.charCodeAt(j))) j++;
      isFloat = true;
    }
    const e = s.charCodeAt(j);
    if (e === 0x65 || e === 0x45) {
      let k = j + 1;
      const sign = s.charCodeAt(k);
      if (sign === 0x2b || sign === 0x2d) k++;
      if (isDigit(s.charCodeAt(k))) {
        while (k < s.length && isDigit(s.charCodeAt(k))) k++;
        j = k;
        isFloat = true;
      }
    }
    this.i = j;
    if (!isFloat && j - start <= 4) {
      // Small ints (gpu counts, lengths, ids) are most of them: reuse one bigint per value.
      const n = Number(s.slice(start, j));
      if (n >= 0 && n < SMALL_INTS.length) return SMALL_INTS[n] as bigint;
    }
    const text = s.slice(start, j);
    return isFloat ? Number(text) : BigInt(text);
  }

  private string(): string {
    const s = this.s;
    const begin = this.i; // the opening quote
    let j = begin + 1;
    let out = '';
    let chunk = j;
    for (;;) {
      if (j >= s.length) throw new ParseError('Unterminated string starting at', begin);
      const c = s.charCodeAt(j);
      if (c === 0x22) {
        out += s.slice(chunk, j);
        this.i = j + 1;
        return out;
      }
      if (c < 0x20) throw new ParseError('Invalid control character at', j);
      if (c !== 0x5c) {
        j++;
        continue;
      }
      out += s.slice(chunk, j);
      if (j + 1 >= s.length) throw new ParseError('Unterminated string starting at', begin);
      const esc = s[j + 1];
      switch (esc) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const unit = this.hex4(j + 2, j + 1);
          let k = j + 6;
          let cp = unit;
          // A high surrogate followed by an escaped low surrogate is one character, as in Python.
          if (unit >= 0xd800 && unit <= 0xdbff && s[k] === '\\' && s[k + 1] === 'u') {
            const low = this.hex4(k + 2, k + 1);
            if (low >= 0xdc00 && low <= 0xdfff) {
              cp = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
              k += 6;
            }
          }
          out += cp > 0xffff ? String.fromCodePoint(cp) : String.fromCharCode(cp);
          j = k;
          chunk = j;
          continue;
        }
        default:
          throw new ParseError('Invalid \\escape', j);
      }
      j += 2;
      chunk = j;
    }
  }

  private hex4(at: number, errAt: number): number {
    const s = this.s;
    if (at + 4 > s.length) throw new ParseError('Invalid \\uXXXX escape', errAt);
    let v = 0;
    for (let k = at; k < at + 4; k++) {
      const c = s.charCodeAt(k);
      let d: number;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      else throw new ParseError('Invalid \\uXXXX escape', errAt);
      v = v * 16 + d;
    }
    return v;
  }

  private object(depth: number): PyObject {
    if (depth > MAX_DEPTH) throw new ParseError('nesting too deep', this.i);
    const s = this.s;
    const out: PyObject = new Map();
    this.i++;
    this.skipWs();
    if (s.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return out;
    }
    for (;;) {
      if (s.charCodeAt(this.i) !== 0x22) throw new ParseError('Expecting property name enclosed in double quotes', this.i);
      const key = this.string();
      this.skipWs();
      if (s.charCodeAt(this.i) !== 0x3a) throw new ParseError("Expecting ':' delimiter", this.i);
      this.i++;
      this.skipWs();
      out.set(key, this.value(depth));
      this.skipWs();
      const c = s.charCodeAt(this.i);
      if (c === 0x7d) {
        this.i++;
        return out;
      }
      if (c !== 0x2c) throw new ParseError("Expecting ',' delimiter", this.i);
      this.i++;
      this.skipWs();
    }
  }

  private array(depth: number): PyJson[] {
    if (depth > MAX_DEPTH) throw new ParseError('nesting too deep', this.i);
    const s = this.s;
    const out: PyJson[] = [];
    this.i++;
    this.skipWs();
    if (s.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.skipWs();
      const c = s.charCodeAt(this.i);
      if (c === 0x5d) {
        this.i++;
        return out;
      }
      if (c !== 0x2c) throw new ParseError("Expecting ',' delimiter", this.i);
      this.i++;
      this.skipWs();
    }
  }
}

/**
 * Parses one JSON text like Python's json.loads. NaN, Infinity and -Infinity literals are refused
 * (they are not JSON and silently poison ranks) unless `nonFinite`: `compare` reads them as the
 * playbook's script does, since rows written by Python tools contain them.
 * The message reads like Python's: `Expecting ',' delimiter: line 1 column 12 (char 11)`.
 */
export function parsePyJson(text: string, opts: { nonFinite?: boolean } = {}): JsonParse {
  try {
    return { ok: true, value: new Parser(text, opts.nonFinite === true).parseDocument() };
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    const pos = codePointIndex(text, e.pos);
    return { ok: false, message: `${e.msg}: line 1 column ${pos + 1} (char ${pos})` };
  }
}

export function isPyObject(v: PyJson | undefined): v is PyObject {
  return v instanceof Map;
}

/** Plain JSON (ints as numbers, objects as plain objects) for schema checks and the webview. */
export function toPlainJson(v: PyJson): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    // defineProperty: a `__proto__` key must stay an ordinary own property.
    for (const [k, val] of v) Object.defineProperty(o, k, { value: toPlainJson(val), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}

/** Plain JSON (as JSON.stringify would write it: undefined dropped, non-finite numbers null) to the Python-typed shape, without text. */
export function fromPlainJson(v: unknown): PyJson {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map((x) => (x === undefined || typeof x === 'function' ? null : fromPlainJson(x)));
  if (typeof v === 'object') {
    const m: PyObject = new Map();
    for (const [k, x] of Object.entries(v)) if (x !== undefined && typeof x !== 'function') m.set(k, fromPlainJson(x));
    return m;
  }
  return null;
}
