// The simulated P/D router (`python -m sglang_router.launch_router --pd-disaggregation`, `vllm-router
// --vllm-pd-disaggregation`): registers its prefill and decode workers once their /health answers, reports them at
// /workers and /readiness as the real routers do, and runs each generation request prefill-then-decode, marking the
// decode request the way the engine expects transferred KV (pd.ts). Every response is labelled simulated.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extractSimOptions, SimOptionError } from './options';
import { HttpError, readJson, sendJson, SIM_HEADER } from './http/io';
import { noteTtfts, sendTtfts, TIMING_HEADER, TTFTS_PATH } from './http/ttft-report';
import { ENERGY_PATH } from './power';
import { PD_SPLIT_PATH, relayDecodeLeg, SplitAccount, timingIn } from './pd-timing';
import { getText as get, healthy, portMap, postLeg as post, readAll, unitEnergy } from './pd-legs';

export type RouterKind = 'sglang' | 'vllm';

interface Worker {
  role: 'prefill' | 'decode';
  url: string;
  /** SGLang's prefill bootstrap port, as the router was told it. */
  bootstrapPort?: number;
  healthy: boolean;
}

export interface RouterArgs {
  workers: Worker[];
  host: string;
  port: number;
  policy: string;
  /** Flags accepted and not modelled. */
  ignored: string[];
}

export class RouterUsageError extends Error {}

/** The versions the simulated routers report (sgl-router 0.2.x; vllm-project/router 0.1.x). */
export const ROUTER_VERSION: Record<RouterKind, string> = { sglang: '0.2.4', vllm: '0.1.5' };

/**
 * The options each real router's parser defines that a P/D unit uses or tunes (router_args.py @083d6013, @462d39dc),
 * as the simulated router's --help lists them; the preflight checks a unit's router line against the captured help.
 */
const ROUTER_OPTIONS: Record<RouterKind, string[]> = {
  sglang: ['--host', '--port', '--policy', '--prefill-policy', '--decode-policy', '--pd-disaggregation', '--prefill', '--decode', '--worker-startup-timeout-secs', '--worker-startup-check-interval', '--cache-threshold', '--balance-abs-threshold', '--balance-rel-threshold', '--max-payload-size', '--request-timeout-secs', '--max-concurrent-requests', '--log-level', '--log-dir', '--prometheus-port', '--prometheus-host'],
  vllm: ['--host', '--port', '--policy', '--vllm-pd-disaggregation', '--prefill', '--decode', '--worker-startup-timeout-secs', '--max-payload-size', '--request-timeout-secs', '--max-concurrent-requests', '--log-level', '--prometheus-port', '--prometheus-host'],
};

/** The simulated router's --help: an argparse-style usage and its options, labelled simulated. */
export function routerHelp(program: string, kind: RouterKind): string {
  const opts = ROUTER_OPTIONS[kind].map((o) => `  ${o}${o === '--prefill' ? ' URL [BOOTSTRAP_PORT]' : o === '--decode' ? ' URL' : o.endsWith('disaggregation') ? '' : ' VALUE'}`);
  return [`usage: ${program} [options]`, '', `autobench-sim: SIMULATED ${kind === 'sglang' ? 'sgl-router' : 'vllm-router'} ${ROUTER_VERSION[kind]}`, '', 'options:', '  -h, --help', ...opts, ''].join('\n');
}

const PD_FLAG: Record<RouterKind, string> = { sglang: '--pd-disaggregation', vllm: '--vllm-pd-disaggregation' };

function mapUrl(url: string, ports: Map<number, number>): string {
  const u = new URL(url);
  const to = ports.get(Number(u.port));
  if (to !== undefined) u.port = String(to);
  return u.toString().replace(/\/$/, '');
}

/** The router's argv as sgl-router's and vllm-router's parsers read the P/D options (router_args.py @083d6013, @462d39dc). */
export function parseRouterArgs(kind: RouterKind, argv: readonly string[], env: NodeJS.ProcessEnv = {}): RouterArgs {
  const ports = portMap(env);
  const out: RouterArgs = { workers: [], host: '127.0.0.1', port: 30000, policy: 'cache_aware', ignored: [] };
  let pd = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new RouterUsageError(`argument ${a}: expected one argument`);
      return v;
    };
    if (a === PD_FLAG[kind]) pd = true;
    else if (a === '--prefill') {
      const url = mapUrl(next(), ports);
      const boot = argv[i + 1];
      const bootstrapPort = boot !== undefined && /^\d+$/.test(boot) ? Number(argv[++i]) : undefined;
      if (boot === 'none') i++;
      out.workers.push({ role: 'prefill', url, healthy: false, ...(bootstrapPort !== undefined ? { bootstrapPort } : {}) });
    } else if (a === '--decode') out.workers.push({ role: 'decode', url: mapUrl(next(), ports), healthy: false });
    else if (a === '--host') out.host = next();
    else if (a === '--port') out.port = Number(next());
    else if (a === '--policy') out.policy = next();
    else if (a.startsWith('--')) {
      out.ignored.push(a);
      if (argv[i + 1] !== undefined && !(argv[i + 1] ?? '').startsWith('--')) i++;
    } else throw new RouterUsageError(`unrecognized arguments: ${a}`);
  }
  if (!pd) throw new RouterUsageError(`the simulated router runs P/D units only: give ${PD_FLAG[kind]}`);
  if (!out.workers.some((w) => w.role === 'prefill') || !out.workers.some((w) => w.role === 'decode')) {
    throw new RouterUsageError('a P/D router needs at least one --prefill and one --decode worker');
  }
  return out;
}

/** The prefill leg's body: the same request, one token, not streamed, marked as the engine's P/D protocol asks. */
function prefillBody(kind: RouterKind, path: string, body: Record<string, unknown>, p: Worker, room: number): Record<string, unknown> {
  const one = path === '/generate' ? { sampling_params: { ...((body.sampling_params as object | undefined) ?? {}), max_new_tokens: 1 } } : { max_tokens: 1, max_completion_tokens: 1 };
  const mark = kind === 'sglang' ? sglangMark(p, room) : { kv_transfer_params: { do_remote_decode: true, do_remote_prefill: false } };
  const { stream_options: _so, ...rest } = body;
  return { ...rest, ...one, stream: false, ...mark };
}

function sglangMark(p: Worker, room: number): Record<string, unknown> {
  return { bootstrap_host: new URL(p.url).hostname, bootstrap_port: p.bootstrapPort ?? null, bootstrap_room: room };
}

function decodeBody(kind: RouterKind, body: Record<string, unknown>, p: Worker, room: number): Record<string, unknown> {
  if (kind === 'sglang') return { ...body, ...sglangMark(p, room) };
  const u = new URL(p.url);
  return { ...body, kv_transfer_params: { do_remote_prefill: true, do_remote_decode: false, remote_host: u.hostname, remote_port: Number(u.port) } };
}

export interface SimRouter {
  url: string;
  port: number;
  args: RouterArgs;
  close(): Promise<void>;
}

/** Starts the router: workers register in the background, as sgl-router's and vllm-router's do. */
export async function startSimRouter(kind: RouterKind, argv: readonly string[], env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<SimRouter> {
  let rest: string[];
  let portOverride: number | undefined;
  try {
    const o = extractSimOptions(argv, env);
    rest = o.rest;
    portOverride = o.options.port;
  } catch (e) {
    if (e instanceof SimOptionError) throw new RouterUsageError(e.message);
    throw e;
  }
  const args = parseRouterArgs(kind, rest, env);
  if (portOverride !== undefined) args.port = portOverride;
  const state = new RouterState(kind, args);
  const server = createServer((req, res) =>
    void state.handle(req, res).catch((e: unknown) => (e instanceof HttpError && !res.headersSent ? sendJson(res, e.status, { error: e.message }) : res.destroy())),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(args.port, args.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  log(`Starting router on ${args.host}:${port} | mode: PD | policy: ${args.policy} (autobench-sim: SIMULATED router)`);
  if (args.ignored.length) log(`autobench-sim: router flags accepted but not modelled: ${args.ignored.join(', ')}`);
  state.register(log);
  return { url: `http://${args.host}:${port}`, port, args, close: () => state.close(server) };
}

class RouterState {
  private next: Record<'prefill' | 'decode', number> = { prefill: 0, decode: 0 };
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly splits = new SplitAccount();

  constructor(
    readonly kind: RouterKind,
    readonly args: RouterArgs,
  ) {}

  /** Polls each worker's /health until every one answers (the router's background worker initialisation). */
  register(log: (line: string) => void): void {
    const poll = async (): Promise<void> => {
      await Promise.all(this.args.workers.filter((w) => !w.healthy).map(async (w) => (w.healthy = await healthy(w.url))));
      const up = this.args.workers.filter((w) => w.healthy).length;
      if (up === this.args.workers.length) return log(`Workers initialized: ${up} total, ${up} healthy`);
      if (!this.closed) this.timer = setTimeout(() => void poll(), 200);
    };
    void poll();
  }

  close(server: Server): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private pick(role: 'prefill' | 'decode'): Worker | undefined {
    const ws = this.args.workers.filter((w) => w.role === role && w.healthy);
    if (!ws.length) return undefined;
    if (this.args.policy === 'random') return ws[Math.floor(Math.random() * ws.length)];
    return ws[this.next[role]++ % ws.length];
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET') return this.status(path, req, res);
    if (req.method === 'POST' && (path === '/v1/completions' || path === '/v1/chat/completions' || path === '/generate')) return this.generate(path, req, res);
    sendJson(res, 404, { error: `no route ${req.method ?? ''} ${path}` });
  }

  private async status(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ws = this.args.workers;
    // The unit's modelled TTFTs and their split, for the runner (the simulator's own routes; no real router has them).
    if (path === TTFTS_PATH && req.headers[TIMING_HEADER] === '1') return sendTtfts(this, req.url ?? path, res);
    if (path === PD_SPLIT_PATH && req.headers[TIMING_HEADER] === '1') return this.splits.send(req.url ?? path, res);
    if (path === ENERGY_PATH && req.headers[TIMING_HEADER] === '1') return this.energy(res);
    const count = (role: string): number => ws.filter((w) => w.role === role && w.healthy).length;
    if (path === '/health' || path === '/liveness') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readiness') {
      const ready = count('prefill') > 0 && count('decode') > 0;
      return sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', healthy_prefill_workers: count('prefill'), healthy_decode_workers: count('decode'), total_prefill_workers: ws.filter((w) => w.role === 'prefill').length, total_decode_workers: ws.filter((w) => w.role === 'decode').length });
    }
    if (path === '/workers') {
      const workers = ws.map((w) => ({ url: w.url, worker_type: w.role, is_healthy: w.healthy, ...(w.bootstrapPort !== undefined ? { bootstrap_port: w.bootstrapPort } : {}) }));
      return sendJson(res, 200, { workers, total: ws.length, stats: { prefill_count: count('prefill'), decode_count: count('decode'), regular_count: 0 } });
    }
    // In P/D mode the model list and server info come from the first prefill worker (pd_router.rs @f4caaa05).
    const first = ws.find((w) => w.role === 'prefill' && w.healthy);
    if (!first) return sendJson(res, 503, { error: 'no healthy prefill worker' });
    const up = await get(`${first.url}${path}`);
    res.writeHead(up.status, { [SIM_HEADER]: 'true', 'content-type': 'application/json' });
    res.end(up.text);
  }

  /** The unit's modelled energy: every worker's counter summed, output tokens from its decode workers only. */
  private async energy(res: ServerResponse): Promise<void> {
    sendJson(res, 200, await unitEnergy(this.args.workers.map((w) => ({ url: w.url, decode: w.role === 'decode' }))));
  }

  /** A generation request, prefill leg then decode leg; the decode leg's answer goes back as the worker gave it. */
  private async generate(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readJson(req)) as Record<string, unknown>;
    const p = this.pick('prefill');
    const d = this.pick('decode');
    if (!p || !d) return sendJson(res, 503, { error: 'no healthy prefill and decode worker' });
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const room = Math.floor(Math.random() * 2 ** 53);
    const pre = await post(p.url, path, prefillBody(this.kind, path, body, p, room), abort.signal);
    const preText = await readAll(pre.res);
    if (pre.status !== 200) {
      res.writeHead(pre.status, { [SIM_HEADER]: 'true', 'content-type': 'application/json' });
      return void res.end(preText);
    }
    const prefill = timingIn(preText);
    const dec = await post(d.url, path, decodeBody(this.kind, body, p, room), abort.signal);
    relayDecodeLeg(req, res, dec, prefill, (split) => {
      this.splits.note(split);
      noteTtfts(this, [{ request: { arrivalAt: 0, firstAt: split.ttft_ms / 1000 } }]);
    });
  }
}

