// A P/D unit's prediction, composed from its roles: each prefill worker simulated alone on its share of the arrivals
// (one output token: its queue and prefill), each decode worker on its share with every prompt's KV landing the
// modelled transfer time after the request (its queue and decode); the unit's TTFT is the two legs' p50s added, its
// TPOT the decode worker's, its throughput the slower role's. An approximation of a unit, labelled so: the roles'
// medians are added (not the median of the sums), and the router's hop is not modelled.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Scenario } from '../core/config/model';
import type { Candidate } from '../core/candidates/candidate';
import type { Unit } from '../core/candidates/unit';
import type { FrameworkKey } from '../core/frameworks/types';
import { p50TpotLimitMs, p50TtftLimitMs, type SlaReading } from '../core/sla/limits';
import type { ResolvedSim } from '../sim/config';
import type { SimOptions } from '../sim/options';
import { kvTransferSeconds } from '../sim/pd';
import { simulateLoad, type VirtualResult } from '../sim/virtual';
import { engineForArgv, type EngineFor } from './engine';
import { gaveUpMetrics, judgeMetrics, requestsFor } from './point';
import { MAX_LENGTHEN, steadyRequests } from '../core/plan/bench';
import type { Factors, PredictedPoint } from './types';

/** What the unit predictions say of themselves (predict's output and the report carry it). */
/**
 * The relative error a unit's prediction adds to one server's (in quadrature): a stated allowance, not a measurement
 * (no published P/D figure with stated conditions was in the corpus to check it against).
 */
export const UNIT_EXTRA_ERROR = 0.25;

export const UNIT_APPROXIMATION = "P/D unit composed from its roles' simulations (prefill and decode p50s added, transfer modelled, router hop not): not checked against published P/D measurements";

export interface UnitEngines {
  prefill: ResolvedSim;
  decode: ResolvedSim;
  unit: Unit;
}

/** The engines of a unit's first prefill and first decode worker (a role's workers share one command but ports), or why one would not start. */
export function unitEngines(fw: FrameworkKey, cand: Candidate, options: SimOptions, factors?: Factors): { ok: true; engines: UnitEngines } | Extract<EngineFor, { ok: false }> {
  const unit = cand.unit;
  if (!unit) return { ok: false, oom: false, reason: `${cand.id} is not a P/D unit` };
  const of = (role: 'prefill' | 'decode'): EngineFor => {
    const p = unit.processes.find((x) => x.role === role);
    return p ? withUnitFiles(unit, p.argv, (argv) => engineForArgv(fw, argv, options, factors)) : { ok: false, oom: false, reason: `no ${role} worker` };
  };
  const pre = of('prefill');
  if (!pre.ok) return { ...pre, reason: `prefill worker: ${pre.reason}` };
  const dec = of('decode');
  if (!dec.ok) return { ...dec, reason: `decode worker: ${dec.reason}` };
  return { ok: true, engines: { prefill: pre.config, decode: dec.config, unit } };
}

/** Runs `fn` on the argv with the unit's files (TensorRT-LLM's options YAML) written to a scratch folder and named there. */
function withUnitFiles<T>(unit: Unit, argv: readonly string[], fn: (argv: readonly string[]) => T): T {
  if (!unit.files.length) return fn(argv);
  const dir = mkdtempSync(join(tmpdir(), 'autobench-unit-predict-'));
  try {
    for (const f of unit.files) {
      mkdirSync(dirname(join(dir, f.path)), { recursive: true });
      writeFileSync(join(dir, f.path), f.content);
    }
    const paths = new Set(unit.files.map((f) => f.path));
    return fn(argv.map((a) => (paths.has(a) ? join(dir, a) : a)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Completions' rate over arrivals' rate in one role's trial (1: it kept pace). */
const paceOf = (v: VirtualResult): number | null => (v.keptRate === null || v.offeredRate === null || !(v.offeredRate > 0) ? null : v.keptRate / v.offeredRate);

const share = (c: number | null, n: number): number | null => (c === null ? null : Math.max(1, Math.ceil(c / n)));

interface UnitTrial {
  metrics: Record<string, number | null>;
  gaveUp: boolean;
}

/** The two roles' simulations at `rate` with `n` measured requests each, composed into the unit's row metrics. */
function unitTrial(e: UnitEngines, scenario: Scenario, rate: number, concurrency: number | null, sla: SlaReading, n: number, seed: number): UnitTrial {
  const { prefill: P, decode: D } = e.unit.workers;
  const ttftLimit = p50TtftLimitMs(sla.limits);
  const tpotLimit = p50TpotLimitMs(sla.limits);
  const common = { inputLen: scenario.inputLen, requests: n, warmup: 3 };
  const pv: VirtualResult = simulateLoad(e.prefill, { ...common, outputLen: 1, rate: rate / P, concurrency: share(concurrency, P), seed, ...(ttftLimit !== undefined ? { giveUpTtftMs: ttftLimit } : {}) });
  const transfer = kvTransferSeconds(e.decode, scenario.inputLen);
  const dv: VirtualResult = simulateLoad(e.decode, { ...common, outputLen: scenario.outputLen, rate: rate / D, concurrency: share(concurrency, D), seed: seed + 1, kvTransferSeconds: transfer, ...(tpotLimit !== undefined ? { giveUpTpotMs: tpotLimit } : {}) });
  const metrics: Record<string, number | null> = {
    request_throughput: Math.min(pv.requestThroughput * P, dv.requestThroughput * D),
    output_token_throughput: dv.outputThroughput * D,
    p50_ttft_ms: pv.ttftMs.p50 + dv.ttftMs.p50,
    p99_ttft_ms: pv.ttftMs.p99 + dv.ttftMs.p99,
    p50_tpot_ms: dv.tpotMs.p50,
    p99_tpot_ms: dv.tpotMs.p99,
    p50_e2e_ms: pv.ttftMs.p50 + dv.e2eMs.p50,
    p99_e2e_ms: pv.ttftMs.p99 + dv.e2eMs.p99,
    success_rate: n ? Math.min(pv.completed, dv.completed) / n : 0,
    offered_request_rate: rate,
    // Each role's pace against its own arrivals (their realised rate, not the nominal one), the unit's the slower.
    completion_request_rate: paceOf(pv) === null || paceOf(dv) === null ? null : rate * Math.min(paceOf(pv) as number, paceOf(dv) as number),
  };
  if (pv.gaveUp) return { metrics: gaveUpMetrics(metrics, ttftLimit, undefined, pv), gaveUp: true };
  if (dv.gaveUp) return { metrics: gaveUpMetrics(metrics, undefined, tpotLimit, dv), gaveUp: true };
  return { metrics, gaveUp: false };
}

/**
 * The unit's trial at `rate` (req/s into its router), judged by the plan's SLA; lengthened as the runner lengthens a
 * trial too short for a steady state (arrivals spanning 3 median E2E latencies), up to MAX_LENGTHEN times.
 */
export function predictUnitPoint(e: UnitEngines, scenario: Scenario, rate: number, concurrency: number | null, sla: SlaReading, seed = 1): PredictedPoint {
  const n0 = requestsFor(rate);
  let n = n0;
  let t = unitTrial(e, scenario, rate, concurrency, sla, n, seed);
  let tooShort = false;
  while (!t.gaveUp && Number.isFinite(rate)) {
    const need = steadyRequests((t.metrics.p50_e2e_ms ?? 0) / 1000, rate);
    if (n >= need || !judgeMetrics(t.metrics, sla, false).passed) break;
    if (n >= MAX_LENGTHEN * n0 || need > MAX_LENGTHEN * n0) {
      tooShort = true;
      break;
    }
    n = Math.min(MAX_LENGTHEN * n0, Math.max(2 * n, Math.ceil(1.25 * need)));
    t = unitTrial(e, scenario, rate, concurrency, sla, n, seed);
  }
  const verdict = judgeMetrics(t.metrics, sla, true);
  const num = (k: string): number => t.metrics[k] ?? NaN;
  return {
    rate,
    passed: verdict.passed && !tooShort,
    reasons: tooShort ? [...verdict.reasons, `too short for a steady state even after lengthening ${MAX_LENGTHEN}x (as the runner judges it)`] : verdict.reasons,
    requestThroughput: num('request_throughput'),
    outputThroughput: num('output_token_throughput'),
    p50TtftMs: num('p50_ttft_ms'),
    p99TtftMs: num('p99_ttft_ms'),
    p50TpotMs: num('p50_tpot_ms'),
    p99TpotMs: num('p99_tpot_ms'),
    p50E2eMs: num('p50_e2e_ms'),
    successRate: num('success_rate'),
  };
}
