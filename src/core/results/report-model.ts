// The report as plain, JSON-safe data: what `autobench report` writes as Markdown/CSV/HTML and what
// the summary panel renders. Cell texts are final (Python-style numbers); numbers sit beside for sorting.

export const REPORT_MODEL_VERSION = 1;

/** Why a candidate was not selected, and what to do about it. */
export type NextStep = 'retry' | 'lower-concurrency' | 'fix-parameter' | 'investigate' | 'nothing';

export type NotSelectedCategory = 'failed' | 'oom' | 'timeout' | 'sla-failing' | 'skipped' | 'user-excluded' | 'unsupported' | 'smoke' | 'invalid';

/** A column of the candidates table. `num` columns sort numerically. */
export interface ColumnDef {
  key: string;
  label: string;
  num: boolean;
  /** An optional metric shown only because some row has it (accept length, cache hit, ...). */
  optional?: boolean;
}

/** One input row, ready to show. */
export interface CandidateRow {
  /** Index in `candidates` (input order). */
  id: number;
  /** Line of the JSONL file. */
  line: number;
  framework: string;
  scenario: string;
  candidate: string;
  status: string;
  /** Recomputed SLA verdict. */
  sla: 'pass' | 'fail';
  slaReasons: string[];
  /** What the row said (`sla.passed`, playbook reading); differs from `sla` when the row is stale. */
  slaAsWritten: boolean;
  simulated: boolean;
  smoke: boolean;
  /** A measured trial (load against a started server); false for a skip, a launch failure or a framework left out. */
  measured: boolean;
  /** Cell texts and sort values, aligned with `ReportModel.columns`. */
  text: string[];
  num: Array<number | null>;
  /** Chart coordinates: request throughput, output tok/s, p50 TTFT, p50 TPOT (null when missing). */
  rps: number | null;
  otps: number | null;
  ttft: number | null;
  tpot: number | null;
  gpus: number | null;
  /** The trial's offered request rate (req/s; the chart's x), null for a burst or a row without one; rps is what was achieved. */
  offered: number | null;
  /** "search round 3", "repeat 2", "fixed": the trial as the chart's hover names it ('' when the row has none). */
  trialText: string;
  serverCommand: string;
  benchmarkCommand: string;
  failureReason: string;
}

/** The best candidate of one framework in one scenario (SLA-passing, not smoke). */
export interface BestEntry {
  scenario: string;
  framework: string;
  /** Index into `candidates`. */
  row: number;
  /** 1 = the scenario's winner (or the top of a tie). */
  rank: number;
  /** Within the noise of the scenario's top candidate: the scenario is a tie and this entry is in it. */
  tied: boolean;
}

/** A candidate's SLA capacity with its interval (see core/results/verdict.ts). */
export interface VerdictCandidate {
  framework: string;
  candidate: string;
  score: number;
  /** [low, high]; high is null when nothing failed above it (no upper end measured). */
  interval: [number, number | null];
  /** ci: a 95% t interval over launches; bracket: the search's best pass .. lowest fail (one launch); spread: fixed-point measurements. */
  interval_kind?: 'ci' | 'bracket' | 'spread';
  basis: 'search' | 'measured';
  repeats: number;
  repeatsPassed: number;
  /** Index into `candidates`. */
  row: number;
  /** Launches measured (the search's and each repeat's), and each one's capacity estimate (req/s). */
  launches?: number;
  capacities?: number[];
  /** At `score`: the GPUs it held (a P/D unit: every role's), req/s per GPU, dollars per million output tokens (cost.gpu_hour_usd), joules per output token (its trials' energy); null where unknown. */
  gpus?: number | null;
  per_gpu?: number | null;
  usd_per_m_output_tokens?: number | null;
  j_per_output_token?: number | null;
  /** `score` under the verdict's objective (req/s per GPU, requests per $ or per J); absent under throughput or when it cannot be priced. */
  value?: number;
  /** Why the objective could not price it (it was left out of the test). */
  unpriced?: string;
}

/** Why a framework's repeats ended, as the runner's manifest records it (`repeats_ended`): nothing left in question, the rounds or the GPU budget spent, or repeats off. */
export type RepeatsEnd = 'decided' | 'max_repeats' | 'budget' | 'off';

/** Per scenario: the winner, the candidates equivalent to the best, or the ones the run could not separate. */
export interface VerdictEntry {
  scenario: string;
  /** True only for a winner. */
  decided: boolean;
  /** winner | equivalent | undecided | none (no candidate met the SLA); absent in reports written before the test. */
  outcome?: 'winner' | 'equivalent' | 'undecided' | 'none';
  /** The leader's relative lead (0.061 = 6.1%) over the candidate it is compared with, and its interval at `level`. */
  effect?: number;
  ci?: [number, number];
  level?: number;
  min_effect?: number;
  /** The launch-to-launch noise the test used: pooled from the run's repeats, or assumed when none measured it. */
  noise?: { rel_sd: number; df: number; measured: boolean };
  /** Why the runner stopped launching for this scenario (decided, equivalent, max_repeats, budget), when it says. */
  stop?: string;
  winner: VerdictCandidate | null;
  ties: VerdictCandidate[];
  /** Every candidate that met the SLA in the scenario, best first (what Compare runs sets side by side). */
  ranked?: VerdictCandidate[];
  summary: string;
  /** What the candidates were compared on: throughput (also when absent), per_gpu, per_dollar or per_joule. */
  objective?: 'throughput' | 'per_gpu' | 'per_dollar' | 'per_joule';
  /** Candidates the objective could not price (absent from `ranked`). */
  unpriced?: VerdictCandidate[];
}

export interface ThroughputEntry {
  scenario: string;
  framework: string;
  /** Highest request throughput of any ok row, SLA or not. */
  rawBest: number | null;
  rawRow: number | null;
  /** Highest among SLA-passing rows (the number that counts). */
  slaBest: number | null;
  slaRow: number | null;
}

/** A trial's request rate as rows write it: req/s, 'inf' for a burst. */
export type TrialRate = number | 'inf';

/** One candidate × scenario that was not selected: what limited it (its first failing trial) and what to do. */
export interface NotSelectedEntry {
  framework: string;
  scenario: string;
  candidate: string;
  category: NotSelectedCategory;
  /** The first failing trial's reason. */
  reason: string;
  next: NextStep;
  advice: string;
  /** Highest rate at which every trial met the SLA (null: none did, or the trials had no rate). */
  bestPassingRate: TrialRate | null;
  /** The lowest failing rate above it (null: the failing trials had no rate). */
  firstFailingRate: TrialRate | null;
  /** Index into `candidates` of the first failing trial, or null for a framework left out before any row existed. */
  row: number | null;
  /** Every row of this candidate × scenario (indexes into `candidates`). */
  rows: number[];
}

export interface Caveat {
  kind: 'simulated' | 'synthetic' | 'smoke' | 'incomplete-search' | 'substitution' | 'fairness' | 'sla' | 'schema' | 'no-winner';
  text: string;
}

export interface Fact {
  label: string;
  value: string;
}

export interface VersionEntry {
  framework: string;
  version: string;
  commit: string;
  image: string;
  serverHelp: string;
  benchmarkHelp: string;
  clients: string;
}

export interface WinnerCommands {
  scenario: string;
  framework: string;
  candidate: string;
  row: number;
  /** One of the candidates tied for the scenario (not a sole winner). */
  tied: boolean;
  serverCommand: string;
  benchmarkCommand: string;
  artifacts: Fact[];
}

/** One profiling shape: prefill is `input → 1`, decode is `1 → output`. */
export interface ProfileShape {
  phase: 'prefill' | 'decode';
  /** Which bucket: `exact`, `p50` or `p95`. */
  bucket: 'exact' | 'p50' | 'p95';
  inputLen: number;
  outputLen: number;
  /** Arguments for the profiler (llm-torch-profiler-analysis). */
  args: string;
}

export interface HandoffScenario {
  scenario: string;
  winnerFramework: string;
  winnerCandidate: string;
  winnerRps: number | null;
  /** SGLang's best SLA-passing candidate here, if any. */
  sglangCandidate: string | null;
  sglangRps: number | null;
  sglangCommand: string;
  lengths: { kind: 'exact'; inputLen: number; outputLen: number } | { kind: 'buckets'; inputP50: number; inputP95: number; outputP50: number; outputP95: number } | { kind: 'unknown' };
  shapes: ProfileShape[];
  summary: string;
}

export interface HandoffNote {
  scenarios: HandoffScenario[];
  /** The whole note as plain text, for one copy button. */
  text: string;
}

/** GPU time of one candidate (server up-time × GPUs over every purpose), from the run's manifest. */
export interface GpuTimeEntry {
  framework: string;
  candidate: string;
  gpuSeconds: number;
  /** The seconds as every renderer shows them. */
  text: string;
  /** Its share of the run's total ('23%'), '' when the total is unknown. */
  share: string;
}

/** A candidate the adaptive strategy did not measure, and why. */
export interface SkippedCandidate {
  framework: string;
  candidate: string;
  reason: string;
}

/** The search strategy that ran and where it came from. */
export interface StrategyFact {
  name: 'grid' | 'adaptive';
  source: 'option' | 'plan' | 'default';
  /** The source in words: 'from --strategy', "from the plan's search.strategy", 'the default'. */
  from: string;
}

/**
 * What the search cost, from the run's manifest: which strategy ran and where it came from, GPU-seconds in total, per
 * purpose and per candidate, and for adaptive the grid's predicted GPU-seconds, the share spent and what it skipped.
 */
export interface SearchCost {
  /** Null when the run recorded no strategy (a run from before strategies, or one that only recorded GPU time). */
  strategy: StrategyFact | null;
  /** The unit as labels say it: 'GPU-seconds', or 'modelled GPU-seconds (simulated)' on the simulator. */
  unit: string;
  modelled: boolean;
  /** Null when the run recorded no GPU time. */
  total: { gpuSeconds: number; text: string } | null;
  /** smoke, search, repeat (then any other purpose), each with its seconds. */
  byPurpose: Array<{ purpose: string; gpuSeconds: number; text: string }>;
  byCandidate: GpuTimeEntry[];
  /** adaptive: what the grid would have spent, predicted; null otherwise. */
  gridPredicted: { gpuSeconds: number; text: string } | null;
  /** adaptive: the total as a share of the grid's prediction ('23%'); null otherwise. */
  gridShare: string | null;
  /** One sentence: what the run spent, and for adaptive against the grid ("adaptive spent 412 GPU-s, 23% of ..."). */
  summary: string;
  skipped: SkippedCandidate[];
  /** adaptive: per framework the model's median prediction error before and after calibration ('12%', '' when unknown). */
  calibration: Array<{ framework: string; before: string; after: string }>;
}

/** One candidate × scenario: the simulated engine model's predicted SLA capacity beside what the run measured. */
export interface PredictionRow {
  scenario: string;
  framework: string;
  candidate: string;
  /** Uncalibrated prediction (req/s); null when the model predicts it would not start (see `status`). */
  initial: number | null;
  /** adaptive: the calibrated prediction (req/s); null when the run has none. */
  calibrated: number | null;
  /** ok, oom, fails, skipped (the model's status for the candidate). */
  status: string;
  /** The verdict's SLA capacity (req/s); null when not measured or nothing met the SLA. */
  measured: number | null;
  /** Relative error of the uncalibrated / calibrated prediction against the measurement (0.12 = +12%); null without both. */
  initialError: number | null;
  calibratedError: number | null;
  /** Cell texts as every renderer shows them. */
  initialText: string;
  calibratedText: string;
  measuredText: string;
  initialErrorText: string;
  calibratedErrorText: string;
}

/** Which stage bounded a P/D unit's SLA capacity in a scenario. */
export interface LimitingStageEntry {
  scenario: string;
  framework: string;
  candidate: string;
  stage: 'prefill' | 'transfer' | 'decode' | 'router' | 'unknown';
  rate: number;
  overSla: boolean;
  because: string;
}

/** A point of a predicted Pareto front (output tok/s per GPU against per-user tok/s). */
export interface PredictedFrontPoint {
  framework: string;
  candidate: string;
  rate: number;
  throughputPerGpu: number;
  perUserTps: number;
  /** Measured views: a P/D unit's point, and whether the point is on the front (only those are joined and labelled). */
  unit?: boolean;
  onFront?: boolean;
}

/** A predicted front, or the measured view of every SLA-passing trial (report/measured-front.ts), which marks its front points. */
export interface PredictedFront {
  scenario: string;
  /** The chart title, always labelled as the model's ("chat: Pareto front, predicted (simulated engine model)"). */
  title: string;
  /** The predicted leader in words ('vllm c3 ≈ 12.4 req/s'), '' when none. */
  leader: string;
  points: PredictedFrontPoint[];
}

/** What the simulated engine model predicted for the run (its predict.json) against what was measured. */
export interface PredictionsSection {
  /** 'predicted by the simulated engine model, not measured'. */
  note: string;
  /** The model's measured error on published GPU data, in words (predict.json's model_error), when recorded. */
  modelError?: string;
  strategy: string;
  /** Some candidate has a calibrated prediction (adaptive). */
  calibrated: boolean;
  rows: PredictionRow[];
  fronts: PredictedFront[];
}

/** What happened to one candidate in the run (all its scenarios together). */
export interface CandidateOutcome {
  framework: string;
  candidate: string;
  /** measured: at least one trial counted; skipped: never started (with why); failed: started, nothing counted. */
  kind: 'measured' | 'skipped' | 'failed';
  /** The first reason it was skipped or failed ('' when measured). */
  reason: string;
  /** Index into `candidates` of its first row; null for a candidate the adaptive strategy skipped (no row). */
  row: number | null;
  scenarios: number;
  /** Measured trials (fixed rates, search rounds, repeats) and how many met the SLA. */
  trials: number;
  trialsWithinSla: number;
  /** Scenarios in which some trial of it met the SLA. */
  passingScenarios: string[];
}

/** A framework with no candidate in the run: left out by the caller (not in this run), or skipped as a whole. */
export interface FrameworkAbsence {
  framework: string;
  notInRun: boolean;
  reason: string;
}

/** The run's outcome per candidate: the counts every front end shows, in one vocabulary. */
export interface RunOutcome {
  candidates: CandidateOutcome[];
  counts: { candidates: number; measured: number; skipped: number; failed: number; passing: number; trials: number; trialsWithinSla: number };
  frameworks: FrameworkAbsence[];
  /** One line: "3 candidates: 2 measured, 1 skipped · 2 met the SLA · 14 trials, 9 within the SLA · not in this run: tokenspeed". */
  headline: string;
  /** When nothing was measured: the first candidate (or framework) that was skipped or failed, and why. */
  firstProblem: { framework: string; candidate: string | null; kind: 'skipped' | 'failed'; reason: string } | null;
}

export interface ReportModel {
  version: typeof REPORT_MODEL_VERSION;
  title: string;
  source: { rowsFile: string; manifestFile: string | null; rowCount: number };
  /** Per candidate: measured, skipped or failed, and the counts in one vocabulary. */
  outcome: RunOutcome;
  /** Number of rows from the simulated engine (each such number is labelled, never a result). */
  simulatedRows: number;
  workload: Fact[];
  sla: Fact[];
  /** The SLA limits in ms / rate, for the chart lines (null: not set). */
  slaLimits: { ttft: number | null; tpot: number | null; successRate: number | null };
  hardware: Fact[];
  versions: VersionEntry[];
  columns: ColumnDef[];
  candidates: CandidateRow[];
  scenarios: string[];
  frameworks: string[];
  /** Per scenario, the verdict every section follows (winner named only when its interval clears the rest). */
  verdicts: VerdictEntry[];
  best: BestEntry[];
  throughput: ThroughputEntry[];
  winners: WinnerCommands[];
  notSelected: NotSelectedEntry[];
  caveats: Caveat[];
  handoff: HandoffNote | null;
  /** Why there is no handoff note, when there is none. */
  handoffAbsent: string;
  /** The strategy that ran and its GPU time; null when the run facts hold none (a plan alone, an older run). */
  searchCost: SearchCost | null;
  /** Predicted vs measured (the run's predict.json); null/absent for a run without predictions. */
  predictions?: PredictionsSection | null;
  /** Per scenario, every SLA-passing trial per GPU against per user, aggregated servers and P/D units together. */
  measuredFronts?: PredictedFront[];
  /** Per scenario and P/D unit, the stage that bounded its SLA capacity (report/limiting-stage.ts). */
  limitingStages?: LimitingStageEntry[];
  artifacts: Fact[];
  problems: Array<{ line: number; message: string }>;
}
