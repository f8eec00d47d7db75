// Finds the highest request rate that meets the SLA: probe the bounds, extend a passing upper bound by doubling, then bisect the bracket until it is within the absolute or the relative tolerance; a verdict that contradicts an earlier one is measured again before it counts; report the bracket and whether it closed.
import { DEFAULT_MAX_ROUNDS, DEFAULT_REL_TOLERANCE, DEFAULT_SEARCH_ROUNDS, DEFAULT_TOLERANCE } from '../core/plan/bench';

export { DEFAULT_MAX_ROUNDS, DEFAULT_REL_TOLERANCE, DEFAULT_SEARCH_ROUNDS, DEFAULT_TOLERANCE };

export interface RateSearchConfig {
  /** Lowest rate considered (req/s); 0 means "no floor": the search starts at the upper bound. */
  lower: number;
  upper: number;
  /** The bracket is closed once (lowest failing rate - highest passing rate) is at most this many req/s... */
  tolerance: number;
  /** ...or at most this fraction of the highest passing rate, whichever is wider (qps.rel_tolerance; default 0.02). */
  relTolerance: number;
  /** Bisection rounds after the bound probes (qps.max_rounds; DEFAULT_SEARCH_ROUNDS when the plan sets none). */
  maxRounds: number;
}

/** A passing upper bound is doubled at most this many times before the search gives up on finding the limit. */
export const MAX_EXTENSIONS = 3;

export interface RateRound {
  round: number;
  rate: number;
  passed: boolean;
  kind: 'bound' | 'extend' | 'bisect';
  /** This round measured its rate again because the round before it contradicted an earlier verdict. */
  recheck?: true;
  /** A recheck replaced this round's verdict: it no longer counts (its row stays, marked trial.superseded). */
  superseded?: true;
}

/** A verdict measured before the search on the same launch, scenario and concurrency (a fixed point, an earlier search). */
export interface PriorVerdict {
  rate: number;
  passed: boolean;
}

export type RateSearchEnd = 'converged' | 'max-rounds' | 'lower-fails' | 'upper-passes';

export interface RateSearchState {
  rounds: RateRound[];
  /** Highest rate that passed in a round that counts, if any. */
  best: number | undefined;
  /** Verdicts from before the search that a round must agree with (they do not move the bracket). */
  prior: readonly PriorVerdict[];
  /** Why the search ended, once it has. */
  done?: RateSearchEnd;
  /** The rate nextRate asked for and what kind of round it is (recordRound files it). */
  asked?: { rate: number; kind: RateRound['kind']; recheck?: true };
}

/** What a search found: the best passing rate, the lowest failing one, and whether they are within the tolerance. */
export interface Bracket {
  best: number | null;
  lowestFail: number | null;
  closed: boolean;
  /** Why the bracket did not close (or how it closed), in words. */
  note: string;
}

export function newSearch(prior: readonly PriorVerdict[] = []): RateSearchState {
  return { rounds: [], best: undefined, prior };
}

/** Rates are printed and keyed; three decimals keep bisection keys stable across a resume. */
function tidy(rate: number): number {
  return Math.round(rate * 1000) / 1000;
}

/** The rounds whose verdicts count: a superseded one was measured again. */
const counted = (r: readonly RateRound[]): RateRound[] => r.filter((x) => !x.superseded);

function bracketEnds(r: readonly RateRound[], floor: number): { lo: number; hi: number | undefined } {
  const live = counted(r);
  const passes = live.filter((x) => x.passed).map((x) => x.rate);
  const fails = live.filter((x) => !x.passed).map((x) => x.rate);
  return { lo: passes.length ? Math.max(...passes) : floor, hi: fails.length ? Math.min(...fails) : undefined };
}

/** The bracket's closing width at a best passing rate `lo`: the absolute tolerance or the relative one, the wider. */
export function closingWidth(cfg: RateSearchConfig, lo: number): number {
  return Math.max(cfg.tolerance, cfg.relTolerance * lo);
}

/** Whether verdict `v` at `rate` and verdict `x` cannot both be right: a pass at or over a fail. */
const against = (rate: number, passed: boolean, x: PriorVerdict): boolean => (passed ? !x.passed && x.rate <= rate : x.passed && x.rate >= rate);

/**
 * Whether a verdict at `rate` breaks the curve's monotonicity against the verdicts before it (prior ones and counted
 * rounds, `round` itself left out): it passes although a rate at or under it failed, or fails although one at or over it
 * passed. Capacity falls as the rate rises, so one of the two measurements misread the server (a cold start, a hiccup).
 * A verdict that a recheck contradicted twice (the round and its recheck agreed) is discredited: it no longer calls for
 * rechecks, so one bad early verdict does not double every later round.
 */
export function contradicts(state: RateSearchState, rate: number, passed: boolean, round?: RateRound): boolean {
  const confirmed = state.rounds.filter((x, i) => x.recheck && state.rounds[i - 1]?.superseded && state.rounds[i - 1]?.passed === x.passed);
  const credible = (x: PriorVerdict) => !confirmed.some((c) => c !== x && against(c.rate, c.passed, x));
  const earlier = [...state.prior, ...counted(state.rounds).filter((x) => x !== round)].filter(credible);
  return earlier.some((x) => against(rate, passed, x));
}

/** The last round, when it contradicts what came before and has not been measured again yet. */
function toRecheck(state: RateSearchState): RateRound | undefined {
  const last = state.rounds[state.rounds.length - 1];
  return last && !last.recheck && !last.superseded && contradicts(state, last.rate, last.passed, last) ? last : undefined;
}

/** The bound probes: lower (when set), upper, then doublings of a passing upper bound. A rate, 'bisect', or an end. */
function boundStep(cfg: RateSearchConfig, rounds: readonly RateRound[]): number | 'bisect' | RateSearchEnd {
  const r = counted(rounds);
  const probeLower = cfg.lower > 0 && cfg.lower < cfg.upper;
  const atLower = probeLower ? r.find((x) => x.rate === tidy(cfg.lower)) : undefined;
  if (probeLower && !atLower) return tidy(cfg.lower);
  if (atLower && !atLower.passed) return 'lower-fails';
  const top = r.filter((x) => x.kind !== 'bisect' && x.rate >= tidy(cfg.upper));
  if (top.length === 0) return tidy(cfg.upper);
  if (top.some((x) => !x.passed)) return 'bisect';
  const extensions = top.length - 1;
  if (extensions >= MAX_EXTENSIONS) return 'upper-passes';
  return tidy(cfg.upper * 2 ** (extensions + 1));
}

/**
 * The next rate to measure, or undefined when the search is over (state.done says why). A search is a
 * pure function of the prior verdicts and the verdicts so far, so a resumed run asks for the same rates in the same
 * rounds. A round that contradicts an earlier verdict is asked for again, once, before the search moves on (recordRound
 * then files the new verdict in its place).
 */
export function nextRate(cfg: RateSearchConfig, state: RateSearchState): number | undefined {
  if (state.done) return undefined;
  const r = state.rounds;
  const again = toRecheck(state);
  if (again) {
    state.asked = { rate: again.rate, kind: again.kind, recheck: true };
    return again.rate;
  }
  const step = boundStep(cfg, r);
  if (typeof step === 'number') {
    state.asked = { rate: step, kind: step > tidy(cfg.upper) ? 'extend' : 'bound' };
    return step;
  }
  if (step !== 'bisect') {
    state.done = step;
    return undefined;
  }
  const { lo, hi } = bracketEnds(r, Math.max(0, cfg.lower));
  const next = tidy((lo + (hi as number)) / 2);
  if ((hi as number) - lo <= closingWidth(cfg, lo) + 1e-9 || next <= lo || next >= (hi as number)) {
    state.done = 'converged';
    return undefined;
  }
  if (counted(r).filter((x) => x.kind === 'bisect').length >= cfg.maxRounds) {
    state.done = 'max-rounds';
    return undefined;
  }
  state.asked = { rate: next, kind: 'bisect' };
  return next;
}

/** Files a measured rate's verdict; a recheck's verdict replaces the round it measured again (that one is marked superseded). */
export function recordRound(state: RateSearchState, rate: number, passed: boolean): RateRound {
  const asked = state.asked?.rate === rate ? state.asked : undefined;
  delete state.asked;
  const round: RateRound = { round: state.rounds.length + 1, rate, passed, kind: asked?.kind ?? 'bound' };
  if (asked?.recheck) {
    const first = state.rounds[state.rounds.length - 1];
    if (first && first.rate === rate) first.superseded = true;
    round.recheck = true;
  }
  state.rounds.push(round);
  const passes = counted(state.rounds).filter((x) => x.passed).map((x) => x.rate);
  state.best = passes.length ? Math.max(...passes) : undefined;
  return round;
}

/** Whether measuring `rate` now, with this verdict, would be measured again (nextRate asks for it next): its row is then superseded. */
export function willRecheck(state: RateSearchState, rate: number, passed: boolean): boolean {
  return state.asked?.recheck !== true && contradicts(state, rate, passed);
}

export function bracketOf(cfg: RateSearchConfig, state: RateSearchState): Bracket {
  const { hi } = bracketEnds(state.rounds, 0);
  const best = state.best ?? null;
  const lowestFail = hi ?? null;
  const width = best !== null && lowestFail !== null ? lowestFail - best : undefined;
  const closing = closingWidth(cfg, best ?? 0);
  const closed = state.done === 'converged' && width !== undefined && width <= closing + 1e-9;
  // Which tolerance closed it: the relative one when it is the wider (the absolute one then did not yet hold).
  const within = closing > cfg.tolerance ? `within ${+(cfg.relTolerance * 100).toPrecision(3)}% of ${best} req/s` : `within ${cfg.tolerance} req/s`;
  const rechecked = state.rounds.filter((x) => x.recheck).length;
  const notes: Record<RateSearchEnd, string> = {
    converged: `closed: offered ${best} req/s passes, ${lowestFail} req/s fails (${within})`,
    'max-rounds': `not closed: ${best ?? 'nothing'} passes, ${lowestFail} fails after ${cfg.maxRounds} bisection rounds; raise qps.max_rounds, qps.tolerance or qps.rel_tolerance`,
    'lower-fails': `not closed: the lower bound ${cfg.lower} req/s already fails the SLA; lower qps.lower`,
    'upper-passes': `not closed: ${best} req/s still passes after ${MAX_EXTENSIONS} doublings of qps.upper; raise qps.upper`,
  };
  const again = rechecked ? `; ${rechecked} round${rechecked === 1 ? '' : 's'} measured again (the verdict contradicted an earlier one)` : '';
  return { best, lowestFail, closed, note: state.done ? notes[state.done] + again : 'not finished' };
}

/** One line for logs and the manifest: "best offered rate 6.25 req/s after 4 rounds (converged; closed: ...)"; offered, not achieved. */
export function describeSearch(state: RateSearchState, cfg?: RateSearchConfig): string {
  const n = state.rounds.length;
  const best = state.best === undefined ? 'no rate met the SLA' : `best offered rate ${state.best} req/s`;
  const bracket = cfg && state.done ? `; ${bracketOf(cfg, state).note}` : '';
  return `${best} after ${n} round${n === 1 ? '' : 's'}${state.done ? ` (${state.done}${bracket})` : ''}`;
}
