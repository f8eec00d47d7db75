// A repeat launch's short search around its candidate's knee: start where the search launch's curve crosses the SLA
// limit (localStart; the rate the search confirmed when it has no crossing), step 6% up while
// it passes (down while it fails) until the verdict flips, then bisect that bracket twice, so each launch brackets its
// own SLA capacity within about 1.5% (core/results/launch-capacity.ts reads it between its pass and fail).
// Pure: the next rate follows from the verdicts so far, so a resumed run asks for the same rates.

import { KNEE_STEP } from '../core/results/launch-capacity';

/** Relative step of the walk away from the start (the verdict reads a launch that never flipped at most this far beyond). */
export const LOCAL_STEP = KNEE_STEP;
/** Steps before the walk gives up on finding the flip (the launch is far from the search's; its last point stands). */
export const LOCAL_MAX_STEPS = 4;
/** Bisections of the bracket once found. */
export const LOCAL_BISECTIONS = 2;

const tidy = (rate: number): number => Math.round(rate * 1000) / 1000;

/**
 * Where a repeat's local search starts: the search launch's capacity read between its best pass and the lowest fail
 * above it, when that lies above the confirmed rate. Starting at the confirmed pass instead walked 6% steps up from a
 * wide bracket (pass 2.53, fail 3.43 req/s in the demo) and gave up before it flipped, so every such launch read the
 * same clamped value: no spread, and a false winner.
 */
export function localStart(confirmed: number, searchCapacity: number | undefined): number {
  return searchCapacity !== undefined && Number.isFinite(searchCapacity) && searchCapacity > confirmed ? tidy(searchCapacity) : confirmed;
}

/**
 * The first rate of round `round`'s walk: `start` moved by a fraction of a step that differs from round to round
 * (golden-ratio offsets over ±half a step). Every launch of a candidate walking the same rates gave each candidate its
 * own fixed reading bias (where its rates fell on the latency curve), which the launches' spread cannot show: at a true
 * difference of 0, bench:resolution named a winner in 7.5% of runs at a 5% level.
 */
export function walkStart(start: number, round: number): number {
  const frac = (round * 0.6180339887) % 1;
  return tidy(start * (1 + LOCAL_STEP * (frac - 0.5)));
}

/** The next rate to measure after these (rate, passed) rounds, or undefined when the local search is done. */
export function nextLocalRate(start: number, rounds: ReadonlyArray<{ rate: number; passed: boolean }>): number | undefined {
  if (rounds.length === 0) return tidy(start);
  const first = rounds[0] as { rate: number; passed: boolean };
  const flip = rounds.findIndex((r) => r.passed !== first.passed);
  if (flip < 0) {
    if (rounds.length > LOCAL_MAX_STEPS) return undefined;
    const last = rounds[rounds.length - 1] as { rate: number; passed: boolean };
    return tidy(last.rate * (first.passed ? 1 + LOCAL_STEP : 1 - LOCAL_STEP));
  }
  if (rounds.length - 1 - flip >= LOCAL_BISECTIONS) return undefined;
  const passes = rounds.filter((r) => r.passed).map((r) => r.rate);
  const fails = rounds.filter((r) => !r.passed).map((r) => r.rate);
  const lo = Math.max(...passes);
  const hi = Math.min(...fails.filter((f) => f > lo));
  if (!Number.isFinite(hi)) return undefined;
  const mid = tidy((lo + hi) / 2);
  return mid > lo && mid < hi ? mid : undefined;
}
