// TokenSpeed's HTTP front is the smg gateway (Rust, axum) in front of a gRPC engine: its route table, its public /
// protected / admin split for the API key, /readiness that waits for the worker to register, /v1/models that lists
// nothing until then, and /flush_cache that reaches gRPC workers only from smg 1.5.0.
// Source: lightseekorg/smg · model_gateway/src/server.rs @0061eead (build_app: protected_routes, public_routes,
// admin_routes; readiness() → 503 {"status":"not ready","reason":"insufficient healthy workers"}; fallback
// sink_handler → 404), crates/protocols/src/worker.rs (FlushCacheResult::into_response: 200, 206 on a failure),
// and the history of that file (v1.4.x: "No HTTP workers available for cache flush"; v1.5.0+: total_grpc_workers).
import { versionAtLeast } from '../engine-version';
import { sendJson, sendText } from './io';
import type { SimOptions } from '../options';
import type { RouteCall, RouteHost } from './route-host';

/** Public: no API key asked (server.rs public_routes). */
const PUBLIC = new Set(['/liveness', '/readiness', '/health', '/health_generate', '/engine_metrics', '/v1/models', '/get_model_info', '/get_server_info']);

/** The smg release the simulator models unless --sim-gateway-version says otherwise (the audit read server.rs @0061eead, 2026-04). */
export const DEFAULT_GATEWAY_VERSION = '1.4.1';

export function gatewayVersion(o: Pick<SimOptions, 'gatewayVersion'>): string {
  return o.gatewayVersion ?? DEFAULT_GATEWAY_VERSION;
}

/** Streamed /v1/completions chunks carry `usage` from smg 1.4.0 (crates/protocols/src/completion.rs, PR #978). */
export function gatewayStreamsCompletionUsage(version: string): boolean {
  return versionAtLeast(version, '1.4.0');
}

function empty(c: RouteCall, status: number): void {
  c.res.writeHead(status, { 'content-length': '0' }).end();
}

function flushCache(h: RouteHost, c: RouteCall): void {
  const workers = h.workerRegistered() ? 1 : 0;
  if (!versionAtLeast(gatewayVersion(h.config.options), '1.5.0')) {
    // Only HTTP workers were asked; TokenSpeed's engine is a gRPC worker, so nothing is flushed.
    sendJson(c.res, 200, { status: 'success', message: 'No HTTP workers available for cache flush', workers_flushed: 0, total_http_workers: 0, total_workers: workers });
    return;
  }
  const base = { total_http_workers: 0, total_grpc_workers: workers, total_zmq_workers_skipped: 0, total_workers: workers };
  const busy = h.pending();
  if (workers === 0) {
    sendJson(c.res, 200, { status: 'success', message: 'No workers available for cache flush', workers_flushed: 0, ...base });
  } else if (busy) {
    const worker = `grpc://127.0.0.1:${h.config.settings.port}`;
    const error = `Cache not flushed because there are pending requests. #queue-req: ${busy.waiting}, #running-req: ${busy.running}`;
    sendJson(c.res, 206, { status: 'partial_success', message: 'Cache flush: 0 succeeded, 1 failed', workers_flushed: 0, ...base, successful: [], failed: [{ worker, error }] });
  } else {
    h.engine.flushCache();
    sendJson(c.res, 200, { status: 'success', message: 'Successfully flushed cache on all 1 workers', workers_flushed: 1, ...base });
  }
}

/** The gateway's routes; true when `c` was answered. */
export async function gatewayRoutes(h: RouteHost, c: RouteCall): Promise<boolean> {
  const { path, method, res } = c;
  if (!PUBLIC.has(path) && !h.authorized(c.req)) {
    if (KNOWN.has(path)) {
      sendJson(res, 401, { error: 'Unauthorized' });
      return true;
    }
  }
  const registered = h.workerRegistered();
  const get = (fn: () => void): boolean => (method === 'GET' ? (fn(), true) : (empty(c, 405), true));
  switch (path) {
    case '/liveness':
    case '/health':
      return get(() => sendText(res, 200, 'OK'));
    case '/readiness':
      return get(() =>
        registered
          ? sendJson(res, 200, { status: 'ready', healthy_workers: 1, total_workers: 1 })
          : sendJson(res, 503, { status: 'not ready', reason: 'insufficient healthy workers' }),
      );
    case '/health_generate':
      return get(() => (registered ? h.healthGenerate(res) : sendText(res, 503, 'No workers registered')));
    case '/v1/models':
      // Workers register in the background after the gateway listens: until then the list is empty.
      return get(() => sendJson(res, 200, registered ? h.models() : { object: 'list', data: [] }));
    case '/get_model_info':
      return get(() => sendJson(res, 200, h.modelInfo()));
    case '/get_server_info':
      return get(() => sendJson(res, 200, h.serverInfo()));
    case '/get_loads':
      return get(() => sendJson(res, 200, { workers: registered ? [{ worker: `grpc://127.0.0.1:${h.config.settings.port}`, load: h.pending()?.running ?? 0 }] : [] }));
    case '/flush_cache':
      if (method !== 'POST') empty(c, 405);
      else flushCache(h, c);
      return true;
    case '/v1/completions':
    case '/v1/chat/completions':
    case '/generate':
      if (method !== 'POST') empty(c, 405);
      else if (!registered) sendJson(res, 503, { error: { message: 'No available workers', type: 'ServiceUnavailableError', code: 503 } });
      else await h.generation(c, path === '/generate' ? 'native' : path === '/v1/chat/completions' ? 'chat' : 'completion');
      return true;
    default:
      // axum's fallback (sink_handler): 404 with no body. /metrics is not here: Prometheus has its own port.
      empty(c, 404);
      return true;
  }
}

const KNOWN = new Set(['/get_loads', '/flush_cache', '/v1/completions', '/v1/chat/completions', '/generate']);
