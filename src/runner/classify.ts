// Tells why a server did not come up or died: out of memory, a rejected flag, a timeout, or another failure.
import type { FrameworkKey } from '../core/frameworks/types';

export type FailureStatus = 'oom' | 'failed' | 'timeout';

const OOM_COMMON = [/CUDA out of memory/i, /OutOfMemoryError/, /\bout[ -]of[ -]memory\b/i, /\bOOM\b/];
const OOM_BY_FRAMEWORK: Record<FrameworkKey, RegExp[]> = {
  sglang: [/Not enough memory\. Please try to increase --mem-fraction-static/i, /KV cache pool.*(too small|insufficient)/i],
  vllm: [/No available memory for the cache blocks/i, /Free memory on device .* less than desired GPU memory utilization/i, /larger than the maximum number of tokens that can be stored in KV cache/i, /insufficient .*KV cache/i],
  tensorrt_llm: [/Insufficient memory/i, /kv_cache_free_gpu_memory_fraction.*too (high|large)/i],
  tokenspeed: [/Not enough memory/i, /Free memory on device .* less than desired GPU memory utilization/i, /KV cache.*(too small|insufficient)/i],
};
const BAD_FLAG = [/unrecognized arguments?:/i, /no such option:/i, /error: argument /i, /invalid choice:/i];

export interface Classified {
  status: FailureStatus;
  reason: string;
}

/** The log line that explains the failure best: an OOM line, else a usage error, else the last non-empty line. */
export function classifyFailure(fw: FrameworkKey, logTail: string, fallback: string, timedOut = false): Classified {
  const lines = logTail.split('\n').map((l) => l.trim()).filter(Boolean);
  const oom = [...OOM_COMMON, ...OOM_BY_FRAMEWORK[fw]];
  const oomLine = lines.find((l) => oom.some((re) => re.test(l)));
  if (oomLine) return { status: 'oom', reason: `out of memory: ${oomLine}` };
  const flagLine = lines.find((l) => BAD_FLAG.some((re) => re.test(l)));
  if (flagLine) return { status: 'failed', reason: `the server rejected its command line: ${flagLine}` };
  if (timedOut) return { status: 'timeout', reason: `${fallback}${lines.length ? `; last log line: ${lines[lines.length - 1]}` : ''}` };
  return { status: 'failed', reason: `${fallback}${lines.length ? `; last log line: ${lines[lines.length - 1]}` : ''}` };
}
