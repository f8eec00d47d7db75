// What each cell of `autobench compare`'s tables and CSV shows, read as the playbook's compare script
// reads it (CONTRACTS.md): Python's str/format of the value, the P50-else-mean latency, and the
// spec-decode, phase and cache blocks before `metrics`.
import type { PyJson, PyObject } from '../py/json';
import { pyFormatFixed2, pyGet, pyStr, pyTruthy } from '../py/ops';

/** The script's `_fmt`: None -> '', float -> '.2f', anything else -> str(). */
export function fmtValue(v: PyJson | undefined): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return pyFormatFixed2(v);
  return pyStr(v);
}

/** A Markdown table cell (the script's `_cell`): newlines become <br>, then pipes are escaped. */
export function mdCell(v: PyJson | undefined): string {
  return fmtValue(v).replace(/\n/g, '<br>').replace(/\|/g, '\\|');
}

/** `key: value` for each truthy artifact path, in the script's key order, joined with <br>. */
export function artifactSummary(row: PyObject): string {
  const artifacts = pyGet(row, 'artifacts');
  if (!(artifacts instanceof Map)) return '';
  const parts: string[] = [];
  for (const key of ['raw_result', 'server_log', 'benchmark_log', 'summary']) {
    const v = artifacts.get(key);
    if (pyTruthy(v)) parts.push(`${key}: ${pyStr(v as PyJson)}`);
  }
  return parts.join('<br>');
}

/** The first of the dotted paths whose value is present and not null (undefined when none is). */
export function firstPresent(row: PyObject, paths: readonly string[]): PyJson | undefined {
  for (const path of paths) {
    const v = pyGet(row, path);
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

const LATENCY_PATHS = {
  ttft: ['metrics.p50_ttft_ms', 'metrics.mean_ttft_ms'],
  tpot: ['metrics.p50_tpot_ms', 'metrics.mean_tpot_ms'],
} as const;

/** The P50 TTFT/TPOT cell: p50, else mean when p50 is missing or null (the rank key's fallback). */
export function latencyValue(row: PyObject, metric: 'ttft' | 'tpot'): PyJson | undefined {
  return firstPresent(row, LATENCY_PATHS[metric]);
}

/**
 * Accept len, Pre-scheduler ms and Cache hit: `<block>.<key>` first, then `metrics.<key>` when that is
 * missing or null. `key` is also the CSV column's name.
 */
export const EXTRA_METRICS = [
  { block: 'spec_decode', key: 'mean_accept_length' },
  { block: 'phase_metrics', key: 'pre_scheduler_ms' },
  { block: 'cache', key: 'prefix_cache_hit_rate' },
] as const;

export type ExtraMetric = (typeof EXTRA_METRICS)[number];

/**
 * One extra metric's value (undefined when neither place has one). Direct lookups, no arrays: the CSV
 * reads these for every row of 100,000-row files, passing the `metrics` value it already holds.
 */
export function extraMetricValue(row: PyObject, m: ExtraMetric, metrics: PyJson | undefined = row.get('metrics')): PyJson | undefined {
  const block = row.get(m.block);
  const own = block instanceof Map ? block.get(m.key) : undefined;
  if (own !== undefined && own !== null) return own;
  const fallback = metrics instanceof Map ? metrics.get(m.key) : undefined;
  return fallback === null ? undefined : fallback;
}
