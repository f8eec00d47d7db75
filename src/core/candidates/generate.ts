// Candidate flag sets from base flags and a search space: the playbook's bounded product and a coverage-first order.
import { PyFloat, pyEqual } from '../py/value';
import type { PyValue } from '../py/value';

/** Server flags by config key, in the order they render. */
export type FlagMap = Map<string, PyValue>;

export interface Combination {
  /** 0 for the baseline. */
  index: number;
  /** `baseline` for index 0, else `c<index>`. */
  id: string;
  flags: FlagMap;
  /** The search assignment this candidate applies, in search key order (empty for the baseline). */
  overrides: Map<string, PyValue>;
}

export type CandidateStrategy = 'baseline_first_bounded_product' | 'coverage_first';

export interface StrategyResult {
  candidates: Combination[];
  /** Generation stopped at MAX_EXAMINED_COMBINATIONS before the budget or the space ran out. */
  truncated: boolean;
}

export interface GenerationResult extends StrategyResult {
  /** Size of the raw product of the search values (Infinity when beyond a double). */
  totalCombinations: number;
  /** Search values that no candidate's flags carry, in search key and value order. */
  untried: Array<{ key: string; value: PyValue }>;
}

/** Safety net so a pathological space cannot hang validation (see `truncated`). */
export const MAX_EXAMINED_COMBINATIONS = 100_000;

/** A scalar counts as a one-element list, like the playbook's `v if isinstance(v, list) else [v]`. */
function valuesOf(v: PyValue): PyValue[] {
  return Array.isArray(v) ? v : [v];
}

/**
 * Drops repeats within one key's values. In lexicographic product order every combination
 * using a later copy equals one already seen, so this changes nothing in the result — and it
 * means distinct combinations give distinct flag maps, so duplicates cannot pile up. Values
 * are compared only with those of the same `canonical` key (equal values share it), so that a
 * list of thousands of values is not compared pair by pair.
 */
function distinctValues(values: PyValue[]): PyValue[] {
  const out: PyValue[] = [];
  const kept = new Map<string, PyValue[]>();
  for (const v of values) {
    const key = canonical(v);
    const same = kept.get(key);
    if (same?.some((o) => valueEqual(o, v))) continue;
    if (same) same.push(v);
    else kept.set(key, [v]);
    out.push(v);
  }
  return out;
}

// Null counts as absent (see flagsEqual), so two nulls are one value and null never equals a real value.
function valueEqual(a: PyValue, b: PyValue): boolean {
  if (a === null || b === null) return a === b;
  return pyEqual(a, b);
}

/**
 * Python dict equality with one deliberate change: a key whose value is null is treated as
 * absent, because null renders as nothing — `{x: None}` and `{}` give the same command, and
 * listing both would run the same server twice. (Python's script compares raw dicts and would
 * list such a pair twice.)
 */
export function flagsEqual(a: FlagMap, b: FlagMap): boolean {
  const live = (m: FlagMap) => [...m].filter(([, v]) => v !== null);
  const la = live(a);
  const lb = live(b);
  if (la.length !== lb.length) return false;
  return la.every(([k, v]) => b.has(k) && valueEqual(v, b.get(k) as PyValue));
}

/** A hash consistent with flagsEqual (equal maps give equal keys), to avoid quadratic scans. */
function canonical(v: PyValue): string {
  if (v === null) return 'N';
  if (typeof v === 'boolean') return `n${Number(v)}`;
  if (typeof v === 'number') return `n${v}`;
  if (v instanceof PyFloat) return `n${v.value}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const entries = [...v].map(([k, val]) => `${canonical(k)}:${canonical(val)}`).sort();
  return `{${entries.join(',')}}`;
}

function flagsKey(m: FlagMap): string {
  return [...m]
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${JSON.stringify(k)}=${canonical(v)}`)
    .sort()
    .join(';');
}

/** The growing candidate list with duplicate detection. */
class CandidateList {
  readonly items: Combination[] = [];
  private readonly buckets = new Map<string, FlagMap[]>();
  constructor(readonly max: number) {}

  get full(): boolean {
    return this.items.length >= this.max;
  }

  /** Adds unless equal to one already listed; returns whether it was added. */
  add(flags: FlagMap, overrides: Map<string, PyValue>): boolean {
    const key = flagsKey(flags);
    const bucket = this.buckets.get(key) ?? [];
    if (bucket.some((f) => flagsEqual(f, flags))) return false;
    bucket.push(flags);
    this.buckets.set(key, bucket);
    const index = this.items.length;
    this.items.push({ index, id: index === 0 ? 'baseline' : `c${index}`, flags, overrides });
    return true;
  }
}

/** Base flags overridden by an assignment: base keys keep their place, new keys are appended. */
function applyOverrides(base: FlagMap, overrides: Map<string, PyValue>): FlagMap {
  const flags: FlagMap = new Map(base);
  for (const [k, v] of overrides) flags.set(k, v);
  return flags;
}

/** Mixed-radix counter over value indices, the last position fastest (itertools.product order). */
function* product(sizes: number[]): Generator<number[]> {
  if (sizes.some((n) => n === 0)) return;
  const idx = sizes.map(() => 0);
  for (;;) {
    yield [...idx];
    let p = sizes.length - 1;
    while (p >= 0 && (idx[p] as number) + 1 === sizes[p]) {
      idx[p] = 0;
      p--;
    }
    if (p < 0) return;
    idx[p] = (idx[p] as number) + 1;
  }
}

/** k-element subsets of 0..n-1 in lexicographic order, like itertools.combinations. */
function* subsets(n: number, k: number): Generator<number[]> {
  if (k > n) return;
  const pick = Array.from({ length: k }, (_, i) => i);
  for (;;) {
    yield [...pick];
    let p = k - 1;
    while (p >= 0 && pick[p] === n - k + p) p--;
    if (p < 0) return;
    pick[p] = (pick[p] as number) + 1;
    for (let q = p + 1; q < k; q++) pick[q] = (pick[q - 1] as number) + 1;
  }
}

function normalizedMax(max: number): number {
  if (Number.isNaN(max) || max < 1) return 0;
  return Math.floor(max);
}

interface Space {
  keys: string[];
  values: PyValue[][];
}

function spaceOf(searchSpace: Map<string, PyValue>): Space {
  const keys = [...searchSpace.keys()];
  return { keys, values: keys.map((k) => distinctValues(valuesOf(searchSpace.get(k) as PyValue))) };
}

/**
 * Feeds assignments (value index per search key) into the list until it is full, the source
 * ends, or MAX_EXAMINED_COMBINATIONS were looked at. Returns whether it stopped on that cap.
 */
function fill(list: CandidateList, base: FlagMap, space: Space, assignments: Iterable<number[]>): boolean {
  let examined = 0;
  for (const idx of assignments) {
    if (list.full) return false;
    if (examined >= MAX_EXAMINED_COMBINATIONS) return true;
    examined++;
    const overrides = new Map<string, PyValue>();
    space.keys.forEach((k, i) => overrides.set(k, space.values[i]?.[idx[i] as number] as PyValue));
    list.add(applyOverrides(base, overrides), overrides);
  }
  return false;
}

/**
 * The playbook's order: baseline, then the product of the search values (last key fastest),
 * skipping duplicates, stopping at `max` entries. Deliberate difference: max=1 gives only the
 * baseline (Python appends before checking the bound and yields two). `max` below 1 gives none.
 */
export function boundedProduct(base: FlagMap, searchSpace: Map<string, PyValue>, max: number): StrategyResult {
  const list = new CandidateList(normalizedMax(max));
  if (list.full) return { candidates: list.items, truncated: false };
  list.add(new Map(base), new Map());
  const space = spaceOf(searchSpace);
  const truncated = fill(list, base, space, product(space.values.map((v) => v.length)));
  return { candidates: list.items, truncated };
}

export function baselineFirstBoundedProduct(base: FlagMap, searchSpace: Map<string, PyValue>, max: number): Combination[] {
  return boundedProduct(base, searchSpace, max).candidates;
}

/**
 * Every combination of the product, reordered so values spread early: each key has a reference
 * value (its base value when that is one of its search values, else its first value). After the
 * all-reference combination come the combinations where exactly one key leaves its reference
 * (keys in order, values in order), then exactly two (key pairs in itertools.combinations order),
 * and so on. So with budget 2 + Σ(len(values) - 1) every value has run at least once, and with an
 * unlimited budget the set equals the bounded product's — only the order differs.
 */
function* coverageOrder(space: Space, refs: number[]): Generator<number[]> {
  const n = space.keys.length;
  if (space.values.some((v) => v.length === 0)) return;
  yield [...refs];
  // Per key, the value indices other than its reference.
  const others = space.values.map((vals, i) => vals.map((_, j) => j).filter((j) => j !== refs[i]));
  for (let k = 1; k <= n; k++) {
    for (const keys of subsets(n, k)) {
      const choices = keys.map((key) => others[key] as number[]);
      for (const pick of product(choices.map((c) => c.length))) {
        const idx = [...refs];
        keys.forEach((key, p) => (idx[key] = (choices[p] as number[])[pick[p] as number] as number));
        yield idx;
      }
    }
  }
}

export function coverageFirstResult(base: FlagMap, searchSpace: Map<string, PyValue>, max: number): StrategyResult {
  const list = new CandidateList(normalizedMax(max));
  if (list.full) return { candidates: list.items, truncated: false };
  list.add(new Map(base), new Map());
  const space = spaceOf(searchSpace);
  const refs = space.keys.map((k, i) => {
    const vals = space.values[i] as PyValue[];
    const baseValue = base.get(k) ?? null;
    const at = vals.findIndex((v) => valueEqual(v, baseValue));
    return at < 0 ? 0 : at;
  });
  const truncated = fill(list, base, space, coverageOrder(space, refs));
  return { candidates: list.items, truncated };
}

export function coverageFirst(base: FlagMap, searchSpace: Map<string, PyValue>, max: number): Combination[] {
  return coverageFirstResult(base, searchSpace, max).candidates;
}

/** Raw product size as the user would multiply it (repeats counted), capped at Infinity. */
export function totalCombinations(searchSpace: Map<string, PyValue>): number {
  let total = 1;
  for (const v of searchSpace.values()) total *= valuesOf(v).length;
  return total;
}

/** Search values that no candidate's flags carry (null counts as carried by an absent key). */
export function untriedValues(candidates: Combination[], searchSpace: Map<string, PyValue>): Array<{ key: string; value: PyValue }> {
  const out: Array<{ key: string; value: PyValue }> = [];
  for (const [key, raw] of searchSpace) {
    for (const value of distinctValues(valuesOf(raw))) {
      const tried = candidates.some((c) => valueEqual(c.flags.get(key) ?? null, value));
      if (!tried) out.push({ key, value });
    }
  }
  return out;
}

export function generateCandidates(
  strategy: CandidateStrategy,
  base: FlagMap,
  searchSpace: Map<string, PyValue>,
  max: number,
): GenerationResult {
  const result =
    strategy === 'coverage_first' ? coverageFirstResult(base, searchSpace, max) : boundedProduct(base, searchSpace, max);
  return {
    ...result,
    totalCombinations: totalCombinations(searchSpace),
    untried: untriedValues(result.candidates, searchSpace),
  };
}
