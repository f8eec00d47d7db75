// Backends: which endpoint each --backend uses and how a workload row becomes a request body (SGLang bench_serving's rules, with usage requested).
import type { ChatMessage, WorkloadRow } from '../core/workload/types';

export const BACKENDS = ['sglang', 'sglang-native', 'sglang-oai', 'sglang-oai-chat', 'vllm', 'vllm-chat', 'openai', 'openai-chat'] as const;
export type Backend = (typeof BACKENDS)[number];
export type ApiKind = 'native' | 'completions' | 'chat';

export interface ApiSpec {
  kind: ApiKind;
  path: string;
  /** SGLang's default port for this backend when --port is not given. */
  defaultPort: number;
  /** Cache flush endpoint the server family offers. */
  flushPath: string;
}

export function isBackend(s: string): s is Backend {
  return (BACKENDS as readonly string[]).includes(s);
}

export function apiFor(backend: Backend): ApiSpec {
  switch (backend) {
    case 'sglang':
    case 'sglang-native':
      return { kind: 'native', path: '/generate', defaultPort: 30000, flushPath: '/flush_cache' };
    case 'sglang-oai':
      return { kind: 'completions', path: '/v1/completions', defaultPort: 30000, flushPath: '/flush_cache' };
    case 'sglang-oai-chat':
      return { kind: 'chat', path: '/v1/chat/completions', defaultPort: 30000, flushPath: '/flush_cache' };
    case 'vllm':
    case 'openai':
      return { kind: 'completions', path: '/v1/completions', defaultPort: 8000, flushPath: '/reset_prefix_cache' };
    case 'vllm-chat':
    case 'openai-chat':
      return { kind: 'chat', path: '/v1/chat/completions', defaultPort: 8000, flushPath: '/reset_prefix_cache' };
  }
}

export interface BodyOptions {
  model: string;
  stream: boolean;
  ignoreEos: boolean;
  temperature: number;
  topP?: number;
  /** Ask OpenAI servers for the usage chunk (stream_options.include_usage); SGLang's client does not, and then counts wrong when generation stops early. */
  includeUsage: boolean;
  /** Also ask for usage on every chunk (vLLM's continuous_usage_stats), which lets ITL be split per token. */
  continuousUsage: boolean;
  /** Send random-ids' exact ids as input_ids (native backend). */
  tokenizePrompt: boolean;
  chatMaxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** --extra-request-body; the row's extra_request_body is merged over it. */
  extraBody: Record<string, unknown>;
}

function asMessages(prompt: WorkloadRow['prompt']): ChatMessage[] {
  return typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt;
}

/**
 * The request body. Precedence: our defaults < --extra-request-body < the row's extra_request_body
 * (shallow: a key in extra replaces ours whole, as in SGLang). `messages` overrides the prompt for
 * later turns of a multi-turn conversation.
 */
export function buildBody(kind: ApiKind, row: WorkloadRow, o: BodyOptions, messages?: ChatMessage[], maxTokens = row.outputLen): Record<string, unknown> {
  const extra = row.extraBody ? { ...o.extraBody, ...row.extraBody } : o.extraBody;
  let body: Record<string, unknown>;
  if (kind === 'native') {
    const sampling: Record<string, unknown> = { temperature: o.temperature, max_new_tokens: maxTokens, ignore_eos: o.ignoreEos };
    if (o.topP !== undefined && o.topP < 1) sampling.top_p = o.topP;
    body = {};
    if (o.tokenizePrompt && row.promptIds) body.input_ids = row.promptIds;
    else body.text = typeof row.prompt === 'string' ? row.prompt : row.prompt.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    body.sampling_params = sampling;
    body.stream = o.stream;
    return { ...body, ...extra };
  }
  body = { model: o.model };
  if (kind === 'chat') {
    body.messages = messages ?? asMessages(row.prompt);
    body[o.chatMaxTokensField] = maxTokens;
  } else {
    body.prompt = typeof row.prompt === 'string' ? row.prompt : row.prompt.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    body.max_tokens = maxTokens;
  }
  body.stream = o.stream;
  if (o.stream && o.includeUsage) body.stream_options = o.continuousUsage ? { include_usage: true, continuous_usage_stats: true } : { include_usage: true };
  if (o.topP !== undefined && o.topP < 1) body.top_p = o.topP;
  // Like SGLang: only when the extra body does not set them itself.
  if (!('temperature' in extra)) body.temperature = o.temperature;
  if (o.ignoreEos && !('ignore_eos' in extra)) body.ignore_eos = true;
  return { ...body, ...extra };
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * What a built body asks of the output length, after every merge: its max tokens (chat: the field the
 * servers prefer, max_completion_tokens), and whether it demands all of them (ignore_eos true, or a
 * min-tokens field at least the max).
 */
export function askedLength(kind: ApiKind, body: Record<string, unknown>): { maxTokens: number | undefined; ignoreEos: boolean } {
  const src = kind === 'native' ? body.sampling_params : body;
  if (!src || typeof src !== 'object') return { maxTokens: undefined, ignoreEos: false };
  const o = src as Record<string, unknown>;
  const max = kind === 'native' ? finite(o.max_new_tokens) : kind === 'chat' ? (finite(o.max_completion_tokens) ?? finite(o.max_tokens)) : finite(o.max_tokens);
  const min = kind === 'native' ? finite(o.min_new_tokens) : finite(o.min_tokens);
  return { maxTokens: max, ignoreEos: o.ignore_eos === true || (max !== undefined && min !== undefined && min >= max) };
}
