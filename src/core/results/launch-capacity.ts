// Each launch's own SLA capacity estimate (req/s) for a candidate in a scenario, from the points that launch measured:
// the search launch's latency-vs-rate curve read where the binding SLA limit is just met, and a repeat launch's point
// read against that curve's shape. The samples the verdict tests (decide.ts) are these, one per launch.
import type { PyJson, PyObject } from '../py/json';
import { pyFloat, pyGet } from '../py/ops';
import { slaTarget } from '../sla/limits';
import type { SlaVerdict } from './sla';

/**
 * The relative step a repeat's local search walks by (runner/local-search.ts): a launch whose walk never flipped is read
 * at most one such step beyond the rates it measured.
 */
export const KNEE_STEP = 0.06;

/** One measured point of a launch: its offered rate and its headroom against the SLA (≤ 1 meets it). */
export interface CurvePoint {
  rate: number;
  /** max over the SLA's limits of value/limit (a rate floor: limit/value); Infinity for a trial that failed outright. */
  headroom: number;
}

export interface LaunchCapacity {
  /** 'search', or 'repeat N'. */
  launch: string;
  capacity: number;
  /** How the estimate was read: between a pass and a fail on the curve, at the curve's last pass (nothing failed above it), or off its shape. */
  how: 'interpolated' | 'last-pass' | 'shifted' | 'below-curve';
  points: number;
}

/** A row's headroom: the largest measured share of an SLA limit; a row that failed without a latency reading counts as a fail of unknown size. */
export function headroomOf(verdict: SlaVerdict): number {
  let h = 0;
  for (const c of verdict.checks) {
    if (c.value === undefined) continue;
    // A floor (a success rate) is met from above, a ceiling (a latency) from below.
    const floor = slaTarget(c.key).kind === 'min-rate';
    const r = floor ? (c.value > 0 ? c.limit / c.value : Infinity) : c.value / c.limit;
    // A met floor says nothing about how close the knee is (a 99% floor met by 100% would read 0.99 at every
    // passing rate and flatten the curve the capacity is read from): it counts only once it fails.
    if (floor && r <= 1) continue;
    if (Number.isFinite(r) || r === Infinity) h = Math.max(h, r);
  }
  if (!verdict.passed && h <= 1) return Infinity;
  return verdict.passed ? Math.min(h, 1) : h;
}

const ln = (x: number): number => Math.log(Math.max(x, 1e-9));

/** Where a log-linear segment through (r1, h1) and (r2, h2) reaches headroom `target`. */
function crossing(r1: number, h1: number, r2: number, h2: number, target: number): number {
  if (!Number.isFinite(h2) || !Number.isFinite(h1) || h1 === h2) return (r1 + r2) / 2;
  return r1 + ((r2 - r1) * (ln(target) - ln(h1))) / (ln(h2) - ln(h1));
}

/** The search launch's capacity: where its curve crosses headroom 1 between its best pass and the lowest fail above it. */
export function searchCapacity(points: readonly CurvePoint[]): Omit<LaunchCapacity, 'launch'> | undefined {
  const pass = points.filter((p) => p.headroom <= 1).sort((a, b) => b.rate - a.rate)[0];
  if (!pass) return undefined;
  const fail = points.filter((p) => p.headroom > 1 && p.rate > pass.rate).sort((a, b) => a.rate - b.rate)[0];
  if (!fail) return { capacity: pass.rate, how: 'last-pass', points: points.length };
  const c = crossing(pass.rate, Math.max(pass.headroom, 1e-6), fail.rate, fail.headroom, 1);
  return { capacity: Math.min(Math.max(c, pass.rate), fail.rate), how: 'interpolated', points: points.length };
}

/** The curve's headroom at `rate`, log-linear between its points (the end segments extended). */
function curveAt(curve: readonly CurvePoint[], rate: number): number | undefined {
  const pts = curve.filter((p) => Number.isFinite(p.headroom) && p.headroom > 0).sort((a, b) => a.rate - b.rate);
  if (pts.length === 0) return undefined;
  if (pts.length === 1) return (pts[0] as CurvePoint).headroom;
  let i = pts.findIndex((p) => p.rate >= rate);
  if (i <= 0) i = i === 0 ? 1 : pts.length - 1;
  const a = pts[i - 1] as CurvePoint;
  const b = pts[i] as CurvePoint;
  if (a.rate === b.rate) return a.headroom;
  return Math.exp(ln(a.headroom) + ((ln(b.headroom) - ln(a.headroom)) * (rate - a.rate)) / (b.rate - a.rate));
}

/**
 * A repeat launch's capacity from its point at `rate`: the launch is q = headroom / curve(rate) times slower than the
 * search launch there, so its capacity is where the search curve reaches headroom 1/q. A repeat that failed outright
 * (no latency to compare) is below the curve: its capacity is not read, and the caller counts the launch as failed.
 */
export function repeatCapacity(curve: readonly CurvePoint[], point: CurvePoint): Omit<LaunchCapacity, 'launch'> | undefined {
  if (!Number.isFinite(point.headroom)) return undefined;
  const at = curveAt(curve, point.rate);
  if (at === undefined || !(at > 0)) return point.headroom <= 1 ? { capacity: point.rate, how: 'below-curve', points: 1 } : undefined;
  const target = at / Math.max(point.headroom, 1e-6);
  const pts = curve.filter((p) => Number.isFinite(p.headroom) && p.headroom > 0).sort((a, b) => a.rate - b.rate);
  const shifted = pts.map((p) => ({ rate: p.rate, headroom: p.headroom / target }));
  const est = searchCapacity(shifted);
  if (est && est.how === 'interpolated') return { capacity: est.capacity, how: 'shifted', points: 1 };
  // Off the curve's measured span: extend its nearest segment.
  if (pts.length >= 2) {
    const [a, b] = shifted[0] && shifted[0].headroom > 1 ? [shifted[0], shifted[1]] : [shifted[shifted.length - 2], shifted[shifted.length - 1]];
    if (a && b) return { capacity: Math.max(crossing(a.rate, a.headroom, b.rate, b.headroom, 1), 0), how: 'shifted', points: 1 };
  }
  return { capacity: point.rate, how: 'below-curve', points: 1 };
}

/**
 * A repeat that measured but missed the SLA with no latency over its limits (saturated, short outputs): slower than
 * the rate it ran, by an unknown amount; read as halfway down to the search curve's next passing rate below it.
 */
function missedWithoutReading(curve: readonly CurvePoint[], point: CurvePoint, measured: boolean): Omit<LaunchCapacity, 'launch'> | undefined {
  if (!measured) return undefined;
  const below = curve.filter((p) => p.headroom <= 1 && p.rate < point.rate).sort((a, b) => b.rate - a.rate)[0];
  return { capacity: ((below?.rate ?? point.rate / 2) + point.rate) / 2, how: 'below-curve', points: 1 };
}

/**
 * A reading off the search's curve, held to what the launch itself measured: at least its best pass, below its lowest
 * fail above that, and at most one walk step beyond its measured span (extending the search's curve far past a launch's
 * own points made outliers: 85 req/s read for a launch that passed at 45, on the simulator).
 */
function withinOwnPoints(capacity: number, pts: readonly CurvePoint[]): number {
  const passes = pts.filter((p) => p.headroom <= 1).map((p) => p.rate);
  const fails = pts.filter((p) => p.headroom > 1).map((p) => p.rate);
  const lo = passes.length ? Math.max(...passes) : Math.min(...fails) * (1 - KNEE_STEP);
  const above = fails.filter((f) => f > lo);
  const hi = above.length ? Math.min(...above) : Math.max(...passes) * (1 + KNEE_STEP);
  return Number.isFinite(lo) && Number.isFinite(hi) && lo <= hi ? Math.min(Math.max(capacity, lo), hi) : capacity;
}

function num(v: PyJson | undefined): number | undefined {
  const n = v === undefined || v === null || typeof v === 'boolean' ? undefined : pyFloat(v);
  return n === undefined || Number.isNaN(n) ? undefined : n;
}

/** The rows of one candidate in one scenario, as the verdict reads them. */
export interface LaunchRow {
  row: PyObject;
  verdict: SlaVerdict;
}

/** Which launch a row came from: the search's server, or a repeat's fresh one. */
export function launchOf(row: PyObject): string | undefined {
  const mode = pyGet(row, 'trial.mode');
  if (mode === 'search') return 'search';
  if (mode === 'repeat') return `repeat ${String(num(pyGet(row, 'trial.round')) ?? '?')}`;
  return undefined;
}

/** Per launch, its capacity estimate; launches whose estimate cannot be read (a repeat that failed outright) are in `failed`. */
export function launchCapacities(rows: readonly LaunchRow[]): { launches: LaunchCapacity[]; failed: string[] } {
  const byLaunch = new Map<string, CurvePoint[]>();
  // Whether each launch measured at all (status ok): a launch that only errored says nothing about capacity.
  const ok = new Map<string, boolean>();
  for (const r of rows) {
    const launch = launchOf(r.row);
    const rate = num(pyGet(r.row, 'trial.rate'));
    if (!launch || rate === undefined || !Number.isFinite(rate)) continue;
    ok.set(launch, (ok.get(launch) ?? false) || pyGet(r.row, 'status') === 'ok');
    byLaunch.set(launch, [...(byLaunch.get(launch) ?? []), { rate, headroom: headroomOf(r.verdict) }]);
  }
  const curve = byLaunch.get('search') ?? [];
  const launches: LaunchCapacity[] = [];
  const failed: string[] = [];
  const search = searchCapacity(curve);
  if (search) launches.push({ launch: 'search', ...search });
  for (const [launch, pts] of byLaunch) {
    if (launch === 'search') continue;
    // A repeat that searched around the knee (runner/local-search.ts) brackets its own capacity: read it there.
    const own = searchCapacity(pts);
    if (own && own.how === 'interpolated') {
      launches.push({ launch, ...own });
      continue;
    }
    // Else (one point, or no flip found): the point nearest the limit, read against the search's curve.
    const point = [...pts].sort((a, b) => Math.abs(ln(a.headroom)) - Math.abs(ln(b.headroom)))[0] as CurvePoint;
    const est = search ? (repeatCapacity(curve, point) ?? missedWithoutReading(curve, point, ok.get(launch) ?? false)) : undefined;
    if (est) launches.push({ launch, ...est, capacity: withinOwnPoints(est.capacity, pts) });
    else failed.push(launch);
  }
  return { launches, failed };
}
