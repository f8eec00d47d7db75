// What measured rows say to the predictor, read one way for the runner's adaptive stage, `autobench calibrate` and the search benchmark: the trials' latencies (observations), each scenario's SLA capacity as the verdict reads it, which scenarios the verdict decides, and the model's capacity with given factors to compare it with.
import type { RunPlan } from '../core/plan/types';
import { fromPlainJson, type PyObject } from '../core/py/json';
import { pyFloat, pyGet, pyStr } from '../core/py/ops';
import type { ResultRow } from '../core/results/rows';
import type { RunFacts } from '../core/results/run-facts';
import { prepareWork } from '../core/results/report/work';
import { scenarioVerdict } from '../core/results/verdict';
import type { Candidate } from '../core/candidates/candidate';
import type { FrameworkKey } from '../core/frameworks/types';
import { predictCapacity } from './capacity';
import { engineFor, predictOptions } from './engine';
import type { Observation } from './fit';
export { median } from './stats';
import { concurrencyOf } from './plan';
import type { Factors } from './types';
import type { SimOptions } from '../sim/options';
import type { Standing } from './race';

/** The valid trials' latencies (modelled time on the simulator) and whether they met the SLA, for calibration. */
export function observationsOf(plan: Pick<RunPlan, 'scenarios'>, rows: readonly ResultRow[]): Observation[] {
  const out: Observation[] = [];
  for (const r of rows) {
    const t = r.trial as { mode?: string; rate?: unknown; concurrency?: unknown } | undefined;
    const sc = plan.scenarios.find((s) => s.name === (r.scenario ?? r.workload?.scenario));
    const m = (r.metrics ?? {}) as Record<string, unknown>;
    if (!sc || r.status !== 'ok' || typeof t?.rate !== 'number' || t.mode === 'repeat') continue;
    if (typeof m.p50_ttft_ms !== 'number' || typeof m.p50_tpot_ms !== 'number') continue;
    const sent = r.workload?.num_prompts;
    out.push({ scenario: sc, rate: t.rate, concurrency: typeof t.concurrency === 'number' ? t.concurrency : null, p50TtftMs: m.p50_ttft_ms, p50TpotMs: m.p50_tpot_ms, passed: r.sla?.passed === true, ...(typeof sent === 'number' && sent > 0 ? { requests: sent } : {}) });
  }
  return out;
}

/** Rows (plain JSON) as the verdict reads them. */
function workOf(plan: Pick<RunPlan, 'sla'>, rows: readonly object[]): ReturnType<typeof prepareWork> {
  return prepareWork(rows.map((r, i) => ({ line: i + 1, data: fromPlainJson(r) as PyObject })), { sla: plan.sla } as unknown as RunFacts);
}

/**
 * One candidate's SLA capacity interval per scenario from its rows, as the verdict reads a search (absent: it met the
 * SLA nowhere there), with the rate its verdict falls back to should a repeat on a fresh server miss `lo`: its next
 * passing search rate below (`lo` itself when there is none).
 */
export function standingsOf(plan: Pick<RunPlan, 'scenarios' | 'sla'>, rows: readonly object[]): Map<string, Standing> {
  const work = workOf(plan, rows);
  const out = new Map<string, Standing>();
  for (const sc of plan.scenarios) {
    const top = scenarioVerdict(work, sc.name).ranked[0];
    // The search's own confirmed rate (not the mean over launches): the race reasons in offered rates.
    if (!top) continue;
    const lo = top.confirmed ?? top.score;
    if (!(lo > 0)) continue;
    const below = work.filter((w) => w.scenario === sc.name && w.framework === top.framework && pyStr(pyGet(w.row, 'candidate_id') ?? '') === top.candidate && pyGet(w.row, 'trial.mode') === 'search' && w.verdict.passed).map((w) => pyFloat(pyGet(w.row, 'trial.rate')) ?? 0).filter((r) => r < lo);
    out.set(sc.name, { lo, hi: top.lowestFail ?? top.interval[1], fallback: below.length ? Math.max(...below) : lo });
  }
  return out;
}

/**
 * The scenarios whose verdict over these rows (every candidate's, under the plan's objective) names a winner, with its
 * confirmed rate: per GPU it holds when the objective is not throughput (as the adaptive race compares: race.ts).
 */
export function decidedScenarios(plan: Pick<RunPlan, 'scenarios' | 'sla'> & { bench?: Pick<RunPlan['bench'], 'verdict'> }, rows: readonly object[]): Map<string, number> {
  const work = workOf(plan, rows);
  const out = new Map<string, number>();
  const v0 = plan.bench?.verdict;
  const settings = v0 ? { objective: v0.objective, ...(v0.cost ? { cost: v0.cost } : {}) } : {};
  const perGpu = (v0?.objective ?? 'throughput') !== 'throughput';
  for (const sc of plan.scenarios) {
    const v = scenarioVerdict(work, sc.name, settings);
    if (v.decided && v.winner) out.set(sc.name, (v.winner.confirmed ?? v.winner.interval[0]) / (perGpu ? Math.max(1, v.winner.columns.gpus ?? 1) : 1));
  }
  return out;
}

/** How far a predicted capacity lies outside a measured standing [lo, hi), as a log ratio (0 inside). */
export function capacityMiss(predicted: number, s: Standing): number {
  if (!(predicted > 0) || !(s.lo > 0)) return 0;
  return Math.max(0, Math.log(s.lo / predicted), Number.isFinite(s.hi) ? Math.log(predicted / s.hi) : 0);
}

/** The model's predicted SLA capacity of a candidate in one scenario with the given speed factors (null: no such scenario, or it would not start). */
export function capacityWith(plan: RunPlan, gpu: string | undefined, fw: FrameworkKey, cand: Candidate, scenario: string, factors: Factors, hint?: number, sim?: Partial<SimOptions>): number | null {
  const sc = plan.scenarios.find((s) => s.name === scenario);
  const e = engineFor(fw, cand, predictOptions(gpu, sim), factors);
  if (!sc || !e.ok) return null;
  return predictCapacity(e.config, { scenario: sc, concurrency: concurrencyOf(plan), sla: plan.sla, ...(hint ? { hint } : {}) }).capacity;
}
