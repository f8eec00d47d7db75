// Decides between candidates from per-launch SLA-capacity estimates (req/s, one number per fresh server launch): each candidate's mean with a Student-t interval, the leader's relative lead over every other with a Welch interval, and a named winner only when that lead is significant and at least a minimum effect — otherwise "equivalent within 3%" or "undecided", with which candidates to launch again next.

/** Pairs closer than this are "equivalent"; a winner must be shown at least this much ahead (relative capacity). */
export const DEFAULT_MIN_EFFECT = 0.03;
/** The family-wise error rate of one scenario's decision (over its comparisons by Holm's step-down). */
export const DEFAULT_ALPHA = 0.05;
/**
 * No launch-to-launch noise is believed below this relative sd: capacities from a rate search sit on a grid, so
 * repeated launches often return the very same number, and a sample sd of 0 would make a zero-width interval.
 */
export const DEFAULT_MIN_REL_SD = 0.005;

// ---------------------------------------------------------------------------------------------------------------
// Distributions: the normal and Student-t quantiles (df may be fractional: Welch's df is).

/** Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const poly = (k: number[], x: number): number => k.reduce((s, v) => s * x + v, 0);
  const tail = (q: number): number => poly(c, q) / (poly(d, q) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (poly(a, r) * q) / (poly(b, r) * r + 1);
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7). */
function lnGamma(x: number): number {
  const g = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let s = g[0] ?? 1;
  for (let i = 1; i < g.length; i++) s += (g[i] ?? 0) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

/** The continued fraction of the regularized incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let h = d;
  for (let m = 1; m <= 300; m++) {
    for (const num of [(m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)), (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))]) {
      d = 1 + num * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + num / c;
      if (Math.abs(c) < tiny) c = tiny;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** P(T ≤ t) for Student's t with df degrees of freedom. */
export function tCdf(t: number, df: number): number {
  if (!Number.isFinite(df)) return 1 - 0.5 * erfcApprox(t / Math.SQRT2);
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** erfc for the normal limit of tCdf (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7). */
function erfcApprox(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const k = [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277];
  const r = t * Math.exp(-z * z + k.reduceRight((s, v) => s * t + v, 0));
  return x >= 0 ? r : 2 - r;
}

/**
 * The p-quantile of Student's t with df degrees of freedom (df ≥ 1, fractional allowed; Infinity: the normal).
 * Exact closed forms for df 1 and 2; otherwise the t CDF (incomplete beta) inverted by bisection to 1e-10.
 */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  if (p < 0.5) return -tQuantile(1 - p, df);
  if (!Number.isFinite(df) || df > 1e7) return normalQuantile(p);
  if (df === 1) return Math.tan(Math.PI * (p - 0.5));
  if (df === 2) return (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
  let lo = 0;
  let hi = Math.max(1, 2 * normalQuantile(p));
  while (tCdf(hi, df) < p) hi *= 2;
  while (hi - lo > 1e-10 * hi) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

// ---------------------------------------------------------------------------------------------------------------
// One candidate, and one pair.

/** One candidate's SLA capacity from its launches. */
export interface CapacityEstimate {
  /** Mean of the per-launch capacities (NaN when there is none). */
  mean: number;
  /** Launches counted (finite samples only). */
  n: number;
  /** Sample standard deviation (n − 1); 0 for a single launch. */
  sd: number;
  /** 95% Student-t interval of the mean; null with fewer than 2 launches. */
  ci: [number, number] | null;
  /** Half the interval's width; null with fewer than 2 launches. */
  halfWidth: number | null;
}

const finite = (xs: readonly number[]): number[] => xs.filter((x) => Number.isFinite(x));

function meanSd(xs: readonly number[]): { mean: number; sd: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const ss = xs.reduce((s, x) => s + (x - mean) ** 2, 0);
  return { mean, sd: xs.length > 1 ? Math.sqrt(ss / (xs.length - 1)) : 0 };
}

/**
 * The mean of per-launch capacities with a 95% Student-t interval. Non-finite samples (NaN, Infinity: a capacity that
 * was not measured) are left out and not counted in n. The raw sd is reported here; the sd floor applies to comparisons.
 */
export function capacityEstimate(samples: readonly number[]): CapacityEstimate {
  const xs = finite(samples);
  if (xs.length === 0) return { mean: NaN, n: 0, sd: 0, ci: null, halfWidth: null };
  const { mean, sd } = meanSd(xs);
  if (xs.length < 2) return { mean, n: xs.length, sd, ci: null, halfWidth: null };
  const halfWidth = (tQuantile(0.975, xs.length - 1) * sd) / Math.sqrt(xs.length);
  return { mean, n: xs.length, sd, ci: [mean - halfWidth, mean + halfWidth], halfWidth };
}

export interface CompareOptions {
  /** 1 − the interval's confidence level (two-sided); default 0.05. */
  alpha?: number;
  /** Floor on each side's sd, relative to its own mean; default DEFAULT_MIN_REL_SD (0.005). */
  minRelSd?: number;
  /**
   * The run's launch-to-launch noise, pooled over every candidate with two or more launches (relative sd and its
   * degrees of freedom: pooledNoise). Given, it replaces each side's own sd (at least minRelSd), so a candidate with one
   * launch is compared too and a few launches each borrow the run's evidence; df is the pooled df.
   */
  pooled?: PooledNoise;
}

/**
 * O'Brien–Fleming's boundary constant C(K) for an overall two-sided 0.05 over K equally spaced looks (K = 1..12:
 * Jennison & Turnbull, Group Sequential Methods, table 2.3; K = 13..16 computed here by numerical integration of the
 * crossing probability of the constant boundary C·√K on the sum, which reproduces the table's K ≤ 12 within 0.002):
 * look k of K rejects when |Z| > C(K)·√(K/k).
 */
const OBF_05 = [1.96, 1.977, 2.004, 2.024, 2.04, 2.053, 2.063, 2.072, 2.08, 2.087, 2.093, 2.098, 2.103, 2.107, 2.111, 2.114];

/**
 * The two-sided level look `look` of `looks` may test at when a run looks at its data after every round of launches
 * and stops once decided (optional stopping would otherwise inflate a wrong winner's chance: measured 25% at a 5%
 * nominal with 8 looks, 20 seeded runs of bench:resolution at no true difference). O'Brien–Fleming's boundary: early
 * looks, on few launches, need an overwhelming difference; the last look tests near the nominal level, so the launches
 * a close call needs are not taxed for the looks before them (Pocock's constant boundary was: 1.2% per look at 8 looks).
 * Another alpha than 0.05 scales the boundary by its normal quantile (an approximation). A look past `looks` (more
 * rounds than planned) tests at the last look's level.
 */
export function sequentialAlpha(alpha: number, looks: number, look = looks): number {
  const kMax = Math.max(1, Math.min(OBF_05.length, Math.round(looks)));
  const k = Math.max(1, Math.min(kMax, Math.round(look * (kMax / Math.max(1, Math.round(looks))))));
  const c = ((OBF_05[kMax - 1] as number) / 1.96) * normalQuantile(1 - alpha / 2) * Math.sqrt(kMax / k);
  return 2 * (1 - tCdf(c, Infinity));
}

/** Launch-to-launch noise of a run: the relative sd pooled over candidates, and its degrees of freedom. */
export interface PooledNoise {
  relSd: number;
  df: number;
}

/**
 * The relative launch-to-launch sd pooled over candidates (each launch's capacity over its candidate's mean): the
 * sum of squared relative deviations over the sum of (n − 1). Undefined when no candidate has two launches.
 */
export function pooledNoise(samples: ReadonlyArray<readonly number[]>): PooledNoise | undefined {
  let ss = 0;
  let df = 0;
  for (const raw of samples) {
    const xs = finite(raw);
    if (xs.length < 2) continue;
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    if (!(mean > 0)) continue;
    for (const x of xs) ss += (x / mean - 1) ** 2;
    df += xs.length - 1;
  }
  return df > 0 ? { relSd: Math.sqrt(ss / df), df } : undefined;
}

/** a against b: how much more capacity a has. */
export interface CapacityComparison {
  meanA: number;
  meanB: number;
  nA: number;
  nB: number;
  /** meanA − meanB (req/s) and its interval (null: a side has a single launch). */
  diff: number;
  diffCi: [number, number] | null;
  /** meanA / meanB − 1 and its interval; null when meanB ≤ 0 (no ratio) — diffCi still says whether a is ahead. */
  relative: number | null;
  relativeCi: [number, number] | null;
  /** Welch–Satterthwaite degrees of freedom (null with a single launch on a side; Infinity when both sds are 0). */
  df: number | null;
  /** The intervals' confidence level, 1 − alpha. */
  level: number;
  /** Whether the sd floor raised either side's sd (identical or near-identical launches). */
  floored: boolean;
}

/** The standard error of meanA − meanB with the run's pooled relative noise on both sides (df: the pool's). */
function pooledSe(a: { mean: number; n: number }, b: { mean: number; n: number }, p: PooledNoise, minRelSd: number): { va: number; vb: number; se: number; df: number; floored: boolean } {
  const rel = Math.max(p.relSd, minRelSd);
  const va = (rel * a.mean) ** 2 / a.n;
  const vb = (rel * b.mean) ** 2 / b.n;
  return { va, vb, se: Math.sqrt(va + vb), df: p.df, floored: rel > p.relSd };
}

/** Welch's standard error and df of meanA − meanB, with each side's sd floored at minRelSd × |its mean|. */
function welch(a: { mean: number; sd: number; n: number }, b: { mean: number; sd: number; n: number }, minRelSd: number): { va: number; vb: number; se: number; df: number; floored: boolean } {
  const sa = Math.max(a.sd, minRelSd * Math.abs(a.mean));
  const sb = Math.max(b.sd, minRelSd * Math.abs(b.mean));
  const va = (sa * sa) / a.n;
  const vb = (sb * sb) / b.n;
  const se = Math.sqrt(va + vb);
  const den = (va * va) / (a.n - 1) + (vb * vb) / (b.n - 1);
  return { va, vb, se, df: den > 0 ? (se ** 4) / den : Infinity, floored: sa > a.sd || sb > b.sd };
}

/**
 * The relative difference meanA/meanB − 1 of two candidates' per-launch capacities, with an interval at level
 * 1 − alpha: Welch's t (unequal variances, Satterthwaite df) for the difference, and the delta method for the ratio
 * (Var(A/B) ≈ Var(A)/B² + A²·Var(B)/B⁴, with the same df). Each side's sd is floored at minRelSd × its mean, so
 * identical repeated numbers give a narrow interval, not a zero-width one. A single launch on either side: no interval
 * (nothing says how much launches vary). meanB ≤ 0: no ratio (relative null); the difference's interval still stands.
 */
export function compareCapacities(a: readonly number[], b: readonly number[], opts: CompareOptions = {}): CapacityComparison {
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const xa = finite(a);
  const xb = finite(b);
  const sa = { ...meanSd(xa), n: xa.length };
  const sb = { ...meanSd(xb), n: xb.length };
  const diff = sa.mean - sb.mean;
  const relative = sb.mean > 0 ? sa.mean / sb.mean - 1 : null;
  const base = { meanA: sa.mean, meanB: sb.mean, nA: sa.n, nB: sb.n, diff, relative, level: 1 - alpha };
  const pooled = opts.pooled && sa.n >= 1 && sb.n >= 1 ? opts.pooled : undefined;
  if (!pooled && (sa.n < 2 || sb.n < 2)) return { ...base, diffCi: null, relativeCi: null, df: null, floored: false };
  const w = pooled ? pooledSe(sa, sb, pooled, opts.minRelSd ?? DEFAULT_MIN_REL_SD) : welch(sa, sb, opts.minRelSd ?? DEFAULT_MIN_REL_SD);
  const t = tQuantile(1 - alpha / 2, w.df);
  const diffCi: [number, number] = [diff - t * w.se, diff + t * w.se];
  let relativeCi: [number, number] | null = null;
  if (relative !== null) {
    const seRel = Math.sqrt(w.va / sb.mean ** 2 + (sa.mean ** 2 * w.vb) / sb.mean ** 4);
    relativeCi = [relative - t * seRel, relative + t * seRel];
  }
  return { ...base, diffCi, relativeCi, df: w.df, floored: w.floored };
}

// ---------------------------------------------------------------------------------------------------------------
// One scenario.

export interface DecideOptions {
  /** Family-wise error rate of the scenario's decision; default 0.05. */
  alpha?: number;
  /** The smallest relative lead worth naming a winner for; default 0.03. */
  minEffect?: number;
  /** Per-side sd floor, relative; default 0.005 (see compareCapacities). */
  minRelSd?: number;
  /** The run's pooled launch noise (see CompareOptions.pooled). */
  pooled?: PooledNoise;
}

export interface DecisionCandidate {
  id: string;
  samples: readonly number[];
}

/** How the leader stands against one other candidate. */
export type Relation = 'separated' | 'equivalent' | 'contender';

export interface PairDecision {
  id: string;
  relation: Relation;
  /** The leader against this candidate (the leader is "a"). */
  comparison: CapacityComparison;
}

export interface ScenarioDecision {
  outcome: 'winner' | 'equivalent' | 'undecided';
  /** Set only when outcome is 'winner' (the leader). */
  winner?: string;
  /** The highest mean; null only when no candidate has a finite sample. */
  leader: string | null;
  /** The candidate effect and ci compare the leader with. */
  against?: string;
  /** The leader's relative lead over `against` (meanLeader / meanAgainst − 1), and its interval at `level`. */
  effect?: number;
  ci?: [number, number];
  /** Confidence level of the reported pair's interval (Holm: 1 − alpha/(k − 1) up to 1 − alpha; see holmPairs). */
  level: number;
  minEffect: number;
  /** Neither separated from nor equivalent to the leader yet (more launches needed). */
  contenders: string[];
  /** Shown within ±minEffect of the leader. */
  equivalent: string[];
  /** Significantly behind the leader, by an estimated minEffect or more. */
  separated: string[];
  /** Every candidate with a sample, highest mean first. */
  ranked: Array<CapacityEstimate & { id: string }>;
  /** The leader against each other candidate, in ranked order. */
  pairs: PairDecision[];
  /** Why there is nothing to compare, when so. */
  note?: string;
}

/**
 * One pair's relation, from the leader's relative lead r = leader/other − 1 (r ≥ 0: the leader has the higher mean)
 * and its interval [lo, hi]:
 * - separated: lo > 0 and r ≥ minEffect — the lead is significant and its estimate is at least minEffect;
 * - equivalent: not separated, and −minEffect < lo and hi < minEffect — the whole interval within ±minEffect
 *   (this includes a significant lead that is smaller than minEffect: 0 < lo, hi < minEffect);
 * - contender: anything else, including no interval (a single launch on a side).
 * With the other's mean ≤ 0 (no ratio; the lead is unbounded) the leader is separated when the difference's
 * interval is above 0, equivalent when both sides are exactly 0, a contender otherwise.
 */
function relationOf(c: CapacityComparison, minEffect: number): Relation {
  if (c.diffCi === null) return 'contender';
  if (c.relative === null || c.relativeCi === null) return c.diffCi[0] > 0 ? 'separated' : c.diffCi[0] === 0 && c.diffCi[1] === 0 ? 'equivalent' : 'contender';
  const [lo, hi] = c.relativeCi;
  if (lo > 0 && c.relative >= minEffect) return 'separated';
  if (lo > -minEffect && hi < minEffect) return 'equivalent';
  return 'contender';
}

function rankedOf(cands: readonly DecisionCandidate[]): Array<CapacityEstimate & { id: string; samples: readonly number[] }> {
  return cands
    .map((c) => ({ id: c.id, samples: c.samples, ...capacityEstimate(c.samples) }))
    .filter((c) => c.n > 0)
    .sort((x, y) => y.mean - x.mean || y.n - x.n || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

/** The comparison a decision reports: the runner-up for a winner, the widest interval for 'equivalent', the best-mean contender when undecided. */
function reported(outcome: ScenarioDecision['outcome'], pairs: readonly PairDecision[]): PairDecision | undefined {
  if (outcome === 'winner') return pairs[0];
  if (outcome === 'undecided') return pairs.find((p) => p.relation === 'contender');
  const width = (p: PairDecision): number => (p.comparison.relativeCi ? p.comparison.relativeCi[1] - p.comparison.relativeCi[0] : 0);
  return pairs.filter((p) => p.relation === 'equivalent').reduce<PairDecision | undefined>((w, p) => (w === undefined || width(p) > width(w) ? p : w), undefined);
}

/**
 * The leader against each other candidate, by Holm's step-down over the k − 1 comparisons: the pairs in order of
 * their lead's significance (largest t first), the i-th (from 0) tested at alpha/(m − i) as long as every pair before
 * it showed the leader ahead (its interval above 0). The first that does not, every pair after it, and every
 * equivalence judgement stay at Bonferroni's alpha/m. A wrong winner still needs a false lead at the family-wise level
 * alpha (Holm holds under any dependence between the comparisons), but once the far candidates are rejected the
 * runner-up is tested at up to the full alpha instead of alpha/(k − 1): 95% instead of 99% among six candidates.
 */
function holmPairs(leader: readonly number[], others: ReadonlyArray<{ id: string; samples: readonly number[] }>, alpha: number, minEffect: number, opts: DecideOptions): PairDecision[] {
  const m = others.length;
  const compare = (o: { samples: readonly number[] }, a: number) => compareCapacities(leader, o.samples, { alpha: a, minRelSd: opts.minRelSd, pooled: opts.pooled });
  const bonferroni = others.map((o) => compare(o, alpha / m));
  const strength = (c: CapacityComparison): number => {
    if (!c.diffCi) return -Infinity;
    const half = (c.diffCi[1] - c.diffCi[0]) / 2;
    return half > 0 ? c.diff / half : c.diff > 0 ? Infinity : -Infinity;
  };
  const order = others.map((_, i) => i).sort((x, y) => strength(bonferroni[y] as CapacityComparison) - strength(bonferroni[x] as CapacityComparison));
  const chosen = [...bonferroni];
  for (let step = 0; step < m; step++) {
    const i = order[step] as number;
    const c = step === 0 ? (bonferroni[i] as CapacityComparison) : compare(others[i] as { samples: readonly number[] }, alpha / (m - step));
    if (!(c.diffCi && c.diffCi[0] > 0)) break;
    chosen[i] = c;
  }
  // Holm's levels settle separation only; equivalence (the whole interval within ±minEffect) keeps Bonferroni's.
  return others.map((o, i) => {
    const holm = chosen[i] as CapacityComparison;
    const comparison = relationOf(holm, minEffect) === 'separated' ? holm : (bonferroni[i] as CapacityComparison);
    return { id: o.id, relation: relationOf(comparison, minEffect), comparison };
  });
}

/**
 * Winner, equivalence or no decision for one scenario, from each candidate's per-launch capacities.
 *
 * - The leader is the candidate with the highest mean (ties: more launches, then id). Candidates without a finite
 *   sample take no part.
 * - The leader is compared with each of the k − 1 others (compareCapacities, leader first), each interval at level
 *   1 − alpha/(k − 1) (Bonferroni), and a lead is shown significant by Holm's step-down over those comparisons
 *   (holmPairs: the runner-up's interval may be up to 1 − alpha once the far ones are rejected); the family-wise
 *   chance of a false lead is still ≤ alpha.
 * - Each other candidate is then, from the leader's relative lead r (≥ 0) and its interval [lo, hi]:
 *   *separated* when lo > 0 and r ≥ minEffect (the lead is significant, and estimated at least minEffect);
 *   *equivalent* when not separated and −minEffect < lo, hi < minEffect (the whole interval within ±minEffect —
 *   a significant lead below minEffect, 0 < lo ≤ r < minEffect with hi < minEffect, lands here too);
 *   a *contender* otherwise: a significant lead below minEffect whose interval still reaches minEffect, any
 *   interval that straddles 0 and reaches ±minEffect, and any pair with a single launch on a side (no interval).
 * - Outcome: 'winner' when every other is separated (effect/ci against the runner-up, the second-best mean);
 *   'equivalent' when there is no contender and at least one equivalent (the leader is as good as those, and shown
 *   ahead of any separated ones; effect/ci of the equivalent pair with the widest interval); else 'undecided'
 *   (effect/ci against the best-mean contender: the closest unresolved rival).
 *   So a winner's lead over every other is significant at the family-wise level alpha (a wrong winner, one that is
 *   not truly ahead, is named with probability ≤ alpha), and a measured lead below minEffect is never a winner,
 *   significant or not: it is 'equivalent within minEffect' once the interval shows that, 'undecided' until then.
 *   Note the launches this takes: with 3% launch-to-launch noise the 95% interval of a pair is about ±3.2% at 8
 *   launches each, so "equivalent within 3%" needs some 20-30 launches each (a 1% true difference: 52% of the
 *   time at 20, 72% at 30).
 * - A single candidate with samples is the 'winner' with no effect, and `note` says there was nothing to compare.
 */
export function decideScenario(cands: readonly DecisionCandidate[], opts: DecideOptions = {}): ScenarioDecision {
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const minEffect = opts.minEffect ?? DEFAULT_MIN_EFFECT;
  const ranked = rankedOf(cands);
  const [top, ...others] = ranked;
  const publicRanked = ranked.map(({ samples: _s, ...e }) => e);
  const empty = { contenders: [], equivalent: [], separated: [], ranked: publicRanked, pairs: [], minEffect };
  if (!top) return { outcome: 'undecided', leader: null, level: 1 - alpha, ...empty, note: 'no candidate has a measured launch' };
  if (others.length === 0) return { outcome: 'winner', winner: top.id, leader: top.id, level: 1 - alpha, ...empty, note: 'the only candidate measured: nothing to compare it with' };
  const pairs = holmPairs(top.samples, others, alpha, minEffect, opts);
  const ids = (r: Relation): string[] => pairs.filter((p) => p.relation === r).map((p) => p.id);
  const [contenders, equivalent, separated] = [ids('contender'), ids('equivalent'), ids('separated')];
  const outcome = contenders.length > 0 ? 'undecided' : equivalent.length > 0 ? 'equivalent' : 'winner';
  const shown = reported(outcome, pairs);
  const d: ScenarioDecision = { outcome, leader: top.id, level: shown?.comparison.level ?? 1 - alpha / others.length, minEffect, contenders, equivalent, separated, ranked: publicRanked, pairs };
  if (outcome === 'winner') d.winner = top.id;
  if (shown) {
    d.against = shown.id;
    if (shown.comparison.relative !== null) d.effect = shown.comparison.relative;
    if (shown.comparison.relativeCi) d.ci = shown.comparison.relativeCi;
  }
  return d;
}

/**
 * Which candidates to launch again to settle the scenario soonest (LUCB: the leader and its most dangerous rival).
 * Undecided: the leader and the contender whose capacity interval reaches highest (a contender with a single launch
 * has no interval and counts as reaching highest; ties: fewer launches, then higher mean), the one with fewer
 * launches first (the leader on a tie). Decided (winner or equivalent): nothing.
 */
export function nextToMeasure(cands: readonly DecisionCandidate[], opts: DecideOptions = {}): string[] {
  const d = decideScenario(cands, opts);
  if (d.outcome !== 'undecided' || d.leader === null) return [];
  const leader = d.ranked.find((r) => r.id === d.leader);
  const upper = (r: CapacityEstimate): number => (r.ci ? r.ci[1] : Infinity);
  const rivals = d.ranked.filter((r) => d.contenders.includes(r.id));
  rivals.sort((x, y) => upper(y) - upper(x) || x.n - y.n || y.mean - x.mean);
  const rival = rivals[0];
  if (!leader || !rival) return [];
  return rival.n < leader.n ? [rival.id, leader.id] : [leader.id, rival.id];
}

// ---------------------------------------------------------------------------------------------------------------
// In words.

const pct = (x: number): string => `${(x * 100).toFixed(1).replace('-', '\u2212')}`;
/** A level as a percentage, with as many decimals as keep it under 100% (an early look's level is 99.99%, not 100%). */
export function levelText(level: number): string {
  for (let d = 1; d <= 4; d++) {
    const t = Number((level * 100).toFixed(d));
    if (t < 100 || level >= 1) return `${t}%`;
  }
  return '>99.99%';
}

/** A lead interval that says nothing: it reaches −100% (no lead can) or spans more than 100 points (2–3 launches at a strict level). */
function unbounded(ci: [number, number] | undefined): boolean {
  return ci !== undefined && (ci[0] <= -1 || ci[1] - ci[0] > 1);
}

function launchesText(a: number, b: number): string {
  return a === b ? `${a} launch${a === 1 ? '' : 'es'} each` : `${a} and ${b} launches`;
}

/**
 * The decision in one sentence, naming candidates through `names` (id → display name; the id when absent):
 * "vllm c2 beats vllm baseline by 6.1% (95% CI 2.3–9.8%), 6 launches each",
 * "vllm c2 and sglang baseline are equivalent within 3% (95% CI −1.2–2.0%), 8 launches each",
 * "undecided: vllm c2 leads sglang baseline by 3.1% (95% CI −1.2–7.4%), 3 launches each".
 */
export function formatDecision(d: ScenarioDecision, names: Readonly<Record<string, string>> = {}): string {
  const name = (id: string): string => (Object.prototype.hasOwnProperty.call(names, id) ? (names[id] ?? id) : id);
  if (d.leader === null) return `undecided: ${d.note ?? 'no candidate has a measured launch'}`;
  const lead = name(d.leader);
  const nOf = (id: string): number => d.ranked.find((r) => r.id === id)?.n ?? 0;
  if (d.against === undefined) return `${lead} is the only candidate measured (${launchesText(nOf(d.leader), nOf(d.leader)).replace(' each', '')}): nothing to compare it with`;
  const other = name(d.against);
  const n = launchesText(nOf(d.leader), nOf(d.against));
  const ci = d.ci ? `${levelText(d.level)} CI ${pct(d.ci[0])}–${pct(d.ci[1])}%` : undefined;
  const by = d.effect !== undefined ? ` by ${pct(d.effect)}%` : '';
  if (d.outcome === 'winner') {
    const runnerUp = d.ranked.length > 2 ? `, the runner-up,` : '';
    return d.effect !== undefined && ci ? `${lead} beats ${other}${runnerUp}${by} (${ci}), ${n}` : `${lead} beats ${other}${runnerUp}, which met the SLA on no launch (${n})`;
  }
  if (d.outcome === 'equivalent') {
    const group = [lead, ...d.equivalent.map(name)];
    const who = group.length === 2 ? `${group[0]} and ${group[1]}` : `${group.slice(0, -1).join(', ')} and ${group[group.length - 1]}`;
    return `${who} are equivalent within ${Number((d.minEffect * 100).toFixed(1))}% (${group.length > 2 ? 'widest ' : ''}${ci ?? 'identical launches'}), ${n}`;
  }
  if (!ci && Math.min(nOf(d.leader), nOf(d.against)) < 2) return `undecided: ${lead} leads ${other}${by}, but a single launch gives no interval (${n})`;
  if (!ci) return `undecided: ${other} met the SLA on no launch, and ${lead}\u2019s lead over it is not yet significant (${n})`;
  if (unbounded(d.ci)) return `undecided: ${lead} leads ${other}${by}, but ${n.replace(' each', '')} are too few to bound the lead (its ${levelText(d.level)} interval is wider than \u00b1100%)`;
  return `undecided: ${lead} leads ${other}${by} (${ci}), ${n}`;
}
