// A plan's dataset keys beyond the scenario lengths: which kinds read a file, which run per scenario, and the dataset.<group>.<key> options each kind takes (the `autobench bench` flag of the same name).
import type { DatasetName, DatasetOptions } from './options';

/** Kinds whose prompts follow each scenario's input_len/output_len. */
export const PER_SCENARIO_KINDS: readonly DatasetName[] = ['random', 'random-ids', 'builtin-text'];
/** Kinds read from the file at dataset.path (custom: also dataset.canonical_jsonl). */
export const FILE_KINDS: readonly DatasetName[] = ['sharegpt', 'custom', 'mooncake', 'trace-csv'];
/** What the file at dataset.path holds, per file kind (errors say it). */
export const FILE_WHAT: Readonly<Record<string, string>> = {
  sharegpt: 'a ShareGPT JSON file (a list of {"conversations": [...]})',
  custom: 'a JSONL file of {"prompt", "output_len"} rows',
  mooncake: 'a Mooncake trace JSONL ({"timestamp", "input_length", "output_length", "hash_ids"} per line)',
  'trace-csv': 'a CSV trace with a timestamp column and input/output token columns (Azure: TIMESTAMP, ContextTokens, GeneratedTokens; BurstGPT: Timestamp, Request tokens, Response tokens)',
};

export type OptionGroup = 'sharegpt' | 'gsp' | 'mooncake' | 'trace';
export interface OptionKey {
  opt: keyof DatasetOptions;
  type: 'int' | 'number' | 'bool';
  min?: number;
  /** The dataset kind cannot run without it. */
  required?: boolean;
}

/** dataset.<group>.<key> -> the dataset option it sets (the CLI flag --<group>-<key, dashed>). */
export const OPTION_KEYS: Readonly<Record<OptionGroup, Readonly<Record<string, OptionKey>>>> = {
  sharegpt: {
    output_len: { opt: 'sharegptOutputLen', type: 'int', min: 4 },
    context_len: { opt: 'sharegptContextLen', type: 'int', min: 1 },
  },
  gsp: {
    num_groups: { opt: 'gspNumGroups', type: 'int', min: 1, required: true },
    prompts_per_group: { opt: 'gspPromptsPerGroup', type: 'int', min: 1, required: true },
    system_prompt_len: { opt: 'gspSystemPromptLen', type: 'int', min: 0 },
    question_len: { opt: 'gspQuestionLen', type: 'int', min: 1 },
    output_len: { opt: 'gspOutputLen', type: 'int', min: 1 },
    range_ratio: { opt: 'gspRangeRatio', type: 'number', min: 0 },
    num_turns: { opt: 'gspNumTurns', type: 'int', min: 1 },
    turn_delay_ms: { opt: 'gspTurnDelayMs', type: 'number', min: 0 },
    turn_delay_cv: { opt: 'gspTurnDelayCv', type: 'number', min: 0 },
    ordered: { opt: 'gspOrdered', type: 'bool' },
    send_routing_key: { opt: 'gspSendRoutingKey', type: 'bool' },
  },
  trace: {
    slowdown_factor: { opt: 'mooncakeSlowdownFactor', type: 'number', min: 0.001 },
  },
  mooncake: {
    slowdown_factor: { opt: 'mooncakeSlowdownFactor', type: 'number', min: 0.001 },
    num_rounds: { opt: 'mooncakeNumRounds', type: 'int', min: 1 },
  },
};

/** The option group a kind reads (generated-shared-prefix: `gsp`). */
export function optionGroupOf(kind: string): OptionGroup | undefined {
  if (kind === 'generated-shared-prefix') return 'gsp';
  if (kind === 'trace-csv') return 'trace';
  return kind === 'sharegpt' || kind === 'mooncake' ? kind : undefined;
}

/** One option's value, or why it is not one. */
export function optionValue(k: OptionKey, v: unknown): { ok: true; value: number | boolean } | { ok: false; want: string } {
  if (k.type === 'bool') return typeof v === 'boolean' ? { ok: true, value: v } : { ok: false, want: 'true or false' };
  const want = `${k.type === 'int' ? 'an integer' : 'a number'}${k.min !== undefined ? ` >= ${k.min}` : ''}`;
  if (typeof v !== 'number' || !Number.isFinite(v) || (k.type === 'int' && !Number.isInteger(v)) || (k.min !== undefined && v < k.min)) return { ok: false, want };
  return { ok: true, value: v };
}
