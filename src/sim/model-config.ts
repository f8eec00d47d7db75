// A model's shapes read from its checkpoint's own config.json (a local folder given as the model): layers, widths,
// attention and KV layout (GQA or MLA), dense or MoE parameter counts, context length and the shipped dtype.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A model's shapes as the cost model prices them (profiles.ts holds the table of known ones). */
export interface ModelProfile {
  id: string;
  aliases?: string[];
  /** Total and per-token active parameters, in billions. */
  totalParamsB: number;
  activeParamsB: number;
  /** Bytes per parameter of the checkpoint as shipped (2 BF16, 1 FP8, ~0.55 MXFP4/INT4 with scales). */
  bytesPerParam: number;
  layers: number;
  hidden: number;
  /** KV-cache bytes per token for the whole model at BF16 (full-attention layers only; MLA latent counted once). */
  kvBytesPerToken: number;
  /** How many ways tensor parallelism can split the KV cache (KV heads; 1 for MLA, which every rank replicates). */
  kvSplit: number;
  /** Layers with full attention and their query width (heads x head dim): prices attention FLOPs. */
  attnLayers: number;
  attnWidth: number;
  /**
   * MLA: decode runs attention on the absorbed latent, each head scoring (kv_lora_rank + rope) and mixing kv_lora_rank
   * wide values, which prices a pair as this width does (heads x their mean); absent: attnWidth.
   */
  attnDecodeWidth?: number;
  /**
   * KV-cache element size the checkpoint's quantization asks for, relative to BF16 (ModelOpt's kv_cache_quant_algo
   * FP8: 0.5); absent: none. Engines whose KV dtype `auto` follows the checkpoint (TensorRT-LLM) use it.
   */
  kvDtypeFactor?: number;
  /**
   * The routed experts of a MoE model: how many, how many each token picks, each one's intermediate width, and the
   * layers that have them (the rest are dense). Absent: dense, or a MoE whose expert shapes are not known (priced as
   * dense GEMMs).
   */
  moe?: MoeShape;
  /** Sparse attention (DeepSeek DSA): decode reads at most this many tokens of KV per layer. */
  sparseTopK?: number;
  contextLength: number;
  /** The GPU its reference deployment uses; `auto` starts there when the weights fit. */
  refGpu?: string;
  /** True when the numbers were guessed from the name rather than taken from a config. */
  estimated?: boolean;
  /**
   * Where the shapes came from: the table below (a published config), the checkpoint's own config.json (a local
   * folder), or a guess from sizes in the name (`estimated`). Absent: the table.
   */
  source?: 'table' | 'config' | 'name';
  /** A quantized checkpoint's name resolved to the table entry of its base model (`nvidia/Llama-3.3-70B-Instruct-FP8`). */
  derivedFrom?: string;
}

export interface MoeShape {
  experts: number;
  topK: number;
  intermediate: number;
  layers: number;
}

type Obj = Record<string, unknown>;

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const n = (o: Obj, ...keys: string[]): number | undefined => {
  for (const k of keys) if (typeof o[k] === 'number' && Number.isFinite(o[k])) return o[k];
  return undefined;
};

/** Bytes per parameter of the checkpoint as shipped: its quantization_config, else its torch_dtype. */
export function checkpointBytes(c: Obj): number {
  const q = isObj(c.quantization_config) ? c.quantization_config : undefined;
  const method = typeof q?.quant_method === 'string' ? q.quant_method.toLowerCase() : '';
  if (/mxfp4|nvfp4|fp4|awq|gptq|int4|bitsandbytes/.test(method)) return 0.55;
  if (method) return 1;
  const d = c.torch_dtype ?? c.dtype;
  const dtype = typeof d === 'string' ? d.toLowerCase() : 'bfloat16';
  return dtype === 'float32' ? 4 : 2;
}

/** Parameters in billions, total and active per token, from the shapes (embeddings counted once when tied). */
function params(c: Obj, hidden: number, layers: number, attnParams: number): { total: number; active: number; moe?: MoeShape } {
  const vocab = n(c, 'vocab_size') ?? 0;
  const emb = vocab * hidden * (c.tie_word_embeddings === true ? 1 : 2);
  const dense = 3 * hidden * (n(c, 'intermediate_size_mlp', 'intermediate_size') ?? 4 * hidden);
  const experts = n(c, 'n_routed_experts', 'num_experts', 'num_local_experts') ?? 0;
  if (experts <= 1) return { total: (layers * (attnParams + dense) + emb) / 1e9, active: (layers * (attnParams + dense) + emb) / 1e9 };
  const intermediate = n(c, 'moe_intermediate_size') ?? n(c, 'intermediate_size') ?? 4 * hidden;
  const expert = 3 * hidden * intermediate;
  const shared = (n(c, 'n_shared_experts', 'num_shared_experts') ?? 0) * expert;
  const perTok = n(c, 'num_experts_per_tok', 'moe_topk') ?? 1;
  // DeepSeek-style leading dense layers; Llama 4's MoE on every `interleave_moe_layer_step`-th layer.
  const leading = Math.min(layers, n(c, 'first_k_dense_replace') ?? 0);
  const moeLayers = Math.floor((layers - leading) / Math.max(1, n(c, 'interleave_moe_layer_step') ?? 1));
  const denseLayers = layers - moeLayers;
  const base = layers * attnParams + denseLayers * dense + moeLayers * shared + emb;
  const moe = { experts, topK: perTok, intermediate, layers: moeLayers };
  return { total: (base + moeLayers * experts * expert) / 1e9, active: (base + moeLayers * perTok * expert) / 1e9, moe };
}

/** The profile a config.json describes; undefined when it lacks the shapes a profile needs. */
export function profileFromConfig(id: string, raw: unknown): ModelProfile | undefined {
  if (!isObj(raw)) return undefined;
  // Multimodal checkpoints keep the language model's shapes under text_config.
  const c = isObj(raw.text_config) ? { ...raw.text_config, quantization_config: raw.quantization_config, torch_dtype: raw.text_config.torch_dtype ?? raw.torch_dtype } : raw;
  const layers = n(c, 'num_hidden_layers', 'n_layer', 'num_layers');
  const hidden = n(c, 'hidden_size', 'n_embd', 'd_model');
  const heads = n(c, 'num_attention_heads', 'n_head');
  if (!layers || !hidden || !heads) return undefined;
  const kvHeads = n(c, 'num_key_value_heads') ?? heads;
  const headDim = n(c, 'head_dim') ?? hidden / heads;
  const kvLora = n(c, 'kv_lora_rank');
  let kv: { bytes: number; split: number; width: number; decodeWidth?: number; attnParams: number };
  if (kvLora) {
    // MLA: one latent (kv_lora_rank + the RoPE part) per token and layer, which every TP rank keeps whole.
    const rope = n(c, 'qk_rope_head_dim') ?? 64;
    const qk = (n(c, 'qk_nope_head_dim') ?? 128) + rope;
    const v = n(c, 'v_head_dim') ?? 128;
    const qLora = n(c, 'q_lora_rank');
    const q = qLora ? hidden * qLora + qLora * heads * qk : hidden * heads * qk;
    kv = { bytes: layers * (kvLora + rope) * 2, split: 1, width: heads * qk, decodeWidth: (heads * (2 * kvLora + rope)) / 2, attnParams: q + hidden * (kvLora + rope) + kvLora * heads * (qk - rope + v) + heads * v * hidden };
  } else {
    kv = { bytes: 2 * layers * kvHeads * headDim * 2, split: kvHeads, width: heads * headDim, attnParams: 2 * hidden * heads * headDim + 2 * hidden * kvHeads * headDim };
  }
  const p = params(c, hidden, layers, kv.attnParams);
  const kvQuant = kvAlgoFactor(isObj(c.quantization_config) ? c.quantization_config : undefined);
  return {
    ...(kvQuant !== undefined ? { kvDtypeFactor: kvQuant } : {}),
    ...(p.moe ? { moe: p.moe } : {}),
    id,
    totalParamsB: p.total,
    activeParamsB: p.active,
    bytesPerParam: checkpointBytes(c),
    layers,
    hidden,
    kvBytesPerToken: kv.bytes,
    kvSplit: kv.split,
    attnLayers: layers,
    attnWidth: kv.width,
    ...(kv.decodeWidth !== undefined ? { attnDecodeWidth: kv.decodeWidth } : {}),
    contextLength: n(c, 'max_position_embeddings', 'max_seq_len', 'seq_length') ?? 131072,
    source: 'config',
  };
}

/** KV element size relative to BF16 for a ModelOpt kv_cache_quant_algo (FP8, NVFP4), or undefined. */
function kvAlgoFactor(q: Obj | undefined): number | undefined {
  const kv = typeof q?.kv_cache_quant_algo === 'string' ? q.kv_cache_quant_algo.toLowerCase() : '';
  return /fp4/.test(kv) ? 0.3 : /fp8|int8/.test(kv) ? 0.5 : undefined;
}

/**
 * A ModelOpt checkpoint's hf_quant_config.json (what TensorRT-LLM reads its quantization from): bytes per parameter
 * and the KV-cache dtype it asks for.
 */
function modelOptQuant(model: string): { bytes?: number; kv?: number } | undefined {
  const file = join(model, 'hf_quant_config.json');
  if (!existsSync(file)) return undefined;
  const doc: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const q = isObj(doc) && isObj(doc.quantization) ? doc.quantization : undefined;
  const algo = typeof q?.quant_algo === 'string' ? q.quant_algo.toLowerCase() : '';
  const bytes = /fp4|int4|w4a/.test(algo) ? 0.55 : /fp8|int8|w8a/.test(algo) ? 1 : undefined;
  const kv = kvAlgoFactor(q);
  return { ...(bytes !== undefined ? { bytes } : {}), ...(kv !== undefined ? { kv } : {}) };
}

/** The profile from `<model>/config.json` when the model names a local folder that holds one. */
export function localConfigProfile(model: string): ModelProfile | undefined {
  const file = join(model, 'config.json');
  try {
    if (!existsSync(file) || !statSync(file).isFile()) return undefined;
    const p = profileFromConfig(model, JSON.parse(readFileSync(file, 'utf8')));
    const q = p ? modelOptQuant(model) : undefined;
    if (!p || !q) return p;
    return { ...p, ...(q.bytes !== undefined ? { bytesPerParam: q.bytes } : {}), ...(q.kv !== undefined ? { kvDtypeFactor: q.kv } : {}) };
  } catch {
    return undefined;
  }
}
