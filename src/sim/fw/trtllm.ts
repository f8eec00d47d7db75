// TensorRT-LLM on the simulator: `trtllm-serve serve MODEL [OPTIONS]` (click), its flags and the
// extra_llm_api_options YAML keys that matter for scheduling mapped to the engine.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { GpuProfile } from '../profiles';
import { trtllmSpec } from './spec-flags';
import { baseSettings, flag, kvDtypeFactor, noteUnmodelled, num, str, type SimFramework, type SimSettings } from './types';

type Obj = Record<string, unknown>;

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function numOf(o: Obj, k: string): number | undefined {
  const x = o[k];
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

/** Applies the LLM API options file; real trtllm-serve merges it over the CLI flags. */
function applyExtraOptions(s: SimSettings, path: string): void {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    s.startupError =
      code === 'ENOENT'
        ? `FileNotFoundError: [Errno 2] No such file or directory: '${path}'`
        : `ValueError: cannot read extra_llm_api_options ${path}: ${(e as Error).message}`;
    return;
  }
  if (!isObj(doc)) return;
  const kv = doc.kv_cache_config;
  if (isObj(kv)) {
    const f = numOf(kv, 'free_gpu_memory_fraction');
    if (f !== undefined) s.memory = { kind: 'free', fraction: f, flag: 'kv_cache_config.free_gpu_memory_fraction' };
    if (kv.enable_block_reuse === false) s.prefixCaching = false;
    if (typeof kv.dtype === 'string' && kv.dtype !== 'auto') {
      s.kvDtypeFactor = kvDtypeFactor(kv.dtype);
      s.kvDtypeFromCheckpoint = false;
    }
    s.blockSize = numOf(kv, 'tokens_per_block') ?? s.blockSize;
    const maxTokens = numOf(kv, 'max_tokens');
    if (maxTokens !== undefined) s.kvTokenCap = maxTokens;
  }
  s.maxRunning = numOf(doc, 'max_batch_size') ?? s.maxRunning;
  s.tokenBudget = numOf(doc, 'max_num_tokens') ?? s.tokenBudget;
  s.contextLimit = numOf(doc, 'max_seq_len') ?? s.contextLimit;
  if (typeof doc.enable_chunked_prefill === 'boolean') s.chunking = doc.enable_chunked_prefill;
  if ('cuda_graph_config' in doc) {
    const g = doc.cuda_graph_config;
    if (g === null) s.eager = true;
    else if (isObj(g)) s.graphMaxBatch = numOf(g, 'max_batch_size') ?? s.graphMaxBatch;
  }
  if (doc.disable_overlap_scheduler === true) s.overlap = false;
  // A cache transceiver makes the worker take both P/D request types (context_only, generation_only): its role is per request.
  const ct = doc.cache_transceiver_config;
  if (isObj(ct)) s.pd = { role: 'both', backend: typeof ct.backend === 'string' ? ct.backend.toLowerCase() : 'default' };
  const sched = doc.scheduler_config;
  if (isObj(sched) && sched.capacity_scheduler_policy === 'MAX_UTILIZATION') s.reserveRatio = 0;
  // tensorrt_llm/llmapi/llm_args.py: enable_attention_dp gives each TP rank its own requests and KV cache (attention
  // data parallel), the MoE layers stay shared.
  const ep = numOf(doc, 'moe_expert_parallel_size');
  if (ep !== undefined) s.moeTp = Math.max(1, Math.floor(s.tp / ep));
  if (doc.enable_attention_dp === true && s.tp > 1) {
    s.dp = s.tp;
    s.dpAttention = true;
  }
  s.streamInterval = Math.max(1, numOf(doc, 'stream_interval') ?? s.streamInterval);
  const spec = trtllmSpec(doc.speculative_config);
  if (spec) s.spec = spec;
  else if ('speculative_config' in doc) s.notes.push('speculative_config');
  // openai_server.py @00057725 mounts /prometheus/metrics only when the LLM API options ask for perf metrics.
  if (doc.return_perf_metrics === true) s.perfMetrics = true;
}

export const TRTLLM_SIM: SimFramework = {
  key: 'tensorrt_llm',
  displayName: 'TensorRT-LLM',
  shapes: {
    serve: {
      style: 'click',
      prog: 'trtllm-serve serve',
      flagStyle: 'verbatim',
      allowAbbrev: false,
      underscoresAsDashes: false,
      required: [],
      positional: { metavar: 'MODEL', key: 'model', required: true, help: 'model name | HF checkpoint path' },
    },
  },
  helpDescription:
    'Simulated TensorRT-LLM OpenAI API server (autobench) in front of a modelled GPU. Nothing it measures is a GPU result. MODEL: model name or checkpoint path.',
  showDefaults: false,
  version: '1.2.0+autobench.sim',
  logStream: 'stderr',
  api: {
    errorShape: 'nested',
    routes: 'trtllm',
    versionRoute: true,
    overflow: 'reject',
    separateFinishChunk: false,
    checkModelName: true,
    metricsPrefix: 'trtllm_',
  },
  settings(v) {
    const s: SimSettings = baseSettings('--max_seq_len', 8000);
    s.model = str(v, 'model') ?? '';
    s.servedNames = [s.model];
    const host = str(v, 'host');
    // NVIDIA/TensorRT-LLM · tensorrt_llm/commands/serve.py @00209af1: --host defaults to "localhost", which resolves to loopback.
    s.host = host === undefined || host === 'localhost' ? '127.0.0.1' : host;
    s.port = num(v, 'port') ?? s.port;
    s.tp = num(v, 'tp_size') ?? 1;
    s.pp = num(v, 'pp_size') ?? 1;
    // tensorrt_llm/mapping.py @b35ac1b6: without moe_ep_size the MoE layers are expert-TP over the whole TP group.
    s.moeTp = Math.max(1, Math.floor(s.tp / (num(v, 'ep_size') ?? 1)));
    s.memory = { kind: 'free', fraction: num(v, 'kv_cache_free_gpu_memory_fraction') ?? 0.9, flag: '--kv_cache_free_gpu_memory_fraction' };
    s.maxRunning = num(v, 'max_batch_size');
    s.tokenBudget = num(v, 'max_num_tokens');
    s.contextLimit = num(v, 'max_seq_len');
    s.chunking = flag(v, 'enable_chunked_prefill') === true;
    // In-flight batching runs context and generation requests in the same iteration.
    s.mixed = true;
    s.blockSize = 32;
    // kv_cache_config.dtype defaults to auto: the checkpoint's kv_cache_quant_algo, else the model dtype
    // (tensorrt_llm/_torch/pyexecutor/model_engine.py validate_and_set_kv_cache_quant).
    s.kvDtypeFromCheckpoint = true;
    // SchedulerConfig.capacity_scheduler_policy defaults to GUARANTEED_NO_EVICT (tensorrt_llm/llmapi/llm_args.py): a
    // request is admitted only when the KV cache can hold it to its last token, so nothing is ever evicted.
    s.reserveRatio = 1;
    s.reserveFixed = true;
    s.prefixCaching = true;
    // The PyTorch backend always fills usage.prompt_tokens_details.cached_tokens.
    s.cacheReport = true;
    const extra = str(v, 'extra_llm_api_options');
    if (extra !== undefined) applyExtraOptions(s, extra);
    noteUnmodelled(s, v, ['cp_size', 'cluster_size']);
    return s;
  },
  gpuDefaults(s: SimSettings, _gpu: GpuProfile) {
    s.maxRunning ??= 2048;
    s.tokenBudget ??= 8192;
    s.chunkSize = s.chunking ? s.tokenBudget : Infinity;
    // Without chunked prefill a whole prompt must fit in one iteration's token budget.
    if (!s.chunking) s.maxPromptTokens = s.tokenBudget;
    s.graphMaxBatch ??= 128;
  },
};
