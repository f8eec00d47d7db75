// GPU and model profiles the simulated engine is priced with: public spec-sheet numbers, rounded.
import { localConfigProfile, type ModelProfile } from './model-config';
//
// These are inputs to a rough roofline model, not measurements: bandwidth and FLOPs are the vendor's dense
// figures, model shapes come from the published configs (layers, hidden size, attention heads, KV layout).

export interface GpuProfile {
  name: string;
  /** Memory a process can use, in bytes (what nvidia-smi reports, not the marketing figure). */
  memBytes: number;
  /** HBM bandwidth, bytes/s. */
  bandwidth: number;
  /** Dense BF16 tensor FLOP/s. */
  flopsBf16: number;
  /** Dense FP8 tensor FLOP/s (the BF16 rate where the GPU has no FP8 units). */
  flopsFp8: number;
  /** Dense FP4 tensor FLOP/s where the GPU has FP4 units (Blackwell); absent: the FP8 rate. */
  flopsFp4?: number;
  /**
   * Share of the FP4 peak its NVFP4 GEMMs reach relative to the share BF16/FP8 GEMMs reach of theirs; absent: 0.7
   * (config.ts FP4_EFFICIENCY). Fitted to the published corpus (docs/ENGINES.md).
   */
  fp4Efficiency?: number;
  /** Per-direction GPU-to-GPU bandwidth (NVLink / Infinity Fabric), bytes/s. */
  linkBandwidth: number;
}

const GiB = 1024 ** 3;
const TB = 1e12;

export const GPUS: GpuProfile[] = [
  { name: 'A100-80GB', memBytes: 79.2 * GiB, bandwidth: 2.039 * TB, flopsBf16: 312 * TB, flopsFp8: 312 * TB, linkBandwidth: 300e9 },
  { name: 'H100', memBytes: 79.6 * GiB, bandwidth: 3.35 * TB, flopsBf16: 989 * TB, flopsFp8: 1979 * TB, linkBandwidth: 450e9 },
  { name: 'H200', memBytes: 140.4 * GiB, bandwidth: 4.8 * TB, flopsBf16: 989 * TB, flopsFp8: 1979 * TB, linkBandwidth: 450e9 },
  { name: 'B200', memBytes: 179.1 * GiB, bandwidth: 8 * TB, flopsBf16: 2250 * TB, flopsFp8: 4500 * TB, flopsFp4: 9000 * TB, linkBandwidth: 900e9 },
  { name: 'B300', memBytes: 268.6 * GiB, bandwidth: 8 * TB, flopsBf16: 2250 * TB, flopsFp8: 4500 * TB, flopsFp4: 13500 * TB, linkBandwidth: 900e9 },
  { name: 'MI300X', memBytes: 191.5 * GiB, bandwidth: 5.3 * TB, flopsBf16: 1307 * TB, flopsFp8: 2615 * TB, linkBandwidth: 448e9 },
  // Grace-Hopper: an H100's compute with 96 GB HBM3 at 4.0 TB/s (the 144 GB HBM3e part is rarer); NVLink 4 between GPUs.
  { name: 'GH200', memBytes: 95.6 * GiB, bandwidth: 4.0 * TB, flopsBf16: 989 * TB, flopsFp8: 1979 * TB, linkBandwidth: 450e9 },
  // GB200 NVL72, per GPU: 186 GB HBM3e usable at 8 TB/s, 2.5 / 5 / 10 PFLOP/s dense BF16 / FP8 / FP4, NVLink 5 (1.8 TB/s both ways).
  // Blackwell's FP4 tensor rate is twice its FP8 rate (dense; the spec sheets' larger figures are with sparsity).
  { name: 'GB200', memBytes: 185 * GiB, bandwidth: 8 * TB, flopsBf16: 2500 * TB, flopsFp8: 5000 * TB, flopsFp4: 10000 * TB, linkBandwidth: 900e9 },
  // PCIe cards: no NVLink, GPU-to-GPU traffic crosses PCIe (Gen4 x16 for the L40S, Gen5 x16 for the RTX PRO 6000).
  { name: 'L40S', memBytes: 45 * GiB, bandwidth: 0.864 * TB, flopsBf16: 362 * TB, flopsFp8: 733 * TB, linkBandwidth: 18e9 },
  // Its prefill-heavy NVFP4 points reach the FP4 peak at the share B200's FP8 GEMMs reach of theirs (B200/GB200: 0.7 of it).
  { name: 'RTX-PRO-6000-Blackwell-Server', memBytes: 95.6 * GiB, bandwidth: 1.597 * TB, flopsBf16: 500 * TB, flopsFp8: 1000 * TB, flopsFp4: 2000 * TB, fp4Efficiency: 1, linkBandwidth: 64e9 },
];

/** GPUs `--sim-gpu auto` picks from, smallest first. */
export const AUTO_GPU_ORDER = ['H100', 'H200', 'B200', 'B300'];
/** Auto picks the first GPU where the weights take at most this share of memory, leaving room for KV. */
export const AUTO_WEIGHT_SHARE = 0.75;

export type { ModelProfile };

// Shapes of the shipped cookbook models and a few small ones the tests and demos use.
const DSV3 = { totalParamsB: 671, activeParamsB: 37, bytesPerParam: 1, layers: 61, hidden: 7168, moe: { experts: 256, topK: 8, intermediate: 2048, layers: 58 }, kvBytesPerToken: 61 * 1152, kvSplit: 1, attnLayers: 61, attnWidth: 128 * 192, attnDecodeWidth: 128 * 544, contextLength: 163840 };
const DSV32 = { ...DSV3, kvBytesPerToken: 61 * (1152 + 132), sparseTopK: 2048 };
const KIMI = { totalParamsB: 1040, activeParamsB: 32, bytesPerParam: 1, layers: 61, hidden: 7168, moe: { experts: 384, topK: 8, intermediate: 2048, layers: 60 }, kvBytesPerToken: 61 * 1152, kvSplit: 1, attnLayers: 61, attnWidth: 64 * 192, attnDecodeWidth: 64 * 544, contextLength: 131072 };
const GLM45 = { totalParamsB: 355, activeParamsB: 32, bytesPerParam: 2, layers: 92, hidden: 5120, moe: { experts: 160, topK: 8, intermediate: 1536, layers: 89 }, kvBytesPerToken: 2 * 92 * 8 * 128 * 2, kvSplit: 8, attnLayers: 92, attnWidth: 96 * 128, contextLength: 131072 };
const LLAMA70 = { totalParamsB: 70.6, activeParamsB: 70.6, bytesPerParam: 2, layers: 80, hidden: 8192, kvBytesPerToken: 2 * 80 * 8 * 128 * 2, kvSplit: 8, attnLayers: 80, attnWidth: 64 * 128, contextLength: 131072 };
const LLAMA8 = { totalParamsB: 8.03, activeParamsB: 8.03, bytesPerParam: 2, layers: 32, hidden: 4096, kvBytesPerToken: 2 * 32 * 8 * 128 * 2, kvSplit: 8, attnLayers: 32, attnWidth: 32 * 128, contextLength: 131072 };
const LLAMA4 = { layers: 48, hidden: 5120, moe: { experts: 128, topK: 1, intermediate: 8192, layers: 24 }, kvBytesPerToken: 2 * 48 * 8 * 128 * 2, kvSplit: 8, attnLayers: 48, attnWidth: 40 * 128 };
const QWEN3_235 = { totalParamsB: 235, activeParamsB: 22, bytesPerParam: 2, layers: 94, hidden: 4096, moe: { experts: 128, topK: 8, intermediate: 1536, layers: 94 }, kvBytesPerToken: 2 * 94 * 4 * 128 * 2, kvSplit: 4, attnLayers: 94, attnWidth: 64 * 128, contextLength: 40960 };
const QWEN3_NEXT = { totalParamsB: 80, activeParamsB: 3, bytesPerParam: 2, layers: 48, hidden: 2048, moe: { experts: 512, topK: 10, intermediate: 512, layers: 48 }, kvBytesPerToken: 2 * 12 * 2 * 256 * 2, kvSplit: 2, attnLayers: 12, attnWidth: 16 * 256, contextLength: 262144 };
const MINIMAX = { totalParamsB: 229, activeParamsB: 10, bytesPerParam: 1, layers: 62, hidden: 3072, moe: { experts: 256, topK: 8, intermediate: 1536, layers: 62 }, kvBytesPerToken: 2 * 62 * 8 * 128 * 2, kvSplit: 8, attnLayers: 62, attnWidth: 48 * 128, contextLength: 196608 };
const LING = { totalParamsB: 1000, activeParamsB: 63, bytesPerParam: 2, layers: 80, hidden: 8192, kvBytesPerToken: 10 * 1152, kvSplit: 1, attnLayers: 10, attnWidth: 64 * 192, attnDecodeWidth: 64 * 544, contextLength: 131072 };

export const MODELS: ModelProfile[] = [
  { id: 'deepseek-ai/DeepSeek-V3', aliases: ['deepseek-ai/DeepSeek-V3-0324', 'deepseek-ai/DeepSeek-R1', 'deepseek-ai/DeepSeek-R1-0528', 'deepseek-ai/DeepSeek-V3.1'], ...DSV3 },
  { id: 'deepseek-ai/DeepSeek-V3.2', aliases: ['deepseek-ai/DeepSeek-V3.2-Exp', 'deepseek-ai/DeepSeek-Math-V2'], ...DSV32 },
  { id: 'zai-org/GLM-5-FP8', totalParamsB: 744, activeParamsB: 40, bytesPerParam: 1, layers: 78, hidden: 6144, kvBytesPerToken: 78 * (1152 + 132), kvSplit: 1, attnLayers: 78, attnWidth: 64 * 256, attnDecodeWidth: 64 * 544, sparseTopK: 2048, contextLength: 202752 },
  { id: 'moonshotai/Kimi-K2-Instruct', ...KIMI },
  { id: 'moonshotai/Kimi-K2.5', aliases: ['moonshotai/Kimi-K2.6'], ...KIMI, bytesPerParam: 0.58, contextLength: 262144 },
  { id: 'moonshotai/Kimi-Linear-48B-A3B-Instruct', totalParamsB: 48, activeParamsB: 3, bytesPerParam: 2, layers: 27, hidden: 2304, kvBytesPerToken: 7 * 1152, kvSplit: 1, attnLayers: 7, attnWidth: 32 * 128, attnDecodeWidth: 32 * 544, contextLength: 1048576 },
  { id: 'inclusionAI/Ling-2.5-1T', ...LING },
  // Served on a single 8-GPU node, which only an FP8 checkpoint fits.
  { id: 'inclusionAI/Ring-2.5-1T', ...LING, bytesPerParam: 1 },
  { id: 'inclusionAI/LLaDA2.1-mini', totalParamsB: 16, activeParamsB: 1.4, bytesPerParam: 2, layers: 20, hidden: 2048, kvBytesPerToken: 2 * 20 * 4 * 128 * 2, kvSplit: 4, attnLayers: 20, attnWidth: 16 * 128, contextLength: 32768 },
  { id: 'zai-org/GLM-4.5', ...GLM45 },
  { id: 'zai-org/GLM-4.6', aliases: ['zai-org/GLM-4.7'], ...GLM45, totalParamsB: 357, contextLength: 202752 },
  { id: 'zai-org/GLM-4.7-Flash', totalParamsB: 31, activeParamsB: 3, bytesPerParam: 2, layers: 47, hidden: 2048, kvBytesPerToken: 47 * 1152, kvSplit: 1, attnLayers: 47, attnWidth: 20 * 192, attnDecodeWidth: 20 * 544, contextLength: 202752 },
  { id: 'zai-org/Glyph', totalParamsB: 10, activeParamsB: 10, bytesPerParam: 2, layers: 40, hidden: 4096, kvBytesPerToken: 2 * 40 * 2 * 128 * 2, kvSplit: 2, attnLayers: 40, attnWidth: 32 * 128, contextLength: 131072 },
  { id: 'openai/gpt-oss-120b', totalParamsB: 117, activeParamsB: 5.1, bytesPerParam: 0.54, layers: 36, hidden: 2880, moe: { experts: 128, topK: 4, intermediate: 2880, layers: 36 }, kvBytesPerToken: 2 * 18 * 8 * 64 * 2, kvSplit: 8, attnLayers: 18, attnWidth: 64 * 64, contextLength: 131072 },
  { id: 'openai/gpt-oss-20b', totalParamsB: 21, activeParamsB: 3.6, bytesPerParam: 0.6, layers: 24, hidden: 2880, moe: { experts: 32, topK: 4, intermediate: 2880, layers: 24 }, kvBytesPerToken: 2 * 12 * 8 * 64 * 2, kvSplit: 8, attnLayers: 12, attnWidth: 64 * 64, contextLength: 131072 },
  { id: 'internlm/Intern-S1', ...QWEN3_235, totalParamsB: 241, activeParamsB: 28 },
  { id: 'meta-llama/Llama-3.1-70B-Instruct', aliases: ['meta-llama/Llama-3.3-70B-Instruct', 'meta-llama/Meta-Llama-3.1-70B-Instruct', 'meta-llama/Llama-3.1-70B', 'meta-llama/Meta-Llama-3.1-70B'], ...LLAMA70 },
  { id: 'meta-llama/Meta-Llama-3-70B-Instruct', aliases: ['meta-llama/Meta-Llama-3-70B'], ...LLAMA70, contextLength: 8192 },
  { id: 'meta-llama/Llama-3.1-8B-Instruct', aliases: ['meta-llama/Meta-Llama-3.1-8B-Instruct', 'meta-llama/Llama-3.1-8B', 'meta-llama/Meta-Llama-3.1-8B'], ...LLAMA8 },
  { id: 'meta-llama/Meta-Llama-3-8B-Instruct', aliases: ['meta-llama/Meta-Llama-3-8B'], ...LLAMA8, contextLength: 8192 },
  { id: 'meta-llama/Llama-3.1-405B-Instruct', aliases: ['meta-llama/Meta-Llama-3.1-405B-Instruct', 'meta-llama/Llama-3.1-405B', 'meta-llama/Meta-Llama-3.1-405B'], totalParamsB: 405, activeParamsB: 405, bytesPerParam: 2, layers: 126, hidden: 16384, kvBytesPerToken: 2 * 126 * 8 * 128 * 2, kvSplit: 8, attnLayers: 126, attnWidth: 128 * 128, contextLength: 131072 },
  { id: 'meta-llama/Llama-3.2-1B-Instruct', aliases: ['meta-llama/Llama-3.2-1B'], totalParamsB: 1.24, activeParamsB: 1.24, bytesPerParam: 2, layers: 16, hidden: 2048, kvBytesPerToken: 2 * 16 * 8 * 64 * 2, kvSplit: 8, attnLayers: 16, attnWidth: 32 * 64, contextLength: 131072 },
  { id: 'meta-llama/Llama-3.2-3B-Instruct', aliases: ['meta-llama/Llama-3.2-3B'], totalParamsB: 3.21, activeParamsB: 3.21, bytesPerParam: 2, layers: 28, hidden: 3072, kvBytesPerToken: 2 * 28 * 8 * 128 * 2, kvSplit: 8, attnLayers: 28, attnWidth: 24 * 128, contextLength: 131072 },
  // Its 1M-token context needs the KV room of H200s, where the reference deployment runs.
  { id: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8', totalParamsB: 400, activeParamsB: 17, bytesPerParam: 1, ...LLAMA4, contextLength: 1048576, refGpu: 'H200' },
  { id: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct', aliases: ['meta-llama/Llama-4-Maverick-17B-128E'], totalParamsB: 400, activeParamsB: 17, bytesPerParam: 2, ...LLAMA4, contextLength: 1048576 },
  { id: 'meta-llama/Llama-4-Scout-17B-16E-Instruct', totalParamsB: 109, activeParamsB: 17, bytesPerParam: 2, ...LLAMA4, moe: { experts: 16, topK: 1, intermediate: 8192, layers: 48 }, contextLength: 10485760 },
  { id: 'XiaomiMiMo/MiMo-V2-Flash', totalParamsB: 309, activeParamsB: 15, bytesPerParam: 1, layers: 48, hidden: 4096, kvBytesPerToken: 8 * 4 * 320 * 2, kvSplit: 4, attnLayers: 8, attnWidth: 64 * 192, contextLength: 262144 },
  { id: 'MiniMaxAI/MiniMax-M2.1', aliases: ['MiniMaxAI/MiniMax-M2.5', 'MiniMaxAI/MiniMax-M2'], ...MINIMAX },
  { id: 'mistralai/Ministral-3-8B-Instruct-2512', totalParamsB: 8.4, activeParamsB: 8.4, bytesPerParam: 2, layers: 34, hidden: 4096, kvBytesPerToken: 2 * 34 * 8 * 128 * 2, kvSplit: 8, attnLayers: 34, attnWidth: 32 * 128, contextLength: 262144 },
  { id: 'mistralai/Devstral-Small-2-24B-Instruct-2512', totalParamsB: 24, activeParamsB: 24, bytesPerParam: 2, layers: 40, hidden: 5120, kvBytesPerToken: 2 * 40 * 8 * 128 * 2, kvSplit: 8, attnLayers: 40, attnWidth: 32 * 128, contextLength: 262144 },
  { id: 'mistralai/Mistral-Small-4-119B-2603', totalParamsB: 119, activeParamsB: 6.5, bytesPerParam: 2, layers: 36, hidden: 4096, kvBytesPerToken: 2 * 36 * 8 * 128 * 2, kvSplit: 8, attnLayers: 36, attnWidth: 32 * 128, contextLength: 262144 },
  { id: 'baidu/ERNIE-4.5-21B-A3B-PT', totalParamsB: 21, activeParamsB: 3, bytesPerParam: 2, layers: 28, hidden: 2560, kvBytesPerToken: 2 * 28 * 4 * 128 * 2, kvSplit: 4, attnLayers: 28, attnWidth: 20 * 128, contextLength: 131072 },
  { id: 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16', totalParamsB: 31.6, activeParamsB: 3.2, bytesPerParam: 2, layers: 52, hidden: 2688, kvBytesPerToken: 2 * 6 * 2 * 128 * 2, kvSplit: 2, attnLayers: 6, attnWidth: 32 * 128, contextLength: 262144 },
  { id: 'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16', totalParamsB: 120, activeParamsB: 12, bytesPerParam: 2, layers: 88, hidden: 4096, kvBytesPerToken: 2 * 8 * 2 * 128 * 2, kvSplit: 2, attnLayers: 8, attnWidth: 32 * 128, contextLength: 262144 },
  { id: 'Qwen/Qwen3-235B-A22B', aliases: ['Qwen/Qwen3-235B-A22B-Instruct-2507'], ...QWEN3_235 },
  { id: 'Qwen/Qwen3-Coder-480B-A35B-Instruct', totalParamsB: 480, activeParamsB: 35, bytesPerParam: 2, layers: 62, hidden: 6144, moe: { experts: 160, topK: 8, intermediate: 2560, layers: 62 }, kvBytesPerToken: 2 * 62 * 8 * 128 * 2, kvSplit: 8, attnLayers: 62, attnWidth: 96 * 128, contextLength: 262144 },
  { id: 'Qwen/Qwen3-Next-80B-A3B-Instruct', aliases: ['Qwen/Qwen3-Coder-Next'], ...QWEN3_NEXT },
  { id: 'Qwen/Qwen3.5-397B-A17B-FP8', totalParamsB: 397, activeParamsB: 17, bytesPerParam: 1, layers: 60, hidden: 4096, kvBytesPerToken: 2 * 15 * 2 * 256 * 2, kvSplit: 2, attnLayers: 15, attnWidth: 32 * 256, contextLength: 262144 },
  { id: 'Qwen/Qwen3-30B-A3B', aliases: ['Qwen/Qwen3-30B-A3B-Instruct-2507'], totalParamsB: 30.5, activeParamsB: 3.3, bytesPerParam: 2, layers: 48, hidden: 2048, moe: { experts: 128, topK: 8, intermediate: 768, layers: 48 }, kvBytesPerToken: 2 * 48 * 4 * 128 * 2, kvSplit: 4, attnLayers: 48, attnWidth: 32 * 128, contextLength: 40960 },
  { id: 'Qwen/Qwen3-32B', totalParamsB: 32.8, activeParamsB: 32.8, bytesPerParam: 2, layers: 64, hidden: 5120, kvBytesPerToken: 2 * 64 * 8 * 128 * 2, kvSplit: 8, attnLayers: 64, attnWidth: 64 * 128, contextLength: 40960 },
  { id: 'Qwen/Qwen3-14B', totalParamsB: 14.8, activeParamsB: 14.8, bytesPerParam: 2, layers: 40, hidden: 5120, kvBytesPerToken: 2 * 40 * 8 * 128 * 2, kvSplit: 8, attnLayers: 40, attnWidth: 40 * 128, contextLength: 40960 },
  { id: 'Qwen/Qwen3-4B', aliases: ['Qwen/Qwen3-4B-Instruct-2507'], totalParamsB: 4.0, activeParamsB: 4.0, bytesPerParam: 2, layers: 36, hidden: 2560, kvBytesPerToken: 2 * 36 * 8 * 128 * 2, kvSplit: 8, attnLayers: 36, attnWidth: 32 * 128, contextLength: 40960 },
  { id: 'Qwen/Qwen3-1.7B', totalParamsB: 2.0, activeParamsB: 2.0, bytesPerParam: 2, layers: 28, hidden: 2048, kvBytesPerToken: 2 * 28 * 8 * 128 * 2, kvSplit: 8, attnLayers: 28, attnWidth: 16 * 128, contextLength: 40960 },
  { id: 'Qwen/Qwen3-8B', totalParamsB: 8.2, activeParamsB: 8.2, bytesPerParam: 2, layers: 36, hidden: 4096, kvBytesPerToken: 2 * 36 * 8 * 128 * 2, kvSplit: 8, attnLayers: 36, attnWidth: 32 * 128, contextLength: 40960 },
  { id: 'Qwen/Qwen3-0.6B', totalParamsB: 0.6, activeParamsB: 0.6, bytesPerParam: 2, layers: 28, hidden: 1024, kvBytesPerToken: 2 * 28 * 8 * 128 * 2, kvSplit: 8, attnLayers: 28, attnWidth: 16 * 128, contextLength: 40960 },
  { id: 'stepfun-ai/Step-3.5-Flash', totalParamsB: 196, activeParamsB: 11, bytesPerParam: 2, layers: 45, hidden: 4096, kvBytesPerToken: 2 * 12 * 8 * 128 * 2, kvSplit: 8, attnLayers: 12, attnWidth: 64 * 128, contextLength: 262144 },
];

const byName = new Map<string, ModelProfile>();
for (const m of MODELS) for (const n of [m.id, ...(m.aliases ?? [])]) byName.set(n.toLowerCase(), m);

export function gpuProfile(name: string): GpuProfile | undefined {
  const n = name.toLowerCase().replace(/[\s_]/g, '-');
  return GPUS.find((g) => g.name.toLowerCase() === n || g.name.toLowerCase().startsWith(`${n}-`));
}

/** The table entry for a name: exact id or alias (case-insensitive), else by the last path part (`/models/Qwen3-8B`). */
function tableProfile(name: string): ModelProfile | undefined {
  const lower = name.toLowerCase().replace(/\/+$/, '');
  const hit = byName.get(lower);
  if (hit) return hit;
  const base = lower.split('/').pop() ?? lower;
  for (const [k, m] of byName) if (k.split('/').pop() === base) return m;
  return undefined;
}

/** A quantized checkpoint's name suffix, and the bytes per parameter it ships at. */
const QUANT_SUFFIX = /[-_.](fp8(?:[-_](?:dynamic|block))?|nvfp4|mxfp4|fp4|w8a8|int8|w4a16|awq|gptq(?:[-_]int4)?|int4|bf16)$/i;

function suffixBytes(suffix: string): number {
  const s = suffix.toLowerCase();
  if (/fp8|w8a8|int8/.test(s)) return 1;
  if (/bf16/.test(s)) return 2;
  return 0.55;
}

/** `nvidia/Llama-3.3-70B-Instruct-FP8`: the base model's table entry at the suffix's bytes per parameter. */
function quantizedProfile(name: string): ModelProfile | undefined {
  const m = QUANT_SUFFIX.exec(name.replace(/\/+$/, ''));
  if (!m) return undefined;
  const base = tableProfile(name.slice(0, m.index));
  if (!base) return undefined;
  const { aliases: _aliases, ...shapes } = base;
  const bytesPerParam = suffixBytes(m[1] as string);
  // NVIDIA's own quantized checkpoints are ModelOpt exports, whose hf_quant_config.json sets kv_cache_quant_algo FP8.
  const modelOpt = /^nvidia\//i.test(name) && bytesPerParam < 2;
  return { ...shapes, id: name, bytesPerParam, derivedFrom: base.id, ...(modelOpt ? { kvDtypeFactor: 0.5 } : {}) };
}

/**
 * The profile for a model name: the table's entry (exact id or alias, case-insensitive, also by the last path part
 * so a local folder `/models/Qwen3-8B` works), else the local folder's own config.json, else a quantized
 * checkpoint's base model (`...-FP8`), else shapes guessed from sizes in the name (`70B`, `A3B`, `FP8`), else 8B
 * dense — marked `estimated`, which every prediction and the simulated server's log say.
 */
export function modelProfile(name: string): ModelProfile {
  return tableProfile(name) ?? localConfigProfile(name) ?? quantizedProfile(name) ?? estimateProfile(name);
}

/** Where a profile's shapes came from, in words: for predictions and the simulated server's log. */
export function profileSourceText(m: ModelProfile): string {
  if (m.estimated) return 'ESTIMATED from the name (an unknown model; a local folder with its config.json gives its shapes)';
  if (m.source === 'config') return `from ${m.id}/config.json`;
  if (m.derivedFrom) return `of ${m.derivedFrom}, ${m.bytesPerParam} bytes per parameter (the name's quantization)`;
  return `of ${m.id} (its published config)`;
}

function estimateProfile(name: string): ModelProfile {
  const total = Number(/(?:^|[^a-z0-9.])(\d+(?:\.\d+)?)b(?![a-z])/i.exec(name)?.[1] ?? '8');
  const active = Number(/(?:^|[^a-z0-9])a(\d+(?:\.\d+)?)b(?![a-z])/i.exec(name)?.[1] ?? String(total));
  const size = Math.max(0.1, total);
  const scale = Math.sqrt(Math.max(0.05, Math.min(active, size)) / 8);
  const layers = Math.max(12, Math.round(32 * Math.pow(size / 8, 0.25)));
  return {
    id: name,
    totalParamsB: size,
    activeParamsB: Math.min(active, size),
    bytesPerParam: /fp8/i.test(name) ? 1 : /(fp4|int4|awq|gptq)/i.test(name) ? 0.55 : 2,
    layers,
    hidden: Math.round((4096 * Math.pow(size / 8, 0.3)) / 128) * 128 || 1024,
    kvBytesPerToken: Math.round(2 * layers * 8 * 128 * 2 * Math.min(2, Math.max(0.5, scale))),
    kvSplit: 8,
    attnLayers: layers,
    attnWidth: 32 * 128,
    contextLength: 131072,
    estimated: true,
    source: 'name',
  };
}

/** Bytes of weights one GPU holds when the model is split `shards` ways. */
export function weightBytesPerGpu(m: ModelProfile, bytesPerParam: number, shards: number): number {
  return (m.totalParamsB * 1e9 * bytesPerParam) / Math.max(1, shards);
}

/** `--sim-gpu auto`: the profile's reference GPU, else the smallest listed GPU that holds this shard of the weights with room to spare. */
export function autoGpu(m: ModelProfile, bytesPerParam: number, shards: number): GpuProfile {
  const w = weightBytesPerGpu(m, bytesPerParam, shards);
  const ref = m.refGpu ? gpuProfile(m.refGpu) : undefined;
  if (ref && w <= ref.memBytes * AUTO_WEIGHT_SHARE) return ref;
  for (const name of AUTO_GPU_ORDER) {
    const g = gpuProfile(name);
    if (g && w <= g.memBytes * AUTO_WEIGHT_SHARE) return g;
  }
  return gpuProfile(AUTO_GPU_ORDER[AUTO_GPU_ORDER.length - 1] ?? 'B300') as GpuProfile;
}

/** The simulator's GPU profile a plan's gpu_model names ('NVIDIA H100 80GB HBM3' -> H100). */
export function simGpuFor(gpuModel: string | undefined): string | undefined {
  if (!gpuModel) return undefined;
  const m = gpuModel.toUpperCase().replace(/\s+/g, '');
  return GPUS.map((g) => g.name).find((name) => m.includes(name.split('-')[0]!.toUpperCase().replace(/X$/, '')));
}
