// What a report knows about the run beyond the rows: a run plan or cookbook config (YAML or JSON),
// optionally with run keys (run_id, output_dir, substitutions), read into one plain record.
import { pyStr, toJson } from '../py/value';
import { parseYaml } from '../config/yaml-doc';
import { readRunPlan, readSubstitutions, readVersions } from '../plan/build';
import { isObj, strOrNum, type Obj } from '../plan/read-json';
import type { RunPlan, Substitution } from '../plan/types';
import { readSlaLimits, type SlaReading } from '../sla/limits';

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
  versions: Record<string, FactsVersion>;
  frameworks: FactsFramework[];
  maxCandidates?: number;
  outputDir?: string;
  runId?: string;
  substitutions: Substitution[];
  /** Why parts of the file could not be used (never fatal: the rows still make a report). */
  problems: string[];
}

/** A name as written: a string, or a number written where a name was meant. */
const str = strOrNum;

/** What the report knows from a run plan in memory (the runner's own plan, or one read from a file). */
export function runFactsFromPlan(plan: RunPlan): RunFacts {
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
  return m;
}

/** Reads a manifest text: a run plan or cookbook config through the plan reader, else a bare dataset record. `fileName` only labels problems. */
export function parseRunFacts(text: string, fileName: string): RunFacts {
  const empty: RunFacts = { scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: [] };
  const parsed = parseYaml(text);
  if (!parsed.root) return { ...empty, problems: [`${fileName}: ${parsed.problems[0]?.message ?? 'empty file'}`] };
  const root = toJson(parsed.root.value);
  if (!isObj(root)) return { ...empty, problems: [`${fileName}: expected a mapping`] };
  // The config engine knows the scenarios, the framework set and the bounded candidate lists.
  if (isObj(root.frameworks)) return runFactsFromPlan(readRunPlan({ text, path: fileName }, { parse: () => parsed }));
  return datasetManifest(root);
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
