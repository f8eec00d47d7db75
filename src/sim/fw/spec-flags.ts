// Each engine's speculative-decoding settings read from its own flags: vLLM's --speculative-config JSON (method,
// num_speculative_tokens), SGLang's --speculative-algorithm / --speculative-num-steps, TensorRT-LLM's speculative_config
// in its LLM API options (decoding_type, max_draft_len). Names as docs/ENGINES.md "Speculative decoding" cites them.
import type { SpecMethod, SpecSettings } from '../spec';

/** Tokens drafted per step when the flags name a method but no count (SGLang's and vLLM's examples use 3). */
const DEFAULT_K = 3;

const VLLM_METHODS: Record<string, SpecMethod> = { eagle: 'eagle', eagle3: 'eagle3', ngram: 'ngram', mtp: 'mtp', deepseek_mtp: 'mtp', qwen3_next_mtp: 'mtp', draft_model: 'draft_model' };
const SGLANG_METHODS: Record<string, SpecMethod> = { EAGLE: 'eagle', EAGLE3: 'eagle3', NEXTN: 'mtp', STANDALONE: 'draft_model', NGRAM: 'ngram', LOOKAHEAD: 'ngram' };
const TRT_METHODS: Record<string, SpecMethod> = { eagle: 'eagle', eagle3: 'eagle3', mtp: 'mtp', ngram: 'ngram', drafttarget: 'draft_model', draft_target: 'draft_model' };

const positive = (x: unknown): number | undefined => (typeof x === 'number' && Number.isInteger(x) && x > 0 ? x : undefined);

/** vLLM `--speculative-config '{"method": "eagle3", "model": ..., "num_speculative_tokens": 3}'`; a model without a method drafts with it. */
export function vllmSpec(json: string | undefined): SpecSettings | string | undefined {
  if (json === undefined) return undefined;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch (e) {
    return `argument --speculative-config: invalid loads value: ${(e as Error).message}`;
  }
  const raw = typeof o.method === 'string' ? o.method.toLowerCase() : typeof o.model === 'string' ? 'draft_model' : undefined;
  const method = raw === undefined ? undefined : VLLM_METHODS[raw];
  if (!method) return undefined;
  return { method, k: positive(o.num_speculative_tokens) ?? DEFAULT_K };
}

/** SGLang `--speculative-algorithm EAGLE3 --speculative-num-steps 3` (a chain: top-k 1). */
export function sglangSpec(algorithm: string | undefined, steps: number | undefined): SpecSettings | undefined {
  const method = algorithm === undefined ? undefined : SGLANG_METHODS[algorithm.toUpperCase()];
  return method ? { method, k: positive(steps) ?? DEFAULT_K } : undefined;
}

/** TensorRT-LLM `speculative_config: {decoding_type: Eagle, max_draft_len: 3}` (MTP: num_nextn_predict_layers). */
export function trtllmSpec(doc: unknown): SpecSettings | undefined {
  if (typeof doc !== 'object' || doc === null) return undefined;
  const o = doc as Record<string, unknown>;
  const method = typeof o.decoding_type === 'string' ? TRT_METHODS[o.decoding_type.toLowerCase()] : undefined;
  return method ? { method, k: positive(o.max_draft_len) ?? positive(o.num_nextn_predict_layers) ?? DEFAULT_K } : undefined;
}
