// The playbook's ranking, exactly (CONTRACTS.md): the rank key, winner candidates, the scenario
// fallback and the best row per (framework, scenario), with Python's tuple and sort semantics.
import type { PyJson, PyObject } from '../py/json';
import { pySortedDesc } from '../py/listsort';
import { pyBoolish, pyFloat, pyGet, pyStr, pyStrCompare, pyTruthy } from '../py/ops';

/** Where a value is missing, latency and GPU count rank as the worst possible value. */
export const WORST = 1e30;

/** (ok, sla passed, req/s, output tok/s, -TTFT, -TPOT, -GPUs); compared like a Python tuple. */
export type RankKey = readonly [number, number, number, number, number, number, number];

/** float(m[key]) of a sub-object, or the default (missing key, not an object, or float() raising). */
function floatIn(m: PyJson | undefined, key: string, dflt: number): number {
  if (!(m instanceof Map)) return dflt;
  const v = m.get(key);
  return v === undefined ? dflt : (pyFloat(v) ?? dflt);
}

/** p50 when the row has one (not null), else mean, else the worst value. */
function p50OrMean(metrics: PyJson | undefined, metric: 'ttft' | 'tpot'): number {
  const p50 = metrics instanceof Map ? metrics.get(`p50_${metric}_ms`) : undefined;
  if (p50 !== undefined && p50 !== null) return pyFloat(p50) ?? WORST;
  return floatIn(metrics, `mean_${metric}_ms`, WORST);
}

export function isOk(row: PyObject): boolean {
  return row.get('status') === 'ok';
}

export function slaPassedAsWritten(row: PyObject): boolean {
  const sla = row.get('sla');
  const v = sla instanceof Map ? sla.get('passed') : undefined;
  return v === undefined ? false : pyBoolish(v);
}

export function rankKey(row: PyObject): RankKey {
  // Each sub-object is fetched once: this runs for every row of 100,000-row files.
  const metrics = row.get('metrics');
  return [
    isOk(row) ? 1 : 0,
    slaPassedAsWritten(row) ? 1 : 0,
    floatIn(metrics, 'request_throughput', 0),
    floatIn(metrics, 'output_token_throughput', 0),
    -p50OrMean(metrics, 'ttft'),
    -p50OrMean(metrics, 'tpot'),
    -floatIn(row.get('hardware'), 'gpu_count', WORST),
  ];
}

/**
 * Which rank-key elements are the JSON `NaN` itself, a bit per index. Python's json returns one NaN object for every
 * `NaN` literal and tuples compare elements by identity first, so two rows' req/s or output tok/s NaN are equal there;
 * a NaN from a string (`float("nan")`) or negated (the latency and GPU elements) is a new object, equal to nothing.
 */
export function sameNaNMask(row: PyObject): number {
  const metrics = row.get('metrics');
  if (!(metrics instanceof Map)) return 0;
  const literal = (key: string): boolean => {
    const v = metrics.get(key);
    return typeof v === 'number' && Number.isNaN(v);
  };
  return (literal('request_throughput') ? 1 << 2 : 0) | (literal('output_token_throughput') ? 1 << 3 : 0);
}

/**
 * Python's `a < b` on two tuples of floats: the first unequal element decides (NaN is never equal to a number, and
 * equal to a NaN only where both masks say it is the same object: sameNaNMask).
 */
export function tupleLt(a: readonly number[], b: readonly number[], ma = 0, mb = 0): boolean {
  const n = Math.min(a.length, b.length);
  const same = ma & mb;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x === y || (same & (1 << i)) !== 0) continue;
    return x < y;
  }
  return a.length < b.length;
}

export function tupleGt(a: readonly number[], b: readonly number[], ma = 0, mb = 0): boolean {
  return tupleLt(b, a, mb, ma);
}

/** A row that may win: status ok and sla.passed true as written. */
export function isWinnerCandidate(row: PyObject): boolean {
  return isOk(row) && slaPassedAsWritten(row);
}

const WORKLOAD_SCENARIO_KEYS = ['scenario', 'scenario_name', 'dataset_scenario', 'dataset_name', 'kind'];

/** The first truthy of workload.{scenario, scenario_name, dataset_scenario, dataset_name, kind}, then top-level scenario, as str(); else `default`. */
export function scenarioOf(row: PyObject): string {
  const w = row.get('workload');
  if (w instanceof Map) {
    for (const k of WORKLOAD_SCENARIO_KEYS) {
      const v = w.get(k);
      if (pyTruthy(v)) return pyStr(v as PyJson);
    }
  }
  const top = row.get('scenario');
  return pyTruthy(top) ? pyStr(top as PyJson) : 'default';
}

/** str(framework) with `unknown` for a row that has none. */
export function frameworkOf(row: PyObject): string {
  const v = pyGet(row, 'framework');
  return v === undefined ? 'unknown' : pyStr(v);
}

/** server_command, else launch_command, else '' (falsy values skipped, as in the script). */
export function serverCommandOf(row: PyObject): string {
  const a = pyGet(row, 'server_command');
  if (pyTruthy(a)) return pyStr(a as PyJson);
  const b = pyGet(row, 'launch_command');
  if (pyTruthy(b)) return pyStr(b as PyJson);
  return '';
}

/** A row with its rank key computed once (100,000-row files sort without recomputing). */
export interface Ranked {
  row: PyObject;
  key: RankKey;
  scenario: string;
  framework: string;
  /** Position in the input: the tie-breaker that keeps Python's stable sort order. */
  index: number;
  /** sameNaNMask of the row. */
  same: number;
}

/** Status ok and sla.passed true, read off the key. */
export function rankedWins(r: Ranked): boolean {
  return r.key[0] === 1 && r.key[1] === 1;
}

export function rankRows(rows: readonly PyObject[]): Ranked[] {
  return rows.map((row, index) => ({ row, key: rankKey(row), scenario: scenarioOf(row), framework: frameworkOf(row), index, same: sameNaNMask(row) }));
}

const hasNaN = (items: readonly { key: RankKey }[]): boolean => items.some((r) => r.key.some(Number.isNaN));

/**
 * sorted(items, key=rank_key, reverse=True): best first, equal keys keep input order. A NaN makes `<` inconsistent,
 * and then only CPython's own sort (py/listsort.ts) puts the rows where the script does.
 */
export function sortByRankDesc<T extends { key: RankKey; same?: number }>(items: readonly T[]): T[] {
  if (hasNaN(items)) return pySortedDesc(items, (a, b) => tupleLt(a.key, b.key, a.same, b.same));
  return [...items].sort((a, b) => (tupleLt(b.key, a.key) ? -1 : tupleLt(a.key, b.key) ? 1 : 0));
}

/**
 * The best winner candidate per (framework, scenario); a row replaces the best only when strictly
 * better. Returned as the script returns them: sorted by (scenario, rank key), both descending.
 */
export function bestByFrameworkAndScenario(ranked: readonly Ranked[]): Ranked[] {
  // Slots in first-seen order (Python's dict order), found by framework then scenario.
  const slots: Ranked[] = [];
  const where = new Map<string, Map<string, number>>();
  for (const r of ranked) {
    if (!rankedWins(r)) continue;
    let byScenario = where.get(r.framework);
    if (!byScenario) where.set(r.framework, (byScenario = new Map<string, number>()));
    const at = byScenario.get(r.scenario);
    if (at === undefined) {
      byScenario.set(r.scenario, slots.length);
      slots.push(r);
    } else if (tupleGt(r.key, (slots[at] as Ranked).key, r.same, (slots[at] as Ranked).same)) {
      slots[at] = r;
    }
  }
  if (hasNaN(slots)) return pySortedDesc(slots, (a, b) => (a.scenario !== b.scenario ? pyStrCompare(a.scenario, b.scenario) < 0 : tupleLt(a.key, b.key, a.same, b.same)));
  return slots.sort((a, b) => {
    const s = pyStrCompare(b.scenario, a.scenario);
    if (s !== 0) return s;
    return tupleLt(b.key, a.key) ? -1 : tupleLt(a.key, b.key) ? 1 : 0;
  });
}
