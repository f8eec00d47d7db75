// `autobench predict --at`: every candidate × scenario of a plan run at one operating point on the virtual clock (a
// Poisson rate, a closed loop of C requests in flight, or every request at once), reported as a published table reports
// it — means and medians, not an SLA capacity. Every figure is the simulated engine model's, never a measurement.
import type { Candidate } from '../core/candidates/candidate';
import type { FrameworkKey } from '../core/frameworks/types';
import type { RunPlan } from '../core/plan/types';
import { arrivalSchedule } from '../core/workload/arrivals';
import { subSeed } from '../core/workload/build';
import { simulateLoad, type VirtualResult } from '../sim/virtual';
import { engineFor, predictOptions } from './engine';
import { planGpu, predictionHead, type PredictPlanOptions } from './plan';
import { UNIT_EXTRA_ERROR, unitEngines, type UnitEngines } from './unit';
import { kvTransferSeconds } from '../sim/pd';
import { PRIOR_REL_ERROR } from './prior';
import { UNIT_FACTORS, type Factors, type PredictedStatus, type PredictionHead } from './types';

/** The load to predict at: a Poisson rate (req/s), a closed loop of `concurrency` requests in flight, or all at once. */
export type OperatingPoint = { kind: 'rate'; rate: number } | { kind: 'concurrency'; concurrency: number } | { kind: 'offline' };

export interface AtSpec {
  point: OperatingPoint;
  /** Measured requests per candidate × scenario (default: the plan's num_prompts). */
  requests?: number;
}

/** One candidate × scenario at the operating point: the load client's means and medians (ms, req/s, tokens/s). */
export interface AtPoint {
  framework: FrameworkKey;
  candidate: string;
  scenario: string;
  status: PredictedStatus;
  /** Why it was not run: the startup failure (oom, fails) or the plan's skip reason. */
  reason?: string;
  gpus: number;
  /** Calibration factors applied and the prediction's relative error (the uncalibrated prior without a store). */
  factors: Factors;
  rel_error: number;
  completed: number;
  failed: number;
  duration_s: number | null;
  request_throughput: number | null;
  output_throughput: number | null;
  mean_ttft_ms: number | null;
  p50_ttft_ms: number | null;
  mean_tpot_ms: number | null;
  p50_tpot_ms: number | null;
  mean_itl_ms: number | null;
  p50_itl_ms: number | null;
  mean_e2e_ms: number | null;
  p50_e2e_ms: number | null;
  /** Tokens one replica's KV cache holds, and requests preempted (recomputed) for want of it. */
  kv_capacity_tokens: number | null;
  preemptions: number | null;
}

export interface AtPrediction extends PredictionHead {
  at: { kind: OperatingPoint['kind']; rate: number | null; concurrency: number | null; requests: number; seed: number };
  points: AtPoint[];
  elapsedMs: number;
}

/** The virtual client's load for an operating point: a closed loop sends everything at once under the cap. */
function loadOf(p: OperatingPoint): { rate: number; concurrency: number | null } {
  if (p.kind === 'rate') return { rate: p.rate, concurrency: null };
  if (p.kind === 'concurrency') return { rate: Infinity, concurrency: p.concurrency };
  return { rate: Infinity, concurrency: null };
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

function figures(v: VirtualResult): Omit<AtPoint, 'framework' | 'candidate' | 'scenario' | 'status' | 'gpus' | 'factors' | 'rel_error' | 'kv_capacity_tokens'> {
  return {
    completed: v.completed,
    failed: v.failed,
    duration_s: v.completed ? v.durationS : null,
    request_throughput: v.completed ? v.requestThroughput : null,
    output_throughput: v.completed ? v.outputThroughput : null,
    mean_ttft_ms: finite(v.ttftMs.mean),
    p50_ttft_ms: finite(v.ttftMs.p50),
    mean_tpot_ms: finite(v.tpotMs.mean),
    p50_tpot_ms: finite(v.tpotMs.p50),
    mean_itl_ms: finite(v.itlMs.mean),
    p50_itl_ms: finite(v.itlMs.p50),
    mean_e2e_ms: finite(v.e2eMs.mean),
    p50_e2e_ms: finite(v.e2eMs.p50),
    preemptions: v.preemptions,
  };
}

const NOT_RUN = { completed: 0, failed: 0, duration_s: null, request_throughput: null, output_throughput: null, mean_ttft_ms: null, p50_ttft_ms: null, mean_tpot_ms: null, p50_tpot_ms: null, mean_itl_ms: null, p50_itl_ms: null, mean_e2e_ms: null, p50_e2e_ms: null, kv_capacity_tokens: null, preemptions: null };

/** One candidate on every scenario at the operating point. */
function candidateAt(plan: RunPlan, fw: FrameworkKey, cand: Candidate, at: Required<AtSpec>, o: PredictPlanOptions): AtPoint[] {
  const cal = o.calibrationFor?.(fw, cand);
  const base = { framework: fw, candidate: cand.id, factors: cal?.factors ?? UNIT_FACTORS, rel_error: cal?.relError ?? PRIOR_REL_ERROR };
  if (cand.unit && !cand.skip) return unitAt(plan, fw, cand, at, o, base);
  const engine = cand.skip ? undefined : engineFor(fw, cand, predictOptions(planGpu(plan), o.sim), base.factors);
  return plan.scenarios.map((sc) => {
    const id = { ...base, scenario: sc.name };
    if (cand.skip) return { ...id, ...NOT_RUN, status: 'skipped' as const, reason: cand.skip.reason, gpus: 0 };
    if (!engine?.ok) return { ...id, ...NOT_RUN, status: engine?.oom ? ('oom' as const) : ('fails' as const), reason: engine?.reason ?? 'the server would not start', gpus: 0 };
    // The load client's warm-up requests finish before the measured ones are sent and the cache is flushed after them:
    // on a fresh engine they leave nothing behind, so none is simulated. The arrivals are the client's own schedule.
    const load = loadOf(at.point);
    const due = arrivalSchedule(at.requests, { requestRate: load.rate, burstiness: 1, seed: subSeed(plan.bench.seed, 'arrivals') });
    const v = simulateLoad(engine.config, { inputLen: sc.inputLen, outputLen: sc.outputLen, ...load, requests: at.requests, warmup: 0, seed: plan.bench.seed, arrivals: Array.from(due, (ms) => ms / 1000) });
    return { ...id, status: 'ok' as const, gpus: engine.config.gpus, ...figures(v), kv_capacity_tokens: engine.config.kvTokens };
  });
}

/**
 * A P/D unit at the operating point: its prefill workers (one output token each) and decode workers (KV landing after
 * the modelled transfer) simulated on their shares of the load, composed (unit.ts): TTFT the two legs added, TPOT and
 * ITL the decode worker's, throughput the slower role's. Its relative error is widened for the composition.
 */
function unitAt(plan: RunPlan, fw: FrameworkKey, cand: Candidate, at: Required<AtSpec>, o: PredictPlanOptions, base: { framework: FrameworkKey; candidate: string; factors: Factors; rel_error: number }): AtPoint[] {
  const made = unitEngines(fw, cand, predictOptions(planGpu(plan), o.sim), base.factors);
  const gpus = cand.unit?.gpus ?? 0;
  const rel = Math.hypot(base.rel_error, UNIT_EXTRA_ERROR);
  return plan.scenarios.map((sc) => {
    const id = { ...base, rel_error: rel, scenario: sc.name };
    if (!made.ok) return { ...id, ...NOT_RUN, status: made.oom ? ('oom' as const) : ('fails' as const), reason: made.reason, gpus };
    return { ...id, status: 'ok' as const, gpus, ...unitFigures(made.engines, sc, at, plan.bench.seed), kv_capacity_tokens: made.engines.decode.kvTokens };
  });
}

function unitFigures(e: UnitEngines, sc: { inputLen: number; outputLen: number }, at: Required<AtSpec>, seed: number): ReturnType<typeof figures> {
  const { prefill: P, decode: D } = e.unit.workers;
  const load = loadOf(at.point);
  const part = (n: number) => ({ rate: load.rate / n, concurrency: load.concurrency === null ? null : Math.max(1, Math.ceil(load.concurrency / n)), requests: Math.max(1, Math.ceil(at.requests / n)), warmup: 0, seed });
  const pv = simulateLoad(e.prefill, { inputLen: sc.inputLen, outputLen: 1, ...part(P) });
  const dv = simulateLoad(e.decode, { inputLen: sc.inputLen, outputLen: sc.outputLen, ...part(D), kvTransferSeconds: kvTransferSeconds(e.decode, sc.inputLen) });
  const d = figures(dv);
  const add = (a: number, b: number): number | null => finite(a + b);
  const completed = Math.min(pv.completed * P, dv.completed * D);
  return {
    ...d,
    completed,
    failed: pv.failed * P + dv.failed * D,
    request_throughput: completed ? Math.min(pv.requestThroughput * P, dv.requestThroughput * D) : null,
    output_throughput: completed ? dv.outputThroughput * D : null,
    mean_ttft_ms: add(pv.ttftMs.mean, dv.ttftMs.mean),
    p50_ttft_ms: add(pv.ttftMs.p50, dv.ttftMs.p50),
    mean_e2e_ms: add(pv.ttftMs.mean, dv.e2eMs.mean),
    p50_e2e_ms: add(pv.ttftMs.p50, dv.e2eMs.p50),
    preemptions: pv.preemptions * P + dv.preemptions * D,
  };
}

/** Every enabled candidate × scenario of the plan at one operating point. */
export function predictAt(plan: RunPlan, spec: AtSpec, o: PredictPlanOptions = {}): AtPrediction {
  const t0 = performance.now();
  const at = { point: spec.point, requests: spec.requests ?? plan.bench.numPrompts };
  const points: AtPoint[] = [];
  for (const f of plan.frameworks) {
    if (f.status !== 'run') continue;
    for (const cand of f.candidates) if (!o.only || o.only.has(`${f.framework} ${cand.id}`)) points.push(...candidateAt(plan, f.framework, cand, at, o));
  }
  const p = spec.point;
  return {
    ...predictionHead(plan, o),
    at: { kind: p.kind, rate: p.kind === 'rate' ? p.rate : null, concurrency: p.kind === 'concurrency' ? p.concurrency : null, requests: at.requests, seed: plan.bench.seed },
    points,
    elapsedMs: performance.now() - t0,
  };
}

/** `rate=R`, `concurrency=C` or `offline` as an operating point; a message saying what is wrong otherwise. */
export function parseOperatingPoint(text: string): OperatingPoint | string {
  const t = text.trim();
  if (t === 'offline') return { kind: 'offline' };
  const m = /^(rate|concurrency)=(.+)$/.exec(t);
  if (!m) return `'${text}': give rate=R (requests per second, Poisson arrivals), concurrency=C (C requests in flight, closed loop) or offline (every request at once)`;
  const n = Number(m[2]);
  if (m[1] === 'rate') return Number.isFinite(n) && n > 0 ? { kind: 'rate', rate: n } : `'${text}': the rate must be a number above 0 (req/s); offline sends every request at once`;
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? { kind: 'concurrency', concurrency: n } : `'${text}': the concurrency must be a whole number from 1 to 100000`;
}
