// predict.json in a run directory: what the simulated engine model predicted for each candidate (SLA capacity per
// scenario, uncalibrated and — for adaptive — calibrated) and the predicted Pareto fronts. The runner writes it
// (runner/predictions.ts); the report reads it here, in one place (predictRecordFacts), as it reads manifest.json.
import { isObj, strOrNum } from '../plan/read-json';

export const PREDICT_FILE = 'predict.json';
export const PREDICT_FILE_VERSION = 1;
/** How every prediction is labelled wherever it is shown. */
export const PREDICTED_NOTE = 'predicted by the simulated engine model, not measured';

/** One prediction of a candidate: its relative error and SLA capacity (req/s) per scenario. */
export interface PredictFileCapacity {
  rel_error: number;
  capacity: Record<string, number>;
}

export interface PredictFileCandidate {
  framework: string;
  candidate: string;
  /** ok, oom, fails (predicted startup failure) or skipped (the plan skips it). */
  status: string;
  reason?: string;
  gpus: number;
  /** The uncalibrated prediction (before any measurement). */
  initial: PredictFileCapacity;
  /** adaptive: the last prediction, calibrated on what the run measured. */
  final?: PredictFileCapacity;
}

export interface PredictFilePoint {
  framework: string;
  candidate: string;
  rate: number;
  /** Output tokens/s per GPU. */
  throughput_per_gpu: number;
  /** Output tokens/s one user sees. */
  per_user_tps: number;
  p50_ttft_ms: number;
}

export interface PredictFileFront {
  scenario: string;
  leader: { framework: string; candidate: string; capacity: number } | null;
  by_user_tps: PredictFilePoint[];
  by_ttft: PredictFilePoint[];
}

export interface PredictFile {
  version: typeof PREDICT_FILE_VERSION;
  simulated_model: true;
  note: string;
  strategy: string;
  gpu: string;
  calibrated: boolean;
  scenarios: string[];
  /** Keyed `<framework> <candidateId>`. */
  candidates: Record<string, PredictFileCandidate>;
  fronts: PredictFileFront[];
  /** The model's measured error on published GPU data, in words (absent in files written before it was measured). */
  model_error?: string;
}

/** The report's reading of predict.json (camelCase, checked). */
export interface FactsCapacity {
  relError: number | null;
  capacity: Record<string, number>;
}

export interface FactsPredictedCandidate {
  framework: string;
  candidate: string;
  status: string;
  reason: string;
  gpus: number;
  initial: FactsCapacity;
  final?: FactsCapacity;
}

export interface FactsParetoPoint {
  framework: string;
  candidate: string;
  rate: number;
  throughputPerGpu: number;
  perUserTps: number;
  p50TtftMs: number;
}

export interface FactsFront {
  scenario: string;
  leader: { framework: string; candidate: string; capacity: number } | null;
  byUserTps: FactsParetoPoint[];
}

export interface FactsPredictions {
  strategy: string;
  gpu: string;
  calibrated: boolean;
  candidates: FactsPredictedCandidate[];
  fronts: FactsFront[];
  modelError?: string;
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function capacityOf(v: unknown): FactsCapacity | undefined {
  if (!isObj(v)) return undefined;
  const capacity: Record<string, number> = {};
  if (isObj(v.capacity)) for (const [k, x] of Object.entries(v.capacity)) if (finite(x)) capacity[k] = x;
  return { relError: finite(v.rel_error) ? v.rel_error : null, capacity };
}

function candidateOf(v: unknown): FactsPredictedCandidate | undefined {
  if (!isObj(v)) return undefined;
  const framework = strOrNum(v.framework);
  const candidate = strOrNum(v.candidate);
  const initial = capacityOf(v.initial);
  if (framework === undefined || candidate === undefined || !initial) return undefined;
  const final = capacityOf(v.final);
  return { framework, candidate, status: strOrNum(v.status) ?? 'ok', reason: strOrNum(v.reason) ?? '', gpus: finite(v.gpus) ? v.gpus : 0, initial, ...(final ? { final } : {}) };
}

function pointOf(v: unknown): FactsParetoPoint | undefined {
  if (!isObj(v)) return undefined;
  const framework = strOrNum(v.framework);
  const candidate = strOrNum(v.candidate);
  if (framework === undefined || candidate === undefined || !finite(v.throughput_per_gpu) || !finite(v.per_user_tps)) return undefined;
  return { framework, candidate, rate: finite(v.rate) ? v.rate : 0, throughputPerGpu: v.throughput_per_gpu, perUserTps: v.per_user_tps, p50TtftMs: finite(v.p50_ttft_ms) ? v.p50_ttft_ms : 0 };
}

function frontOf(v: unknown): FactsFront | undefined {
  const scenario = isObj(v) ? strOrNum(v.scenario) : undefined;
  if (!isObj(v) || scenario === undefined) return undefined;
  const l = v.leader;
  const lf = isObj(l) ? strOrNum(l.framework) : undefined;
  const lc = isObj(l) ? strOrNum(l.candidate) : undefined;
  const leader = isObj(l) && lf !== undefined && lc !== undefined && finite(l.capacity) ? { framework: lf, candidate: lc, capacity: l.capacity } : null;
  const points = Array.isArray(v.by_user_tps) ? v.by_user_tps.map(pointOf).filter((p): p is FactsParetoPoint => p !== undefined) : [];
  return { scenario, leader, byUserTps: points };
}

/**
 * What a run's predict.json (parsed JSON) holds, for the report: undefined for a run without one (an older run);
 * a file that is not a simulated-model prediction, or is malformed, gives a problem instead.
 */
export function predictRecordFacts(json: unknown): { predictions?: FactsPredictions; problems: string[] } {
  if (json === undefined || json === null) return { problems: [] };
  if (!isObj(json) || json.simulated_model !== true || !isObj(json.candidates)) return { problems: [`${PREDICT_FILE}: expected {simulated_model: true, candidates, fronts}; predictions left out`] };
  const candidates = Object.values(json.candidates).map(candidateOf).filter((c): c is FactsPredictedCandidate => c !== undefined);
  const fronts = Array.isArray(json.fronts) ? json.fronts.map(frontOf).filter((f): f is FactsFront => f !== undefined) : [];
  const modelError = typeof json.model_error === 'string' ? { modelError: json.model_error } : {};
  return { predictions: { strategy: strOrNum(json.strategy) ?? '', gpu: strOrNum(json.gpu) ?? '', calibrated: json.calibrated === true, candidates, fronts, ...modelError }, problems: [] };
}
