// TensorRT-LLM (`trtllm-serve serve`): click option names kept verbatim, sequence limit, fixed knobs, flag table.
import type { FlagSpec, FrameworkSpec } from './types';

// Every option of the captured `trtllm-serve serve --help` (main, serve.py @ 00209af1). Engine tuning beyond
// these (attention DP, CUDA graphs, overlap) lives in the YAML passed through extra_llm_api_options, so the
// table is short by nature. `trt` is the older spelling of the TensorRT engine backend; the validator rejects
// every backend but pytorch anyway. Descriptions are ours.
const FLAGS: FlagSpec[] = [
  { key: 'tokenizer', kind: 'string', help: 'Tokenizer to load when it differs from the model.' },
  { key: 'custom_tokenizer', kind: 'string', help: 'Custom tokenizer alias or Python import path.' },
  { key: 'host', kind: 'string', help: 'Address the server binds to.' },
  { key: 'port', kind: 'int', help: 'Port of the server.' },
  { key: 'backend', kind: 'choice', choices: ['pytorch', 'tensorrt', '_autodeploy', 'trt'], help: 'Runtime backend; cookbook configs must keep pytorch.' },
  { key: 'custom_module_dirs', kind: 'path', help: 'Folders with custom modules to import.' },
  { key: 'log_level', kind: 'choice', choices: ['internal_error', 'error', 'warning', 'info', 'verbose', 'debug', 'trace'], help: 'Logging level.' },
  { key: 'max_beam_width', kind: 'int', help: 'Most beams for beam search.' },
  { key: 'max_batch_size', kind: 'int', help: 'Cap on requests scheduled in one batch.' },
  { key: 'max_num_tokens', kind: 'int', help: 'Token budget of one batch after padding removal.' },
  { key: 'max_seq_len', kind: 'int', help: 'Maximum prompt plus output length per request (defaults to the model config).' },
  { key: 'tp_size', aliases: ['tensor_parallel_size'], kind: 'int', help: 'Tensor parallel size.' },
  { key: 'pp_size', aliases: ['pipeline_parallel_size'], kind: 'int', help: 'Pipeline parallel size.' },
  { key: 'cp_size', aliases: ['context_parallel_size'], kind: 'int', help: 'Context parallel size.' },
  { key: 'ep_size', aliases: ['moe_expert_parallel_size'], kind: 'int', help: 'Expert parallel size for MoE layers.' },
  { key: 'cluster_size', aliases: ['moe_cluster_parallel_size'], kind: 'int', help: 'Expert cluster parallel size for MoE layers.' },
  { key: 'gpus_per_node', kind: 'int', help: 'GPUs per node (detected when unset).' },
  { key: 'kv_cache_free_gpu_memory_fraction', aliases: ['free_gpu_memory_fraction'], kind: 'float', help: 'Share of free GPU memory (after weights) given to the KV cache.' },
  { key: 'num_postprocess_workers', kind: 'int', help: 'Worker processes that format responses.' },
  { key: 'trust_remote_code', kind: 'bool', help: 'Allow model code shipped with the checkpoint to run.' },
  { key: 'revision', kind: 'string', help: 'Model revision (branch, tag or commit) to fetch.' },
  { key: 'extra_llm_api_options', aliases: ['config'], kind: 'path', help: 'YAML file with further LLM API options (the place for PyTorch backend tuning).' },
  { key: 'reasoning_parser', kind: 'choice', choices: ['deepseek-r1', 'qwen3', 'nano-v3'], help: 'Parser that splits reasoning text from the answer.' },
  { key: 'tool_parser', kind: 'choice', choices: ['qwen3', 'qwen3_coder', 'kimi_k2', 'deepseekv3', 'deepseekv3.1', 'deepseek_v32'], help: 'Parser that extracts tool calls from model output.' },
  { key: 'metadata_server_config_file', kind: 'path', help: 'Metadata server config for disaggregated serving.' },
  { key: 'server_role', kind: 'string', help: 'Role of this server in disaggregated serving.' },
  { key: 'fail_fast_on_attention_window_too_large', kind: 'bool', help: 'Exit when the attention window cannot fit one sequence in the KV cache.' },
  { key: 'otlp_traces_endpoint', kind: 'string', help: 'OpenTelemetry traces endpoint.' },
  { key: 'disagg_cluster_uri', kind: 'string', help: 'URI of the disaggregated cluster.' },
  { key: 'enable_chunked_prefill', kind: 'bool', help: 'Split long prefills into chunks.' },
  { key: 'media_io_kwargs', kind: 'json', help: 'Options for media input loading.' },
  { key: 'chat_template', kind: 'string', help: 'Chat template file or inline template.' },
];

export const TENSORRT_LLM: FrameworkSpec = {
  key: 'tensorrt_llm',
  displayName: 'TensorRT-LLM',
  flagStyle: 'verbatim',
  sequenceLimitKey: 'max_seq_len',
  sequenceLimitDefault: 0,
  memoryKnobs: ['kv_cache_free_gpu_memory_fraction'],
  positionalModel: true,
  defaultServerCommand: 'trtllm-serve serve',
  // NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py @00209af1: `--host` defaults to "localhost".
  defaultHost: 'localhost',
  // CUDA graphs and batch overlap are set in the extra_llm_api_options YAML, not on the command line.
  smokeOnlyFlags: [],
  advancedCommFlags: [],
  parallelKeys: {
    tp: ['tp_size', 'tensor_parallel_size'],
    pp: ['pp_size', 'pipeline_parallel_size'],
    dp: [],
  },
  // The model is positional; `model` is listed so a stray override in flags is still noticed.
  modelKeys: ['model'],
  tokenizerKeys: ['tokenizer'],
  builtinFlags: FLAGS,
  builtinVersion: 'main @ 00209af1',
};
