// The measured Pareto view: per scenario, every SLA-passing trial as output tokens/s per GPU it held (a P/D unit: all
// its roles' GPUs) against per-user tokens/s (1000 / p50 TPOT), aggregated servers and P/D units together; the points
// no other point beats on both axes are the front. Simulated runs say so in the title.
import type { PyJson } from '../../py/json';
import { pyFloat, pyGet, pyStr } from '../../py/ops';
import type { PredictedFront, PredictedFrontPoint } from '../report-model';
import type { Work } from './work';

function num(v: PyJson | undefined): number | undefined {
  const n = v === undefined || v === null || typeof v === 'boolean' ? undefined : pyFloat(v);
  return n === undefined || !Number.isFinite(n) ? undefined : n;
}

function pointOf(w: Work): PredictedFrontPoint | undefined {
  const row = w.row;
  if (w.smoke || !w.verdict.passed || pyGet(row, 'status') !== 'ok' || pyGet(row, 'trial.superseded') === true) return undefined;
  const gpus = num(pyGet(row, 'hardware.gpu_count'));
  const out = num(pyGet(row, 'metrics.output_token_throughput'));
  const tpot = num(pyGet(row, 'metrics.p50_tpot_ms')) ?? num(pyGet(row, 'metrics.median_tpot_ms'));
  const rate = num(pyGet(row, 'trial.rate')) ?? num(pyGet(row, 'workload.request_rate'));
  if (!gpus || gpus <= 0 || out === undefined || !tpot || tpot <= 0) return undefined;
  const cand = pyGet(row, 'candidate_id');
  const unit = pyGet(row, 'pd_unit') !== undefined && pyGet(row, 'pd_unit') !== null;
  return { framework: w.framework, candidate: cand === undefined || cand === null ? '' : pyStr(cand), rate: rate ?? 0, throughputPerGpu: out / gpus, perUserTps: 1000 / tpot, unit, onFront: false };
}

/** Marks the points no other point beats on both axes (more per GPU and more per user). */
function markFront(points: PredictedFrontPoint[]): void {
  for (const p of points) {
    p.onFront = !points.some((q) => q !== p && q.throughputPerGpu >= p.throughputPerGpu && q.perUserTps >= p.perUserTps && (q.throughputPerGpu > p.throughputPerGpu || q.perUserTps > p.perUserTps));
  }
}

export function measuredFronts(work: readonly Work[], scenarios: readonly string[], simulated: boolean): PredictedFront[] {
  const out: PredictedFront[] = [];
  for (const scenario of scenarios) {
    const points = work.filter((w) => w.scenario === scenario).map(pointOf).filter((p): p is PredictedFrontPoint => p !== undefined);
    if (!points.length) continue;
    markFront(points);
    const units = points.some((p) => p.unit) ? ', P/D units as squares' : '';
    out.push({ scenario, title: `${scenario}: SLA-passing trials, per GPU against per user, measured${simulated ? ' on the SIMULATED engine' : ''}${units}`, leader: '', points });
  }
  return out;
}
