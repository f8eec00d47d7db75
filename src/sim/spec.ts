// Speculative decoding on the simulator (*modelled*): a method drafts k tokens per step for each decoding request, the
// target model verifies them in the same step (k more tokens through its GEMMs, the draft passes at a share of a step's
// weight reads), and a run of them is accepted. Acceptance per drafted token depends on the method and on how
// predictable the request's text is (repetition within its prompt: natural text repeats, random token ids do not);
// the batch decides the benefit through the step cost (verification tokens are compute that a large batch lacks).
import { mix32, unit } from './tokens';

export type SpecMethod = 'eagle' | 'eagle3' | 'mtp' | 'ngram' | 'draft_model';

export interface SpecSettings {
  method: SpecMethod;
  /** Tokens drafted per step (vLLM num_speculative_tokens, SGLang speculative_num_steps, TRT-LLM max_draft_len). */
  k: number;
}

interface MethodModel {
  /** Acceptance of one drafted token on fully predictable text, and on text with no repetition at all. */
  high: number;
  low: number;
  /** Each draft pass's weight reads as a share of the target model's (one decoder layer for EAGLE/MTP heads). */
  draftShare: number;
}

/**
 * Modelled, not measured: chosen so that on natural text EAGLE-3 at k=3 accepts about 3 tokens per step and EAGLE
 * about 2.5 (the ranges the EAGLE-3 and SGLang/vLLM speculative-decoding write-ups report for chat text), and that
 * random ids accept far less (vLLM issue #52536). n-gram drafting needs repeated text and costs no GPU pass.
 */
const METHODS: Record<SpecMethod, MethodModel> = {
  eagle3: { high: 0.82, low: 0.35, draftShare: 0.06 },
  eagle: { high: 0.74, low: 0.3, draftShare: 0.05 },
  mtp: { high: 0.8, low: 0.35, draftShare: 0.06 },
  draft_model: { high: 0.72, low: 0.3, draftShare: 0.15 },
  ngram: { high: 0.7, low: 0.02, draftShare: 0 },
};

export function draftShare(s: SpecSettings): number {
  return METHODS[s.method].draftShare;
}

/**
 * How predictable a prompt's text is, 0..1: the share of its tokens (after the first 16) whose id appeared earlier in
 * it, against 0.5 for ordinary prose. Random ids over a large vocabulary score about 0.
 */
export function predictability(ids: readonly number[]): number {
  if (ids.length < 32) return 0.5;
  const seen = new Set<number>();
  let repeats = 0;
  let counted = 0;
  ids.forEach((id, i) => {
    if (i >= 16) {
      counted++;
      if (seen.has(id)) repeats++;
    }
    seen.add(id);
  });
  return Math.min(1, repeats / counted / 0.5);
}

/** Acceptance probability of each drafted token for a request of this predictability. */
export function acceptanceOf(s: SpecSettings, pred: number): number {
  const m = METHODS[s.method];
  return m.low + (m.high - m.low) * Math.max(0, Math.min(1, pred));
}

/** Drafted tokens accepted in one step: the run of successes from the first, at most k (a seeded draw per request and step). */
export function acceptedIn(k: number, alpha: number, seed: number, step: number): number {
  let n = 0;
  while (n < k && unit(mix32(mix32(seed, 0x5bec), step * 31 + n)) < alpha) n++;
  return n;
}

/** The expected tokens per step (acceptance length) at acceptance alpha with k drafted: 1 + alpha + ... + alpha^k. */
export function expectedLength(k: number, alpha: number): number {
  let sum = 1;
  let p = 1;
  for (let i = 0; i < k; i++) sum += (p *= alpha);
  return sum;
}
