// Public surface of the runner, for the CLI and the editor: runPlan with typed progress events and an AbortSignal.
export { runPlan, loadPlan, RunDirInUseError, type LoadedPlan } from './run';
export { PlanError } from './types';
export type { CandidateRef, FrameworkOutcome, RunEvent, RunHooks, RunOptions, RunResult, RunStatus, RunSummaryFiles, Tier, TrialRef } from './types';
export type { PlannedCandidate, PlannedFramework, RunPlan } from './plan';
export { buildRunReport } from './summary';
export { captureHelpSnapshots, type CaptureOptions, type CapturedHelp } from './snapshots';
export { DEFAULT_SIM_SPEED, findSimBin } from './target';
