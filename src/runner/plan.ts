// From a checked config to what a run does: frameworks (run, skipped, user-excluded), candidates with skip reasons, scenarios, trials, SLA.
import { planFramework, type CheckResult, type FrameworkPlan, type RenderedCandidate } from '../core/config/check';
import { pyStr, toJson, type PyValue } from '../core/py/value';
import type { Finding } from '../core/config/finding';
import type { Scenario } from '../core/config/playbook-rules';
import { FRAMEWORKS, type FrameworkKey } from '../core/frameworks/types';
import type { SlaLimits } from '../core/results/sla';
import { DEFAULT_MAX_ROUNDS, DEFAULT_TOLERANCE, type RateSearchConfig } from './rate-search';
import { PlanError, type Tier } from './types';

export interface PlannedCandidate {
  framework: FrameworkKey;
  /** `baseline` or `c<n>`, as `validate --json` and the code lenses number them. */
  id: string;
  index: number;
  /** `baseline`, or the search values it sets (`max_num_seqs=128, chunked_prefill_size=4096`). */
  name: string;
  /** The exact command line launched (the string the code lens shows). */
  command: string;
  argv: string[];
  flags: Record<string, unknown>;
  /** Flag keys that reach the command line (null values render nothing). */
  usedKeys: string[];
  /** Why it will not run (an unknown flag), when it will not. */
  skip?: string;
  /** What the skip is about: an unknown flag is re-judged once the target's own --help is captured. */
  skipKind?: 'unknown-flag';
}

export interface PlannedFramework {
  framework: FrameworkKey;
  status: 'run' | 'skipped' | 'user_excluded';
  reason?: string;
  serverCommand: string;
  candidates: PlannedCandidate[];
  totalCombinations: number;
  /** Where the flag names were checked: the built-in table or a snapshot. */
  knownFrom: string;
}

export interface TrialPoint {
  rate: number | 'inf';
  concurrency: number | null;
}

export interface SearchSpec extends RateSearchConfig {
  concurrencies: Array<number | null>;
}

export type Endpoint = '/v1/completions' | '/v1/chat/completions' | '/generate';

export interface BenchSettings {
  endpoint: Endpoint;
  datasetKind: 'random' | 'random-ids';
  numPrompts: number;
  seed: number;
  extraBody: Record<string, unknown>;
  /** Fixed (rate, concurrency) points, measured once each. */
  fixed: TrialPoint[];
  /** The rate search under the SLA, per concurrency. */
  search: SearchSpec | undefined;
}

export interface VersionRecord {
  containerImage?: string;
  packageVersion?: string;
  serverHelp?: string;
}

export interface RunPlan {
  model: string;
  /** The tokenizer the plan names (benchmark.tokenizer, else model.tokenizer). */
  tokenizer: string | undefined;
  scenarios: Scenario[];
  frameworks: PlannedFramework[];
  bench: BenchSettings;
  sla: SlaLimits;
  hardware: { gpuCount?: number; gpuModel?: string };
  tier: Tier;
  maxCandidates: number;
  versions: Partial<Record<FrameworkKey, VersionRecord>>;
  outputDir: string | undefined;
  resume: boolean;
  /** Warnings of the config check, as `path: message` lines. */
  warnings: string[];
}

/** Tier 3 lists every combination, up to this many candidates per framework. */
export const TIER3_MAX_CANDIDATES = 256;
export const DEFAULT_NUM_PROMPTS = 80;
export const DEFAULT_SEED = 1;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function where(f: Finding): string {
  return f.path.length ? f.path.join('.') : '(root)';
}

/** The framework a finding is about, when it is about one. */
function findingFramework(f: Finding): FrameworkKey | undefined {
  if (f.path[0] !== 'frameworks' || f.path.length < 2) return undefined;
  const fw = f.path[1];
  return typeof fw === 'string' && (FRAMEWORKS as readonly string[]).includes(fw) ? (fw as FrameworkKey) : undefined;
}

const TRT_BACKEND_CODES = new Set(['trt-base-backend', 'trt-backend-policy', 'trt-backend-searched']);

/** Unknown flag names of one framework (key -> message) from a check's errors. */
export function unknownFlags(check: CheckResult, fw: FrameworkKey): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of check.findings) {
    if (f.severity !== 'error' || findingFramework(f) !== fw) continue;
    if (f.code === 'unknown-flag' && typeof f.path[3] === 'string') out.set(f.path[3], f.message);
    // vLLM's grouped summary lists no flags: every flag is "unknown" to it.
    if (f.code === 'snapshot-grouped') out.set('*', f.message);
  }
  return out;
}

/** Skip reasons for candidates that use a flag the framework's CLI does not know. */
export function skipForUnknown(cands: PlannedCandidate[], unknown: Map<string, string>, against: string): void {
  if (unknown.size === 0) return;
  for (const c of cands) {
    if (c.skip) continue;
    const grouped = unknown.get('*');
    if (grouped) {
      c.skip = `not run: ${grouped}`;
      c.skipKind = 'unknown-flag';
      continue;
    }
    const bad = c.usedKeys.filter((k) => unknown.has(k));
    if (bad.length) {
      c.skip = `unknown flag${bad.length > 1 ? 's' : ''} ${bad.map((k) => `'${k}'`).join(', ')} (not in ${against}); never passed to the server`;
      c.skipKind = 'unknown-flag';
    }
  }
}

function candidateName(c: RenderedCandidate): string {
  if (c.index === 0) return 'baseline';
  const parts = [...c.overrides].map(([k, v]) => `${k}=${pyStr(v)}`);
  return parts.length ? parts.join(', ') : c.id;
}

export function plannedCandidates(fw: FrameworkKey, plan: FrameworkPlan): PlannedCandidate[] {
  return plan.candidates.map((c) => ({
    framework: fw,
    id: c.id,
    index: c.index,
    name: candidateName(c),
    command: c.command,
    argv: c.argv,
    flags: toJson(c.flags as unknown as PyValue) as Record<string, unknown>,
    usedKeys: [...c.flags].filter(([, v]) => v !== null).map(([k]) => k),
  }));
}

function listOf<T>(v: unknown, each: (x: unknown) => T | undefined): T[] | undefined {
  if (v === undefined || v === null) return undefined;
  const items = Array.isArray(v) ? v : [v];
  const out: T[] = [];
  for (const x of items) {
    const t = each(x);
    if (t !== undefined) out.push(t);
  }
  return out;
}

function readBench(root: Obj, problems: string[]): BenchSettings {
  const bench = isObj(root.benchmark) ? root.benchmark : {};
  const dataset = isObj(root.dataset) ? root.dataset : {};
  const kind = dataset.kind ?? 'random';
  if (kind !== 'random' && kind !== 'random-ids') {
    problems.push(`dataset.kind ${JSON.stringify(kind)}: the runner builds random and random-ids workloads; other datasets run with 'autobench bench'`);
  }
  const endpoint = (bench.endpoint ?? '/v1/completions') as Endpoint;
  if (!['/v1/completions', '/v1/chat/completions', '/generate'].includes(endpoint)) problems.push(`benchmark.endpoint ${JSON.stringify(endpoint)} is not one of /v1/completions, /v1/chat/completions, /generate`);
  const numPrompts = num(dataset.num_prompts) ?? DEFAULT_NUM_PROMPTS;
  if (!Number.isInteger(numPrompts) || numPrompts < 1) problems.push('dataset.num_prompts must be a positive integer');
  const concurrencies = listOf<number | null>(bench.max_concurrency, (x) => (x === null ? null : num(x) !== undefined && (x as number) >= 1 ? Math.floor(x as number) : undefined)) ?? [null];
  if (concurrencies.length === 0) concurrencies.push(null);
  const rates = listOf<number | 'inf'>(bench.request_rates, (x) => (x === 'inf' || x === Infinity ? 'inf' : num(x) !== undefined && (x as number) > 0 ? (x as number) : undefined));
  let search: SearchSpec | undefined;
  if (isObj(bench.qps) && num(bench.qps.upper) !== undefined) {
    const q = bench.qps;
    const upper = num(q.upper) as number;
    const lower = Math.max(0, num(q.lower) ?? 0);
    const maxRounds = Math.max(1, Math.floor(num(q.max_rounds) ?? DEFAULT_MAX_ROUNDS));
    if (!(upper > 0)) problems.push('benchmark.qps.upper must be a positive request rate');
    search = { lower, upper, tolerance: num(q.tolerance) ?? DEFAULT_TOLERANCE, maxRounds, concurrencies };
  }
  const fixed: TrialPoint[] = [];
  // Neither fixed rates nor a search: one burst per concurrency, as bench_serving does by default.
  for (const concurrency of concurrencies) for (const rate of rates ?? (search ? [] : ['inf' as const])) fixed.push({ rate, concurrency });
  const extra = isObj(bench.extra_request_body) ? bench.extra_request_body : {};
  const seed = num(dataset.seed) ?? num(bench.seed) ?? DEFAULT_SEED;
  return { endpoint, datasetKind: kind === 'random-ids' ? 'random-ids' : 'random', numPrompts, seed, extraBody: extra, fixed, search };
}

function readSla(root: Obj): SlaLimits {
  const bench = isObj(root.benchmark) ? root.benchmark : {};
  const sla = isObj(bench.sla) ? bench.sla : isObj(root.sla) ? root.sla : {};
  const out: SlaLimits = {};
  for (const k of ['max_p50_ttft_ms', 'max_p50_tpot_ms', 'max_p50_e2e_ms', 'min_success_rate'] as const) {
    const v = num(sla[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

export interface PlanOptions {
  tier?: Tier;
  /** --frameworks: the others are user-excluded. */
  only?: readonly string[];
  /** Candidate ids to run (the tier's list filtered); none of the others is tried or recorded. */
  candidates?: readonly string[];
}

/**
 * Errors about one framework skip that framework (a TensorRT-LLM engine backend is unsupported) or the
 * candidates using an unknown flag; any other error stops the run before it starts (PlanError).
 */
export function buildRunPlan(check: CheckResult, opts: PlanOptions = {}): RunPlan {
  const root: unknown = check.root ? toJson(check.root.value) : undefined;
  const problems: string[] = [];
  const byFw = new Map<FrameworkKey, Finding[]>();
  for (const f of check.findings) {
    if (f.severity !== 'error') continue;
    const fw = findingFramework(f);
    if (fw) byFw.set(fw, [...(byFw.get(fw) ?? []), f]);
    else problems.push(`${where(f)}: ${f.message}`);
  }
  if (!isObj(root)) throw new PlanError('the plan cannot run', problems.length ? problems : ['expected a YAML mapping']);
  const only = opts.only ? new Set(opts.only) : undefined;
  if (only) {
    for (const f of only) if (!(FRAMEWORKS as readonly string[]).includes(f)) problems.push(`--frameworks: unknown framework '${f}' (${FRAMEWORKS.join(', ')})`);
  }
  const bench = readBench(root, problems);
  if (check.model.scenarios.length === 0 && problems.length === 0) problems.push('dataset: no scenarios');
  if (!check.model.modelName) problems.push('model.name must be set');
  if (problems.length) throw new PlanError('the plan cannot run', problems);

  const search = isObj(root.search) ? root.search : {};
  const tierRaw = opts.tier ?? num(search.tier) ?? 2;
  const tier: Tier = tierRaw === 1 || tierRaw === 3 ? tierRaw : 2;
  const frameworks: PlannedFramework[] = [];
  for (const sec of check.model.frameworks) {
    const fw = sec.framework;
    const base: PlannedFramework = { framework: fw, status: 'run', serverCommand: sec.serverCommand, candidates: [], totalCombinations: 0, knownFrom: sec.known.label };
    if (sec.userExcluded || (only && !only.has(fw))) {
      const section = isObj(root.frameworks) ? root.frameworks[fw] : undefined;
      const why = !sec.userExcluded ? 'left out by --frameworks' : isObj(section) && section.enabled === false ? 'enabled: false in the plan' : 'not in benchmark.framework_set';
      frameworks.push({ ...base, status: 'user_excluded', reason: why });
      continue;
    }
    const fplan = check.plans.find((p) => p.framework === fw);
    const errors = byFw.get(fw) ?? [];
    const candidates = fplan ? plannedCandidates(fw, tier === 3 ? planFramework(sec, { ...check.model, maxCandidates: TIER3_MAX_CANDIDATES }) : fplan) : [];
    const picked = opts.candidates ? new Set(opts.candidates) : undefined;
    const listed = picked ? candidates.filter((c) => picked.has(c.id)) : tier === 1 ? candidates.slice(0, 1) : candidates;
    const entry: PlannedFramework = { ...base, candidates: listed, totalCombinations: fplan?.totalCombinations ?? 0 };
    const trt = errors.filter((f) => TRT_BACKEND_CODES.has(f.code));
    const other = errors.filter((f) => !TRT_BACKEND_CODES.has(f.code) && f.code !== 'unknown-flag' && f.code !== 'snapshot-grouped');
    if (trt.length) {
      entry.status = 'skipped';
      entry.reason = `unsupported: TensorRT-LLM is run with the PyTorch backend only; an engine (trt) backend is rejected (${trt.map((f) => f.message).join('; ')})`;
    } else if (other.length || !fplan) {
      entry.status = 'skipped';
      entry.reason = `the config is invalid for this framework: ${(other.length ? other : errors).map((f) => f.message).join('; ') || 'its section could not be read'}`;
    } else if (bench.endpoint === '/generate' && fw !== 'sglang') {
      entry.status = 'skipped';
      entry.reason = "benchmark.endpoint /generate is SGLang's native API; other frameworks are compared on an OpenAI endpoint";
    }
    skipForUnknown(entry.candidates, unknownFlags(check, fw), sec.known.source === 'builtin' ? 'the built-in flag table' : sec.known.label);
    frameworks.push(entry);
  }

  const hw = isObj(root.hardware) ? root.hardware : {};
  const versions: Partial<Record<FrameworkKey, VersionRecord>> = {};
  if (isObj(root.version_manifest)) {
    for (const [fw, rec] of Object.entries(root.version_manifest)) {
      if (!isObj(rec) || !(FRAMEWORKS as readonly string[]).includes(fw)) continue;
      const v: VersionRecord = {};
      const img = str(rec.container_image);
      const pv = str(rec.package_version);
      const help = str(rec.server_help);
      if (img) v.containerImage = img;
      if (pv) v.packageVersion = pv;
      if (help) v.serverHelp = help;
      versions[fw as FrameworkKey] = v;
    }
  }
  const benchObj = isObj(root.benchmark) ? root.benchmark : {};
  const model = isObj(root.model) ? root.model : {};
  const gpuCount = num(hw.gpu_count);
  const gpuModel = str(hw.gpu_model);
  return {
    model: check.model.modelName as string,
    tokenizer: str(benchObj.tokenizer) ?? str(model.tokenizer),
    scenarios: check.model.scenarios,
    frameworks,
    bench,
    sla: readSla(root),
    hardware: { ...(gpuCount !== undefined ? { gpuCount } : {}), ...(gpuModel ? { gpuModel } : {}) },
    tier,
    maxCandidates: check.model.maxCandidates,
    versions,
    outputDir: str(search.output_dir) ?? str(benchObj.output_dir),
    resume: search.resume !== false,
    warnings: check.findings.filter((f) => f.severity !== 'error').map((f) => `${where(f)}: ${f.message}`),
  };
}
