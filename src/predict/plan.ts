// Predicts a whole plan: every candidate of every framework that runs, on every scenario, with the Pareto fronts and the predicted leader per scenario.
import type { Candidate } from '../core/candidates/candidate';
import type { FrameworkKey } from '../core/frameworks/types';
import type { RunPlan } from '../core/plan/types';
import type { SimOptions } from '../sim/options';
import { modelProfile, profileSourceText, simGpuFor } from '../sim/profiles';
import { predictCapacity, predictCapacityBy } from './capacity';
import { predictUnitPoint, UNIT_APPROXIMATION, UNIT_EXTRA_ERROR, unitEngines } from './unit';
import { modelErrorText } from './model-error';
import { engineFor, predictOptions } from './engine';
import { frontsOf } from './pareto';
import { PRIOR_REL_ERROR } from './prior';
import { UNIT_FACTORS, type CandidatePrediction, type Factors, type PlanPrediction, type PredictionHead } from './types';

export { PRIOR_REL_ERROR };

export interface PredictPlanOptions {
  /** Calibration per candidate: speed factors and the relative error that goes with them. */
  calibrationFor?: (fw: FrameworkKey, cand: Candidate) => { factors: Factors; relError: number } | undefined;
  /** Only these candidates (`framework id`); all by default. */
  only?: ReadonlySet<string>;
  /** Also predict each scenario's `upper` capacity, at speed factors × e^(upperZ × relError) (the adaptive race's optimistic bound). */
  upperZ?: number;
  /** More simulator options (tests, the benchmark's ground truth): never used by a real prediction. */
  sim?: Partial<SimOptions>;
}

/** The simulator's GPU for a plan: what its hardware names, else the smallest that fits (as the sim target does). */
export function planGpu(plan: RunPlan): string | undefined {
  return simGpuFor(plan.hardware.gpuModel);
}


export function concurrencyOf(plan: RunPlan): number | null {
  return plan.bench.search?.concurrencies[0] ?? plan.bench.fixed[0]?.concurrency ?? null;
}

/** One candidate on every scenario; `hints` carries the last capacity per scenario so neighbours start close. */
export function predictCandidate(plan: RunPlan, fw: FrameworkKey, cand: Candidate, hints: Map<string, number>, o: PredictPlanOptions = {}): CandidatePrediction {
  const cal = o.calibrationFor?.(fw, cand);
  const factors = cal?.factors ?? UNIT_FACTORS;
  const base = { framework: fw, candidate: cand.id, command: cand.command, factors, relError: cal?.relError ?? PRIOR_REL_ERROR, scenarios: [] };
  if (cand.skip) return { ...base, gpus: 0, status: 'skipped', reason: cand.skip.reason };
  if (cand.unit) return predictUnit(plan, fw, cand, base, o);
  const engine = engineFor(fw, cand, predictOptions(planGpu(plan), o.sim), factors);
  if (!engine.ok) return { ...base, gpus: 0, status: engine.oom ? 'oom' : 'fails', reason: engine.reason };
  const relError = base.relError;
  const fast = o.upperZ ? engineFor(fw, cand, predictOptions(planGpu(plan), o.sim), { prefill: factors.prefill * Math.exp(o.upperZ * relError), decode: factors.decode * Math.exp(o.upperZ * relError) }) : undefined;
  const scenarios = plan.scenarios.map((sc) => {
    const q = { scenario: sc, concurrency: concurrencyOf(plan), sla: plan.sla };
    const p = predictCapacity(engine.config, { ...q, hint: hints.get(sc.name) });
    if (p.capacity > 0) hints.set(sc.name, p.capacity);
    if (fast?.ok) p.upper = predictCapacity(fast.config, { ...q, hint: Math.max(p.capacity, 1e-3) * (1 + o.upperZ! * relError) }).capacity;
    return p;
  });
  return { ...base, gpus: engine.config.gpus, status: 'ok', scenarios };
}

/** A P/D unit on every scenario: its roles' simulations composed (unit.ts), its relative error widened for that (UNIT_EXTRA_ERROR). */
function predictUnit(plan: RunPlan, fw: FrameworkKey, cand: Candidate, base: Omit<CandidatePrediction, 'gpus' | 'status'>, o: PredictPlanOptions): CandidatePrediction {
  const gpus = cand.unit?.gpus ?? 0;
  const made = unitEngines(fw, cand, predictOptions(planGpu(plan), o.sim), base.factors);
  if (!made.ok) return { ...base, gpus, status: made.oom ? 'oom' : 'fails', reason: made.reason };
  const relError = Math.hypot(base.relError, UNIT_EXTRA_ERROR);
  const upperFactor = o.upperZ ? Math.exp(o.upperZ * relError) : undefined;
  const fast = upperFactor ? unitEngines(fw, cand, predictOptions(planGpu(plan), o.sim), { prefill: base.factors.prefill * upperFactor, decode: base.factors.decode * upperFactor }) : undefined;
  const conc = concurrencyOf(plan);
  const scenarios = plan.scenarios.map((sc) => {
    const q = { scenario: sc, concurrency: conc, sla: plan.sla };
    const p = predictCapacityBy((rate) => predictUnitPoint(made.engines, sc, rate, conc, plan.sla), q);
    if (fast?.ok) p.upper = predictCapacityBy((rate) => predictUnitPoint(fast.engines, sc, rate, conc, plan.sla), { ...q, hint: Math.max(p.capacity, 1e-3) * (1 + (o.upperZ ?? 0) * relError) }).capacity;
    return p;
  });
  return { ...base, relError, gpus, status: 'ok', scenarios, basis: UNIT_APPROXIMATION };
}

/** A prediction's head: the plan's model with where its shapes come from (a guessed shape is never silent), the GPU, the model's error. */
export function predictionHead(plan: RunPlan, o: PredictPlanOptions): PredictionHead {
  const m = modelProfile(plan.model);
  const shapes = { modelShapes: profileSourceText(m), modelEstimated: m.estimated === true, modelError: modelErrorText() };
  return { simulated: true, file: plan.source.path, model: plan.model, ...shapes, gpu: planGpu(plan) ?? 'auto', calibrated: o.calibrationFor !== undefined };
}

export function predictPlan(plan: RunPlan, o: PredictPlanOptions = {}): PlanPrediction {
  const t0 = performance.now();
  const candidates: CandidatePrediction[] = [];
  for (const f of plan.frameworks) {
    if (f.status !== 'run') continue;
    const hints = new Map<string, number>();
    for (const cand of f.candidates) {
      if (o.only && !o.only.has(`${f.framework} ${cand.id}`)) continue;
      candidates.push(predictCandidate(plan, f.framework, cand, hints, o));
    }
  }
  return {
    ...predictionHead(plan, o),
    candidates,
    fronts: frontsOf(plan.scenarios.map((s) => s.name), candidates),
    elapsedMs: performance.now() - t0,
  };
}
