// TokenSpeed on the simulator: `tokenspeed serve [model] [options]` (also `ts serve`), engine flags mapped.
import type { GpuProfile } from '../profiles';
import { baseSettings, flag, kvDtypeFactor, list, noteUnmodelled, num, quantBytes, str, type SimFramework, type SimSettings } from './types';

export const TOKENSPEED_SIM: SimFramework = {
  key: 'tokenspeed',
  displayName: 'TokenSpeed',
  shapes: {
    serve: {
      style: 'argparse',
      prog: 'tokenspeed serve',
      flagStyle: 'dash',
      // Its engine parser is built with allow_abbrev=False.
      allowAbbrev: false,
      underscoresAsDashes: false,
      required: [],
      positional: { metavar: 'model', key: 'model', required: false, help: 'Model to serve (rewritten to --model).' },
    },
  },
  helpDescription:
    'Simulated TokenSpeed server (autobench): an OpenAI-compatible API in front of a modelled GPU. Nothing it measures is a GPU result.',
  showDefaults: false,
  version: '0.1.0+autobench.sim',
  logStream: 'stderr',
  api: {
    errorShape: 'nested',
    routes: 'gateway',
    versionRoute: false,
    overflow: 'reject',
    separateFinishChunk: false,
    checkModelName: true,
    metricsPrefix: 'tokenspeed:',
  },
  settings(v) {
    const s: SimSettings = baseSettings('--max-model-len', 8000);
    s.model = str(v, 'model') ?? '';
    const served = str(v, 'served_model_name');
    s.servedNames = [served ?? s.model];
    // lightseekorg/tokenspeed · python/tokenspeed/cli/serve_smg.py @07b1ffae: DEFAULT_GATEWAY_HOST = "0.0.0.0".
    s.host = str(v, 'host') ?? '0.0.0.0';
    s.port = num(v, 'port') ?? s.port;
    s.apiKeys = list(v, 'api_key');
    s.tp = num(v, 'tensor_parallel_size') ?? 1;
    s.dp = num(v, 'data_parallel_size') ?? 1;
    s.moeTp = flag(v, 'enable_expert_parallel') === true ? 1 : Math.max(1, Math.floor(s.tp / (num(v, 'expert_parallel_size') ?? 1)));
    s.memory = { kind: 'utilization', fraction: num(v, 'gpu_memory_utilization') ?? 0.9, flag: '--gpu-memory-utilization' };
    s.kvTokenCap = num(v, 'max_total_tokens');
    s.kvDtypeFactor = kvDtypeFactor(str(v, 'kv_cache_dtype'));
    s.weightBytesPerParam = quantBytes(str(v, 'quantization'));
    s.contextLimit = num(v, 'max_model_len');
    s.maxRunning = num(v, 'max_num_seqs');
    const chunk = num(v, 'chunked_prefill_size');
    if (chunk !== undefined) s.chunkSize = chunk <= 0 ? Infinity : chunk;
    s.chunking = chunk === undefined || chunk > 0;
    s.tokenBudget = num(v, 'max_prefill_tokens');
    s.mixed = flag(v, 'enable_mixed_batch') === true;
    s.reserveRatio = 0.5;
    s.blockSize = num(v, 'block_size') ?? 16;
    s.prefixCaching = flag(v, 'enable_prefix_caching') !== false;
    s.overlap = flag(v, 'disable_overlap_schedule') !== true;
    s.streamInterval = Math.max(1, num(v, 'stream_interval') ?? 1);
    s.cacheReport = flag(v, 'enable_cache_report') === true;
    s.eager = flag(v, 'enforce_eager') === true;
    const sizes = list(v, 'cudagraph_capture_sizes').map(Number).filter((x) => Number.isFinite(x));
    s.graphMaxBatch = num(v, 'max_cudagraph_capture_size') ?? (sizes.length ? Math.max(...sizes) : undefined);
    const lb = str(v, 'load_balance_method') ?? 'round_robin';
    s.router = lb === 'round_robin' ? 'round_robin' : 'least_loaded';
    s.seed = num(v, 'seed');
    noteUnmodelled(s, v, ['speculative_config', 'speculative_algorithm', 'all2all_backend', 'enable_allreduce_fusion']);
    return s;
  },
  gpuDefaults(s: SimSettings, _gpu: GpuProfile) {
    s.maxRunning ??= 256;
    if (s.chunkSize === undefined) s.chunkSize = 8192;
    const maxPrefill = s.tokenBudget ?? 16384;
    s.tokenBudget = Number.isFinite(s.chunkSize) ? Math.min(maxPrefill, s.chunkSize) : maxPrefill;
    s.graphMaxBatch ??= 256;
  },
};
