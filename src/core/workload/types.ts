// Workload rows: what each benchmark request sends, independent of the backend that will carry it.

export interface ChatMessage {
  role: string;
  content: string | unknown[] | null;
}

export type Prompt = string | ChatMessage[];

export interface WorkloadRow {
  /** Text for completions/native, or chat messages (a string is wrapped as one user message on chat backends). */
  prompt: Prompt;
  /** The exact ids, when the dataset made them (random-ids); sent as input_ids with --tokenize-prompt on the native backend. */
  promptIds?: number[];
  /** Prompt tokens as our tokenizer counts them (special tokens included). */
  promptLen: number;
  /** Tokens to generate (the max-tokens limit; EOS is ignored by default so it is reached). */
  outputLen: number;
  /** Merged over the run's extra body; the row's keys win. */
  extraBody?: Record<string, unknown>;
  /** Never sent. */
  metadata?: Record<string, unknown>;
  /** Scenario name for the per-scenario length statistics. */
  scenario: string;
  /** Later user turns of a multi-turn conversation (chat backends), sent one after another with the replies in between. */
  turns?: string[];
  /** Token counts of `turns` (for the prompt length of later turns). */
  turnLens?: number[];
  /** Think time before each of `turns` (ms after the previous turn's answer ended). */
  thinkMs?: number[];
  /** Output tokens of each of `turns` when they differ from outputLen (a trace's sessions). */
  turnOutputLens?: number[];
  /** Trace replay: when this request is due, in ms after the first one. */
  arrivalMs?: number;
  /** Extra HTTP headers for this request (e.g. a routing key). */
  headers?: Record<string, string>;
}

export interface Workload {
  /** Dataset name as the CLI knows it (random, random-ids, builtin-text, sharegpt, custom, generated-shared-prefix, mooncake). */
  name: string;
  rows: WorkloadRow[];
  /** Lines for the user: conventions applied, rows dropped and why, how lengths were checked. */
  notes: string[];
  /** 'exact': every promptLen was re-encoded; 'constructed': exact by construction, a sample re-encoded; 'target': the requested length, not re-encoded. */
  promptLenCheck: 'exact' | 'constructed' | 'target';
  /** True when the rows carry their own arrival times (trace replay). */
  timed: boolean;
  /** A run's file dataset too small for fresh prompts: this many rows were sent before in the run (a server without a cache flush sees cached prompts). */
  reusedRows?: number;
}
