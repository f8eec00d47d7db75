// The GPUs one candidate uses (a P/D unit: all its workers'): tensor × pipeline × data parallel sizes from its flags (SGLang's DP attention runs its replicas inside the TP group), and the nodes its own flags ask for.
import { pyNumber } from '../py/value';
import type { Candidate } from './candidate';
import { flagGpus } from './unit';

export function candidateGpus(cand: Candidate): number {
  return cand.unit ? cand.unit.gpus : flagGpus(cand.framework, cand.flags).gpus;
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
  // A P/D unit holds every worker's GPUs, whatever one aggregated server of the plan holds.
  if (cand.unit) return cand.unit.gpus;
  if (hw.gpuCount === undefined) return candidateGpus(cand);
  const nodes = hw.multiNode ? candidateNodes(cand) : undefined;
  return hw.gpuCount * (nodes ?? 1);
}
