// Each engine's metrics endpoint, with the engine's own metric names: vLLM `vllm:*` Prometheus text at /metrics,
// SGLang `sglang:*` at /metrics only with --enable-metrics (both with their per-request latency histograms,
// latency-log.ts), trtllm-serve JSON iteration stats at /metrics and
// Prometheus text at /prometheus/metrics only with return_perf_metrics. The `autobench_sim_*` lines mark the simulator.
import type { ResolvedSim } from '../config';
import type { EngineStats } from '../engine';
import type { HistogramView, LatencyKey, LatencyLog } from '../latency-log';

function simLines(config: ResolvedSim): string[] {
  return [
    '# HELP autobench_sim_simulated 1 when this server is the autobench simulated engine.',
    '# TYPE autobench_sim_simulated gauge',
    'autobench_sim_simulated 1',
    '# HELP autobench_sim_step_cost_factor Modelled step time multiplier of this launch (--sim-noise).',
    '# TYPE autobench_sim_step_cost_factor gauge',
    `autobench_sim_step_cost_factor ${config.launch.stepCostFactor}`,
  ];
}

function gauge(name: string, v: number | string, labels = ''): string[] {
  return [`# TYPE ${name} gauge`, `${name}${labels} ${v}`];
}

function counter(name: string, v: number, labels = ''): string[] {
  return [`# TYPE ${name} counter`, `${name}${labels} ${v}`];
}

/** A histogram's Prometheus lines: `_bucket{le}` cumulative (then +Inf), `_sum`, `_count`. */
function histogram(name: string, h: HistogramView, labels: string): string[] {
  const inner = labels.slice(1, -1);
  const le = (b: string): string => `{${inner ? `${inner},` : ''}le="${b}"}`;
  return [
    `# TYPE ${name} histogram`,
    ...h.bounds.map((b, i) => `${name}_bucket${le(String(b))} ${h.cumulative[i]}`),
    `${name}_bucket${le('+Inf')} ${h.count}`,
    `${name}_sum${labels} ${h.sum.toFixed(6)}`,
    `${name}_count${labels} ${h.count}`,
  ];
}

/** vLLM's request-latency buckets (seconds; loggers.py @005a810b `request_latency_buckets`), its TTFT and ITL buckets, NIXL's transfer-time buckets (nixl/stats.py @bd33ba3e). */
const VLLM_LATENCY = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];
const VLLM_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
const VLLM_ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const NIXL_XFER = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 5];

/**
 * vLLM V1's per-request histograms, observed as each request finishes (stats.py @28ed1fb8): queue = first QUEUED to
 * first SCHEDULED (on a decode worker the wait for remote KV included), prefill = SCHEDULED to first token, decode =
 * first to last token; TTFT and E2E from the request's arrival at this server. NIXL workers add the transfer time of
 * the KV they read (a decode worker pulls).
 */
function vllmHistograms(h: LatencyLog, l: string, nixl: boolean): string[] {
  const v = (k: LatencyKey, b: readonly number[]): HistogramView => h.view(k, b);
  return [
    ...histogram('vllm:request_queue_time_seconds', v('queue_from_received', VLLM_LATENCY), l),
    ...histogram('vllm:request_prefill_time_seconds', v('prefill', VLLM_LATENCY), l),
    ...histogram('vllm:request_decode_time_seconds', v('decode', VLLM_LATENCY), l),
    ...histogram('vllm:time_to_first_token_seconds', v('ttft', VLLM_TTFT), l),
    ...histogram('vllm:e2e_request_latency_seconds', v('e2e', VLLM_LATENCY), l),
    ...histogram('vllm:inter_token_latency_seconds', v('per_token', VLLM_ITL), l),
    ...(nixl ? histogram('vllm:nixl_xfer_time_seconds', v('kv_received', NIXL_XFER), l) : []),
  ];
}

/** vLLM V1's speculative-decoding counters: draft rounds, drafted tokens, accepted tokens. */
function vllmSpecLines(s: EngineStats, l: string): string[] {
  return [
    ...counter('vllm:spec_decode_num_drafts_total', s.specDrafts, l),
    ...counter('vllm:spec_decode_num_draft_tokens_total', s.specDraftTokens, l),
    ...counter('vllm:spec_decode_num_accepted_tokens_total', s.specAccepted, l),
  ];
}

/** SGLang's verify-call counter, added as each request finishes (PR #25689); its accept-length gauges are per log interval and not served. */
function sglangSpecLines(s: EngineStats, l: string): string[] {
  return counter('sglang:spec_verify_calls_total', s.specVerifyFinished, l);
}

/** SGLang's per-stage buckets: exponential from 1 ms, ×1.62, 30 of them (observability/utils.py @515b8b31). */
const SGLANG_STAGE = Array.from({ length: 30 }, (_, i) => Number((0.001 * 1.62 ** i).toPrecision(6)));
const SGLANG_TTFT = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400];
const SGLANG_QUEUE = [0, 0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3000];

/** The stages an SGLang worker of each P/D role observes (req_time_stats.py @602413bc), from this server's intervals. */
const SGLANG_STAGES: Record<'prefill' | 'decode' | 'both', Array<[string, LatencyKey]>> = {
  prefill: [['prefill_forward', 'prefill'], ['prefill_transfer_kv_cache', 'kv_sent']],
  decode: [['decode_transferred', 'kv_received'], ['decode_waiting', 'queue_from_arrival'], ['fake_output', 'prefill']],
  both: [['prefill_forward', 'prefill']],
};

/**
 * SGLang's latency histograms with --enable-metrics (observability/metrics_collector.py @016d8605): queue_time (waiting
 * queue to first forward), TTFT / ITL / E2E from the tokenizer, and per-stage latencies labelled by `stage`.
 */
function sglangHistograms(h: LatencyLog, l: string, role: 'prefill' | 'decode' | 'both'): string[] {
  const inner = l.slice(1, -1);
  const stage = (name: string): string => `{${inner},stage="${name}"}`;
  const stages = SGLANG_STAGES[role].flatMap(([name, key]) => histogram('sglang:per_stage_req_latency_seconds', h.view(key, SGLANG_STAGE), stage(name)).slice(1));
  return [
    ...histogram('sglang:queue_time_seconds', h.view('queue_from_arrival', SGLANG_QUEUE), l),
    ...histogram('sglang:time_to_first_token_seconds', h.view('ttft', SGLANG_TTFT), l),
    ...histogram('sglang:e2e_request_latency_seconds', h.view('e2e', SGLANG_TTFT), l),
    ...histogram('sglang:inter_token_latency_seconds', h.view('per_token', VLLM_ITL), l),
    '# TYPE sglang:per_stage_req_latency_seconds histogram',
    ...stages,
  ];
}

/**
 * vLLM V1 metric names (vllm-project/vllm · vllm/v1/metrics/loggers.py, read through the audit's text-search hits):
 * vllm:num_requests_running / _waiting, vllm:kv_cache_usage_perc (0..1), vllm:prefix_cache_queries_total and
 * vllm:prefix_cache_hits_total (tokens), vllm:prompt_tokens_total, vllm:generation_tokens_total,
 * vllm:num_preemptions_total, vllm:request_success_total{finished_reason}.
 */
function vllmLines(s: EngineStats, model: string, h: LatencyLog | undefined, nixl: boolean, spec: boolean): string[] {
  const l = `{engine="0",model_name="${model}"}`;
  return [
    ...(h ? vllmHistograms(h, l, nixl) : []),
    ...(spec ? vllmSpecLines(s, l) : []),
    ...gauge('vllm:num_requests_running', s.running, l),
    ...gauge('vllm:num_requests_waiting', s.waiting, l),
    ...gauge('vllm:kv_cache_usage_perc', s.kvUsage.toFixed(6), l),
    ...counter('vllm:prefix_cache_queries_total', s.promptTokens, l),
    ...counter('vllm:prefix_cache_hits_total', s.cachedTokens, l),
    ...counter('vllm:prompt_tokens_total', s.promptTokens, l),
    ...counter('vllm:generation_tokens_total', s.generatedTokens, l),
    ...counter('vllm:num_preemptions_total', s.preemptions, l),
    ...counter('vllm:request_success_total', s.finished, `{engine="0",finished_reason="length",model_name="${model}"}`),
  ];
}

/** SGLang (sgl-project/sglang · python/sglang/srt/metrics/collector.py, text-search hits): sglang:num_running_reqs, … */
function sglangLines(s: EngineStats, model: string, h: LatencyLog | undefined, role: 'prefill' | 'decode' | 'both', spec: boolean): string[] {
  const l = `{model_name="${model}",tp_rank="0"}`;
  return [
    ...(spec ? sglangSpecLines(s, l) : []),
    ...(h ? sglangHistograms(h, `{engine_type="${role === 'both' ? 'unified' : role}",${l.slice(1)}`, role) : []),
    ...gauge('sglang:num_running_reqs', s.running, l),
    ...gauge('sglang:num_queue_reqs', s.waiting, l),
    ...gauge('sglang:token_usage', s.kvUsage.toFixed(6), l),
    ...gauge('sglang:cache_hit_rate', (s.promptTokens ? s.cachedTokens / s.promptTokens : 0).toFixed(6), l),
    ...counter('sglang:prompt_tokens_total', s.promptTokens, l),
    ...counter('sglang:generation_tokens_total', s.generatedTokens, l),
    ...counter('sglang:num_requests_total', s.finished, l),
  ];
}

/** trtllm-serve's Prometheus text (/prometheus/metrics with return_perf_metrics): `trtllm_` names. */
function trtLines(s: EngineStats): string[] {
  return [
    ...counter('trtllm_request_success_total', s.finished),
    ...gauge('trtllm_kv_cache_utilization', s.kvUsage.toFixed(6)),
    ...gauge('trtllm_kv_cache_hit_rate', (s.promptTokens ? s.cachedTokens / s.promptTokens : 0).toFixed(6)),
  ];
}

/** Prometheus text for the engines that have it; the simulator's marker lines first. */
export function prometheusText(config: ResolvedSim, s: EngineStats, latency?: LatencyLog): string {
  const model = config.settings.servedNames[0] ?? config.settings.model;
  const fw = config.framework.key;
  const pd = config.settings.pd;
  const spec = config.settings.spec !== undefined;
  const own = fw === 'vllm' ? vllmLines(s, model, latency, pd?.backend === 'nixl', spec) : fw === 'sglang' ? sglangLines(s, model, latency, pd?.role ?? 'both', spec) : trtLines(s);
  return `${[...simLines(config), ...own].join('\n')}\n`;
}

/**
 * trtllm-serve GET /metrics: `self.app.add_api_route("/metrics", self.get_iteration_stats …)` returns the list of
 * iteration-stats dicts the executor gathered since the last call (openai_server.py @00057725). The simulator gives
 * one dict for "now" per call (its scheduler keeps no per-iteration log); field names follow the executor's
 * IterationStats JSON.
 */
/** Speculative-decoding counters as the engine has drawn them (draft rounds, drafted tokens, accepted tokens). */
export interface SpecTotals {
  drafts: number;
  draftTokens: number;
  accepted: number;
}

/**
 * TensorRT-LLM's SpecDecodingStats (cpp/include/tensorrt_llm/executor/types.h @a98a9061) for what was drafted since the
 * last call: the real executor gives one per iteration and the call drains them; the simulator one for the stretch.
 */
function specDecodingStats(s: EngineStats, host: { specPolled: SpecTotals }): object {
  const last = host.specPolled;
  const d = { drafts: s.specDrafts - last.drafts, draftTokens: s.specDraftTokens - last.draftTokens, accepted: s.specAccepted - last.accepted };
  host.specPolled = { drafts: s.specDrafts, draftTokens: s.specDraftTokens, accepted: s.specAccepted };
  return { numDraftTokens: d.draftTokens, numAcceptedTokens: d.accepted, numRequestsWithDraftTokens: d.drafts, acceptanceLength: d.drafts > 0 ? (d.accepted + d.drafts) / d.drafts : 0, iterLatencyMS: 0, draftOverhead: 0 };
}

export function trtIterationStats(s: EngineStats, iter: number, spec?: { specPolled: SpecTotals }): object[] {
  return [
    {
      ...(spec ? { specDecodingStats: specDecodingStats(s, spec) } : {}),
      iter,
      timestamp: new Date().toISOString(),
      numActiveRequests: s.running,
      numQueuedRequests: s.waiting,
      numCompletedRequests: s.finished,
      kvCacheStats: {
        maxNumBlocks: s.kvBlocksTotal,
        usedNumBlocks: s.kvBlocksUsed,
        freeNumBlocks: s.kvBlocksTotal - s.kvBlocksUsed,
        cacheHitRate: s.promptTokens ? s.cachedTokens / s.promptTokens : 0,
      },
      autobench_sim_simulated: true,
    },
  ];
}
