// The highest request rate a candidate is predicted to hold under the SLA: double or halve from a hint until the verdict flips, then bisect geometrically.
import type { Scenario } from '../core/config/model';
import type { SlaReading } from '../core/sla/limits';
import type { ResolvedSim } from '../sim/config';
import { predictPoint } from './point';
import type { PredictedPoint, ScenarioPrediction } from './types';

/** The bracket is closed when the failing rate is within this ratio of the passing one. */
export const CAPACITY_PRECISION = 1.05;
const MAX_STEPS = 12;
const MIN_RATE = 1e-3;

export interface CapacityQuery {
  scenario: Scenario;
  concurrency: number | null;
  sla: SlaReading;
  /** Where to start (a neighbour's capacity, a measured rate); 4 req/s without one. */
  hint?: number;
  /** Close the bracket at this ratio (default CAPACITY_PRECISION). */
  precision?: number;
}

function tidy(rate: number): number {
  return Number(rate.toPrecision(4));
}

/** The predicted capacity and every point simulated on the way (the curve). */
export function predictCapacity(config: ResolvedSim, q: CapacityQuery): ScenarioPrediction {
  return predictCapacityBy((rate) => predictPoint(config, { scenario: q.scenario, rate, concurrency: q.concurrency }, q.sla), q);
}

/** The same search over any way of predicting a point (a P/D unit's composes its roles': unit.ts). */
export function predictCapacityBy(point: (rate: number) => PredictedPoint, q: CapacityQuery): ScenarioPrediction {
  const seen = new Map<number, PredictedPoint>();
  const at = (rate: number): PredictedPoint => {
    const r = tidy(rate);
    let p = seen.get(r);
    if (!p) seen.set(r, (p = point(r)));
    return p;
  };
  let lo: number | undefined;
  let hi: number | undefined;
  const hinted = q.hint !== undefined && q.hint > MIN_RATE;
  let rate = hinted ? (q.hint as number) : 4;
  // From a hint (a neighbour, the last prediction) small steps first, squared each time the verdict does not flip.
  let step = hinted ? 1.1 : 2;
  for (let i = 0; i < MAX_STEPS && (lo === undefined || hi === undefined); i++) {
    if (at(rate).passed) {
      lo = rate;
      if (hi === undefined) rate *= step;
    } else {
      hi = rate;
      if (lo === undefined) rate /= step;
      if (rate < MIN_RATE) break;
    }
    step = Math.min(step * step, 16);
  }
  const precision = q.precision ?? CAPACITY_PRECISION;
  while (lo !== undefined && hi !== undefined && hi / lo > precision) {
    const mid = Math.sqrt(lo * hi);
    if (at(mid).passed) lo = mid;
    else hi = mid;
  }
  const curve = [...seen.values()].sort((a, b) => a.rate - b.rate);
  const capacity = lo === undefined ? 0 : tidy(lo);
  return { scenario: q.scenario.name, concurrency: q.concurrency, capacity, curve, atCapacity: lo === undefined ? undefined : seen.get(capacity) };
}
