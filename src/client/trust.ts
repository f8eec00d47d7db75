// How far a run's numbers can be trusted: the steady-state window and whether the run was too short for one, 95% intervals, validity counts, cache hits, and whether the client itself was the bottleneck.
import { BOOTSTRAP_SEED, CONFIDENCE, RESAMPLES, blockBootstrapRate, percentileBootstrap, seedFor, wilson, type Interval } from './bootstrap';
import type { ErrorKind, RequestRecord } from './record';

/** The steady window holds at least this many completions, and at least 2 × the requests in flight. */
export const STEADY_MIN_COMPLETED = 20;
export const STEADY_MIN_TURNOVERS = 2;
/** The arrivals must span at least this many median E2E latencies. */
export const STEADY_MIN_SPAN_E2E = 3;
/** Equal time bins of the steady window for the throughput intervals. */
export const THROUGHPUT_BINS = 20;
/** Fewest completions in the steady window for a throughput interval. */
export const MIN_INTERVAL_COMPLETIONS = 20;
/** Fewest samples for a p50 interval. */
export const MIN_P50_SAMPLES = 20;
/**
 * Fewest samples for a p99 interval, 368: with fewer, all of them fall below the true p99 more than
 * 2.5% of the time (0.99^n > 0.025), so not even the largest is a 97.5% upper bound for it.
 */
export const MIN_P99_SAMPLES = Math.ceil(Math.log((1 - CONFIDENCE) / 2) / Math.log(0.99));
/** The client is the bottleneck when its event loop lags more than this at p99 ... */
export const CLIENT_LAG_P99_LIMIT_MS = 20;
/** ... or it used more than this much of one core. */
export const CLIENT_CPU_LIMIT_PERCENT = 90;

/**
 * The steady-state window: successful requests' completions (start + E2E) sorted, c_1 ≤ … ≤ c_n; the
 * window is (c_i, c_j] with i = max(1, ⌈n/10⌉) and j = ⌊9n/10⌋ (1-based), so ramp-up and drain fall
 * outside. It exists when j > i and c_j > c_i (n ≥ 3 at the least); else its times and rates are null.
 */
export interface SteadyWindow {
  /** c_i, seconds after the run's t = 0 (the records' origin). */
  startS: number | null;
  /** c_j, seconds after the run's t = 0. */
  endS: number | null;
  /** endS - startS; 0 without a window. */
  durationS: number;
  /** Successful requests completing in (startS, endS]. */
  completed: number;
  /** Mean requests in flight over the window (every sent request, failed ones too). */
  concurrency: number | null;
  /** completed / durationS (req/s). */
  requestThroughput: number | null;
  /** Output tokens of the requests completing in the window / durationS (tok/s). */
  outputThroughput: number | null;
  /** Prompt + output tokens of those requests / durationS (tok/s). */
  totalThroughput: number | null;
  /** Completions the window needs: max(20, 2 × concurrency). */
  minCompleted: number;
  /** Why the run is too short for a verdict; null when it is long enough. */
  tooShort: string | null;
}

/** 95% intervals, [low, high]; null where there are too few samples (the MIN_* constants). */
export interface Intervals {
  confidence: number;
  resamples: number;
  /** Of the steady-window rates (moving-block bootstrap over time bins). */
  requestThroughput: Interval | null;
  outputThroughput: Interval | null;
  totalThroughput: Interval | null;
  /** Of the percentiles over all successful requests (percentile bootstrap over requests). */
  p50TtftMs: Interval | null;
  p99TtftMs: Interval | null;
  p50TpotMs: Interval | null;
  p99TpotMs: Interval | null;
  p50E2eMs: Interval | null;
  p99E2eMs: Interval | null;
  /** Of the success rate (Wilson score). */
  successRate: Interval | null;
}

/** Facts for the caller to judge; counts only. */
export interface Validity {
  /** Requests the server answered (HTTP 200) with no output token: successes counted 0, and streams with none (also 'empty' errors). */
  zeroOutputRequests: number;
  /** Successful requests that demanded their full length (ignore_eos, or min tokens ≥ max) yet got fewer tokens than asked. */
  shortOutputRequests: number;
  /** Requests sent demanding their full length. */
  ignoreEosRequests: number;
  /** Failed requests of any kind (HTTP status, in-stream error, malformed, connection, timeout, cancel). */
  errorResponses: number;
  errorsByKind: Partial<Record<ErrorKind, number>>;
}

/** Completion time of a successful record, ms after t = 0. */
function doneAt(r: RequestRecord): number {
  return r.startMs + r.e2eMs;
}

interface Window {
  a: number;
  b: number;
}

/** The window's ends in ms (see SteadyWindow), or null. */
export function steadyBounds(ok: readonly RequestRecord[]): Window | null {
  const n = ok.length;
  const c = new Float64Array(n);
  for (let k = 0; k < n; k++) c[k] = doneAt(ok[k] as RequestRecord);
  c.sort();
  // Integer arithmetic: 0.1 * 30 is 3.0000000000000004 in floating point.
  const i = Math.max(1, Math.floor((n + 9) / 10));
  const j = Math.floor((9 * n) / 10);
  if (j <= i) return null;
  const a = c[i - 1] as number;
  const b = c[j - 1] as number;
  return b > a ? { a, b } : null;
}

/** Mean requests in flight over [a, b]: each request's [start, finish) overlap with it, summed. */
function meanInFlight(records: readonly RequestRecord[], w: Window): number {
  let busy = 0;
  for (const r of records) {
    const end = r.startMs + r.e2eMs;
    if (!Number.isFinite(end)) continue;
    busy += Math.max(0, Math.min(end, w.b) - Math.max(r.startMs, w.a));
  }
  return busy / (w.b - w.a);
}

/** Per-bin completions, output tokens and prompt + output tokens over THROUGHPUT_BINS equal bins of (a, b]. */
function binned(ok: readonly RequestRecord[], w: Window): { reqs: Float64Array; out: Float64Array; all: Float64Array } {
  const k = THROUGHPUT_BINS;
  const width = (w.b - w.a) / k;
  const reqs = new Float64Array(k);
  const out = new Float64Array(k);
  const all = new Float64Array(k);
  for (const r of ok) {
    const t = doneAt(r);
    if (!(t > w.a && t <= w.b)) continue;
    const bin = Math.min(k - 1, Math.floor((t - w.a) / width));
    reqs[bin] = (reqs[bin] as number) + 1;
    out[bin] = (out[bin] as number) + r.outputTokens;
    all[bin] = (all[bin] as number) + r.outputTokens + r.promptLen;
  }
  return { reqs, out, all };
}

/**
 * The steady window and its rates; too short when it holds fewer than max(20, 2 × in flight)
 * completions, or the sends spanned under 3 × the median E2E latency.
 */
export function steadyWindow(records: readonly RequestRecord[], ok: readonly RequestRecord[], medianE2eMs: number | null): SteadyWindow {
  const w = steadyBounds(ok);
  const why: string[] = [];
  let out: SteadyWindow = {
    startS: null,
    endS: null,
    durationS: 0,
    completed: 0,
    concurrency: null,
    requestThroughput: null,
    outputThroughput: null,
    totalThroughput: null,
    minCompleted: STEADY_MIN_COMPLETED,
    tooShort: null,
  };
  if (w) {
    let done = 0;
    let outTok = 0;
    let inTok = 0;
    for (const r of ok) {
      const t = doneAt(r);
      if (t > w.a && t <= w.b) {
        done++;
        outTok += r.outputTokens;
        inTok += r.promptLen;
      }
    }
    const s = (w.b - w.a) / 1000;
    const conc = meanInFlight(records, w);
    out = {
      startS: w.a / 1000,
      endS: w.b / 1000,
      durationS: s,
      completed: done,
      concurrency: conc,
      requestThroughput: done / s,
      outputThroughput: outTok / s,
      totalThroughput: (inTok + outTok) / s,
      minCompleted: Math.max(STEADY_MIN_COMPLETED, STEADY_MIN_TURNOVERS * conc),
      tooShort: null,
    };
  }
  if (out.completed < out.minCompleted) {
    const inFlight = out.concurrency === null ? '' : `, 2 × ${out.concurrency.toFixed(1)} in flight`;
    why.push(`${out.completed} completion(s) in the steady window (10%–90% of ${ok.length}); a verdict needs ${Math.ceil(out.minCompleted)} (at least ${STEADY_MIN_COMPLETED}${inFlight})`);
  }
  let first = Infinity;
  let last = -Infinity;
  for (const r of records) {
    if (r.startMs < first) first = r.startMs;
    if (r.startMs > last) last = r.startMs;
  }
  const span = records.length > 0 ? last - first : 0;
  if (medianE2eMs !== null && span < STEADY_MIN_SPAN_E2E * medianE2eMs) {
    why.push(`requests were sent over ${(span / 1000).toFixed(2)} s, under ${STEADY_MIN_SPAN_E2E} × the median E2E latency (${((STEADY_MIN_SPAN_E2E * medianE2eMs) / 1000).toFixed(2)} s)`);
  }
  out.tooShort = why.length > 0 ? why.join('; ') : null;
  return out;
}

function sortedOf(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** p50 and p99 intervals of one latency, each null below its minimum sample. */
function latencyIntervals(values: ArrayLike<number>, label: string, seed: number, resamples: number): [Interval | null, Interval | null] {
  const n = values.length;
  if (n < MIN_P50_SAMPLES) return [null, null];
  const sorted = sortedOf(values);
  if (n < MIN_P99_SAMPLES) {
    const [p50] = percentileBootstrap(sorted, [50], seedFor(seed, label), resamples);
    return [p50 ?? null, null];
  }
  const [p50, p99] = percentileBootstrap(sorted, [50, 99], seedFor(seed, label), resamples);
  return [p50 ?? null, p99 ?? null];
}

export interface IntervalOptions {
  seed?: number;
  resamples?: number;
}

export function intervals(
  records: readonly RequestRecord[],
  ok: readonly RequestRecord[],
  lat: { ttft: ArrayLike<number>; tpot: ArrayLike<number>; e2e: ArrayLike<number> },
  steady: SteadyWindow,
  o: IntervalOptions = {},
): Intervals {
  const seed = o.seed ?? BOOTSTRAP_SEED;
  const resamples = o.resamples ?? RESAMPLES;
  const [p50TtftMs, p99TtftMs] = latencyIntervals(lat.ttft, 'ttft', seed, resamples);
  const [p50TpotMs, p99TpotMs] = latencyIntervals(lat.tpot, 'tpot', seed, resamples);
  const [p50E2eMs, p99E2eMs] = latencyIntervals(lat.e2e, 'e2e', seed, resamples);
  let requestThroughput: Interval | null = null;
  let outputThroughput: Interval | null = null;
  let totalThroughput: Interval | null = null;
  if (steady.startS !== null && steady.endS !== null && steady.completed >= MIN_INTERVAL_COMPLETIONS) {
    const w = { a: steady.startS * 1000, b: steady.endS * 1000 };
    const bins = binned(ok, w);
    const binS = steady.durationS / THROUGHPUT_BINS;
    requestThroughput = blockBootstrapRate(bins.reqs, binS, seedFor(seed, 'requests'), resamples);
    outputThroughput = blockBootstrapRate(bins.out, binS, seedFor(seed, 'output'), resamples);
    totalThroughput = blockBootstrapRate(bins.all, binS, seedFor(seed, 'total'), resamples);
  }
  return {
    confidence: CONFIDENCE,
    resamples,
    requestThroughput,
    outputThroughput,
    totalThroughput,
    p50TtftMs,
    p99TtftMs,
    p50TpotMs,
    p99TpotMs,
    p50E2eMs,
    p99E2eMs,
    successRate: records.length > 0 ? wilson(ok.length, records.length) : null,
  };
}

export function validity(records: readonly RequestRecord[], errors: Partial<Record<ErrorKind, number>>): Validity {
  let zero = 0;
  let short = 0;
  let full = 0;
  let failed = 0;
  for (const r of records) {
    if (r.ignoreEos) full++;
    if (!r.success) {
      failed++;
      if (r.errorKind === 'empty') zero++;
      continue;
    }
    if (r.outputTokens === 0) zero++;
    // 'requested' is the asked length itself, not a count.
    else if (r.ignoreEos && r.outputTokensSource !== 'requested' && r.outputTokens < r.outputLenRequested) short++;
  }
  return { zeroOutputRequests: zero, shortOutputRequests: short, ignoreEosRequests: full, errorResponses: failed, errorsByKind: { ...errors } };
}

/** Cached prompt tokens over the successful requests that reported them, and their share of those requests' prompt tokens. */
export function cacheHits(ok: readonly RequestRecord[]): { cachedPromptTokens: number | null; cacheHitFraction: number | null } {
  let cached = 0;
  let prompt = 0;
  let known = false;
  for (const r of ok) {
    if (r.cachedTokens === undefined) continue;
    known = true;
    cached += r.cachedTokens;
    prompt += r.promptTokensServer ?? r.promptLen;
  }
  if (!known) return { cachedPromptTokens: null, cacheHitFraction: null };
  return { cachedPromptTokens: cached, cacheHitFraction: prompt > 0 ? cached / prompt : null };
}

/** A measured window shorter than this says nothing about the client's CPU or lag (a few samples, GC and start-up threads). */
export const CLIENT_MIN_WINDOW_MS = 1000;

/** Why the client, not the server, may have set the pace; null when neither limit was crossed (or the window is too short to tell). */
export function clientBound(s: { eventLoopLagP99Ms: number; cpuPercent: number; workers?: number }, windowMs = Infinity): string | null {
  if (windowMs < CLIENT_MIN_WINDOW_MS) return null;
  const why: string[] = [];
  const workers = s.workers ?? 1;
  const cpuLimit = CLIENT_CPU_LIMIT_PERCENT * workers;
  if (s.eventLoopLagP99Ms > CLIENT_LAG_P99_LIMIT_MS) why.push(`the client's event loop lagged ${s.eventLoopLagP99Ms.toFixed(1)} ms at p99 (limit ${CLIENT_LAG_P99_LIMIT_MS} ms)`);
  if (s.cpuPercent > cpuLimit) why.push(workers === 1 ? `the client used ${s.cpuPercent.toFixed(0)}% of one core (limit ${CLIENT_CPU_LIMIT_PERCENT}%)` : `the client used ${s.cpuPercent.toFixed(0)}% of one core over its ${workers} workers (limit ${CLIENT_CPU_LIMIT_PERCENT}% each, ${cpuLimit}%)`);
  return why.length > 0 ? why.join('; ') : null;
}
