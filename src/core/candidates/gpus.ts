// The GPUs one candidate's server uses: tensor × pipeline × data parallel sizes from its flags (SGLang's DP attention runs its replicas inside the TP group).
import { frameworkSpec } from '../frameworks';
import { pyNumber } from '../py/value';
import type { Candidate } from './candidate';

function size(cand: Candidate, names: readonly string[]): number {
  for (const n of names) {
    const v = pyNumber(cand.flags.get(n));
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return 1;
}

export function candidateGpus(cand: Candidate): number {
  const keys = frameworkSpec(cand.framework).parallelKeys;
  const dpInsideTp = cand.framework === 'sglang' && cand.flags.get('enable_dp_attention') === true;
  return size(cand, keys.tp) * size(cand, keys.pp) * (dpInsideTp ? 1 : size(cand, keys.dp));
}
