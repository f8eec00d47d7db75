// Turns a framework's parsed flags and the simulator options into one engine configuration: GPU and model
// profiles, memory split (and the startup failures a real server would hit), KV size, cost model, policy.
import type { FrameworkKey } from '../core/frameworks/types';
import type { FlagValue } from './cli-args';
import type { CostModel } from './cost';
import { efficiencyFactor } from './efficiency';
import type { EngineOptions } from './engine';
import { draftShare } from './spec';
import { SIM_FRAMEWORKS } from './fw';
import type { SimFramework, SimSettings } from './fw/types';
import { launchFactor, launchStream } from './noise';
import type { SimOptions } from './options';
import { perturbFactors, type PerturbFactors } from './perturb';
import { GPUS, autoGpu, gpuProfile, modelProfile, weightBytesPerGpu, type GpuProfile, type ModelProfile } from './profiles';
import type { SchedulerPolicy } from './scheduler';

const GiB = 1024 ** 3;
const MEM_EFFICIENCY = 0.8;
const MFU = 0.5;
/**
 * Share of FP4 peak an NVFP4/MXFP4 GEMM reaches relative to what BF16/FP8 GEMMs reach of theirs: the block scale
 * factors are read and applied in the main loop, and the FP4 peak assumes operand rates the rest of the kernel cannot
 * feed.
 */
const FP4_EFFICIENCY = 0.7;

export interface MemorySplit {
  totalBytes: number;
  weightBytes: number;
  /** CUDA context, communicator buffers, CUDA graphs and activation peak. */
  runtimeBytes: number;
  kvBytes: number;
}

export interface ResolvedSim {
  framework: SimFramework;
  settings: SimSettings;
  model: ModelProfile;
  gpu: GpuProfile;
  gpuAuto: boolean;
  gpus: number;
  bytesPerParam: number;
  memory: MemorySplit;
  /** Tokens one replica's KV cache holds. */
  kvTokens: number;
  contextLimit: number;
  maxPromptTokens: number;
  engine: EngineOptions;
  options: SimOptions;
  /** This launch's draws: the stream (from --sim-seed and --sim-launch-salt) and the step-cost factor it gave. */
  launch: LaunchDraws;
  /** --sim-perturb: the hidden efficiency factors already in `engine.cost` (never logged); absent without it. */
  perturbation?: PerturbFactors;
  /** --sim-efficiency: the product of the matching terms' factors, already in `engine.cost` (1: none matched); absent without it. */
  efficiency?: number;
}

export interface LaunchDraws {
  stream: number;
  salt: number;
  /** --sim-noise: the sd of `stepCostFactor`; steps also get jitter of sd sigma/2. */
  sigma: number;
  /** Every step of this launch costs this many times its modelled time (above 1: a slower GPU). */
  stepCostFactor: number;
}

export type ResolveResult =
  | { ok: true; config: ResolvedSim }
  /** The server would not start: log lines to print and the exit status. */
  | { ok: false; lines: string[]; exitCode: number };

function gib(b: number): string {
  return (b / GiB).toFixed(2);
}

function oom(want: number, free: number, gpu: GpuProfile, where: string): string[] {
  return [
    `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ${gib(want)} GiB. GPU 0 has a total capacity of ${gib(gpu.memBytes)} GiB of which ${gib(Math.max(0, free))} GiB is free.`,
    `[autobench-sim] simulated out-of-memory ${where}; nothing ran on a real GPU.`,
  ];
}

/** Memory the runtime needs outside weights and KV on each GPU. */
function runtimeBytes(s: SimSettings, m: ModelProfile): { context: number; buffers: number; activations: number } {
  const context = 0.6 * GiB;
  const comm = s.tp * s.pp > 1 ? 0.5 * GiB : 0;
  // Captured graphs share one memory pool sized by the largest batch's activations.
  const graphs = s.eager ? 0 : 0.3 * GiB + (s.graphMaxBatch ?? 256) * m.hidden * 16;
  const budget = Math.min(s.tokenBudget ?? 8192, 65536);
  const activations = 0.25 * GiB + (budget * m.hidden * 20) / Math.max(1, s.tp);
  return { context, buffers: comm + graphs, activations };
}

function splitMemory(s: SimSettings, m: ModelProfile, gpu: GpuProfile, weights: number): { kv: number; runtime: number } | { fail: string[] } {
  const M = gpu.memBytes;
  const rt = runtimeBytes(s, m);
  const runtime = rt.context + rt.buffers + rt.activations;
  if (weights > M - rt.context) return { fail: oom(weights - (M - rt.context), M - rt.context, gpu, 'while loading the weights') };
  const rule = s.memory;
  const f = rule.fraction;
  if (!(f > 0 && f <= 1)) return { fail: [`ValueError: ${rule.flag} must be in (0, 1], got ${f}.`] };
  if (rule.kind === 'static') {
    const pool = f * M;
    if (pool - weights < 1 * GiB) {
      return { fail: [`RuntimeError: Not enough memory for the KV cache: ${rule.flag} ${f} leaves ${gib(pool - weights)} GiB after ${gib(weights)} GiB of weights. Increase ${rule.flag}.`] };
    }
    const left = M - pool;
    if (left < runtime) return { fail: oom(runtime - left + 0.25 * GiB, left - rt.context, gpu, `capturing CUDA graphs: ${rule.flag} ${f} leaves ${gib(left)} GiB for activations and graphs`) };
    return { kv: pool - weights, runtime };
  }
  if (rule.kind === 'utilization') {
    const want = f * M;
    const freeAtStart = M - rt.context - 0.01 * M;
    if (want > freeAtStart) {
      return {
        fail: [
          `ValueError: Free memory on device (${gib(freeAtStart)}/${gib(M)} GiB) on startup is less than desired GPU memory utilization (${f}, ${gib(want)} GiB). Decrease ${rule.flag}.`,
          `[autobench-sim] simulated out-of-memory at startup: ${rule.flag} ${f} is more than the GPU can give; nothing ran on a real GPU.`,
        ],
      };
    }
    const kv = want - weights - runtime;
    if (kv <= 0) {
      return { fail: [`ValueError: No available memory for the cache blocks: ${gib(want)} GiB allowed by ${rule.flag} ${f}, ${gib(weights)} GiB of weights, ${gib(runtime)} GiB of activations and graphs. Increase ${rule.flag}.`] };
    }
    return { kv, runtime };
  }
  // TensorRT-LLM: a share of what is free after the profiling forward pass, whose peak holds the weights and activations
  // (NVIDIA/TensorRT-LLM · tensorrt_llm/_torch/pyexecutor/_util.py @00043967, KvCacheCreator:
  // available_kv_mem = (total_gpu_memory - peak_memory) * fraction); CUDA graphs and communicator buffers come after
  // the KV cache and must fit in the rest (the perf overview falls back from 0.95 to 0.90 on out-of-memory).
  const free = M - weights - rt.context - rt.activations;
  if (free <= 0) return { fail: oom(-free + 0.25 * GiB, M - weights - rt.context, gpu, 'in the profiling forward pass') };
  const kv = f * free;
  const left = free - kv;
  if (left < rt.buffers) return { fail: oom(rt.buffers - left, left, gpu, `capturing CUDA graphs: ${rule.flag} ${f} left ${gib(left)} GiB`) };
  if (kv < 0.5 * GiB) return { fail: [`RuntimeError: KV cache of ${gib(kv)} GiB is too small to hold one sequence. Increase ${rule.flag}.`] };
  return { kv, runtime };
}

/** Smallest time one layer's kernels take in a step, whatever the batch (launch-free kernels still take microseconds). */
const LAYER_FLOOR = 20e-6;
/** Extra per MoE layer: routing, token permutation and the grouped expert GEMMs' own floor. */
const MOE_LAYER_FLOOR = 20e-6;

/** Latency of one small all-reduce over `tp` ranks: NVLink-class links against PCIe. */
function allReduceSeconds(tp: number, gpu: GpuProfile): number {
  const nvlink = gpu.linkBandwidth >= 200e9;
  return nvlink ? 8e-6 + 1.5e-6 * tp : 25e-6 + 8e-6 * tp;
}

/**
 * Share of the dense GEMM rate the routed experts' grouped GEMMs reach: each expert is a small GEMM (hidden x its
 * intermediate width, split moeTp ways), whose tiles fill the GPU worse and whose routing, token permutation and
 * per-expert scale handling cost more per FLOP the smaller it is. A power law in the per-GPU expert GEMM size, 1 at
 * MOE_GEMM_FULL elements and above.
 */
const MOE_GEMM_FULL = 1.3e8;
const MOE_GEMM_EXP = 0.4;

export function moeGemmEfficiency(hidden: number, intermediate: number, moeTp: number): number {
  const size = (hidden * intermediate) / Math.max(1, moeTp);
  return Math.min(1, Math.pow(size / MOE_GEMM_FULL, MOE_GEMM_EXP));
}

function costModel(s: SimSettings, m: ModelProfile, gpu: GpuProfile, bpp: number): CostModel {
  const tp = Math.max(1, s.tp);
  const attnTp = s.dpAttention ? Math.max(1, Math.floor(tp / s.dp)) : tp;
  const kvShare = Math.min(attnTp, m.kvSplit);
  const fp8 = bpp <= 1;
  const fp4 = bpp <= 0.6;
  const moe = m.activeParamsB < m.totalParamsB;
  const kvFactor = s.kvDtypeFromCheckpoint ? (m.kvDtypeFactor ?? 1) : s.kvDtypeFactor;
  const floor = m.layers * (LAYER_FLOOR + (moe ? MOE_LAYER_FLOOR : 0));
  const routedParams = m.moe ? Math.min(m.activeParamsB * 1e9, m.moe.topK * 3 * m.hidden * m.moe.intermediate * m.moe.layers) : 0;
  const rate = (fp4 && gpu.flopsFp4 ? gpu.flopsFp4 * (gpu.fp4Efficiency ?? FP4_EFFICIENCY) : fp8 || fp4 ? gpu.flopsFp8 : gpu.flopsBf16) * MFU;
  return {
    weightBytes: (m.totalParamsB * 1e9 * bpp) / tp,
    activeShare: Math.min(1, m.activeParamsB / m.totalParamsB),
    kvBytesPerToken: (m.kvBytesPerToken * kvFactor) / kvShare,
    // With attention data parallelism every rank of an attention group runs its own requests through unsharded
    // attention, and the MoE layers take every replica's tokens: per GPU, a replica's token costs its work / attnTp.
    flopsPerToken: (2 * (m.activeParamsB * 1e9 - routedParams)) / attnTp,
    routedFlopsPerToken: (2 * routedParams) / attnTp,
    moeBatchScale: s.dpAttention ? Math.max(1, s.dp) : 1,
    attnFlopsPerPair: (4 * m.attnLayers * m.attnWidth) / attnTp,
    attnDecodeFlopsPerPair: (4 * m.attnLayers * (m.attnDecodeWidth ?? m.attnWidth)) / attnTp,
    bandwidth: gpu.bandwidth * MEM_EFFICIENCY,
    flops: rate,
    attnFlops: (kvFactor <= 0.5 ? gpu.flopsFp8 : gpu.flopsBf16) * MFU,
    moeFlops: m.moe ? rate * moeGemmEfficiency(m.hidden, m.moe.intermediate, s.moeTp) : rate,
    commFixed: tp > 1 ? 2 * m.layers * allReduceSeconds(tp, gpu) : 0,
    commPerToken: tp > 1 ? (2 * m.layers * m.hidden * 2 * (2 * (tp - 1))) / tp / gpu.linkBandwidth : 0,
    stepOverhead: 1.0e-3 + (s.overlap ? 0 : 1.0e-3) + (s.pp - 1) * 0.3e-3 + floor,
    perSeqOverhead: s.overlap ? 3e-6 : 12e-6,
    eagerOverhead: m.layers * 30e-6,
    graphMaxBatch: s.eager ? 0 : (s.graphMaxBatch ?? 256),
    sparseTopK: m.sparseTopK ?? 0,
    specDraftShare: s.spec ? draftShare(s.spec) : 0,
  };
}

/**
 * The cost model with --sim-perturb's factors (compute speed x prefill, memory bandwidth x decode) and then
 * --sim-efficiency's known factor on both.
 */
function perturbCost(cost: CostModel, p: PerturbFactors | undefined, efficiency = 1): CostModel {
  const c = p ? { ...cost, flops: cost.flops * p.prefill, attnFlops: cost.attnFlops * p.prefill, moeFlops: cost.moeFlops * p.prefill, bandwidth: cost.bandwidth * p.decode } : cost;
  return efficiency === 1 ? c : { ...c, flops: c.flops * efficiency, attnFlops: c.attnFlops * efficiency, moeFlops: c.moeFlops * efficiency, bandwidth: c.bandwidth * efficiency };
}

/** Values no server could start with (a port past 65535, a parallel size of 0): a usage error, never a crash in listen(). */
function unusableValue(s: SimSettings): string | undefined {
  if (!Number.isInteger(s.port) || s.port < 0 || s.port > 65535) return `autobench-sim: port ${s.port} is out of range: give --port 0-65535 (0 picks a free port)`;
  for (const [name, v] of [['tensor parallel', s.tp], ['pipeline parallel', s.pp], ['data parallel', s.dp]] as const) {
    if (!Number.isInteger(v) || v < 1) return `autobench-sim: ${name} size ${v} is not possible: give a whole number >= 1`;
  }
  return undefined;
}

export function resolveSim(fwKey: FrameworkKey, values: ReadonlyMap<string, FlagValue>, options: SimOptions): ResolveResult {
  const framework = SIM_FRAMEWORKS[fwKey];
  const s = framework.settings(values);
  if (s.startupError) return { ok: false, lines: [s.startupError], exitCode: 1 };
  const unusable = unusableValue(s);
  if (unusable) return { ok: false, lines: [unusable], exitCode: 2 };
  const model = modelProfile(s.model);
  const bpp = s.weightBytesPerParam ?? model.bytesPerParam;
  const shards = Math.max(1, s.tp) * Math.max(1, s.pp);
  let gpu: GpuProfile | undefined;
  const gpuAuto = options.gpu.toLowerCase() === 'auto';
  if (gpuAuto) gpu = autoGpu(model, bpp, shards);
  else gpu = gpuProfile(options.gpu);
  if (!gpu) {
    return { ok: false, lines: [`[autobench-sim] unknown GPU profile '${options.gpu}' (known: ${GPUS.map((g) => g.name).join(', ')}, auto)`], exitCode: 2 };
  }
  framework.gpuDefaults(s, gpu, model.contextLength);
  const invalid = framework.validate?.(s, model.contextLength);
  if (invalid) return { ok: false, lines: [invalid], exitCode: 1 };

  const weights = weightBytesPerGpu(model, bpp, shards);
  const split = splitMemory(s, model, gpu, weights);
  if ('fail' in split) return { ok: false, lines: split.fail, exitCode: 1 };
  const kvBytesGpu = s.kvBytesOverride ?? split.kv;
  const perturbation = options.perturb !== undefined ? perturbFactors(fwKey, values, options.perturb) : undefined;
  const efficiency = options.efficiency ? efficiencyFactor(fwKey, values, options.efficiency) : undefined;
  const cost = perturbCost(costModel(s, model, gpu, bpp), perturbation, efficiency);
  // Every GPU of a replica holds its share of each token: capacity = per-GPU KV / per-GPU bytes per token.
  const perTokenGpu = cost.kvBytesPerToken / Math.max(1, s.pp);
  let kvTokens = Math.floor(kvBytesGpu / perTokenGpu);
  if (s.kvTokenCap !== undefined && s.kvTokenCap > 0) kvTokens = Math.min(kvTokens, s.kvTokenCap);
  if (s.kvBlocksOverride !== undefined && s.kvBlocksOverride > 0) kvTokens = s.kvBlocksOverride * s.blockSize;
  const kvBlocks = Math.floor(kvTokens / s.blockSize);
  kvTokens = kvBlocks * s.blockSize;
  if (kvBlocks < 1) return { ok: false, lines: ['ValueError: No available memory for the cache blocks.'], exitCode: 1 };

  let contextLimit = s.contextLimit !== undefined && s.contextLimit > 0 ? s.contextLimit : model.contextLength;
  if (s.contextLimit === -1) contextLimit = Math.min(model.contextLength, kvTokens);
  if (framework.key === 'vllm' || framework.key === 'tokenspeed') {
    if (contextLimit > kvTokens) {
      return {
        ok: false,
        lines: [
          `ValueError: The model's max seq len (${contextLimit}) is larger than the maximum number of tokens that can be stored in KV cache (${kvTokens}). Try increasing ${s.memory.flag} or decreasing ${s.contextFlag}.`,
        ],
        exitCode: 1,
      };
    }
  }

  const policy: SchedulerPolicy = {
    maxRunning: Math.max(1, s.maxRunning ?? 256),
    tokenBudget: Math.max(1, s.tokenBudget ?? 8192),
    chunkSize: s.chunkSize ?? Infinity,
    mixed: s.mixed,
    maxPartialPrefills: s.maxPartialPrefills,
    reserveRatio: s.reserveRatio,
    ...(s.reserveFixed ? { reserveFixed: true } : {}),
    order: s.order,
    blockSize: s.blockSize,
    // Pipeline parallelism keeps one micro-batch in flight per stage: each is a replica with its share of the KV
    // cache whose step passes every stage (the whole model's time), so weights are read once per micro-batch step.
    kvBlocks: Math.max(1, Math.floor(kvBlocks / Math.max(1, s.pp))),
    prefixCaching: s.prefixCaching,
    streamInterval: s.streamInterval,
    maxLag: (options.maxLagMs / 1000) * options.speed,
    seed: options.seed ^ (s.seed ?? 0),
    ...(s.spec ? { spec: s.spec } : {}),
  };
  // The launch's variation depends on the simulator seed and the salt only, not on the framework flags: what
  // varies between launches is the machine, and the runner decides which launches count as different.
  const stream = launchStream(options.seed, options.launchSalt);
  const launch: LaunchDraws = { stream, salt: options.launchSalt, sigma: options.noise, stepCostFactor: launchFactor(options.seed, options.launchSalt, options.noise) };
  if (options.noise > 0) policy.noise = { factor: launch.stepCostFactor, jitterSd: options.noise / 2, stream };
  const replicas = Math.max(1, s.dp);
  return {
    ok: true,
    config: {
      framework,
      settings: s,
      model,
      gpu,
      gpuAuto,
      gpus: shards * (s.dpAttention ? 1 : replicas),
      bytesPerParam: bpp,
      memory: { totalBytes: gpu.memBytes, weightBytes: weights, runtimeBytes: split.runtime, kvBytes: kvBytesGpu },
      kvTokens,
      contextLimit,
      maxPromptTokens: s.maxPromptTokens ?? Infinity,
      engine: {
        policy,
        cost,
        replicas: replicas * Math.max(1, s.pp),
        router: s.router,
        maxQueued: s.maxQueued,
        seed: options.seed ^ (s.seed ?? 0),
        naturalMedian: options.eosMedian,
        fault: options.fault,
      },
      options,
      launch,
      ...(perturbation ? { perturbation } : {}),
      ...(efficiency !== undefined ? { efficiency } : {}),
    },
  };
}
