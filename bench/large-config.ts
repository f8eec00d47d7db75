// Builds valid cookbook configs for benchmarks: one of about N lines (long scenario lists and search spaces), and one whose
// framework search_space holds a single list of thousands of values.
/** The lines both configs open with, up to the scenario names' key. */
const HEAD = [
  'schema_version: 1',
  'source:',
  '  kind: llm_serving_cookbook',
  'model:',
  '  name: Qwen/Qwen3-32B',
  '  tokenizer: Qwen/Qwen3-32B',
  'hardware:',
  '  gpu_count: 8',
  'dataset:',
  '  kind: random',
  '  scenario_names:',
];

export function largeConfig(lines = 5000): string {
  // Half the lines are scenarios (3 per scenario), half are search values (8 keys in all).
  const scenarios = Math.floor(lines / 6);
  const valuesPerKey = Math.max(2, Math.floor((lines - 3 * scenarios - 70) / 8));
  const out: string[] = [...HEAD];
  for (let i = 0; i < scenarios; i++) out.push(`  - s${i}`);
  out.push('  input_len:');
  for (let i = 0; i < scenarios; i++) out.push(`  - ${1000 + (i % 64) * 100}`);
  out.push('  output_len:');
  for (let i = 0; i < scenarios; i++) out.push(`  - ${100 + (i % 16) * 50}`);
  out.push('benchmark:', '  sla:', '    max_p50_ttft_ms: 2000', '    max_p50_tpot_ms: 80', '    min_success_rate: 0.99');
  out.push('search:', '  max_candidates_per_framework: 10', '  candidate_generation: coverage_first');
  out.push('frameworks:');
  const fw = (name: string, cmd: string, base: string[], keys: string[], extra: string[] = []) => {
    out.push(`  ${name}:`, '    enabled: true', `    server_command: ${cmd}`, ...extra, '    base_server_flags:');
    for (const b of base) out.push(`      ${b}`);
    out.push('    search_space:');
    for (const k of keys) {
      out.push(`      ${k}:`);
      for (let v = 0; v < valuesPerKey; v++) out.push(`      - ${(v + 1) * 8}`);
    }
  };
  fw('sglang', 'python -m sglang.launch_server', ['model_path: Qwen/Qwen3-32B', 'tp_size: 8', 'context_length: 16384'], ['max_running_requests', 'chunked_prefill_size']);
  fw('vllm', 'vllm serve', ['tensor_parallel_size: 8', 'max_model_len: 16384'], ['max_num_seqs', 'max_num_batched_tokens']);
  fw('tensorrt_llm', 'trtllm-serve serve', ['backend: pytorch', 'tp_size: 8', 'max_seq_len: 16384'], ['max_batch_size', 'max_num_tokens'], ['    backend_policy: fixed_pytorch']);
  fw('tokenspeed', 'tokenspeed serve', ['tensor_parallel_size: 8', 'max_model_len: 16384'], ['max_num_seqs', 'chunked_prefill_size']);
  while (out.length < lines) out.push(`# note ${out.length}`);
  return `${out.join('\n')}\n`;
}

/**
 * Builds a valid cookbook config whose vLLM search_space holds one long list: `values` integers under max_num_seqs
 * (1, 2, ... values), one per line, the framework's first search key; everything else is a small shipped-size config.
 */
export function longListConfig(values = 3000): string {
  const out: string[] = [
    ...HEAD,
    '  - chat',
    '  - summarization',
    '  input_len:',
    '  - 1000',
    '  - 8000',
    '  output_len:',
    '  - 1000',
    '  - 1000',
    'benchmark:',
    '  sla:',
    '    max_p50_ttft_ms: 2000',
    '    max_p50_tpot_ms: 80',
    '    min_success_rate: 0.99',
    'search:',
    '  max_candidates_per_framework: 10',
    '  candidate_generation: coverage_first',
    'frameworks:',
  ];
  const fw = (name: string, cmd: string, base: string[], space: string[], extra: string[] = []) => {
    out.push(`  ${name}:`, '    enabled: true', `    server_command: ${cmd}`, ...extra, '    base_server_flags:');
    for (const b of base) out.push(`      ${b}`);
    out.push('    search_space:', ...space.map((s) => `      ${s}`));
  };
  const long = ['max_num_seqs:'];
  for (let v = 1; v <= values; v++) long.push(`- ${v}`);
  fw('sglang', 'python -m sglang.launch_server', ['model_path: Qwen/Qwen3-32B', 'tp_size: 8', 'context_length: 16384'], ['max_running_requests:', '- 64', '- 128']);
  fw('vllm', 'vllm serve', ['tensor_parallel_size: 8', 'max_model_len: 16384'], [...long, 'max_num_batched_tokens:', '- 8192', '- 16384']);
  fw('tensorrt_llm', 'trtllm-serve serve', ['backend: pytorch', 'tp_size: 8', 'max_seq_len: 16384'], ['max_batch_size:', '- 64', '- 128'], ['    backend_policy: fixed_pytorch']);
  fw('tokenspeed', 'tokenspeed serve', ['tensor_parallel_size: 8', 'max_model_len: 16384'], ['max_num_seqs:', '- 64', '- 128']);
  return `${out.join('\n')}\n`;
}
