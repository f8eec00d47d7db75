// The --output-file JSON line: SGLang bench_serving's field names first (so its readers work), then ours.
import { appendFileSync } from 'node:fs';
import { lengthDistribution } from '../core/workload/stats';
import type { BenchMetrics, LatencyStats } from './metrics';
import type { BenchResult } from './types';
import type { SessionStats } from './sessions';

export interface RunDescription {
  tag?: string;
  datasetName: string;
  datasetPath?: string;
  numPrompts: number;
  seed: number;
  randomInputLen?: number;
  randomOutputLen?: number;
  randomRangeRatio?: number;
  rangeRatioConvention?: string;
  sharegptOutputLen?: number;
  warmupRequests: number;
  promptLenCheck?: string;
  clientVersion: string;
  /** Command line as run (secrets redacted by the caller). */
  command?: string;
}

/** SGLang's retokenized count: known when our tokenizer counted every output. */
export function retokenized(r: BenchResult): number | null {
  const m = r.metrics;
  return m.completed > 0 && m.outputTokensSource.tokenizer === m.completed ? m.totalOutputTokens : null;
}

function put(out: Record<string, unknown>, name: string, s: LatencyStats): void {
  out[`mean_${name}_ms`] = s.mean;
  out[`median_${name}_ms`] = s.median;
  out[`std_${name}_ms`] = s.std;
  out[`p90_${name}_ms`] = s.p90;
  out[`p95_${name}_ms`] = s.p95;
  out[`p99_${name}_ms`] = s.p99;
}

/** Our 95% intervals, snake_case; each [low, high] or null below its minimum sample (trust.ts MIN_*). */
function intervalsJson(m: BenchMetrics): Record<string, unknown> {
  const i = m.intervals;
  return {
    confidence: i.confidence,
    resamples: i.resamples,
    request_throughput: i.requestThroughput,
    output_throughput: i.outputThroughput,
    total_throughput: i.totalThroughput,
    p50_ttft_ms: i.p50TtftMs,
    p99_ttft_ms: i.p99TtftMs,
    p50_tpot_ms: i.p50TpotMs,
    p99_tpot_ms: i.p99TpotMs,
    p50_e2e_ms: i.p50E2eMs,
    p99_e2e_ms: i.p99E2eMs,
    success_rate: i.successRate,
  };
}

/**
 * Differences from SGLang's line, all deliberate: an infinite rate is the string "inf" (SGLang writes
 * the non-JSON literal Infinity); statistics of an empty set are null, not 0; per-request times in the
 * details are seconds, as SGLang's.
 *
 * How far the numbers can be trusted (ours; definitions and thresholds in trust.ts):
 * - `steady`: the steady-state window, from the completion of successful request ⌈n/10⌉ to that of
 *   ⌊9n/10⌋ (completion order), so ramp-up and drain are left out. `start_s`/`end_s` seconds after the
 *   measured run's start, `duration_s` s, `completed` requests finishing inside it, `concurrency` mean
 *   requests in flight over it, `request_throughput` req/s, `output_throughput` and `total_throughput`
 *   tok/s of the requests finishing inside it, `min_completed` the completions a verdict needs
 *   (max(20, 2 × concurrency)), `too_short` why the run is too short for a verdict (too few
 *   completions in the window, or sends spanning under 3 × the median E2E), else null. Times and rates
 *   are null when there is no window (fewer than 3 successes, or no time between its ends).
 * - `intervals`: 95% intervals [low, high]. `request_throughput` (req/s), `output_throughput`,
 *   `total_throughput` (tok/s) are of the steady rates, by a moving-block bootstrap over 20 time bins
 *   (null under 20 completions in the window); `p50_*_ms` / `p99_*_ms` of TTFT, TPOT, E2E over all
 *   successful requests by a percentile bootstrap (null under 20 samples for p50, 368 for p99);
 *   `success_rate` a Wilson interval. Seeded: the same records give the same intervals.
 * - `validity`: counts for the caller to judge: `zero_output_requests` (answered with no output token),
 *   `short_output_requests` (asked for their full length, with ignore_eos, and got fewer tokens),
 *   `ignore_eos_requests` (asked for their full length), `error_responses` (failed requests of any
 *   kind), `errors_by_kind`.
 * - `cached_prompt_tokens`: prompt tokens the server reported as cache hits (OpenAI
 *   usage.prompt_tokens_details.cached_tokens, SGLang meta_info.cached_tokens); `cache_hit_fraction`
 *   that over the prompt tokens of the requests reporting it; both null when the server never did.
 * - `client.event_loop_lag_p99_ms` / `_max_ms`: our event loop's lag beyond its 10 ms sampling period;
 *   `client.bound`: why the client itself may have set the pace (lag p99 > 20 ms or CPU > 90% of one
 *   core), else null.
 */
export function resultJson(r: BenchResult, d: RunDescription, opts: { details?: boolean } = {}): Record<string, unknown> {
  const m = r.metrics;
  const out: Record<string, unknown> = {
    tag: d.tag ?? null,
    backend: r.backend,
    dataset_name: d.datasetName,
    request_rate: r.workloadName === 'mooncake' || r.workloadName === 'trace-csv' ? 'trace' : Number.isFinite(r.requestRate) ? r.requestRate : 'inf',
    max_concurrency: r.maxConcurrency,
    sharegpt_output_len: d.sharegptOutputLen ?? null,
    random_input_len: d.randomInputLen ?? null,
    random_output_len: d.randomOutputLen ?? null,
    random_range_ratio: d.randomRangeRatio ?? null,
    server_info: r.serverInfo ?? null,
    duration: m.durationS,
    completed: m.completed,
    total_input_tokens: m.totalInputTokens,
    total_input_text_tokens: m.totalInputTokens,
    total_output_tokens: m.totalOutputTokens,
    total_output_tokens_retokenized: retokenized(r),
    request_throughput: m.requestThroughput,
    input_throughput: m.inputThroughput,
    output_throughput: m.outputThroughput,
    total_throughput: m.totalThroughput,
  };
  put(out, 'e2e_latency', m.e2e);
  put(out, 'ttft', m.ttft);
  put(out, 'tpot', m.tpot);
  put(out, 'itl', m.itl);
  out.max_itl_ms = m.itl.max;
  out.concurrency = m.concurrency;
  out.accept_length = null;
  out.max_output_tokens_per_s = m.maxOutputTokensPerS;
  out.max_concurrent_requests = m.maxConcurrentRequests;
  // Ours.
  Object.assign(out, {
    date: r.startedAt.toISOString(),
    model: r.model,
    base_url: r.baseUrl,
    endpoint: r.endpoint,
    num_prompts: d.numPrompts,
    dataset_path: d.datasetPath ?? null,
    seed: d.seed,
    range_ratio_convention: d.rangeRatioConvention ?? null,
    burstiness: r.burstiness,
    warmup_requests: d.warmupRequests,
    flush_cache: r.flushCache,
    failed: m.failed,
    success_rate: m.successRate,
    achieved_request_rate: m.achievedRequestRate,
    request_goodput: m.goodput ? m.goodput.requestGoodput : null,
    goodput_slo_ms: m.goodput ? { ttft: m.goodput.slo.ttftMs ?? null, tpot: m.goodput.slo.tpotMs ?? null, e2e: m.goodput.slo.e2eMs ?? null } : null,
    total_input_tokens_server: m.totalInputTokensServer,
    mean_client_queue_ms: m.clientQueue.mean,
    p99_client_queue_ms: m.clientQueue.p99,
    output_tokens_source: m.outputTokensSource,
    errors_by_kind: m.errors,
    prompt_len_check: d.promptLenCheck ?? null,
    sessions: r.sessions ? sessionsJson(r.sessions) : null,
    lengths: r.lengths,
    steady: {
      start_s: m.steady.startS,
      end_s: m.steady.endS,
      duration_s: m.steady.durationS,
      completed: m.steady.completed,
      concurrency: m.steady.concurrency,
      request_throughput: m.steady.requestThroughput,
      output_throughput: m.steady.outputThroughput,
      total_throughput: m.steady.totalThroughput,
      min_completed: m.steady.minCompleted,
      too_short: m.steady.tooShort,
    },
    intervals: intervalsJson(m),
    validity: {
      zero_output_requests: m.validity.zeroOutputRequests,
      short_output_requests: m.validity.shortOutputRequests,
      ignore_eos_requests: m.validity.ignoreEosRequests,
      error_responses: m.validity.errorResponses,
      errors_by_kind: m.validity.errorsByKind,
    },
    cached_prompt_tokens: m.cachedPromptTokens,
    cache_hit_fraction: m.cacheHitFraction,
    client: {
      name: 'autobench',
      version: d.clientVersion,
      cpu_percent: r.client.cpuPercent,
      max_rss_mb: r.client.maxRssMb,
      event_loop_delay_mean_ms: r.client.eventLoopDelayMeanMs,
      event_loop_delay_p99_ms: r.client.eventLoopDelayP99Ms,
      event_loop_delay_max_ms: r.client.eventLoopDelayMaxMs,
      event_loop_lag_p99_ms: r.client.eventLoopLagP99Ms,
      event_loop_lag_max_ms: r.client.eventLoopLagMaxMs,
      workers: r.client.workers,
      bound: r.client.bound,
    },
    aborted: r.aborted,
    notes: r.notes,
    command: d.command ?? null,
  });
  if (opts.details) {
    const recs = r.records;
    Object.assign(out, {
      input_lens: recs.map((x) => x.promptLen),
      output_lens: recs.map((x) => x.outputTokens),
      ttfts: recs.map((x) => (x.success ? x.ttftMs / 1000 : 0)),
      itls: recs.map((x) => x.itlMs.map((g) => g / 1000)),
      generated_texts: recs.map((x) => x.generatedText),
      errors: recs.map((x) => x.error),
      start_times: recs.map((x) => x.startMs / 1000),
      e2e_latencies: recs.map((x) => (x.success ? x.e2eMs / 1000 : null)),
      scenarios: recs.map((x) => x.scenario),
    });
  }
  return out;
}

/** Appends one line; a later run in the same file becomes the next line (JSON Lines). */
export function appendResult(path: string, line: Record<string, unknown>): void {
  appendFileSync(path, `${JSON.stringify(line)}\n`);
}

/**
 * The `metrics` object of a result row (schemas/result-row.schema.json names), so the runner and
 * the report read one mapping. p50 is the median.
 */
export function toRowMetrics(r: BenchResult): Record<string, number | null> {
  const m = r.metrics;
  const out: Record<string, number | null> = {
    request_throughput: m.requestThroughput,
    request_goodput: m.goodput ? m.goodput.requestGoodput : null,
    input_token_throughput: m.inputThroughput,
    output_token_throughput: m.outputThroughput,
    total_token_throughput: m.totalThroughput,
  };
  const put = (name: string, s: LatencyStats): void => {
    out[`mean_${name}_ms`] = s.mean;
    out[`median_${name}_ms`] = s.median;
    out[`p50_${name}_ms`] = s.median;
    out[`p90_${name}_ms`] = s.p90;
    out[`p95_${name}_ms`] = s.p95;
    out[`p99_${name}_ms`] = s.p99;
    out[`std_${name}_ms`] = s.std;
  };
  put('ttft', m.ttft);
  put('tpot', m.tpot);
  put('itl', m.itl);
  put('e2e', m.e2e);
  let cached = 0;
  let prompt = 0;
  let known = false;
  for (const x of r.records) {
    if (!x.success || x.cachedTokens === undefined || x.promptTokensServer === undefined) continue;
    known = true;
    cached += x.cachedTokens;
    prompt += x.promptTokensServer;
  }
  Object.assign(out, {
    max_itl_ms: m.itl.max,
    success_rate: m.successRate,
    completed: m.completed,
    failed: m.failed,
    total_input_tokens: m.totalInputTokens,
    total_output_tokens: m.totalOutputTokens,
    duration_s: m.durationS,
    concurrency: m.concurrency,
    max_concurrent_requests: m.maxConcurrentRequests,
    max_output_tokens_per_s: m.maxOutputTokensPerS,
    accept_length: null,
    cache_hit_rate: known && prompt > 0 ? cached / prompt : null,
  });
  return out;
}

/** The `workload` object of a result row: what ran, with the measured length buckets (all scenarios together). */
export function toRowWorkload(r: BenchResult, d: { datasetName: string; datasetPath?: string; scenario?: string }): Record<string, unknown> {
  const ok = r.records.filter((x) => x.success);
  const inputs = lengthDistribution(ok.map((x) => x.promptTokensServer ?? x.promptLen));
  const outputs = lengthDistribution(ok.map((x) => x.outputTokens));
  return {
    scenario: d.scenario ?? null,
    dataset_name: d.datasetName,
    dataset_path: d.datasetPath ?? null,
    num_prompts: r.records.length,
    input_len_p50: inputs?.p50 ?? null,
    input_len_p95: inputs?.p95 ?? null,
    output_len_p50: outputs?.p50 ?? null,
    output_len_p95: outputs?.p95 ?? null,
    request_rate: r.workloadName === 'mooncake' || r.workloadName === 'trace-csv' ? null : Number.isFinite(r.requestRate) ? r.requestRate : 'inf',
    max_concurrency: r.maxConcurrency,
    endpoint: r.endpoint,
    backend: r.backend,
  };
}

/** A multi-turn run's per-turn and per-session figures (snake_case, as the result file's other keys). */
function sessionsJson(s: SessionStats): Record<string, unknown> {
  return {
    sessions: s.sessions,
    completed_sessions: s.completed,
    good_sessions: s.good,
    session_goodput: s.sessionGoodput,
    turns: s.turns.map((t) => ({ turn: t.turn, requests: t.requests, p50_ttft_ms: t.p50TtftMs, cache_hit_fraction: t.cacheHitFraction, p99_late_ms: t.p99LateMs })),
  };
}

