// SGLang's native POST /generate: `text` or `input_ids`, `sampling_params`, and a stream of cumulative
// `{text, meta_info}` chunks ending in `data: [DONE]`; the error-rate fault fails it as it does the OpenAI routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FinishReason, SimRequest } from '../request';
import { outputText, outputTokenId, tokenize } from '../tokens';
import { HttpError, SseWriter, baseHeaders, isObject, sendJson } from './io';
import { carriesTransferredKv } from '../pd';
import {
  abortOnClose,
  asIds,
  cutPoint,
  fitContext,
  optBool,
  optInt,
  optNumber,
  requireObject,
  simTiming,
  simulatedServerError,
  submit,
  type Job,
  type ServerContext,
} from './jobs';

/** The id SGLang reports in finish_reason.matched when generation stops at EOS (ours is arbitrary). */
const EOS_ID = 2;

interface Item {
  rid: string;
  promptLen: number;
  generated: number;
  text: string;
  finish: FinishReason | null;
  /** The error-rate fault cuts the response once this many tokens are out (Infinity: never). */
  cutAt: number;
  /** Its modelled times went out (timing header only). */
  timed?: boolean;
}

function finishInfo(it: Item): string {
  if (!it.finish) return 'null';
  if (it.finish === 'stop') return `{"type":"stop","matched":${EOS_ID}}`;
  if (it.finish === 'abort') return '{"type":"abort","message":"aborted"}';
  return `{"type":"length","length":${it.generated}}`;
}

function metaJson(it: Item, r: SimRequest, started: number, timing = false): string {
  const e2e = it.finish ? `,"e2e_latency":${((performance.now() - started) / 1000).toFixed(6)}` : '';
  // With the timing header, the first token's chunk carries the request's modelled times (as the OpenAI routes do).
  const t = timing && !it.timed ? `,"autobench_sim_timing":${JSON.stringify(simTiming(r))}` : '';
  if (timing) it.timed = true;
  return `{"id":${JSON.stringify(it.rid)},"finish_reason":${finishInfo(it)},"prompt_tokens":${it.promptLen},"completion_tokens":${it.generated},"cached_tokens":${r.cachedTokens}${e2e}${t}}`;
}

export function handleGenerate(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, raw: unknown): void {
  const body = requireObject(raw);
  let prompts: number[][];
  let batch = false;
  if (body.input_ids !== undefined && body.input_ids !== null) {
    const one = asIds(body.input_ids);
    if (one) prompts = [one];
    else if (Array.isArray(body.input_ids) && body.input_ids.every((x) => asIds(x))) {
      prompts = (body.input_ids as number[][]).map((x) => x);
      batch = true;
    } else throw new HttpError(400, 'input_ids must be a list of token ids or a list of such lists.', 'input_ids');
  } else if (typeof body.text === 'string') prompts = [tokenize(body.text)];
  else if (Array.isArray(body.text) && body.text.length > 0 && body.text.every((t) => typeof t === 'string')) {
    prompts = body.text.map((t) => tokenize(t));
    batch = true;
  } else throw new HttpError(400, 'Either text or input_ids should be provided.', 'text');

  const sp = body.sampling_params ?? {};
  if (!isObject(sp)) throw new HttpError(400, 'sampling_params must be an object.', 'sampling_params');
  const stream = optBool(body, 'stream') ?? false;
  const timing = stream && req.headers['x-autobench-sim-timing'] === '1';
  if (stream && batch) throw new HttpError(400, 'Streaming a batch of prompts is not supported by the simulated engine.');
  const requested = optInt(sp, 'max_new_tokens', 0) ?? 128;
  const ignoreEos = optBool(sp, 'ignore_eos') ?? false;
  const minTokens = optInt(sp, 'min_new_tokens', 0) ?? 0;
  const temperature = optNumber(sp, 'temperature');
  const seed = optInt(sp, 'sampling_seed', Number.MIN_SAFE_INTEGER);
  const rids: unknown[] = Array.isArray(body.rid) ? body.rid : [body.rid];
  const items: Item[] = prompts.map((p, i) => {
    const rid = rids[i];
    return { rid: typeof rid === 'string' ? rid : ctx.nextId(''), promptLen: p.length, generated: 0, text: '', finish: null, cutAt: Infinity };
  });
  const budgets = prompts.map((p) => Math.max(1, fitContext(ctx, p.length, requested, 'max_new_tokens')));
  const failure = ctx.drawFailure();
  if (failure === 'http-500') throw simulatedServerError();
  const started = performance.now();
  const jobs: Job[] = [];
  const out = new SseWriter(res);
  let open = items.length;
  let failed = false;
  let cut = false;

  const respondWhole = (): void => {
    const out = items.map((it, i) => {
      const r = (jobs[i] as Job).request;
      const ids: number[] = [];
      for (let k = 0; k < it.generated; k++) ids.push(outputTokenId(r.seed, k));
      return {
        text: outputText(r.seed, 0, it.generated),
        output_ids: ids,
        meta_info: {
          ...(JSON.parse(metaJson(it, r, started)) as object),
          ...(ctx.config.options.debugTiming || req.headers['x-autobench-sim-timing'] === '1' ? { autobench_sim_timing: simTiming(r) } : {}),
        },
      };
    });
    sendJson(res, 200, batch ? out : (out[0] as object));
  };

  const onTokens = (it: Item, r: SimRequest, from: number, count: number, finish: FinishReason | null): void => {
    if (cut) return;
    it.generated = from + count;
    if (it.generated >= it.cutAt || (finish && Number.isFinite(it.cutAt))) {
      // The error-rate fault: what is out so far, without a finish, then the connection drops (no [DONE]).
      cut = true;
      if (!stream) {
        res.destroy();
        return;
      }
      it.text += outputText(r.seed, from, count);
      out.write(`data: {"text":"${it.text}","meta_info":${metaJson(it, r, started)}}\n\n`);
      out.cut();
      return;
    }
    if (finish) it.finish = finish;
    if (stream) {
      // Each chunk carries the whole text so far, as SGLang's native stream does.
      it.text += outputText(r.seed, from, count);
      out.write(`data: {"text":"${it.text}","meta_info":${metaJson(it, r, started, timing)}}\n\n`);
      if (finish) out.end('data: [DONE]\n\n');
      return;
    }
    if (finish && --open === 0) respondWhole();
  };

  const vary = seed === undefined && (temperature === undefined || temperature > 0);
  const kvTransfer = carriesTransferredKv(ctx.config.settings.pd, body);
  try {
    for (const [i, ids] of prompts.entries()) {
      const it = items[i] as Item;
      jobs.push(
        submit(ctx, { promptIds: ids, maxNew: budgets[i] as number, ignoreEos, minTokens, seed, vary, kvTransfer }, {
          tokens: (r, from, count, finish) => {
            if (!failed) onTokens(it, r, from, count, finish);
          },
          failed: () => {
            failed = true;
            res.destroy();
          },
        }),
      );
      if (failure === 'cut') it.cutAt = cutPoint((jobs[i] as Job).request);
    }
  } catch (e) {
    for (const j of jobs) ctx.engine.abort(j.request, j.replica);
    throw e;
  }
  abortOnClose(ctx, res, jobs);
  if (stream) {
    res.writeHead(200, baseHeaders({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }));
    res.flushHeaders();
  }
}
