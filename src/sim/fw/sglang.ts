// SGLang on the simulator: `python -m sglang.launch_server` / `sglang serve`, its flags mapped to the engine.
import type { CliShape } from '../cli-args';
import type { GpuProfile } from '../profiles';
import { sglangSpec } from './spec-flags';
import type { SchedulingOrder } from '../scheduler';
import { baseSettings, flag, kvDtypeFactor, noteUnmodelled, num, quantBytes, str, type SimFramework, type SimSettings } from './types';

const GiB = 1024 ** 3;

function shape(prog: string): CliShape {
  return { style: 'argparse', prog, flagStyle: 'dash', allowAbbrev: true, underscoresAsDashes: false, required: ['model_path'] };
}

const ORDERS: Record<string, SchedulingOrder> = { lpm: 'lpm', 'dfs-weight': 'lpm', random: 'random', lof: 'lof' };

export const SGLANG_SIM: SimFramework = {
  key: 'sglang',
  displayName: 'SGLang',
  shapes: { launch_server: shape('launch_server.py'), serve: shape('sglang serve') },
  helpDescription:
    'Simulated SGLang server (autobench): an OpenAI-compatible and native /generate API in front of a modelled GPU. Nothing it measures is a GPU result.',
  showDefaults: false,
  version: '0.5.7+autobench.sim',
  logStream: 'stderr',
  api: {
    errorShape: 'flat',
    routes: 'sglang',
    versionRoute: false,
    overflow: 'clamp',
    separateFinishChunk: true,
    checkModelName: false,
    metricsPrefix: 'sglang:',
  },
  settings(v) {
    const s: SimSettings = baseSettings('--context-length', 30000);
    s.model = str(v, 'model_path') ?? '';
    const served = str(v, 'served_model_name');
    s.servedNames = [served ?? s.model];
    // sgl-project/sglang · python/sglang/srt/server_args.py @001067ff: host defaults to 127.0.0.1 (loopback only).
    s.host = str(v, 'host') ?? '127.0.0.1';
    s.port = num(v, 'port') ?? s.port;
    const key = str(v, 'api_key');
    if (key) s.apiKeys = [key];
    s.tp = num(v, 'tp_size') ?? 1;
    s.pp = num(v, 'pp_size') ?? 1;
    s.dp = num(v, 'dp_size') ?? 1;
    s.dpAttention = flag(v, 'enable_dp_attention') === true && s.dp > 1;
    // python/sglang/srt/arg_groups/fields/disagg.py @07a7b67c: disaggregation_mode null|prefill|decode, backend default mooncake.
    const mode = str(v, 'disaggregation_mode');
    if (mode === 'prefill' || mode === 'decode') s.pd = { role: mode, backend: str(v, 'disaggregation_transfer_backend') ?? 'mooncake' };
    // python/sglang/srt/model_executor/model_runner.py: moe_tp_size = tp_size // moe_ep_size.
    s.moeTp = Math.max(1, Math.floor(s.tp / (num(v, 'ep_size') ?? 1)));
    const frac = num(v, 'mem_fraction_static');
    s.memory = { kind: 'static', fraction: frac ?? NaN, flag: '--mem-fraction-static' };
    s.kvTokenCap = num(v, 'max_total_tokens');
    s.kvDtypeFactor = kvDtypeFactor(str(v, 'kv_cache_dtype'));
    s.weightBytesPerParam = quantBytes(str(v, 'quantization'));
    s.contextLimit = num(v, 'context_length');
    s.maxRunning = num(v, 'max_running_requests');
    s.maxQueued = num(v, 'max_queued_requests') ?? Infinity;
    const chunk = num(v, 'chunked_prefill_size');
    if (chunk !== undefined) s.chunkSize = chunk <= 0 ? Infinity : chunk;
    s.chunking = chunk === undefined || chunk > 0;
    s.tokenBudget = num(v, 'max_prefill_tokens');
    // Prefill batches run alone unless mixed chunking is on; decode waits for them.
    s.mixed = flag(v, 'enable_mixed_chunk') === true;
    s.order = ORDERS[str(v, 'schedule_policy') ?? 'fcfs'] ?? 'fcfs';
    s.reserveRatio = 0.7 * (num(v, 'schedule_conservativeness') ?? 1);
    s.blockSize = Math.max(16, num(v, 'page_size') ?? 1);
    s.prefixCaching = flag(v, 'disable_radix_cache') !== true;
    s.overlap = flag(v, 'disable_overlap_schedule') !== true;
    s.streamInterval = Math.max(1, num(v, 'stream_interval') ?? 1);
    s.cacheReport = flag(v, 'enable_cache_report') === true;
    s.metrics = flag(v, 'enable_metrics') === true;
    s.eager =
      flag(v, 'disable_cuda_graph') === true ||
      flag(v, 'disable_decode_cuda_graph') === true ||
      str(v, 'cuda_graph_backend_decode') === 'disabled';
    s.graphMaxBatch = num(v, 'cuda_graph_max_bs_decode') ?? num(v, 'cuda_graph_max_bs');
    const lb = str(v, 'load_balance_method') ?? 'round_robin';
    s.router = lb === 'round_robin' || lb === 'auto' || lb === 'decode_round_robin' ? 'round_robin' : 'least_loaded';
    s.seed = num(v, 'random_seed');
    const spec = sglangSpec(str(v, 'speculative_algorithm'), num(v, 'speculative_num_steps'));
    if (spec) s.spec = spec;
    else if (v.has('speculative_algorithm')) s.notes.push('speculative_algorithm');
    noteUnmodelled(s, v, ['enable_torch_compile', 'enable_hierarchical_cache', 'enable_two_batch_overlap', 'moe_a2a_backend']);
    return s;
  },
  gpuDefaults(s: SimSettings, gpu: GpuProfile) {
    const mem = gpu.memBytes / GiB;
    if (s.memory.kind === 'static' && Number.isNaN(s.memory.fraction)) {
      // SGLang sizes the static pool from GPU memory and parallelism, leaving more room on small cards.
      s.memory.fraction = (mem >= 120 ? 0.88 : mem >= 70 ? 0.85 : 0.8) - (s.tp >= 4 ? 0.02 : 0);
    }
    if (s.chunkSize === undefined) s.chunkSize = mem >= 90 ? 16384 : 8192;
    const maxPrefill = s.tokenBudget ?? 16384;
    s.tokenBudget = Number.isFinite(s.chunkSize) ? Math.min(maxPrefill, s.chunkSize) : maxPrefill;
    s.maxRunning ??= 4096;
    s.graphMaxBatch ??= mem >= 70 ? 256 : 160;
  },
  validate(s, modelContext) {
    if (s.contextLimit !== undefined && s.contextLimit > modelContext) {
      return `ValueError: User-specified context_length (${s.contextLimit}) is greater than the derived context_length (${modelContext}) of the model.`;
    }
    return undefined;
  },
};
