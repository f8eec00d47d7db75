// The small, untimed requests around a run: readiness and model lookup (/v1/models), cache flush, /server_info.
import type { Dispatcher } from 'undici';
import { BenchSetupError, unreachableReason } from './setup';

export interface SimpleResponse {
  status: number;
  body: string;
}

export async function simpleRequest(
  pool: Dispatcher,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SimpleResponse> {
  const res = await pool.request({ method, path, headers, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, ...(method === 'POST' ? { body: '' } : {}) });
  const body = await res.body.text();
  return { status: res.statusCode, body };
}

function firstModel(body: string): string | undefined {
  try {
    const v = JSON.parse(body) as { data?: { id?: unknown }[] };
    const id = v.data?.[0]?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Polls GET /v1/models once a second until it answers 200 listing a model or `timeoutS` passes (0: one try).
 * Returns the first model id the server lists; undefined when it answered 200 but listed none by the deadline
 * (a gateway lists its models only once a worker registered). With `failFast` (nobody is
 * starting the server for us) a refused connection or an unknown host ends the wait at once.
 */
export async function waitReady(pool: Dispatcher, basePath: string, headers: Record<string, string>, timeoutS: number, signal?: AbortSignal, failFast = false): Promise<string | undefined> {
  const deadline = performance.now() + timeoutS * 1000;
  let last = '';
  for (;;) {
    if (signal?.aborted) throw new Error('aborted');
    try {
      const r = await simpleRequest(pool, 'GET', `${basePath}/v1/models`, headers, 5000);
      if (r.status === 200) {
        const model = firstModel(r.body);
        if (model !== undefined || performance.now() + 1000 > deadline) return model;
        last = 'HTTP 200 listing no model';
      } else last = `HTTP ${r.status}: ${r.body.slice(0, 200)}`;
    } catch (e) {
      last = `${(e as Error).message}`;
      const unreachable = failFast ? unreachableReason(e) : undefined;
      if (unreachable) throw new BenchSetupError('unreachable', `cannot reach the server: ${unreachable} (GET ${basePath}/v1/models: ${last})`);
    }
    if (performance.now() + 1000 > deadline) throw new BenchSetupError('not-ready', `server not ready after ${timeoutS} s (GET ${basePath}/v1/models: ${last})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** How long a refused flush is retried (SGLang refuses while any request runs or waits, and right after). */
export const FLUSH_RETRY_MS = 30_000;

/** SGLang waits for idle up to this many seconds when asked (`?timeout=`); versions without it ignore the query. */
const SGLANG_FLUSH_WAIT_S = 30;

/** A 2xx that flushed nothing: the smg gateway's 206 (some workers failed) or its `workers_flushed: 0` (no HTTP worker: TokenSpeed's gRPC engine). */
function flushedNothing(status: number, body: string): string | undefined {
  if (status === 206) return `HTTP 206: only part of the workers flushed: ${body.slice(0, 200)}`;
  try {
    const v = JSON.parse(body) as { workers_flushed?: unknown };
    if (v && typeof v === 'object' && v.workers_flushed === 0) return `HTTP ${status} but workers_flushed is 0: ${body.slice(0, 200)}`;
  } catch {
    /* not JSON: vLLM and SGLang answer plain text or nothing */
  }
  return undefined;
}

/**
 * 'ok' when the server said it flushed; otherwise why not, as text (the run then relies on prompts never sent before).
 * SGLang's /flush_cache answers 400 while requests run or wait (sgl-project/sglang http_server.py @0025436e), also for a
 * moment after a trial's requests were aborted: the request asks it to wait (`?timeout=30`, newer versions) and a
 * refusal (400, 409, 429, 503) is retried with backoff for up to `retryMs`. Throws only when the route fails otherwise
 * (a server error).
 */
export async function flushCache(pool: Dispatcher, basePath: string, flushPath: string, headers: Record<string, string>, retryMs = FLUSH_RETRY_MS): Promise<string> {
  const path = flushPath === '/flush_cache' ? `${flushPath}?timeout=${SGLANG_FLUSH_WAIT_S}` : flushPath;
  const deadline = performance.now() + retryMs;
  let wait = 250;
  for (let tries = 1; ; tries++) {
    const r = await simpleRequest(pool, 'POST', `${basePath}${path}`, headers, 60_000 + SGLANG_FLUSH_WAIT_S * 1000);
    if (r.status >= 200 && r.status < 300) {
      const nothing = flushedNothing(r.status, r.body);
      return nothing ? `not flushed (POST ${flushPath}: ${nothing})` : 'ok';
    }
    if (r.status === 404 || r.status === 405) return `unsupported (POST ${flushPath}: HTTP ${r.status})`;
    const refused = r.status === 400 || r.status === 409 || r.status === 429 || r.status === 503;
    if (!refused) throw new BenchSetupError('flush-failed', `cache flush failed: POST ${flushPath}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    if (performance.now() + wait > deadline) return `not flushed (POST ${flushPath}: HTTP ${r.status} after ${tries} tries in ${Math.round(retryMs / 1000)} s: ${r.body.slice(0, 200)})`;
    await new Promise((res) => setTimeout(res, wait));
    wait = Math.min(4000, wait * 2);
  }
}

export async function serverInfo(pool: Dispatcher, basePath: string, headers: Record<string, string>): Promise<unknown> {
  try {
    const r = await simpleRequest(pool, 'GET', `${basePath}/server_info`, headers, 2000);
    return r.status === 200 ? (JSON.parse(r.body) as unknown) : null;
  } catch {
    return null;
  }
}

/**
 * Opens `n` keep-alive connections before the clock starts (n concurrent GET /v1/models), so the first
 * wave's TTFT is the server's, not our TCP handshakes'. Failures only mean fewer warm connections.
 */
export async function preconnect(pool: Dispatcher, basePath: string, headers: Record<string, string>, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, () => simpleRequest(pool, 'GET', `${basePath}/v1/models`, headers, 10_000).catch(() => undefined)));
}
