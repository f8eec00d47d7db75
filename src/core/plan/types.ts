// The run plan: a checked config read once into what a run does — frameworks and their candidates, scenarios, workload, trials, SLA, snapshots, budget and target settings.
import type { PlanDataset } from './dataset';
import type { PlanSecrets } from './secrets';
import type { PlanSlurm } from './slurm';
import type { Candidate } from '../candidates/candidate';
import type { CandidateStrategy } from '../candidates/generate';
import type { CheckResult } from '../config/check';
import type { Scenario } from '../config/model';
import type { SnapshotFlags } from '../config/known-flags';
import type { SnapshotSource } from '../config/snapshot-source';
import type { ParsedYaml } from '../config/yaml-doc';
import type { FrameworkKey } from '../frameworks/types';
import type { DatasetName } from '../workload/options';
import type { SlaReading } from '../sla/limits';

export type Tier = 1 | 2 | 3;

/** `search.strategy`: `grid` measures every candidate of the bounded list; `adaptive` predicts each with the engine model and measures only those that can still win. */
export type SearchStrategyName = 'grid' | 'adaptive';

/** The strategy the plan asks for: written in its `search:` block, or the default (`DEFAULT_SEARCH_STRATEGY`, strategy.ts). */
export interface PlanSearchStrategy {
  name: SearchStrategyName;
  source: 'plan' | 'default';
}

export interface PlanFramework {
  framework: FrameworkKey;
  status: 'run' | 'skipped' | 'user_excluded';
  reason?: string;
  serverCommand: string;
  /** The tier's candidates (filtered to the asked ids), each with its skip when it will not run. */
  candidates: Candidate[];
  totalCombinations: number;
  /** Search values no listed candidate tries (`max_num_seqs=128`): the budget cut them. */
  untried: string[];
  /** Where the flag names were checked: the built-in table or a snapshot. */
  knownFrom: string;
}

export interface TrialPoint {
  rate: number | 'inf';
  concurrency: number | null;
}

/** A rate search under the SLA between two bounds, per concurrency. */
export interface SearchSpec {
  lower: number;
  upper: number;
  /** Stop once the bracket is this narrow (req/s), or narrower than relTolerance × the best passing rate when that is wider. */
  tolerance: number;
  /** `qps.rel_tolerance` (default 0.02): the bracket's closing width as a fraction of the best passing rate. */
  relTolerance: number;
  /** At most this many bisection rounds after the bound probes: `qps.max_rounds`, else DEFAULT_SEARCH_ROUNDS (bench.ts). */
  maxRounds: number;
  concurrencies: Array<number | null>;
}

/** The top-level `verdict:` block: how the run decides between candidates (issue 26), always filled with its defaults. */
/** `verdict.objective`: what a winner has the most of (issue 28). */
export type Objective = 'throughput' | 'per_gpu' | 'per_dollar' | 'per_joule';
export const OBJECTIVES: readonly Objective[] = ['throughput', 'per_gpu', 'per_dollar', 'per_joule'];

/** The top-level `cost:` block: US dollars per GPU-hour, one price or one per GPU model. */
export interface CostSettings {
  gpuHourUsd: number | Readonly<Record<string, number>>;
}

export interface VerdictSettings {
  /** `objective` (default throughput): the candidates' per-launch capacities are compared per GPU, per dollar or per joule. */
  objective: Objective;
  /** The top-level `cost:` block (read beside the verdict, which is what prices candidates); absent when the plan has none. */
  cost?: CostSettings;
  /** `min_effect`: relative differences under this are reported as equivalent (default 0.03). */
  minEffect: number;
  /** `max_repeats`: at most this many extra launches per contender before the verdict is called undecided (default 16). */
  maxRepeats: number;
  /** `alpha`: the intervals' error rate, before the correction for how many are compared (default 0.05). */
  alpha: number;
  /** `repeat_length`: a repeat's trials are this many times as long as the search's (default 1, at most MAX_LENGTHEN). */
  repeatLength: number;
  /** `gpu_budget_s`: no further round of repeats starts once the run has spent this many GPU-seconds (unset: no budget). */
  gpuBudgetS?: number;
}

export type Endpoint = '/v1/completions' | '/v1/chat/completions' | '/generate';

export interface BenchSettings {
  endpoint: Endpoint;
  /** `benchmark.backend` as written (the request format follows the endpoint). */
  backend: string | undefined;
  /** The kind the run builds (dataset.kind; builtin-text or random when it names none: `dataset.source` says which). */
  datasetKind: DatasetName;
  /** The dataset as the run reads it: kind and why, a file kind's file, the kind's options (plan/dataset.ts). */
  dataset: PlanDataset;
  /** What the plan itself wrote, for the report: endpoint, dataset kind (the run's kind when a dataset mapping names none), num_prompts. */
  asWritten: { endpoint?: string; datasetKind?: string; numPrompts?: number };
  /** dataset.canonical_jsonl, else a file kind's dataset.path, as written. */
  canonicalJsonl: string | undefined;
  numPrompts: number;
  seed: number;
  extraBody: Record<string, unknown>;
  /** Fixed (rate, concurrency) points, measured once each. */
  fixed: TrialPoint[];
  /** The rate search under the SLA, per concurrency. */
  search: SearchSpec | undefined;
  /** The top-level `verdict:` block (read here, beside the search it sizes), defaults filled in. */
  verdict: VerdictSettings;
}

export interface VersionRecord {
  containerImage?: string;
  packageVersion?: string;
  gitCommit?: string;
  serverHelp?: string;
  benchmarkHelp?: string;
}

/** A flag the runner had to replace for one framework (renamed, dropped, or swapped for another). */
export interface Substitution {
  framework?: string;
  from: string;
  to?: string;
  reason?: string;
}

export interface RunPlan {
  /** The text, parsed once: re-checks (a captured --help at preflight) reuse the tree. */
  source: { path: string; text: string; sha256: string; parsed: ParsedYaml };
  /** The one check of the text: findings, the rules' model, each framework's candidate list. */
  check: CheckResult;
  snapshots: { flags: SnapshotFlags; source: SnapshotSource; note: string; problem?: string };
  /** `model.name` ('' when the plan has none: `problems` says so). */
  model: string;
  /** The tokenizer the plan names (benchmark.tokenizer, else model.tokenizer). */
  tokenizer: string | undefined;
  scenarios: Scenario[];
  frameworks: PlanFramework[];
  bench: BenchSettings;
  /** From the one SLA reader (benchmark.sla, else the top-level sla), with the run's defaults (a success-rate floor when unset). */
  sla: SlaReading;
  /** gpuCount: every GPU of a candidate; multiNode: hardware.multi_node (a candidate may span nodes). */
  hardware: { gpuCount?: number; gpuModel?: string; multiNode?: boolean };
  /** `strategy` is the order candidates are drawn in (`search.candidate_generation`), not the search strategy. */
  budget: { tier: Tier; maxCandidates: number; strategy: CandidateStrategy };
  /** `search.strategy`: which candidates are measured (grid: all; adaptive: those that can still win). `--strategy` overrides it: resolveStrategy. */
  searchStrategy: PlanSearchStrategy;
  /** The `slurm:` block: where `--target slurm` submits each candidate's job (core/plan/slurm.ts). */
  slurm?: PlanSlurm;
  /** The `secrets:` block: which variables hold the servers' API key, the servers' other secrets and the client's secret headers (names only). */
  secrets: PlanSecrets;
  /** Secrets written into the text (`FILE:LINE: path: why`, never the value): `run` stops on them unless told otherwise. */
  literalSecrets: string[];
  /** version_manifest, per key (frameworks, and any other tool the plan records). */
  versions: Record<string, VersionRecord>;
  target: { outputDir: string | undefined; resume: boolean };
  runId: string | undefined;
  substitutions: Substitution[];
  /** Warnings of the config check, as `path: message` lines. */
  warnings: string[];
  /** Why the plan cannot run (errors not about one framework); empty when it can. */
  problems: string[];
}

/** The plan cannot run: errors that are not about one framework (dataset, model, SLA keys, ...). */
export class PlanError extends Error {
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super(message);
    this.name = 'PlanError';
  }
}

/** Throws PlanError when the plan has problems. */
export function assertRunnable(plan: RunPlan): void {
  if (plan.problems.length) throw new PlanError('the plan cannot run', plan.problems);
}
