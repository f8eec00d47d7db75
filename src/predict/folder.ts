// One config file predicted as `autobench predict` reads it: the file read as a plan, its GPU optionally overridden, every candidate predicted; a file that is not a runnable plan comes back with its problems.
import { readFileSync } from 'node:fs';
import type { Scenario } from '../core/config/model';
import { readRunPlan } from '../core/plan/build';
import { PlanError, type RunPlan } from '../core/plan/types';
import type { EfficiencyTerm } from '../sim/efficiency';
import { GPUS, gpuProfile } from '../sim/profiles';
import { predictAt, type AtPrediction, type AtSpec } from './at';
import { calibrationFromStore, type CalibrationInput, type FrameworkCalibrationSource } from './calibrated';
import { PRIOR_REL_ERROR } from './prior';
import { concurrencyOf, predictPlan } from './plan';
import type { PlanPrediction } from './types';

/** A file's prediction as `autobench predict` prints it: the PlanPrediction and, per framework, which calibration store entry (if any) calibrated it. */
export type PredictedPlan = PlanPrediction & { calibration: FrameworkCalibrationSource[] };

/** What the table shows beside the prediction (not part of the PlanPrediction the JSON carries). */
export interface PlanFacts {
  scenarios: Scenario[];
  /** The SLA limits the prediction judged with (plan's keys, defaults applied). */
  sla: Record<string, number>;
  concurrency: number | null;
  /** Frameworks of the plan that were not predicted: `tensorrt_llm: skipped: unsupported ...`. */
  notPredicted: string[];
  /** The GPU came from --gpu rather than the plan. */
  gpuOverridden: boolean;
}

/** A file's points at one operating point (`predict --at`), with the calibration each framework used. */
export type PredictedAt = AtPrediction & { calibration: FrameworkCalibrationSource[] };

export type FileOutcome = { ok: true; file: string; prediction: PredictedPlan; facts: PlanFacts } | { ok: true; file: string; at: PredictedAt; facts: PlanFacts } | { ok: false; file: string; problems: string[] };

export interface PredictFileOptions {
  /** A simulator GPU profile name (`resolveGpuName`) or `auto`: replaces the plan's hardware.gpu_model. */
  gpu?: string;
  /** A calibration store (loaded by the caller): each framework's entry for the plan's GPU calibrates its candidates. */
  calibration?: CalibrationInput;
  /** `--sim-efficiency`'s terms: the matching candidates' engines run this much faster (a known ground truth, never a real prediction). */
  efficiency?: EfficiencyTerm[];
  /** Predict at this operating point (means and medians per candidate × scenario) instead of searching SLA capacity. */
  at?: AtSpec;
}

/** The simulator GPU profile names `--gpu` accepts (plus `auto`). */
export function gpuNames(): string[] {
  return GPUS.map((g) => g.name);
}

/** A user's GPU name as the simulator's profile name (`h200` -> `H200`, `a100` -> `A100-80GB`, `auto`); undefined when the sim has no such GPU. */
export function resolveGpuName(name: string): string | undefined {
  if (name.trim().toLowerCase() === 'auto') return 'auto';
  return gpuProfile(name.trim())?.name;
}

/** The plan with its GPU replaced (`auto`: none named, the simulator picks the smallest that fits per candidate). */
export function withGpu(plan: RunPlan, gpu: string): RunPlan {
  const hardware = { ...plan.hardware };
  if (gpu === 'auto') delete hardware.gpuModel;
  else hardware.gpuModel = gpu;
  return { ...plan, hardware };
}

function factsOf(plan: RunPlan, gpuOverridden: boolean): PlanFacts {
  const sla: Record<string, number> = {};
  for (const [k, v] of Object.entries(plan.sla.limits)) if (typeof v === 'number') sla[k] = v;
  const notPredicted = plan.frameworks.filter((f) => f.status !== 'run').map((f) => `${f.framework}: ${f.status === 'user_excluded' ? 'user-excluded' : 'skipped'}${f.reason ? `: ${f.reason}` : ''}`);
  return { scenarios: plan.scenarios, sla, concurrency: concurrencyOf(plan), notPredicted, gpuOverridden };
}

/** Reads `file` as a plan (a cookbook config is one too) and predicts it; never throws for a bad file, only for a bug. */
export function predictFile(file: string, o: PredictFileOptions = {}): FileOutcome {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, file, problems: [`cannot read: ${code ?? (e as Error).message}`] };
  }
  let plan: RunPlan;
  try {
    plan = readRunPlan({ text, path: file });
  } catch (e) {
    if (e instanceof PlanError) return { ok: false, file, problems: e.problems.length ? e.problems : [e.message] };
    throw e;
  }
  if (plan.problems.length) return { ok: false, file, problems: [...new Set(plan.problems)] };
  if (o.gpu !== undefined) plan = withGpu(plan, o.gpu);
  const cal = o.calibration ? calibrationFromStore(plan, o.calibration) : undefined;
  const calibration = cal?.sources ?? uncalibrated(plan);
  const options = { ...cal?.options, ...(o.efficiency ? { sim: { efficiency: o.efficiency } } : {}) };
  const facts = factsOf(plan, o.gpu !== undefined);
  if (o.at) return { ok: true, file, at: { ...predictAt(plan, o.at, options), calibration }, facts };
  return { ok: true, file, prediction: { ...predictPlan(plan, options), calibration }, facts };
}

/** Every framework of the plan without a store. */
function uncalibrated(plan: RunPlan): FrameworkCalibrationSource[] {
  return plan.frameworks
    .filter((f) => f.status === 'run')
    .map((f) => ({ framework: f.framework, calibrated: false, store: null, gpu: null, version: null, simulated: null, candidates: 0, text: `${f.framework}: uncalibrated (no calibration store; relative error ~${Math.round(PRIOR_REL_ERROR * 100)}%)` }));
}
