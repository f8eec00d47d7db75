// What a prediction is: per candidate and scenario, the predicted latency-vs-rate curve and SLA capacity, or why it would not start.
import type { FrameworkKey } from '../core/frameworks/types';

/** Speed multipliers on the cost model (above 1: faster): prefill compute and memory-bound decode. */
export interface Factors {
  prefill: number;
  decode: number;
}

export const UNIT_FACTORS: Factors = { prefill: 1, decode: 1 };

/** One predicted trial: what the load client would measure at `rate` (modelled req/s, latencies in ms). */
export interface PredictedPoint {
  rate: number;
  passed: boolean;
  /** Why the SLA was missed, one sentence per target (empty when passed). */
  reasons: string[];
  requestThroughput: number;
  outputThroughput: number;
  p50TtftMs: number;
  p99TtftMs: number;
  p50TpotMs: number;
  p99TpotMs: number;
  p50E2eMs: number;
  successRate: number;
}

export interface ScenarioPrediction {
  scenario: string;
  concurrency: number | null;
  /** Highest request rate predicted to meet the SLA (req/s); 0 when none does. */
  capacity: number;
  /** The capacity if the engine were faster by the calibrated error (speed factors × e^(RACE_Z × relError)): how high it could still land. */
  upper?: number;
  /** The curve: every rate the search simulated, ascending. */
  curve: PredictedPoint[];
  /** The point at `capacity` (undefined when nothing passes). */
  atCapacity: PredictedPoint | undefined;
}

export type PredictedStatus = 'ok' | 'oom' | 'fails' | 'skipped';

export interface CandidatePrediction {
  framework: FrameworkKey;
  candidate: string;
  command: string;
  gpus: number;
  status: PredictedStatus;
  /** The startup failure (oom, fails) or the plan's skip reason. */
  reason?: string;
  /** Calibration factors applied (1, 1 without calibration). */
  factors: Factors;
  /** Relative error of this prediction (calibrated sd; the uncalibrated prior without data). */
  relError: number;
  scenarios: ScenarioPrediction[];
  /** How the prediction was made when it is not one server's simulation (a P/D unit's roles composed: unit.ts). */
  basis?: string;
}

/** One operating point on a Pareto front. */
export interface ParetoPoint {
  framework: FrameworkKey;
  candidate: string;
  rate: number;
  /** Output tokens/s per GPU. */
  throughputPerGpu: number;
  /** Output tokens/s one user sees (1000 / p50 TPOT). */
  perUserTps: number;
  p50TtftMs: number;
}

export interface ScenarioFront {
  scenario: string;
  /** Not dominated in (throughput per GPU up, per-user tokens/s up). */
  byUserTps: ParetoPoint[];
  /** Not dominated in (throughput per GPU up, p50 TTFT down). */
  byTtft: ParetoPoint[];
  /** The candidate with the highest predicted capacity. */
  leader: { framework: FrameworkKey; candidate: string; capacity: number } | undefined;
}

/** What every prediction of a plan states first: that it is the model's, of which file, model and GPU, and how good the model is. */
export interface PredictionHead {
  /** Always true: a prediction is the simulated engine's model, never a GPU measurement. */
  simulated: true;
  file: string;
  model: string;
  /** Where the model's shapes came from, in words; `modelEstimated` when they were guessed from the name. */
  modelShapes: string;
  modelEstimated: boolean;
  /** The model's measured error on published GPU data, in words (model-error.ts). */
  modelError: string;
  gpu: string;
  calibrated: boolean;
}

export interface PlanPrediction extends PredictionHead {
  candidates: CandidatePrediction[];
  fronts: ScenarioFront[];
  elapsedMs: number;
}
