// The framework CLI shims: `vllm`, `sglang`, `python -m sglang.launch_server`, `trtllm-serve`, `tokenspeed`
// and `ts`, each accepting its real command shape and starting the simulated engine for `serve`; and the P/D
// routers `python -m sglang_router.launch_router` and `vllm-router`, and TensorRT-LLM's `trtllm-serve disaggregated`.
import type { FrameworkKey } from '../core/frameworks/types';
import { serveFromCli, signalled, simOptionsOf, type ServeOptions, type SimIo } from './cli-serve';
import { ROUTER_VERSION, routerHelp, RouterUsageError, startSimRouter, type RouterKind, type SimRouter } from './router';
import { tokenspeedVersionLine } from './engine-era';
import { simEngineVersion } from './engine-version';
import { programHelp } from './help';
import { pythonImportVersion } from './python-shim';
import { FRONT_END_VERSION, FrontEndConfigError, FrontEndUsageError, frontEndHelp, parseFrontEnd } from './trtllm-front-config';
import { startFrontEnd } from './trtllm-front';

interface Program {
  fw: FrameworkKey;
  style: 'argparse' | 'click';
  versionFlags: string[];
}

// Version options as the real CLIs have them: vLLM `-v, --version` (vllm/entrypoints/cli/main.py @00a5fdd2);
// trtllm-serve none (a click DefaultGroup with no version option, tensorrt_llm/commands/serve.py @00209af1);
// TokenSpeed none, a `version` subcommand instead (python/tokenspeed/cli/__main__.py @f4d8ec6e).
const PROGRAMS: Record<string, Program> = {
  vllm: { fw: 'vllm', style: 'argparse', versionFlags: ['-v', '--version'] },
  sglang: { fw: 'sglang', style: 'argparse', versionFlags: ['--version'] },
  'trtllm-serve': { fw: 'tensorrt_llm', style: 'click', versionFlags: [] },
  tokenspeed: { fw: 'tokenspeed', style: 'argparse', versionFlags: [] },
  ts: { fw: 'tokenspeed', style: 'argparse', versionFlags: [] },
};

/** The P/D routers: `python -m sglang_router.launch_router` and `vllm-router`. */
const ROUTERS: Record<string, RouterKind> = { 'sglang_router.launch_router': 'sglang', 'vllm-router': 'vllm' };

/** The program names a shim can be called as (`sglang.launch_server` stands for `python -m sglang.launch_server`, `python.import-version` for `python -c 'import X; print(X.__version__)'`). */
export const SHIM_NAMES = [...Object.keys(PROGRAMS), 'sglang.launch_server', 'python.import-version', ...Object.keys(ROUTERS)];

/** A simulated P/D router until SIGINT/SIGTERM (or `o.stopSignal`); usage errors exit 2 as argparse's do. */
async function routerMain(program: string, kind: RouterKind, argv: readonly string[], io: SimIo, o: ServeOptions): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) return void io.out.write(routerHelp(program, kind)), 0;
  if (argv.includes('--version')) return void io.out.write(`${program} ${ROUTER_VERSION[kind]} (autobench-sim: SIMULATED router)\n`), 0;
  const log = (line: string): void => void io.err.write(`${line}\n`);
  let router: SimRouter;
  try {
    router = await startSimRouter(kind, argv, o.env ?? process.env, log);
  } catch (e) {
    if (!(e instanceof RouterUsageError) && (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    io.err.write(`${program}: error: ${(e as Error).message}\n`);
    return e instanceof RouterUsageError ? 2 : 1;
  }
  await (o.stopSignal ?? signalled());
  await router.close();
  return 0;
}

/** `trtllm-serve disaggregated`: the simulated P/D front end until SIGINT/SIGTERM; click usage errors exit 2, config errors 1. */
async function frontEndMain(argv: readonly string[], io: SimIo, o: ServeOptions): Promise<number> {
  if (argv.includes('--help')) return void io.out.write(frontEndHelp()), 0;
  // The real command has no --version option; the simulated one answers so a preflight records what it ran.
  if (argv.includes('--version')) return void io.out.write(`trtllm-serve disaggregated ${FRONT_END_VERSION} (autobench-sim: SIMULATED front end)\n`), 0;
  const log = (line: string): void => void io.err.write(`${line}\n`);
  let stopped = false;
  const stop = (o.stopSignal ?? signalled()).then(() => void (stopped = true));
  try {
    const fe = await startFrontEnd(parseFrontEnd(argv, o.env ?? process.env), o.env ?? process.env, log, () => stopped);
    if (!fe) return 0;
    await stop;
    await fe.close();
    return 0;
  } catch (e) {
    if (e instanceof FrontEndUsageError) {
      io.err.write(`Usage: trtllm-serve disaggregated [OPTIONS]\nTry 'trtllm-serve disaggregated --help' for help.\n\nError: ${e.message}\n`);
      return 2;
    }
    if (e instanceof FrontEndConfigError) return void io.err.write(`${e.message}\n`), 1;
    throw e;
  }
}

function usageError(program: string, p: Program, message: string, io: SimIo): number {
  if (p.style === 'click') {
    io.err.write(`Usage: ${program} [OPTIONS] COMMAND [ARGS]...\nTry '${program} --help' for help.\n\nError: ${message}\n`);
  } else {
    io.err.write(`${programHelp(program).split('\n')[0] ?? ''}\n${program}: error: ${message}\n`);
  }
  return 2;
}

/** The release this shim answers as (`--sim-version` from AUTOBENCH_SIM_OPTS or the argv; else the flag table's). */
function engineVersionOf(fw: FrameworkKey, argv: readonly string[], o: ServeOptions): string {
  return simEngineVersion(fw, simOptionsOf(argv, o.env ?? process.env));
}

/**
 * `tokenspeed`/`ts` (python/tokenspeed/cli/__main__.py @f4d8ec6e): parse_known_args, so no subcommand (an unknown
 * option such as `--version` included) prints the help and exits 1; `version` prints `TokenSpeed v<__version__>`.
 */
function tokenspeedMain(program: string, p: Program, argv: readonly string[], io: SimIo, o: ServeOptions): Promise<number> | number {
  const [cmd, ...rest] = argv;
  if (cmd === '-h' || cmd === '--help') {
    io.out.write(programHelp(program));
    return 0;
  }
  if (cmd === undefined || cmd.startsWith('-')) {
    io.out.write(programHelp(program));
    return 1;
  }
  if (cmd === 'serve') return serveFromCli(p.fw, undefined, rest, io, o);
  if (cmd === 'version') {
    const extra = rest.filter((a) => !a.startsWith('--sim-'));
    if (extra.length > 0) return usageError(program, p, `unrecognized arguments: ${extra.join(' ')}`, io);
    io.out.write(`${tokenspeedVersionLine(engineVersionOf(p.fw, rest, o))}\n`);
    return 0;
  }
  return usageError(program, p, `argument command: invalid choice: '${cmd}' (choose from 'serve', 'version')`, io);
}

export async function runShim(program: string, argv: readonly string[], io: SimIo, o: ServeOptions = {}): Promise<number> {
  if (program === 'sglang.launch_server') return serveFromCli('sglang', 'launch_server', argv, io, o);
  if (program === 'python.import-version') return pythonImportVersion(argv, io, o.env ?? process.env);
  const router = ROUTERS[program];
  if (router) return routerMain(program, router, argv, io, o);
  const p = PROGRAMS[program];
  if (!p) {
    io.err.write(`autobench-sim: no shim called '${program}' (known: ${SHIM_NAMES.join(', ')})\n`);
    return 2;
  }
  if (p.fw === 'tokenspeed') return tokenspeedMain(program, p, argv, io, o);
  const [cmd, ...rest] = argv;
  if (cmd === undefined) {
    if (p.style === 'click') {
      io.out.write(programHelp(program));
      return 0;
    }
    return usageError(program, p, 'the following arguments are required: subparser', io);
  }
  if (cmd === '-h' || cmd === '--help') {
    io.out.write(programHelp(program));
    return 0;
  }
  if (p.versionFlags.includes(cmd)) {
    io.out.write(`${engineVersionOf(p.fw, rest, o)}\n`);
    return 0;
  }
  if (cmd === 'serve') return serveFromCli(p.fw, p.fw === 'sglang' ? 'serve' : undefined, rest, io, o);
  if (program === 'trtllm-serve' && cmd === 'disaggregated') return frontEndMain(rest, io, o);
  if (p.style === 'click') return usageError(program, p, cmd.startsWith('-') ? `No such option: ${cmd}` : `No such command '${cmd}'.`, io);
  if (cmd.startsWith('-')) return usageError(program, p, `unrecognized arguments: ${cmd}`, io);
  return usageError(program, p, `argument subparser: invalid choice: '${cmd}' (choose from 'serve')`, io);
}

export interface SimTarget {
  framework: FrameworkKey;
  /** The CLI shape (`launch_server` for `python -m sglang.launch_server`). */
  invocation?: string;
  /** Server flags as the framework's parser takes them (the model positional included). */
  args: string[];
}

/**
 * What a real server command line asks the simulator for: `python -m sglang.launch_server ...`,
 * `sglang serve ...`, `vllm serve ...`, `trtllm-serve serve ...`, `tokenspeed serve ...` / `ts serve ...`
 * (programs may carry a path). Undefined for anything else. Lets a runner start a candidate in-process.
 */
export function simTargetFor(argv: readonly string[]): SimTarget | undefined {
  const base = (s: string | undefined): string => (s ?? '').split('/').pop() ?? '';
  const prog = base(argv[0]);
  if (/^python(\d(\.\d+)?)?$/.test(prog) && argv[1] === '-m' && argv[2] === 'sglang.launch_server') {
    return { framework: 'sglang', invocation: 'launch_server', args: argv.slice(3) };
  }
  const p = PROGRAMS[prog];
  if (!p || argv[1] !== 'serve') return undefined;
  return { framework: p.fw, invocation: p.fw === 'sglang' ? 'serve' : undefined, args: argv.slice(2) };
}
