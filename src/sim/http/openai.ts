// POST /v1/completions and /v1/chat/completions: OpenAI-shaped responses, streamed (SSE) or whole, with
// include_usage / continuous_usage_stats, max_tokens / max_completion_tokens, ignore_eos and min_tokens.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FinishReason, SimRequest } from '../request';
import { outputText } from '../tokens';
import { HttpError, SseWriter, baseHeaders, isObject, sendJson } from './io';
import {
  abortOnClose,
  chatPromptIds,
  completionPrompts,
  fitContext,
  optBool,
  optInt,
  optNumber,
  requireObject,
  simTiming,
  submit,
  usageJson,
  type Job,
  type ServerContext,
} from './jobs';

interface Choice {
  index: number;
  promptLen: number;
  generated: number;
  finish: FinishReason | null;
  /** Precomputed chunk text around the token text. */
  head: string;
  tail: string;
  roleSent: boolean;
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

export function handleOpenAi(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, raw: unknown, chat: boolean): void {
  const body = requireObject(raw);
  const model = modelFor(ctx, body);
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
  const prompts = chat ? [chatPromptIds(body.messages)] : completionPrompts(body.prompt);
  if (chat && stream && prompts.length !== 1) throw new HttpError(400, 'one conversation per request.');
  // max_completion_tokens is the newer name; chat defaults to the rest of the context, completions to 16.
  const field = chat && body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
  const requested = optInt(body, field, 1) ?? (chat ? undefined : 16);
  const ignoreEos = optBool(body, 'ignore_eos') ?? false;
  const minTokens = optInt(body, 'min_tokens', 0) ?? 0;
  const temperature = optNumber(body, 'temperature');
  const seed = optInt(body, 'seed', Number.MIN_SAFE_INTEGER);
  const budgets = prompts.map((p) => fitContext(ctx, p.length, requested, field));

  const id = ctx.nextId(chat ? 'chatcmpl-' : 'cmpl-');
  const created = Math.floor(Date.now() / 1000);
  const idJ = JSON.stringify(id);
  const modelJ = JSON.stringify(model);
  const cacheReport = ctx.config.settings.cacheReport;
  const choices: Choice[] = prompts.map((p, index) => ({
    index,
    promptLen: p.length,
    generated: 0,
    finish: null,
    head: chat
      ? `data: {"id":${idJ},"object":"chat.completion.chunk","created":${created},"model":${modelJ},"choices":[{"index":${index},"delta":{"content":"`
      : `data: {"id":${idJ},"object":"text_completion","created":${created},"model":${modelJ},"choices":[{"index":${index},"text":"`,
    tail: '',
    roleSent: false,
  }));
  const jobs: Job[] = [];
  const out = new SseWriter(res);
  let open = choices.length;
  let failed = false;
  const usageFor = (c: Choice, r: SimRequest): string => usageJson(c.promptLen, c.generated, cacheReport ? r.cachedTokens : undefined);
  const debugTiming = ctx.config.options.debugTiming;
  const tailFor = (c: Choice, r: SimRequest, finish: FinishReason | null, at: number): string => {
    const f = finish ? `"${finish}"` : 'null';
    let usage = continuous ? `,"usage":${usageFor(c, r)}` : includeUsage ? ',"usage":null' : '';
    // Benchmarks of the simulator itself compare arrival times with the modelled step times.
    if (debugTiming) usage += `,"autobench_sim_time":${at.toFixed(6)}`;
    return chat ? `"},"logprobs":null,"finish_reason":${f}}]${usage}}\n\n` : `","logprobs":null,"finish_reason":${f},"stop_reason":null}]${usage}}\n\n`;
  };

  const finishStream = (): void => {
    if (includeUsage) {
      let p = 0;
      let c = 0;
      let cached = 0;
      for (const [i, ch] of choices.entries()) {
        p += ch.promptLen;
        c += ch.generated;
        cached += jobs[i]?.request.cachedTokens ?? 0;
      }
      const usage = usageJson(p, c, cacheReport ? cached : undefined);
      out.write(`data: {"id":${idJ},"object":"${chat ? 'chat.completion.chunk' : 'text_completion'}","created":${created},"model":${modelJ},"choices":[],"usage":${usage}}\n\n`);
    }
    out.end('data: [DONE]\n\n');
  };

  const onTokens = (c: Choice, r: SimRequest, from: number, count: number, finish: FinishReason | null, at: number): void => {
    c.generated = from + count;
    if (finish) c.finish = finish;
    if (!stream) {
      if (finish && --open === 0) respondWhole();
      return;
    }
    if (chat && !c.roleSent) {
      c.roleSent = true;
      out.write(
        `data: {"id":${idJ},"object":"chat.completion.chunk","created":${created},"model":${modelJ},"choices":[{"index":${c.index},"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${includeUsage && !continuous ? ',"usage":null' : continuous ? `,"usage":${usageJson(c.promptLen, 0, cacheReport ? r.cachedTokens : undefined)}` : ''}}\n\n`,
      );
    }
    const separate = chat && ctx.dialect.separateFinishChunk;
    if (count > 0 || !separate) out.write(c.head + outputText(r.seed, from, count) + tailFor(c, r, separate ? null : finish, at));
    if (finish && separate) {
      const usage = continuous ? `,"usage":${usageFor(c, r)}` : includeUsage ? ',"usage":null' : '';
      out.write(
        `data: {"id":${idJ},"object":"chat.completion.chunk","created":${created},"model":${modelJ},"choices":[{"index":${c.index},"delta":{},"logprobs":null,"finish_reason":"${finish}"}]${usage}}\n\n`,
      );
    }
    if (finish && --open === 0) finishStream();
  };

  const respondWhole = (): void => {
    let p = 0;
    let g = 0;
    let cached = 0;
    const out = choices.map((c, i) => {
      const r = (jobs[i] as Job).request;
      p += c.promptLen;
      g += c.generated;
      cached += r.cachedTokens;
      const text = outputText(r.seed, 0, c.generated);
      const choice = chat
        ? { index: c.index, message: { role: 'assistant', content: text, reasoning_content: null, tool_calls: [] }, logprobs: null, finish_reason: c.finish, stop_reason: null }
        : { index: c.index, text, logprobs: null, finish_reason: c.finish, stop_reason: null, prompt_logprobs: null };
      return debugTiming ? { ...choice, autobench_sim_timing: simTiming(r) } : choice;
    });
    const usage = JSON.parse(usageJson(p, g, cacheReport ? cached : undefined)) as object;
    sendJson(res, 200, { id, object: chat ? 'chat.completion' : 'text_completion', created, model, choices: out, usage });
  };

  const vary = seed === undefined && (temperature === undefined || temperature > 0);
  try {
    for (const [i, ids] of prompts.entries()) {
      const c = choices[i] as Choice;
      jobs.push(
        submit(ctx, { promptIds: ids, maxNew: budgets[i] as number, ignoreEos, minTokens, seed, vary }, {
          tokens: (r, from, count, finish, at) => {
            if (!failed) onTokens(c, r, from, count, finish, at);
          },
          failed: () => {
            failed = true;
            res.destroy();
          },
        }),
      );
    }
  } catch (e) {
    // A batch refused partway: the prompts already queued must not run for nobody.
    for (const j of jobs) ctx.engine.abort(j.request, j.replica);
    throw e;
  }
  abortOnClose(ctx, res, jobs);
  if (stream) {
    const rid = req.headers['x-request-id'];
    res.writeHead(200, baseHeaders({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...(typeof rid === 'string' ? { 'x-request-id': rid } : {}) }));
    // Send headers now: clients time the first byte from here.
    res.flushHeaders();
  }
}
