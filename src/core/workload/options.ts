// Dataset options with SGLang bench_serving's names and defaults (camelCased), shared by the CLI and the runner.
import type { RangeRatioConvention } from './lengths';

export const DATASET_NAMES = ['random', 'random-ids', 'builtin-text', 'sharegpt', 'custom', 'generated-shared-prefix', 'mooncake', 'trace-csv'] as const;
export type DatasetName = (typeof DATASET_NAMES)[number];

export interface DatasetOptions {
  datasetName: DatasetName;
  /** sharegpt (JSON), custom (JSONL), mooncake (JSONL); for random, a ShareGPT file to recycle text from (optional). */
  datasetPath?: string;
  numPrompts: number;
  seed: number;
  randomInputLen: number;
  randomOutputLen: number;
  randomRangeRatio: number;
  rangeRatioConvention: RangeRatioConvention;
  sharegptOutputLen?: number;
  sharegptContextLen?: number;
  gspNumGroups: number;
  gspPromptsPerGroup: number;
  gspSystemPromptLen: number;
  gspQuestionLen: number;
  gspOutputLen: number;
  gspRangeRatio: number;
  gspNumTurns: number;
  /** Mean think time before each later turn (ms; 0: none), and its coefficient of variation (0: fixed; lognormal draws otherwise). */
  gspTurnDelayMs: number;
  gspTurnDelayCv: number;
  gspOrdered: boolean;
  gspSendRoutingKey: boolean;
  mooncakeSlowdownFactor: number;
  mooncakeNumRounds: number;
  /** Render the tokenizer's chat template into text prompts (completions and native backends). */
  applyChatTemplate: boolean;
  /** The backend speaks chat: prompts stay messages and the server applies its template. */
  chatBackend: boolean;
  promptSuffix?: string;
  /** Re-encode up to this many prompt tokens to check lengths (pure-JS encoding costs ~0.1 ms per token). */
  verifyBudgetTokens: number;
}

export const DATASET_DEFAULTS: Omit<DatasetOptions, 'datasetName'> = {
  numPrompts: 1000,
  seed: 42,
  randomInputLen: 1024,
  randomOutputLen: 1024,
  randomRangeRatio: 0.0,
  rangeRatioConvention: 'sglang',
  gspNumGroups: 64,
  gspPromptsPerGroup: 16,
  gspSystemPromptLen: 2048,
  gspQuestionLen: 128,
  gspOutputLen: 256,
  gspRangeRatio: 1.0,
  gspNumTurns: 1,
  gspTurnDelayMs: 0,
  gspTurnDelayCv: 1,
  gspOrdered: false,
  gspSendRoutingKey: false,
  mooncakeSlowdownFactor: 1.0,
  mooncakeNumRounds: 1,
  applyChatTemplate: false,
  chatBackend: false,
  verifyBudgetTokens: 20000,
};
