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
 * Polls GET /v1/models once a second until it answers 200 or `timeoutS` passes (0: one try).
 * Returns the first model id the server lists (undefined when it lists none). With `failFast` (nobody is
 * starting the server for us) a refused connection or an unknown host ends the wait at once.
 */
export async function waitReady(pool: Dispatcher, basePath: string, headers: Record<string, string>, timeoutS: number, signal?: AbortSignal, failFast = false): Promise<string | undefined> {
  const deadline = performance.now() + timeoutS * 1000;
  let last = '';
  for (;;) {
    if (signal?.aborted) throw new Error('aborted');
    try {
      const r = await simpleRequest(pool, 'GET', `${basePath}/v1/models`, headers, 5000);
      if (r.status === 200) return firstModel(r.body);
      last = `HTTP ${r.status}: ${r.body.slice(0, 200)}`;
    } catch (e) {
      last = `${(e as Error).message}`;
      const unreachable = failFast ? unreachableReason(e) : undefined;
      if (unreachable) throw new BenchSetupError('unreachable', `cannot reach the server: ${unreachable} (GET ${basePath}/v1/models: ${last})`);
    }
    if (performance.now() + 1000 > deadline) throw new BenchSetupError('not-ready', `server not ready after ${timeoutS} s (GET ${basePath}/v1/models: ${last})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** 'ok', or why not; throws when the server offers a flush and it fails (the run would measure a warm cache). */
export async function flushCache(pool: Dispatcher, basePath: string, flushPath: string, headers: Record<string, string>): Promise<string> {
  const r = await simpleRequest(pool, 'POST', `${basePath}${flushPath}`, headers, 60_000);
  if (r.status >= 200 && r.status < 300) return 'ok';
  if (r.status === 404 || r.status === 405) return `unsupported (POST ${flushPath}: HTTP ${r.status})`;
  throw new BenchSetupError('flush-failed', `cache flush failed: POST ${flushPath}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
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
