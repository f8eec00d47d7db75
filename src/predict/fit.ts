// Fits one candidate's speed factors to what was measured: decode from p50 TPOT, prefill from p50 TTFT, by damped secant steps in log space on the virtual engine.
import type { Scenario } from '../core/config/model';
import type { ResolvedSim } from '../sim/config';
import { simulateLoad } from '../sim/virtual';
import { scaled } from './engine';
import { requestsFor } from './point';
import type { Factors } from './types';
import { median as medianOf } from './stats';

/** One measured trial the fit explains: where it ran and what the client saw (modelled ms). */
export interface Observation {
  scenario: Scenario;
  rate: number;
  concurrency: number | null;
  p50TtftMs: number;
  p50TpotMs: number;
  /**
   * Requests the trial measured: more than the plan's prompts where a too-short trial was lengthened (the runner's
   * rule, core/plan/bench.ts). The fit simulates that many, since a longer trial at the same rate queues deeper; absent,
   * requestsFor(rate).
   */
  requests?: number;
  /** Met the SLA; a candidate that met it nowhere is fitted on its lowest-rate (least queued) failing trials. */
  passed?: boolean;
}

export interface CandidateFit {
  factors: Factors;
  /** Median |log(predicted / measured)| over the observations' TTFT and TPOT, before and after the fit. */
  errorBefore: number;
  errorAfter: number;
  observations: number;
}

const LOG_MIN = Math.log(0.2);
const LOG_MAX = Math.log(5);
/** Observations used per fit: the highest-rate ones per scenario carry the most of the model (batching, queueing). */
const MAX_OBS = 6;

/** The median of a list that is never empty here (every fit has observations). */
const median = (xs: number[]): number => medianOf(xs) ?? 0;

interface Predicted {
  ttft: number;
  tpot: number;
}

function predictAll(engine: ResolvedSim, f: Factors, obs: readonly Observation[]): Predicted[] {
  const e = scaled(engine, f);
  return obs.map((o) => {
    const v = simulateLoad(e, { inputLen: o.scenario.inputLen, outputLen: o.scenario.outputLen, rate: o.rate, concurrency: o.concurrency, requests: o.requests ?? requestsFor(o.rate), warmup: 3, seed: 1 });
    return { ttft: v.ttftMs.p50, tpot: v.tpotMs.p50 };
  });
}

/** The observations a fit uses: valid latencies, at most MAX_OBS, highest rates of each scenario first. */
export function usable(obs: readonly Observation[]): Observation[] {
  const valid = obs.filter((o) => o.p50TtftMs > 0 && o.p50TpotMs > 0 && Number.isFinite(o.rate));
  const passing = valid.filter((o) => o.passed !== false);
  if (passing.length === 0) return lowestRates(valid);
  const ok = passing;
  const byScenario = new Map<string, Observation[]>();
  for (const o of ok) byScenario.set(o.scenario.name, [...(byScenario.get(o.scenario.name) ?? []), o]);
  for (const list of byScenario.values()) list.sort((a, b) => b.rate - a.rate);
  const out: Observation[] = [];
  for (let i = 0; out.length < MAX_OBS; i++) {
    let added = false;
    for (const list of byScenario.values()) {
      if (list[i] && out.length < MAX_OBS) {
        out.push(list[i] as Observation);
        added = true;
      }
    }
    if (!added) break;
  }
  return out;
}

function errorOf(p: Predicted[], obs: readonly Observation[]): number {
  return median(obs.flatMap((o, i) => [Math.abs(Math.log((p[i] as Predicted).ttft / o.p50TtftMs)), Math.abs(Math.log((p[i] as Predicted).tpot / o.p50TpotMs))]));
}

/** Per scenario the two lowest-rate trials: the least queued of a candidate that met the SLA nowhere. */
function lowestRates(obs: readonly Observation[]): Observation[] {
  const byScenario = new Map<string, Observation[]>();
  for (const o of obs) byScenario.set(o.scenario.name, [...(byScenario.get(o.scenario.name) ?? []), o]);
  return [...byScenario.values()].flatMap((l) => [...l].sort((a, b) => a.rate - b.rate).slice(0, 2));
}

const clamp = (x: number): number => Math.min(LOG_MAX, Math.max(LOG_MIN, x));

/**
 * The factors that make the virtual engine reproduce the observations: Newton steps in (log prefill, log decode) on
 * the median log ratios of p50 TTFT and p50 TPOT, the Jacobian by finite differences (both latencies depend on both
 * speeds: a prefill-first scheduler pauses decoding while it prefills).
 */
export function fitCandidate(engine: ResolvedSim, all: readonly Observation[], start: Factors = { prefill: 1, decode: 1 }): CandidateFit | undefined {
  const obs = usable(all);
  if (obs.length === 0) return undefined;
  const residual = (lp: number, ld: number): [number, number] => {
    const p = predictAll(engine, { prefill: Math.exp(lp), decode: Math.exp(ld) }, obs);
    return [median(obs.map((o, i) => Math.log((p[i] as Predicted).ttft / o.p50TtftMs))), median(obs.map((o, i) => Math.log((p[i] as Predicted).tpot / o.p50TpotMs)))];
  };
  let lp = Math.log(start.prefill);
  let ld = Math.log(start.decode);
  const before = errorOf(predictAll(engine, start, obs), obs);
  const h = 0.05;
  const norm = (r: [number, number]): number => Math.hypot(r[0], r[1]);
  let r = residual(lp, ld);
  for (let i = 0; i < 12; i++) {
    if (Math.abs(r[0]) < 0.003 && Math.abs(r[1]) < 0.003) break;
    const rp = residual(lp + h, ld);
    const rd = residual(lp, ld + h);
    const a = (rp[0] - r[0]) / h;
    const b = (rd[0] - r[0]) / h;
    const c = (rp[1] - r[1]) / h;
    const d = (rd[1] - r[1]) / h;
    const det = a * d - b * c;
    // A singular Jacobian (a latency that does not move): fall back to latency ~ 1/speed on the diagonal.
    const [dp, dd] = Math.abs(det) > 1e-6 ? [(-d * r[0] + b * r[1]) / det, (c * r[0] - a * r[1]) / det] : [r[0], r[1]];
    const step = Math.max(Math.abs(dp), Math.abs(dd));
    // Damped: halve the step until the residuals shrink (a latency that barely moves, such as TPOT near the knee of
    // a prefill-first scheduler, makes the full step overshoot to the clamp).
    let scale = step > 0.7 ? 0.7 / step : 1;
    let next: [number, number, [number, number]] | undefined;
    for (; scale > 1 / 64; scale /= 2) {
      const np = clamp(lp + dp * scale);
      const nd = clamp(ld + dd * scale);
      const nr = residual(np, nd);
      if (norm(nr) < norm(r)) {
        next = [np, nd, nr];
        break;
      }
    }
    if (!next) break;
    [lp, ld, r] = next;
  }
  const factors = { prefill: Math.exp(lp), decode: Math.exp(ld) };
  return { factors, errorBefore: before, errorAfter: errorOf(predictAll(engine, factors, obs), obs), observations: obs.length };
}
