// Request body keys a framework's OpenAI server refuses: TensorRT-LLM answers a field it does not know with 400, so a plan's benchmark.extra_request_body key outside its request schema fails every request; warned at validate time with the line and a fix.
import type { FrameworkKey } from '../frameworks/types';
import { isPyMap, type PyMap, type PyValue } from '../py/value';
import type { FindingSink } from './context';
import { removeEntryEdit } from './edits';
import type { PlaybookModel } from './model';

/**
 * NVIDIA/TensorRT-LLM · tensorrt_llm/serve/openai_protocol.py @0076e939: `OpenAIBaseModel` sets `extra="forbid"`, so a key
 * outside these fields is a 400. Fields named as in `CompletionRequest` (completions) and `ChatCompletionRequest` (chat),
 * with the `max_tokens` alias of `max_completion_tokens`. Our client's own keys (ignore_eos, min_tokens, stream_options,
 * max_tokens / max_completion_tokens) are among them.
 */
const TRTLLM_SHARED = [
  'model', 'frequency_penalty', 'logit_bias', 'logprobs', 'n', 'presence_penalty', 'seed', 'stop', 'stream', 'stream_options', 'temperature', 'top_p', 'user',
  'lora_request', 'prompt_ignore_length', 'use_beam_search', 'top_k', 'top_p_min', 'min_p', 'repetition_penalty', 'length_penalty', 'early_stopping',
  'stop_token_ids', 'include_stop_str_in_output', 'ignore_eos', 'min_tokens', 'skip_special_tokens', 'spaces_between_special_tokens', 'truncate_prompt_tokens',
  'thinking_token_budget', 'add_special_tokens', 'response_format', 'disaggregated_params', 'priority', 'conversation_params', 'best_of', 'echo',
];
const TRTLLM_COMPLETIONS = [...TRTLLM_SHARED, 'prompt', 'max_tokens', 'suffix', 'return_context_logits', 'detokenize'];
const TRTLLM_CHAT = [
  ...TRTLLM_SHARED, 'messages', 'prompt_token_ids', 'prompt_token_ids_b64', 'top_logprobs', 'max_completion_tokens', 'max_tokens', 'tools', 'tool_choice',
  'parallel_tool_calls', 'reasoning_effort', 'thinking', 'add_generation_prompt', 'documents', 'chat_template', 'chat_template_kwargs',
  'injected_chat_template_kwargs', 'media_io_kwargs', 'cache_salt', 'agent_hierarchy', 'mm_processor_kwargs',
];

/** The source each list was read from, for the message. */
const TRTLLM_SOURCE = 'tensorrt_llm/serve/openai_protocol.py (extra="forbid")';

/**
 * The body keys a framework accepts on an endpoint, when it refuses the others; undefined when it does not (vLLM's
 * protocol allows extra fields, SGLang's pydantic models ignore them, TokenSpeed's gateway deserialises leniently).
 */
export function strictRequestFields(fw: FrameworkKey, endpoint: string): ReadonlySet<string> | undefined {
  if (fw !== 'tensorrt_llm') return undefined;
  if (endpoint === '/v1/completions') return new Set(TRTLLM_COMPLETIONS);
  if (endpoint === '/v1/chat/completions') return new Set(TRTLLM_CHAT);
  return undefined;
}

function mapAt(m: PyValue | undefined, key: string): PyMap | undefined {
  const v = isPyMap(m) ? m.get(key) : undefined;
  return isPyMap(v) ? v : undefined;
}

/** benchmark.extra_request_body keys an enabled framework would answer with 400. */
export function checkRequestBody(sink: FindingSink, root: PyMap, model: PlaybookModel): void {
  const bench = mapAt(root, 'benchmark');
  const body = mapAt(bench, 'extra_request_body');
  if (!bench || !body) return;
  const ep = bench.get('endpoint');
  const endpoint = typeof ep === 'string' ? ep : '/v1/completions';
  for (const sec of model.frameworks.filter((s) => s.enabled)) {
    const known = strictRequestFields(sec.framework, endpoint);
    if (!known) continue;
    for (const key of body.keys()) {
      if (typeof key !== 'string' || known.has(key)) continue;
      const path = ['benchmark', 'extra_request_body', key];
      const remove = removeEntryEdit(sink, path, sink.text);
      sink.warn(
        'request-field-refused',
        `${sec.framework}: extra_request_body key '${key}' is not a field of TensorRT-LLM's ${endpoint} request (${TRTLLM_SOURCE}); trtllm-serve answers every such request with 400. Remove it, or leave tensorrt_llm out of this plan`,
        path,
        { onKey: true, fixes: remove ? [{ title: `Remove ${key} from extra_request_body`, edits: [remove] }] : [] },
      );
    }
  }
}
