// The GPUs a local or ssh launch is given: the ids (--gpus, else the host's own CUDA_VISIBLE_DEVICES read through the executor, else the first gpu_count) and the variables that pin the engine to them.
import type { Executor } from '../exec';

/** CUDA_VISIBLE_DEVICES as a session on the target host gets it (not the runner's own), or undefined when unset. */
export async function hostVisibleDevices(ex: Executor): Promise<string | undefined> {
  const r = await ex.run(['sh', '-c', 'printf "%s" "${CUDA_VISIBLE_DEVICES-<unset>}"'], { timeoutMs: 30_000 }).catch(() => undefined);
  const v = r?.code === 0 ? r.stdout : '<unset>';
  return v === '<unset>' ? undefined : v;
}

/** The GPU ids a run uses: --gpus, else the host's CUDA_VISIBLE_DEVICES when it lists ids, else 0..count-1. */
export function gpuIdsOf(gpus: readonly number[] | undefined, visible: string | undefined, count: number): number[] {
  if (gpus?.length) return [...gpus];
  if (visible && /^\d+(,\d+)*$/.test(visible.trim())) return visible.trim().split(',').map(Number);
  return Array.from({ length: count }, (_, i) => i);
}

/**
 * The variables every local/ssh launch gets: the engines use devices 0..N-1 of what CUDA shows them (vLLM, SGLang,
 * TRT-LLM's `gpus_per_node = device_count()`), so without them `--gpus 2,3` would still run on 0 and 1. nvidia-smi's
 * `index` is PCI bus order while CUDA's default order is FASTEST_FIRST: PCI_BUS_ID makes the two agree.
 */
export function gpuLaunchEnv(ids: readonly number[]): Record<string, string> {
  return ids.length ? { CUDA_VISIBLE_DEVICES: ids.join(','), CUDA_DEVICE_ORDER: 'PCI_BUS_ID' } : {};
}
