// Result rows for report tests: a searched trial that passes or misses a 1000 ms TTFT limit, a search around a capacity, and the report model of a list of rows.
import assert from 'node:assert/strict';
import { buildReport } from '../../src/core/results/report';
import type { ReportModel } from '../../src/core/results/report-model';
import { readRows } from '../../src/core/results/rows';

export type Row = Record<string, unknown>;

export function searchRow(fw: string, cand: string, rate: number, passed: boolean, mode: 'search' | 'repeat' = 'search', scenario = 'chat', round = 1): Row {
  return {
    framework: fw,
    candidate_id: cand,
    status: 'ok',
    scenario,
    trial: { mode, rate, concurrency: null, round },
    metrics: { request_throughput: rate * 0.98, p50_ttft_ms: passed ? 100 : 5000, p50_tpot_ms: 10, success_rate: 1 },
    sla: { max_p50_ttft_ms: 1000, passed },
  };
}

/** A search that passes up to `capacity` (bisection-like rounds around it). */
export function search(fw: string, cand: string, capacity: number, rates: number[]): Row[] {
  return rates.map((r) => searchRow(fw, cand, r, r <= capacity));
}

export function reportOf(rows: Row[]): ReportModel {
  const read = readRows(rows.map((r) => JSON.stringify(r)).join('\n'), 'rows.jsonl');
  assert.ok(read.ok);
  return buildReport(read.rows, { rowsFile: 'rows.jsonl' });
}

/**
 * A trial on a server whose p50 TTFT grows as (rate / capacity)^4 × the 1000 ms limit: it meets the SLA below
 * `capacity` and misses it above, with a latency that says by how much (what a launch's capacity is read from).
 */
export function curveRow(fw: string, cand: string, rate: number, capacity: number, mode: 'search' | 'repeat' = 'search', round = 1, scenario = 'chat'): Row {
  const ttft = 1000 * (rate / capacity) ** 4;
  return { ...searchRow(fw, cand, rate, ttft <= 1000, mode, scenario, round), metrics: { request_throughput: rate * 0.98, p50_ttft_ms: ttft, p50_tpot_ms: 10, success_rate: 1 } };
}

/** A candidate's search (bisection-like rounds around `capacity`) and one repeat per extra capacity, at its best passing rate. */
export function launches(fw: string, cand: string, capacities: number[], rates: number[]): Row[] {
  const [first, ...more] = capacities as [number, ...number[]];
  const best = Math.max(...rates.filter((r) => r <= first));
  return [...rates.map((r) => curveRow(fw, cand, r, first)), ...more.map((c, i) => curveRow(fw, cand, best, c, 'repeat', i + 1))];
}
