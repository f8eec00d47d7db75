// A flag value in one spelling for its flag kind (numbers as JS prints them, booleans as true/false, JSON with sorted keys), so two command lines that give the same setting compare equal: the simulator's perturbation and efficiency terms key on it.
import type { FlagSpec } from '../core/frameworks/types';

/** JSON with object keys sorted, so equal objects give equal text. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** A JSON flag's text in one spelling (whitespace and key order do not matter); unparsable text stays as given. */
function canonicalJson(text: string): string {
  try {
    return stableJson(JSON.parse(text));
  } catch {
    return text.trim();
  }
}

/** A string value in one spelling for its flag kind: numbers as JS prints them, booleans as true/false, JSON sorted. */
function canonicalString(s: string, spec: FlagSpec | undefined): string {
  const t = s.trim();
  const kind = spec?.kind;
  if ((kind === undefined || kind === 'int' || kind === 'float') && t !== '' && Number.isFinite(Number(t))) return String(Number(t));
  if ((kind === undefined || kind === 'bool') && /^(true|false)$/i.test(t)) return t.toLowerCase();
  if (kind === 'json') return canonicalJson(t);
  return t;
}

/**
 * A flag value as one canonical string (128 and "128" alike; booleans `true`/`false`; a list's items joined by
 * spaces, so a one-item list reads as its item), or undefined for no value (undefined, null, an empty list).
 */
export function canonicalValue(v: unknown, spec?: FlagSpec): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return canonicalString(v, spec);
  if (Array.isArray(v)) {
    const items = v.map((x) => canonicalValue(x, spec && spec.kind === 'list' ? undefined : spec)).filter((x): x is string => x !== undefined);
    return items.length ? items.join(' ') : undefined;
  }
  return stableJson(v);
}
