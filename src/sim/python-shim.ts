// `python -c 'import <engine>; print(<engine>.__version__)'` for the simulated engines (bin/sim/python routes only
// such one-liners here): the version a runner reads when the CLI has no --version (trtllm-serve, TokenSpeed).
import type { FrameworkKey } from '../core/frameworks/types';
import type { SimIo } from './cli-serve';
import { tokenspeedVersionLine } from './engine-era';
import { simEngineVersion } from './engine-version';
import { SimOptionError, extractSimOptions, DEFAULT_SIM_OPTIONS } from './options';

const MODULES: Record<string, FrameworkKey> = { tensorrt_llm: 'tensorrt_llm', vllm: 'vllm', sglang: 'sglang', tokenspeed: 'tokenspeed' };

function versionOf(fw: FrameworkKey, env: NodeJS.ProcessEnv): string {
  try {
    return simEngineVersion(fw, extractSimOptions([], env).options);
  } catch (e) {
    if (e instanceof SimOptionError) return simEngineVersion(fw, DEFAULT_SIM_OPTIONS);
    throw e;
  }
}

function traceback(io: SimIo, line: string): number {
  io.err.write(`Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n${line}\n`);
  return 1;
}

/** argv: the `-c` code. Exit status as python's. */
export function pythonImportVersion(argv: readonly string[], io: SimIo, env: NodeJS.ProcessEnv): number {
  const code = argv.join(' ');
  const from = /from\s+(\w+)(\.version)?\s+import\s+__version__/.exec(code);
  const imp = /import\s+(\w+)/.exec(code);
  const mod = from?.[1] ?? imp?.[1] ?? '';
  const fw = MODULES[mod];
  if (!fw) return traceback(io, `ModuleNotFoundError: No module named '${mod}' (autobench-sim python shim: only the simulated engines' __version__)`);
  const version = versionOf(fw, env);
  if (fw === 'tensorrt_llm') {
    // Importing the package prints its banner on stdout first (NVIDIA/TensorRT-LLM tensorrt_llm/__init__.py @083a7415).
    io.out.write(`[TensorRT-LLM] TensorRT LLM version: ${version}\n`);
  }
  if (fw === 'tokenspeed') {
    // `tokenspeed/__init__.py` defines no __version__ (@75d39ac8); `tokenspeed/version.py` does.
    if (from?.[2] !== '.version') return traceback(io, "AttributeError: module 'tokenspeed' has no attribute '__version__'");
    io.out.write(`${tokenspeedVersionLine(version).replace(/^TokenSpeed v/, '')}\n`);
    return 0;
  }
  io.out.write(`${version}\n`);
  return 0;
}
