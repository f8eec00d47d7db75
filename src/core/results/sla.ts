// Recomputes a row's SLA verdict from its metrics, keeping a reason per missed target
// ("p50 TTFT 2140 ms > 2000 ms"), so a report never trusts a stale or hand-written `sla.passed`.
import type { PyJson, PyObject } from '../py/json';
import { pyFloat, pyGet } from '../py/ops';
import { isOk, slaPassedAsWritten } from './rank';

/** Targets that can be applied; undefined means "not set" (it always passes). */
export interface SlaLimits {
  max_p50_ttft_ms?: number;
  max_p50_tpot_ms?: number;
  max_p50_e2e_ms?: number;
  min_success_rate?: number;
  /** Deprecated tail limits, still judged when a row or plan sets them. */
  max_p99_ttft_ms?: number;
  max_p99_tpot_ms?: number;
  max_p99_e2e_ms?: number;
}

export type SlaKey = keyof SlaLimits;

interface Target {
  key: SlaKey;
  label: string;
  /** Metric fields to read, first present wins (p50 and median are the same statistic). */
  metrics: string[];
  kind: 'max-ms' | 'min-rate';
}

const TARGETS: Target[] = [
  { key: 'max_p50_ttft_ms', label: 'p50 TTFT', metrics: ['p50_ttft_ms', 'median_ttft_ms'], kind: 'max-ms' },
  { key: 'max_p50_tpot_ms', label: 'p50 TPOT', metrics: ['p50_tpot_ms', 'median_tpot_ms'], kind: 'max-ms' },
  { key: 'max_p50_e2e_ms', label: 'p50 E2E', metrics: ['p50_e2e_ms', 'median_e2e_ms'], kind: 'max-ms' },
  { key: 'min_success_rate', label: 'success rate', metrics: ['success_rate'], kind: 'min-rate' },
  { key: 'max_p99_ttft_ms', label: 'p99 TTFT', metrics: ['p99_ttft_ms'], kind: 'max-ms' },
  { key: 'max_p99_tpot_ms', label: 'p99 TPOT', metrics: ['p99_tpot_ms'], kind: 'max-ms' },
  { key: 'max_p99_e2e_ms', label: 'p99 E2E', metrics: ['p99_e2e_ms'], kind: 'max-ms' },
];

export const SLA_KEYS: readonly SlaKey[] = TARGETS.map((t) => t.key);
export const DEPRECATED_SLA: readonly SlaKey[] = ['max_p99_ttft_ms', 'max_p99_tpot_ms', 'max_p99_e2e_ms'];
/** Un-prefixed names of old configs: judged as the p50 limit they were meant to be. */
const LEGACY_NAMES: Record<string, SlaKey> = { max_ttft_ms: 'max_p50_ttft_ms', max_tpot_ms: 'max_p50_tpot_ms', max_e2e_ms: 'max_p50_e2e_ms' };

export function slaLabel(key: SlaKey): string {
  return TARGETS.find((t) => t.key === key)?.label ?? key;
}

/** One target as judged on one row. */
export interface SlaCheck {
  key: SlaKey;
  limit: number;
  /** The measured value, undefined when the row does not have it. */
  value: number | undefined;
  passed: boolean;
}

export interface SlaVerdict {
  /** Recomputed: ok status and every applied target met. */
  passed: boolean;
  /** One sentence per missed target, in target order; empty when passed. */
  reasons: string[];
  checks: SlaCheck[];
  /** What the row itself says (`sla.passed`, read the playbook's way). */
  asWritten: boolean;
  /** The row carries an `sla.passed` that contradicts the recomputed verdict. */
  disagrees: boolean;
  /** No target applied at all (neither the row nor the manifest sets one). */
  unjudged: boolean;
  /** Deprecated keys the limits used (max_p99_*, max_ttft_ms, ...). */
  deprecated: string[];
}

/** Limits from an `sla` mapping (a row's, or a plan's), reading numbers as Python's float() does. */
export function limitsFrom(sla: PyJson | undefined): { limits: SlaLimits; deprecated: string[] } {
  const limits: SlaLimits = {};
  const deprecated: string[] = [];
  if (!(sla instanceof Map)) return { limits, deprecated };
  for (const [k, v] of sla) {
    const key = (SLA_KEYS as readonly string[]).includes(k) ? (k as SlaKey) : LEGACY_NAMES[k];
    if (!key || typeof v === 'boolean') continue;
    const n = pyFloat(v);
    if (n === undefined || Number.isNaN(n)) continue;
    if (key !== k || DEPRECATED_SLA.includes(key)) deprecated.push(k);
    // An explicit modern key wins over a legacy spelling of the same target.
    if (key !== k && limits[key] !== undefined) continue;
    limits[key] = n;
  }
  return { limits, deprecated };
}

/** A short human number: integers as is, else at most 3 decimals without trailing zeros. */
export function shortNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toFixed(Math.abs(x) >= 100 ? 1 : 3)));
}

function measured(metrics: PyJson | undefined, names: string[]): number | undefined {
  if (!(metrics instanceof Map)) return undefined;
  for (const n of names) {
    const v = metrics.get(n);
    if (v === undefined || v === null || typeof v === 'boolean') continue;
    const f = pyFloat(v);
    if (f !== undefined && !Number.isNaN(f)) return f;
  }
  return undefined;
}

function successRate(metrics: PyJson | undefined): number | undefined {
  const direct = measured(metrics, ['success_rate']);
  if (direct !== undefined) return direct;
  // completed / (completed + failed) when the client only counted requests.
  const ok = measured(metrics, ['completed']);
  const bad = measured(metrics, ['failed']);
  if (ok !== undefined && bad !== undefined && ok + bad > 0) return ok / (ok + bad);
  return undefined;
}

/**
 * Judges a row against `override` (a plan's SLA) when given, else against the limits the row
 * recorded in its own `sla` block. A row whose status is not ok never passes.
 */
export function evaluateSla(row: PyObject, override?: { limits: SlaLimits; deprecated: string[] }): SlaVerdict {
  const hasWritten = pyGet(row, 'sla.passed') !== undefined;
  const asWritten = slaPassedAsWritten(row);
  const { limits, deprecated } = override ?? limitsFrom(pyGet(row, 'sla'));
  const metrics = pyGet(row, 'metrics');
  const checks: SlaCheck[] = [];
  const reasons: string[] = [];
  for (const t of TARGETS) {
    const limit = limits[t.key];
    if (limit === undefined) continue;
    const value = t.kind === 'min-rate' ? successRate(metrics) : measured(metrics, t.metrics);
    const passed = value !== undefined && (t.kind === 'max-ms' ? value <= limit : value >= limit);
    checks.push({ key: t.key, limit, value, passed });
    if (passed) continue;
    if (value === undefined) reasons.push(`${t.label} not measured (${t.kind === 'max-ms' ? `limit ${shortNumber(limit)} ms` : `needs ≥ ${shortNumber(limit)}`})`);
    else if (t.kind === 'max-ms') reasons.push(`${t.label} ${shortNumber(value)} ms > ${shortNumber(limit)} ms`);
    else reasons.push(`${t.label} ${shortNumber(value)} < ${shortNumber(limit)}`);
  }
  const status = pyGet(row, 'status');
  const ok = isOk(row);
  // A row that did not finish has nothing to judge: one reason, not one per missing metric.
  if (!ok) reasons.splice(0, reasons.length, `status ${typeof status === 'string' ? status : 'missing'}: not measured`);
  const unjudged = checks.length === 0;
  // With no target known there is nothing to recompute: keep what the row says.
  if (unjudged && ok && hasWritten && !asWritten) reasons.push('sla.passed is false and no SLA limits were recorded to recompute it');
  const passed = ok && reasons.length === 0;
  return { passed, reasons, checks, asWritten, disagrees: hasWritten && asWritten !== passed, unjudged, deprecated };
}
