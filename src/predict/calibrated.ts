// Predictions calibrated from the workspace's store: per framework the store entry for the plan's GPU (any version:
// the most points, a GPU's own measurements before the simulator's), its per-flag-value model, and a line saying so.
import type { Candidate } from '../core/candidates/candidate';
import type { FrameworkKey } from '../core/frameworks/types';
import type { RunPlan } from '../core/plan/types';
import { simGpuFor } from '../sim/profiles';
import { featuresOf, fitFramework, predictFactors, type FrameworkModel } from './calibration';
import { planGpu, type PredictPlanOptions } from './plan';
import { PRIOR_REL_ERROR } from './prior';
import type { CalibrationStore, StoreEntry } from './store';

/** Which store entry calibrated one framework's predictions (null fields when none did). */
export interface FrameworkCalibrationSource {
  framework: FrameworkKey;
  calibrated: boolean;
  /** The store file (as given on the command line or the default path). */
  store: string | null;
  gpu: string | null;
  version: string | null;
  simulated: boolean | null;
  /** Measured candidates in the entry. */
  candidates: number;
  /** `vllm: calibrated by FILE (vllm 0.20.1 on H100, simulated runs, 3 candidates)` or `vllm: uncalibrated ...`. */
  text: string;
}

/** A store as a prediction carries it (to a worker thread: plain data). */
export interface CalibrationInput {
  /** How the store is named in the output. */
  label: string;
  store: CalibrationStore;
}

/** The entry that calibrates `fw` on `gpu`: same simulator GPU, non-simulated before simulated, then the most points, then the newest. */
export function entryFor(store: CalibrationStore, fw: FrameworkKey, gpu: string | undefined): StoreEntry | undefined {
  if (!gpu || gpu === 'auto') return undefined;
  const matches = store.entries.filter((e) => e.framework === fw && e.points.length > 0 && (e.gpu === gpu || simGpuFor(e.gpu) === gpu));
  return matches.sort((a, b) => Number(a.simulated) - Number(b.simulated) || b.points.length - a.points.length || b.updated_at.localeCompare(a.updated_at))[0];
}

export function sourceText(fw: FrameworkKey, label: string, e: StoreEntry | undefined): string {
  if (!e) return `${fw}: uncalibrated (no entry in ${label} for this GPU; relative error ~${Math.round(PRIOR_REL_ERROR * 100)}%)`;
  const n = e.points.length;
  return `${fw}: calibrated by ${label} (${fw} ${e.version} on ${e.gpu}, ${e.simulated ? 'simulated runs' : 'GPU runs'}, ${n} candidate${n === 1 ? '' : 's'})`;
}

/** `calibrationFor` for predictPlan from a store, and per framework of the plan which entry (if any) it uses. */
export function calibrationFromStore(plan: RunPlan, input: CalibrationInput): { options: Pick<PredictPlanOptions, 'calibrationFor'>; sources: FrameworkCalibrationSource[] } {
  const gpu = planGpu(plan);
  const models = new Map<FrameworkKey, FrameworkModel>();
  const sources: FrameworkCalibrationSource[] = [];
  for (const f of plan.frameworks) {
    if (f.status !== 'run') continue;
    const e = entryFor(input.store, f.framework, gpu);
    if (e) models.set(f.framework, fitFramework(e.points));
    sources.push({ framework: f.framework, calibrated: e !== undefined, store: input.label, gpu: e?.gpu ?? null, version: e?.version ?? null, simulated: e?.simulated ?? null, candidates: e?.points.length ?? 0, text: sourceText(f.framework, input.label, e) });
  }
  if (models.size === 0) return { options: {}, sources };
  const calibrationFor = (fw: FrameworkKey, cand: Candidate) => {
    const m = models.get(fw);
    return m ? predictFactors(m, featuresOf(cand)) : undefined;
  };
  return { options: { calibrationFor }, sources };
}
