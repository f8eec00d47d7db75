// One request's outcome as the client measured it; times in ms relative to the benchmark's start.

export type ErrorKind = 'http' | 'connect' | 'disconnect' | 'malformed' | 'server' | 'timeout' | 'empty' | 'aborted' | 'other';

/** Where an output-token count came from; 'requested' only for a non-streamed answer without usage and no tokenizer. */
export type OutputTokensSource = 'usage' | 'tokenizer' | 'stream' | 'requested';

export interface RequestRecord {
  /** Row index in the workload (warmup requests: -1 - n). */
  index: number;
  /** Turn of a multi-turn conversation (0 for the first). */
  turn: number;
  scenario: string;
  warmup: boolean;
  /** Prompt tokens as the workload counted them. */
  promptLen: number;
  /** max tokens sent (the body's max_tokens / max_completion_tokens / max_new_tokens). */
  outputLenRequested: number;
  /** The body demanded all outputLenRequested tokens: ignore_eos true, or a min-tokens field at least the max. */
  ignoreEos?: boolean;
  /** When the arrival process released it. */
  arrivalMs: number;
  /** When it was handed to the connection (after the concurrency slot); TTFT and E2E count from here. */
  startMs: number;
  success: boolean;
  /** '' on success; otherwise why, with the server's words where there were any. */
  error: string;
  errorKind?: ErrorKind;
  status: number;
  /** First token event - start; NaN when none came. */
  ttftMs: number;
  /** Last token event - start (the usage chunk and [DONE] do not extend it). For a non-streamed request: the whole response. */
  e2eMs: number;
  /** Gaps between token events; a chunk carrying n tokens (as the server's running count says) gives n gaps of gap/n. */
  itlMs: number[];
  /** Output tokens: the server's count when reported, else our tokenizer's count of the text, else the stream's token events. */
  outputTokens: number;
  outputTokensSource: OutputTokensSource;
  /** Streamed events that carried output. */
  chunks: number;
  /** Output tokens as the stream itself showed them (events, or the server's running count when it sends one). */
  streamTokens: number;
  promptTokensServer?: number;
  cachedTokens?: number;
  generatedText: string;
}

/** A request's failure with its kind, as recorded. */
export class RequestError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
  }
}
