// Cache-reset routes as the real engines answer them: SGLang /flush_cache refuses (400) while anything runs or waits,
// or can wait up to ?timeout=S for idle; vLLM POST /reset_prefix_cache always answers 200 and says in its log
// whether it reset.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimEngine } from '../engine';
import type { LogLevel, LogSource } from '../logfmt';
import { sendText } from './io';

export interface FlushHost {
  engine: SimEngine;
  /** Requests running and waiting as the engine's scheduler sees them, counting its last idle iteration; undefined when idle. */
  pending(): { running: number; waiting: number } | undefined;
  log(level: LogLevel, msg: string, source?: LogSource): void;
}

/** The success text (sgl-project/sglang · python/sglang/srt/entrypoints/http_server.py @0025436e and later). */
export const SGLANG_FLUSHED =
  'Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n';

const POLL_MS = 10;
const MAX_TIMEOUT_S = 600;

function timeoutOf(url: string): number | 'bad' {
  const q = url.indexOf('?');
  if (q < 0) return 0;
  const raw = new URLSearchParams(url.slice(q + 1)).get('timeout');
  if (raw === null) return 0;
  const v = Number(raw);
  // FastAPI: `timeout: float = Query(0.0, ge=0.0)`.
  return raw.trim() === '' || !Number.isFinite(v) || v < 0 ? 'bad' : Math.min(v, MAX_TIMEOUT_S);
}

/**
 * SGLang: `flush_cache(timeout: float = Query(0.0, ge=0.0))` → tokenizer_manager.flush_cache(timeout_s) →
 * the scheduler flushes only when fully idle; otherwise it logs "Cache not flushed because there are pending
 * requests. #queue-req: N, #running-req: M" and the route answers 400 with that message (newer versions) — the
 * scheduler's text is from sgl-project/sglang · python/sglang/srt/managers/scheduler.py (text-search hit).
 */
export async function sglangFlush(h: FlushHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const timeout = timeoutOf(req.url ?? '');
  if (timeout === 'bad') {
    const detail = [{ type: 'greater_than_equal', loc: ['query', 'timeout'], msg: 'Input should be greater than or equal to 0' }];
    res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ detail }));
    return;
  }
  const deadline = performance.now() + timeout * 1000;
  let busy = h.pending();
  while (busy && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    busy = h.pending();
  }
  if (busy) {
    const msg = `Cache not flushed because there are pending requests. #queue-req: ${busy.waiting}, #running-req: ${busy.running}`;
    h.log('WARNING', msg, 'engine');
    sendText(res, 400, `${msg}\n`);
    return;
  }
  h.engine.flushCache();
  h.log('INFO', 'Cache flushed successfully!', 'engine');
  sendText(res, 200, SGLANG_FLUSHED);
}

/**
 * vLLM (dev mode): vllm-project/vllm · vllm/entrypoints/serve/cache/api_router.py @09cb327f returns 200 without
 * checking the result; the engine's block pool refuses while requests hold blocks
 * (vllm/v1/core/block_pool.py @002f3491: "Failed to reset prefix cache because some blocks (%d) are not freed yet",
 * a WARNING, else INFO "Successfully reset prefix cache"), logged by the engine-core process.
 */
export function vllmResetPrefixCache(h: FlushHost, res: ServerResponse): void {
  const used = h.engine.stats().kvBlocksUsed;
  if (used > 0) h.log('WARNING', `Failed to reset prefix cache because some blocks (${used}) are not freed yet`, 'engine');
  else {
    h.engine.flushCache();
    h.log('INFO', 'Successfully reset prefix cache', 'engine');
  }
  sendText(res, 200, '');
}
