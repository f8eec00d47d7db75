// Before a launch on GPUs a server of this run was stopped on: nvidia-smi until they are free again, else which process holds them (so the next candidate fails with the holder named instead of becoming an `oom` row).
import { sleep } from '../exec';
import { checkGpus, type GpuCheck } from './preflight';
import { stoppedHere } from './server';
import type { RunTarget } from './target';

/** How long a stopped server's GPUs get to become free before the next launch fails instead of becoming an `oom` row. */
export const GPU_FREE_WAIT_MS = 30_000;

/**
 * Before a launch on a local/ssh target with pinned GPUs where a server of this run was stopped: undefined when the
 * GPUs are free (or nothing to check), else why not. The simulator and Slurm (GPUs given per job) are not checked.
 */
export async function gpusFreeBeforeLaunch(target: RunTarget, signal?: AbortSignal, waitMs = GPU_FREE_WAIT_MS): Promise<string | undefined> {
  if (target.simulated || !target.gpus?.length || !target.gpusWatched || !stoppedHere(target.executor)) return undefined;
  return gpusStillHeld(target, target.gpus, waitMs, 2000, signal);
}

/**
 * After a server stopped, before the next launch on the same GPUs: nvidia-smi until they run nothing (polled for up
 * to `waitMs`). Undefined when free (or nvidia-smi cannot tell); otherwise which process holds them.
 */
async function gpusStillHeld(target: RunTarget, ids: readonly number[], waitMs = GPU_FREE_WAIT_MS, pollMs = 2000, signal?: AbortSignal): Promise<string | undefined> {
  const deadline = Date.now() + waitMs;
  let last: GpuCheck;
  for (;;) {
    last = await checkGpus(target.executor, [...ids]);
    if (last.status !== 'busy') return undefined;
    if (Date.now() + pollMs > deadline || signal?.aborted) break;
    await sleep(pollMs, signal);
  }
  return `the GPUs are not free after the previous server stopped (waited ${Math.round(waitMs / 1000)} s): ${last.detail}`;
}
