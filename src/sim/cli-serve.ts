// Runs one simulated server from a command line until a signal or a crash fault: help texts, the real CLI's
// error output and exit status 2 for bad flags, startup failures (exit 1), the server's log lines, its child
// processes (process-tree.ts) and a shutdown that takes time, each as the release given by --sim-version has them.
import type { FrameworkKey } from '../core/frameworks/types';
import { missingConfigFile } from './config-file';
import { tokenspeedCli, vllmHelpMode, vllmMissingFlags } from './engine-era';
import { simEngineVersion } from './engine-version';
import { SIM_FRAMEWORKS } from './fw';
import { fullHelp, serverShape, tokenspeedServeHelp, vllmSearchHelp, vllmSummaryHelp } from './help';
import { headLine, mpiRank, runMpiWorker, worldProblem } from './mpi-world';
import { headRendezvous, nodeRole, roleProblem, runWorker, type NodeRole } from './multinode';
import { DEFAULT_SIM_OPTIONS, SimOptionError, extractSimOptions, type SimOptions } from './options';
import { startProcessTree } from './process-tree';
import { SimStartError, startSimServer, type SimServer } from './serve';
import { runStuckFollower, tokenspeedServe } from './tokenspeed-cli';

export interface SimIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

/** The simulator options of a command line and AUTOBENCH_SIM_OPTS; the defaults when they are bad (the server start reports that). */
export function simOptionsOf(argv: readonly string[], env: NodeJS.ProcessEnv): SimOptions {
  try {
    return extractSimOptions(argv, env).options;
  } catch (e) {
    if (e instanceof SimOptionError) return { ...DEFAULT_SIM_OPTIONS };
    throw e;
  }
}

export interface HelpAnswer {
  text: string;
  code: number;
  /** Written on stderr (an argparse error) rather than stdout. */
  toErr?: boolean;
}

/** The help a server argv asks for in release `version` (default: the flag table's), or undefined when it does not ask. */
export function helpRequest(fw: FrameworkKey, invocation: string | undefined, argv: readonly string[], version?: string): HelpAnswer | undefined {
  const v = version ?? simEngineVersion(fw, {});
  const mode = fw === 'vllm' ? vllmHelpMode(v) : undefined;
  for (const a of argv) {
    if (a === '--') return undefined;
    if (a === '-h' || a === '--help') {
      if (fw === 'tokenspeed') return { text: tokenspeedServeHelp(v), code: 0 };
      return { text: mode === 'grouped' ? vllmSummaryHelp() : fullHelp(fw, invocation, v), code: 0 };
    }
    if (fw === 'vllm' && a.startsWith('--help=')) {
      const kw = a.slice('--help='.length);
      if (mode === 'plain') {
        const usage = `usage: ${serverShape('vllm').usage ?? 'vllm serve'}`;
        return { text: `${usage}\nvllm serve: error: argument -h/--help: ignored explicit argument '${kw}'\n`, code: 2, toErr: true };
      }
      return { text: kw === 'all' && mode === 'grouped' ? fullHelp(fw, invocation, v) : vllmSearchHelp(kw, v), code: 0 };
    }
  }
  return undefined;
}

/** vLLM flags of the table that release `version` lacks, written on the command line: argparse's error (exit 2). */
function unknownInRelease(fw: FrameworkKey, argv: readonly string[], version: string): string | undefined {
  if (fw !== 'vllm') return undefined;
  const names = new Set(vllmMissingFlags(version).map((k) => `--${k.replace(/_/g, '-')}`));
  const extras: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const name = a.split('=')[0]?.replace(/_/g, '-') ?? '';
    if (!names.has(name)) continue;
    extras.push(a);
    while (!a.includes('=') && i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) extras.push(argv[++i] as string);
  }
  if (extras.length === 0) return undefined;
  return `usage: ${serverShape('vllm').usage ?? 'vllm serve'}\nvllm serve: error: unrecognized arguments: ${extras.join(' ')}\n`;
}

export interface ServeOptions {
  env?: NodeJS.ProcessEnv;
  /** Resolves when the server should stop (defaults to SIGINT/SIGTERM). */
  stopSignal?: Promise<unknown>;
  /** Called once the server listens. */
  onReady?: (server: SimServer) => void;
}

export async function serveFromCli(fw: FrameworkKey, invocation: string | undefined, argv: readonly string[], io: SimIo, o: ServeOptions = {}): Promise<number> {
  const env = o.env ?? process.env;
  const simOpts = simOptionsOf(argv, env);
  const version = simEngineVersion(fw, simOpts);
  const help = helpRequest(fw, invocation, argv, version);
  if (help !== undefined) {
    (help.toErr ? io.err : io.out).write(help.text);
    return help.code;
  }
  const ts = fw === 'tokenspeed' ? tokenspeedServe(argv, version) : undefined;
  const failure = ts?.failure ?? errorOf(unknownInRelease(fw, argv, version), 2) ?? errorOf(missingConfigFile(fw, argv), 1);
  if (failure) {
    io.err.write(`${failure.text.trimEnd()}\n`);
    return failure.code;
  }
  const args = ts?.argv ?? [...argv];
  const logTo = SIM_FRAMEWORKS[fw].logStream === 'stdout' ? io.out : io.err;
  const log = (line: string): void => void logTo.write(`${line}\n`);
  const world = fw === 'tensorrt_llm' ? mpiRank(env) : undefined;
  const worldBad = world ? worldProblem(world, args) : undefined;
  if (worldBad) {
    io.err.write(`${worldBad}\n`);
    return 1;
  }
  if (world && world.rank > 0) return runMpiWorker(world, log, o.stopSignal ?? signalled());
  if (world) log(headLine(world));
  const role = nodeRole(fw, args);
  const bad = role ? roleProblem(role) : undefined;
  if (bad) {
    io.err.write(`error: ${bad}\n`);
    return 2;
  }
  if (role && role.rank > 0 && ts?.followerWaitsForever) return runStuckFollower(role.rank, simOpts.speed, log, o.stopSignal ?? signalled());
  if (role && role.rank > 0) return runWorker(role, log, o.stopSignal ?? signalled());
  if (ts?.headless) return runHeadless(log, o.stopSignal ?? signalled());
  return runServer({ fw, invocation, args, io, o, env, simOpts, role, log, tokenspeedGateway: ts !== undefined && tokenspeedCli(version).gatewaySplit });
}

function errorOf(text: string | undefined, code: number): { text: string; code: number } | undefined {
  return text === undefined ? undefined : { text, code };
}

/** `tokenspeed serve --headless` on one node: the engine alone, no HTTP server; it waits for an external frontend. */
async function runHeadless(log: (line: string) => void, stop: Promise<unknown>): Promise<number> {
  log('autobench-sim (simulated TokenSpeed): --headless: engine only, no HTTP server; waiting for an external frontend until signalled');
  const tree = startProcessTree('tokenspeed', log, { tokenspeedGateway: false });
  const alive = setInterval(() => undefined, 1 << 30);
  await stop;
  clearInterval(alive);
  await tree.close();
  return 0;
}

interface RunServer {
  fw: FrameworkKey;
  invocation: string | undefined;
  args: string[];
  io: SimIo;
  o: ServeOptions;
  env: NodeJS.ProcessEnv;
  simOpts: SimOptions;
  role: NodeRole | undefined;
  log: (line: string) => void;
  tokenspeedGateway: boolean;
}

async function runServer(r: RunServer): Promise<number> {
  const { fw, io, o, log, role } = r;
  let crashed!: (code: number) => void;
  const crash = new Promise<number>((res) => (crashed = res));
  // Listening for TERM before the server says it is ready: a TERM right after the ready line must stop it cleanly (exit 0).
  let unlisten = (): void => undefined;
  const stopped =
    o.stopSignal?.then(() => 0) ??
    new Promise<number>((resolve) => {
      const stop = (): void => {
        log('INFO:     Shutting down');
        resolve(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      unlisten = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      };
    });
  let server: SimServer;
  try {
    server = await startSimServer({ framework: fw, args: r.args, invocation: r.invocation, env: r.env, log, onCrash: () => crashed(1) });
  } catch (e) {
    unlisten();
    if (e instanceof SimStartError) {
      io.err.write(`${e.lines.join('\n')}\n`);
      return e.exitCode;
    }
    throw e;
  }
  const tree = startProcessTree(fw, log, { tokenspeedGateway: r.tokenspeedGateway });
  let rendezvous: Awaited<ReturnType<typeof headRendezvous>> | undefined;
  try {
    rendezvous = role ? await headRendezvous(role, log) : undefined;
  } catch (e) {
    io.err.write(`error: the head cannot listen on port ${role?.port}: ${(e as Error).message}\n`);
    unlisten();
    await server.close();
    await tree.close();
    return 1;
  }
  o.onReady?.(server);
  const code = await Promise.race([crash, stopped]);
  unlisten();
  rendezvous?.close();
  await server.close();
  if (code === 0) await shutdownDelay(r.simOpts.shutdownDelayMs, log);
  await tree.close();
  return code;
}

/** The engine's own shutdown (its processes finishing; vLLM "Waiting up to %d seconds for processes to exit"). */
async function shutdownDelay(ms: number, log: (line: string) => void): Promise<void> {
  if (ms <= 0) return;
  log(`autobench-sim: waiting ${(ms / 1000).toFixed(1)} s for the engine processes to exit (--sim-shutdown-delay)`);
  await new Promise((res) => setTimeout(res, ms));
}

/** Resolves on the first SIGINT or SIGTERM. */
export function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
