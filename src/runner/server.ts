// One candidate server's life: launch the exact command, wait for GET /v1/models with a timeout, classify a failure from its log, tear down.
import type { FrameworkKey } from '../core/frameworks/types';
import { sleep, type Executor, type ExitInfo, type PortForward, type ServerProcess } from '../exec';
import { appendFileSync } from 'node:fs';
import { classifyFailure, type FailureStatus } from './classify';
import { CLIENT_HEADERS_ENV } from './run-secrets';
import type { RunTarget } from './target';

export interface LiveServer {
  proc: ServerProcess;
  port: number;
  forward: PortForward;
  baseUrl: string;
  /** The model id GET /v1/models listed first. */
  model: string | undefined;
  /** Set once the process has ended (a crash mid-trial). */
  exit: ExitInfo | undefined;
  /** The server said it is the simulated engine (its x-autobench-simulated header), whatever the target. */
  simulated: boolean;
  /** On ssh targets: what the port forward adds to each request (recorded in every row of this server). */
  transport?: Transport;
  /** Where it runs when that is not the run's target host (a Slurm job's node): its rows' hardware.host. */
  host?: string;
  /** The Slurm job it runs in: its rows record the job. */
  slurmJob?: string;
  /** Where it runs when that is not the run's target (a Slurm job): its trials' client runs there too. */
  executor?: Executor;
  /** Headers every request to it carries (the API key as Authorization: Bearer); secret values: never in a file or an argv. */
  headers?: Readonly<Record<string, string>>;
  /** Its log file (stop() notes there what the group kill missed). */
  logFile?: string;
  /** The least time between TERM and KILL its engine needs (graceOf). */
  minGraceMs?: number;
  /** A P/D unit's workers, behind this server (its router): stopped after it, in reverse start order. */
  companions?: LiveServer[];
  /** It has no GET /v1/models (TensorRT-LLM's disaggregated front end): clients take `model` as given. */
  noModelList?: boolean;
}

/**
 * TensorRT-LLM's graceful shutdown ends its MPI workers (started through orted, in process groups of their own) and
 * can take longer than the run's grace: a KILL in the middle leaves workers holding GPU memory (ai-dynamo/dynamo PR
 * #7122). Its servers get at least this long on a real target.
 */
export const TRTLLM_MIN_GRACE_MS = 30_000;

/** The grace a server of `fw` gets: the run's, raised to TRTLLM_MIN_GRACE_MS for a real TensorRT-LLM. */
export function graceOf(fw: FrameworkKey, simulated: boolean, graceMs: number): number {
  return fw === 'tensorrt_llm' && !simulated ? Math.max(graceMs, TRTLLM_MIN_GRACE_MS) : graceMs;
}

export interface Transport {
  forwarded: true;
  /** Median GET /v1/models round trip from here, through the forward. */
  rtt_ms: number;
  /** Median of the same request made on the host itself (null when the host has no node). */
  host_rtt_ms: number | null;
  /** rtt_ms - host_rtt_ms: the forwarding overhead. */
  overhead_ms: number | null;
}

const RTT_SAMPLES = 15;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

// Runs on the host: times GET /v1/models on its own loopback and prints the median in ms.
// The client's secret headers come from AUTOBENCH_CLIENT_HEADERS in its environment (run-secrets.ts), never an argv.
const HOST_RTT_SCRIPT = `const http=require('http');const port=+process.argv[1];const n=+process.argv[2];const t=[];const a=new http.Agent({keepAlive:true});const headers=JSON.parse(process.env.${CLIENT_HEADERS_ENV}||'{}');
function one(){return new Promise((res,rej)=>{const s=process.hrtime.bigint();http.get({host:'127.0.0.1',port,path:'/v1/models',agent:a,headers},r=>{r.resume();r.on('end',()=>{t.push(Number(process.hrtime.bigint()-s)/1e6);res();});}).on('error',rej);});}
(async()=>{for(let i=0;i<n;i++)await one();t.sort((x,y)=>x-y);console.log(t[Math.floor(t.length/2)]);a.destroy();})().catch(e=>{console.error(e.message);process.exit(1);});`;

/** Measures the forward's overhead: the same request timed from here (through it) and on the host. */
export async function measureTransport(target: RunTarget, baseUrl: string, port: number, headers: Readonly<Record<string, string>> = {}): Promise<Transport> {
  const local: number[] = [];
  for (let i = 0; i < RTT_SAMPLES; i++) {
    const t0 = performance.now();
    const r = await fetch(`${baseUrl}/v1/models`, { headers });
    await r.arrayBuffer();
    local.push(performance.now() - t0);
  }
  const rtt = median(local);
  let host: number | null = null;
  try {
    const secretEnv = Object.keys(headers).length ? [CLIENT_HEADERS_ENV] : [];
    const r = await target.executor.run(['node', '-e', HOST_RTT_SCRIPT, String(port), String(RTT_SAMPLES)], { timeoutMs: 20_000, secretEnv });
    const v = Number(r.stdout.trim());
    if (r.code === 0 && Number.isFinite(v)) host = v;
  } catch {
    /* no node on the host: overhead unknown */
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { forwarded: true, rtt_ms: round(rtt), host_rtt_ms: host === null ? null : round(host), overhead_ms: host === null ? null : round(rtt - host) };
}

/** The header every response of the simulated engine carries. */
export const SIMULATED_HEADER = 'x-autobench-simulated';

export type LaunchResult =
  | { ok: true; server: LiveServer }
  | { ok: false; status: FailureStatus; reason: string; pid?: number }
  | { ok: false; status: 'cancelled'; reason: string };

export interface LaunchOptions {
  framework: FrameworkKey;
  argv: readonly string[];
  flags: Record<string, unknown>;
  logFile: string;
  secretEnv: readonly string[];
  /** Secret values that reach the server otherwise (an `--api-key` word): kept out of its log. */
  redactValues?: readonly string[];
  /** Sent with every request the runner makes to it (Authorization: Bearer when the plan names an API key). */
  headers?: Readonly<Record<string, string>>;
  healthTimeoutMs: number;
  stopGraceMs: number;
  signal: AbortSignal | undefined;
  onState?: (state: 'launching' | 'waiting' | 'ready', info: { pid?: number; port?: number }) => void;
  /** The folder it starts in on the target (a P/D unit's, holding the files its command names by relative path). */
  cwd?: string;
  /**
   * A server without GET /v1/models (TensorRT-LLM's disaggregated front end): ready once this route answers 200, serving
   * the model given (its workers'); its load client then skips the model lookup.
   */
  ready?: { path: string; model: string | undefined };
}

/** Executors a server was stopped on: before the next launch there, its GPUs are checked free again. */
const stoppedOn = new WeakSet<Executor>();
const executorOf = new WeakMap<ServerProcess, Executor>();

/** A server of this run was stopped on this executor (its GPUs are checked free before the next launch: gpu-env.ts). */
export function stoppedHere(ex: Executor): boolean {
  return stoppedOn.has(ex);
}

/** Stops a server; what its group kill missed (workers in a group or session of their own) is noted in its log. */
async function stopProc(proc: ServerProcess, graceMs: number, logFile: string | undefined): Promise<void> {
  const info = await proc.stop({ graceMs });
  const ex = executorOf.get(proc);
  if (ex) stoppedOn.add(ex);
  if (info.leftovers?.length && logFile) {
    try {
      appendFileSync(logFile, `autobench: teardown: ${info.leftovers.length} process(es) of the server outside its process group had to be ended: ${info.leftovers.join(', ')}\n`);
    } catch {
      /* the log's folder is gone: nothing to note in */
    }
  }
}

const TAIL_IN_REASON = 4;

/** The last lines of a server's log, for a failure reason a person can act on. */
export function logTail(proc: ServerProcess, n = TAIL_IN_REASON): string {
  return proc
    .logTail(n)
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' | ');
}

function exitText(e: ExitInfo): string {
  if (e.error) return `lost track of the server: ${e.error.message}`;
  return e.signal ? `the server was killed by ${e.signal}` : `the server exited with code ${e.code}`;
}

/** Why a server ended (or never came up), from its log tail: oom, a rejected command line, a timeout, or another failure. */
export function failureOf(fw: FrameworkKey, proc: ServerProcess, what: string, timedOut = false): { status: FailureStatus; reason: string } {
  const tail = proc.logTail(60).join('\n');
  const c = classifyFailure(fw, tail, what, timedOut);
  const shown = logTail(proc);
  return { status: c.status, reason: shown && !c.reason.includes(shown) ? `${c.reason}; log tail: ${shown}` : c.reason };
}

/** A 401/403 answer: the server wants a key the runner does not have (or not this one); waiting longer changes nothing. */
export function authText(status: number, headers: Readonly<Record<string, string>> | undefined): string {
  const sent = Object.keys(headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  const what = status === 401 ? '401 unauthorized' : '403 forbidden';
  return sent
    ? `GET /v1/models answered ${what}: the server does not accept the API key the run sent (check the variable named by secrets.api_key)`
    : `GET /v1/models answered ${what}: the server requires an API key; name the variable that holds it in the plan's secrets.api_key`;
}

async function modelsOnce(baseUrl: string, headers?: Readonly<Record<string, string>>): Promise<{ ok: boolean; model?: string; simulated?: boolean; status?: number }> {
  try {
    const r = await fetch(`${baseUrl}/v1/models`, { signal: AbortSignal.timeout(5000), ...(headers ? { headers } : {}) });
    if (!r.ok) {
      await r.body?.cancel();
      return { ok: false, status: r.status };
    }
    const simulated = r.headers.get(SIMULATED_HEADER) === 'true';
    const j = (await r.json()) as { data?: Array<{ id?: unknown }> };
    const id = j.data?.[0]?.id;
    return typeof id === 'string' ? { ok: true, model: id, simulated } : { ok: true, simulated };
  } catch {
    return { ok: false };
  }
}

/** A server without a model list: its readiness route answers 200 (the model is the one it was given). */
async function routeOnce(baseUrl: string, ready: { path: string; model: string | undefined }, headers?: Readonly<Record<string, string>>): Promise<{ ok: boolean; model?: string; simulated?: boolean; status?: number }> {
  try {
    const r = await fetch(`${baseUrl}${ready.path}`, { signal: AbortSignal.timeout(5000), ...(headers ? { headers } : {}) });
    await r.body?.cancel();
    return { ok: r.ok, status: r.status, simulated: r.headers.get(SIMULATED_HEADER) === 'true', ...(r.ok && ready.model !== undefined ? { model: ready.model } : {}) };
  } catch {
    return { ok: false };
  }
}

/**
 * The route that says an engine is ready to serve, beyond listing its model. SGLang's /v1/models answers during its
 * own warm-up while /health says 503 until it is done (sgl-project/sglang http_server.py @0025436e); TokenSpeed's
 * gateway lists models before a worker registered, its /readiness answers 503 until a healthy worker is there
 * (lightseekorg/smg server.rs @0061eead). vLLM and TensorRT-LLM open their API only once the engine is built.
 */
const READY_ROUTE: Partial<Record<FrameworkKey, string>> = { sglang: '/health', tokenspeed: '/readiness' };

/** The engine's own readiness route answers 200 (or it has none: 404/405, an older version). */
async function readyRouteOk(baseUrl: string, fw: FrameworkKey, headers?: Readonly<Record<string, string>>): Promise<boolean> {
  const route = READY_ROUTE[fw];
  if (!route) return true;
  try {
    const r = await fetch(`${baseUrl}${route}`, { signal: AbortSignal.timeout(5000), ...(headers ? { headers } : {}) });
    await r.body?.cancel();
    return r.ok || r.status === 404 || r.status === 405;
  } catch {
    return false;
  }
}

/**
 * Starts the command (its argv joins to exactly the candidate's command string), then polls
 * GET /v1/models until it answers, the process exits, the timeout passes or the run is cancelled.
 * On any failure the process group is already stopped when this returns.
 */
export async function launchServer(target: RunTarget, o: LaunchOptions): Promise<LaunchResult> {
  const { port, env } = await target.prepareLaunch(o.framework, o.flags);
  const grace = graceOf(o.framework, target.simulated, o.stopGraceMs);
  o.onState?.('launching', { port });
  let proc: ServerProcess;
  try {
    proc = await target.executor.start({ argv: o.argv, env, secretEnv: o.secretEnv, logFile: o.logFile, tailLines: 200, ...(o.redactValues?.length ? { redactValues: o.redactValues } : {}), ...(o.cwd ? { cwd: o.cwd } : {}) });
  } catch (e) {
    return { ok: false, status: 'failed', reason: `could not start the server: ${(e as Error).message}` };
  }
  executorOf.set(proc, target.executor);
  let exit: ExitInfo | undefined;
  proc.onExit((info) => (exit = info));
  let forward: PortForward;
  try {
    forward = await target.executor.forward(port);
  } catch (e) {
    await stopProc(proc, grace, o.logFile);
    return { ok: false, status: 'failed', reason: `could not forward port ${port}: ${(e as Error).message}`, pid: proc.pid };
  }
  const baseUrl = `http://${forward.localHost}:${forward.localPort}`;
  o.onState?.('waiting', { pid: proc.pid, port });
  const deadline = performance.now() + o.healthTimeoutMs;
  let wait = 100;
  const fail = async (r: LaunchResult): Promise<LaunchResult> => {
    await stopProc(proc, grace, o.logFile);
    await forward.close().catch(() => undefined);
    return r;
  };
  for (;;) {
    if (o.signal?.aborted) return fail({ ok: false, status: 'cancelled', reason: 'cancelled while the server was starting' });
    if (exit) {
      // Let the last output lines reach the tail before reading it.
      await proc.exited;
      return fail({ ok: false, ...failureOf(o.framework, proc, `${exitText(exit)} before it answered GET ${o.ready?.path ?? '/v1/models'}`), pid: proc.pid });
    }
    const r = o.ready ? await routeOnce(baseUrl, o.ready, o.headers) : await modelsOnce(baseUrl, o.headers);
    if (r.status === 401 || r.status === 403) return fail({ ok: false, status: 'failed', reason: authText(r.status, o.headers), pid: proc.pid });
    // Ready: a model is listed (a gateway lists none before its worker registered) and the engine's own route agrees.
    if (r.ok && r.model !== undefined && (await readyRouteOk(baseUrl, o.framework, o.headers))) {
      o.onState?.('ready', { pid: proc.pid, port });
      const server: LiveServer = { proc, port, forward, baseUrl, model: r.model, exit, simulated: r.simulated === true, logFile: o.logFile, ...(o.ready ? { noModelList: true } : {}), ...(grace > o.stopGraceMs ? { minGraceMs: grace } : {}), ...(o.headers && Object.keys(o.headers).length ? { headers: o.headers } : {}) };
      proc.onExit((info) => (server.exit = info));
      if (target.executor.target.startsWith('ssh:')) {
        try {
          server.transport = await measureTransport(target, baseUrl, port, o.headers);
        } catch {
          /* a failed measurement leaves the row without transport figures */
        }
      }
      return { ok: true, server };
    }
    if (performance.now() > deadline) {
      return fail({ ok: false, ...failureOf(o.framework, proc, `no answer to GET ${o.ready?.path ?? '/v1/models'} within ${Math.round(o.healthTimeoutMs / 1000)} s`, true), pid: proc.pid });
    }
    await Promise.race([sleep(wait, o.signal), proc.exited]);
    wait = Math.min(1000, wait * 1.5);
  }
}

export async function stopServer(s: LiveServer, graceMs: number): Promise<void> {
  await stopProc(s.proc, Math.max(graceMs, s.minGraceMs ?? 0), s.logFile);
  await s.forward.close().catch(() => undefined);
  for (const c of [...(s.companions ?? [])].reverse()) await stopServer(c, graceMs);
}
