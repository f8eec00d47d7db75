// The calibration: per framework, log speed factors as an intercept plus one term per flag value (ridge regression over the candidates measured), so a measurement of one candidate moves the prediction of every candidate that shares its flag values.
import type { Candidate } from '../core/candidates/candidate';
import { pyStr } from '../core/py/value';
import { PRIOR_REL_ERROR } from './prior';
import type { Factors } from './types';

/** Ridge penalty on flag-value terms, (noise sd / prior sd)^2: per-candidate fits carry ~4% noise, flag values differ by ~15% (sd of log). */
const RIDGE = 0.08;
/** Prior sd of one flag value's log factor (a ±25% spread). */
export const FLAG_SD = 0.144;
/** No prediction is trusted to better than this (the measurements' own noise). */
export const MIN_REL_ERROR = 0.05;
/**
 * How far one launch's SLA capacity varies from another's of the same command (sd, relative): 6-11% measured with
 * 3% launch noise (bench/verdicts.ts; the knee amplifies it). A capacity measured in an earlier run predicts this
 * run's no closer.
 */
export const LAUNCH_REL_ERROR = 0.1;

/** One measured candidate: its flag values and the factors its fit found. */
export interface CalibrationPoint {
  candidate: string;
  features: string[];
  factors: Factors;
  /**
   * How far the model with these factors still missed this candidate's measured SLA capacity (the largest log miss
   * over its scenarios, 0 inside the measured interval): two speed factors fitted to latencies need not reproduce
   * every scenario's knee, so a later prediction of the same command is trusted no closer than this.
   */
  capacityError?: number;
}

/** The fitted model of one framework: intercept and per-flag-value terms (log factors). */
export interface FrameworkModel {
  intercept: Factors;
  terms: Record<string, Factors>;
  /** Rms of the candidates' fitted log factors around the model (0 with one point). */
  residual: number;
  points: CalibrationPoint[];
}

/** `key=value` for each flag the candidate's command carries. */
export function featuresOf(cand: Candidate): string[] {
  const out: string[] = [];
  for (const [k, v] of cand.flags) if (v !== null && v !== false) out.push(`${k}=${pyStr(v)}`);
  return out.sort();
}

/** Solves (A + λ·D) x = b by Gaussian elimination with partial pivoting (D: 1 on the terms, tiny on the intercept). */
function solveRidge(rows: number[][], ys: number[], n: number): number[] {
  const A = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const b = new Array<number>(n).fill(0);
  rows.forEach((x, r) => {
    for (let i = 0; i < n; i++) {
      b[i]! += (x[i] as number) * (ys[r] as number);
      for (let j = 0; j < n; j++) A[i]![j]! += (x[i] as number) * (x[j] as number);
    }
  });
  for (let i = 0; i < n; i++) A[i]![i]! += i === 0 ? 1e-6 : RIDGE;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[p]![c]!)) p = r;
    [A[c], A[p]] = [A[p]!, A[c]!];
    [b[c], b[p]] = [b[p]!, b[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = A[r]![c]! / A[c]![c]!;
      for (let k = c; k < n; k++) A[r]![k]! -= f * A[c]![k]!;
      b[r]! -= f * b[c]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let k = i + 1; k < n; k++) s -= A[i]![k]! * x[k]!;
    x[i] = s / A[i]![i]!;
  }
  return x;
}

/** Fits one framework's model to its measured candidates. */
export function fitFramework(points: readonly CalibrationPoint[]): FrameworkModel {
  const names = [...new Set(points.flatMap((p) => p.features))].sort();
  const index = new Map(names.map((f, i) => [f, i + 1]));
  const rows = points.map((p) => {
    const x = new Array<number>(names.length + 1).fill(0);
    x[0] = 1;
    for (const f of p.features) x[index.get(f) as number] = 1;
    return x;
  });
  const solveFor = (k: keyof Factors) => solveRidge(rows, points.map((p) => Math.log(p.factors[k])), names.length + 1);
  const xp = solveFor('prefill');
  const xd = solveFor('decode');
  const terms: Record<string, Factors> = {};
  names.forEach((f, i) => (terms[f] = { prefill: Math.exp(xp[i + 1] as number), decode: Math.exp(xd[i + 1] as number) }));
  const model: FrameworkModel = { intercept: { prefill: Math.exp(xp[0] as number), decode: Math.exp(xd[0] as number) }, terms, residual: 0, points: [...points] };
  const sq = points.flatMap((p) => {
    const m = modelFactors(model, p.features);
    return [Math.log(p.factors.prefill / m.prefill) ** 2, Math.log(p.factors.decode / m.decode) ** 2];
  });
  model.residual = points.length > 1 ? Math.sqrt(sq.reduce((a, b) => a + b, 0) / sq.length) : 0;
  return model;
}

function modelFactors(m: FrameworkModel, features: readonly string[]): Factors {
  let lp = Math.log(m.intercept.prefill);
  let ld = Math.log(m.intercept.decode);
  for (const f of features) {
    const t = m.terms[f];
    if (t) {
      lp += Math.log(t.prefill);
      ld += Math.log(t.decode);
    }
  }
  return { prefill: Math.exp(lp), decode: Math.exp(ld) };
}

/** A candidate's calibrated factors and their relative error: the model's residual plus the prior of each flag value it never saw. */
export function predictFactors(m: FrameworkModel | undefined, features: readonly string[]): { factors: Factors; relError: number } {
  if (!m || m.points.length === 0) return { factors: { prefill: 1, decode: 1 }, relError: PRIOR_REL_ERROR };
  const exact = m.points.find((p) => p.features.length === features.length && p.features.every((f, i) => f === features[i]));
  if (exact) return { factors: exact.factors, relError: Math.hypot(LAUNCH_REL_ERROR, exact.capacityError ?? 0) };
  const unseen = features.filter((f) => !(f in m.terms)).length;
  // Seen values that only one measured candidate carries are barely separated from the intercept: count them half.
  const weak = features.filter((f) => f in m.terms && m.points.filter((p) => p.features.includes(f)).length < 2).length;
  const relError = Math.sqrt(MIN_REL_ERROR ** 2 + m.residual ** 2 + (unseen + weak / 2) * FLAG_SD ** 2);
  return { factors: modelFactors(m, features), relError: Math.min(PRIOR_REL_ERROR, relError) };
}
