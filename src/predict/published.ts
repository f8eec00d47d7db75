// Published GPU measurements (test/fixtures/published/*.json: each point with its source and stated conditions) and
// the simulated engine model's prediction of each: the command the point's deployment runs, the load it ran at on
// the virtual clock, the figure it reports, and how far the model is from it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameworkKey } from '../core/frameworks/types';
import { gpuProfile, modelProfile } from '../sim/profiles';
import { mix32, unit } from '../sim/tokens';
import { simulateLoad, type VirtualResult } from '../sim/virtual';
import { engineForArgv, predictOptions } from './engine';
import type { Factors } from './types';

export type PublishedMetric =
  | 'output_throughput'
  | 'output_throughput_per_gpu'
  | 'total_throughput'
  | 'request_throughput'
  | 'mean_ttft_ms'
  | 'p50_ttft_ms'
  | 'mean_tpot_ms'
  | 'p50_tpot_ms'
  | 'mean_itl_ms'
  | 'p50_itl_ms'
  | 'mean_e2e_ms'
  | 'p50_e2e_ms';

const METRICS: readonly PublishedMetric[] = ['output_throughput', 'output_throughput_per_gpu', 'total_throughput', 'request_throughput', 'mean_ttft_ms', 'p50_ttft_ms', 'mean_tpot_ms', 'p50_tpot_ms', 'mean_itl_ms', 'p50_itl_ms', 'mean_e2e_ms', 'p50_e2e_ms'];

export type PublishedLoad = { kind: 'offline'; requests: number | null } | { kind: 'concurrency'; concurrency: number; requests: number | null } | { kind: 'rate'; rate: number; requests: number | null };

export interface PublishedPoint {
  engine: FrameworkKey;
  engine_version: string | null;
  model: string;
  gpu: string;
  gpu_count: number;
  tp: number;
  pp: number;
  ep: number | null;
  weights_dtype: string | null;
  kv_dtype: string | null;
  isl: number;
  osl: number;
  load: PublishedLoad;
  metric: PublishedMetric;
  value: number;
  unit: string;
  where: string;
  /**
   * Where the source drew lengths at random up to isl/osl: the mean it measured (from its printed totals). With
   * `dataset: random` the model draws lengths uniformly up to isl/osl around these means, else runs them fixed.
   */
  isl_mean_measured?: number;
  osl_mean_measured?: number;
  /** The source's dataset where it names one (`random`: bench_serving's random lengths). */
  dataset?: string;
  /** TensorRT-LLM settings the source states for this run (trtllm-bench's flags and LLM API options). */
  trtllm?: TrtllmRunSettings;
}

export interface TrtllmRunSettings {
  attention_dp?: boolean;
  max_batch_size?: number;
  max_num_tokens?: number;
  kv_cache_free_gpu_memory_fraction?: number;
  cuda_graph_max_batch_size?: number;
}

export interface PublishedSource {
  /** The file it was read from, and a short id (the file name without .json). */
  file: string;
  id: string;
  source: { kind: 'repo' | 'page'; repo?: string; path?: string; commit?: string; url?: string; title?: string; retrieved?: string; conditions?: string };
  points: PublishedPoint[];
}

/** Whether a metric is a latency (lower is faster) rather than a throughput. */
export const isLatency = (m: PublishedMetric): boolean => m.endsWith('_ms');

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const posInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 1;

/** Why a point cannot be used, or undefined when it can. */
function pointProblem(p: Obj): string | undefined {
  if (p.engine !== 'tensorrt_llm' && p.engine !== 'vllm' && p.engine !== 'sglang') return `engine '${String(p.engine)}' is not tensorrt_llm, vllm or sglang`;
  if (typeof p.model !== 'string' || !p.model) return 'no model';
  if (typeof p.gpu !== 'string' || !gpuProfile(p.gpu)) return `GPU '${String(p.gpu)}' has no simulator profile`;
  if (!posInt(p.gpu_count) || !posInt(p.tp) || !posInt(p.pp)) return 'gpu_count, tp and pp must be whole numbers ≥ 1';
  if (!posInt(p.isl) || !posInt(p.osl)) return 'isl and osl must be whole numbers ≥ 1';
  if (typeof p.metric !== 'string' || !METRICS.includes(p.metric as PublishedMetric)) return `metric '${String(p.metric)}' is not one of ${METRICS.join(', ')}`;
  if (typeof p.value !== 'number' || !(p.value > 0)) return 'value must be a number above 0';
  const l = p.load;
  if (!isObj(l)) return 'no load';
  if (l.kind === 'concurrency' && !posInt(l.concurrency)) return 'a concurrency load needs a whole concurrency';
  if (l.kind === 'rate' && !(typeof l.rate === 'number' && l.rate > 0)) return 'a rate load needs a rate above 0';
  if (l.kind !== 'offline' && l.kind !== 'concurrency' && l.kind !== 'rate') return `load kind '${String(l.kind)}' is not offline, concurrency or rate`;
  return undefined;
}

/** A digest of the corpus's source files (names and contents): a stored figure is of this corpus only. */
export function corpusDigest(dir: string): string {
  const h = createHash('sha256');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) h.update(name).update('\0').update(readFileSync(join(dir, name))).update('\0');
  return h.digest('hex').slice(0, 16);
}

/** Every source file of a corpus folder; points that cannot be used are left out with a problem naming file and index. */
export function readCorpus(dir: string): { sources: PublishedSource[]; problems: string[] } {
  const sources: PublishedSource[] = [];
  const problems: string[] = [];
  if (!existsSync(dir)) return { sources, problems: [`${dir}: no such folder`] };
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const file = join(dir, name);
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      problems.push(`${file}: not JSON (${(e as Error).message})`);
      continue;
    }
    if (!isObj(doc) || !isObj(doc.source) || !Array.isArray(doc.points)) {
      problems.push(`${file}: needs { "source": {...}, "points": [...] }`);
      continue;
    }
    const points: PublishedPoint[] = [];
    doc.points.forEach((p: unknown, i) => {
      const why = isObj(p) ? pointProblem(p) : 'not an object';
      if (why) problems.push(`${file}: points[${i}]: ${why}`);
      else points.push(p as PublishedPoint);
    });
    sources.push({ file, id: name.replace(/\.json$/, ''), source: doc.source as PublishedSource['source'], points });
  }
  return { sources, problems };
}

const fp8 = (d: string | null): boolean => d !== null && /fp8|e4m3/i.test(d);
const fp4 = (d: string | null): boolean => d !== null && /fp4|int4|awq|gptq/i.test(d);
/** The checkpoint name already says its quantization (the simulator reads it from the name). */
const namedQuant = (model: string): boolean => /[-_.](fp8|nvfp4|fp4|mxfp4|int4|awq|gptq|w8a8|int8)([-_.]|$)/i.test(model);

/** Table labels some sources name models by ('LLaMA v3.1 70B'), as the checkpoints they stand for. */
const LABELS: Array<[RegExp, string]> = [
  [/^llama\s*v?3\.1\s*(8|70|405)b$/i, 'meta-llama/Llama-3.1-$1B-Instruct'],
  [/^llama\s*v?3\.3\s*70b$/i, 'meta-llama/Llama-3.3-70B-Instruct'],
  [/^llama\s*4\s*maverick$/i, 'meta-llama/Llama-4-Maverick-17B-128E-Instruct'],
  [/^llama\s*4\s*scout$/i, 'meta-llama/Llama-4-Scout-17B-16E-Instruct'],
];

/**
 * The checkpoint a point ran: its model, a table label read as the checkpoint it names, and quantized weights the
 * name does not say given the quantized checkpoint's suffix (`-FP8`, `-FP4`): the simulator reads precision from it.
 */
export function checkpointOf(p: PublishedPoint): string {
  const label = LABELS.find(([re]) => re.test(p.model.trim()));
  const model = label ? p.model.trim().replace(label[0], label[1]) : p.model;
  if (namedQuant(model)) return model;
  return fp8(p.weights_dtype) ? `${model}-FP8` : fp4(p.weights_dtype) ? `${model}-FP4` : model;
}

/** A YAML file of LLM API options for trtllm-serve (the KV cache dtype lives there), written once per content. */
function trtllmOptions(scratch: string, kvDtype: string): string {
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, `kv-${kvDtype}.yaml`);
  if (!existsSync(file)) writeFileSync(file, `kv_cache_config:\n  dtype: ${kvDtype}\n`);
  return file;
}

/** A YAML file of LLM API options for trtllm-serve, written once per content (named by its digest). */
function optionsFile(scratch: string, text: string): string {
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, `opts-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.yaml`);
  if (!existsSync(file)) writeFileSync(file, text);
  return file;
}

const GiB = 1024 ** 3;

/** Rounds a raw batch size and token count up the way trtllm-bench's finetune_setting does (optimistic tuning on). */
function benchRounding(rawBs: number, rawToken: number): { maxBatch: number; maxTokens: number } {
  const maxBatch = rawBs < 256 ? Math.max(64, 32 * Math.ceil(rawBs / 32)) : rawBs < 1024 ? 128 * Math.ceil(rawBs / 128) : 256 * Math.ceil(rawBs / 256);
  const maxTokens = rawToken < 4096 ? Math.max(2048, 256 * Math.ceil(rawToken / 256)) : rawToken < 8192 ? 512 * Math.ceil(rawToken / 512) : 1024 * Math.ceil(rawToken / 1024);
  return { maxBatch, maxTokens };
}

/**
 * The max batch size and max num tokens `trtllm-bench throughput` picks for a dataset when none is given
 * (NVIDIA/TensorRT-LLM · tensorrt_llm/bench/build/tuning.py @04cba882 calc_engine_setting and finetune_setting:
 * requests that fit 95% of the memory left after the weights at ISL+OSL each, KV heads at least one per TP rank;
 * tokens = requests x (1 + ISL/OSL), at most 32768), and then, with chunked prefill off (its default), at least the
 * longest prompt plus the batch size (tensorrt_llm/bench/benchmark/utils/general.py @0171265e get_settings).
 */
export function trtllmBenchSettings(p: PublishedPoint): { maxBatch: number; maxTokens: number } {
  const m = modelProfile(checkpointOf(p));
  const gpu = gpuProfile(p.gpu);
  const shards = p.tp * p.pp;
  const bytesPerElem = m.bytesPerParam <= 0.6 ? 0.5 : m.bytesPerParam <= 1 ? 1 : 2;
  const kvElem = fp8(p.kv_dtype) ? 0.5 : (m.kvDtypeFactor ?? 1);
  const kvPerToken = (m.kvBytesPerToken * kvElem * Math.max(p.tp, m.kvSplit)) / m.kvSplit / GiB;
  const free = ((gpu?.memBytes ?? 80 * GiB) * shards) / GiB - (m.totalParamsB * 1e9 * bytesPerElem) / GiB;
  const requests = (free * 0.95) / (kvPerToken * (p.isl + p.osl));
  const rawBs = Math.min(requests, 4096) / p.pp;
  const rawToken = Math.min(rawBs * (1 + p.isl / p.osl), 32768);
  const r = benchRounding(rawBs, rawToken);
  return { maxBatch: r.maxBatch, maxTokens: Math.max(r.maxTokens, p.isl + r.maxBatch) };
}

/**
 * The LLM API options a trtllm-bench offline point ran with: the KV-cache dtype where stated, CUDA graphs with
 * padding over the whole batch (the perf overview's llm_options.yml lists batch sizes up to 8192), and attention
 * data parallelism for MoE models (the page's MoE options set enable_attention_dp).
 */
function trtllmBenchOptions(p: PublishedPoint, maxBatch: number): string {
  const lines = ['cuda_graph_config:', '  enable_padding: true', `  max_batch_size: ${maxBatch}`];
  if (fp8(p.kv_dtype)) lines.push('kv_cache_config:', '  dtype: fp8');
  const m = modelProfile(checkpointOf(p));
  if (m.activeParamsB < m.totalParamsB && p.tp > 1) lines.push('enable_attention_dp: true');
  return `${lines.join('\n')}\n`;
}

/** trtllm-serve flags for an offline trtllm-bench point: its tuned batch and token limits and a 0.95 KV share. */
function trtllmBenchArgv(p: PublishedPoint, scratch: string, kvFraction: number): string[] {
  const { maxBatch, maxTokens } = trtllmBenchSettings(p);
  return ['--max_batch_size', String(maxBatch), '--max_num_tokens', String(maxTokens), '--kv_cache_free_gpu_memory_fraction', String(kvFraction), '--extra_llm_api_options', optionsFile(scratch, trtllmBenchOptions(p, maxBatch))];
}

/** trtllm-serve flags and LLM API options for a run whose settings the source states. */
function statedTrtllmArgv(p: PublishedPoint, t: TrtllmRunSettings, scratch: string): string[] {
  const argv: string[] = [];
  if (t.max_batch_size !== undefined) argv.push('--max_batch_size', String(t.max_batch_size));
  if (t.max_num_tokens !== undefined) argv.push('--max_num_tokens', String(t.max_num_tokens));
  if (t.kv_cache_free_gpu_memory_fraction !== undefined) argv.push('--kv_cache_free_gpu_memory_fraction', String(t.kv_cache_free_gpu_memory_fraction));
  const lines: string[] = [];
  if (t.cuda_graph_max_batch_size !== undefined) lines.push('cuda_graph_config:', '  enable_padding: true', `  max_batch_size: ${t.cuda_graph_max_batch_size}`);
  if (fp8(p.kv_dtype)) lines.push('kv_cache_config:', '  dtype: fp8');
  if (t.attention_dp === true) lines.push('enable_attention_dp: true');
  if (lines.length) argv.push('--extra_llm_api_options', optionsFile(scratch, `${lines.join('\n')}\n`));
  return argv;
}

/**
 * KV-cache shares an offline TensorRT-LLM point is tried at, in order: the perf overview runs at 0.95 and falls back to
 * 0.90 or lower on out-of-memory.
 */
const BENCH_KV_FRACTIONS = [0.95, 0.9, 0.85, 0.8];

/** The command line the point's deployment corresponds to (program first), on the engine's own flags. */
export function commandFor(p: PublishedPoint, scratch: string, kvFraction = BENCH_KV_FRACTIONS[0] as number): string[] {
  const context = String(p.isl + p.osl + 16);
  const model = checkpointOf(p);
  if (p.engine === 'vllm') {
    const argv = ['vllm', 'serve', model, '--tensor-parallel-size', String(p.tp), '--pipeline-parallel-size', String(p.pp), '--max-model-len', context];
    if (fp8(p.kv_dtype)) argv.push('--kv-cache-dtype', 'fp8');
    if ((p.ep ?? 1) > 1) argv.push('--enable-expert-parallel');
    return argv;
  }
  if (p.engine === 'sglang') {
    const argv = ['python', '-m', 'sglang.launch_server', '--model-path', model, '--tp-size', String(p.tp), '--pp-size', String(p.pp), '--context-length', context];
    if (fp8(p.kv_dtype)) argv.push('--kv-cache-dtype', 'fp8_e4m3');
    if ((p.ep ?? 1) > 1) argv.push('--ep-size', String(p.ep));
    return argv;
  }
  const argv = ['trtllm-serve', 'serve', model, '--backend', 'pytorch', '--tp_size', String(p.tp), '--pp_size', String(p.pp), '--max_seq_len', context];
  if ((p.ep ?? 1) > 1) argv.push('--ep_size', String(p.ep));
  if (p.trtllm) return [...argv, ...statedTrtllmArgv(p, p.trtllm, scratch)];
  if (p.load.kind === 'offline') return [...argv, ...trtllmBenchArgv(p, scratch, kvFraction)];
  if (fp8(p.kv_dtype)) argv.push('--extra_llm_api_options', trtllmOptions(scratch, 'fp8'));
  return argv;
}

/** Requests an offline point is simulated with: the published count, at most this many (the steady state is reached well before). */
const OFFLINE_MAX = 2000;

function loadOf(l: PublishedLoad): { rate: number; concurrency: number | null; requests: number } {
  if (l.kind === 'offline') return { rate: Infinity, concurrency: null, requests: Math.min(OFFLINE_MAX, l.requests ?? OFFLINE_MAX) };
  // A closed loop runs at least twice its concurrency, so a large one (the DeepSeek blog's 7168) reaches its steady state.
  if (l.kind === 'concurrency') return { rate: Infinity, concurrency: l.concurrency, requests: Math.min(Math.max(OFFLINE_MAX, 2 * l.concurrency), l.requests ?? Math.max(200, 10 * l.concurrency)) };
  return { rate: l.rate, concurrency: null, requests: Math.min(OFFLINE_MAX, l.requests ?? Math.max(200, Math.ceil(60 * l.rate))) };
}

/** Each metric as the virtual client's result gives it. */
const FIGURES: Record<PublishedMetric, (v: VirtualResult, p: PublishedPoint) => number> = {
  output_throughput: (v) => v.outputThroughput,
  output_throughput_per_gpu: (v, p) => v.outputThroughput / p.gpu_count,
  total_throughput: (v, p) => v.requestThroughput * ((p.isl_mean_measured ?? p.isl) + (p.osl_mean_measured ?? p.osl)),
  request_throughput: (v) => v.requestThroughput,
  mean_ttft_ms: (v) => v.ttftMs.mean,
  p50_ttft_ms: (v) => v.ttftMs.p50,
  mean_tpot_ms: (v) => v.tpotMs.mean,
  p50_tpot_ms: (v) => v.tpotMs.p50,
  mean_itl_ms: (v) => v.itlMs.mean,
  p50_itl_ms: (v) => v.itlMs.p50,
  mean_e2e_ms: (v) => v.e2eMs.mean,
  p50_e2e_ms: (v) => v.e2eMs.p50,
};

const figureOf = (p: PublishedPoint, v: VirtualResult): number => FIGURES[p.metric](v, p);

export type PointPrediction = { ok: true; predicted: number; ratio: number } | { ok: false; reason: string };

/**
 * A random-dataset point's per-request lengths: bench_serving's random dataset draws each length uniformly up to the
 * configured one (sgl-project/sglang · python/sglang/bench_serving.py, sample_random_requests: randint(max(len x
 * range_ratio, 1), len + 1)), here over [2 x measured mean - len, len] so the draws keep the printed mean. Equal lengths
 * would put a closed loop's requests in lockstep: every one finishing together, every prefill queued behind the others.
 */
export function drawnLengths(p: PublishedPoint, requests: number): Array<{ input: number; output: number }> | undefined {
  if (p.dataset !== 'random' || p.isl_mean_measured === undefined || p.osl_mean_measured === undefined) return undefined;
  const draw = (len: number, mean: number, u: number): number => {
    const lo = Math.max(1, Math.min(len, 2 * mean - len));
    return Math.max(1, Math.round(lo + u * (len - lo)));
  };
  return Array.from({ length: requests }, (_, i) => ({
    input: draw(p.isl, p.isl_mean_measured as number, unit(mix32(0x15e, i))),
    output: draw(p.osl, p.osl_mean_measured as number, unit(mix32(0x05e, i))),
  }));
}

/** The model's figure for one published point (speed factors optional: a fit's), and predicted / published. */
export function predictPublished(p: PublishedPoint, scratch: string, factors?: Factors): PointPrediction {
  const fractions = p.engine === 'tensorrt_llm' && p.load.kind === 'offline' ? BENCH_KV_FRACTIONS : [BENCH_KV_FRACTIONS[0] as number];
  let e = engineForArgv(p.engine, commandFor(p, scratch), predictOptions(gpuProfile(p.gpu)?.name), factors);
  for (const f of fractions.slice(1)) {
    if (e.ok || !e.oom) break;
    e = engineForArgv(p.engine, commandFor(p, scratch, f), predictOptions(gpuProfile(p.gpu)?.name), factors);
  }
  if (!e.ok) return { ok: false, reason: `${e.oom ? 'out of memory' : 'would not start'}: ${e.reason}` };
  const isl = Math.max(1, Math.round(p.isl_mean_measured ?? p.isl));
  const osl = Math.max(1, Math.round(p.osl_mean_measured ?? p.osl));
  const load = loadOf(p.load);
  const lengths = drawnLengths(p, load.requests);
  const v = simulateLoad(e.config, { inputLen: isl, outputLen: osl, ...load, ...(lengths ? { lengths } : {}), warmup: 0, seed: 1 });
  const predicted = figureOf(p, v);
  if (!Number.isFinite(predicted) || predicted <= 0) return { ok: false, reason: 'the simulated load completed nothing' };
  return { ok: true, predicted, ratio: predicted / p.value };
}

/** How far a set of predictions is from what was published: error = predicted / published - 1. */
export interface ErrorSummary {
  n: number;
  medianAbsError: number;
  /** The median |ln(predicted / published)|: a relative sd of it is this / 0.6745 (normal errors). */
  medianAbsLogError: number;
  /** The median predicted / published over latency points (null without any): above 1, predicted too slow. */
  medianLatencyRatio: number | null;
  /** Share of points within 25% (|error| ≤ 0.25). */
  within25: number;
  worst: { ratio: number; where: string } | null;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export function summarizeErrors(rows: ReadonlyArray<{ point: PublishedPoint; ratio: number; source?: string }>): ErrorSummary {
  if (rows.length === 0) return { n: 0, medianAbsError: NaN, medianAbsLogError: NaN, medianLatencyRatio: null, within25: NaN, worst: null };
  const lat = rows.filter((r) => isLatency(r.point.metric)).map((r) => r.ratio);
  let worst = rows[0] as (typeof rows)[number];
  for (const r of rows) if (Math.abs(Math.log(r.ratio)) > Math.abs(Math.log(worst.ratio))) worst = r;
  return {
    n: rows.length,
    medianAbsError: median(rows.map((r) => Math.abs(r.ratio - 1))),
    medianAbsLogError: median(rows.map((r) => Math.abs(Math.log(r.ratio)))),
    medianLatencyRatio: lat.length ? median(lat) : null,
    within25: rows.filter((r) => Math.abs(r.ratio - 1) <= 0.25).length / rows.length,
    worst: { ratio: worst.ratio, where: `${worst.source ? `${worst.source}: ` : ''}${worst.point.engine} ${worst.point.model} ${worst.point.gpu} TP${worst.point.tp} ${worst.point.isl}/${worst.point.osl} ${worst.point.metric}` },
  };
}

/** GPUs whose kernels and memory systems are the same generation share efficiency factors (Hopper; Blackwell datacenter). */
const FAMILIES: Record<string, string> = { H100: 'Hopper', H200: 'Hopper', GH200: 'Hopper', B200: 'Blackwell', GB200: 'Blackwell', B300: 'Blackwell' };

/** The calibration group a point's efficiency is fitted in: its GPU family and weight precision. */
export function groupOf(p: PublishedPoint): string {
  const d = fp4(p.weights_dtype) || /nvfp4|fp4|int4|awq|gptq/i.test(p.model) ? 'fp4' : fp8(p.weights_dtype) || /fp8/i.test(p.model) ? 'fp8' : 'bf16';
  const gpu = gpuProfile(p.gpu)?.name ?? p.gpu;
  return `${FAMILIES[gpu] ?? gpu} ${d}`;
}

/**
 * Scatter of one point's log ratio around a fit, and the prior spread of a fitted log factor (±22%): factors fitted to
 * other sources carry over poorly (leave-one-source-out on the corpus, 2026-12-07: 12.1% median at sd 0.5, 11.6% at
 * 0.2, 11.4% at 0.1, against 11.2% uncalibrated), so a fit moves far only on many consistent points.
 */
const FIT_POINT_SD = 0.15;
const FIT_PRIOR_SD = 0.2;
const FIT_CAP = 2 * FIT_POINT_SD;

/**
 * Prefill and decode speed factors that bring the model closest to these points (least squares on log ratios;
 * Gauss-Newton with finite differences, each factor kept within e^±1.5). Points that do not predict are left out.
 */
export function fitFactors(points: readonly PublishedPoint[], scratch: string): Factors {
  let x = [0, 0];
  const residuals = (v: number[]): number[] => {
    const f = { prefill: Math.exp(v[0] as number), decode: Math.exp(v[1] as number) };
    const r = points.map((p) => {
      const r = predictPublished(p, scratch, f);
      // Robust: a point the model misses by far more than the scatter (a cache-biased TTFT, a mislabelled row) pulls
      // no harder than one missed by ~2 sd.
      return r.ok ? FIT_CAP * Math.tanh(Math.log(r.ratio) / FIT_CAP) : 0;
    });
    // A ridge toward 1 (prior sd of a log factor FIT_PRIOR_SD against a point's ~15%): throughputs alone barely tell
    // prefill from decode speed, and an unpenalized fit trades one against the other to extremes.
    return [...r, ...v.map((x) => (FIT_POINT_SD / FIT_PRIOR_SD) * x)];
  };
  const sq = (r: number[]): number => r.reduce((a, b) => a + b * b, 0);
  let r0 = residuals(x);
  const h = 0.05;
  for (let it = 0; it < 8; it++) {
    const cols = [0, 1].map((k) => {
      const y = [...x];
      y[k] = (y[k] as number) + h;
      return residuals(y).map((ri, i) => (ri - (r0[i] as number)) / h);
    });
    const [a, b] = cols as [number[], number[]];
    const aa = a.reduce((s, v) => s + v * v, 0) + 1e-6;
    const bb = b.reduce((s, v) => s + v * v, 0) + 1e-6;
    const ab = a.reduce((s, v, i) => s + v * (b[i] as number), 0);
    const ar = a.reduce((s, v, i) => s + v * (r0[i] as number), 0);
    const br = b.reduce((s, v, i) => s + v * (r0[i] as number), 0);
    const det = aa * bb - ab * ab;
    const step = det > 1e-9 ? [-(bb * ar - ab * br) / det, -(aa * br - ab * ar) / det] : [-ar / aa, -br / bb];
    let scale = 1;
    let next = x;
    let rn = r0;
    for (; scale > 1 / 16; scale /= 2) {
      next = x.map((v, k) => Math.max(-1.5, Math.min(1.5, v + scale * (step[k] as number))));
      rn = residuals(next);
      if (sq(rn) < sq(r0)) break;
    }
    if (sq(rn) >= sq(r0)) break;
    const moved = Math.hypot((next[0] as number) - (x[0] as number), (next[1] as number) - (x[1] as number));
    x = next;
    r0 = rn;
    if (moved < 0.005) break;
  }
  return { prefill: Math.exp(x[0] as number), decode: Math.exp(x[1] as number) };
}
