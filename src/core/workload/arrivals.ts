// Arrival schedule: absolute due times (ms from the start) for every request, computed before the run so lag cannot accumulate.
import { Rng } from './rng';

export interface ArrivalOptions {
  /** Requests per second; Infinity sends everything at once (the concurrency cap then paces). */
  requestRate: number;
  /** Gamma shape: 1 is Poisson, < 1 burstier, > 1 more even, Infinity evenly spaced. */
  burstiness: number;
  seed: number;
}

/**
 * The first request is due at 0; the gaps are Gamma(shape = burstiness, scale = 1 / (rate x burstiness)),
 * so the mean gap is 1/rate whatever the burstiness. Rows with their own arrival times (trace replay) keep them.
 */
export function arrivalSchedule(n: number, o: ArrivalOptions, own?: readonly (number | undefined)[]): Float64Array {
  const out = new Float64Array(n);
  if (own && own.some((t) => t !== undefined)) {
    for (let i = 0; i < n; i++) out[i] = own[i] ?? (i > 0 ? (out[i - 1] as number) : 0);
    return out;
  }
  if (!Number.isFinite(o.requestRate)) return out;
  if (!(o.requestRate > 0)) throw new Error(`request rate must be > 0 or inf, got ${o.requestRate}`);
  if (!(o.burstiness > 0)) throw new Error(`burstiness must be > 0, got ${o.burstiness}`);
  const rng = new Rng(o.seed);
  const meanGapMs = 1000 / o.requestRate;
  let t = 0;
  for (let i = 1; i < n; i++) {
    const gap = Number.isFinite(o.burstiness) ? rng.gamma(o.burstiness, meanGapMs / o.burstiness) : meanGapMs;
    t += gap;
    out[i] = t;
  }
  return out;
}
