// One predicted trial: the load client's trial simulated on a virtual clock, judged by the plan's SLA the way the runner judges a row.
import type { Scenario } from '../core/config/model';
import { fromPlainJson, type PyObject } from '../core/py/json';
import { evaluateSla } from '../core/results/sla';
import { MAX_LENGTHEN, steadyRequests } from '../core/plan/bench';
import { p50TpotLimitMs, p50TtftLimitMs, type SlaReading } from '../core/sla/limits';
import type { ResolvedSim } from '../sim/config';
import { simulateLoad, type VirtualResult } from '../sim/virtual';
import type { PredictedPoint } from './types';

export interface PointSpec {
  scenario: Scenario;
  rate: number;
  concurrency: number | null;
  /** Requests measured; by default enough for ~12 modelled seconds of arrivals, within [48, 240]. */
  requests?: number;
  seed?: number;
}

export function requestsFor(rate: number): number {
  return Math.min(240, Math.max(48, Math.ceil(rate * 12)));
}

/** The row metrics a trial with this result would carry (the names the SLA reader judges). */
export function metricsOf(v: VirtualResult, sent: number): Record<string, number | null> {
  return {
    request_throughput: v.requestThroughput,
    output_token_throughput: v.outputThroughput,
    p50_ttft_ms: v.ttftMs.p50,
    p99_ttft_ms: v.ttftMs.p99,
    p50_tpot_ms: v.tpotMs.p50,
    p99_tpot_ms: v.tpotMs.p99,
    p50_e2e_ms: v.e2eMs.p50,
    p99_e2e_ms: v.e2eMs.p99,
    success_rate: sent ? v.completed / sent : 0,
    offered_request_rate: v.offeredRate,
    completion_request_rate: v.keptRate,
  };
}

/** A trial's metrics once the load gave up: the median it gave up on is over its limit (the other is what was seen so far). */
export function gaveUpMetrics(m: Record<string, number | null>, ttft: number | undefined, tpot: number | undefined, v: VirtualResult): Record<string, number | null> {
  const over = (x: number | null | undefined, limit: number | undefined): number | null => (limit === undefined ? (x ?? null) : Math.max(x ?? 0, limit * 1.0001));
  // Which limit it gave up on: TTFT when the requests seen so far meet TPOT, else TPOT.
  const onTpot = tpot !== undefined && v.tpotMs.p50 > tpot;
  return onTpot ? { ...m, p50_tpot_ms: over(m.p50_tpot_ms, tpot) } : { ...m, p50_ttft_ms: over(m.p50_ttft_ms, ttft) };
}


export function judgeMetrics(metrics: Record<string, number | null>, sla: SlaReading, pace: boolean) {
  const m = pace ? metrics : { ...metrics, offered_request_rate: null, completion_request_rate: null };
  return evaluateSla(fromPlainJson({ framework: 'x', status: 'ok', metrics: m }) as PyObject, { limits: sla.limits, deprecated: [] });
}

/** Requests a trial at `rate` needs for a steady state, by the runner's rule. */
function neededRequests(v: VirtualResult, rate: number): number {
  return Number.isFinite(rate) ? steadyRequests(v.e2eMs.p50 / 1000, rate) : 0;
}

/**
 * One trial, lengthened as the runner lengthens one that meets the latency limits but is too short for a steady state
 * (arrivals spanning 3 median E2E latencies), up to MAX_LENGTHEN times; one that would need more is too short even
 * then — invalid, as the runner judges it — and is not simulated at that length at all.
 */
export function simulatePoint(config: ResolvedSim, spec: PointSpec, sla: SlaReading): { v: VirtualResult; n: number; metrics: Record<string, number | null>; tooShort: boolean } {
  const n0 = spec.requests ?? requestsFor(spec.rate);
  let n = n0;
  for (;;) {
    const giveUp = p50TtftLimitMs(sla.limits);
    const giveUpTpot = p50TpotLimitMs(sla.limits);
    const v = simulateLoad(config, { inputLen: spec.scenario.inputLen, outputLen: spec.scenario.outputLen, rate: spec.rate, concurrency: spec.concurrency, requests: n, warmup: 3, seed: spec.seed ?? 1, ...(giveUp !== undefined ? { giveUpTtftMs: giveUp } : {}), ...(giveUpTpot !== undefined ? { giveUpTpotMs: giveUpTpot } : {}) });
    const metrics = metricsOf(v, n);
    // Stopped early: more than half the requests waited past the TTFT limit or decoded slower than the TPOT one, so that median is over it.
    if (v.gaveUp) return { v, n, metrics: gaveUpMetrics(metrics, giveUp, giveUpTpot, v), tooShort: false };
    const need = neededRequests(v, spec.rate);
    if (n >= need || !judgeMetrics(metrics, sla, false).passed) return { v, n, metrics, tooShort: false };
    if (n >= MAX_LENGTHEN * n0 || need > MAX_LENGTHEN * n0) return { v, n, metrics, tooShort: true };
    n = Math.min(MAX_LENGTHEN * n0, Math.max(2 * n, Math.ceil(1.25 * need)));
  }
}

export function predictPoint(config: ResolvedSim, spec: PointSpec, sla: SlaReading): PredictedPoint {
  return judgePoint(config, spec, sla).point;
}

/**
 * A trial and its verdict: the predicted point, what the virtual client measured, how many requests it sent
 * (lengthened), and whether it stayed too short for a steady state (the runner's row for it is invalid: failed).
 */
export function judgePoint(config: ResolvedSim, spec: PointSpec, sla: SlaReading): { point: PredictedPoint; v: VirtualResult; n: number; tooShort: boolean } {
  const { v, n, metrics, tooShort } = simulatePoint(config, spec, sla);
  const verdict = judgeMetrics(metrics, sla, true);
  const point: PredictedPoint = {
    rate: spec.rate,
    passed: verdict.passed && !tooShort,
    reasons: tooShort ? [...verdict.reasons, `too short for a steady state even after lengthening ${MAX_LENGTHEN}x (as the runner judges it)`] : verdict.reasons,
    requestThroughput: v.requestThroughput,
    outputThroughput: v.outputThroughput,
    p50TtftMs: v.ttftMs.p50,
    p99TtftMs: v.ttftMs.p99,
    p50TpotMs: v.tpotMs.p50,
    p99TpotMs: v.tpotMs.p99,
    p50E2eMs: v.e2eMs.p50,
    successRate: n ? v.completed / n : 0,
  };
  return { point, v, n, tooShort };
}
