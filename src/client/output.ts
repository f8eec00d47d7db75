// The --output-file JSON line: SGLang bench_serving's field names first (so its readers work), then ours.
import { appendFileSync } from 'node:fs';
import { lengthDistribution } from '../core/workload/stats';
import type { LatencyStats } from './metrics';
import type { BenchResult } from './types';

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

/**
 * Differences from SGLang's line, all deliberate: an infinite rate is the string "inf" (SGLang writes
 * the non-JSON literal Infinity); statistics of an empty set are null, not 0; per-request times in the
 * details are seconds, as SGLang's.
 */
export function resultJson(r: BenchResult, d: RunDescription, opts: { details?: boolean } = {}): Record<string, unknown> {
  const m = r.metrics;
  const out: Record<string, unknown> = {
    tag: d.tag ?? null,
    backend: r.backend,
    dataset_name: d.datasetName,
    request_rate: r.workloadName === 'mooncake' ? 'trace' : Number.isFinite(r.requestRate) ? r.requestRate : 'inf',
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
    lengths: r.lengths,
    client: {
      name: 'autobench',
      version: d.clientVersion,
      cpu_percent: r.client.cpuPercent,
      max_rss_mb: r.client.maxRssMb,
      event_loop_delay_mean_ms: r.client.eventLoopDelayMeanMs,
      event_loop_delay_p99_ms: r.client.eventLoopDelayP99Ms,
      event_loop_delay_max_ms: r.client.eventLoopDelayMaxMs,
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
    request_rate: r.workloadName === 'mooncake' ? null : Number.isFinite(r.requestRate) ? r.requestRate : 'inf',
    max_concurrency: r.maxConcurrency,
    endpoint: r.endpoint,
    backend: r.backend,
  };
}
