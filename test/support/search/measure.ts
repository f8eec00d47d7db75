// The search benchmark's measurements: a candidate launched on the perturbed, noisy simulated engine (the hidden ground
// truth) and searched the way the runner searches (src/runner/rate-search.ts), every trial on the virtual clock.
import type { Candidate } from '../../../src/core/candidates/candidate';
import type { Scenario } from '../../../src/core/config/model';
import type { FrameworkKey } from '../../../src/core/frameworks/types';
import type { RunPlan } from '../../../src/core/plan/types';
import { engineFor, predictOptions } from '../../../src/predict/engine';
import type { Observation } from '../../../src/predict/fit';
import { planGpu, concurrencyOf } from '../../../src/predict/plan';
import { judgePoint, metricsOf, requestsFor } from '../../../src/predict/point';
import { nextLocalRate, walkStart } from '../../../src/runner/local-search';
import { newSearch, nextRate, recordRound, type RateSearchConfig } from '../../../src/runner/rate-search';
import { belowFloor, searchBeyond } from '../../../src/predict/race';
import type { EfficiencyTerm } from '../../../src/sim/efficiency';

/** GPU-seconds a server start costs before its first request (weights, CUDA graphs): modelled, the same for both strategies. */
export const LAUNCH_S = 120;
/** Launch-to-launch noise of the ground truth (sd of the step-cost factor), as bench:verdicts uses. */
export const NOISE = 0.03;

export interface Truth {
  plan: RunPlan;
  /** The --sim-perturb seed: hidden from every prediction (and the seed of the launch noise). */
  seed: number;
  /** false: no hidden perturbation (the truth is the plain model, times `efficiency`); default true. */
  perturb?: boolean;
  /** --sim-efficiency terms: known speed factors (bench:resolution's true differences). */
  efficiency?: EfficiencyTerm[];
  /** Launch-to-launch noise (default NOISE). */
  noise?: number;
}

/** A synthetic result row: what the runner would have written for the trial (enough for the product's verdict). */
export type Row = Record<string, unknown>;

export interface Launch {
  rows: Row[];
  gpuSeconds: number;
  observations: Observation[];
  started: boolean;
}

let salts = 0;

/**
 * Starts the launches' salts again (the next launch draws salt 1): a bench run calls it first, so that a (config, seed)
 * run draws the same launch noise whichever runs its worker did before (bench:search gave ernie-4.5 seed 3 a miss
 * after deepseek-v3.1 in the same worker and none alone, 2026-12-07).
 */
export function resetLaunchSalts(): void {
  salts = 0;
}

function trial(t: Truth, engine: Parameters<typeof judgePoint>[0], sc: Scenario, rate: number, seed: number, length = 1): { row: Row; passed: boolean; obs?: Observation; seconds: number } {
  const c = concurrencyOf(t.plan);
  // A repeat's trials are `length` times as long as the search's (the plan's verdict.repeat_length, as the runner's).
  const spec = { scenario: sc, rate, concurrency: c, requests: Math.max(t.plan.bench.numPrompts, requestsFor(rate)) * length, seed };
  const { point: p, v, n, tooShort } = judgePoint(engine, spec, t.plan.sla);
  // As the runner's row: the prompts sent (workload.num_prompts: the fit simulates a trial that long), and a trial
  // still too short for a steady state after lengthening is invalid, so failed (runner/trial.ts), whatever its latencies.
  const invalid = tooShort ? { status: 'failed', validity: { valid: false, reasons: p.reasons.filter((r) => r.startsWith('too short')) } } : { status: 'ok' };
  const row = { ...invalid, metrics: metricsOf(v, v.completed + v.failed), scenario: sc.name, workload: { num_prompts: n } };
  const obs = { scenario: sc, rate, concurrency: c, p50TtftMs: v.ttftMs.p50, p50TpotMs: v.tpotMs.p50, passed: p.passed, requests: n };
  return { row, passed: p.passed, obs, seconds: v.durationS };
}

export interface LaunchSpec {
  fw: FrameworkKey;
  cand: Candidate;
  /** Per scenario: a rate search (the bounds to use) or repeats at fixed rates. */
  /** The launch's draws (workload seeds, noise): a fixed salt replays them (common random numbers); default a fresh one. */
  salt?: number;
  work: Array<{ scenario: Scenario; search?: RateSearchConfig; fallback?: RateSearchConfig; floor?: number; repeatAt?: number; localAt?: number; round?: number }>;
}

/** One server launch of the ground truth: its searches or repeats, rows and GPU-seconds. */
export function launch(t: Truth, spec: LaunchSpec): Launch {
  const salt = spec.salt ?? ++salts;
  const truth = { ...(t.perturb === false ? {} : { perturb: t.seed }), ...(t.efficiency ? { efficiency: t.efficiency } : {}) };
  const engine = engineFor(spec.fw, spec.cand, predictOptions(planGpu(t.plan), { ...truth, noise: t.noise ?? NOISE, seed: t.seed, launchSalt: salt }));
  if (!engine.ok) return { rows: [], gpuSeconds: 0, observations: [], started: false };
  const gpus = engine.config.gpus;
  const base = { framework: spec.fw, candidate_id: spec.cand.id };
  const out: Launch = { rows: [], gpuSeconds: LAUNCH_S * gpus, observations: [], started: true };
  for (const w of spec.work) {
    const measure = (rate: number, mode: string, round: number): boolean => {
      // Every trial sends the plan's workload (its seed: the same prompts and arrival draws), as the runner's do
      // (runner/trial.ts); a fresh draw per trial added some 3.7% of workload noise to each launch's capacity that
      // no run of the product has, and that the verdict then had to beat.
      const r = trial(t, engine.config, w.scenario, rate, t.plan.bench.seed, mode === 'repeat' ? t.plan.bench.verdict.repeatLength : 1);
      out.rows.push({ ...base, ...r.row, trial: { mode, rate, concurrency: null, round } });
      out.gpuSeconds += r.seconds * gpus;
      if (r.obs) out.observations.push(r.obs);
      return r.passed;
    };
    if (w.repeatAt !== undefined) {
      measure(w.repeatAt, 'repeat', w.round ?? 1);
      continue;
    }
    if (w.localAt !== undefined) {
      // The runner's repeat: a short search around the knee (src/runner/local-search.ts).
      const rounds: Array<{ rate: number; passed: boolean }> = [];
      for (let start = walkStart(w.localAt, w.round ?? 1), rate = nextLocalRate(start, rounds); rate !== undefined; rate = nextLocalRate(start, rounds)) rounds.push({ rate, passed: measure(rate, 'repeat', w.round ?? 1) });
      continue;
    }
    const search = (cfg: RateSearchConfig): { end: string | undefined; best: number | undefined } => {
      const st = newSearch();
      for (let rate = nextRate(cfg, st); rate !== undefined; rate = nextRate(cfg, st)) recordRound(st, rate, measure(rate, 'search', st.rounds.length + 1));
      return { end: st.done, best: st.best };
    };
    // A search that started from a prediction and did not bracket the limit goes on beyond it, as the runner's does.
    const r = w.search ? search(w.search) : undefined;
    if (w.search && belowFloor(w.search, r?.end, w.floor)) continue;
    if (w.search && w.fallback && w.search !== w.fallback && (r?.end === 'lower-fails' || r?.end === 'upper-passes')) search(searchBeyond(w.fallback, w.search, r.end, r.best ?? w.search.upper));
  }
  return out;
}
