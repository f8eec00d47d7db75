// Runs one simulated server from a command line until a signal or a crash fault: help texts, the real CLI's
// error output and exit status 2 for bad flags, startup failures (exit 1), and the server's log lines.
import type { FrameworkKey } from '../core/frameworks/types';
import { SIM_FRAMEWORKS } from './fw';
import { fullHelp, vllmSearchHelp, vllmSummaryHelp } from './help';
import { headLine, mpiRank, runMpiWorker, worldProblem } from './mpi-world';
import { headRendezvous, nodeRole, roleProblem, runWorker } from './multinode';
import { SimStartError, startSimServer, type SimServer } from './serve';

export interface SimIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

/** The help a server argv asks for, or undefined when it does not ask. */
export function helpRequest(fw: FrameworkKey, invocation: string | undefined, argv: readonly string[]): string | undefined {
  for (const a of argv) {
    if (a === '--') return undefined;
    if (a === '-h' || a === '--help') return fw === 'vllm' ? vllmSummaryHelp() : fullHelp(fw, invocation);
    if (fw === 'vllm' && a.startsWith('--help=')) {
      const kw = a.slice('--help='.length);
      return kw === 'all' ? fullHelp(fw, invocation) : vllmSearchHelp(kw);
    }
  }
  return undefined;
}

export interface ServeOptions {
  env?: NodeJS.ProcessEnv;
  /** Resolves when the server should stop (defaults to SIGINT/SIGTERM). */
  stopSignal?: Promise<unknown>;
  /** Called once the server listens. */
  onReady?: (server: SimServer) => void;
}

export async function serveFromCli(fw: FrameworkKey, invocation: string | undefined, argv: readonly string[], io: SimIo, o: ServeOptions = {}): Promise<number> {
  const help = helpRequest(fw, invocation, argv);
  if (help !== undefined) {
    io.out.write(help);
    return 0;
  }
  const logTo = SIM_FRAMEWORKS[fw].logStream === 'stdout' ? io.out : io.err;
  const log = (line: string): boolean => logTo.write(`${line}\n`);
  const world = fw === 'tensorrt_llm' ? mpiRank(o.env ?? process.env) : undefined;
  const worldBad = world ? worldProblem(world, argv) : undefined;
  if (worldBad) {
    io.err.write(`${worldBad}\n`);
    return 1;
  }
  if (world && world.rank > 0) return runMpiWorker(world, log, o.stopSignal ?? signalled());
  if (world) log(headLine(world));
  const role = nodeRole(fw, argv);
  const bad = role ? roleProblem(role) : undefined;
  if (bad) {
    io.err.write(`error: ${bad}\n`);
    return 2;
  }
  if (role && role.rank > 0) return runWorker(role, (line) => logTo.write(`${line}\n`), o.stopSignal ?? signalled());
  let crashed!: (code: number) => void;
  const crash = new Promise<number>((r) => (crashed = r));
  // Listening for TERM before the server says it is ready: a TERM right after the ready line must stop it cleanly (exit 0).
  let unlisten = (): void => undefined;
  const stopped =
    o.stopSignal?.then(() => 0) ??
    new Promise<number>((resolve) => {
      const stop = (): void => {
        logTo.write('INFO:     Shutting down\n');
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
    server = await startSimServer({
      framework: fw,
      args: argv,
      invocation,
      env: o.env ?? process.env,
      log: (line) => logTo.write(`${line}\n`),
      onCrash: () => crashed(1),
    });
  } catch (e) {
    unlisten();
    if (e instanceof SimStartError) {
      io.err.write(`${e.lines.join('\n')}\n`);
      return e.exitCode;
    }
    throw e;
  }
  let rendezvous: Awaited<ReturnType<typeof headRendezvous>> | undefined;
  try {
    rendezvous = role ? await headRendezvous(role, (line) => logTo.write(`${line}\n`)) : undefined;
  } catch (e) {
    io.err.write(`error: the head cannot listen on port ${role?.port}: ${(e as Error).message}\n`);
    unlisten();
    await server.close();
    return 1;
  }
  o.onReady?.(server);
  const code = await Promise.race([crash, stopped]);
  unlisten();
  rendezvous?.close();
  await server.close();
  return code;
}

/** Resolves on the first SIGINT or SIGTERM. */
function signalled(): Promise<void> {
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
