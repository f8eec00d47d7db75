// A plan's workload and trial settings: endpoint, dataset, prompts and seed, fixed (rate, concurrency) points and the rate search.
import { FILE_KINDS } from '../workload/dataset-keys';
import { readPlanDataset, type DatasetContext, type PlanDataset } from './dataset';
import { isObj, listOf, num, objAt, str, strOrNum, type Obj } from './read-json';
import { OBJECTIVES, type BenchSettings, type CostSettings, type Endpoint, type Objective, type SearchSpec, type TrialPoint, type VerdictSettings } from './types';

export const DEFAULT_NUM_PROMPTS = 80;
export const DEFAULT_SEED = 1;
/** The playbook's default for qps.max_rounds (its validator's parity); the runner's cap when a plan sets none is DEFAULT_SEARCH_ROUNDS. */
export const DEFAULT_MAX_ROUNDS = 5;
export const DEFAULT_TOLERANCE = 0.1;
/** qps.rel_tolerance: the bracket closes once it is this fraction of the best passing rate (or qps.tolerance, the wider). */
export const DEFAULT_REL_TOLERANCE = 0.02;
/**
 * The runner's bisection cap when the plan sets no qps.max_rounds: enough halvings for a 2% bracket from the usual bounds
 * (a 0..upper bracket is 2^-10 of upper after 10 rounds), where the playbook's 5 leaves ~3% of upper even on a knee at upper.
 */
export const DEFAULT_SEARCH_ROUNDS = 10;
/** A trial may grow to this many times the plan's prompts before a too-short measurement is called invalid. */
export const MAX_LENGTHEN = 8;

/**
 * The `verdict:` block's defaults (issue 26): differences under 3% are "equivalent", at most 16 repeats, 95%
 * intervals, repeat trials as long as the search's. One launch's capacity varies about 4.1% on the simulator at
 * --sim-noise 0.03 (its 3% step-cost factor, amplified by the SLA knee; the trials add 0.4%, all of them sending the
 * plan's workload), and bench:resolution's +5% efficiency is a 6.0% capacity difference. With 1 + 8 launches a side
 * even a test that knew the noise could decide that in at most 86% of runs (z = 6.0 / (4.2·√(2/9)) = 3.0); 16 repeats
 * decided it in 99% of 300 runs (12: 96% of 300, 8: 78% of 120) and named a winner at no difference in 3% of 300
 * (12: 6% of 300, 8: 3% of 120).
 */
export const DEFAULT_VERDICT: Readonly<VerdictSettings> = { objective: 'throughput', minEffect: 0.03, maxRepeats: 16, alpha: 0.05, repeatLength: 1 };

/**
 * Requests a trial at `rate` (req/s) needs for a steady state: arrivals spanning 3 median E2E latencies, and the middle
 * 80% holding the completions the steady window needs. The runner lengthens its trials by this rule, the predictor its
 * virtual ones.
 */
export function steadyRequests(e2eS: number, rate: number, minCompleted = 0): number {
  return Math.max(3 * e2eS * rate + 1, minCompleted / 0.8);
}

const ENDPOINTS: readonly string[] = ['/v1/completions', '/v1/chat/completions', '/generate'];

function readSearch(bench: Obj, concurrencies: Array<number | null>, problems: string[]): SearchSpec | undefined {
  if (!isObj(bench.qps) || num(bench.qps.upper) === undefined) return undefined;
  const q = bench.qps;
  const upper = num(q.upper) as number;
  if (!(upper > 0)) problems.push('benchmark.qps.upper must be a positive request rate');
  const lower = Math.max(0, num(q.lower) ?? 0);
  const maxRounds = Math.max(1, Math.floor(num(q.max_rounds) ?? DEFAULT_SEARCH_ROUNDS));
  let relTolerance = DEFAULT_REL_TOLERANCE;
  if (q.rel_tolerance !== undefined && q.rel_tolerance !== null) {
    const rel = num(q.rel_tolerance);
    if (rel !== undefined && rel > 0 && rel <= 0.5) relTolerance = rel;
    else problems.push('benchmark.qps.rel_tolerance must be a number in (0, 0.5]');
  }
  return { lower, upper, tolerance: num(q.tolerance) ?? DEFAULT_TOLERANCE, relTolerance, maxRounds, concurrencies };
}

/** The top-level `verdict:` block, every key filled with its default, and the `cost:` block it prices with; a bad value goes to `problems` (and its default is kept). */
export function readVerdict(root: Obj, problems: string[]): VerdictSettings {
  const out: VerdictSettings = { ...DEFAULT_VERDICT };
  const cost = readCost(root, problems);
  if (cost) out.cost = cost;
  if (root.verdict === undefined || root.verdict === null) return out;
  if (!isObj(root.verdict)) {
    problems.push('verdict must be a mapping (objective, min_effect, max_repeats, alpha, repeat_length, gpu_budget_s)');
    return out;
  }
  const v = root.verdict;
  const read = (key: string, ok: (x: number) => boolean, what: string): number | undefined => {
    if (v[key] === undefined || v[key] === null) return undefined;
    const x = num(v[key]);
    if (x !== undefined && ok(x)) return x;
    problems.push(`verdict.${key} must be ${what}`);
    return undefined;
  };
  out.minEffect = read('min_effect', (x) => x >= 0 && x <= 0.5, 'a number in [0, 0.5]') ?? out.minEffect;
  out.maxRepeats = read('max_repeats', (x) => Number.isInteger(x) && x >= 0, 'an integer of 0 or more') ?? out.maxRepeats;
  out.alpha = read('alpha', (x) => x > 0 && x <= 0.5, 'a number in (0, 0.5]') ?? out.alpha;
  const budget = read('gpu_budget_s', (x) => x > 0, 'a positive number of GPU-seconds');
  if (budget !== undefined) out.gpuBudgetS = budget;
  out.repeatLength = read('repeat_length', (x) => Number.isInteger(x) && x >= 1 && x <= MAX_LENGTHEN, `an integer from 1 to ${MAX_LENGTHEN}`) ?? out.repeatLength;
  out.objective = readObjective(v.objective, out.cost, problems) ?? out.objective;
  return out;
}

function readObjective(v: unknown, cost: CostSettings | undefined, problems: string[]): Objective | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !(OBJECTIVES as readonly string[]).includes(v)) {
    problems.push(`verdict.objective must be one of ${OBJECTIVES.join(', ')}`);
    return undefined;
  }
  // per_dollar without prices is the checker's finding (config/objective-rules.ts), which stops the run.
  return v === 'per_dollar' && !cost ? undefined : (v as Objective);
}

/** `cost.gpu_hour_usd`: one positive price, or a mapping of GPU model to a positive price. */
function readCost(root: Obj, problems: string[]): CostSettings | undefined {
  if (root.cost === undefined || root.cost === null) return undefined;
  const p = isObj(root.cost) ? root.cost.gpu_hour_usd : undefined;
  const bad = (): undefined => (problems.push('cost.gpu_hour_usd must be a positive number of US dollars per GPU-hour, or a mapping of GPU model to one (e.g. {H100: 2.5, H200: 3.5})'), undefined);
  if (typeof p === 'number') return p > 0 && Number.isFinite(p) ? { gpuHourUsd: p } : bad();
  if (!isObj(p) || Object.keys(p).length === 0) return bad();
  const prices: Record<string, number> = {};
  for (const [k, x] of Object.entries(p)) {
    if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x)) return bad();
    prices[k] = x;
  }
  return { gpuHourUsd: prices };
}

function readConcurrencies(bench: Obj): Array<number | null> {
  const out = listOf<number | null>(bench.max_concurrency, (x) => (x === null ? null : num(x) !== undefined && (x as number) >= 1 ? Math.floor(x as number) : undefined)) ?? [null];
  if (out.length === 0) out.push(null);
  return out;
}

function fixedPoints(bench: Obj, concurrencies: Array<number | null>, search: SearchSpec | undefined): TrialPoint[] {
  const rates = listOf<number | 'inf'>(bench.request_rates, (x) => (x === 'inf' || x === Infinity ? 'inf' : num(x) !== undefined && (x as number) > 0 ? (x as number) : undefined));
  const fixed: TrialPoint[] = [];
  // Neither fixed rates nor a search: one burst per concurrency, as bench_serving does by default.
  for (const concurrency of concurrencies) for (const rate of rates ?? (search ? [] : ['inf' as const])) fixed.push({ rate, concurrency });
  return fixed;
}

function writtenFacts(root: Obj, d: PlanDataset): BenchSettings['asWritten'] {
  const out: BenchSettings['asWritten'] = {};
  const endpoint = strOrNum(objAt(root.benchmark).endpoint);
  if (endpoint) out.endpoint = endpoint;
  if (isObj(root.dataset)) {
    // A kind the plan leaves out is the one the run uses (builtin-text for speculative candidates, else random).
    out.datasetKind = strOrNum(root.dataset.kind) ?? d.kind;
    const n = num(root.dataset.num_prompts);
    if (n !== undefined) out.numPrompts = n;
  }
  return out;
}

/** Reads benchmark and dataset (`ctx`: the plan's folder and its speculative candidates); what the runner cannot do goes to `problems`. */
export function readBench(root: Obj, problems: string[], ctx: DatasetContext = { planDir: process.cwd(), speculative: [] }): BenchSettings {
  const bench = objAt(root.benchmark);
  const dataset = objAt(root.dataset);
  const d = readPlanDataset(root, ctx, problems);
  const endpoint = (bench.endpoint ?? '/v1/completions') as Endpoint;
  if (!ENDPOINTS.includes(endpoint)) problems.push(`benchmark.endpoint ${JSON.stringify(endpoint)} is not one of /v1/completions, /v1/chat/completions, /generate`);
  const numPrompts = num(dataset.num_prompts) ?? DEFAULT_NUM_PROMPTS;
  if (!Number.isInteger(numPrompts) || numPrompts < 1) problems.push('dataset.num_prompts must be a positive integer');
  const concurrencies = readConcurrencies(bench);
  const search = readSearch(bench, concurrencies, problems);
  return {
    endpoint,
    backend: str(bench.backend),
    datasetKind: d.kind,
    dataset: d,
    asWritten: writtenFacts(root, d),
    canonicalJsonl: str(dataset.canonical_jsonl) ?? (FILE_KINDS.includes(d.kind) ? str(dataset.path) : undefined),
    numPrompts,
    seed: num(dataset.seed) ?? num(bench.seed) ?? DEFAULT_SEED,
    extraBody: objAt(bench.extra_request_body),
    fixed: fixedPoints(bench, concurrencies, search),
    search,
    verdict: readVerdict(root, problems),
  };
}
