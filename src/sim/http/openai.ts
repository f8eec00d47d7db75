// POST /v1/completions and /v1/chat/completions: OpenAI-shaped responses, streamed (SSE) or whole, with
// include_usage / continuous_usage_stats, max_tokens / max_completion_tokens, ignore_eos and min_tokens; and the
// error-rate fault's failures (HTTP 500 up front, or the stream cut partway).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FinishReason, SimRequest } from '../request';
import { outputText, outputTokenId } from '../tokens';
import { HttpError, SseWriter, baseHeaders, isObject, sendJson } from './io';
import {
  abortOnClose,
  chatPromptIds,
  completionPrompts,
  cutPoint,
  fitContext,
  optBool,
  optInt,
  optNumber,
  requireObject,
  simTiming,
  simulatedServerError,
  submit,
  usageJson,
  type Job,
  type ServerContext,
} from './jobs';
import { checkTrtFields } from './trt-fields';
import { carriesTransferredKv } from '../pd';
import { contextParams, trtRequestType, type TrtRequestType } from './trt-disagg';

interface Choice {
  index: number;
  promptLen: number;
  generated: number;
  finish: FinishReason | null;
  /** Precomputed chunk text around the token text. */
  head: string;
  tail: string;
  roleSent: boolean;
  /** The error-rate fault cuts the response once this many tokens are out (Infinity: never). */
  cutAt: number;
  /** Its modelled times went out (with the first token's chunk, when timing was asked for). */
  timed?: boolean;
}

function modelFor(ctx: ServerContext, body: Record<string, unknown>): string {
  const names = ctx.config.settings.servedNames;
  const first = names[0] ?? ctx.config.settings.model;
  const asked = body.model;
  if (asked === undefined || asked === null || asked === '') return first;
  if (typeof asked !== 'string') throw new HttpError(400, 'model must be a string.', 'model');
  if (ctx.dialect.checkModelName && !names.includes(asked)) throw new HttpError(404, `The model \`${asked}\` does not exist.`, 'model');
  return asked;
}

/** What a completions or chat request asks for, read and checked in the servers' order. */
interface OpenAiParams {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  continuous: boolean;
  prompts: number[][];
  /** Tokens each prompt may generate, fitted to the context. */
  budgets: number[];
  ignoreEos: boolean;
  minTokens: number;
  seed: number | undefined;
  /** Sampling that differs from run to run (no seed, temperature not 0). */
  vary: boolean;
  /** A P/D decode worker's request with transferred KV. */
  kvTransfer: boolean;
  /** TensorRT-LLM's disaggregated_params.request_type, when the request has one. */
  trtType?: TrtRequestType;
}

function readOpenAiBody(ctx: ServerContext, raw: unknown, chat: boolean): OpenAiParams {
  const body = requireObject(raw);
  // trtllm-serve's request models are closed (pydantic extra="forbid"): unknown fields are a 400.
  if (ctx.dialect.routes === 'trtllm') checkTrtFields(body, chat);
  const model = modelFor(ctx, body);
  const trtType = ctx.dialect.routes === 'trtllm' ? trtRequestType(ctx.config.settings, body) : undefined;
  const stream = optBool(body, 'stream') ?? false;
  const n = optInt(body, 'n', 1) ?? 1;
  if (n !== 1) throw new HttpError(400, 'n > 1 is not supported by the simulated engine.', 'n');
  let includeUsage = false;
  let continuous = false;
  if (body.stream_options !== undefined && body.stream_options !== null) {
    if (!isObject(body.stream_options)) throw new HttpError(400, 'stream_options must be an object.', 'stream_options');
    if (!stream) throw new HttpError(400, 'stream_options is only allowed when stream is true.', 'stream_options');
    includeUsage = optBool(body.stream_options, 'include_usage') ?? false;
    continuous = optBool(body.stream_options, 'continuous_usage_stats') ?? false;
  }
  if (!chat && !ctx.completionStreamUsage) {
    includeUsage = false;
    continuous = false;
  }
  // A generation-only chat request carries the context side's prompt_token_ids (the front end copies them over).
  const given = chat && trtType === 'generation_only' && Array.isArray(body.prompt_token_ids) ? completionPrompts(body.prompt_token_ids) : undefined;
  const prompts = given ?? (chat ? [chatPromptIds(body.messages)] : completionPrompts(body.prompt));
  if (chat && stream && prompts.length !== 1) throw new HttpError(400, 'one conversation per request.');
  // max_completion_tokens is the newer name; chat defaults to the rest of the context, completions to 16.
  const field = chat && body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
  const requested = optInt(body, field, 1) ?? (chat ? undefined : 16);
  const ignoreEos = optBool(body, 'ignore_eos') ?? false;
  const minTokens = optInt(body, 'min_tokens', 0) ?? 0;
  const temperature = optNumber(body, 'temperature');
  const seed = optInt(body, 'seed', Number.MIN_SAFE_INTEGER);
  // A context-only request runs the prompt and samples its first token only.
  const budgets = prompts.map((p) => (trtType === 'context_only' ? 1 : fitContext(ctx, p.length, requested, field)));
  const vary = seed === undefined && (temperature === undefined || temperature > 0);
  const kvTransfer = carriesTransferredKv(ctx.config.settings.pd, body);
  return { model, stream, includeUsage, continuous, prompts, budgets, ignoreEos, minTokens, seed, vary, kvTransfer, ...(trtType ? { trtType } : {}) };
}

/** The response to one request: SSE chunks as tokens arrive, or one JSON body once every choice has finished. */
class OpenAiReply {
  readonly jobs: Job[] = [];
  readonly choices: Choice[];
  private readonly id: string;
  private readonly created: number;
  private readonly idJ: string;
  private readonly modelJ: string;
  private readonly cacheReport: boolean;
  private readonly debugTiming: boolean;
  private readonly out: SseWriter;
  private open: number;
  private cut = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly res: ServerResponse,
    private readonly p: OpenAiParams,
    private readonly chat: boolean,
    timing = false,
  ) {
    this.id = ctx.nextId(chat ? 'chatcmpl-' : 'cmpl-');
    const created = (this.created = Math.floor(Date.now() / 1000));
    const idJ = (this.idJ = JSON.stringify(this.id));
    const modelJ = (this.modelJ = JSON.stringify(p.model));
    this.cacheReport = ctx.cacheReport;
    this.choices = p.prompts.map((prompt, index) => ({
      index,
      promptLen: prompt.length,
      generated: 0,
      finish: null,
      head: chat
        ? `data: {"id":${idJ},"object":"chat.completion.chunk","created":${created},"model":${modelJ},"choices":[{"index":${index},"delta":{"content":"`
        : `data: {"id":${idJ},"object":"text_completion","created":${created},"model":${modelJ},"choices":[{"index":${index},"text":"`,
      tail: '',
      roleSent: false,
      cutAt: Infinity,
    }));
    this.out = new SseWriter(res);
    this.open = this.choices.length;
    this.debugTiming = ctx.config.options.debugTiming || timing;
  }

  private usageFor(c: Choice, r: SimRequest): string {
    return usageJson(c.promptLen, c.generated, this.cacheReport ? r.cachedTokens : undefined);
  }

  private tailFor(c: Choice, r: SimRequest, finish: FinishReason | null, at: number): string {
    const f = finish ? `"${finish}"` : 'null';
    let usage = this.p.continuous ? `,"usage":${this.usageFor(c, r)}` : this.p.includeUsage ? ',"usage":null' : '';
    // Benchmarks of the simulator itself compare arrival times with the modelled step times; the first token's chunk
    // also carries the request's modelled times (the simulated P/D router splits a unit's TTFT by them).
    if (this.debugTiming) usage += `,"autobench_sim_time":${at.toFixed(6)}${c.timed ? '' : `,"autobench_sim_timing":${JSON.stringify(simTiming(r))}`}`;
    if (this.debugTiming) c.timed = true;
    return this.chat ? `"},"logprobs":null,"finish_reason":${f}}]${usage}}\n\n` : `","logprobs":null,"finish_reason":${f},"stop_reason":null}]${usage}}\n\n`;
  }

  /** The usage chunk when asked for, then [DONE]. */
  private finishStream(): void {
    const { choices, jobs, chat } = this;
    if (this.p.includeUsage) {
      let p = 0;
      let c = 0;
      let cached = 0;
      for (const [i, ch] of choices.entries()) {
        p += ch.promptLen;
        c += ch.generated;
        cached += jobs[i]?.request.cachedTokens ?? 0;
      }
      const usage = usageJson(p, c, this.cacheReport ? cached : undefined);
      this.out.write(`data: {"id":${this.idJ},"object":"${chat ? 'chat.completion.chunk' : 'text_completion'}","created":${this.created},"model":${this.modelJ},"choices":[],"usage":${usage}}\n\n`);
    }
    this.out.end('data: [DONE]\n\n');
  }

  /** Tokens [from, from + count) of choice `c` were generated (finishing it when `finish` is set). */
  onTokens(c: Choice, r: SimRequest, from: number, count: number, finish: FinishReason | null, at: number): void {
    if (this.cut) return;
    c.generated = from + count;
    if (c.generated >= c.cutAt || (finish && Number.isFinite(c.cutAt))) {
      this.cutNow(c, r, from, count, at);
      return;
    }
    if (finish) c.finish = finish;
    if (!this.p.stream) {
      if (finish && --this.open === 0) this.respondWhole();
      return;
    }
    this.streamTokens(c, r, from, count, finish, at);
    if (finish && --this.open === 0) this.finishStream();
  }

  /** The error-rate fault: the tokens so far go out without a finish_reason, then the connection drops (no [DONE]). */
  private cutNow(c: Choice, r: SimRequest, from: number, count: number, at: number): void {
    this.cut = true;
    if (!this.p.stream) {
      this.res.destroy();
      return;
    }
    this.streamTokens(c, r, from, count, null, at);
    this.out.cut();
  }

  private streamTokens(c: Choice, r: SimRequest, from: number, count: number, finish: FinishReason | null, at: number): void {
    const { chat, idJ, modelJ, created } = this;
    const { includeUsage, continuous } = this.p;
    if (chat && !c.roleSent) {
      c.roleSent = true;
      this.out.write(
        `data: {"id":${idJ},"object":"chat.completion.chunk","created":${created},"model":${modelJ},"choices":[{"index":${c.index},"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${includeUsage && !continuous ? ',"usage":null' : continuous ? `,"usage":${usageJson(c.promptLen, 0, this.cacheReport ? r.cachedTokens : undefined)}` : ''}}\n\n`,
      );
    }
    const separate = chat && this.ctx.dialect.separateFinishChunk;
    if (count > 0 || !separate) this.out.write(c.head + outputText(r.seed, from, count) + this.tailFor(c, r, separate ? null : finish, at));
    if (finish && separate) {
      const usage = continuous ? `,"usage":${this.usageFor(c, r)}` : includeUsage ? ',"usage":null' : '';
      this.out.write(
        `data: {"id":${idJ},"object":"chat.completion.chunk","created":${created},"model":${modelJ},"choices":[{"index":${c.index},"delta":{},"logprobs":null,"finish_reason":"${finish}"}]${usage}}\n\n`,
      );
    }
  }

  /** The whole (non-streamed) response. */
  private respondWhole(): void {
    const { chat, jobs, debugTiming } = this;
    let p = 0;
    let g = 0;
    let cached = 0;
    const out = this.choices.map((c, i) => {
      const r = (jobs[i] as Job).request;
      p += c.promptLen;
      g += c.generated;
      cached += r.cachedTokens;
      const text = outputText(r.seed, 0, c.generated);
      const choice = chat
        ? { index: c.index, message: { role: 'assistant', content: text, reasoning_content: null, tool_calls: [] }, logprobs: null, finish_reason: c.finish, stop_reason: null }
        : { index: c.index, text, logprobs: null, finish_reason: c.finish, stop_reason: null, prompt_logprobs: null };
      const ctxOnly = this.p.trtType === 'context_only' ? { disaggregated_params: contextParams(outputTokenId(r.seed, 0), this.ctx.config.settings.model) } : {};
      return debugTiming ? { ...choice, ...ctxOnly, autobench_sim_timing: simTiming(r) } : { ...choice, ...ctxOnly };
    });
    const usage = JSON.parse(usageJson(p, g, this.cacheReport ? cached : undefined)) as object;
    // A context-only answer hands the prompt's token ids to the generation side.
    const ids = this.p.trtType === 'context_only' ? { prompt_token_ids: this.p.prompts.length === 1 ? this.p.prompts[0] : this.p.prompts } : {};
    sendJson(this.res, 200, { id: this.id, object: chat ? 'chat.completion' : 'text_completion', created: this.created, model: this.p.model, choices: out, usage, ...ids });
  }
}

/** Queues one engine request per prompt; a batch refused partway aborts the prompts already queued. */
function submitAll(ctx: ServerContext, res: ServerResponse, p: OpenAiParams, reply: OpenAiReply, cut: boolean): void {
  const { jobs, choices } = reply;
  let failed = false;
  try {
    for (const [i, ids] of p.prompts.entries()) {
      const c = choices[i] as Choice;
      jobs.push(
        submit(ctx, { promptIds: ids, maxNew: p.budgets[i] as number, ignoreEos: p.ignoreEos, minTokens: p.minTokens, seed: p.seed, vary: p.vary, kvTransfer: p.kvTransfer }, {
          tokens: (r, from, count, finish, at) => {
            if (!failed) reply.onTokens(c, r, from, count, finish, at);
          },
          failed: () => {
            failed = true;
            res.destroy();
          },
        }),
      );
      if (cut) c.cutAt = cutPoint((jobs[i] as Job).request);
    }
  } catch (e) {
    // The prompts already queued must not run for nobody.
    for (const j of jobs) ctx.engine.abort(j.request, j.replica);
    throw e;
  }
}

export function handleOpenAi(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, raw: unknown, chat: boolean): void {
  const params = readOpenAiBody(ctx, raw, chat);
  const failure = ctx.drawFailure();
  if (failure === 'http-500') throw simulatedServerError();
  // The runner's TTFT-floor probe (runner/ttft-floor.ts) asks by header for this request's modelled times: its
  // chunks carry autobench_sim_time and the response header its modelled arrival (no request body field is added).
  const timing = req.headers['x-autobench-sim-timing'] === '1';
  const reply = new OpenAiReply(ctx, res, params, chat, timing);
  submitAll(ctx, res, params, reply, failure === 'cut');
  abortOnClose(ctx, res, reply.jobs);
  if (params.stream) {
    const rid = req.headers['x-request-id'];
    const r0 = reply.jobs[0]?.request;
    // A P/D decode worker's request arrives (modelled) when its KV lands; its TTFT counts from when it came in.
    const arrival: Record<string, string> = timing && r0 ? { 'x-autobench-sim-arrival': String(Number.isFinite(r0.receivedAt) ? r0.receivedAt : r0.arrivalAt) } : {};
    res.writeHead(200, baseHeaders({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...(typeof rid === 'string' ? { 'x-request-id': rid } : {}), ...arrival }));
    // Send headers now: clients time the first byte from here.
    res.flushHeaders();
  }
}
