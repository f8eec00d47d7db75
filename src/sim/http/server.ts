// The simulated server's HTTP front: routes of the framework's API (cache flushes where the real server has
// one), API-key check, simulated-engine markers on every response, /metrics, and the crash fault (connections
// dropped as if the process died).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ResolvedSim } from '../config';
import type { SimEngine } from '../engine';
import { requestFailure } from '../noise';
import { pieceId, tokenPieces, tokenize, WORDS } from '../tokens';
import { handleGenerate } from './native';
import { HttpError, readJson, sendError, sendJson, sendText } from './io';
import { chatPromptIds, submit, type ServerContext } from './jobs';
import { handleOpenAi } from './openai';

export interface HttpHooks {
  /** Called once per accepted generation request. */
  accepted(): void;
}

/** vLLM's development endpoints (POST /reset_prefix_cache among them) exist only with VLLM_SERVER_DEV_MODE set. */
export function vllmDevMode(env: NodeJS.ProcessEnv): boolean {
  const n = Number.parseInt(env.VLLM_SERVER_DEV_MODE ?? '0', 10);
  return Number.isFinite(n) && n !== 0;
}

const MAX_REMEMBERED = 200_000;

export class SimHttp {
  readonly server: Server;
  readonly ctx: ServerContext;
  private counter = 0;
  /** Generation requests seen, numbering the error-rate fault's draws. */
  private generations = 0;
  private readonly devMode: boolean;
  private readonly pieces = new Map<number, string>();
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(
    readonly config: ResolvedSim,
    readonly engine: SimEngine,
    hooks: HttpHooks,
    /** The server process's environment (VLLM_SERVER_DEV_MODE). */
    env: NodeJS.ProcessEnv = {},
  ) {
    const idBase = (config.options.seed >>> 0).toString(16);
    this.devMode = config.framework.key === 'vllm' && vllmDevMode(env);
    for (const w of WORDS) this.pieces.set(pieceId(w), w);
    this.ctx = {
      config,
      engine,
      dialect: config.framework.api,
      accepted: () => hooks.accepted(),
      nextId: (prefix) => `${prefix}sim${idBase}-${(++this.counter).toString(16).padStart(8, '0')}`,
      drawFailure: () => requestFailure(config.launch.stream, this.generations++, config.options.errorRate),
      // By default every framework reports cached prompt tokens, so a client can measure cache hits anywhere.
      cacheReport: config.options.cacheReport === 'always' || config.settings.cacheReport,
      rememberPieces: (text) => {
        for (const p of tokenPieces(text)) {
          if (this.pieces.size >= MAX_REMEMBERED) return;
          this.pieces.set(pieceId(p), p);
        }
      },
    };
    this.server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      this.route(req, res).catch((e: unknown) => this.fail(res, e));
    });
  }

  private fail(res: ServerResponse, e: unknown): void {
    if (e instanceof HttpError) sendError(res, this.ctx.dialect, e.status, e.message, e.param);
    else sendError(res, this.ctx.dialect, 500, `internal error in the simulator: ${(e as Error)?.message ?? String(e)}`);
  }

  private authorized(req: IncomingMessage): boolean {
    const keys = this.config.settings.apiKeys;
    if (keys.length === 0) return true;
    const h = req.headers.authorization ?? '';
    return keys.some((k) => h === `Bearer ${k}`);
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    const method = req.method ?? 'GET';
    const api = this.ctx.dialect;
    const post = async (fn: (body: unknown) => Promise<void> | void): Promise<void> => {
      if (method !== 'POST') return this.notAllowed(res);
      if ((path.startsWith('/v1/') || path === '/generate') && !this.authorized(req)) {
        sendJson(res, 401, { error: 'Unauthorized' });
        return;
      }
      await fn(await readJson(req));
    };
    switch (path) {
      case '/health':
        return sendText(res, 200, '');
      case '/v1/models':
        if (!this.authorized(req)) return sendJson(res, 401, { error: 'Unauthorized' });
        return sendJson(res, 200, this.models());
      case '/v1/completions':
        return post((b) => handleOpenAi(this.ctx, req, res, b, false));
      case '/v1/chat/completions':
        return post((b) => handleOpenAi(this.ctx, req, res, b, true));
      case '/metrics':
        return sendText(res, 200, this.metrics(), 'text/plain; version=0.0.4; charset=utf-8');
      default:
        break;
    }
    if (api.sglangRoutes) {
      switch (path) {
        case '/generate':
          return post((b) => handleGenerate(this.ctx, req, res, b));
        case '/health_generate':
          return this.healthGenerate(res);
        case '/flush_cache':
          // SGLang registers it for GET and POST.
          if (method !== 'GET' && method !== 'POST') return this.notAllowed(res);
          this.engine.flushCache();
          return sendText(res, 200, 'Cache flushed.\n');
        case '/get_model_info':
        case '/model_info':
          return sendJson(res, 200, { model_path: this.config.settings.model, tokenizer_path: this.config.settings.model, is_generation: true, simulated: true });
        case '/get_server_info':
        case '/server_info':
          return sendJson(res, 200, this.serverInfo());
        default:
          break;
      }
    }
    if (api.versionRoute && path === '/version') return sendJson(res, 200, { version: this.config.framework.version });
    if (api.vllmRoutes) {
      switch (path) {
        case '/tokenize':
          return post((b) => this.tokenizeRoute(res, b));
        case '/detokenize':
          return post((b) => this.detokenizeRoute(res, b));
        default:
          break;
      }
      if (this.devMode && path === '/reset_prefix_cache') {
        return post(() => {
          this.engine.flushCache();
          sendText(res, 200, '');
        });
      }
    }
    sendJson(res, 404, { detail: 'Not Found' });
  }

  private notAllowed(res: ServerResponse): void {
    sendJson(res, 405, { detail: 'Method Not Allowed' });
  }

  private models(): object {
    const c = this.config;
    return {
      object: 'list',
      data: c.settings.servedNames.map((id) => ({
        id,
        object: 'model',
        created: this.created,
        owned_by: 'autobench-sim',
        root: c.settings.model,
        parent: null,
        max_model_len: c.contextLimit,
        simulated: true,
        simulation: this.description(),
      })),
    };
  }

  /** What is being simulated, for /v1/models and /server_info. */
  description(): object {
    const c = this.config;
    return {
      framework: c.framework.key,
      gpu: c.gpu.name,
      gpu_auto: c.gpuAuto,
      gpus: c.gpus,
      model_profile: c.model.id,
      model_profile_estimated: c.model.estimated === true,
      kv_cache_tokens: c.kvTokens,
      replicas: c.engine.replicas,
      speed: c.options.speed,
      seed: c.options.seed,
      launch_salt: c.launch.salt,
      noise_sigma: c.launch.sigma,
      step_cost_factor: c.launch.stepCostFactor,
      error_rate: c.options.errorRate,
      fault: c.options.fault ?? null,
    };
  }

  private serverInfo(): object {
    const c = this.config;
    const s = c.settings;
    return {
      model_path: s.model,
      served_model_name: s.servedNames[0],
      tp_size: s.tp,
      dp_size: s.dp,
      context_length: c.contextLimit,
      max_total_num_tokens: c.kvTokens,
      max_running_requests: c.engine.policy.maxRunning,
      chunked_prefill_size: Number.isFinite(c.engine.policy.chunkSize) ? c.engine.policy.chunkSize : -1,
      disable_radix_cache: !s.prefixCaching,
      version: c.framework.version,
      simulated: true,
      simulation: this.description(),
    };
  }

  private healthGenerate(res: ServerResponse): void {
    let done = false;
    const reply = (ok: boolean): void => {
      if (done) return;
      done = true;
      if (ok) sendText(res, 200, '');
      else sendError(res, this.ctx.dialect, 503, 'The simulated engine is not serving.');
    };
    try {
      submit(this.ctx, { promptIds: tokenize('health check'), maxNew: 1, ignoreEos: true, minTokens: 0, vary: false }, {
        tokens: (_r, _f, _c, finish) => {
          if (finish) reply(true);
        },
        failed: () => reply(false),
      });
    } catch {
      reply(false);
    }
  }

  private tokenizeRoute(res: ServerResponse, body: unknown): void {
    const b = (body ?? {}) as Record<string, unknown>;
    let ids: number[];
    if (typeof b.prompt === 'string') {
      this.ctx.rememberPieces(b.prompt);
      ids = tokenize(b.prompt);
    } else if (b.messages !== undefined) ids = chatPromptIds(b.messages);
    else throw new HttpError(400, 'prompt or messages is required.', 'prompt');
    sendJson(res, 200, { count: ids.length, max_model_len: this.config.contextLimit, tokens: ids, token_strs: null });
  }

  private detokenizeRoute(res: ServerResponse, body: unknown): void {
    const b = (body ?? {}) as Record<string, unknown>;
    if (!Array.isArray(b.tokens)) throw new HttpError(400, 'tokens must be a list of token ids.', 'tokens');
    let text = '';
    for (const t of b.tokens) if (typeof t === 'number') text += this.pieces.get(t >>> 0) ?? '';
    sendJson(res, 200, { prompt: text });
  }

  private metrics(): string {
    const s = this.engine.stats();
    const p = this.ctx.dialect.metricsPrefix;
    const lines = [
      '# HELP autobench_sim_simulated 1 when this server is the autobench simulated engine.',
      '# TYPE autobench_sim_simulated gauge',
      'autobench_sim_simulated 1',
      '# HELP autobench_sim_step_cost_factor Modelled step time multiplier of this launch (--sim-noise).',
      '# TYPE autobench_sim_step_cost_factor gauge',
      `autobench_sim_step_cost_factor ${this.config.launch.stepCostFactor}`,
      `${p}num_requests_running ${s.running}`,
      `${p}num_requests_waiting ${s.waiting}`,
      `${p}kv_cache_usage_perc ${s.kvUsage.toFixed(6)}`,
      `${p}prompt_tokens_total ${s.promptTokens}`,
      `${p}generation_tokens_total ${s.generatedTokens}`,
      `${p}prefix_cache_hit_tokens_total ${s.cachedTokens}`,
      `${p}num_preemptions_total ${s.preemptions}`,
      `${p}request_success_total ${s.finished}`,
    ];
    return `${lines.join('\n')}\n`;
  }

  /** The crash fault: every open connection is cut, as when the server process dies. */
  cutConnections(): void {
    this.server.closeAllConnections();
  }
}
