// Says which framework and role a help snapshot belongs to, from its file name alone.
import type { FrameworkKey } from '../frameworks/types';
import type { SnapshotRole } from './types';

const FRAMEWORK_WORDS: [FrameworkKey, RegExp][] = [
  ['sglang', /sglang/],
  ['vllm', /vllm/],
  ['tensorrt_llm', /trtllm|trt_llm|tensorrt_llm|tensorrt/],
  ['tokenspeed', /tokenspeed/],
];

// The word that marks the server command in each framework's snapshot names; SGLang's newer
// `sglang serve` prints the same option set as `launch_server`, so either word counts.
const SERVER_WORD: Record<FrameworkKey, RegExp> = {
  sglang: /launch|serve/,
  vllm: /serve/,
  tensorrt_llm: /serve/,
  tokenspeed: /serve/,
};

/**
 * Benchmark clients (`sglang_bench_serving`, `vllm_bench_serve_all`, `vllm_bench_sweep_serve_all`,
 * `trtllm_benchmark_serving`) also contain "serv", so they must be recognised first: their flags are
 * client flags and must never widen the server's set.
 */
const CLIENT_WORDS = /bench/;

export function classifySnapshotFile(fileName: string): { framework: FrameworkKey; role: SnapshotRole } | undefined {
  const base = (fileName.split(/[\\/]/).pop() ?? '').toLowerCase().replace(/-/g, '_');
  const hit = FRAMEWORK_WORDS.find(([, re]) => re.test(base));
  if (!hit) return undefined;
  const [framework] = hit;
  if (CLIENT_WORDS.test(base)) return { framework, role: 'client' };
  if (SERVER_WORD[framework].test(base)) return { framework, role: 'server' };
  return undefined;
}
