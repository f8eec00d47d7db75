// Finds the highest request rate that meets the SLA: bisection between qps.lower and qps.upper, bounded in rounds.

export interface RateSearchConfig {
  /** Lowest rate considered (req/s); 0 means "no floor": the search starts at the upper bound. */
  lower: number;
  upper: number;
  /** Stop once the bracket (lowest failing rate - highest passing rate) is at most this many req/s. */
  tolerance: number;
  /** At most this many measured rounds (the playbook's default is 5). */
  maxRounds: number;
}

export const DEFAULT_MAX_ROUNDS = 5;
export const DEFAULT_TOLERANCE = 0.1;

export interface RateRound {
  round: number;
  rate: number;
  passed: boolean;
}

export type RateSearchEnd = 'converged' | 'max-rounds' | 'lower-fails' | 'upper-passes';

export interface RateSearchState {
  rounds: RateRound[];
  /** Highest rate measured that passed, if any. */
  best: number | undefined;
  /** Why the search ended, once it has. */
  done?: RateSearchEnd;
}

export function newSearch(): RateSearchState {
  return { rounds: [], best: undefined };
}

/** Rates are printed and keyed; three decimals keep bisection keys stable across a resume. */
function tidy(rate: number): number {
  return Math.round(rate * 1000) / 1000;
}

/**
 * The next rate to measure, or undefined when the search is over (state.done says why).
 * Order: the lower bound first (if it fails nothing will pass), then the upper (if it passes, it is the
 * answer), then bisection of the bracket between the best pass and the lowest fail. A search is a pure
 * function of the verdicts so far, so a resumed run asks for the same rates in the same rounds.
 */
export function nextRate(cfg: RateSearchConfig, state: RateSearchState): number | undefined {
  const r = state.rounds;
  if (state.done) return undefined;
  if (r.length >= cfg.maxRounds) {
    state.done = 'max-rounds';
    return undefined;
  }
  const probeLower = cfg.lower > 0 && cfg.lower < cfg.upper;
  const atUpper = r.find((x) => x.rate === tidy(cfg.upper));
  const atLower = probeLower ? r.find((x) => x.rate === tidy(cfg.lower)) : undefined;
  if (probeLower && !atLower) return tidy(cfg.lower);
  if (atLower && !atLower.passed) {
    state.done = 'lower-fails';
    return undefined;
  }
  if (!atUpper) return tidy(cfg.upper);
  if (atUpper.passed) {
    state.done = 'upper-passes';
    return undefined;
  }
  const passes = r.filter((x) => x.passed).map((x) => x.rate);
  const lo = passes.length ? Math.max(...passes) : Math.max(0, cfg.lower);
  const hi = Math.min(...r.filter((x) => !x.passed).map((x) => x.rate));
  const next = tidy((lo + hi) / 2);
  if (hi - lo <= cfg.tolerance || next <= lo || next >= hi) {
    state.done = 'converged';
    return undefined;
  }
  return next;
}

export function recordRound(state: RateSearchState, rate: number, passed: boolean): RateRound {
  const round = { round: state.rounds.length + 1, rate, passed };
  state.rounds.push(round);
  if (passed && (state.best === undefined || rate > state.best)) state.best = rate;
  return round;
}

/** One line for logs and the manifest: "best 6.25 req/s after 4 rounds (converged)". */
export function describeSearch(state: RateSearchState): string {
  const n = state.rounds.length;
  const best = state.best === undefined ? 'no rate met the SLA' : `best ${state.best} req/s`;
  return `${best} after ${n} round${n === 1 ? '' : 's'}${state.done ? ` (${state.done})` : ''}`;
}
