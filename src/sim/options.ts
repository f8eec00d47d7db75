// The simulator's own options (`--sim-*` flags or AUTOBENCH_SIM_OPTS): speed, seed, GPU, launch-to-launch noise
// fault injection, the hidden efficiency perturbation and known efficiency factors.
// They never appear in a framework's --help; a shim started from a candidate command reads them from the
// environment, since the command line holds only the real framework's flags.
import { shlexSplit } from '../core/candidates/shell';
import { EfficiencyError, parseEfficiency, type EfficiencyTerm } from './efficiency';

/** What the simulated engine's log says when a busy machine made it fall behind its model (the runner's validity gate reads it). */
export const HOST_BOUND_MARK = 'autobench-sim host-bound';

/** `--sim-fault` kinds: every response comes out wrong this way (for testing a client's validity checks). */
export const OUTPUT_FAULTS = ['zero-tokens', 'short-output', 'pd-transfer'] as const;
export type OutputFault = (typeof OUTPUT_FAULTS)[number];

export interface SimOptions {
  /** The simulated GPU runs this many times faster than the wall clock. */
  speed: number;
  seed: number;
  /** GPU profile name, or `auto` (the smallest listed GPU the weights fit on comfortably). */
  gpu: string;
  /** Wall-clock milliseconds before the server listens (model loading). */
  startupDelayMs: number;
  /** Crash after this many requests have been accepted. */
  crashAfterRequests?: number;
  /** Crash this many wall-clock milliseconds after becoming ready. */
  crashAfterMs?: number;
  /** Wall-clock milliseconds between engine stats log lines (0: none). */
  logIntervalMs: number;
  /** Median answer length of requests that do not ignore EOS. */
  eosMedian: number;
  /** Wall-clock milliseconds the engine may fall behind its modelled schedule and still catch up (beyond: it resumes from now). */
  maxLagMs: number;
  /** Stream chunks carry `autobench_sim_time`, the modelled time of their step (for benchmarking the simulator). */
  debugTiming: boolean;
  /** Listen on this port whatever the framework flags say (a runner launching a byte-identical command avoids clashes). */
  port?: number;
  /** Sd of the per-launch step-cost factor (a slower or faster GPU); each step also gets jitter of sd noise/2. */
  noise: number;
  /** Mixed with the seed for the launch's draws (noise factor, jitter, failing requests); a runner sets one per launch. */
  launchSalt: number;
  /** Share of generation requests that fail: half with HTTP 500 before any output, half cut mid-stream. */
  errorRate: number;
  /** Every generation comes out wrong this way. */
  fault?: OutputFault;
  /** Cached prompt tokens in every OpenAI usage (`always`), or only where the framework's own flag asks (`flag`, as the real servers). */
  cacheReport: 'always' | 'flag';
  /** Every second the process is held this many wall ms (a busy machine), so the engine falls behind its model. */
  hostStallMs: number;
  /** Seed of the hidden per-candidate efficiency factors (src/sim/perturb.ts); absent: none, the plain cost model. */
  perturb?: number;
  /** `--sim-efficiency`: known speed factors for the servers each term matches (src/sim/efficiency.ts), on top of any perturbation. */
  efficiency?: EfficiencyTerm[];
  /** The engine release this server stands in for (`--sim-version`; engine-version.ts); absent: the flag table's. */
  engineVersion?: string;
  /** Wall ms a server started from a command line takes to shut down after TERM (its engine processes exiting). */
  shutdownDelayMs: number;
  /** Wall ms after listening before SGLang's own warm-up request is done (/health 503) or the TokenSpeed gateway's worker registers. */
  warmupMs: number;
  /** TokenSpeed: the smg gateway release in front of the engine (streamed /v1/completions usage from v1.4.0). */
  gatewayVersion?: string;
}

export const DEFAULT_SIM_OPTIONS: SimOptions = {
  speed: 1,
  seed: 0,
  gpu: 'auto',
  startupDelayMs: 0,
  logIntervalMs: 10_000,
  eosMedian: 256,
  debugTiming: false,
  maxLagMs: 50,
  noise: 0,
  launchSalt: 0,
  errorRate: 0,
  cacheReport: 'flag',
  hostStallMs: 0,
  shutdownDelayMs: 300,
  warmupMs: 300,
};

export const SIM_OPTIONS_ENV = 'AUTOBENCH_SIM_OPTS';

export const SIM_OPTIONS_HELP = `simulator options (not part of any framework's CLI; also read from ${SIM_OPTIONS_ENV}):
  --sim-speed K             run K times faster than the modelled GPU (default 1)
  --sim-seed N              seed for generated text, answer lengths and random scheduling (default 0)
  --sim-gpu NAME            GPU profile: H100, H200, B200, B300, A100-80GB, MI300X, or auto (default)
  --sim-startup-delay S     wait S seconds (wall clock) before listening, like loading weights
  --sim-crash-after-requests N   exit abruptly once N requests have been accepted
  --sim-crash-after S       exit abruptly S seconds (wall clock) after becoming ready
  --sim-log-interval S      engine stats log line every S seconds (0 = off; default 10)
  --sim-eos-median N        median answer length without ignore_eos (default 256)
  --sim-debug-timing        responses carry the modelled times (autobench_sim_time / _timing)
  --sim-max-lag MS          catch up with the modelled schedule after stalls up to MS (default 50)
  --sim-port N              listen on port N instead of the one the flags give (0: any free port)
  --sim-noise SIGMA         this launch's step cost x a factor ~ normal(1, SIGMA) clamped to 1 +- 4 SIGMA
                            (a slower or faster GPU), each step x jitter of sd SIGMA/2 (default 0)
  --sim-launch-salt N       mixed with --sim-seed for the launch's draws (noise, failing requests);
                            same seed and salt: same launch; another salt: another launch (default 0)
  --sim-error-rate F        fail this share (0..1) of generation requests, picked by seeded draws: half
                            get HTTP 500 before any output, half a stream cut partway (no [DONE])
  --sim-fault KIND          every answer comes out wrong, even with ignore_eos: zero-tokens (no token,
                            finish_reason stop) or short-output (half of max_tokens, finish_reason stop);
                            pd-transfer: a P/D decode worker's KV transfers all fail, and each such
                            request ends with no token (finish_reason stop, HTTP 200)
  --sim-cache-report        cached_tokens in every OpenAI usage, whatever the framework's flags say
  --sim-no-cache-report     cached_tokens only where the engine reports them (the default: SGLang and
                            TokenSpeed with --enable-cache-report, vLLM with --enable-prompt-tokens-details,
                            TensorRT-LLM always)
  --sim-warmup S            SGLang /health answers 503, the TokenSpeed gateway lists no model, for S seconds
                            after listening (the engine's warm-up / worker registration; default 0.3)
  --sim-gateway-version V   TokenSpeed: the smg gateway release (streamed completions carry usage from 1.4.0)
  --sim-host-stall MS       hold the process MS ms every second, as a busy machine would: the engine falls
                            behind its model and logs a host-bound line (the runner then measures again)
  --sim-perturb SEED        hidden efficiency factors (0.75..1.25 per framework and per given flag value,
                            product clamped to 0.5..2) on compute and memory speed, drawn from SEED: a
                            ground truth no cost model knows; never printed (default: none)
  --sim-efficiency SPEC     known efficiency factors on compute and memory speed: SPEC is a comma list of
                            FRAMEWORK[.FLAG=VALUE]:FACTOR (FACTOR 0.2..5, above 1 faster), e.g.
                            vllm.max_num_seqs=256:1.07,sglang:0.95; a term without .FLAG=VALUE matches every
                            server of the framework, one with it the servers whose command line gives that
                            value; matching terms multiply, on top of --sim-perturb (default: none)
  --sim-shutdown-delay S    after TERM, take S seconds to shut down (the engine's child processes exiting;
                            default 0.3)
  --sim-version V           behave as release V of the engine where releases differ (help, CLI, routes,
                            streamed usage); default: the release its flag table follows`;

export class SimOptionError extends Error {}

type Setter = (o: SimOptions, v: number | string) => void;

interface OptionSpec {
  kind: 'number' | 'string' | 'flag';
  set: Setter;
  /** A number option that takes whole numbers only. */
  integer?: boolean;
  min?: number;
  max?: number;
  choices?: readonly string[];
}

const OPTIONS: Record<string, OptionSpec> = {
  '--sim-debug-timing': { kind: 'flag', set: (o) => (o.debugTiming = true) },
  '--sim-speed': { kind: 'number', min: 1e-6, set: (o, v) => (o.speed = v as number) },
  '--sim-seed': { kind: 'number', min: 0, set: (o, v) => (o.seed = Math.floor(v as number)) },
  '--sim-gpu': { kind: 'string', set: (o, v) => (o.gpu = v as string) },
  '--sim-startup-delay': { kind: 'number', min: 0, set: (o, v) => (o.startupDelayMs = (v as number) * 1000) },
  '--sim-crash-after-requests': { kind: 'number', min: 0, set: (o, v) => (o.crashAfterRequests = Math.floor(v as number)) },
  '--sim-crash-after': { kind: 'number', min: 0, set: (o, v) => (o.crashAfterMs = (v as number) * 1000) },
  '--sim-log-interval': { kind: 'number', min: 0, set: (o, v) => (o.logIntervalMs = (v as number) * 1000) },
  '--sim-eos-median': { kind: 'number', min: 1, set: (o, v) => (o.eosMedian = v as number) },
  '--sim-max-lag': { kind: 'number', min: 0, set: (o, v) => (o.maxLagMs = v as number) },
  '--sim-port': { kind: 'number', min: 0, max: 65535, set: (o, v) => (o.port = Math.floor(v as number)) },
  '--sim-noise': { kind: 'number', min: 0, set: (o, v) => (o.noise = v as number) },
  '--sim-launch-salt': { kind: 'number', min: 0, set: (o, v) => (o.launchSalt = Math.floor(v as number)) },
  '--sim-error-rate': { kind: 'number', min: 0, max: 1, set: (o, v) => (o.errorRate = v as number) },
  '--sim-fault': { kind: 'string', choices: OUTPUT_FAULTS, set: (o, v) => (o.fault = v as OutputFault) },
  '--sim-no-cache-report': { kind: 'flag', set: (o) => (o.cacheReport = 'flag') },
  '--sim-cache-report': { kind: 'flag', set: (o) => (o.cacheReport = 'always') },
  '--sim-warmup': { kind: 'number', min: 0, max: 600, set: (o, v) => (o.warmupMs = (v as number) * 1000) },
  '--sim-gateway-version': { kind: 'string', set: (o, v) => (o.gatewayVersion = v as string) },
  '--sim-host-stall': { kind: 'number', min: 0, max: 900, set: (o, v) => (o.hostStallMs = v as number) },
  '--sim-perturb': { kind: 'number', integer: true, min: 0, max: 0xffffffff, set: (o, v) => (o.perturb = v as number) },
  '--sim-efficiency': { kind: 'string', set: (o, v) => (o.efficiency = efficiencyOption(v as string)) },
  '--sim-shutdown-delay': { kind: 'number', min: 0, max: 600, set: (o, v) => (o.shutdownDelayMs = (v as number) * 1000) },
  '--sim-version': { kind: 'string', set: (o, v) => (o.engineVersion = v as string) },
};

/** --sim-efficiency's terms; a bad SPEC is a SimOptionError naming the bad term and the expected form. */
function efficiencyOption(spec: string): EfficiencyTerm[] {
  try {
    return parseEfficiency(spec);
  } catch (e) {
    if (e instanceof EfficiencyError) throw new SimOptionError(`--sim-efficiency: ${e.message}`);
    throw e;
  }
}

/**
 * Splits `--sim-*` options out of a framework argv. Environment options come first, so the command line wins.
 * Throws SimOptionError for an unknown `--sim-` option or a bad value.
 */
export function extractSimOptions(argv: readonly string[], env: NodeJS.ProcessEnv = {}): { rest: string[]; options: SimOptions } {
  const options: SimOptions = { ...DEFAULT_SIM_OPTIONS };
  const fromEnv = env[SIM_OPTIONS_ENV] ? shlexSplit(env[SIM_OPTIONS_ENV] ?? '') : [];
  apply(fromEnv, options, true);
  const rest = apply(argv, options, false);
  return { rest, options };
}

/** What a number option takes, for its error message. */
function expected(spec: OptionSpec): string {
  if (spec.integer) return `a whole number${spec.min !== undefined ? ` from ${spec.min}` : ''}${spec.max !== undefined ? ` to ${spec.max}` : ''}`;
  if (spec.min !== undefined && spec.max !== undefined) return `a number from ${spec.min} to ${spec.max}`;
  if (spec.min !== undefined) return spec.min > 0 && spec.min < 1e-3 ? 'a number > 0' : `a number >= ${spec.min}`;
  return 'a number';
}

function apply(argv: readonly string[], o: SimOptions, strict: boolean): string[] {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i] as string;
    if (!tok.startsWith('--sim-')) {
      if (strict) throw new SimOptionError(`${SIM_OPTIONS_ENV}: unexpected '${tok}' (only --sim-* options belong there)`);
      rest.push(tok);
      continue;
    }
    const eq = tok.indexOf('=');
    const name = eq > 0 ? tok.slice(0, eq) : tok;
    const spec = OPTIONS[name];
    if (!spec) throw new SimOptionError(`unknown simulator option ${name} (the --sim-* options are listed by 'autobench sim --help')`);
    if (spec.kind === 'flag') {
      if (eq > 0) throw new SimOptionError(`${name} takes no value`);
      spec.set(o, 1);
      continue;
    }
    let raw = eq > 0 ? tok.slice(eq + 1) : argv[++i];
    if (raw === undefined) throw new SimOptionError(`${name} needs a value`);
    raw = raw.trim();
    if (spec.kind === 'number') {
      const v = Number(raw);
      if (raw === '' || !Number.isFinite(v) || (spec.integer && !Number.isInteger(v)) || (spec.min !== undefined && v < spec.min) || (spec.max !== undefined && v > spec.max)) {
        throw new SimOptionError(`${name}: invalid value '${raw}' (${expected(spec)})`);
      }
      spec.set(o, v);
    } else {
      if (spec.choices && !spec.choices.includes(raw)) throw new SimOptionError(`${name}: invalid value '${raw}' (choose from ${spec.choices.join(', ')})`);
      spec.set(o, raw);
    }
  }
  return rest;
}
