// What every generation endpoint shares: the server context, request-field checks, the context-length rule
// of the framework, and submitting to the engine with abort-on-disconnect.
import { noteTtfts } from './ttft-report';
import type { ServerResponse } from 'node:http';
import type { ResolvedSim } from '../config';
import type { SimEngine } from '../engine';
import type { ApiDialect } from '../fw/types';
import type { RequestFailure } from '../noise';
import type { FinishReason, SimRequest } from '../request';
import { countTokens, pieceId, tokenize } from '../tokens';
import { HttpError, isObject } from './io';
import { kvTransferSeconds } from '../pd';

export interface ServerContext {
  config: ResolvedSim;
  engine: SimEngine;
  dialect: ApiDialect;
  /** Called for each accepted generation request (the crash-after-N flag counts these). */
  accepted(): void;
  nextId(prefix: string): string;
  /** The error-rate fault's verdict for the next generation request (undefined: it goes through). */
  drawFailure(): RequestFailure | undefined;
  /** OpenAI usage carries prompt_tokens_details.cached_tokens. */
  cacheReport: boolean;
  /** Streamed /v1/completions can carry usage (false behind smg gateways older than 1.4.0: their chunk type has no usage field). */
  completionStreamUsage: boolean;
  /** Remembers token pieces seen by /tokenize so /detokenize can give them back. */
  rememberPieces(text: string): void;
}

export interface JobParams {
  promptIds: number[];
  maxNew: number;
  ignoreEos: boolean;
  minTokens: number;
  seed?: number;
  vary: boolean;
  /** A P/D decode worker's request whose prompt KV comes from a prefill worker (pd.ts). */
  kvTransfer?: boolean;
}

export interface JobEvents {
  tokens(r: SimRequest, from: number, count: number, finish: FinishReason | null, at: number): void;
  failed(message: string): void;
}

// ---- field readers ----------------------------------------------------------------------------------

export function optInt(body: Record<string, unknown>, key: string, min: number): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new HttpError(400, `${key} must be an integer, got ${JSON.stringify(v)}.`, key);
  if (v < min) throw new HttpError(400, `${key} must be at least ${min}, got ${v}.`, key);
  return v;
}

export function optBool(body: Record<string, unknown>, key: string): boolean | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new HttpError(400, `${key} must be a boolean, got ${JSON.stringify(v)}.`, key);
  return v;
}

export function optNumber(body: Record<string, unknown>, key: string): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new HttpError(400, `${key} must be a number, got ${JSON.stringify(v)}.`, key);
  return v;
}

export function requireObject(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw new HttpError(400, 'The request body must be a JSON object.');
  return body;
}

/** A list of token ids, or undefined when `v` is not one. */
export function asIds(v: unknown): number[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  for (const x of v) if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) return undefined;
  return v as number[];
}

// ---- chat prompt --------------------------------------------------------------------------------------

const END = pieceId('<|end|>');
const roleIds = new Map<string, number>();
function roleId(role: string): number {
  let id = roleIds.get(role);
  if (id === undefined) {
    id = pieceId(`<|${role}|>`);
    if (roleIds.size < 64) roleIds.set(role, id);
  }
  return id;
}

/** Tokens an image stands for in the simulator's chat template (a fixed vision-token budget). */
export const IMAGE_TOKENS = 256;

/** The simulator's chat template: `<|role|>` content `<|end|>` per message, then `<|assistant|>`. */
export function chatPromptIds(messages: unknown): number[] {
  if (!Array.isArray(messages) || messages.length === 0) throw new HttpError(400, 'messages must be a non-empty list.', 'messages');
  const ids: number[] = [];
  for (const [i, m] of messages.entries()) {
    if (!isObject(m) || typeof m.role !== 'string') throw new HttpError(400, `messages[${i}] must be an object with a string role.`, 'messages');
    ids.push(roleId(m.role));
    const c = m.content;
    if (typeof c === 'string') tokenize(c, ids);
    else if (Array.isArray(c)) {
      for (const part of c) {
        if (!isObject(part)) throw new HttpError(400, `messages[${i}].content parts must be objects.`, 'messages');
        if (part.type === 'text' && typeof part.text === 'string') tokenize(part.text, ids);
        else if (part.type === 'image_url' || part.type === 'input_image' || part.type === 'image') {
          const img = pieceId(JSON.stringify(part));
          for (let k = 0; k < IMAGE_TOKENS; k++) ids.push((img + k) >>> 0);
        } else if (part.type !== 'text') throw new HttpError(400, `messages[${i}]: unsupported content part type ${JSON.stringify(part.type)}.`, 'messages');
      }
    } else if (c !== null && c !== undefined) throw new HttpError(400, `messages[${i}].content must be a string or a list of parts.`, 'messages');
    ids.push(END);
  }
  ids.push(roleId('assistant'));
  return ids;
}

/** A completions `prompt`: a string, token ids, or a list of either (a batch). */
export function completionPrompts(prompt: unknown): number[][] {
  if (typeof prompt === 'string') return [tokenize(prompt)];
  const ids = asIds(prompt);
  if (ids) return [ids];
  if (Array.isArray(prompt) && prompt.length > 0) {
    return prompt.map((p, i) => {
      if (typeof p === 'string') return tokenize(p);
      const one = asIds(p);
      if (!one) throw new HttpError(400, `prompt[${i}] must be a string or a list of token ids.`, 'prompt');
      return one;
    });
  }
  throw new HttpError(400, 'prompt must be a string, a list of strings, or token ids.', 'prompt');
}

export { countTokens };

// ---- context length and submission --------------------------------------------------------------------

/** The output budget a request gets under the framework's context rule; HttpError when refused. */
export function fitContext(ctx: ServerContext, promptLen: number, requested: number | undefined, field: string): number {
  const limit = ctx.config.contextLimit;
  if (promptLen === 0) throw new HttpError(400, 'The prompt is empty.', 'prompt');
  if (promptLen > ctx.config.maxPromptTokens) {
    throw new HttpError(400, `The prompt has ${promptLen} tokens, more than max_num_tokens (${ctx.config.maxPromptTokens}) allows without chunked prefill.`, 'prompt');
  }
  if (promptLen >= limit) {
    throw new HttpError(
      400,
      ctx.dialect.overflow === 'clamp'
        ? `The input (${promptLen} tokens) is longer than the model's context length (${limit} tokens).`
        : `This model's maximum context length is ${limit} tokens. However, your request has ${promptLen} input tokens. Please reduce the length of the input.`,
      'prompt',
    );
  }
  const want = requested ?? limit - promptLen;
  if (promptLen + want > limit) {
    if (ctx.dialect.overflow === 'clamp') return limit - promptLen;
    throw new HttpError(
      400,
      `This model's maximum context length is ${limit} tokens. However, you requested ${promptLen + want} tokens (${promptLen} in the prompt, ${want} in the completion). Please reduce the prompt or ${field}.`,
      field,
    );
  }
  return want;
}

export interface Job {
  request: SimRequest;
  replica: number;
}

/** Submits one generation; HttpError when the engine refuses it. */
export function submit(ctx: ServerContext, p: JobParams, events: JobEvents): Job {
  // The engine reports tokens only after submit returns, by which time the request is known.
  const job: { request?: SimRequest } = {};
  const res = ctx.engine.submit(
    {
      promptIds: p.promptIds,
      maxNewTokens: p.maxNew,
      ignoreEos: p.ignoreEos,
      minTokens: p.minTokens,
      sampleSeed: p.seed,
      varySample: p.vary,
      ...(p.kvTransfer ? { kvTransferSeconds: kvTransferSeconds(ctx.config, p.promptIds.length) } : {}),
    },
    {
      tokens: (from, count, finish, at) => events.tokens(job.request as SimRequest, from, count, finish, at),
      failed: (m) => events.failed(m),
    },
  );
  if (!res.ok) throw new HttpError(res.status, res.message);
  job.request = res.request;
  ctx.accepted();
  return { request: res.request, replica: res.replica };
}

/** Aborts unfinished jobs when the client goes away before the response is complete. */
export function abortOnClose(ctx: ServerContext, res: ServerResponse, jobs: Job[]): void {
  res.on('close', () => {
    for (const j of jobs) if (j.request.state !== 'done') ctx.engine.abort(j.request, j.replica);
    noteTtfts(ctx, jobs);
  });
}

/**
 * The modelled times of a request, for `--sim-debug-timing` responses and the timing header: arrival, first scheduled,
 * first token, finish, and on a P/D decode worker when the request came in before its KV transfer (simulated seconds;
 * null when not reached yet).
 */
export function simTiming(r: SimRequest): { arrival: number; admitted: number; first_token: number; finish: number; received?: number } {
  return { arrival: r.arrivalAt, admitted: r.startedAt, first_token: r.firstAt, finish: r.doneAt, ...(Number.isFinite(r.receivedAt) ? { received: r.receivedAt } : {}) };
}

/** The error-rate fault's HTTP 500: refused before any output, in the framework's error body. */
export function simulatedServerError(): HttpError {
  return new HttpError(500, 'Internal server error: the engine failed this request (simulated by --sim-error-rate).');
}

/** Output tokens after which the error-rate fault cuts a response: about half the answer, at least one token. */
export function cutPoint(r: SimRequest): number {
  return Math.max(1, Math.ceil(r.stopAt / 2));
}

export function usageJson(prompt: number, completion: number, cached: number | undefined): string {
  const details = cached === undefined ? '' : `,"prompt_tokens_details":{"cached_tokens":${cached}}`;
  return `{"prompt_tokens":${prompt},"total_tokens":${prompt + completion},"completion_tokens":${completion}${details}}`;
}
