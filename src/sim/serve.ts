// Starts a simulated serving engine: framework flags -> configuration -> (startup failure | delay) -> listening
// HTTP server with ready log lines, engine stats lines, and the crash faults. Usable in-process (tests, the
// runner) and by the CLI shims.
import { ConfigFileError, expandConfigFile } from './config-file';
import type { AddressInfo } from 'node:net';
import type { FrameworkKey } from '../core/frameworks/types';
import { ArgParser, CliParseError } from './cli-args';
import { SimClock } from './clock';
import { resolveSim, type ResolvedSim } from './config';
import { SimEngine } from './engine';
import { LatencyLog } from './latency-log';
import { kvTransferSeconds } from './pd';
import { SIM_FRAMEWORKS, frameworkFromName, simFlags } from './fw';
import { argparseUsage, clickUsage } from './help-text';
import { SimHttp, vllmDevMode } from './http/server';
import { simEngineVersion } from './engine-version';
import { crashLines, logLine, type LogLevel, type LogShape, type LogSource } from './logfmt';
import { HOST_BOUND_MARK, SimOptionError, extractSimOptions, type SimOptions } from './options';
import { profileSourceText } from './profiles';

export interface StartSimOptions {
  /** `sglang`, `vllm`, `tensorrt_llm` (or `trtllm`), `tokenspeed`. */
  framework: string;
  /** The framework's server flags as on its real command line (model positional where it has one); may hold `--sim-*`. */
  args?: readonly string[];
  /** Which CLI shape parses `args` (`serve`, or SGLang's `launch_server`); the framework's first by default. */
  invocation?: string;
  /** Override the bind address and port the flags give (port 0 picks a free port). */
  host?: string;
  port?: number;
  /** Simulator options over those in `args` and `env`. */
  sim?: Partial<SimOptions>;
  /** The server's environment: AUTOBENCH_SIM_OPTS, VLLM_SERVER_DEV_MODE (none unless given, so in-process use stays hermetic). */
  env?: NodeJS.ProcessEnv;
  /** Receives every log line the real server would print (default: dropped). */
  log?: (line: string) => void;
  /** Called when a crash fault fires (after connections were cut and the server closed). */
  onCrash?: (message: string) => void;
}

export interface SimServer {
  url: string;
  host: string;
  port: number;
  /** The model name clients send (first served name). */
  model: string;
  framework: FrameworkKey;
  config: ResolvedSim;
  engine: SimEngine;
  /** Set once a crash fault has fired. */
  crashed: string | undefined;
  close(): Promise<void>;
}

/** The server did not start: what it printed and the exit status its CLI would have. */
export class SimStartError extends Error {
  constructor(
    readonly lines: string[],
    readonly exitCode: number,
  ) {
    super(lines.join('\n'));
    this.name = 'SimStartError';
  }
}

function hostForUrl(h: string): string {
  return h.includes(':') ? `[${h}]` : h;
}

/** A server bound to every interface (vLLM's default, the TokenSpeed gateway's) is reached at loopback too. */
function reachableHost(bind: string): string {
  return bind === '' || bind === '0.0.0.0' ? '127.0.0.1' : bind === '::' ? '::1' : bind;
}

function gib(b: number): string {
  return (b / 1024 ** 3).toFixed(2);
}

/** Parses framework flags the way its CLI does; CliParseError carries the CLI's error text. */
export function parseFrameworkArgs(fw: FrameworkKey, argv: readonly string[], invocation?: string): Map<string, unknown> {
  const sim = SIM_FRAMEWORKS[fw];
  const shape = sim.shapes[invocation ?? Object.keys(sim.shapes)[0] ?? 'serve'];
  if (!shape) throw new CliParseError(`unknown invocation '${invocation}' for ${fw}\n`);
  const parser = new ArgParser(simFlags(fw), shape);
  const usage = shape.style === 'click' ? clickUsage(shape) : argparseUsage(simFlags(fw), shape);
  return parser.parse(argv, usage).values;
}

function startupLines(c: ResolvedSim): string[] {
  const s = c.settings;
  const lines = [
    `autobench-sim: SIMULATED ${c.framework.displayName} engine: no GPU is used and nothing measured here is a GPU result.`,
    `autobench-sim: model ${s.model} (shapes ${profileSourceText(c.model)}), ${c.gpus}x ${c.gpu.name}${c.gpuAuto ? ' (auto)' : ''}, tp=${s.tp} pp=${s.pp} dp=${s.dp}, speed x${c.options.speed}, seed ${c.options.seed}`,
    `Model weights: ${gib(c.memory.weightBytes)} GiB per GPU; runtime buffers and activations ${gib(c.memory.runtimeBytes)} GiB (simulated)`,
    `KV cache: ${c.kvTokens} tokens per replica (${gib(c.memory.kvBytes)} GiB per GPU), context length ${c.contextLimit}, max running ${c.engine.policy.maxRunning}, prefix caching ${s.prefixCaching ? 'on' : 'off'}`,
  ];
  const { launch, options } = c;
  if (launch.sigma > 0 || launch.salt !== 0) {
    lines.push(`autobench-sim: launch salt ${launch.salt}, noise sigma ${launch.sigma}: step cost x${launch.stepCostFactor.toFixed(4)} (plus per-step jitter of sd ${launch.sigma / 2})`);
  }
  // The seed only: the factors are the benchmark's hidden ground truth, never in a log a client could read.
  if (options.perturb !== undefined) lines.push(`autobench-sim: efficiency perturbation seed ${options.perturb} (hidden factors)`);
  if (options.errorRate > 0) lines.push(`autobench-sim: failing ${options.errorRate} of generation requests (--sim-error-rate): half HTTP 500, half cut mid-stream`);
  if (options.fault) lines.push(`autobench-sim: fault ${options.fault}: every answer comes out wrong (--sim-fault)`);
  if (s.notes.length) lines.push(`autobench-sim: accepted but not modelled: ${s.notes.map((k) => `--${k.replace(/_/g, '-')}`).join(', ')}`);
  return lines;
}

export async function startSimServer(o: StartSimOptions): Promise<SimServer> {
  const fw = frameworkFromName(o.framework);
  if (!fw) throw new SimStartError([`autobench-sim: unknown framework '${o.framework}' (sglang, vllm, tensorrt_llm, tokenspeed)`], 2);
  const log = o.log ?? ((): void => undefined);
  let simOpts: SimOptions;
  let rest: string[];
  try {
    ({ rest, options: simOpts } = extractSimOptions(o.args ?? [], o.env ?? {}));
  } catch (e) {
    if (e instanceof SimOptionError) throw new SimStartError([`autobench-sim: ${e.message}`], 2);
    throw e;
  }
  simOpts = { ...simOpts, ...o.sim };
  let values: Map<string, unknown>;
  try {
    values = parseFrameworkArgs(fw, expandConfigFile(fw, rest), o.invocation);
  } catch (e) {
    if (e instanceof ConfigFileError) throw new SimStartError([e.message], 2);
    if (e instanceof CliParseError) throw new SimStartError(e.text.trimEnd().split('\n'), e.exitCode);
    throw e;
  }
  if (o.host !== undefined) values.set('host', o.host);
  if (o.port !== undefined) values.set('port', o.port);
  else if (simOpts.port !== undefined) values.set('port', simOpts.port);
  const resolved = resolveSim(fw, values as Map<string, never>, simOpts);
  if (!resolved.ok) throw new SimStartError(resolved.lines, resolved.exitCode);
  const config = resolved.config;
  const env = o.env ?? {};
  // vLLM's server takes its key from VLLM_API_KEY when --api-key is not given (the flag wins).
  if (fw === 'vllm' && config.settings.apiKeys.length === 0 && env.VLLM_API_KEY) config.settings.apiKeys = [env.VLLM_API_KEY];
  const shape: LogShape = { fw, version: simEngineVersion(fw, simOpts), pid: process.pid };
  const say = (level: LogLevel, msg: string, source?: LogSource): void => log(logLine(shape, level, msg, source));
  for (const l of startupLines(config)) say('INFO', l);
  if (fw === 'vllm' && vllmDevMode(env)) say('WARNING', 'SECURITY WARNING: Development endpoints are enabled! This should NOT be used in production!');
  if (simOpts.startupDelayMs > 0) await new Promise((r) => setTimeout(r, simOpts.startupDelayMs));

  const clock = new SimClock(simOpts.speed);
  // A P/D prefill worker's metrics count the modelled transfer of each prompt's KV (SGLang's prefill_transfer_kv_cache).
  const engine = new SimEngine(config.engine, clock, new LatencyLog(config.settings.pd?.role === 'prefill' ? (n) => kvTransferSeconds(config, n) : undefined));
  let accepted = 0;
  let crashTimer: NodeJS.Timeout | undefined;
  let statsTimer: NodeJS.Timeout | undefined;
  const handle: SimServer = {
    url: '',
    host: reachableHost(config.settings.host),
    port: 0,
    model: config.settings.servedNames[0] ?? config.settings.model,
    framework: fw,
    config,
    engine,
    crashed: undefined,
    close: () => Promise.resolve(),
  };
  const crash = (why: string): void => {
    if (handle.crashed !== undefined) return;
    const message = `RuntimeError: CUDA error: an illegal memory access was encountered (simulated crash: ${why})`;
    handle.crashed = message;
    for (const l of crashLines(shape, why)) log(l);
    engine.crash(message);
    http.cutConnections();
    http.server.close();
    clearTimeout(crashTimer);
    clearInterval(statsTimer);
    o.onCrash?.(message);
  };
  const http = new SimHttp(
    config,
    engine,
    {
      accepted: () => {
        accepted++;
        const n = simOpts.crashAfterRequests;
        if (n !== undefined && accepted >= n) setImmediate(() => crash(`after ${accepted} requests`));
      },
      log: say,
    },
    env,
  );

  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      const lines =
        e.code === 'EADDRINUSE'
          ? [`ERROR: [Errno 98] error while attempting to bind on address ('${config.settings.host}', ${config.settings.port}): address already in use`]
          : [`ERROR: cannot listen on ${config.settings.host}:${config.settings.port}: ${e.message}`];
      reject(new SimStartError(lines, 1));
    };
    http.server.once('error', onError);
    // '' (vLLM without --host) is every interface, as Python's socket bind takes it.
    http.server.listen(config.settings.port, config.settings.host === '' ? undefined : config.settings.host, () => {
      http.server.off('error', onError);
      resolve();
    });
  });
  const addr = http.server.address() as AddressInfo;
  handle.port = addr.port;
  handle.url = `http://${hostForUrl(handle.host)}:${addr.port}`;
  http.listening();
  announce(fw, say, log, `http://${hostForUrl(config.settings.host || '0.0.0.0')}:${addr.port}`, simOpts.warmupMs);

  if (simOpts.crashAfterMs !== undefined) crashTimer = setTimeout(() => crash(`${simOpts.crashAfterMs} ms after startup`), simOpts.crashAfterMs);
  const stopWatching = watchHost(engine, simOpts, log);
  if (simOpts.logIntervalMs > 0) statsTimer = logStats(fw, shape, engine, simOpts, log);

  handle.close = () =>
    new Promise<void>((resolve) => {
      clearTimeout(crashTimer);
      clearInterval(statsTimer);
      stopWatching();
      if (handle.crashed === undefined) engine.crash('server shutting down');
      http.server.close(() => resolve());
      http.server.closeAllConnections();
    });
  return handle;
}

/** The engine's stats line every --sim-log-interval while it has work, as the real servers log theirs. */
/**
 * What the server prints once it listens: uvicorn's `INFO:` lines (vLLM, SGLang, trtllm-serve), SGLang's "fired up"
 * line after its warm-up request, the smg gateway's own lines for TokenSpeed.
 */
function announce(fw: FrameworkKey, say: (level: LogLevel, msg: string, source?: LogSource) => void, log: (line: string) => void, bound: string, warmupMs: number): void {
  if (fw === 'tokenspeed') {
    say('INFO', `Starting router on ${bound.replace(/^http:\/\//, '')} | mode: Regular | policy: CacheAware`);
    say('INFO', 'Worker initialization job submitted (will complete in background)');
    later(() => say('INFO', 'Workers initialized: 1 total, 1 healthy'), warmupMs);
    return;
  }
  log(`INFO:     Started server process [${process.pid}]`);
  log('INFO:     Waiting for application startup.');
  log('INFO:     Application startup complete.');
  log(`INFO:     Uvicorn running on ${bound} (Press CTRL+C to quit)`);
  if (fw === 'sglang') later(() => say('INFO', 'The server is fired up and ready to roll!'), warmupMs);
}

function later(fn: () => void, ms: number): void {
  if (ms <= 0) fn();
  else setTimeout(fn, ms).unref();
}

function logStats(fw: FrameworkKey, shape: LogShape, engine: SimEngine, simOpts: SimOptions, log: (line: string) => void): NodeJS.Timeout {
  let last = engine.stats();
  let lastAt = performance.now();
  const t = setInterval(() => {
    const now = engine.stats();
    const dt = ((performance.now() - lastAt) / 1000) * simOpts.speed;
    lastAt = performance.now();
    if (now.generatedTokens === last.generatedTokens && now.promptTokens === last.promptTokens && now.running === 0) return;
    // vLLM's stats logger runs in the API server process; SGLang's "Decode batch" line comes from the scheduler (TP0).
    log(logLine(shape, 'INFO', statsLine(fw, now, last, dt), fw === 'vllm' ? 'api' : 'engine'));
    last = now;
  }, simOpts.logIntervalMs);
  t.unref();
  return t;
}

/** --sim-host-stall: holds the event loop as a busy machine would (for testing what the runner does about it). */
function holdProcess(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* busy */
  }
}

/** Wall ms of model time lost before the engine says it was host-bound, and how often it looks. */
const LAG_REPORT_MS = 10;
const LAG_POLL_MS = 100;

/**
 * A simulated engine on a busy machine runs slower than its model, and says so in the log with HOST_BOUND_MARK,
 * which the runner's validity gate reads. Two signs: time the schedule gave up (falling more than --sim-max-lag
 * behind while stepping), and the process itself held longer than --sim-max-lag (this watch's own timer fired that
 * late) while a request was in flight or arrived during the hold — an idle engine loses no model time, but a request
 * that arrives while the process is held waits unmodelled. A hold is said as soon as it is seen, not a poll later,
 * so a trial that ends right after one still finds the line.
 */
function watchHost(engine: SimEngine, simOpts: SimOptions, log: (line: string) => void): () => void {
  const say = (ms: number): void => log(`WARNING ${HOST_BOUND_MARK}: the simulated engine fell ${Math.round(ms)} ms behind real time (the machine is busy); it ran slower than modelled`);
  const hasWork = (): boolean => {
    const s = engine.stats();
    return s.running + s.waiting > 0;
  };
  const holdMs = Math.max(LAG_REPORT_MS, simOpts.maxLagMs);
  let lost = engine.stats().lostSeconds;
  let at = performance.now();
  let hadWork = false;
  let pending = 0;
  let saidHold = false;
  const lag = setInterval(() => {
    const now = performance.now();
    const held = now - at - LAG_POLL_MS;
    at = now;
    const lostNow = engine.stats().lostSeconds;
    const lostMs = ((lostNow - lost) / simOpts.speed) * 1000;
    lost = lostNow;
    const working = hasWork();
    // Model time lost just after a hold already said is that hold's, said once.
    const lostAlone = lostMs >= LAG_REPORT_MS && !(saidHold && held < holdMs);
    saidHold = false;
    if (lostAlone) say(Math.max(lostMs, held));
    else if (held >= holdMs && (hadWork || working)) {
      say(held);
      saidHold = true;
    } else if (pending > 0 && working) say(pending);
    else if (held >= holdMs) {
      // Requests that arrived during the hold are read after this timer: look again once they are.
      const ms = held;
      setImmediate(() => (hasWork() ? say(ms) : (pending = ms)));
    }
    if (held < holdMs) pending = 0;
    hadWork = working;
  }, LAG_POLL_MS);
  lag.unref();
  const stall = simOpts.hostStallMs > 0 ? setInterval(() => holdProcess(simOpts.hostStallMs), 1000) : undefined;
  stall?.unref();
  return () => {
    clearInterval(lag);
    clearInterval(stall);
  };
}

function statsLine(fw: FrameworkKey, now: ReturnType<SimEngine['stats']>, last: ReturnType<SimEngine['stats']>, simSeconds: number): string {
  const gen = (now.generatedTokens - last.generatedTokens) / Math.max(1e-9, simSeconds);
  const prompt = (now.promptTokens - last.promptTokens) / Math.max(1e-9, simSeconds);
  const hits = now.promptTokens ? (100 * now.cachedTokens) / now.promptTokens : 0;
  if (fw === 'sglang' || fw === 'tokenspeed') {
    return `Decode batch. #running-req: ${now.running}, token usage: ${now.kvUsage.toFixed(2)}, gen throughput (token/s): ${gen.toFixed(2)}, #queue-req: ${now.waiting} (simulated)`;
  }
  return `Engine 000: Avg prompt throughput: ${prompt.toFixed(1)} tokens/s, Avg generation throughput: ${gen.toFixed(1)} tokens/s, Running: ${now.running} reqs, Waiting: ${now.waiting} reqs, GPU KV cache usage: ${(100 * now.kvUsage).toFixed(1)}%, Prefix cache hit rate: ${hits.toFixed(1)}% (simulated)`;
}
