// Prices one engine step on the modelled GPUs: a roofline for the GEMMs (weight reads against FLOPs) plus one for
// attention (KV reads against FLOPs), tensor-parallel all-reduces and the framework's per-step CPU/launch overhead.
//
// Decode steps are memory bound (weights once per step, plus every running request's KV), so batching is
// nearly free until KV reads dominate; prefill is compute bound and grows with prompt tokens, with an
// attention term that grows with the square of the prompt.

export interface CostModel {
  /** Speculative decoding: each draft pass's weight reads as a share of the target's (spec.ts draftShare); 0 without. */
  specDraftShare: number;
  /** Weight bytes one GPU reads per step at full expert coverage (its tensor-parallel shard). */
  weightBytes: number;
  /** Share of the weights one token touches (1 for dense models; active/total for MoE). */
  activeShare: number;
  /** KV bytes per token one GPU reads (its tensor-parallel share). */
  kvBytesPerToken: number;
  /** Tokens the MoE layers see per token of this replica's step (attention data parallelism: the replicas; else 1). */
  moeBatchScale: number;
  /** FLOPs per token for the dense part (attention projections, dense and shared-expert MLPs), per GPU. */
  flopsPerToken: number;
  /** FLOPs per token in the routed experts' grouped GEMMs, per GPU (0 for dense models). */
  routedFlopsPerToken: number;
  /** FLOPs per (query token x attended token) pair, per GPU: prefill, and decode (MLA's absorbed form costs more). */
  attnFlopsPerPair: number;
  attnDecodeFlopsPerPair: number;
  /** Bytes/s and FLOP/s one GPU achieves. */
  bandwidth: number;
  flops: number;
  /** FLOP/s attention achieves: BF16 tensor cores (FP8 with an FP8 KV cache), whatever the weights' precision. */
  attnFlops: number;
  /** FLOP/s the routed experts' grouped GEMMs achieve: `flops` scaled down for thin per-expert GEMMs. */
  moeFlops: number;
  /** Seconds per step for tensor-parallel all-reduces: fixed part and per token. */
  commFixed: number;
  commPerToken: number;
  /** CPU and launch overhead per step, per sequence, and extra when a decode step cannot use a CUDA graph. */
  stepOverhead: number;
  perSeqOverhead: number;
  eagerOverhead: number;
  /** Largest decode batch a CUDA graph covers (0 = graphs off). */
  graphMaxBatch: number;
  /** Decode reads at most this many tokens of KV per request (sparse attention), 0 = all. */
  sparseTopK: number;
}

export interface StepWork {
  decodeSeqs: number;
  /** Sum over decoding requests of the KV tokens each reads. */
  decodeCtx: number;
  prefillSeqs: number;
  prefillTokens: number;
  /** Sum over prefill chunks of chunk x (prefix before it + chunk/2): attention pairs. */
  prefillPairs: number;
  /** Sum over prefill chunks of the KV tokens each reads and writes (prefix + chunk). */
  prefillCtx: number;
  /** Speculative decoding: drafted tokens the step verifies (k per decoding request). */
  specTokens: number;
}

export function emptyWork(): StepWork {
  return { decodeSeqs: 0, decodeCtx: 0, prefillSeqs: 0, prefillTokens: 0, prefillPairs: 0, prefillCtx: 0, specTokens: 0 };
}

/** The last expert coverage computed: consecutive decode steps of one batch ask for the same one. */
const lastCoverage = { share: NaN, tokens: -1, value: 1 };

/** Distinct experts touched by the batch: each token picks an active share independently. */
function coverageOf(share: number, tokens: number): number {
  if (share >= 1) return 1;
  const m = lastCoverage;
  if (m.share !== share || m.tokens !== tokens) {
    m.share = share;
    m.tokens = tokens;
    m.value = 1 - Math.pow(1 - share, tokens);
  }
  return m.value;
}

/** Seconds the step takes on the modelled hardware. */
export function stepSeconds(c: CostModel, w: StepWork): number {
  const tokens = w.decodeSeqs + w.prefillTokens + w.specTokens;
  if (tokens === 0) return 0;
  // The GEMMs (weights read once, FLOPs per token) and attention (KV read per request, FLOPs per query x key pair) are
  // separate kernels: each is bound by its own memory or compute roof, and their times add.
  const coverage = coverageOf(c.activeShare, tokens * c.moeBatchScale);
  const routed = c.routedFlopsPerToken > 0 ? (c.routedFlopsPerToken * tokens) / c.moeFlops : 0;
  const gemm = Math.max((c.weightBytes * coverage) / c.bandwidth, (c.flopsPerToken * tokens) / c.flops + routed);
  const kvRead = ((w.decodeCtx + w.prefillCtx) * c.kvBytesPerToken) / c.bandwidth;
  const attention = Math.max(kvRead, (c.attnFlopsPerPair * w.prefillPairs + c.attnDecodeFlopsPerPair * w.decodeCtx) / c.attnFlops);
  const comm = c.commFixed > 0 ? c.commFixed + c.commPerToken * tokens : 0;
  const seqs = w.decodeSeqs + w.prefillSeqs;
  let overhead = c.stepOverhead + c.perSeqOverhead * seqs;
  const decodeOnly = w.prefillTokens === 0;
  if (decodeOnly && (c.graphMaxBatch <= 0 || w.decodeSeqs > c.graphMaxBatch)) overhead += c.eagerOverhead;
  // The draft passes (k of them, one per drafted token, each reading its head's or draft model's weights: spec.ts).
  const draft = w.specTokens > 0 && c.specDraftShare > 0 ? ((w.specTokens / Math.max(1, w.decodeSeqs)) * c.specDraftShare * c.weightBytes) / c.bandwidth : 0;
  return overhead + gemm + attention + comm + draft;
}
