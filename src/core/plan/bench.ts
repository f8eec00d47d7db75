// A plan's workload and trial settings: endpoint, dataset, prompts and seed, fixed (rate, concurrency) points and the rate search.
import { isObj, listOf, num, objAt, str, strOrNum, type Obj } from './read-json';
import type { BenchSettings, Endpoint, SearchSpec, TrialPoint } from './types';

export const DEFAULT_NUM_PROMPTS = 80;
export const DEFAULT_SEED = 1;
/** The playbook's default for qps.max_rounds. */
export const DEFAULT_MAX_ROUNDS = 5;
export const DEFAULT_TOLERANCE = 0.1;

/** A trial may grow to this many times the plan's prompts before a too-short measurement is called invalid. */
export const MAX_LENGTHEN = 8;

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
  const maxRounds = Math.max(1, Math.floor(num(q.max_rounds) ?? DEFAULT_MAX_ROUNDS));
  return { lower, upper, tolerance: num(q.tolerance) ?? DEFAULT_TOLERANCE, maxRounds, concurrencies };
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

function writtenFacts(root: Obj): BenchSettings['asWritten'] {
  const out: BenchSettings['asWritten'] = {};
  const endpoint = strOrNum(objAt(root.benchmark).endpoint);
  if (endpoint) out.endpoint = endpoint;
  if (isObj(root.dataset)) {
    out.datasetKind = strOrNum(root.dataset.kind) ?? 'random';
    const n = num(root.dataset.num_prompts);
    if (n !== undefined) out.numPrompts = n;
  }
  return out;
}

/** Reads benchmark and dataset; what the runner cannot do goes to `problems`. */
export function readBench(root: Obj, problems: string[]): BenchSettings {
  const bench = objAt(root.benchmark);
  const dataset = objAt(root.dataset);
  const kind = dataset.kind ?? 'random';
  if (kind !== 'random' && kind !== 'random-ids') {
    problems.push(`dataset.kind ${JSON.stringify(kind)}: the runner builds random and random-ids workloads; other datasets run with 'autobench bench'`);
  }
  const endpoint = (bench.endpoint ?? '/v1/completions') as Endpoint;
  if (!ENDPOINTS.includes(endpoint)) problems.push(`benchmark.endpoint ${JSON.stringify(endpoint)} is not one of /v1/completions, /v1/chat/completions, /generate`);
  const numPrompts = num(dataset.num_prompts) ?? DEFAULT_NUM_PROMPTS;
  if (!Number.isInteger(numPrompts) || numPrompts < 1) problems.push('dataset.num_prompts must be a positive integer');
  const concurrencies = readConcurrencies(bench);
  const search = readSearch(bench, concurrencies, problems);
  return {
    endpoint,
    backend: str(bench.backend),
    datasetKind: kind === 'random-ids' ? 'random-ids' : 'random',
    asWritten: writtenFacts(root),
    canonicalJsonl: str(dataset.canonical_jsonl),
    numPrompts,
    seed: num(dataset.seed) ?? num(bench.seed) ?? DEFAULT_SEED,
    extraBody: objAt(bench.extra_request_body),
    fixed: fixedPoints(bench, concurrencies, search),
    search,
  };
}
