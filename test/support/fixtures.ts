// Paths to the shared fixtures and a small valid config that tests mutate.
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

export const REPO = path.resolve(__dirname, '../..');
export const SHARED = path.resolve(REPO, '../shared');
export const FIXTURES = path.join(SHARED, 'fixtures');
export const UPSTREAM = path.join(FIXTURES, 'cookbook-upstream');
export const UPSTREAM_SGLANG = path.join(FIXTURES, 'cookbook-upstream-sglang');
export const HELP = path.join(FIXTURES, 'help');
export const SHIPPED = path.join(REPO, 'configs', 'cookbook-llm');

export function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.yaml'))
    .sort()
    .map((n) => path.join(dir, n));
}

/** A minimal config that passes every playbook rule; tests replace parts of it. */
export const VALID = `schema_version: 1
source:
  kind: llm_serving_cookbook
model:
  name: Qwen/Qwen3-32B
  tokenizer: Qwen/Qwen3-32B
hardware:
  gpu_count: 4
dataset:
  kind: random
  scenario_names: [chat, summarization]
  input_len: [1000, 8000]
  output_len: [1000, 1000]
benchmark:
  sla:
    max_p50_ttft_ms: 2000
    max_p50_tpot_ms: 80
    min_success_rate: 0.99
search:
  max_candidates_per_framework: 4
frameworks:
  sglang:
    enabled: true
    server_command: python -m sglang.launch_server
    base_server_flags:
      model_path: Qwen/Qwen3-32B
      tp_size: 4
      mem_fraction_static: 0.82
    search_space:
      chunked_prefill_size: [4096, 8192]
  vllm:
    enabled: true
    server_command: vllm serve
    base_server_flags:
      tensor_parallel_size: 4
      gpu_memory_utilization: 0.90
      max_model_len: 12288
    search_space:
      max_num_seqs: [64, 128]
  tensorrt_llm:
    enabled: false
    server_command: trtllm-serve serve
    backend_policy: fixed_pytorch
    base_server_flags:
      backend: pytorch
      tp_size: 4
      max_seq_len: 12288
    search_space: {}
  tokenspeed:
    enabled: false
    server_command: tokenspeed serve
    base_server_flags:
      tensor_parallel_size: 4
      max_model_len: 12288
    search_space: {}
`;

/** VALID with one exact substring replaced (throws when the substring is missing, so tests stay honest). */
export function mutate(from: string, to: string, base = VALID): string {
  if (!base.includes(from)) throw new Error(`fixture text not found: ${from}`);
  return base.replace(from, to);
}
