// Aggregate metrics of one run from its request records: latency statistics, throughputs, concurrency, peaks, goodput, and (from trust.ts) the steady window, 95% intervals, validity counts and cache hits.
import { summarize, type Summary } from '../core/workload/stats';
import type { OutputTokensSource, RequestRecord } from './record';
import { cacheHits, intervals, steadyWindow, validity, type IntervalOptions, type Intervals, type SteadyWindow, type Validity } from './trust';

export interface GoodputSlo {
  ttftMs?: number;
  tpotMs?: number;
  e2eMs?: number;
}

export interface LatencyStats {
  mean: number | null;
  median: number | null;
  std: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  count: number;
}

export interface BenchMetrics {
  durationS: number;
  total: number;
  completed: number;
  failed: number;
  successRate: number;
  totalInputTokens: number;
  totalInputTokensServer: number | null;
  totalOutputTokens: number;
  requestThroughput: number;
  inputThroughput: number;
  outputThroughput: number;
  totalThroughput: number;
  /** Mean requests in flight: sum of E2E latencies / duration. */
  concurrency: number;
  ttft: LatencyStats;
  tpot: LatencyStats;
  itl: LatencyStats;
  e2e: LatencyStats;
  /** Time requests waited for a concurrency slot (start - arrival). */
  clientQueue: LatencyStats;
  /** Highest count of output tokens in any 1-second bucket from the first start. */
  maxOutputTokensPerS: number;
  /** Exact peak of requests in flight (half-open [start, end) intervals). */
  maxConcurrentRequests: number;
  goodput: { slo: GoodputSlo; good: number; requestGoodput: number } | null;
  /** Requests that left the client per second, over the span from the first to the last send. */
  achievedRequestRate: number | null;
  outputTokensSource: Record<OutputTokensSource, number>;
  errors: Record<string, number>;
  /** The run between its ramp-up and its drain (10%–90% of completions), and whether it was too short for a verdict. */
  steady: SteadyWindow;
  /** 95% intervals of the throughputs (steady window) and latency percentiles. */
  intervals: Intervals;
  /** Counts the caller judges: zero and short outputs, failures by kind. */
  validity: Validity;
  /** Prompt tokens the server reported as served from its prefix cache (successful requests); null when it never reported any. */
  cachedPromptTokens: number | null;
  /** cachedPromptTokens / the prompt tokens of the requests that reported it; null when never reported. */
  cacheHitFraction: number | null;
}

export interface MetricsOptions {
  /** Bootstrap seed and resamples (defaults: BOOTSTRAP_SEED, RESAMPLES). */
  bootstrap?: IntervalOptions;
}

function toStats(s: Summary | null): LatencyStats {
  if (!s) return { mean: null, median: null, std: null, p90: null, p95: null, p99: null, max: null, count: 0 };
  return { mean: s.mean, median: s.median, std: s.std, p90: s.p90, p95: s.p95, p99: s.p99, max: s.max, count: s.count };
}

/** TPOT = (E2E - TTFT) / (output tokens - 1), only for requests with more than one output token. */
export function tpotOf(r: RequestRecord): number | undefined {
  return r.outputTokens > 1 ? (r.e2eMs - r.ttftMs) / (r.outputTokens - 1) : undefined;
}

export function isGood(r: RequestRecord, slo: GoodputSlo): boolean {
  if (!r.success) return false;
  if (slo.ttftMs !== undefined && !(r.ttftMs <= slo.ttftMs)) return false;
  // A request with at most one output token has no TPOT; it counts as 0 (as vLLM does).
  if (slo.tpotMs !== undefined && !((tpotOf(r) ?? 0) <= slo.tpotMs)) return false;
  if (slo.e2eMs !== undefined && !(r.e2eMs <= slo.e2eMs)) return false;
  return true;
}

export function computeMetrics(records: readonly RequestRecord[], durationMs: number, goodput?: GoodputSlo, opts: MetricsOptions = {}): BenchMetrics {
  const ok = records.filter((r) => r.success);
  const durationS = durationMs / 1000;
  const ttfts: number[] = [];
  const tpots: number[] = [];
  const e2es: number[] = [];
  let itlCount = 0;
  for (const r of ok) itlCount += r.itlMs.length;
  const itls = new Float64Array(itlCount);
  let k = 0;
  let input = 0;
  let output = 0;
  let serverInput = 0;
  let serverInputAll = ok.length > 0;
  let e2eSum = 0;
  const sources: Record<OutputTokensSource, number> = { usage: 0, tokenizer: 0, stream: 0, requested: 0 };
  for (const r of ok) {
    ttfts.push(r.ttftMs);
    e2es.push(r.e2eMs);
    e2eSum += r.e2eMs;
    const tp = tpotOf(r);
    if (tp !== undefined) tpots.push(tp);
    for (const g of r.itlMs) itls[k++] = g;
    input += r.promptLen;
    output += r.outputTokens;
    if (r.promptTokensServer !== undefined) serverInput += r.promptTokensServer;
    else serverInputAll = false;
    sources[r.outputTokensSource]++;
  }
  const errors: Record<string, number> = {};
  for (const r of records) if (!r.success) errors[r.errorKind ?? 'other'] = (errors[r.errorKind ?? 'other'] ?? 0) + 1;
  const queue = records.map((r) => r.startMs - r.arrivalMs);
  const starts = records.map((r) => r.startMs).sort((a, b) => a - b);
  const span = starts.length > 1 ? ((starts[starts.length - 1] as number) - (starts[0] as number)) / 1000 : 0;
  let good: BenchMetrics['goodput'] = null;
  if (goodput && (goodput.ttftMs !== undefined || goodput.tpotMs !== undefined || goodput.e2eMs !== undefined)) {
    const n = ok.filter((r) => isGood(r, goodput)).length;
    good = { slo: goodput, good: n, requestGoodput: durationS > 0 ? n / durationS : 0 };
  }
  const per = (x: number): number => (durationS > 0 ? x / durationS : 0);
  const e2e = toStats(summarize(e2es));
  const steady = steadyWindow(records, ok, e2e.median);
  return {
    durationS,
    total: records.length,
    completed: ok.length,
    failed: records.length - ok.length,
    successRate: records.length > 0 ? ok.length / records.length : 0,
    totalInputTokens: input,
    totalInputTokensServer: serverInputAll ? serverInput : null,
    totalOutputTokens: output,
    requestThroughput: per(ok.length),
    inputThroughput: per(input),
    outputThroughput: per(output),
    totalThroughput: per(input + output),
    concurrency: per(e2eSum / 1000),
    ttft: toStats(summarize(ttfts)),
    tpot: toStats(summarize(tpots)),
    itl: toStats(summarize(itls)),
    e2e,
    clientQueue: toStats(summarize(queue)),
    maxOutputTokensPerS: peakTokensPerSecond(ok),
    maxConcurrentRequests: peakConcurrency(ok),
    goodput: good,
    achievedRequestRate: span > 0 ? (starts.length - 1) / span : null,
    outputTokensSource: sources,
    errors,
    steady,
    intervals: intervals(records, ok, { ttft: ttfts, tpot: tpots, e2e: e2es }, steady, opts.bootstrap),
    validity: validity(records, errors),
    ...cacheHits(ok),
  };
}

/** Token times are start + TTFT, then the running sum of the per-token gaps; counted into 1 s buckets. */
export function peakTokensPerSecond(ok: readonly RequestRecord[]): number {
  if (ok.length === 0) return 0;
  let first = Infinity;
  for (const r of ok) if (r.startMs < first) first = r.startMs;
  const buckets = new Map<number, number>();
  const add = (t: number, n: number): void => {
    const b = Math.floor((t - first) / 1000);
    buckets.set(b, (buckets.get(b) ?? 0) + n);
  };
  for (const r of ok) {
    let t = r.startMs + r.ttftMs;
    // The first event may carry several tokens; the ITL list covers the rest one per token.
    add(t, Math.max(1, r.outputTokens - r.itlMs.length));
    for (const g of r.itlMs) {
      t += g;
      add(t, 1);
    }
  }
  let peak = 0;
  for (const v of buckets.values()) if (v > peak) peak = v;
  return peak;
}

/** Exact sweep; a departure at the same instant as an arrival is counted first. */
export function peakConcurrency(ok: readonly RequestRecord[]): number {
  const ev: [number, number][] = [];
  for (const r of ok) {
    ev.push([r.startMs, 1], [r.startMs + r.e2eMs, -1]);
  }
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let peak = 0;
  for (const [, d] of ev) {
    cur += d;
    if (cur > peak) peak = cur;
  }
  return peak;
}
