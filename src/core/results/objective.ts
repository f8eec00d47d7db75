// What a candidate's SLA capacity is worth under the plan's `verdict.objective`: per GPU it holds (every role of a P/D
// unit), per dollar at `cost.gpu_hour_usd`, per joule of the energy its trials measured. One divisor per candidate
// (`per`): the verdict compares each launch's capacity / per, and the report shows all four figures side by side.
import type { PyJson, PyObject } from '../py/json';
import { pyFloat, pyGet, pyStr } from '../py/ops';
import type { CostSettings, Objective } from '../plan/types';

export interface ObjectiveSpec {
  objective?: Objective;
  cost?: CostSettings;
}

/** The objective's unit, for sentences and column heads. */
export const OBJECTIVE_UNIT: Record<Objective, string> = { throughput: 'req/s', per_gpu: 'req/s per GPU', per_dollar: 'requests per $', per_joule: 'requests per J' };
/** How a verdict sentence names the objective ("… beats … by 6% per GPU"). */
export const OBJECTIVE_WORDS: Record<Objective, string> = { throughput: '', per_gpu: ' per GPU', per_dollar: ' per dollar', per_joule: ' per joule' };

function num(v: PyJson | undefined): number | undefined {
  const n = v === undefined || v === null || typeof v === 'boolean' ? undefined : pyFloat(v);
  return n === undefined || !Number.isFinite(n) ? undefined : n;
}

/** The price of one GPU-hour of the row's GPU model: the one price, or the entry whose name the model contains (longest first). */
export function gpuHourPrice(cost: CostSettings | undefined, gpuModel: string | undefined): number | undefined {
  if (!cost) return undefined;
  if (typeof cost.gpuHourUsd === 'number') return cost.gpuHourUsd;
  const model = (gpuModel ?? '').toLowerCase();
  const names = Object.keys(cost.gpuHourUsd).sort((a, b) => b.length - a.length);
  const hit = names.find((n) => model.includes(n.toLowerCase()));
  return hit === undefined ? undefined : cost.gpuHourUsd[hit];
}

/** A row's figures the objective reads: the GPUs it held, their model, its energy and output tokens per request. */
export interface RowCosts {
  gpus: number | undefined;
  gpuModel: string | undefined;
  meanPowerW: number | undefined;
  jPerOutputToken: number | undefined;
  outputTokensPerRequest: number | undefined;
}

export function rowCosts(row: PyObject): RowCosts {
  const model = pyGet(row, 'hardware.gpu_model');
  const req = num(pyGet(row, 'metrics.request_throughput'));
  const out = num(pyGet(row, 'metrics.output_token_throughput'));
  return {
    gpus: num(pyGet(row, 'hardware.gpu_count')),
    gpuModel: model === undefined || model === null ? undefined : pyStr(model),
    meanPowerW: num(pyGet(row, 'energy.mean_power_w')),
    jPerOutputToken: num(pyGet(row, 'energy.j_per_output_token')),
    outputTokensPerRequest: req && out !== undefined && req > 0 ? out / req : undefined,
  };
}

/** What one req/s of this candidate is divided by under the objective; a string says why it cannot be priced. */
export function perOf(c: RowCosts, spec: ObjectiveSpec): number | string {
  const objective = spec.objective ?? 'throughput';
  if (objective === 'throughput') return 1;
  if (!c.gpus || c.gpus <= 0) return 'its rows do not say how many GPUs it held';
  if (objective === 'per_gpu') return c.gpus;
  if (objective === 'per_dollar') {
    const price = gpuHourPrice(spec.cost, c.gpuModel);
    return price === undefined ? `cost.gpu_hour_usd has no price for ${c.gpuModel ?? 'its GPU model'}` : (c.gpus * price) / 3600;
  }
  return c.meanPowerW && c.meanPowerW > 0 ? c.meanPowerW : 'its trials have no energy reading';
}

/** The report's four columns for a candidate at SLA capacity `score` (req/s): nulls where a figure is unknown. */
export interface ObjectiveColumns {
  gpus: number | null;
  req_per_s: number;
  req_per_s_per_gpu: number | null;
  usd_per_m_output_tokens: number | null;
  j_per_output_token: number | null;
}

export function objectiveColumns(c: RowCosts, score: number, cost: CostSettings | undefined): ObjectiveColumns {
  const price = gpuHourPrice(cost, c.gpuModel);
  const tokensPerS = c.outputTokensPerRequest !== undefined ? score * c.outputTokensPerRequest : undefined;
  const usd = price !== undefined && c.gpus && tokensPerS && tokensPerS > 0 ? ((c.gpus * price) / 3600 / tokensPerS) * 1e6 : undefined;
  return {
    gpus: c.gpus ?? null,
    req_per_s: score,
    req_per_s_per_gpu: c.gpus ? score / c.gpus : null,
    usd_per_m_output_tokens: usd ?? null,
    j_per_output_token: c.jPerOutputToken ?? null,
  };
}
