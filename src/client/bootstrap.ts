// Seeded bootstrap intervals on typed arrays: percentiles resampled over requests, rates resampled over blocks of time bins, and a Wilson interval for a proportion.
import { Rng } from '../core/workload/rng';
import { percentileSorted } from '../core/workload/stats';

/** A two-sided interval [low, high]. */
export type Interval = [number, number];

/** An equal-tailed interval of this coverage. */
export const CONFIDENCE = 0.95;
/** Bootstrap resamples per interval. */
export const RESAMPLES = 1000;
/** Fixed, so the same records always give the same intervals. */
export const BOOTSTRAP_SEED = 0x5eed;

/** Two-sided 95% normal quantile. */
const Z95 = 1.959963984540054;

/** A seed of its own per quantity, so adding a quantity never moves another's interval. */
export function seedFor(seed: number, label: string): number {
  let h = Math.trunc(seed) >>> 0;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The equal-tailed interval of a bootstrap distribution (sorted here, in place). */
function tails(estimates: Float64Array): Interval {
  estimates.sort();
  const a = ((1 - CONFIDENCE) / 2) * 100;
  return [percentileSorted(estimates, a), percentileSorted(estimates, 100 - a)];
}

/**
 * Percentile bootstrap of numpy-style percentiles; `sorted` must be ascending. Resampling n of n with
 * replacement draws positions ⌊n·V⌋ from n uniforms V, so a resample's j-th smallest value is
 * sorted[⌊n·V_(j)⌋] with V_(j) ~ Beta(j, n − j + 1), and the next one up is V_(j) + (1 − V_(j))·Beta(1, n − j).
 * Drawing those two order statistics directly gives exactly the distribution that resampling all n
 * values and sorting them would, in O(resamples) per percentile instead of O(resamples × n log n).
 */
export function percentileBootstrap(sorted: Float64Array, ps: readonly number[], seed: number, resamples = RESAMPLES): Interval[] {
  const n = sorted.length;
  const rng = new Rng(seed);
  const at = (v: number): number => sorted[Math.min(n - 1, Math.floor(v * n))] as number;
  return ps.map((p) => {
    // numpy interpolates between the 0-based order statistics lo and lo + 1.
    const h = ((n - 1) * p) / 100;
    const lo = Math.floor(h);
    const frac = h - lo;
    const est = new Float64Array(resamples);
    for (let r = 0; r < resamples; r++) {
      const x = rng.gamma(lo + 1, 1);
      const v = x / (x + rng.gamma(n - lo, 1));
      let value = at(v);
      if (frac > 0 && lo + 1 < n) {
        // The smallest of the n - lo - 1 draws above v: Beta(1, m) is 1 - U^(1/m).
        const next = v + (1 - v) * (1 - Math.pow(1 - rng.next(), 1 / (n - lo - 1)));
        value += frac * (at(next) - value);
      }
      est[r] = value;
    }
    return tails(est);
  });
}

/**
 * Moving-block bootstrap of a rate from per-bin counts over equal bins of `binS` seconds: blocks of
 * `block` consecutive bins (so short-range correlation in time survives) are drawn with replacement
 * until the series is as long as the original; the rate is the mean count per bin / binS.
 */
export function blockBootstrapRate(bins: Float64Array, binS: number, seed: number, resamples = RESAMPLES, block = Math.ceil(Math.cbrt(bins.length))): Interval {
  const k = bins.length;
  const len = Math.max(1, Math.min(block, k));
  const starts = k - len + 1;
  const rng = new Rng(seed);
  const est = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    let filled = 0;
    while (filled < k) {
      const s = Math.floor(rng.next() * starts);
      for (let j = 0; j < len && filled < k; j++, filled++) sum += bins[s + j] as number;
    }
    est[b] = sum / k / binS;
  }
  return tails(est);
}

/** Wilson score interval of a proportion `hits / n` (n > 0). */
export function wilson(hits: number, n: number): Interval {
  const p = hits / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
