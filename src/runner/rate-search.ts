// Finds the highest request rate that meets the SLA: probe the bounds, extend a passing upper bound by doubling, then bisect the bracket; report the bracket and whether it closed.
import { DEFAULT_MAX_ROUNDS, DEFAULT_TOLERANCE } from '../core/plan/bench';

export { DEFAULT_MAX_ROUNDS, DEFAULT_TOLERANCE };

export interface RateSearchConfig {
  /** Lowest rate considered (req/s); 0 means "no floor": the search starts at the upper bound. */
  lower: number;
  upper: number;
  /** The bracket is closed once (lowest failing rate - highest passing rate) is at most this many req/s. */
  tolerance: number;
  /** Bisection rounds after the bound probes (the playbook's qps.max_rounds; default 5). */
  maxRounds: number;
}

/** A passing upper bound is doubled at most this many times before the search gives up on finding the limit. */
export const MAX_EXTENSIONS = 3;

export interface RateRound {
  round: number;
  rate: number;
  passed: boolean;
  kind: 'bound' | 'extend' | 'bisect';
}

export type RateSearchEnd = 'converged' | 'max-rounds' | 'lower-fails' | 'upper-passes';

export interface RateSearchState {
  rounds: RateRound[];
  /** Highest rate measured that passed, if any. */
  best: number | undefined;
  /** Why the search ended, once it has. */
  done?: RateSearchEnd;
  /** The rate nextRate asked for and what kind of round it is (recordRound files it). */
  asked?: { rate: number; kind: RateRound['kind'] };
}

/** What a search found: the best passing rate, the lowest failing one, and whether they are within the tolerance. */
export interface Bracket {
  best: number | null;
  lowestFail: number | null;
  closed: boolean;
  /** Why the bracket did not close (or how it closed), in words. */
  note: string;
}

export function newSearch(): RateSearchState {
  return { rounds: [], best: undefined };
}

/** Rates are printed and keyed; three decimals keep bisection keys stable across a resume. */
function tidy(rate: number): number {
  return Math.round(rate * 1000) / 1000;
}

function bracketEnds(r: readonly RateRound[], floor: number): { lo: number; hi: number | undefined } {
  const passes = r.filter((x) => x.passed).map((x) => x.rate);
  const fails = r.filter((x) => !x.passed).map((x) => x.rate);
  return { lo: passes.length ? Math.max(...passes) : floor, hi: fails.length ? Math.min(...fails) : undefined };
}

/** The bound probes: lower (when set), upper, then doublings of a passing upper bound. A rate, 'bisect', or an end. */
function boundStep(cfg: RateSearchConfig, r: readonly RateRound[]): number | 'bisect' | RateSearchEnd {
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
 * pure function of the verdicts so far, so a resumed run asks for the same rates in the same rounds.
 */
export function nextRate(cfg: RateSearchConfig, state: RateSearchState): number | undefined {
  if (state.done) return undefined;
  const r = state.rounds;
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
  if ((hi as number) - lo <= cfg.tolerance || next <= lo || next >= (hi as number)) {
    state.done = 'converged';
    return undefined;
  }
  if (r.filter((x) => x.kind === 'bisect').length >= cfg.maxRounds) {
    state.done = 'max-rounds';
    return undefined;
  }
  state.asked = { rate: next, kind: 'bisect' };
  return next;
}

export function recordRound(state: RateSearchState, rate: number, passed: boolean): RateRound {
  const kind = state.asked?.rate === rate ? state.asked.kind : 'bound';
  delete state.asked;
  const round: RateRound = { round: state.rounds.length + 1, rate, passed, kind };
  state.rounds.push(round);
  if (passed && (state.best === undefined || rate > state.best)) state.best = rate;
  return round;
}

export function bracketOf(cfg: RateSearchConfig, state: RateSearchState): Bracket {
  const { hi } = bracketEnds(state.rounds, 0);
  const best = state.best ?? null;
  const lowestFail = hi ?? null;
  const width = best !== null && lowestFail !== null ? lowestFail - best : undefined;
  const closed = state.done === 'converged' && width !== undefined && width <= cfg.tolerance + 1e-9;
  const notes: Record<RateSearchEnd, string> = {
    converged: `closed: offered ${best} req/s passes, ${lowestFail} req/s fails (within ${cfg.tolerance} req/s)`,
    'max-rounds': `not closed: ${best ?? 'nothing'} passes, ${lowestFail} fails after ${cfg.maxRounds} bisection rounds; raise qps.max_rounds or qps.tolerance`,
    'lower-fails': `not closed: the lower bound ${cfg.lower} req/s already fails the SLA; lower qps.lower`,
    'upper-passes': `not closed: ${best} req/s still passes after ${MAX_EXTENSIONS} doublings of qps.upper; raise qps.upper`,
  };
  return { best, lowestFail, closed, note: state.done ? notes[state.done] : 'not finished' };
}

/** One line for logs and the manifest: "best offered rate 6.25 req/s after 4 rounds (converged; closed: ...)"; offered, not achieved. */
export function describeSearch(state: RateSearchState, cfg?: RateSearchConfig): string {
  const n = state.rounds.length;
  const best = state.best === undefined ? 'no rate met the SLA' : `best offered rate ${state.best} req/s`;
  const bracket = cfg && state.done ? `; ${bracketOf(cfg, state).note}` : '';
  return `${best} after ${n} round${n === 1 ? '' : 's'}${state.done ? ` (${state.done}${bracket})` : ''}`;
}
