// A captured `--help` text turned into data: every option string, its kind, choices and text.
import type { FrameworkKey, ValueKind } from '../frameworks/types';

export type HelpFormat = 'argparse' | 'click' | 'vllm-grouped-summary';

export interface HelpOption {
  /** Every option string that names this option, as printed (`--tp-size`, `--tensor-parallel-size`). */
  names: string[];
  /** `--no-x` partners printed with it (argparse BooleanOptionalAction), if any. */
  negations: string[];
  /** Whether the option consumes a value (has a metavar or choices). */
  takesValue: boolean;
  metavar?: string;
  valueKind: ValueKind;
  choices?: string[];
  /** The default printed in the help text, when there is one. */
  default?: string;
  /** The help text with line wrapping undone. */
  description: string;
  /** click `:tag:` markers (TensorRT-LLM: `stability`, `prototype`...). */
  tags?: string[];
  /** argparse group heading the option was printed under. */
  group?: string;
  deprecated?: boolean;
}

export type SnapshotRole = 'server' | 'client';

export interface FlagCatalog {
  framework: FrameworkKey | undefined;
  role: SnapshotRole;
  format: HelpFormat;
  /** prog from the `usage:` line, e.g. `vllm serve`, `launch_server.py`, `trtllm-serve serve`. */
  prog?: string;
  options: HelpOption[];
  /** Distinct `--long` option strings, including aliases and `--no-*` forms. */
  optionStrings: string[];
  /**
   * True when the text is vLLM's grouped summary (plain `--help` of vLLM >= 0.11): it lists
   * config groups, not options, so it cannot tell which flags exist. Capture `--help=all`.
   */
  groupedSummaryOnly: boolean;
}

/** A help file found in a folder, classified by its file name. */
export interface SnapshotFile {
  path: string;
  framework: FrameworkKey;
  role: SnapshotRole;
}
