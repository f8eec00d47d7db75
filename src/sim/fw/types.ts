// What each simulated framework module provides: its CLI shape, API dialect, and how its flags map onto the
// engine's mechanisms (memory rule, admission caps, chunking, caching, CUDA graphs).
import type { FrameworkKey } from '../../core/frameworks/types';
import type { CliShape, FlagValue } from '../cli-args';
import type { RouterPolicy } from '../engine';
import type { GpuProfile } from '../profiles';
import type { SchedulingOrder } from '../scheduler';
import type { SpecSettings } from '../spec';

/** How the memory flag turns into a KV-cache size. */
export type MemoryRule =
  /** SGLang: weights plus the KV pool take this share of GPU memory. */
  | { kind: 'static'; fraction: number; flag: string }
  /** vLLM, TokenSpeed: the whole instance (weights, activations, KV) stays within this share. */
  | { kind: 'utilization'; fraction: number; flag: string }
  /** TensorRT-LLM: the KV cache takes this share of what is free after weights and buffers. */
  | { kind: 'free'; fraction: number; flag: string };

export interface SimSettings {
  model: string;
  servedNames: string[];
  host: string;
  port: number;
  apiKeys: string[];
  tp: number;
  pp: number;
  dp: number;
  /** SGLang DP attention: dp replicas share the tp group's weights. */
  dpAttention: boolean;
  /**
   * Ways each MoE expert's intermediate width is split across GPUs (expert tensor parallelism, every engine's default
   * when no expert parallelism is asked for); 1 with EP over the whole group.
   */
  moeTp: number;
  memory: MemoryRule;
  /** KV pool capped at this many tokens (max_total_tokens). */
  kvTokenCap?: number;
  /** KV pool forced to this many blocks (num_gpu_blocks_override). */
  kvBlocksOverride?: number;
  /** KV pool forced to this many bytes per GPU (kv_cache_memory_bytes). */
  kvBytesOverride?: number;
  /** KV element size relative to BF16 (0.5 for FP8). */
  kvDtypeFactor: number;
  /** The KV dtype is `auto` and the engine takes it from the checkpoint's quantization config (TensorRT-LLM). */
  kvDtypeFromCheckpoint?: boolean;
  /** Weight bytes per parameter when a quantization flag overrides the checkpoint's. */
  weightBytesPerParam?: number;
  contextLimit?: number;
  /** The option that sets the sequence limit, for messages (`--max-model-len`). */
  contextFlag: string;
  maxRunning?: number;
  tokenBudget?: number;
  /** Prefill chunk size; Infinity turns chunking off; undefined takes the framework's GPU default. */
  chunkSize?: number;
  chunking: boolean;
  mixed: boolean;
  maxPartialPrefills: number;
  longPrefillThreshold: number;
  reserveRatio: number;
  /** The KV reservation for new tokens does not decay (TensorRT-LLM's GUARANTEED_NO_EVICT). */
  reserveFixed?: boolean;
  order: SchedulingOrder;
  blockSize: number;
  prefixCaching: boolean;
  streamInterval: number;
  maxQueued: number;
  eager: boolean;
  graphMaxBatch?: number;
  overlap: boolean;
  router: RouterPolicy;
  seed?: number;
  /** Flags accepted but not modelled, said once in the startup log. */
  notes: string[];
  /**
   * A worker of a P/D unit: its role (`both`: vLLM's NIXL workers take their role from each request's
   * kv_transfer_params) and the KV transfer backend. Absent: an ordinary server.
   */
  pd?: { role: 'prefill' | 'decode' | 'both'; backend: string };
  /** Speculative decoding as the flags configure it (spec.ts models it). */
  spec?: SpecSettings;
  /** The engine reports usage.prompt_tokens_details.cached_tokens (SGLang/TokenSpeed --enable-cache-report, vLLM --enable-prompt-tokens-details, TRT always). */
  cacheReport: boolean;
  /** SGLang --enable-metrics: Prometheus text at /metrics (404 without). */
  metrics: boolean;
  /** TRT-LLM return_perf_metrics (extra_llm_api_options): Prometheus text at /prometheus/metrics. */
  perfMetrics: boolean;
  /** vLLM logs each request with its prompt (--enable-log-requests; by default before 0.10.1). */
  logRequests: boolean;
  /** Prompts longer than this are refused per request (TensorRT-LLM without chunked prefill). */
  maxPromptTokens?: number;
  /** A problem found while reading the flags that the real server reports at startup (exit 1). */
  startupError?: string;
}

/** How the framework's HTTP API differs from the others in ways clients notice. */
export interface ApiDialect {
  /** `{"object":"error",...}` (SGLang) or `{"error":{...}}` (vLLM and OpenAI). */
  errorShape: 'flat' | 'nested';
  /** Whose route table the server has (src/sim/http/routes.ts): SGLang's, vLLM's, trtllm-serve's, or TokenSpeed's smg gateway. */
  routes: 'sglang' | 'vllm' | 'trtllm' | 'gateway';
  /** `GET /version` (vLLM, trtllm-serve). */
  versionRoute: boolean;
  /** A prompt plus max_tokens beyond the context: reject (vLLM, TRT) or shorten max_tokens (SGLang). */
  overflow: 'reject' | 'clamp';
  /** Chat streams end with a separate empty-delta chunk carrying finish_reason (SGLang). */
  separateFinishChunk: boolean;
  /** Unknown `model` names are refused with 404 (vLLM, TRT, TokenSpeed); SGLang serves any name. */
  checkModelName: boolean;
  /** Metric name prefix of the engine's Prometheus text. */
  metricsPrefix: string;
}

export interface SimFramework {
  key: FrameworkKey;
  displayName: string;
  /** CLI shapes by invocation name (`serve`, `launch_server`). */
  shapes: Record<string, CliShape>;
  helpDescription: string;
  showDefaults: boolean;
  /** What `--version` prints: the CLI version this table follows, marked as the simulator. */
  version: string;
  logStream: 'stdout' | 'stderr';
  api: ApiDialect;
  settings(values: ReadonlyMap<string, FlagValue>): SimSettings;
  /** Fills defaults that real frameworks derive from the GPU (batch caps, chunk sizes, memory share). */
  gpuDefaults(s: SimSettings, gpu: GpuProfile, modelContext: number): void;
  /** Configuration the real CLI refuses at startup, as its error line; undefined when fine. */
  validate?(s: SimSettings, modelContext: number): string | undefined;
}

// Small readers over parsed flag values.
export function num(v: ReadonlyMap<string, FlagValue>, key: string): number | undefined {
  const x = v.get(key);
  if (typeof x === 'number') return x;
  if (typeof x === 'string' && x.trim() !== '' && !Number.isNaN(Number(x))) return Number(x);
  return undefined;
}

export function str(v: ReadonlyMap<string, FlagValue>, key: string): string | undefined {
  const x = v.get(key);
  if (Array.isArray(x)) return x[0];
  return typeof x === 'string' ? x : typeof x === 'number' ? String(x) : undefined;
}

export function list(v: ReadonlyMap<string, FlagValue>, key: string): string[] {
  const x = v.get(key);
  if (Array.isArray(x)) return x;
  return typeof x === 'string' ? [x] : [];
}

export function flag(v: ReadonlyMap<string, FlagValue>, key: string): boolean | undefined {
  const x = v.get(key);
  return typeof x === 'boolean' ? x : undefined;
}

/** KV element size relative to BF16 for a kv-cache dtype name. */
export function kvDtypeFactor(name: string | undefined): number {
  if (!name) return 1;
  const n = name.toLowerCase();
  if (/fp4|nvfp4|int4|3bit|4bit|k3v4/.test(n)) return 0.3;
  if (/fp8|int8|mxfp8|k8v4/.test(n)) return 0.5;
  if (n === 'float32' || n === 'float') return 2;
  return 1;
}

/** Bytes per parameter implied by a quantization method, or undefined to keep the checkpoint's. */
export function quantBytes(name: string | undefined): number | undefined {
  if (!name) return undefined;
  const n = name.toLowerCase();
  if (/fp4|mxfp4|int4|awq|gptq|marlin|w4a|wna16|q4|auto-round/.test(n)) return 0.55;
  if (/fp8|int8|w8a8|q8|modelopt|compressed-tensors|quark|mxfp8/.test(n)) return 1;
  return undefined;
}

/** Settings every framework starts from before reading its flags. */
export function baseSettings(contextFlag: string, port: number): SimSettings {
  return {
    model: '',
    servedNames: [],
    host: '127.0.0.1',
    port,
    apiKeys: [],
    tp: 1,
    pp: 1,
    dp: 1,
    dpAttention: false,
    moeTp: 1,
    memory: { kind: 'utilization', fraction: 0.9, flag: '--gpu-memory-utilization' },
    kvDtypeFactor: 1,
    contextFlag,
    chunking: true,
    mixed: true,
    maxPartialPrefills: Infinity,
    longPrefillThreshold: 0,
    reserveRatio: 0,
    order: 'fcfs',
    blockSize: 16,
    prefixCaching: true,
    streamInterval: 1,
    maxQueued: Infinity,
    eager: false,
    overlap: true,
    router: 'round_robin',
    cacheReport: false,
    metrics: false,
    perfMetrics: false,
    logRequests: false,
    notes: [],
  };
}

/** Flags that change real performance in ways the simulator does not model: listed in the startup log. */
export function noteUnmodelled(s: SimSettings, v: ReadonlyMap<string, FlagValue>, keys: readonly string[]): void {
  for (const k of keys) if (v.has(k)) s.notes.push(k);
}
