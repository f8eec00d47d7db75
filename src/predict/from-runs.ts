// Calibration from finished runs (`autobench calibrate`): a run directory's plan and rows read back, each measured
// candidate's speed factors fitted to its trials, and how far the simulated engine model's SLA capacity lands from the
// measured verdict before the fit, after it, and when predicted from the framework's other candidates (leave-one-out).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Candidate } from '../core/candidates/candidate';
import type { FrameworkKey } from '../core/frameworks/types';
import { readRunPlan } from '../core/plan/build';
import { PlanError, type RunPlan } from '../core/plan/types';
import { readRows, toResultRow, type ResultRow, type RowRecord } from '../core/results/rows';
import { simGpuFor } from '../sim/profiles';
import { featuresOf, fitFramework, predictFactors, type CalibrationPoint } from './calibration';
import { engineFor, predictOptions } from './engine';
import { fitCandidate, type CandidateFit } from './fit';
import { planGpu } from './plan';
import type { StoreKey } from './store';
import { UNIT_FACTORS, type Factors } from './types';
import { capacityMiss, capacityWith, median, observationsOf, standingsOf } from './measured';
import type { Standing } from './race';

/** A run directory as `autobench run --out` wrote it, read back. */
export interface RunDir {
  dir: string;
  plan: RunPlan;
  /** rows.jsonl as the report reads it (line-numbered), and the same rows as plain JSON. */
  records: RowRecord[];
  rows: ResultRow[];
  /** manifest.json (undefined when the directory has none: a hand-made or older run). */
  manifest: Record<string, unknown> | undefined;
}

export type ReadRunDir = { ok: true; run: RunDir } | { ok: false; problem: string };

const RUN_HINT = 'pass the folder `autobench run PLAN --out DIR` wrote (it holds plan.yaml and rows.jsonl)';

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Reads a run directory: plan.yaml (the plan as run), rows.jsonl, manifest.json when present. Never throws for a bad directory. */
export function readRunDir(dir: string): ReadRunDir {
  if (!existsSync(dir)) return { ok: false, problem: `${dir}: no such folder; ${RUN_HINT}` };
  if (!isDir(dir)) return { ok: false, problem: `${dir}: not a folder, so not a run directory; ${RUN_HINT}` };
  const planPath = join(dir, 'plan.yaml');
  const rowsPath = join(dir, 'rows.jsonl');
  if (!existsSync(planPath)) return { ok: false, problem: `${dir}: not a run directory (no plan.yaml); ${RUN_HINT}` };
  if (!existsSync(rowsPath)) return { ok: false, problem: `${dir}: no rows.jsonl: the run measured nothing yet; run or resume it (autobench run PLAN --out ${dir})` };
  let plan: RunPlan;
  try {
    plan = readRunPlan({ text: readFileSync(planPath, 'utf8'), path: planPath });
  } catch (e) {
    if (e instanceof PlanError) return { ok: false, problem: `${planPath}: not a readable plan: ${(e.problems[0] ?? e.message).trim()}` };
    throw e;
  }
  if (plan.problems.length) return { ok: false, problem: `${planPath}: not a readable plan: ${plan.problems[0] ?? ''}` };
  const read = readRows(readFileSync(rowsPath, 'utf8'), rowsPath);
  if (!read.ok) return { ok: false, problem: `${read.message}; fix or remove that line` };
  if (read.rows.length === 0) return { ok: false, problem: `${dir}: rows.jsonl is empty: the run measured nothing yet; run or resume it (autobench run PLAN --out ${dir})` };
  let manifest: Record<string, unknown> | undefined;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    manifest = undefined;
  }
  return { ok: true, run: { dir, plan, records: read.rows, rows: read.rows.map(toResultRow), manifest } };
}

const isMeasuredMode = (r: ResultRow): boolean => {
  const mode = (r.trial as { mode?: unknown } | undefined)?.mode;
  return mode === 'search' || mode === 'fixed';
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** Whether the rows came from the simulated engine (the manifest says so, else the rows). */
export function runSimulated(run: RunDir): boolean {
  if (typeof run.manifest?.simulated === 'boolean') return run.manifest.simulated;
  return run.rows.some((r) => (r as { simulated?: unknown }).simulated === true);
}

/** The GPU a run's calibration belongs to, as the runner keys it: the sim's GPU, else what the rows saw, else the plan's. */
export function runGpu(run: RunDir): string {
  const sim = str((run.manifest?.sim as { gpu?: unknown } | undefined)?.gpu);
  if (sim) return sim;
  const seen = run.rows.map((r) => str(r.hardware?.gpu_model)).find((g) => g !== undefined);
  if (seen) return seen.replace(/\s*\(simulated\)$/, '');
  return run.plan.hardware.gpuModel ?? 'unknown GPU';
}

/** The framework's version as the run recorded it (manifest, else the rows), `unknown` without one. */
export function runVersion(run: RunDir, fw: FrameworkKey): string {
  const fws = run.manifest?.frameworks as Record<string, { version?: { version?: unknown } }> | undefined;
  return str(fws?.[fw]?.version?.version) ?? run.rows.map((r) => (r.framework === fw ? str(r.framework_version) : undefined)).find((v) => v !== undefined) ?? 'unknown';
}

export function runStoreKey(run: RunDir, fw: FrameworkKey): StoreKey {
  return { gpu: runGpu(run), framework: fw, version: runVersion(run, fw), simulated: runSimulated(run) };
}

/** One scenario of one measured candidate: measured capacity and the model's predictions (req/s), with |error| = predicted / measured − 1. */
export interface ScenarioCheck {
  scenario: string;
  measured: number | null;
  before: number | null;
  after: number | null;
  /** Predicted from a model fitted on the framework's other measured candidates (null with only one). */
  leaveOneOut: number | null;
  errorBefore: number | null;
  errorAfter: number | null;
  errorLeaveOneOut: number | null;
}

export interface CandidateCalibration {
  framework: FrameworkKey;
  candidate: string;
  features: string[];
  /** Trials the fit used (passing ones; the lowest-rate ones when none passed). */
  observations: number;
  /** Trials it could have used (valid, not repeats). */
  trials: number;
  factors: Factors;
  fit: CandidateFit;
  scenarios: ScenarioCheck[];
}

export interface FrameworkCalibration {
  framework: FrameworkKey;
  key: StoreKey;
  candidates: CandidateCalibration[];
  /** Candidates with ok rows that could not be fitted, and why. */
  unfitted: Array<{ candidate: string; reason: string }>;
  /** Median |predicted / measured − 1| over the candidates × scenarios (null when nothing to compare). */
  medianBefore: number | null;
  medianAfter: number | null;
  medianLeaveOneOut: number | null;
  points: CalibrationPoint[];
}

export interface RunCalibration {
  dir: string;
  runId: string | undefined;
  simulated: boolean;
  gpu: string;
  /** The simulator GPU profile the predictions ran on. */
  modelGpu: string;
  frameworks: FrameworkCalibration[];
}

/** Signed relative error of a prediction against a measurement (null when either is missing or zero). */
export function relativeError(predicted: number | null, measured: number | null): number | null {
  if (predicted === null || measured === null || measured <= 0) return null;
  return predicted / measured - 1;
}

/** The plan's candidate a row stands for: by id, checked against the command it ran (a renumbered plan is matched by command). */
function candidateOf(plan: RunPlan, fw: FrameworkKey, id: string, command: string | undefined): Candidate | undefined {
  const cands = plan.frameworks.find((f) => f.framework === fw)?.candidates ?? [];
  const byId = cands.find((c) => c.id === id);
  if (!command || byId?.command === command) return byId;
  return cands.find((c) => c.command === command) ?? byId;
}

/**
 * Fits every measured candidate of a run (rows with status ok in search or fixed mode) and checks the simulated engine
 * model's SLA capacity against the measured verdict: uncalibrated, with the candidate's own factors, and from the
 * per-flag-value model of the framework's other candidates.
 */
export function calibrateRun(run: RunDir): RunCalibration {
  const { plan } = run;
  const gpu = runGpu(run);
  const modelGpu = simGpuFor(gpu) ?? planGpu(plan) ?? 'auto';
  const options = predictOptions(modelGpu);
  const capacity = (fw: FrameworkKey, cand: Candidate, scenario: string, factors: Factors, hint: number | undefined): number | null => capacityWith(plan, modelGpu, fw, cand, scenario, factors, hint);
  const measuredKeys = new Map<string, { fw: FrameworkKey; id: string; command: string | undefined }>();
  for (const r of run.rows) {
    if (r.status !== 'ok' || !isMeasuredMode(r) || r.candidate_id === undefined) continue;
    const id = String(r.candidate_id);
    measuredKeys.set(`${r.framework}\u0000${id}`, { fw: r.framework as FrameworkKey, id, command: r.server_command as string | undefined });
  }
  const frameworks: FrameworkCalibration[] = [];
  for (const fw of [...new Set([...measuredKeys.values()].map((m) => m.fw))]) {
    const candidates: CandidateCalibration[] = [];
    const unfitted: Array<{ candidate: string; reason: string }> = [];
    const standings = new Map<string, Map<string, Standing>>();
    const cands = new Map<string, Candidate>();
    for (const m of [...measuredKeys.values()].filter((x) => x.fw === fw)) {
      const cand = candidateOf(plan, fw, m.id, m.command);
      if (!cand) {
        unfitted.push({ candidate: m.id, reason: 'not a candidate of plan.yaml (was the plan edited after the run?)' });
        continue;
      }
      const idx = run.rows.map((r, i) => (r.framework === fw && String(r.candidate_id) === m.id ? i : -1)).filter((i) => i >= 0);
      const rows = idx.map((i) => run.rows[i] as ResultRow);
      const plain = engineFor(fw, cand, options);
      if (!plain.ok) {
        unfitted.push({ candidate: m.id, reason: `the engine model would not start it on ${modelGpu}: ${plain.reason}` });
        continue;
      }
      const obs = observationsOf(plan, rows);
      const fit = fitCandidate(plain.config, obs);
      if (!fit) {
        unfitted.push({ candidate: m.id, reason: 'no trial with valid p50 TTFT and TPOT to fit' });
        continue;
      }
      standings.set(m.id, standingsOf(plan, rows));
      cands.set(m.id, cand);
      candidates.push({ framework: fw, candidate: cand.id, features: featuresOf(cand), observations: fit.observations, trials: obs.length, factors: fit.factors, fit, scenarios: [] });
    }
    const points: CalibrationPoint[] = candidates.map((c) => ({ candidate: c.candidate, features: c.features, factors: c.factors }));
    for (const c of candidates) {
      const cand = cands.get(c.candidate) as Candidate;
      const st = standings.get(c.candidate) as Map<string, Standing>;
      const others = points.filter((p) => p.candidate !== c.candidate);
      const loo = others.length ? predictFactors(fitFramework(others), c.features).factors : undefined;
      c.scenarios = plan.scenarios.map((sc) => {
        const m = st.get(sc.name)?.lo ?? null;
        const before = capacity(fw, cand, sc.name, UNIT_FACTORS, m ?? undefined);
        const after = capacity(fw, cand, sc.name, c.factors, m ?? undefined);
        const leaveOneOut = loo ? capacity(fw, cand, sc.name, loo, m ?? undefined) : null;
        return { scenario: sc.name, measured: m, before, after, leaveOneOut, errorBefore: relativeError(before, m), errorAfter: relativeError(after, m), errorLeaveOneOut: relativeError(leaveOneOut, m) };
      });
      // How far its own fitted model still misses its measured capacity: the error of a later exact prediction of it.
      const point = points.find((p) => p.candidate === c.candidate) as CalibrationPoint;
      point.capacityError = Math.max(0, ...c.scenarios.map((s) => (s.after !== null && st.has(s.scenario) ? capacityMiss(s.after, st.get(s.scenario) as Standing) : 0)));
    }
    const abs = (k: 'errorBefore' | 'errorAfter' | 'errorLeaveOneOut'): number | null =>
      median(candidates.flatMap((c) => c.scenarios.map((s) => s[k])).filter((x): x is number => x !== null).map(Math.abs));
    frameworks.push({ framework: fw, key: runStoreKey(run, fw), candidates, unfitted, medianBefore: abs('errorBefore'), medianAfter: abs('errorAfter'), medianLeaveOneOut: abs('errorLeaveOneOut'), points });
  }
  const runId = str(run.manifest?.run_id);
  return { dir: run.dir, runId, simulated: runSimulated(run), gpu, modelGpu, frameworks };
}
