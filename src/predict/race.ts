// The adaptive strategy's decisions: which candidate to measure next, and which can no longer win — a candidate is dropped
// when even its optimistic prediction (the capacity of an engine faster by Z calibrated errors) stays below the measured leader's confirmed rate in every scenario
// (and, where the verdict names a winner, could not even tie with it); and the floor under which a measured candidate's
// search stops (successive halving).
import { DECISION_MARGIN } from '../core/results/verdict';
import type { CandidatePrediction } from './types';

/**
 * How many calibrated errors above its prediction a candidate may still land (about 99.4% one-sided). 2.5 rather
 * than 2 since the floors made a measurement cheap: bench:search 98.0% right at 17.2% of the grid's GPU-seconds,
 * against 96.5% at 15.6% (session 7).
 */
export const RACE_Z = 2.5;

/**
 * While the race runs, a candidate is measured when it could come out on top: its optimistic capacity reaches the
 * leader's confirmed rate × (1 + RACE_MARGIN). Not more: a candidate that could land first, even inside the tie
 * margin, is the winner of some other run's tie, and a run that skipped it would not name it among its ties
 * (test:agreement failed so at 10%, session 6). Where the verdict names a winner, settle widens this to a tie.
 */
export const RACE_MARGIN = 0;

/** A floor sits this much under the tie bound, so that failing there (rates are rounded, intervals compared strictly) rules a tie out. */
const FLOOR_SLACK = 0.98;

/** A measured candidate's SLA capacity interval in one scenario (req/s): confirmed passing rate .. lowest failing rate. */
export interface Standing {
  lo: number;
  hi: number;
  /** What the verdict confirms should a repeat miss `lo`: the next passing rate below (absent: `lo`). */
  fallback?: number;
}

export type Outcome = Map<string, Standing> | 'failed';

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const rate = (x: number): string => String(Number(x.toPrecision(3)));

export class Race {
  private readonly predictions = new Map<string, CandidatePrediction>();
  private readonly outcomes = new Map<string, Outcome>();
  /** Scenarios whose verdict over what was measured names a winner: there a candidate that could tie is measured too. */
  private decided: ReadonlyMap<string, number> = new Map();
  private readonly forced: ReadonlySet<string>;

  constructor(
    readonly keys: readonly string[],
    readonly scenarios: readonly string[],
    forced: Iterable<string> = [],
    /** The lowest rate the plan's search measures (qps.lower): below it a candidate meets the SLA at no rate that counts. */
    readonly floor = 0,
    /**
     * verdict.objective is not throughput: candidates are compared per GPU they hold (per dollar at one GPU price is the
     * same order; per joule is taken as per GPU before any energy is measured), so a 1-GPU server is never skipped
     * behind a 3-GPU unit's raw req/s. Rates stay each candidate's own; `decided` is then per GPU.
     */
    readonly perGpu = false,
  ) {
    this.forced = new Set(forced);
  }

  predict(key: string, p: CandidatePrediction): void {
    this.predictions.set(key, p);
  }

  prediction(key: string): CandidatePrediction | undefined {
    return this.predictions.get(key);
  }

  /** A measured candidate's standing, as its own search left it. */
  record(key: string, o: Outcome): void {
    this.outcomes.set(key, o);
  }

  /**
   * The scenarios whose verdict names a winner once nothing more can win (after repeats), with the winner's
   * confirmed rate. A skipped candidate that could land within DECISION_MARGIN of it would turn the verdict into a
   * tie, and another run that measured it would say tie: in those scenarios it is measured as well. (The leaders'
   * standings otherwise stay as the race saw them: racing again wherever repeats lowered a leader cost +5 points of
   * the grid's GPU-seconds on bench:search's first seed, and test:agreement held without it.)
   */
  settle(decided: ReadonlyMap<string, number>): void {
    this.decided = new Map(decided);
  }

  /** What one req/s of this candidate counts for in comparisons: 1, or its GPUs under a per-GPU objective. */
  private per(key: string): number {
    return this.perGpu ? Math.max(1, this.predictions.get(key)?.gpus ?? 1) : 1;
  }

  /** Whether a candidate with this optimistic value (req/s, or per GPU) could still matter in a scenario with this leader's. */
  private inReach(optimistic: number, scenario: string, lead: number): boolean {
    const winner = this.decided.get(scenario);
    return winner !== undefined ? optimistic * (1 + DECISION_MARGIN) >= winner : optimistic >= lead * (1 + RACE_MARGIN);
  }

  isMeasured(key: string): boolean {
    return this.outcomes.has(key);
  }

  /** The measured candidate with the highest confirmed rate in a scenario (per GPU under a per-GPU objective: `value`). */
  leader(scenario: string): { key: string; lo: number; hi: number; value: number } | undefined {
    let best: { key: string; lo: number; hi: number; value: number } | undefined;
    for (const [key, o] of this.outcomes) {
      if (o === 'failed') continue;
      const s = o.get(scenario);
      const value = s ? s.lo / this.per(key) : 0;
      if (s && s.lo > 0 && (!best || value > best.value)) best = { key, ...s, value };
    }
    return best;
  }

  /** The highest rate some measured candidate keeps in a scenario even if its repeats miss its best rate. */
  private sureLead(scenario: string): number | undefined {
    let best: number | undefined;
    for (const [key, o] of this.outcomes) {
      const s = o === 'failed' ? undefined : o.get(scenario);
      const keep = s ? (s.fallback ?? s.lo) / this.per(key) : 0;
      if (keep > 0 && (best === undefined || keep > best)) best = keep;
    }
    return best;
  }

  private capacity(p: CandidatePrediction, scenario: string): number {
    return p.scenarios.find((s) => s.scenario === scenario)?.capacity ?? 0;
  }

  /** How high the candidate could still land: its predicted capacity on an engine faster by RACE_Z calibrated errors. */
  optimistic(p: CandidatePrediction, scenario: string): number {
    const s = p.scenarios.find((x) => x.scenario === scenario);
    if (!s) return 0;
    return s.upper ?? s.capacity * Math.exp(RACE_Z * p.relError);
  }

  /** Why an unmeasured candidate cannot win any scenario (the row's reason), or undefined while it still can. */
  hopeless(key: string): string | undefined {
    if (this.forced.has(key)) return undefined;
    const p = this.predictions.get(key);
    if (!p) return undefined;
    if (p.status === 'oom') return `not measured: predicted out of memory at startup (${p.reason ?? 'no room'})`;
    if (p.status === 'fails') return `not measured: predicted not to start (${p.reason ?? 'startup error'})`;
    if (p.status !== 'ok') return undefined;
    if (this.scenarios.every((sc) => this.optimistic(p, sc) < Math.max(this.floor, 1e-9))) {
      return `not measured: predicted to meet the SLA at no rate the plan searches${this.floor > 0 ? ` (from ${rate(this.floor)} req/s)` : ''}, even ${pct(Math.exp(RACE_Z * p.relError) - 1)} faster than modelled (calibrated error ±${pct(p.relError)}); --force ${p.framework}:${p.candidate} measures it`;
    }
    let closest: { gap: number; text: string } | undefined;
    const per = this.per(key);
    const unit = this.perGpu ? ' req/s per GPU' : ' req/s';
    for (const sc of this.scenarios) {
      const lead = this.leader(sc);
      if (!lead) return undefined;
      const cap = this.capacity(p, sc) / per;
      if (this.inReach(this.optimistic(p, sc) / per, sc, lead.value)) return undefined;
      const gap = 1 - cap / lead.value;
      const text = `not measured: predicted ${pct(gap)} behind the leader in ${sc} (${rate(cap)}${unit} predicted, at most ${rate(this.optimistic(p, sc) / per)} within the calibrated error ±${pct(p.relError)}, vs ${lead.key} measured at ${rate(lead.value)}${unit})`;
      if (!closest || gap < closest.gap) closest = { gap, text };
    }
    return closest ? `${closest.text}; --force ${p.framework}:${p.candidate} measures it` : undefined;
  }

  /**
   * Per scenario, the rate an unmeasured candidate must meet the SLA at to matter there: just under the decided
   * winner's confirmed rate, or else the rate the leaders are sure to keep after repeats (the best fallback: a repeat
   * that misses a leader's best rate drops its verdict to its next passing rate), divided by 1 + DECISION_MARGIN.
   * Failing there, it can neither win nor tie with the run's top candidate, and its search there stops (successive
   * halving). None for a forced candidate: the user asked for its whole search.
   */
  floors(key: string): Map<string, number> {
    const out = new Map<string, number>();
    if (this.forced.has(key)) return out;
    for (const sc of this.scenarios) {
      const lead = this.decided.get(sc) ?? this.sureLead(sc);
      // The leader's value back in this candidate's own req/s.
      if (lead !== undefined && lead > 0) out.set(sc, (FLOOR_SLACK * lead * this.per(key)) / (1 + DECISION_MARGIN));
    }
    return out;
  }

  /** How promising an unmeasured candidate is: its best optimistic capacity relative to each scenario's reference. */
  private promise(key: string): number {
    const p = this.predictions.get(key);
    if (!p || p.status !== 'ok') return -Infinity;
    let best = -Infinity;
    for (const sc of this.scenarios) {
      const ref = this.leader(sc)?.value ?? Math.max(1e-9, ...[...this.predictions.entries()].map(([k, q]) => this.capacity(q, sc) / this.per(k)));
      best = Math.max(best, this.optimistic(p, sc) / this.per(key) / ref);
    }
    return best + (this.forced.has(key) ? 1e6 : 0);
  }

  /** The next candidate to measure (forced ones first, then the most promising), or undefined when none can still win. */
  next(busy?: ReadonlySet<string>): string | undefined {
    let best: string | undefined;
    let score = -Infinity;
    for (const key of this.keys) {
      if (this.outcomes.has(key) || busy?.has(key) || this.hopeless(key) !== undefined) continue;
      const s = this.promise(key);
      if (best === undefined || s > score) {
        best = key;
        score = s;
      }
    }
    return best;
  }
}

/**
 * The rate-search bounds around a predicted knee `h`: 0.6h..1.25h, closed as the plan's search closes (qps.tolerance, or
 * qps.rel_tolerance of the best passing rate: 2% by default, so that verdicts can separate differences of a few percent).
 */
export function searchAround<T extends { lower: number; upper: number; tolerance: number; maxRounds: number }>(plan: T, h: number): T {
  // Never below the plan's own lower bound: a rate the plan does not search is not an answer to it.
  const lower = Math.max(plan.lower, Number((0.6 * h).toPrecision(4)));
  const upper = Number((1.25 * h).toPrecision(4));
  if (upper <= lower) return plan;
  return { ...plan, lower, upper };
}

/**
 * Where a search around a predicted knee goes on when it did not bracket the limit: below its lower bound (down to the
 * plan's) when that failed, above the highest rate it reached when everything passed.
 */
export function searchBeyond<T extends { lower: number; upper: number; tolerance: number; maxRounds: number }>(plan: T, first: T, end: 'lower-fails' | 'upper-passes', reached: number): T {
  if (end === 'lower-fails') return first.lower > plan.lower ? { ...plan, upper: first.lower } : plan;
  return { ...plan, lower: reached, upper: Math.max(plan.upper, 2 * reached) };
}

/**
 * A search that need not go below `floor` (Race.floors): its lower bound raised to the floor, so that the first
 * probe there says whether the candidate can still matter. Unchanged without a floor or with one under its lower bound.
 */
export function searchAbove<T extends { lower: number; upper: number; tolerance: number; maxRounds: number }>(first: T, floor: number | undefined): T {
  if (floor === undefined || !(floor > first.lower)) return first;
  const lower = Number(floor.toPrecision(4));
  const upper = first.upper > lower * 1.1 ? first.upper : Number((1.25 * lower).toPrecision(4));
  return { ...first, lower, upper };
}

/** Whether a search that ended so is over for good: its lower bound, at or above the floor, failed (the candidate cannot tie). */
export function belowFloor(first: { lower: number }, end: string | undefined, floor: number | undefined): boolean {
  return end === 'lower-fails' && floor !== undefined && first.lower >= floor * 0.999;
}
