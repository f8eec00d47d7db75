// A framework's CLI read on the target: its flag list (the help text that lists every option, else none) and its version, each with the command that gave it.
import { shlexSplit } from '../core/candidates/shell';
import type { FrameworkKey } from '../core/frameworks/types';
import { judgeFlagList } from '../core/help/flag-list';
import type { Executor } from '../exec';
import type { RunDir } from './artifacts';

/** File names the snapshot discovery recognises (validate --help-dir reads the same folder). */
const HELP_FILE: Record<FrameworkKey, string> = {
  sglang: 'sglang_launch_server.txt',
  vllm: 'vllm_serve_all.txt',
  tensorrt_llm: 'trtllm_serve.txt',
  tokenspeed: 'tokenspeed_serve.txt',
};

/** TokenSpeed's engine flags, as its own parser builds them (`tokenspeed serve --help` lists only `--headless`). */
const TOKENSPEED_ENGINE_FILE = 'tokenspeed_serve_engine_args.txt';

/**
 * The parser `tokenspeed serve` routes engine flags through: lightseekorg/tokenspeed
 * python/tokenspeed/runtime/utils/server_args.py `ServerArgs.add_cli_args` (cli/_argsplit.py snapshots its option strings).
 */
const TOKENSPEED_ENGINE_HELP =
  'import argparse; from tokenspeed.runtime.utils.server_args import ServerArgs; p = argparse.ArgumentParser(prog="tokenspeed serve"); ServerArgs.add_cli_args(p); p.print_help()';

const PACKAGE: Record<FrameworkKey, string> = { sglang: 'sglang', vllm: 'vllm', tensorrt_llm: 'tensorrt_llm', tokenspeed: 'tokenspeed' };

export interface HelpCapture {
  command: string[];
  /** Run-relative path of the saved text. */
  file: string | undefined;
  ok: boolean;
  detail: string;
}

export interface VersionCapture {
  command: string[] | undefined;
  version: string | undefined;
}

const isPythonProg = (p: string): boolean => /(^|\/)python[\d.]*$/.test(p);

/** The word of a `#!` line that is the Python interpreter (`#!/venv/bin/python3`, `#!/usr/bin/env python3.12`), if it names one. */
export function pythonOfShebang(line: string): string | undefined {
  const m = /^#!\s*(.*)$/.exec(line.trim());
  if (!m) return undefined;
  const words = (m[1] ?? '').split(/\s+/).filter(Boolean);
  const first = words[0] ?? '';
  const prog = /(^|\/)env$/.test(first) ? words.slice(1).find((w) => !w.startsWith('-') && !w.includes('=')) : first;
  return prog !== undefined && isPythonProg(prog) ? prog : undefined;
}

/**
 * The Python that runs a console script on the target: the interpreter of its `#!` line (found with `command -v`
 * there, read with `head -n 1`), else `python3`. A `python -m …` server command is its own interpreter.
 */
export async function interpreterOf(ex: Executor, prog: string): Promise<string> {
  if (isPythonProg(prog)) return prog;
  try {
    const r = await ex.run(['sh', '-c', 'p=$(command -v -- "$1") && head -n 1 -- "$p"', 'sh', prog], { timeoutMs: 60_000 });
    if (r.code === 0) return pythonOfShebang(r.stdout.split('\n')[0] ?? '') ?? 'python3';
  } catch {
    /* python3 below */
  }
  return 'python3';
}

/** The commands tried in turn, each with the file its text is saved to. */
async function helpTries(ex: Executor, fw: FrameworkKey, prefix: string[]): Promise<Array<{ cmd: string[]; file: string }>> {
  const plain = { cmd: [...prefix, '--help'], file: HELP_FILE[fw] };
  // vLLM >= 0.11 lists every option only with --help=all; 0.9.2–0.10.2 answer it with a keyword search, <= 0.8 with a usage error.
  if (fw === 'vllm') return [{ cmd: [...prefix, '--help=all'], file: HELP_FILE[fw] }, plain];
  if (fw === 'tokenspeed') return [{ cmd: [await interpreterOf(ex, prefix[0] ?? 'tokenspeed'), '-c', TOKENSPEED_ENGINE_HELP], file: TOKENSPEED_ENGINE_FILE }, plain];
  return [plain];
}

const lastLine = (s: string): string => s.trim().split('\n').slice(-1)[0] ?? '';

/**
 * The CLI's flag list: the first command whose text lists its options (a keyword search, a grouped summary or a front
 * end that lists almost nothing is passed over, and said). None: `file` is undefined and `detail` says why each failed.
 */
export async function captureHelp(ex: Executor, dir: RunDir, fw: FrameworkKey, serverCommand: string, folder = 'help'): Promise<HelpCapture> {
  const tries = await helpTries(ex, fw, shlexSplit(serverCommand));
  const why: string[] = [];
  for (const { cmd, file: name } of tries) {
    const shown = cmd.join(' ');
    try {
      const r = await ex.run(cmd, { timeoutMs: 120_000 });
      const text = r.stdout.trim() ? r.stdout : r.stderr;
      if (r.code !== 0 || !/--[a-z]/i.test(text)) {
        why.push(`${shown}: exit ${r.code ?? r.signal}${r.stderr.trim() ? `: ${lastLine(r.stderr)}` : ''}`);
        continue;
      }
      const verdict = judgeFlagList(text, fw);
      if (verdict.problem) {
        why.push(`${shown}: ${verdict.problem}`);
        continue;
      }
      const file = dir.writeText(folder ? `${folder}/${name}` : name, text);
      const passed = why.length ? ` (passed over: ${why.join('; ')})` : '';
      return { command: cmd, file: dir.rel(file), ok: true, detail: `${shown}: ${text.split('\n').length} lines, ${verdict.catalog.optionStrings.length} options${passed}` };
    } catch (e) {
      why.push(`${shown}: ${(e as Error).message}`);
    }
  }
  const first = tries[0]?.cmd ?? [];
  return { command: first, file: undefined, ok: false, detail: `no flag list captured, so candidates are checked against the built-in flag table only: ${why.join('; ')}` };
}

type Probe = string[] | (() => Promise<string[]>);

/** The probes for a framework's version, in order (a function when it must look the interpreter up first); each names how the version was read. */
function versionProbes(ex: Executor, fw: FrameworkKey, prefix: string[]): Probe[] {
  const prog = prefix[0] ?? '';
  const pkg = PACKAGE[fw];
  const pyImport = (py: string): string[] => [py, '-c', `import ${pkg}; print(${pkg}.__version__)`];
  // TokenSpeed: `tokenspeed version` prints `TokenSpeed v<x>` (there is no --version; cli/__main__.py @11165293) and its
  // package has no __version__ (python/tokenspeed/__init__.py @75d39ac8): tokenspeed.version holds it.
  if (fw === 'tokenspeed') {
    return [[prog, 'version'], async () => [await interpreterOf(ex, prog), '-c', 'from tokenspeed.version import __version__; print(__version__)'], [prog, '--version']];
  }
  // trtllm-serve has no version option (tensorrt_llm/commands/serve.py @00209af1): the package, under the Python that runs trtllm-serve.
  if (fw === 'tensorrt_llm') return [async () => pyImport(await interpreterOf(ex, prog)), pyImport('python3'), [prog, '--version']];
  if (isPythonProg(prog)) return [pyImport(prog), ...(fw === 'sglang' ? [['sglang', '--version']] : [])];
  return [[prog, '--version'], pyImport('python3')];
}

const VERSION = /\d+\.\d+(?:\.\d+)?[\w.+-]*/;

/** The version in a probe's output: a Python probe's last stdout line (imports may log first), else stdout and stderr. */
export function versionOfOutput(stdout: string, stderr: string, pythonProbe: boolean): string | undefined {
  return VERSION.exec(pythonProbe ? lastLine(stdout) : `${stdout}\n${stderr}`)?.[0];
}

/** The installed version and the command that printed it (a Python probe's answer is its last line: imports may log first). */
export async function captureVersion(ex: Executor, fw: FrameworkKey, serverCommand: string): Promise<VersionCapture> {
  const tried = new Set<string>();
  for (const probe of versionProbes(ex, fw, shlexSplit(serverCommand))) {
    try {
      const cmd = typeof probe === 'function' ? await probe() : probe;
      if (tried.has(cmd.join('\0'))) continue;
      tried.add(cmd.join('\0'));
      const r = await ex.run(cmd, { timeoutMs: 60_000 });
      if (r.code !== 0) continue;
      const version = versionOfOutput(r.stdout, r.stderr, cmd[1] === '-c');
      if (version) return { command: cmd, version };
    } catch {
      /* next probe */
    }
  }
  return { command: undefined, version: undefined };
}
