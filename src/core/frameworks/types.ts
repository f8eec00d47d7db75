// What the core knows about each serving framework: spelling, limits, fixed knobs and flags.

export const FRAMEWORKS = ['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed'] as const;
export type FrameworkKey = (typeof FRAMEWORKS)[number];

export function isFrameworkKey(k: unknown): k is FrameworkKey {
  return typeof k === 'string' && (FRAMEWORKS as readonly string[]).includes(k);
}

/** The value a flag takes on the command line. */
export type ValueKind = 'bool' | 'int' | 'float' | 'string' | 'choice' | 'json' | 'path' | 'list';

/**
 * One server flag, keyed the way cookbook configs spell it (`tp_size`, `max_model_len`;
 * TensorRT-LLM keeps its click names verbatim). Used for the built-in table and snapshots alike.
 */
export interface FlagSpec {
  /** Config key (underscored for sglang/vllm/tokenspeed; verbatim for tensorrt_llm). */
  key: string;
  /** Other config keys that mean the same flag (`tensor_parallel_size` for `tp_size`). */
  aliases?: string[];
  kind: ValueKind;
  choices?: string[];
  /** True when the server turns this on unless told otherwise. */
  defaultOn?: boolean;
  /** The exact option string that turns a default-on flag off (`--no-enable-prefix-caching`). */
  disableForm?: string;
  /** The printed default, as text, when the help shows one. */
  default?: string;
  /** One-line description (ours for the built-in table; the snapshot's for snapshots). */
  help?: string;
  /** Option is deprecated in this CLI version. */
  deprecated?: boolean;
}

export interface FrameworkSpec {
  key: FrameworkKey;
  displayName: string;
  /** How a config key becomes an option: `dash` (`_` -> `-`) or `verbatim` (TensorRT-LLM click names). */
  flagStyle: 'dash' | 'verbatim';
  /** The flag that caps prompt + output length. */
  sequenceLimitKey: string;
  /** Value assumed when the base flags omit the sequence limit: `dataset` = the required length R. */
  sequenceLimitDefault: 'dataset' | 0;
  /** Memory knobs kept fixed in base flags (never searched by default). */
  memoryKnobs: string[];
  /** Whether the model name is passed as a positional argument after the command. */
  positionalModel: boolean;
  /** The option that carries the model when it is not positional (TokenSpeed's `--model`: its CLI refuses a positional argument in some versions). */
  modelFlag?: string;
  defaultServerCommand: string;
  /** The address the server binds when its command sets no `--host`: `0.0.0.0` (every interface) or a loopback one (then it answers only on its own host). */
  defaultHost: string;
  /** Flags that only make sense for a smoke run (eager mode, CUDA graphs off). */
  smokeOnlyFlags: string[];
  /** Flags for DBO / all-to-all backends that should not be in a default pass. */
  advancedCommFlags: string[];
  /** Keys for tensor, pipeline and data parallel sizes, in that order (undefined: none). */
  parallelKeys: { tp: string[]; pp: string[]; dp: string[] };
  /** Keys that name the model and tokenizer (fairness across frameworks). */
  modelKeys: string[];
  tokenizerKeys: string[];
  /** The built-in flag table, used when no snapshot applies. */
  builtinFlags: FlagSpec[];
  /** The version whose captured `--help` the built-in table follows (names, kinds, defaults), as shown to users. */
  builtinVersion: string;
}
