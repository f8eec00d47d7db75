// The GPUs one candidate's server uses: tensor × pipeline × data parallel sizes from its flags (SGLang's DP attention runs its replicas inside the TP group), and the nodes its own flags ask for.
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

/** The nodes a candidate's own flags ask for (`nnodes`, SGLang, vLLM and TokenSpeed alike), when more than one. */
export function candidateNodes(cand: Candidate): number | undefined {
  const v = pyNumber(cand.flags.get('nnodes'));
  return typeof v === 'number' && Number.isInteger(v) && v > 1 ? v : undefined;
}

/**
 * Every GPU of one launch: hardware.gpu_count, else the parallel sizes. Where the plan allows several nodes and the
 * candidate names its node count, gpu_count is per node (as the plan checker reads it: ling-2.5-1t's gpu_count 8, nnodes 2).
 */
export function launchGpuTotal(hw: { gpuCount?: number; multiNode?: boolean }, cand: Candidate): number {
  if (hw.gpuCount === undefined) return candidateGpus(cand);
  const nodes = hw.multiNode ? candidateNodes(cand) : undefined;
  return hw.gpuCount * (nodes ?? 1);
}
