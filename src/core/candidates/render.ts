// Turns a candidate's flags into the server argv and the one-line command the playbook prints.
import { pyStr } from '../py/value';
import type { PyValue } from '../py/value';
import type { FlagMap } from './generate';
import { shlexJoin, shlexSplit } from './shell';

export interface RenderOptions {
  /** Split like a POSIX shell; throws ShellSyntaxError on an unbalanced quote. */
  serverCommand: string;
  model: string | undefined;
  /** vllm, tensorrt_llm and tokenspeed take the model as a positional argument; sglang does not. */
  positionalModel: boolean;
  /** When the model is not positional: the option that carries it (`--model`); the caller leaves it out when the flags name the model. */
  modelFlag?: string;
  /** `dash`: `tp_size` -> `--tp-size`; `verbatim`: TensorRT-LLM's click names as written. */
  flagStyle: 'dash' | 'verbatim';
  flags: FlagMap;
  /**
   * The option that turns a default-on flag off (`--no-enable-prefix-caching`), if the CLI has
   * one. Used for `false`, which Python would silently drop (leaving the feature on).
   */
  disableForm?: (key: string) => string | undefined;
}

/** A flag value as Python's str() prints it (`0.90` -> `0.9`, 1.0 -> `1.0`, lists as repr). */
export function renderValue(v: PyValue): string {
  return pyStr(v);
}

export function optionName(key: string, flagStyle: 'dash' | 'verbatim'): string {
  return `--${flagStyle === 'dash' ? key.replaceAll('_', '-') : key}`;
}

export function renderArgv(opts: RenderOptions): string[] {
  const argv = shlexSplit(opts.serverCommand);
  if (opts.positionalModel && opts.model !== undefined) argv.push(opts.model);
  else if (opts.modelFlag && opts.model !== undefined) argv.push(opts.modelFlag, opts.model);
  for (const [key, value] of opts.flags) {
    if (value === null) continue;
    if (value === true) {
      argv.push(optionName(key, opts.flagStyle));
    } else if (value === false) {
      const off = opts.disableForm?.(key);
      if (off !== undefined) argv.push(off);
    } else {
      argv.push(optionName(key, opts.flagStyle), renderValue(value));
    }
  }
  return argv;
}

/** The command line exactly as Python's shlex.join prints it. */
export function renderCommand(opts: RenderOptions): string {
  return shlexJoin(renderArgv(opts));
}
