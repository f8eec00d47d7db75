// The simulated `trtllm-serve disaggregated` front end: waits until every context and generation worker's /health
// answers (polled every 3 s, scaled by --sim-speed, up to -t), only then listens; each request runs a context-only leg
// (not streamed) on a context worker, then the generation-only leg on a generation worker, streamed back to the client
// (openai_disagg_server.py @3e53e4ad). It keeps the unit's TTFT split and energy as the other simulated routers do;
// every answer is labelled simulated.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError, readJson, sendJson, SIM_HEADER } from './http/io';
import { noteTtfts, sendTtfts, TIMING_HEADER, TTFTS_PATH } from './http/ttft-report';
import { ENERGY_PATH } from './power';
import { PD_SPLIT_PATH, relayDecodeLeg, SplitAccount, timingIn, type LegTiming } from './pd-timing';
import { healthy, portMap, postLeg, readAll, unitEnergy, type Upstream } from './pd-legs';
import { FRONT_END_VERSION, FrontEndConfigError, type FrontEndArgs, type FrontRole } from './trtllm-front-config';

interface Worker {
  role: FrontRole;
  url: string;
  inFlight: number;
}

export interface SimFrontEnd {
  url: string;
  port: number;
  close(): Promise<void>;
}

const STRIP_TIMING = /,"autobench_sim_time":[-0-9.eE+]+|,"autobench_sim_timing":\{[^{}]*\}/g;

/** `host:port` urls of the config, their ports moved where the simulator put the workers. */
function workersOf(a: FrontEndArgs, env: NodeJS.ProcessEnv): Worker[] {
  const ports = portMap(env);
  const one = (role: FrontRole) => (u: string): Worker => {
    const [host, port] = u.split(':');
    const to = ports.get(Number(port)) ?? Number(port);
    return { role, url: `http://${host === 'localhost' ? '127.0.0.1' : host}:${to}`, inFlight: 0 };
  };
  return [...a.ctx.urls.map(one('ctx')), ...a.gen.urls.map(one('gen'))];
}

/** Polls every worker's /health until all answer 200; false when -t (scaled) passes first or it is stopped. */
async function waitForWorkers(a: FrontEndArgs, ws: Worker[], log: (l: string) => void, stopped: () => boolean): Promise<boolean> {
  const interval = 3000 / a.sim.speed;
  const deadline = Date.now() + (a.startTimeoutS * 1000) / a.sim.speed;
  log('Waiting for context and generation servers to be ready');
  for (let iter = 1; ; iter++) {
    const down = (await Promise.all(ws.map(async (w) => ((await healthy(w.url)) ? undefined : w.url)))).filter((u): u is string => u !== undefined);
    if (!down.length) return true;
    if (stopped()) return false;
    if (Date.now() + interval > deadline) return false;
    log(`[${iter}] Servers are not ready. Waiting for [${down.map((u) => `'${u}'`).join(', ')}]...`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** Starts the front end; resolves once it listens (every worker healthy), rejects when the wait times out. */
export async function startFrontEnd(a: FrontEndArgs, env: NodeJS.ProcessEnv, log: (l: string) => void, stopped: () => boolean = () => false): Promise<SimFrontEnd | undefined> {
  const ws = workersOf(a, env);
  const ok = await waitForWorkers(a, ws, log, stopped);
  if (stopped()) return undefined;
  if (!ok) throw new FrontEndConfigError('TimeoutError: Timeout waiting for context and generation servers to be ready');
  log('Context and generation servers are ready');
  const state = new FrontState(a, ws);
  const server = createServer((req, res) => void state.handle(req, res).catch((e: unknown) => (res.headersSent ? res.destroy() : sendJson(res, e instanceof HttpError ? e.status : 500, { detail: e instanceof HttpError ? e.message : 'Internal server error' }))));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new FrontEndConfigError(`RuntimeError: Failed to bind socket to ${a.host}:${a.port}: ${e.message}`)));
    server.listen(a.portOverride ?? a.port, a.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const policies = a.ctx.router === a.gen.router ? a.ctx.router : `${a.ctx.router} (context), ${a.gen.router} (generation)`;
  log(`INFO:     Uvicorn running on http://${a.host}:${port} | router: ${policies} (autobench-sim: SIMULATED front end)`);
  if ([a.ctx.router, a.gen.router].includes('kv_cache_aware')) log('autobench-sim: kv_cache_aware is modelled as load_balancing (no KV events are simulated)');
  return {
    url: `http://${a.host}:${port}`,
    port,
    close: () => {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

class FrontState {
  private next: Record<FrontRole, number> = { ctx: 0, gen: 0 };
  private readonly splits = new SplitAccount();

  constructor(
    readonly a: FrontEndArgs,
    readonly ws: Worker[],
  ) {}

  /** round_robin in turn; load_balancing (and kv_cache_aware, modelled so) the worker with the fewest requests in flight. */
  private pick(role: FrontRole): Worker {
    const ws = this.ws.filter((w) => w.role === role);
    const type = role === 'ctx' ? this.a.ctx.router : this.a.gen.router;
    if (type === 'round_robin') return ws[this.next[role]++ % ws.length] as Worker;
    return ws.reduce((b, w) => (w.inFlight < b.inFlight ? w : b));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const timing = req.headers[TIMING_HEADER] === '1';
    if (req.method === 'GET') {
      if (path === '/health') return void res.writeHead(200, { [SIM_HEADER]: 'true', 'content-length': '0' }).end();
      if (path === '/version') return sendJson(res, 200, { version: FRONT_END_VERSION });
      if (path === '/cluster_info') return sendJson(res, 200, {});
      if (path === '/perf_metrics') return sendJson(res, 200, []);
      if (timing && path === TTFTS_PATH) return sendTtfts(this, req.url ?? path, res);
      if (timing && path === PD_SPLIT_PATH) return this.splits.send(req.url ?? path, res);
      if (timing && path === ENERGY_PATH) return this.energy(res);
    }
    if (req.method === 'POST' && (path === '/v1/completions' || path === '/v1/chat/completions')) return this.generate(path, req, res);
    sendJson(res, 404, { detail: 'Not Found' });
  }

  private async energy(res: ServerResponse): Promise<void> {
    sendJson(res, 200, await unitEnergy(this.ws.map((w) => ({ url: w.url, decode: w.role === 'gen' }))));
  }

  /** One leg, retried max_retries times on a connection error (1 s apart), each under -r (scaled). */
  private async leg(w: Worker, path: string, body: object, signal: AbortSignal): Promise<Upstream> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await postLeg(w.url, path, body, AbortSignal.any([signal, AbortSignal.timeout((this.a.requestTimeoutS * 1000) / this.a.sim.speed)]));
      } catch {
        if (signal.aborted || attempt >= this.a.maxRetries) throw new HttpError(500, 'Internal server error');
        await new Promise((r) => setTimeout(r, 1000 / this.a.sim.speed));
      }
    }
  }

  private async generate(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readJson(req)) as Record<string, unknown>;
    const chat = path === '/v1/chat/completions';
    const p = body.prompt;
    if (!chat && !(typeof p === 'string' || (Array.isArray(p) && p.every((x) => typeof x === 'number')))) {
      throw new HttpError(400, 'Disaggregated server currently only supports single string prompt or list of integers in request');
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const c = this.pick('ctx');
    const { stream_options: _so, ...rest } = body;
    c.inFlight++;
    let ctxText: string;
    let ctxStatus: number;
    try {
      const up = await this.leg(c, path, { ...rest, stream: false, disaggregated_params: { request_type: 'context_only' } }, abort.signal);
      ctxStatus = up.status;
      ctxText = await readAll(up.res);
    } finally {
      c.inFlight--;
    }
    if (ctxStatus !== 200) return void res.writeHead(ctxStatus, { [SIM_HEADER]: 'true', 'content-type': 'application/json' }).end(ctxText);
    const ctxJson = JSON.parse(ctxText) as { choices?: Array<{ finish_reason?: string; disaggregated_params?: Record<string, unknown> }>; prompt_token_ids?: unknown };
    const choice = ctxJson.choices?.[0];
    // A context leg that ended for another reason than its length is the answer (the generation leg is skipped).
    if (!choice || !['length', 'not_finished'].includes(choice.finish_reason ?? '')) {
      return sendJson(res, 200, ctxText.replace(STRIP_TIMING, ''));
    }
    const params = { ...(choice.disaggregated_params ?? {}), request_type: 'generation_only' };
    const genBody = chat ? { ...body, disaggregated_params: params, prompt_token_ids: ctxJson.prompt_token_ids } : { ...body, disaggregated_params: params, prompt: ctxJson.prompt_token_ids };
    await this.generation(path, req, res, genBody, timingIn(ctxText), abort.signal);
  }

  private async generation(path: string, req: IncomingMessage, res: ServerResponse, body: object, prefill: LegTiming | undefined, signal: AbortSignal): Promise<void> {
    const g = this.pick('gen');
    g.inFlight++;
    res.on('close', () => g.inFlight--);
    const dec = await this.leg(g, path, body, signal);
    relayDecodeLeg(req, res, dec, prefill, (split) => {
      this.splits.note(split);
      noteTtfts(this, [{ request: { arrivalAt: 0, firstAt: split.ttft_ms / 1000 } }]);
    });
  }
}

