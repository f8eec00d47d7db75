// What a report knows about the run beyond the rows: a run plan or cookbook config (YAML or JSON),
// optionally with run keys (run_id, output_dir, substitutions), read into one plain record; and what a run's
// manifest.json recorded about its cost (gpu_seconds, search_strategy), read in one place (runRecordFacts).
import { pyStr, toJson } from '../py/value';
import { parseYaml } from '../config/yaml-doc';
import { readRunPlan, readSubstitutions, readVersions } from '../plan/build';
import { isObj, strOrNum, type Obj } from '../plan/read-json';
import { isSearchStrategy, type StrategySource } from '../plan/strategy';
import type { CostSettings, Objective, RunPlan, SearchStrategyName, Substitution } from '../plan/types';
import { readVerdict } from '../plan/bench';
import { readSlaLimits, type SlaReading } from '../sla/limits';
import type { FactsPredictions } from './predict-file';
import type { RepeatsEnd } from './report-model';

export interface FactsScenario {
  name: string;
  inputLen: number;
  outputLen: number;
}

export interface FactsVersion {
  containerImage?: string;
  packageVersion?: string;
  gitCommit?: string;
  serverHelp?: string;
  benchmarkHelp?: string;
}

export interface FactsFramework {
  framework: string;
  enabled: boolean;
  /** Left out by the caller (framework_set or enabled: false): recorded, never called unsupported. */
  userExcluded: boolean;
  /** Candidates the bounded search lists, and how many combinations the search space holds. */
  candidates: number;
  totalCombinations: number;
  /** Search values no listed candidate tries (`max_num_seqs=128`): the budget cut them. */
  untried: string[];
}

export type { Substitution } from '../plan/types';

/** Server up-time × GPUs as the run's manifest recorded it (`gpu_seconds`). */
export interface FactsGpuSeconds {
  total: number;
  /** Per purpose: `smoke`, `search`, `repeat`. */
  byPurpose: Record<string, number>;
  /** Per candidate, keyed `<framework> <candidateId>`. */
  byCandidate: Record<string, number>;
  /** The run was on the simulated engine: every second is modelled, not measured. */
  modelled: boolean;
}

/** The search strategy that ran (`search_strategy` of the manifest). */
export interface FactsSearchStrategy {
  name: SearchStrategyName;
  source: StrategySource;
  /** `<framework> <candidateId>` of each candidate measured. */
  measured: string[];
  skipped: Array<{ framework: string; candidate: string; reason: string }>;
  /** adaptive: searches stopped at their floor: the rate that failed, under which the candidate could neither win nor tie. */
  stopped: Array<{ framework: string; candidate: string; scenario: string; rate: number }>;
  /** adaptive: what the grid would have spent (GPU-seconds, predicted). */
  gridGpuSecondsPredicted?: number;
  /** adaptive: per framework, the model's median relative error before and after calibration. */
  calibration?: Array<{ framework: string; beforeMedianError: number | null; afterMedianError: number | null }>;
}

/** The simulated engine a run used (its manifest's sim): how much faster than modelled it ran, its seed and modelled GPU. */
export interface FactsSim {
  speed: number;
  seed: number | null;
  gpu: string;
}

/** What a run's manifest adds to the run facts. */
export interface RunRecordFacts {
  sim?: FactsSim;
  gpuSeconds?: FactsGpuSeconds;
  searchStrategy?: FactsSearchStrategy;
  /** Parts of the record that could not be used. */
  problems: string[];
}

export interface RunFacts {
  model?: string;
  gpuModel?: string;
  gpuCount?: number;
  datasetKind?: string;
  numPrompts?: number;
  canonicalJsonl?: string;
  endpoint?: string;
  backend?: string;
  scenarios: FactsScenario[];
  sla?: SlaReading;
  /** The plan's verdict settings (min_effect, alpha), when the facts came from a plan or a manifest that has them. */
  verdict?: { minEffect?: number; alpha?: number; maxRepeats?: number; repeatsEnded?: Record<string, RepeatsEnd>; objective?: Objective; cost?: CostSettings };
  versions: Record<string, FactsVersion>;
  frameworks: FactsFramework[];
  maxCandidates?: number;
  outputDir?: string;
  runId?: string;
  substitutions: Substitution[];
  /** The simulated engine the run used (its manifest's sim); absent for a GPU run, a plan alone or an older run. */
  sim?: FactsSim;
  /** The run's GPU time (its manifest's gpu_seconds); absent for a plan alone or an older run. */
  gpuSeconds?: FactsGpuSeconds;
  /** The search strategy that ran (its manifest's search_strategy); absent for a plan alone or an older run. */
  searchStrategy?: FactsSearchStrategy;
  /** What the simulated engine model predicted (the run directory's predict.json, predictRecordFacts); absent for an older run. */
  predictions?: FactsPredictions;
  /** Why parts of the file could not be used (never fatal: the rows still make a report). */
  problems: string[];
}

/** A name as written: a string, or a number written where a name was meant. */
const str = strOrNum;

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const errorOrNull = (v: unknown): number | null => (finite(v) ? v : null);

/** A mapping of names to numbers, the entries that are numbers kept in order. */
function numbers(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (isObj(v)) for (const [k, x] of Object.entries(v)) if (finite(x)) out[k] = x;
  return out;
}

function readGpuSeconds(v: unknown, simulated: boolean, problems: string[]): FactsGpuSeconds | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v) || !finite(v.total)) {
    problems.push('gpu_seconds: expected {total, by_purpose, by_candidate} with a number total; GPU time left out');
    return undefined;
  }
  return { total: v.total, byPurpose: numbers(v.by_purpose), byCandidate: numbers(v.by_candidate), modelled: simulated };
}

function readSkipped(v: unknown): FactsSearchStrategy['skipped'] {
  if (!Array.isArray(v)) return [];
  const out: FactsSearchStrategy['skipped'] = [];
  for (const x of v) {
    if (!isObj(x)) continue;
    const framework = str(x.framework);
    const candidate = str(x.candidate);
    if (framework !== undefined && candidate !== undefined) out.push({ framework, candidate, reason: str(x.reason) ?? '' });
  }
  return out;
}

function readStopped(v: unknown): FactsSearchStrategy['stopped'] {
  if (!Array.isArray(v)) return [];
  const out: FactsSearchStrategy['stopped'] = [];
  for (const x of v) {
    if (!isObj(x)) continue;
    const [framework, candidate, scenario] = [str(x.framework), str(x.candidate), str(x.scenario)];
    if (framework !== undefined && candidate !== undefined && scenario !== undefined && finite(x.rate)) out.push({ framework, candidate, scenario, rate: x.rate });
  }
  return out;
}

function readCalibration(v: unknown): FactsSearchStrategy['calibration'] {
  if (!Array.isArray(v)) return undefined;
  const out: NonNullable<FactsSearchStrategy['calibration']> = [];
  for (const x of v) {
    const framework = isObj(x) ? str(x.framework) : undefined;
    if (isObj(x) && framework !== undefined) out.push({ framework, beforeMedianError: errorOrNull(x.before_median_error), afterMedianError: errorOrNull(x.after_median_error) });
  }
  return out;
}

const SOURCES: readonly StrategySource[] = ['option', 'plan', 'default'];

function readSearchStrategyRecord(v: unknown, problems: string[]): FactsSearchStrategy | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v) || !isSearchStrategy(v.name)) {
    problems.push(`search_strategy: expected {name: grid or adaptive, source, measured, skipped}; strategy left out`);
    return undefined;
  }
  const source = SOURCES.find((s) => s === v.source) ?? 'default';
  const out: FactsSearchStrategy = { name: v.name, source, measured: Array.isArray(v.measured) ? v.measured.filter((m): m is string => typeof m === 'string') : [], skipped: readSkipped(v.skipped), stopped: readStopped(v.stopped) };
  if (finite(v.grid_gpu_seconds_predicted)) out.gridGpuSecondsPredicted = v.grid_gpu_seconds_predicted;
  const calibration = readCalibration(v.calibration);
  if (calibration?.length) out.calibration = calibration;
  return out;
}

/**
 * What a run's manifest.json (as parsed JSON) recorded about the run's cost: `gpu_seconds` (modelled when the
 * manifest says `simulated: true`) and `search_strategy`. The one reader of those keys, for the runner's summary and
 * for `report --manifest`; an older manifest without them gives neither, a malformed part a problem.
 */
export function runRecordFacts(manifest: unknown): RunRecordFacts {
  const problems: string[] = [];
  if (!isObj(manifest)) return { problems };
  const gpuSeconds = readGpuSeconds(manifest.gpu_seconds, manifest.simulated === true, problems);
  const searchStrategy = readSearchStrategyRecord(manifest.search_strategy, problems);
  const sim = isObj(manifest.sim) && finite(manifest.sim.speed) ? { speed: manifest.sim.speed, seed: finite(manifest.sim.seed) ? manifest.sim.seed : null, gpu: typeof manifest.sim.gpu === 'string' ? manifest.sim.gpu : '' } : undefined;
  return { ...(sim ? { sim } : {}), ...(gpuSeconds ? { gpuSeconds } : {}), ...(searchStrategy ? { searchStrategy } : {}), problems };
}

/** The run facts with what a run's manifest recorded (runRecordFacts) added. */
function withRunRecord(m: RunFacts, manifest: unknown): RunFacts {
  const rec = runRecordFacts(manifest);
  if (rec.sim) m.sim = rec.sim;
  if (rec.gpuSeconds) m.gpuSeconds = rec.gpuSeconds;
  if (rec.searchStrategy) m.searchStrategy = rec.searchStrategy;
  m.problems.push(...rec.problems);
  return m;
}

/**
 * What the report knows from a run plan in memory (the runner's own plan, or one read from a file), and from the
 * run's manifest.json (parsed JSON) when there is one: its GPU time and search strategy.
 */

function repeatsEndedOf(manifest: unknown): Record<string, RepeatsEnd> | undefined {
  const r = isObj(manifest) ? manifest.repeats_ended : undefined;
  if (!isObj(r)) return undefined;
  const out: Record<string, RepeatsEnd> = {};
  for (const [fw, v] of Object.entries(r)) if (v === 'decided' || v === 'max_repeats' || v === 'budget' || v === 'off') out[fw] = v;
  return out;
}

export function runFactsFromPlan(plan: RunPlan, manifest?: unknown): RunFacts {
  const b = plan.bench;
  const m: RunFacts = { scenarios: [], versions: {}, frameworks: [], substitutions: plan.substitutions.map((x) => ({ ...x })), problems: [] };
  const set = <K extends keyof RunFacts>(k: K, v: RunFacts[K] | undefined): void => {
    if (v !== undefined) m[k] = v;
  };
  set('model', plan.model || undefined);
  set('gpuModel', plan.hardware.gpuModel);
  set('gpuCount', plan.hardware.gpuCount);
  set('datasetKind', b.asWritten.datasetKind);
  set('numPrompts', b.asWritten.numPrompts);
  set('canonicalJsonl', b.canonicalJsonl);
  set('endpoint', b.asWritten.endpoint);
  set('backend', b.backend);
  set('sla', { limits: { ...plan.sla.limits }, deprecated: [...plan.sla.deprecated], ...(plan.sla.defaulted ? { defaulted: [...plan.sla.defaulted] } : {}) });
  if (b.verdict) m.verdict = { minEffect: b.verdict.minEffect, alpha: b.verdict.alpha, maxRepeats: b.verdict.maxRepeats, objective: b.verdict.objective, ...(b.verdict.cost ? { cost: b.verdict.cost } : {}) };
  const ended = repeatsEndedOf(manifest);
  if (ended) m.verdict = { ...(m.verdict ?? {}), repeatsEnded: ended };
  for (const [fw, v] of Object.entries(plan.versions)) m.versions[fw] = { ...v };
  set('outputDir', plan.target.outputDir);
  set('runId', plan.runId);
  m.scenarios = plan.scenarios.map((s) => ({ name: s.name, inputLen: s.inputLen, outputLen: s.outputLen }));
  m.maxCandidates = plan.budget.maxCandidates;
  for (const sec of plan.check.model.frameworks) {
    const list = plan.check.candidateLists.find((p) => p.framework === sec.framework);
    m.frameworks.push({
      framework: sec.framework,
      enabled: sec.enabled,
      userExcluded: sec.userExcluded,
      candidates: list?.candidates.length ?? 0,
      totalCombinations: list?.totalCombinations ?? 0,
      untried: (list?.untried ?? []).map((u) => `${u.key}=${pyStr(u.value)}`),
    });
  }
  return withRunRecord(m, manifest);
}

/**
 * Reads a manifest text: a run plan or cookbook config through the plan reader, else a bare dataset record; a run's
 * manifest.json's gpu_seconds and search_strategy either way. `fileName` only labels problems.
 */
export function parseRunFacts(text: string, fileName: string): RunFacts {
  const empty: RunFacts = { scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: [] };
  const parsed = parseYaml(text);
  if (!parsed.root) return { ...empty, problems: [`${fileName}: ${parsed.problems[0]?.message ?? 'empty file'}`] };
  const root = toJson(parsed.root.value);
  if (!isObj(root)) return { ...empty, problems: [`${fileName}: expected a mapping`] };
  // The config engine knows the scenarios, the framework set and the bounded candidate lists.
  if (isObj(root.frameworks)) return runFactsFromPlan(readRunPlan({ text, path: fileName }, { parse: () => parsed }), root);
  return withRunRecord(datasetManifest(root), root);
}

/** A bare run record (no frameworks): model, hardware, dataset lists, SLA, versions and run keys as written. */
function datasetManifest(root: Obj): RunFacts {
  const m: RunFacts = { scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: [] };
  const model = root.model;
  m.model = isObj(model) ? str(model.name) : str(model);
  if (isObj(root.hardware)) {
    m.gpuModel = str(root.hardware.gpu_model);
    m.gpuCount = typeof root.hardware.gpu_count === 'number' && Number.isFinite(root.hardware.gpu_count) ? root.hardware.gpu_count : undefined;
  }
  const bench = isObj(root.benchmark) ? root.benchmark : {};
  m.endpoint = str(bench.endpoint);
  m.backend = str(bench.backend);
  const slaBlock = bench.sla ?? root.sla;
  if (isObj(slaBlock)) m.sla = readSlaLimits(slaBlock);
  if (isObj(root.verdict) || isObj(root.cost)) {
    // The plan reader's own reading of the verdict and cost blocks (its problems are the plan checker's to report).
    const v = readVerdict(root, []);
    const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
    const w = isObj(root.verdict) ? root.verdict : {};
    m.verdict = { minEffect: num(w.min_effect), alpha: num(w.alpha), maxRepeats: num(w.max_repeats), objective: v.objective, ...(v.cost ? { cost: v.cost } : {}) };
  }
  const ended = repeatsEndedOf(root);
  if (ended) m.verdict = { ...(m.verdict ?? {}), repeatsEnded: ended };
  m.versions = readVersions(root);
  const search = isObj(root.search) ? root.search : {};
  m.outputDir = str(search.output_dir) ?? str(root.output_dir) ?? str(root.artifact_dir);
  m.runId = str(root.run_id);
  m.substitutions = readSubstitutions(root);
  const dataset = root.dataset;
  if (!isObj(dataset)) return m;
  m.datasetKind = str(dataset.kind) ?? 'random';
  m.numPrompts = typeof dataset.num_prompts === 'number' && Number.isFinite(dataset.num_prompts) ? dataset.num_prompts : undefined;
  m.canonicalJsonl = str(dataset.canonical_jsonl);
  if (Array.isArray(dataset.input_len) && Array.isArray(dataset.output_len)) {
    const names = Array.isArray(dataset.scenario_names) ? dataset.scenario_names : [];
    const outs: unknown[] = dataset.output_len;
    (dataset.input_len as unknown[]).forEach((inputLen, i) => {
      const outputLen = outs[i];
      if (typeof inputLen === 'number' && typeof outputLen === 'number') m.scenarios.push({ name: str(names[i]) ?? `scenario_${i}`, inputLen, outputLen });
    });
  }
  return m;
}
