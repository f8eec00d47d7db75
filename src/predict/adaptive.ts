// The adaptive strategy, whoever measures: predict every candidate, measure the most promising one that can still win,
// fit its speed factors to what was measured, re-predict its framework's other candidates, and repeat until no
// unmeasured candidate can reach the leader. The runner measures on servers; the search benchmark on the virtual clock.
import type { Candidate } from '../core/candidates/candidate';
import type { FrameworkKey } from '../core/frameworks/types';
import type { RunPlan } from '../core/plan/types';
import type { SimOptions } from '../sim/options';
import { featuresOf, fitFramework, predictFactors, type CalibrationPoint, type FrameworkModel } from './calibration';
import { engineFor, predictOptions } from './engine';
import { fitCandidate, type CandidateFit, type Observation } from './fit';
import { planGpu, predictCandidate } from './plan';
import { RACE_Z, Race, type Outcome, type Standing } from './race';
import { capacityMiss, capacityWith } from './measured';
import type { CandidatePrediction, Factors } from './types';

export interface AdaptiveEntry {
  key: string;
  framework: FrameworkKey;
  cand: Candidate;
}

export interface Measurement {
  outcome: Outcome;
  /** The SLA-passing trials' latencies, for calibration. */
  observations: Observation[];
}

export interface AdaptiveOptions {
  plan: RunPlan;
  entries: readonly AdaptiveEntry[];
  /** Keys measured whatever the prediction says (`--force`). */
  forced?: Iterable<string>;
  /** Calibration points from earlier runs (the workspace's store), per framework. */
  prior?: ReadonlyMap<FrameworkKey, readonly CalibrationPoint[]>;
  /** Uncalibrated predictions already made (the benchmark shares them across seeds). */
  initial?: ReadonlyMap<string, CandidatePrediction>;
  /** Simulator options of the predictions (never a perturbation: the predictor does not know the GPU). */
  sim?: Partial<SimOptions>;
  /**
   * Measures a candidate: per scenario, its search starts at the predicted knee (`hints`) and need not go below the
   * floor (`floors`, Race.floors): a candidate failing there can neither win nor tie, and its search there stops.
   */
  measure(e: AdaptiveEntry, hints: ReadonlyMap<string, number>, floors: ReadonlyMap<string, number>): Promise<Measurement | 'cancelled'>;
  /** Candidates measured at once (default 1: each choice sees every earlier measurement). */
  parallel?: number;
  /**
   * Called when no unmeasured candidate can still win (the runner repeats its finalists there): the scenarios whose
   * verdict names a winner. A skipped candidate that could tie with such a winner is measured too (Race.settle),
   * and this is called again until none is.
   */
  settle?(): Promise<Settled | 'cancelled'>;
  /** Told after each fit: the candidate, its fit, and its framework's model. */
  onCalibrated?(e: AdaptiveEntry, fit: CandidateFit | undefined, model: FrameworkModel): void;
}

/** What the verdict says once the race has nothing left (after repeats): per scenario it decides, the winner's confirmed rate. */
export interface Settled {
  decided: ReadonlyMap<string, number>;
}

export interface AdaptiveResult {
  measured: string[];
  skipped: Array<{ entry: AdaptiveEntry; reason: string }>;
  models: Map<FrameworkKey, FrameworkModel>;
  /** The latest prediction of every candidate (calibrated as far as the run got). */
  predictions: Map<string, CandidatePrediction>;
  initial: Map<string, CandidatePrediction>;
  cancelled: boolean;
}

function hintsOf(p: CandidatePrediction | undefined): Map<string, number> {
  return new Map((p?.scenarios ?? []).filter((s) => s.capacity > 0).map((s) => [s.scenario, s.capacity]));
}

class Calibrator {
  readonly points = new Map<FrameworkKey, CalibrationPoint[]>();
  readonly models = new Map<FrameworkKey, FrameworkModel>();

  constructor(prior: ReadonlyMap<FrameworkKey, readonly CalibrationPoint[]> | undefined) {
    for (const [fw, pts] of prior ?? []) {
      this.points.set(fw, [...pts]);
      if (pts.length) this.models.set(fw, fitFramework(pts));
    }
  }

  factorsFor(fw: FrameworkKey, cand: Candidate): ReturnType<typeof predictFactors> | undefined {
    const m = this.models.get(fw);
    return m ? predictFactors(m, featuresOf(cand)) : undefined;
  }

  /** Adds a measured candidate's fit (replacing an earlier point with the same flags) and refits its framework. */
  add(fw: FrameworkKey, point: CalibrationPoint): FrameworkModel {
    const key = point.features.join('\u0000');
    const pts = (this.points.get(fw) ?? []).filter((p) => p.features.join('\u0000') !== key);
    pts.push(point);
    this.points.set(fw, pts);
    const model = fitFramework(pts);
    this.models.set(fw, model);
    return model;
  }
}

export async function runAdaptive(o: AdaptiveOptions): Promise<AdaptiveResult> {
  const cal = new Calibrator(o.prior);
  const predictOpts = { calibrationFor: (fw: FrameworkKey, cand: Candidate) => cal.factorsFor(fw, cand), upperZ: RACE_Z, ...(o.sim ? { sim: o.sim } : {}) };
  const race = new Race(o.entries.map((e) => e.key), o.plan.scenarios.map((s) => s.name), o.forced, o.plan.bench.search?.lower ?? 0, o.plan.bench.verdict.objective !== 'throughput');
  const initial = new Map<string, CandidatePrediction>();
  const hints = new Map<FrameworkKey, Map<string, number>>();
  for (const e of o.entries) {
    const p = (!cal.models.has(e.framework) && o.initial?.get(e.key)) || predictCandidate(o.plan, e.framework, e.cand, hints.get(e.framework) ?? hints.set(e.framework, new Map()).get(e.framework)!, predictOpts);
    initial.set(e.key, p);
    race.predict(e.key, p);
  }
  const measured: string[] = [];
  for (;;) {
    if ((await raceOn(o, race, cal, measured, predictOpts)) === 'cancelled') return { measured, skipped: [], models: cal.models, predictions: predictionsOf(race, o.entries), initial, cancelled: true };
    const settled = o.settle ? await o.settle() : undefined;
    if (settled === 'cancelled') return { measured, skipped: [], models: cal.models, predictions: predictionsOf(race, o.entries), initial, cancelled: true };
    if (!settled) break;
    race.settle(settled.decided);
    if (race.next() === undefined) break;
  }
  const skipped = o.entries.filter((e) => !race.isMeasured(e.key)).map((entry) => ({ entry, reason: race.hopeless(entry.key) ?? 'not measured' }));
  return { measured, skipped, models: cal.models, predictions: predictionsOf(race, o.entries), initial, cancelled: false };
}

/** Measures the most promising candidates (up to `parallel` at once) until none can still win; 'cancelled' when a measurement was. */
async function raceOn(o: AdaptiveOptions, race: Race, cal: Calibrator, measured: string[], predictOpts: Parameters<typeof predictCandidate>[4]): Promise<'done' | 'cancelled'> {
  // Up to `parallel` candidates measured at once (one: each choice sees every earlier measurement).
  const inFlight = new Map<string, Promise<{ e: AdaptiveEntry; m: Measurement | 'cancelled' }>>();
  for (;;) {
    for (let key = race.next(new Set(inFlight.keys())); key !== undefined && inFlight.size < (o.parallel ?? 1); key = race.next(new Set(inFlight.keys()))) {
      const e = o.entries.find((x) => x.key === key) as AdaptiveEntry;
      inFlight.set(key, o.measure(e, hintsOf(race.prediction(key)), race.floors(key)).then((m) => ({ e, m })));
    }
    if (inFlight.size === 0) return 'done';
    const { e, m } = await Promise.race(inFlight.values());
    inFlight.delete(e.key);
    if (m === 'cancelled') {
      await Promise.allSettled(inFlight.values());
      return 'cancelled';
    }
    race.record(e.key, m.outcome);
    measured.push(e.key);
    recalibrate(o, cal, race, e, m, predictOpts);
  }
}

/** The largest miss of the fitted model's capacity against what was measured, over the candidate's scenarios. */
function capacityErrorOf(o: AdaptiveOptions, e: AdaptiveEntry, factors: Factors, standings: ReadonlyMap<string, Standing>): number {
  let worst = 0;
  for (const [sc, st] of standings) {
    const cap = capacityWith(o.plan, planGpu(o.plan), e.framework, e.cand, sc, factors, st.lo, o.sim);
    if (cap !== null) worst = Math.max(worst, capacityMiss(cap, st));
  }
  return worst;
}

function predictionsOf(race: Race, entries: readonly AdaptiveEntry[]): Map<string, CandidatePrediction> {
  const out = new Map<string, CandidatePrediction>();
  for (const e of entries) {
    const p = race.prediction(e.key);
    if (p) out.set(e.key, p);
  }
  return out;
}

/** A fit whose factors miss the candidate's own measured capacity by more than this (log ratio) is fitted again from the plain model. */
const REFIT_MISS = 0.1;

/**
 * The candidate's fit, started from its framework's current model; where those factors miss its own measured capacity
 * by more than REFIT_MISS, the better (by that miss) of it and a fit from the plain model. Trials near the knee all sit
 * at the SLA's latencies and barely tell prefill from decode speed: a fit started far off can settle on a pair that
 * reproduces them and not the capacity (bench:search, ernie-4.5: a decode 0.37x / prefill 2x pair that put the
 * framework's best candidate 12x under its measured capacity, so the race skipped it).
 */
function bestFit(o: AdaptiveOptions, e: AdaptiveEntry, config: Parameters<typeof fitCandidate>[0], obs: readonly Observation[], standings: ReadonlyMap<string, Standing>, start: Factors | undefined): { fit: CandidateFit; capacityError: number } | undefined {
  const first = fitCandidate(config, obs, start);
  if (!first) return undefined;
  const a = { fit: first, capacityError: capacityErrorOf(o, e, first.factors, standings) };
  if (a.capacityError <= REFIT_MISS || !start) return a;
  const again = fitCandidate(config, obs);
  if (!again) return a;
  const b = { fit: again, capacityError: capacityErrorOf(o, e, again.factors, standings) };
  return b.capacityError < a.capacityError ? b : a;
}

/** Fits the measured candidate (one that started), refits its framework, and re-predicts the framework's unmeasured candidates from where they were. */
function recalibrate(o: AdaptiveOptions, cal: Calibrator, race: Race, e: AdaptiveEntry, m: Measurement, predictOpts: Parameters<typeof predictCandidate>[4]): void {
  const engine = engineFor(e.framework, e.cand, predictOptions(planGpu(o.plan), o.sim));
  if (!engine.ok || m.outcome === 'failed') return;
  const best = bestFit(o, e, engine.config, m.observations, m.outcome, cal.factorsFor(e.framework, e.cand)?.factors);
  if (!best) return;
  const { fit, capacityError } = best;
  const model = cal.add(e.framework, { candidate: e.cand.id, features: featuresOf(e.cand), factors: fit.factors, capacityError });
  o.onCalibrated?.(e, fit, model);
  // The first measurement of a framework moves every prediction of it; later ones re-predict only those still in the race.
  const first = model.points.length === 1;
  for (const other of o.entries) {
    if (other.framework !== e.framework || race.isMeasured(other.key)) continue;
    const before = race.prediction(other.key);
    if (before && before.status !== 'ok') continue;
    if (!first && race.hopeless(other.key) !== undefined) continue;
    race.predict(other.key, predictCandidate(o.plan, other.framework, other.cand, hintsOf(before), predictOpts));
  }
}
