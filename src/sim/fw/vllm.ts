// vLLM on the simulator: `vllm serve [model] [options]`, its V1 engine's flags mapped to the engine.
import type { GpuProfile } from '../profiles';
import { vllmSpec } from './spec-flags';
import { baseSettings, flag, kvDtypeFactor, list, noteUnmodelled, num, quantBytes, str, type SimFramework, type SimSettings } from './types';

const GiB = 1024 ** 3;
/** `vllm serve` without a model serves this one. */
export const VLLM_DEFAULT_MODEL = 'Qwen/Qwen3-0.6B';

/**
 * A P/D worker from its --kv-transfer-config JSON (vllm/config/kv_transfer.py @9dc49464): NixlConnector takes its
 * role from each request (kv_both), MooncakeConnector from kv_role. Undefined: no connector, or one not modelled.
 */
function vllmPdRole(json: string | undefined): SimSettings['pd'] {
  if (!json) return undefined;
  let c: unknown;
  try {
    c = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof c !== 'object' || c === null) return undefined;
  const { kv_connector: connector, kv_role: role } = c as Record<string, unknown>;
  const backend = connector === 'NixlConnector' ? 'nixl' : connector === 'MooncakeConnector' ? 'mooncake' : undefined;
  if (!backend) return undefined;
  return { role: role === 'kv_producer' ? 'prefill' : role === 'kv_consumer' ? 'decode' : 'both', backend };
}

export const VLLM_SIM: SimFramework = {
  key: 'vllm',
  displayName: 'vLLM',
  shapes: {
    serve: {
      style: 'argparse',
      prog: 'vllm serve',
      flagStyle: 'dash',
      allowAbbrev: false,
      underscoresAsDashes: true,
      required: [],
      usage: 'vllm serve [model_tag] [options]',
      positional: { metavar: 'model_tag', key: 'model', required: false, help: 'Model to serve (the --model flag also works).' },
    },
  },
  helpDescription:
    'Simulated vLLM server (autobench): an OpenAI-compatible API in front of a modelled GPU. Nothing it measures is a GPU result.',
  showDefaults: true,
  version: '0.20.1+autobench.sim',
  logStream: 'stdout',
  api: {
    errorShape: 'nested',
    routes: 'vllm',
    versionRoute: true,
    overflow: 'reject',
    separateFinishChunk: false,
    checkModelName: true,
    metricsPrefix: 'vllm:',
  },
  settings(v) {
    const s: SimSettings = baseSettings('--max-model-len', 8000);
    s.model = str(v, 'model') ?? VLLM_DEFAULT_MODEL;
    const served = list(v, 'served_model_name');
    s.servedNames = served.length ? served : [s.model];
    // vllm-project/vllm · vllm/entrypoints/openai/api_server.py @0001948b: sock_addr = (args.host or "", port): every interface.
    s.host = str(v, 'host') ?? '0.0.0.0';
    s.port = num(v, 'port') ?? s.port;
    s.apiKeys = list(v, 'api_key');
    s.tp = num(v, 'tensor_parallel_size') ?? 1;
    s.pp = num(v, 'pipeline_parallel_size') ?? 1;
    s.dp = num(v, 'data_parallel_size') ?? 1;
    // vllm/model_executor/layers/fused_moe/config.py @00c1c6a2 (FusedMoEParallelConfig.make): the MoE layers are
    // tensor-parallel over all TP x DP GPUs, or expert-parallel over them with --enable-expert-parallel.
    s.moeTp = flag(v, 'enable_expert_parallel') === true ? 1 : s.tp * s.dp;
    s.memory = { kind: 'utilization', fraction: num(v, 'gpu_memory_utilization') ?? 0.92, flag: '--gpu-memory-utilization' };
    s.kvBytesOverride = num(v, 'kv_cache_memory_bytes');
    s.kvBlocksOverride = num(v, 'num_gpu_blocks_override');
    s.kvDtypeFactor = kvDtypeFactor(str(v, 'kv_cache_dtype'));
    s.weightBytesPerParam = quantBytes(str(v, 'quantization'));
    const len = num(v, 'max_model_len');
    // -1 means "as long as fits in memory"; resolved once the KV size is known.
    s.contextLimit = len === -1 ? -1 : len;
    s.maxRunning = num(v, 'max_num_seqs');
    s.tokenBudget = num(v, 'max_num_batched_tokens');
    s.chunking = flag(v, 'enable_chunked_prefill') !== false;
    s.mixed = true;
    s.maxPartialPrefills = num(v, 'max_num_partial_prefills') ?? 1;
    s.longPrefillThreshold = num(v, 'long_prefill_token_threshold') ?? 0;
    s.blockSize = num(v, 'block_size') ?? 16;
    s.prefixCaching = flag(v, 'enable_prefix_caching') !== false;
    s.overlap = flag(v, 'async_scheduling') !== false;
    s.streamInterval = Math.max(1, num(v, 'stream_interval') ?? 1);
    s.eager = flag(v, 'enforce_eager') === true;
    // cached_tokens only with --enable-prompt-tokens-details (vLLM's OpenAI serving layer).
    s.cacheReport = flag(v, 'enable_prompt_tokens_details') === true;
    s.logRequests = flag(v, 'enable_log_requests') === true;
    const sizes = list(v, 'cudagraph_capture_sizes').map(Number).filter((x) => Number.isFinite(x));
    s.graphMaxBatch = num(v, 'max_cudagraph_capture_size') ?? (sizes.length ? Math.max(...sizes) : undefined);
    s.seed = num(v, 'seed');
    s.pd = vllmPdRole(str(v, 'kv_transfer_config'));
    if (!s.pd && v.has('kv_transfer_config')) s.notes.push('kv_transfer_config');
    const spec = vllmSpec(str(v, 'speculative_config'));
    if (typeof spec === 'string') s.startupError = spec;
    else if (spec) s.spec = spec;
    else if (v.has('speculative_config')) s.notes.push('speculative_config');
    noteUnmodelled(s, v, ['enable_dbo', 'compilation_config', 'enable_lora']);
    return s;
  },
  gpuDefaults(s: SimSettings, gpu: GpuProfile, modelContext: number) {
    // vLLM raises its batch defaults on large-memory GPUs for the API server.
    const big = gpu.memBytes / GiB >= 70;
    s.maxRunning ??= big ? 1024 : 256;
    s.graphMaxBatch ??= 512;
    if (s.chunking) {
      s.tokenBudget ??= big ? 8192 : 2048;
      s.chunkSize = s.longPrefillThreshold > 0 ? Math.min(s.longPrefillThreshold, s.tokenBudget) : s.tokenBudget;
    } else {
      s.tokenBudget ??= Math.max(s.contextLimit && s.contextLimit > 0 ? s.contextLimit : modelContext, 2048);
      s.chunkSize = Infinity;
      s.maxPartialPrefills = Infinity;
    }
  },
  validate(s, modelContext) {
    if (s.contextLimit !== undefined && s.contextLimit > modelContext) {
      return `ValueError: User-specified max_model_len (${s.contextLimit}) is greater than the derived max_model_len (max_position_embeddings=${modelContext} in the model's config.json).`;
    }
    const limit = s.contextLimit !== undefined && s.contextLimit > 0 ? s.contextLimit : modelContext;
    if (!s.chunking && s.tokenBudget !== undefined && s.tokenBudget < limit) {
      return `ValueError: max_num_batched_tokens (${s.tokenBudget}) is smaller than max_model_len (${limit}) while chunked prefill is disabled; raise max_num_batched_tokens or lower max_model_len.`;
    }
    return undefined;
  },
};
