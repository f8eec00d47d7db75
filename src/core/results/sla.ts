// Recomputes a row's SLA verdict from its metrics, keeping a reason per missed target
// ("p50 TTFT 2140 ms > 2000 ms"), so a report never trusts a stale or hand-written `sla.passed`.
import type { PyJson, PyObject } from '../py/json';
import { pyFloat, pyGet } from '../py/ops';
import { isOk, slaPassedAsWritten } from './rank';
import { readSlaLimits, SATURATION_TOLERANCE, SLA_TARGETS, type SlaKey, type SlaReading } from '../sla/limits';

export { slaLabel, type SlaKey, type SlaLimits } from '../sla/limits';

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
  /** Deprecated or legacy keys the limits used (the tail limits, un-prefixed names). */
  deprecated: string[];
}

/** Limits from an `sla` mapping (a row's, or a plan's): the one SLA reader's. */
export function limitsFrom(sla: PyJson | undefined): SlaReading {
  return readSlaLimits(sla);
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
export function evaluateSla(row: PyObject, override?: SlaReading): SlaVerdict {
  const hasWritten = pyGet(row, 'sla.passed') !== undefined;
  const asWritten = slaPassedAsWritten(row);
  const { limits, deprecated } = override ?? limitsFrom(pyGet(row, 'sla'));
  const metrics = pyGet(row, 'metrics');
  const checks: SlaCheck[] = [];
  const reasons: string[] = [];
  for (const t of SLA_TARGETS) {
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
  // The offered rate not achieved is a fail of the rate, whatever the latencies say (rows that record both rates).
  const offered = measured(metrics, ['offered_request_rate']);
  const kept = measured(metrics, ['completion_request_rate']);
  const saturated = offered !== undefined && kept !== undefined && kept < offered * (1 - SATURATION_TOLERANCE);
  if (saturated) reasons.push(`saturated: completions kept pace at ${shortNumber(kept)} req/s of ${shortNumber(offered)} offered`);
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
