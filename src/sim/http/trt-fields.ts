// trtllm-serve's request models forbid unknown fields (pydantic `extra="forbid"`): the fields each OpenAI route
// accepts, and the 400 a body with any other field gets.
// Source: NVIDIA/TensorRT-LLM · tensorrt_llm/serve/openai_protocol.py @0076e939 (audit) and the stored copy
// @54cf7be08a35: `class OpenAIBaseModel(BaseModel): model_config = ConfigDict(extra="forbid", populate_by_name=True)`;
// CompletionRequest / ChatCompletionRequest / StreamOptions fields as listed below (chat `max_completion_tokens`
// has `validation_alias='max_tokens'`, and populate_by_name lets both names through).
import { HttpError, isObject } from './io';

const SHARED = [
  'model', 'frequency_penalty', 'logit_bias', 'n', 'presence_penalty', 'seed', 'stop', 'stream', 'stream_options',
  'temperature', 'top_p', 'user', 'lora_request', 'prompt_ignore_length', 'best_of', 'use_beam_search', 'top_k',
  'top_p_min', 'min_p', 'repetition_penalty', 'length_penalty', 'early_stopping', 'stop_token_ids',
  'include_stop_str_in_output', 'ignore_eos', 'min_tokens', 'skip_special_tokens', 'spaces_between_special_tokens',
  'truncate_prompt_tokens', 'add_special_tokens', 'response_format', 'disaggregated_params',
] as const;

/** POST /v1/completions (CompletionRequest). */
export const TRT_COMPLETION_FIELDS: ReadonlySet<string> = new Set([
  ...SHARED, 'prompt', 'echo', 'logprobs', 'max_tokens', 'suffix', 'return_context_logits', 'detokenize',
]);

/** POST /v1/chat/completions (ChatCompletionRequest). */
export const TRT_CHAT_FIELDS: ReadonlySet<string> = new Set([
  ...SHARED, 'messages', 'prompt_token_ids', 'logprobs', 'top_logprobs', 'max_completion_tokens', 'max_tokens', 'tools',
  'tool_choice', 'reasoning_effort', 'echo', 'add_generation_prompt', 'documents', 'chat_template', 'chat_template_kwargs',
  'cache_salt',
]);

/** StreamOptions (also an OpenAIBaseModel, so also closed). */
export const TRT_STREAM_OPTION_FIELDS: ReadonlySet<string> = new Set(['include_usage', 'continuous_usage_stats']);

/** Throws the 400 trtllm-serve answers when the body has a field its request model does not declare. */
export function checkTrtFields(body: Record<string, unknown>, chat: boolean): void {
  const model = chat ? 'ChatCompletionRequest' : 'CompletionRequest';
  const allowed = chat ? TRT_CHAT_FIELDS : TRT_COMPLETION_FIELDS;
  const extra = Object.keys(body).filter((k) => !allowed.has(k));
  const so = body.stream_options;
  if (isObject(so)) for (const k of Object.keys(so)) if (!TRT_STREAM_OPTION_FIELDS.has(k)) extra.push(`stream_options.${k}`);
  if (extra.length === 0) return;
  const lines = extra.map((k) => `${k}\n  Extra inputs are not permitted [type=extra_forbidden]`);
  throw new HttpError(400, `${extra.length} validation error${extra.length > 1 ? 's' : ''} for ${model}\n${lines.join('\n')}`, extra[0] ?? null);
}
