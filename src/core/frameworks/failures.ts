// Which server log lines mean "out of memory", per framework: read by the runner when a server fails and by the predictor when the model says a launch would.
import type { FrameworkKey } from './types';

const OOM_COMMON = [/CUDA out of memory/i, /OutOfMemoryError/, /\bout[ -]of[ -]memory\b/i, /\bOOM\b/];
const OOM_BY_FRAMEWORK: Record<FrameworkKey, RegExp[]> = {
  sglang: [/Not enough memory\. Please try to increase --mem-fraction-static/i, /KV cache pool.*(too small|insufficient)/i],
  vllm: [/No available memory for the cache blocks/i, /Free memory on device .* less than desired GPU memory utilization/i, /larger than the maximum number of tokens that can be stored in KV cache/i, /insufficient .*KV cache/i],
  tensorrt_llm: [/Insufficient memory/i, /kv_cache_free_gpu_memory_fraction.*too (high|large)/i],
  tokenspeed: [/Not enough memory/i, /Free memory on device .* less than desired GPU memory utilization/i, /KV cache.*(too small|insufficient)/i],
};

/** The first line that says the server ran out of memory, if any. */
export function oomLine(fw: FrameworkKey, lines: readonly string[]): string | undefined {
  const oom = [...OOM_COMMON, ...OOM_BY_FRAMEWORK[fw]];
  return lines.find((l) => oom.some((re) => re.test(l)));
}
