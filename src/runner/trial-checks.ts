// What makes a measured trial trustworthy: whether the server kept pace with the offered arrivals (saturation), and the validity gates (zero or short outputs, error responses, errors in the server log, a client-bound measurement).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { BenchResult } from '../client';
import type { RequestRecord } from '../client/record';
import type { SlaCheck } from '../core/results/sla';
import { isEngineErrorLine } from '../core/frameworks/log-errors';
import type { FrameworkKey } from '../core/frameworks/types';
import { HOST_BOUND_MARK } from '../sim/options';

/** Fewer measured requests than this: the pace is not judged (one or two requests say nothing about a rate). */
const MIN_PACE_REQUESTS = 8;

export interface Pace {
  /** Requests per second the arrival process released (modelled units on the simulator). */
  offered: number | null;
  /** Requests per second completions kept over the same number of requests. */
  kept: number | null;
}

function spanRate(times: number[]): number | null {
  if (times.length < MIN_PACE_REQUESTS) return null;
  const lo = Math.min(...times);
  const hi = Math.max(...times);
  return hi > lo ? ((times.length - 1) * 1000) / (hi - lo) : null;
}

/**
 * Offered: the arrivals' own span (so Poisson noise in the schedule is not mistaken for the server); kept: the
 * completions' span. A server that keeps up finishes requests as fast as they arrive; a saturated one spreads
 * them out. Both over the measured requests; `speed` turns wall-clock rates into the modelled GPU's.
 */
export function paceOf(records: readonly RequestRecord[], finiteRate: boolean, speed: number): Pace {
  if (!finiteRate) return { offered: null, kept: null };
  const measured = records.filter((r) => !r.warmup);
  const offered = spanRate(measured.map((r) => r.arrivalMs));
  const kept = spanRate(measured.filter((r) => r.success).map((r) => r.startMs + r.e2eMs));
  return { offered: offered === null ? null : offered / speed, kept: kept === null ? null : kept / speed };
}


/** The size of a log now (where a trial starts reading it afterwards). */
export function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** What a server log gained during a trial: error lines, and the simulated engine's host-bound notes. */
export interface LogNotes {
  errors: string[];
  hostBound: string[];
  /** vLLM: the engine said it could not reset its prefix cache (its /reset_prefix_cache answers 200 regardless). */
  flushRefused?: string;
}

/**
 * vLLM's POST /reset_prefix_cache always answers 200 ("we currently do not check if the prefix cache is successfully
 * reset in the API server": vllm-project/vllm vllm/entrypoints/serve/cache/api_router.py @09cb327f); the engine logs
 * whether it did (v1/core/block_pool.py @002f3491: "Failed to reset prefix cache because some blocks (%d) are not freed
 * yet" / "Successfully reset prefix cache"). The refusal line, when the last word of the log on it is a refusal.
 */
export function prefixResetRefusal(lines: readonly string[]): string | undefined {
  let refused: string | undefined;
  for (const l of lines) {
    if (/Failed to reset prefix cache/.test(l)) refused = l.trim();
    else if (/Successfully reset prefix cache/.test(l)) refused = undefined;
  }
  return refused;
}

/** The error lines (judged as `fw` prints them) and host-bound notes the log gained since `from`. */
export function logNotesSince(file: string, from: number, fw?: FrameworkKey): LogNotes {
  const lines = logLinesSince(file, from);
  const refused = fw === 'vllm' ? prefixResetRefusal(lines) : undefined;
  return { errors: lines.filter((l) => isEngineErrorLine(l, fw)), hostBound: lines.filter((l) => l.includes(HOST_BOUND_MARK)), ...(refused ? { flushRefused: refused } : {}) };
}

/**
 * A flush the route called ok but the engine logged as refused is no flush: the result says so (its row's
 * cache_policy becomes fresh-prompts, which the trial's never-sent prompts make true). Returns `log` as given.
 */
export function settleFlush(result: BenchResult, log: LogNotes): LogNotes {
  if (log.flushRefused && result.flushCache === 'ok') {
    result.flushCache = `not flushed: the engine logged "${log.flushRefused.slice(0, 160)}"`;
    result.notes.push(`cache flush: the route answered 200 but the engine refused the reset; the trial relies on prompts never sent before`);
  }
  return log;
}

/** Lines the log gained since `from` (at most 64 KiB read). */
function logLinesSince(file: string, from: number): string[] {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = statSync(file).size;
    const len = Math.min(Math.max(0, size - from), 64 * 1024);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    return buf.toString('utf8').split('\n');
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export interface Validity {
  valid: boolean;
  reasons: string[];
  /** Every reason is the measuring machine's, not the server's (client-bound, host-bound): measure again rather than judge. */
  environmental?: boolean;
  /** Earlier attempts of this trial discarded as environmental, with their reasons. */
  remeasured?: string[];
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The gates every measured trial passes before its numbers may count; each failed gate is a reason. */
/** `judgeLength`: a finite-rate trial that would pass its SLA must also have reached a steady state. */
export function validityOf(result: BenchResult, log: LogNotes, judgeLength: boolean): Validity {
  const measured = result.records.filter((r) => !r.warmup);
  const ok = measured.filter((r) => r.success);
  const reasons: string[] = [];
  const zero = ok.filter((r) => r.outputTokens === 0 && r.outputLenRequested > 0).length;
  if (zero) reasons.push(`${plural(zero, 'request')} returned 0 output tokens`);
  const short = ok.filter((r) => r.ignoreEos === true && r.outputTokens > 0 && r.outputTokens < r.outputLenRequested).length;
  if (short) reasons.push(`${plural(short, 'request')} returned fewer tokens than requested with ignore_eos on`);
  const failed = measured.filter((r) => !r.success);
  if (failed.length) {
    const kinds = new Map<string, number>();
    for (const r of failed) kinds.set(r.errorKind ?? 'other', (kinds.get(r.errorKind ?? 'other') ?? 0) + 1);
    reasons.push(`${failed.length} of ${measured.length} requests failed (${[...kinds].map(([k, n]) => `${k} ×${n}`).join(', ')}); first: ${failed[0]?.error ?? '?'}`);
  }
  if (log.errors.length) reasons.push(`the server logged ${plural(log.errors.length, 'error line')} during the trial, e.g. ${log.errors[0]?.trim().slice(0, 160)}`);
  const env: string[] = [];
  const bound = result.client.bound;
  if (bound) env.push(`client-bound: ${bound}`);
  if (log.hostBound.length) env.push(`host-bound: the simulated engine fell behind real time ${log.hostBound.length === 1 ? 'once' : `${log.hostBound.length} times`} during the trial (the machine is busy)`);
  // A burst (rate inf) has no arrival span to judge; a passing finite rate must have reached a steady state.
  if (judgeLength && result.metrics.steady.tooShort) reasons.push(`too short for a steady state even after lengthening: ${result.metrics.steady.tooShort}`);
  const all = [...reasons, ...env];
  return { valid: all.length === 0, reasons: all, ...(env.length > 0 && reasons.length === 0 ? { environmental: true } : {}) };
}

/** A rate-search round already measured: its rate and its SLA checks (modelled units). */
export interface RoundPoint {
  rate: number;
  checks: readonly SlaCheck[];
}

/** How much worse a latency may be at a lower rate before the two rounds contradict each other. */
export const INVERSION_TOLERANCE = 0.05;

/**
 * Why a failing trial contradicts the search's rounds at higher rates, or undefined: a latency the SLA limits that
 * is worse at this lower rate by more than INVERSION_TOLERANCE is a disturbed measurement, not the server's curve
 * (latency does not fall as load rises), so it is measured again before the search believes it.
 */
export function inversionOf(checks: readonly SlaCheck[], rate: number, rounds: readonly RoundPoint[]): string | undefined {
  for (const c of checks) {
    if (c.passed || c.value === undefined) continue;
    for (const r of rounds) {
      if (r.rate <= rate) continue;
      const other = r.checks.find((x) => x.key === c.key)?.value;
      if (other !== undefined && c.value > other * (1 + INVERSION_TOLERANCE)) {
        return `inconsistent with the search: ${c.key} ${round2(c.value)} at ${rate} req/s, worse than ${round2(other)} at ${r.rate} req/s`;
      }
    }
  }
  return undefined;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

