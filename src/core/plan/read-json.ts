// Small readers over a config's plain-JSON view (the parsed tree as JSON values): objects, numbers, strings, lists.
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const objAt = (v: unknown): Obj => (isObj(v) ? v : {});
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** A string, or a number written where a name was meant (`gpu_model: 4090`). */
export const strOrNum = (v: unknown): string | undefined => str(v) ?? (typeof v === 'number' ? String(v) : undefined);

/** One value or a list of values, each kept when `each` accepts it; undefined when absent. */
export function listOf<T>(v: unknown, each: (x: unknown) => T | undefined): T[] | undefined {
  if (v === undefined || v === null) return undefined;
  const items = Array.isArray(v) ? v : [v];
  const out: T[] = [];
  for (const x of items) {
    const t = each(x);
    if (t !== undefined) out.push(t);
  }
  return out;
}
