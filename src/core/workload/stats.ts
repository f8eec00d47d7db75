// Summary statistics as numpy computes them (linear-interpolation percentiles, population std), so our numbers line up with SGLang's and vLLM's.

/** numpy.percentile's default: h = (n-1)p/100, interpolate between the neighbours. `sorted` must be ascending. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (n === 1) return sorted[0] as number;
  const h = ((n - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (h - lo) * (b - a);
}

export interface Summary {
  count: number;
  mean: number;
  median: number;
  std: number;
  p90: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

/** Summary of a sample; null for an empty one (a 0 would read as "instant" to an SLA check). */
export function summarize(values: ArrayLike<number>): Summary | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i] as number;
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const d = (sorted[i] as number) - mean;
    sq += d * d;
  }
  return {
    count: n,
    mean,
    median: percentileSorted(sorted, 50),
    std: Math.sqrt(sq / n),
    p90: percentileSorted(sorted, 90),
    p95: percentileSorted(sorted, 95),
    p99: percentileSorted(sorted, 99),
    min: sorted[0] as number,
    max: sorted[n - 1] as number,
  };
}

export interface LengthDistribution {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

export function lengthDistribution(values: readonly number[]): LengthDistribution | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sum / sorted.length,
    p50: percentileSorted(sorted, 50),
    p95: percentileSorted(sorted, 95),
    max: sorted[sorted.length - 1] as number,
  };
}
