// The route tables of SGLang's, vLLM's and trtllm-serve's FastAPI servers (TokenSpeed's gateway: gateway.ts), with
// where each engine asks for the API key and which metrics endpoint it has.
// Sources: sgl-project/sglang · python/sglang/srt/entrypoints/http_server.py @0025436e (/health 503 while
// ServerStatus.Starting; /flush_cache GET+POST; /metrics mounted only with --enable-metrics; add_api_key_middleware
// exempts /health* and /metrics); vllm-project/vllm · vllm/entrypoints/openai/api_server.py @0001948b (the key
// middleware guards paths under /v1 only; /metrics always), serve/cache/api_router.py @09cb327f (/reset_prefix_cache
// only with VLLM_SERVER_DEV_MODE); NVIDIA/TensorRT-LLM · tensorrt_llm/serve/openai_server.py @00057725 (/health,
// /version, /v1/models, /metrics JSON iteration stats, /prometheus/metrics with perf metrics; no API key).
import { sglangFlush, vllmResetPrefixCache } from './flush';
import { readJson, sendJson, sendText } from './io';
import { prometheusText, trtIterationStats } from './metrics';
import type { RouteCall, RouteHost } from './route-host';

function getOnly(h: RouteHost, c: RouteCall, fn: () => void): true {
  if (c.method !== 'GET') h.notAllowed(c.res);
  else fn();
  return true;
}

function prometheus(h: RouteHost, c: RouteCall): true {
  return getOnly(h, c, () => sendText(c.res, 200, prometheusText(h.config, h.engine.stats(), h.engine.latency), 'text/plain; version=0.0.4; charset=utf-8'));
}

function unauthorized(c: RouteCall): true {
  sendJson(c.res, 401, { error: 'Unauthorized' });
  return true;
}

/** The OpenAI routes every FastAPI engine has; true when answered. */
async function openAiRoutes(h: RouteHost, c: RouteCall): Promise<boolean> {
  switch (c.path) {
    case '/v1/models':
      return getOnly(h, c, () => sendJson(c.res, 200, h.models()));
    case '/v1/completions':
      await h.generation(c, 'completion');
      return true;
    case '/v1/chat/completions':
      await h.generation(c, 'chat');
      return true;
    default:
      return false;
  }
}

export async function sglangRoutes(h: RouteHost, c: RouteCall): Promise<boolean> {
  const { path, res } = c;
  if (!path.startsWith('/health') && path !== '/metrics' && !h.authorized(c.req)) return unauthorized(c);
  if (await openAiRoutes(h, c)) return true;
  switch (path) {
    case '/health':
      // 503 until the server's own warm-up request has finished; /v1/models already answers then.
      return getOnly(h, c, () => sendText(res, h.warmedUp() ? 200 : 503, ''));
    case '/health_generate':
      return getOnly(h, c, () => (h.warmedUp() ? h.healthGenerate(res) : sendText(res, 503, '')));
    case '/generate':
      await h.generation(c, 'native');
      return true;
    case '/flush_cache':
      if (c.method !== 'GET' && c.method !== 'POST') h.notAllowed(res);
      else await sglangFlush(h, c.req, res);
      return true;
    case '/get_model_info':
    case '/model_info':
      return getOnly(h, c, () => sendJson(res, 200, h.modelInfo()));
    case '/get_server_info':
    case '/server_info':
      return getOnly(h, c, () => sendJson(res, 200, h.serverInfo()));
    case '/metrics':
      return h.config.settings.metrics ? prometheus(h, c) : false;
    default:
      return false;
  }
}

export async function vllmRoutes(h: RouteHost, c: RouteCall): Promise<boolean> {
  const { path, res } = c;
  if (path.startsWith('/v1') && !h.authorized(c.req)) return unauthorized(c);
  if (await openAiRoutes(h, c)) return true;
  const post = async (fn: (body: unknown) => void): Promise<true> => {
    if (c.method !== 'POST') h.notAllowed(res);
    else fn(await readJson(c.req));
    return true;
  };
  switch (path) {
    case '/health':
      return getOnly(h, c, () => sendText(res, 200, ''));
    case '/version':
      return getOnly(h, c, () => sendJson(res, 200, { version: h.config.options.engineVersion ?? h.config.framework.version }));
    case '/metrics':
      return prometheus(h, c);
    case '/tokenize':
      return post((b) => h.tokenizeRoute(res, b));
    case '/detokenize':
      return post((b) => h.detokenizeRoute(res, b));
    case '/reset_prefix_cache':
      return h.devMode ? post(() => vllmResetPrefixCache(h, res)) : false;
    default:
      return false;
  }
}

export async function trtRoutes(h: RouteHost, c: RouteCall): Promise<boolean> {
  const { path, res } = c;
  if (await openAiRoutes(h, c)) return true;
  switch (path) {
    case '/health':
      return getOnly(h, c, () => sendText(res, 200, ''));
    case '/version':
      return getOnly(h, c, () => sendJson(res, 200, { version: h.config.options.engineVersion ?? h.config.framework.version }));
    case '/metrics':
      return getOnly(h, c, () => sendJson(res, 200, trtIterationStats(h.engine.stats(), ++h.iterations, h.config.settings.spec ? h : undefined)));
    case '/prometheus/metrics':
      return h.config.settings.perfMetrics ? prometheus(h, c) : false;
    default:
      return false;
  }
}
