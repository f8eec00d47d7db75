// Length sampling for the random datasets. SGLang and vLLM read --random-range-ratio in opposite ways; both are offered here.
import type { Rng } from './rng';

/**
 * `sglang` (our default, since our flag names are SGLang's): uniform integers in [max(floor(L*r), 1), L];
 * r = 0 gives 1..L, r = 1 gives exactly L.
 * `vllm`: uniform integers in [floor(L*(1-r)), ceil(L*(1+r))]; r = 0 gives exactly L, r must be < 1.
 */
export type RangeRatioConvention = 'sglang' | 'vllm';

export function lengthRange(length: number, ratio: number, convention: RangeRatioConvention, min = 1): [number, number] {
  if (length <= 0) return [0, 0];
  if (convention === 'sglang') {
    return [Math.max(Math.floor(length * ratio), min), length];
  }
  return [Math.max(Math.floor(length * (1 - ratio)), min), Math.ceil(length * (1 + ratio))];
}

export function checkRangeRatio(ratio: number, convention: RangeRatioConvention): string | undefined {
  if (!Number.isFinite(ratio) || ratio < 0) return `--random-range-ratio must be a number >= 0, got ${ratio}`;
  if (convention === 'sglang' && ratio > 1) return `--random-range-ratio must be within [0, 1] (SGLang convention), got ${ratio}`;
  if (convention === 'vllm' && ratio >= 1) return `--random-range-ratio must be within [0, 1) (vLLM convention), got ${ratio}`;
  return undefined;
}

export function sampleLength(length: number, ratio: number, convention: RangeRatioConvention, rng: Rng, min = 1): number {
  const [lo, hi] = lengthRange(length, ratio, convention, min);
  return rng.int(lo, hi);
}
