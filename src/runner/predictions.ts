// predict.json: what the simulated engine model predicted for the run's candidates, written into the run directory
// beside manifest.json — per candidate its predicted SLA capacity per scenario (uncalibrated, and for adaptive the
// calibrated one), its predicted status and relative error, and the predicted Pareto fronts. Small on purpose: no curves.
import { modelErrorText } from '../predict/model-error';
import { PREDICT_FILE, PREDICT_FILE_VERSION, PREDICTED_NOTE, type PredictFile, type PredictFileCandidate, type PredictFileCapacity, type PredictFilePoint } from '../core/results/predict-file';
import { frontsOf } from '../predict/pareto';
import { planGpu, predictPlan } from '../predict/plan';
import type { CandidatePrediction, ParetoPoint, ScenarioFront } from '../predict/types';
import type { RunContext } from './context';

const round = (x: number, digits = 4): number => Number(x.toFixed(digits));

function capacityOf(p: CandidatePrediction): PredictFileCapacity {
  return { rel_error: round(p.relError), capacity: Object.fromEntries(p.scenarios.map((s) => [s.scenario, round(s.capacity)])) };
}

function pointOf(p: ParetoPoint): PredictFilePoint {
  return { framework: p.framework, candidate: p.candidate, rate: round(p.rate), throughput_per_gpu: round(p.throughputPerGpu, 2), per_user_tps: round(p.perUserTps, 2), p50_ttft_ms: round(p.p50TtftMs, 2) };
}

export interface PredictionsInput {
  strategy: 'grid' | 'adaptive';
  gpu: string;
  scenarios: readonly string[];
  initial: Iterable<CandidatePrediction>;
  /** adaptive: the last (calibrated) prediction per candidate key. */
  final?: ReadonlyMap<string, CandidatePrediction>;
  /** The fronts shown: from the final predictions when there are any, else the initial ones. */
  fronts: readonly ScenarioFront[];
  calibrated: boolean;
}

/** predict.json's content (pure). */
export function predictionFile(i: PredictionsInput): PredictFile {
  const candidates: Record<string, PredictFileCandidate> = {};
  for (const p of i.initial) {
    const key = `${p.framework} ${p.candidate}`;
    const fin = i.final?.get(key);
    candidates[key] = { framework: p.framework, candidate: p.candidate, status: fin?.status ?? p.status, ...(p.reason ? { reason: p.reason } : {}), gpus: p.gpus, initial: capacityOf(p), ...(fin ? { final: capacityOf(fin) } : {}) };
  }
  return {
    version: PREDICT_FILE_VERSION,
    simulated_model: true,
    note: PREDICTED_NOTE,
    strategy: i.strategy,
    gpu: i.gpu,
    calibrated: i.calibrated,
    scenarios: [...i.scenarios],
    candidates,
    fronts: i.fronts.map((f) => ({ scenario: f.scenario, leader: f.leader ?? null, by_user_tps: f.byUserTps.map(pointOf), by_ttft: f.byTtft.map(pointOf) })),
    model_error: modelErrorText(),
  };
}

/** Writes predict.json; a prediction that fails is logged, never the run's failure. */
function writeFile(ctx: RunContext, make: () => PredictFile): void {
  try {
    ctx.dir.writeJson(PREDICT_FILE, make());
  } catch (e) {
    ctx.log('warn', `${PREDICT_FILE} could not be written: ${(e as Error).message}`);
  }
}

/** adaptive: the uncalibrated and the final (calibrated) predictions the race made, and the fronts of the final ones. */
export function writeAdaptivePredictions(ctx: RunContext, initial: ReadonlyMap<string, CandidatePrediction>, final: ReadonlyMap<string, CandidatePrediction>): void {
  writeFile(ctx, () => {
    const scenarios = ctx.plan.scenarios.map((s) => s.name);
    const last = [...initial.keys()].map((k) => final.get(k) ?? (initial.get(k) as CandidatePrediction));
    const calibrated = last.some((p) => p.factors.prefill !== 1 || p.factors.decode !== 1);
    return predictionFile({ strategy: 'adaptive', gpu: planGpu(ctx.plan) ?? 'auto', scenarios, initial: initial.values(), final, fronts: frontsOf(scenarios, last), calibrated });
  });
}

/** grid: the plan predicted once (uncalibrated), with its fronts. */
export function writeGridPredictions(ctx: RunContext): void {
  writeFile(ctx, () => {
    const p = predictPlan(ctx.plan);
    return predictionFile({ strategy: 'grid', gpu: p.gpu, scenarios: ctx.plan.scenarios.map((s) => s.name), initial: p.candidates, fronts: p.fronts, calibrated: false });
  });
}
