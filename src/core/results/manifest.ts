// What a report knows about the run beyond the rows: a run plan or cookbook config (YAML or JSON),
// optionally with run keys (run_id, output_dir, substitutions), read into one plain record.
import { checkConfigText } from '../config/check';
import { pyStr, toJson } from '../py/value';
import { parseYaml } from '../config/yaml-doc';
import type { PyJson } from '../py/json';
import { limitsFrom, type SlaLimits } from './sla';

export interface ManifestScenario {
  name: string;
  inputLen: number;
  outputLen: number;
}

export interface ManifestVersion {
  containerImage?: string;
  packageVersion?: string;
  gitCommit?: string;
  serverHelp?: string;
  benchmarkHelp?: string;
}

export interface ManifestFramework {
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

/** A flag the runner had to replace for one framework (renamed, dropped, or swapped for another). */
export interface Substitution {
  framework?: string;
  from: string;
  to?: string;
  reason?: string;
}

export interface RunManifest {
  model?: string;
  gpuModel?: string;
  gpuCount?: number;
  datasetKind?: string;
  numPrompts?: number;
  canonicalJsonl?: string;
  endpoint?: string;
  backend?: string;
  scenarios: ManifestScenario[];
  sla?: { limits: SlaLimits; deprecated: string[] };
  versions: Record<string, ManifestVersion>;
  frameworks: ManifestFramework[];
  maxCandidates?: number;
  outputDir?: string;
  runId?: string;
  substitutions: Substitution[];
  /** Why parts of the file could not be used (never fatal: the rows still make a report). */
  problems: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Plain JSON back to the Python-typed shape limitsFrom reads (floats and ints are both numbers there). */
function toPyJson(v: unknown): PyJson {
  if (Array.isArray(v)) return v.map(toPyJson);
  if (isObj(v)) return new Map(Object.entries(v).map(([k, x]) => [k, toPyJson(x)]));
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v === null) return v;
  return null;
}

/** Reads a manifest text. `fileName` only labels problems. */
export function parseManifest(text: string, fileName: string): RunManifest {
  const m: RunManifest = { scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: [] };
  const parsed = parseYaml(text);
  if (!parsed.root) {
    m.problems.push(`${fileName}: ${parsed.problems[0]?.message ?? 'empty file'}`);
    return m;
  }
  const root = toJson(parsed.root.value);
  if (!isObj(root)) {
    m.problems.push(`${fileName}: expected a mapping`);
    return m;
  }
  const model = root.model;
  m.model = isObj(model) ? str(model.name) : str(model);
  if (isObj(root.hardware)) {
    m.gpuModel = str(root.hardware.gpu_model);
    m.gpuCount = int(root.hardware.gpu_count);
  }
  const dataset = root.dataset;
  if (isObj(dataset)) {
    m.datasetKind = str(dataset.kind) ?? 'random';
    m.numPrompts = int(dataset.num_prompts);
    m.canonicalJsonl = str(dataset.canonical_jsonl);
  }
  const bench = isObj(root.benchmark) ? root.benchmark : {};
  m.endpoint = str(bench.endpoint);
  m.backend = str(bench.backend);
  const slaBlock = bench.sla ?? root.sla;
  if (isObj(slaBlock)) m.sla = limitsFrom(toPyJson(slaBlock));
  if (isObj(root.version_manifest)) {
    for (const [fw, rec] of Object.entries(root.version_manifest)) {
      if (!isObj(rec)) continue;
      m.versions[fw] = {
        containerImage: str(rec.container_image),
        packageVersion: str(rec.package_version),
        gitCommit: str(rec.git_commit),
        serverHelp: str(rec.server_help),
        benchmarkHelp: str(rec.benchmark_help),
      };
    }
  }
  const search = isObj(root.search) ? root.search : {};
  m.outputDir = str(search.output_dir) ?? str(root.output_dir) ?? str(root.artifact_dir);
  m.runId = str(root.run_id);
  const subs = root.substitutions ?? root.parameter_substitutions;
  if (Array.isArray(subs)) {
    for (const s of subs) {
      if (isObj(s) && str(s.from)) m.substitutions.push({ framework: str(s.framework), from: str(s.from) as string, to: str(s.to), reason: str(s.reason) });
    }
  }
  if (isObj(root.frameworks)) {
    // The config engine knows the scenarios, the framework set and the bounded candidate lists.
    const result = checkConfigText(text, { kind: 'auto' });
    m.scenarios = result.model.scenarios.map((s) => ({ name: s.name, inputLen: s.inputLen, outputLen: s.outputLen }));
    m.maxCandidates = result.model.maxCandidates;
    for (const sec of result.model.frameworks) {
      const plan = result.plans.find((p) => p.framework === sec.framework);
      m.frameworks.push({
        framework: sec.framework,
        enabled: sec.enabled,
        userExcluded: sec.userExcluded,
        candidates: plan?.candidates.length ?? 0,
        totalCombinations: plan?.totalCombinations ?? 0,
        untried: (plan?.untried ?? []).map((u) => `${u.key}=${pyStr(u.value)}`),
      });
    }
    m.model ??= result.model.modelName;
  } else if (isObj(dataset) && Array.isArray(dataset.input_len) && Array.isArray(dataset.output_len)) {
    const names = Array.isArray(dataset.scenario_names) ? dataset.scenario_names : [];
    dataset.input_len.forEach((inputLen, i) => {
      const outputLen = (dataset.output_len as unknown[])[i];
      if (typeof inputLen === 'number' && typeof outputLen === 'number') m.scenarios.push({ name: str(names[i]) ?? `scenario_${i}`, inputLen, outputLen });
    });
  }
  return m;
}
