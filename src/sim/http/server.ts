// The simulated server's HTTP front: each engine's route table (routes.ts, gateway.ts), the API-key check, the
// engine's readiness (SGLang's warm-up, the TokenSpeed gateway's worker registration), what the scheduler counts as
// busy for cache resets, simulated-engine markers on every response, and the crash fault (connections dropped as
// if the process died).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { sendTtfts, TIMING_HEADER, TTFTS_PATH } from './ttft-report';
import { ENERGY_PATH, modelledJoules, sendEnergy } from '../power';
import type { ResolvedSim } from '../config';
import type { SimEngine } from '../engine';
import { simEngineVersion, versionAtLeast } from '../engine-version';
import type { LogLevel, LogSource } from '../logfmt';
import { requestFailure } from '../noise';
import { pieceId, tokenPieces, tokenize, WORDS } from '../tokens';
import type { GenerationKind, RouteCall, RouteHost } from './route-host';
import type { SpecTotals } from './metrics';
import { gatewayRoutes, gatewayStreamsCompletionUsage, gatewayVersion } from './gateway';
import { handleGenerate } from './native';
import { HttpError, isObject, readJson, sendError, sendJson, sendText } from './io';
import { chatPromptIds, submit, type ServerContext } from './jobs';
import { handleOpenAi } from './openai';
import { sglangRoutes, trtRoutes, vllmRoutes } from './routes';

export interface HttpHooks {
  /** Called once per accepted generation request. */
  accepted(): void;
  /** Receives a log line's level, text and printing process; the caller shapes it (logfmt.ts). */
  log?(level: LogLevel, msg: string, source?: LogSource): void;
}

/** vLLM's development endpoints (POST /reset_prefix_cache among them) exist only with VLLM_SERVER_DEV_MODE set. */
export function vllmDevMode(env: NodeJS.ProcessEnv): boolean {
  const n = Number.parseInt(env.VLLM_SERVER_DEV_MODE ?? '0', 10);
  return Number.isFinite(n) && n !== 0;
}


const MAX_REMEMBERED = 200_000;
/**
 * Wall ms after the last response ended that the scheduler still counts as busy: SGLang's is_fully_idle() also
 * looks at the last batch and the result queue, so a flush sent right after the last chunk can still be refused.
 */
export const IDLE_GRACE_MS = 30;

const ROUTES = { sglang: sglangRoutes, vllm: vllmRoutes, trtllm: trtRoutes, gateway: gatewayRoutes } as const;

export class SimHttp implements RouteHost {
  readonly server: Server;
  readonly ctx: ServerContext;
  readonly devMode: boolean;
  /** The engine release this server answers as (--sim-version). */
  readonly version: string;
  private counter = 0;
  /** Generation requests seen, numbering the error-rate fault's draws. */
  private generations = 0;
  /** Generation responses not yet ended, and when the last one ended. */
  private active = 0;
  private lastEnd = -Infinity;
  /** When SGLang's warm-up request is done / the gateway's worker registers (wall ms; Infinity before listening). */
  private readyAt = Infinity;
  /** /metrics calls on trtllm-serve (its iteration counter). */
  iterations = 0;
  specPolled: SpecTotals = { drafts: 0, draftTokens: 0, accepted: 0 };
  private readonly pieces = new Map<number, string>();
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly hooks: HttpHooks;

  constructor(
    readonly config: ResolvedSim,
    readonly engine: SimEngine,
    hooks: HttpHooks,
    /** The server process's environment (VLLM_SERVER_DEV_MODE). */
    env: NodeJS.ProcessEnv = {},
  ) {
    const idBase = (config.options.seed >>> 0).toString(16);
    const fw = config.framework.key;
    this.devMode = fw === 'vllm' && vllmDevMode(env);
    this.version = simEngineVersion(fw, config.options);
    this.hooks = hooks;
    for (const w of WORDS) this.pieces.set(pieceId(w), w);
    this.ctx = {
      config,
      engine,
      dialect: config.framework.api,
      accepted: () => hooks.accepted(),
      nextId: (prefix) => `${prefix}sim${idBase}-${(++this.counter).toString(16).padStart(8, '0')}`,
      drawFailure: () => requestFailure(config.launch.stream, this.generations++, config.options.errorRate),
      // Only where the engine reports cached prompt tokens (its flag; TRT always), unless --sim-cache-report.
      cacheReport: config.options.cacheReport === 'always' || config.settings.cacheReport,
      completionStreamUsage: config.framework.api.routes !== 'gateway' || gatewayStreamsCompletionUsage(gatewayVersion(config.options)),
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

  /** The server listens: SGLang's warm-up request and the gateway's worker registration start now. */
  listening(): void {
    this.readyAt = performance.now() + this.config.options.warmupMs;
  }

  /** SGLang: its own warm-up request has finished (/health answers 200 from then on). */
  warmedUp(): boolean {
    return performance.now() >= this.readyAt;
  }

  /** TokenSpeed: the gateway has registered its gRPC worker. */
  workerRegistered(): boolean {
    return this.warmedUp();
  }

  log(level: LogLevel, msg: string, source?: LogSource): void {
    this.hooks.log?.(level, msg, source);
  }

  /** What the scheduler sees as pending work (the warm-up request, the last idle iteration included); undefined when idle. */
  pending(): { running: number; waiting: number } | undefined {
    const s = this.engine.stats();
    const warming = this.warmedUp() ? 0 : 1;
    const running = s.running + warming;
    if (running + s.waiting > 0) return { running, waiting: s.waiting };
    if (this.active > 0 || performance.now() - this.lastEnd < IDLE_GRACE_MS) return { running: Math.max(1, this.active), waiting: 0 };
    return undefined;
  }

  private fail(res: ServerResponse, e: unknown): void {
    if (e instanceof HttpError) sendError(res, this.ctx.dialect, e.status, e.message, e.param);
    else sendError(res, this.ctx.dialect, 500, `internal error in the simulator: ${(e as Error)?.message ?? String(e)}`);
  }

  authorized(req: IncomingMessage): boolean {
    const keys = this.config.settings.apiKeys;
    if (keys.length === 0) return true;
    const h = req.headers.authorization ?? '';
    return keys.some((k) => h === `Bearer ${k}`);
  }

  /** FastAPI's answers (vLLM, SGLang, trtllm-serve). */
  notFound(res: ServerResponse): void {
    sendJson(res, 404, { detail: 'Not Found' });
  }

  private energy(res: ServerResponse): void {
    const { config, engine } = this.ctx;
    const { busy, now } = engine.busyTime();
    const perReplica = config.gpus / Math.max(1, busy.length);
    // A P/D prefill worker's one sampled token per request is not output the user sees.
    const tokens = config.settings.pd?.role === 'prefill' ? 0 : engine.stats().generatedTokens;
    sendEnergy(res, { joules: modelledJoules(config.gpu.name, perReplica, busy, now), seconds: now, output_tokens: tokens, gpus: config.gpus, basis: 'modelled' });
  }

  notAllowed(res: ServerResponse): void {
    sendJson(res, 405, { detail: 'Method Not Allowed' });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const call: RouteCall = { req, res, path: q >= 0 ? url.slice(0, q) : url, method: req.method ?? 'GET' };
    // The runner's TTFT floor reads the modelled TTFTs (ttft-report.ts): only with its header, so an engine's own routes stay as they are.
    if (call.path === TTFTS_PATH && req.headers[TIMING_HEADER] === '1') return sendTtfts(this.ctx, url, res);
    // The runner's energy per output token reads the modelled counter (power.ts), under the same header.
    if (call.path === ENERGY_PATH && req.headers[TIMING_HEADER] === '1') return this.energy(res);
    if (!(await ROUTES[this.ctx.dialect.routes](this, call))) this.notFound(res);
  }

  /** A generation request: POST only, tracked for the scheduler's idleness, logged where the engine logs requests. */
  async generation(c: RouteCall, kind: GenerationKind): Promise<void> {
    if (c.method !== 'POST') return this.notAllowed(c.res);
    this.active++;
    c.res.once('close', () => {
      this.active--;
      this.lastEnd = performance.now();
    });
    const body = await readJson(c.req);
    if (this.logsRequests()) this.logRequest(body, kind);
    if (kind === 'native') return handleGenerate(this.ctx, c.req, c.res, body);
    return handleOpenAi(this.ctx, c.req, c.res, body, kind === 'chat');
  }

  /** vLLM logs every request before 0.10.1 (then only with --enable-log-requests). */
  private logsRequests(): boolean {
    return this.config.framework.key === 'vllm' && (this.config.settings.logRequests || !versionAtLeast(this.version, '0.10.1'));
  }

  /** vLLM's request log line: `Received request <id>: prompt: '<prompt>', params: …` (the prompt in full, %r-quoted). */
  private logRequest(body: unknown, kind: GenerationKind): void {
    const b = isObject(body) ? body : {};
    const prompt = kind === 'chat' && Array.isArray(b.messages) ? b.messages.map((m) => (isObject(m) && typeof m.content === 'string' ? m.content : '')).join('\n') : b.prompt;
    const text = typeof prompt === 'string' ? prompt : JSON.stringify(prompt ?? '');
    const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-sim${(this.counter + 1).toString(16)}`;
    this.log('INFO', `Received request ${id}: prompt: '${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}', params: SamplingParams(n=1, max_tokens=${JSON.stringify(b.max_tokens ?? b.max_completion_tokens ?? null)}, ignore_eos=${b.ignore_eos === true ? 'True' : 'False'}), prompt_token_ids: None, lora_request: None.`);
  }

  /** /v1/models: the served names (an empty list is the gateway's, before its worker registers). */
  models(): object {
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
      engine_version: this.version,
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

  modelInfo(): object {
    const s = this.config.settings;
    return { model_path: s.model, tokenizer_path: s.model, is_generation: true, simulated: true };
  }

  serverInfo(): object {
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

  healthGenerate(res: ServerResponse): void {
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

  tokenizeRoute(res: ServerResponse, body: unknown): void {
    const b = (body ?? {}) as Record<string, unknown>;
    let ids: number[];
    if (typeof b.prompt === 'string') {
      this.ctx.rememberPieces(b.prompt);
      ids = tokenize(b.prompt);
    } else if (b.messages !== undefined) ids = chatPromptIds(b.messages);
    else throw new HttpError(400, 'prompt or messages is required.', 'prompt');
    sendJson(res, 200, { count: ids.length, max_model_len: this.config.contextLimit, tokens: ids, token_strs: null });
  }

  detokenizeRoute(res: ServerResponse, body: unknown): void {
    const b = (body ?? {}) as Record<string, unknown>;
    if (!Array.isArray(b.tokens)) throw new HttpError(400, 'tokens must be a list of token ids.', 'tokens');
    let text = '';
    for (const t of b.tokens) if (typeof t === 'number') text += this.pieces.get(t >>> 0) ?? '';
    sendJson(res, 200, { prompt: text });
  }

  /** The crash fault: every open connection is cut, as when the server process dies. */
  cutConnections(): void {
    this.server.closeAllConnections();
  }
}
