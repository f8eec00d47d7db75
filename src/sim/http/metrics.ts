// Each engine's metrics endpoint, with the engine's own metric names: vLLM `vllm:*` Prometheus text at /metrics,
// SGLang `sglang:*` at /metrics only with --enable-metrics, trtllm-serve JSON iteration stats at /metrics and
// Prometheus text at /prometheus/metrics only with return_perf_metrics. The `autobench_sim_*` lines mark the simulator.
import type { ResolvedSim } from '../config';
import type { EngineStats } from '../engine';

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

/**
 * vLLM V1 metric names (vllm-project/vllm · vllm/v1/metrics/loggers.py, read through the audit's text-search hits):
 * vllm:num_requests_running / _waiting, vllm:kv_cache_usage_perc (0..1), vllm:prefix_cache_queries_total and
 * vllm:prefix_cache_hits_total (tokens), vllm:prompt_tokens_total, vllm:generation_tokens_total,
 * vllm:num_preemptions_total, vllm:request_success_total{finished_reason}.
 */
function vllmLines(s: EngineStats, model: string): string[] {
  const l = `{engine="0",model_name="${model}"}`;
  return [
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
function sglangLines(s: EngineStats, model: string): string[] {
  const l = `{model_name="${model}",tp_rank="0"}`;
  return [
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
export function prometheusText(config: ResolvedSim, s: EngineStats): string {
  const model = config.settings.servedNames[0] ?? config.settings.model;
  const fw = config.framework.key;
  const own = fw === 'vllm' ? vllmLines(s, model) : fw === 'sglang' ? sglangLines(s, model) : trtLines(s);
  return `${[...simLines(config), ...own].join('\n')}\n`;
}

/**
 * trtllm-serve GET /metrics: `self.app.add_api_route("/metrics", self.get_iteration_stats …)` returns the list of
 * iteration-stats dicts the executor gathered since the last call (openai_server.py @00057725). The simulator gives
 * one dict for "now" per call (its scheduler keeps no per-iteration log); field names follow the executor's
 * IterationStats JSON.
 */
export function trtIterationStats(s: EngineStats, iter: number): object[] {
  return [
    {
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
