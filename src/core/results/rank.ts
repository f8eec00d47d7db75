// The playbook's ranking, exactly (CONTRACTS.md): the rank key, winner candidates, the scenario
// fallback and the best row per (framework, scenario), with Python's tuple and sort semantics.
import type { PyJson, PyObject } from '../py/json';
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

/** Python's `a < b` on two tuples of floats: the first unequal element decides (NaN is never equal). */
export function tupleLt(a: readonly number[], b: readonly number[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x === y) continue;
    return x < y;
  }
  return a.length < b.length;
}

export function tupleGt(a: readonly number[], b: readonly number[]): boolean {
  return tupleLt(b, a);
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
}

/** Status ok and sla.passed true, read off the key. */
export function rankedWins(r: Ranked): boolean {
  return r.key[0] === 1 && r.key[1] === 1;
}

export function rankRows(rows: readonly PyObject[]): Ranked[] {
  return rows.map((row, index) => ({ row, key: rankKey(row), scenario: scenarioOf(row), framework: frameworkOf(row), index }));
}

/** sorted(items, key=rank_key, reverse=True): best first, equal keys keep input order. */
export function sortByRankDesc<T extends { key: RankKey }>(items: readonly T[]): T[] {
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
    } else if (tupleGt(r.key, (slots[at] as Ranked).key)) {
      slots[at] = r;
    }
  }
  return slots.sort((a, b) => {
    const s = pyStrCompare(b.scenario, a.scenario);
    if (s !== 0) return s;
    return tupleLt(b.key, a.key) ? -1 : tupleLt(a.key, b.key) ? 1 : 0;
  });
}
