// `tokenspeed serve` before the server starts, per release (engine-era.ts): `--headless`, the positional model, and
// what a node rank > 0 runs (lightseekorg/tokenspeed python/tokenspeed/cli/_argsplit.py, serve_smg.py, __main__.py).
import { tokenspeedCli } from './engine-era';

export interface TokenspeedServe {
  /** The argv for the engine flag parser (`--headless` removed). */
  argv: string[];
  /** Engine only, no HTTP gateway. */
  headless: boolean;
  /** Every rank runs the whole orchestrator (gateway split before 1e6deeb0): a rank > 0 never sees its engine SERVING. */
  followerWaitsForever: boolean;
  /** The orchestrator's or gateway's failure (stderr text and exit status), when it fails before serving. */
  failure?: { text: string; code: number };
}

/** Flags whose values `_normalize` takes as a list (`_ENGINE_MULTI_VALUE_FLAGS` @f4d8ec6e). */
const MULTI_VALUE = new Set(['--cudagraph-capture-sizes', '--prefill-graph-capture-sizes']);

function pyTraceback(message: string): string {
  return ['Traceback (most recent call last):', '  File "tokenspeed/cli/_argsplit.py", in split_argv (simulated)', `ValueError: ${message}`].join('\n');
}

/** The first token `_argsplit._normalize` refuses as a positional (each `--flag` takes the next non-`--` token as its value). */
function strayPositional(tokens: readonly string[]): string | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (!t.startsWith('--')) return t;
    if (t.includes('=')) continue;
    if (MULTI_VALUE.has(t)) {
      while (i + 1 < tokens.length && !(tokens[i + 1] as string).startsWith('--')) i++;
    } else if (i + 1 < tokens.length && !(tokens[i + 1] as string).startsWith('--')) i++;
  }
  return undefined;
}

const pyRepr = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** What `tokenspeed serve ARGV` does in release `version` before the engine starts. */
export function tokenspeedServe(argv: readonly string[], version: string): TokenspeedServe {
  const cli = tokenspeedCli(version);
  const plain: TokenspeedServe = { argv: [...argv], headless: false, followerWaitsForever: false };
  if (!cli.gatewaySplit) return plain; // one argparse parser, positional model included (initial-release-205c53c4)
  if (argv.includes('--headless')) {
    if (!cli.headless) {
      // Unknown to the engine parser, so `split_argv` routes it to `smg launch`, whose clap parser refuses it.
      return { ...plain, failure: { text: "[gateway] error: unexpected argument '--headless' found\nstartup failed: gateway subprocess exited with rc=2 during startup", code: 1 } };
    }
    // `split_headless_argv`: the rest is a plain ServerArgs argv for the engine's own parser (positional model included).
    return { argv: argv.filter((a) => a !== '--headless'), headless: true, followerWaitsForever: false };
  }
  let tokens = [...argv];
  if (cli.positional === 'rewrite' && tokens.length > 0 && !(tokens[0] as string).startsWith('--')) {
    const rest = tokens.slice(1);
    if (rest.some((t) => t === '--model' || t === '--model-path' || t.startsWith('--model=') || t.startsWith('--model-path='))) {
      return { ...plain, failure: { text: pyTraceback('model specified both as positional argument and via --model/--model-path'), code: 1 } };
    }
    tokens = ['--model', tokens[0] as string, ...rest];
  }
  const stray = strayPositional(tokens);
  if (stray !== undefined) return { ...plain, failure: { text: pyTraceback(`unexpected positional arg: ${pyRepr(stray)}`), code: 1 } };
  return { argv: tokens, headless: false, followerWaitsForever: !cli.followerExec };
}

/**
 * A rank > 0 of a release whose every rank runs the orchestrator: its engine never reports gRPC SERVING, so after
 * `--engine-startup-timeout` (1800 s, `OrchestratorOpts` @1e9340c2; here divided by the simulated speed) it exits 1
 * (`wait_grpc_serving` raises TimeoutError, `run_smg` returns 1; serve_smg.py / _proc.py @3782ed80).
 */
export async function runStuckFollower(rank: number, speed: number, log: (line: string) => void, stop: Promise<unknown>): Promise<number> {
  const waitMs = (1800 * 1000) / Math.max(speed, 1e-6);
  log(`autobench-sim (simulated TokenSpeed): node rank ${rank}: ts serve starts its engine and gateway here too; waiting for the engine's gRPC SERVING`);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((r) => (timer = setTimeout(() => r(true), waitMs)));
  const done = await Promise.race([timedOut, stop.then(() => false)]);
  clearTimeout(timer);
  if (!done) return 0;
  log(`startup failed: engine never reached SERVING within 1800s (simulated: ${Math.round(waitMs / 1000)} s at --sim-speed ${speed})`);
  return 1;
}
