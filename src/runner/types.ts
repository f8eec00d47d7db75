// The runner's public shapes: what runPlan takes, the typed progress events it emits, and what it returns.
import type { ParsedYaml } from '../core/config/yaml-doc';
import type { RunPlan, SearchStrategyName, Tier } from '../core/plan/types';
import type { ReportModel } from '../core/results/report-model';
import type { ResultRow, RowStatus } from '../core/results/rows';
import type { FrameworkKey } from '../core/frameworks/types';
import type { ContainerTargetOptions, HostKeyPrompt, SecretSource, SshExecutorOptions } from '../exec';

export type { Tier } from '../core/plan/types';
export { PlanError } from '../core/plan/types';

export interface RunOptions {
  /** The plan or cookbook config as text, and where it came from (relative help paths resolve against its folder). */
  planText: string;
  planPath: string;
  /** The plan already read from planText (the CLI reads it once to find the run directory); else it is read here. */
  plan?: RunPlan;
  /** The YAML reader (tests inject one to count how often a run parses its plan). */
  planReader?: (text: string) => ParsedYaml;
  /** The editor's snapshot folder setting: used when the plan names no snapshots (modeline, version_manifest). */
  settingHelpDir?: string;
  /** Renders summary.html from the report (the webview's page); without it no HTML summary is written. */
  renderHtml?: (model: ReportModel) => string | undefined;
  /** `sim`, `local`, `ssh:<host>` or `slurm[:PARTITION]`. */
  target: string;
  /** The run directory (created; an existing run there needs `resume`). */
  outDir: string;
  /** Continue the run in outDir: finished trials are kept and not measured again. */
  resume?: boolean;
  /** 1: preflight and the baseline; 2: the bounded candidate list (default, or the plan's search.tier); 3: every combination of the search space (capped). */
  tier?: Tier;
  /** Only these frameworks run; the other enabled ones are recorded as user-excluded. */
  frameworks?: readonly string[];
  /** Only these candidate ids (`baseline`, `c3`) of the bounded list run, e.g. the editor's "Run candidate…"; others get no rows. */
  candidates?: readonly string[];
  /** The search strategy (`--strategy`), over the plan's search.strategy: grid measures every candidate, adaptive only those that can still win (resolveStrategy, core/plan/strategy.ts). */
  strategy?: SearchStrategyName;
  /** `--force`: candidates measured even when adaptive would skip them, each `FRAMEWORK:ID` (`vllm:c3`) or `ID` for every framework (isForced, core/plan/strategy.ts). */
  force?: readonly string[];
  /** The workspace's calibration store (src/predict/store.ts): adaptive runs start from it and add what they measured; none: no store. */
  calibrationStore?: string;
  /** Simulated engine: run this many times faster than the modelled GPU (default 10); metrics are reported in modelled time. */
  simSpeed?: number;
  simSeed?: number;
  /** Rounds of repeats on fresh servers while a framework's verdict is undecided: at most this many (default: the plan's verdict.max_repeats, 16; 0: no repeats). */
  repeats?: number;
  /** Finalists per framework × scenario (default 2). */
  finalists?: number;
  /** More `--sim-*` options for every simulated server (e.g. a startup delay); never shown in a command. */
  simExtraOptions?: string;
  /** Folder with bin/sim (default: found beside the code). */
  simBinDir?: string;
  /** Captured --help texts to render commands and check flags with (like `validate --help-dir`). */
  helpDir?: string;
  /** A tokenizer.json (or its folder) for prompts; default: benchmark.tokenizer / model.tokenizer when local, the sim's own on `sim`. */
  tokenizer?: string;
  /** Seconds a server gets to answer GET /v1/models (default 900 on GPU targets, 60 on sim). */
  healthTimeoutS?: number;
  /** Seconds one trial may take before it is recorded as a timeout (default 3600; 300 on sim). */
  trialTimeoutS?: number;
  /** TERM-to-KILL grace when stopping a server (default 10 s; 2 s on sim). */
  stopGraceMs?: number;
  /** Names of secret variables the servers get, beyond the plan's `secrets.server_env` (the CLI's --secret-env; the editor's approved names). */
  secretEnv?: readonly string[];
  /** Run a plan with secrets written into it (its literal tokens stop the run otherwise). */
  allowPlanSecrets?: boolean;
  secrets?: SecretSource;
  /** GPU ids the servers use (default: CUDA_VISIBLE_DEVICES, else 0..gpu_count-1); checked with nvidia-smi on GPU targets. */
  gpus?: readonly number[];
  /** ssh: add an unknown host key to known_hosts (the CLI's --accept-new-host-key). */
  acceptNewHostKey?: boolean;
  /** ssh: ask about an unknown host key (the editor's prompt). */
  hostKeyPrompt?: (prompt: HostKeyPrompt) => Promise<boolean>;
  /** ssh: connection settings beyond the host (config file, known_hosts, keys, ...). */
  ssh?: Omit<SshExecutorOptions, 'host' | 'secrets' | 'acceptNewHostKey'>;
  /** Wrap the target in docker/podman. */
  container?: ContainerTargetOptions;
  /** Requests of the preflight smoke benchmark (at least 5). */
  smokeRequests?: number;
  /** Skip the preflight smoke server (tests that only care about later stages). */
  skipSmoke?: boolean;
  /** Environment the local/sim target starts from (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** slurm: candidates measured at once, each in its own job (default 4; 1 on every other target). */
  maxParallel?: number;
  /** slurm: the jobs run the built-in simulated engine's framework CLIs (bin/sim first on PATH): no GPU used, every row simulated. */
  simOnNodes?: boolean;
}

/** Identifies a candidate in events. */
export interface CandidateRef {
  framework: FrameworkKey;
  candidateId: string;
}

export interface TrialRef extends CandidateRef {
  key: string;
  scenario: string;
  mode: 'fixed' | 'search' | 'repeat';
  /** Modelled request rate (req/s) or 'inf'. */
  rate: number | 'inf';
  concurrency: number | null;
  round: number;
}

export type FrameworkOutcome = 'done' | 'stopped-early' | 'skipped' | 'user_excluded' | 'cancelled';

export type RunEvent =
  | { type: 'run-start'; runId: string; outDir: string; target: string; simulated: boolean; resumed: boolean; frameworks: Array<{ framework: FrameworkKey; status: 'run' | 'skipped' | 'user_excluded'; candidates: number; reason?: string }>; plannedTrials: number; finishedTrials: number; movedAside: number }
  | { type: 'preflight'; framework: FrameworkKey | null; step: 'gpu' | 'help' | 'version' | 'validate' | 'router' | 'smoke'; status: 'start' | 'ok' | 'warn' | 'failed' | 'skipped'; detail?: string }
  | { type: 'framework-start'; framework: FrameworkKey; candidates: number }
  | { type: 'framework-end'; framework: FrameworkKey; outcome: FrameworkOutcome; reason?: string }
  | ({ type: 'candidate-start'; index: number; of: number; command: string } & CandidateRef)
  | ({ type: 'candidate-end'; status: RowStatus | 'done'; reason?: string } & CandidateRef)
  | ({ type: 'server'; state: 'launching' | 'waiting' | 'ready' | 'stopping' | 'stopped' | 'failed'; pid?: number; port?: number; detail?: string } & CandidateRef)
  | ({ type: 'trial-start'; index: number; of: number; numPrompts: number } & TrialRef)
  | ({ type: 'trial-progress'; total: number; completed: number; failed: number; inFlight: number; elapsedS: number; requestsPerS: number; outputTokensPerS: number; ttftMsP50: number | null; tpotMsP50: number | null } & TrialRef)
  | ({ type: 'trial-end'; status: RowStatus; slaPassed: boolean; reasons: string[]; requestThroughput: number | null; p50TtftMs: number | null; p50TpotMs: number | null; resumed: boolean } & TrialRef)
  | ({ type: 'job'; jobId: string; state: string; node?: string; reason?: string; purpose: string } & CandidateRef)
  | { type: 'row'; row: ResultRow }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  | { type: 'run-end'; status: RunStatus; summary: RunSummaryFiles | null; counts: Partial<Record<RowStatus | 'sla_failing', number>> };

export type RunStatus = 'completed' | 'cancelled' | 'gpu-busy' | 'failed';

export interface RunHooks {
  onEvent?: (e: RunEvent) => void;
  signal?: AbortSignal;
}

export interface RunSummaryFiles {
  markdown: string;
  csv: string;
  /** summary.json: per scenario the winner or the tie, machine-readable. */
  json: string;
  html: string | null;
}

export interface RunResult {
  runId: string;
  outDir: string;
  status: RunStatus;
  /** Why the run stopped early (GPU busy, a transport error), when it did. */
  reason?: string;
  /** Every row of the run directory (resumed ones included), in file order. */
  rows: ResultRow[];
  summary: RunSummaryFiles | null;
  /** The report the summaries were written from (what the editor's summary panel shows). */
  report: ReportModel | null;
  simulated: boolean;
}
