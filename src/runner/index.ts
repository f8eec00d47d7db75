// Public surface of the runner, for the CLI and the editor: runPlan with typed progress events and an AbortSignal.
export { runPlan, planOf, RunDirInUseError } from './run';
export { readRunPlan, type PlanSource, type ReadPlanOptions } from '../core/plan/build';
export { PlanError } from './types';
export type { CandidateRef, FrameworkOutcome, RunEvent, RunHooks, RunOptions, RunResult, RunStatus, RunSummaryFiles, Tier, TrialRef } from './types';
export type { PlanFramework, RunPlan } from '../core/plan/types';
export type { Candidate } from '../core/candidates/candidate';
export { type ReportHtmlRenderer } from './summary';
export { buildRunReport } from './summary';
export { captureHelpSnapshots, type CaptureOptions, type CapturedHelp } from './snapshots';
export { DEFAULT_SIM_SPEED, findSimBin } from './target';
export { processEnvSecrets, sshConfigHosts, type HostKeyPrompt, type SecretSource, type SshConfigHostsOptions } from './hosts';
