// Small readers every report section shares: a row field as text or number, distinct non-empty
// values, and the frameworks' display order (the playbook's, then by name).
import { FRAMEWORKS } from '../../frameworks';
import type { PyJson, PyObject } from '../../py/json';
import { pyFloat, pyGet, pyStr, pyStrCompare } from '../../py/ops';

const FRAMEWORK_ORDER = new Map<string, number>(FRAMEWORKS.map((f, i) => [f, i]));

export function frameworkCompare(a: string, b: string): number {
  const x = FRAMEWORK_ORDER.get(a) ?? 99;
  const y = FRAMEWORK_ORDER.get(b) ?? 99;
  return x !== y ? x - y : pyStrCompare(a, b);
}

/** A metric or count as a number; booleans, NaN and absent values are null. */
export function numberOf(v: PyJson | undefined): number | null {
  if (v === undefined || v === null || typeof v === 'boolean') return null;
  const f = pyFloat(v);
  return f === undefined || Number.isNaN(f) ? null : f;
}

/** A field as Python's str(), '' when absent or null. */
export function strAt(row: PyObject, path: string): string {
  const v = pyGet(row, path);
  return v === undefined || v === null ? '' : pyStr(v);
}

/** First-seen order, empty strings dropped. */
export function distinct(values: Iterable<string>): string[] {
  return [...new Set([...values].filter((v) => v !== ''))];
}

/** The manifest's value (when set) first, then each row's value at `path`; each once. */
export function manifestThenRows(manifestValue: string | undefined, rows: ReadonlyArray<{ row: PyObject }>, path: string): string[] {
  return distinct([...(manifestValue ? [manifestValue] : []), ...rows.map((w) => strAt(w.row, path))]);
}

/** Where a row's client ran, in words; nothing for a client beside a local server (or a row that does not say). */
const PLACEMENT_WORDS: Record<string, string> = { host: '(on the server\'s host)', forward: '(through the ssh port forward)' };

/** "name version" of the load client that measured a row, and where it ran when that was not beside the server here ('' when it does not say). */
export function clientOf(row: PyObject): string {
  return [strAt(row, 'client.name'), strAt(row, 'client.version'), PLACEMENT_WORDS[strAt(row, 'client.placement')] ?? ''].filter(Boolean).join(' ');
}
