// One generation request inside the engine: its prompt, progress, KV blocks, modelled times, and the block
// hash chain the prefix cache matches on.
import { mix32, outputTokenId } from './tokens';

export type FinishReason = 'length' | 'stop' | 'abort';

export interface RequestSink {
  /**
   * Output tokens [from, from + count) are ready; `finish` is set on the last delivery. `at` is the simulated
   * time (seconds) of the step that produced them.
   */
  tokens(from: number, count: number, finish: FinishReason | null, at: number): void;
  /** The engine failed under this request (crash flag, shutdown). */
  failed(message: string): void;
}

export class SimRequest {
  state: 'waiting' | 'running' | 'done' = 'waiting';
  generated = 0;
  delivered = 0;
  /** Tokens whose KV is in cache. */
  computed = 0;
  /** Tokens that must be computed before the next token can be sampled. */
  target: number;
  shared: number[] = [];
  priv = 0;
  /** Next block index to publish into the prefix cache. */
  pubIdx = 0;
  /** Prompt tokens found in the prefix cache at first admission. */
  cachedTokens = 0;
  /** A P/D decode worker's request: the prompt's KV arrived from a prefill worker, so only its last token is computed here. */
  preloaded = false;
  /** Simulated times (seconds): arrival, first token, finish. */
  arrivalAt = 0;
  firstAt = NaN;
  doneAt = NaN;
  /** When a step first scheduled it (simulated seconds): queueing ends here. */
  startedAt = NaN;
  /** A P/D decode worker's request: when it reached this worker, before its KV transfer (arrivalAt is when the KV landed). */
  receivedAt = NaN;
  admittedOnce = false;
  /** Speculative decoding: the chance each drafted token is accepted for this request's text (spec.ts). */
  specAlpha = 0;
  /** Speculative decoding: verify steps this request took. */
  specSteps = 0;
  /** Finish with `stop` even at maxNew (the output faults: a server that ends answers wrongly). */
  forceStop = false;
  admitSeq = 0;
  readonly promptLen: number;

  constructor(
    readonly promptIds: readonly number[],
    /** Hash chain of the full blocks of prompt (+ output, extended lazily). */
    readonly hashes: number[],
    readonly maxNew: number,
    /** Generation ends here: maxNew, or earlier when the pseudo-model "emits EOS" (0: right after prefill, no token). */
    readonly stopAt: number,
    readonly seed: number,
    readonly sink: RequestSink,
  ) {
    this.promptLen = promptIds.length;
    this.target = promptIds.length;
  }

  tokenAt(i: number): number {
    return i < this.promptLen ? (this.promptIds[i] as number) : outputTokenId(this.seed, i - this.promptLen);
  }
}

/** Hash chain over full blocks of `ids`: block i's hash covers every token up to its end. */
export function blockHashes(ids: ArrayLike<number>, blockSize: number, upTo = ids.length): number[] {
  const out: number[] = [];
  let h = 0x9747b28c;
  const full = Math.floor(upTo / blockSize);
  for (let b = 0; b < full; b++) {
    for (let i = b * blockSize; i < (b + 1) * blockSize; i++) h = mix32(h, ids[i]);
    out.push(h);
  }
  return out;
}

/** Extends `r.hashes` to cover every full block of its first `tokens` tokens (prompt, then output). */
export function extendHashes(r: SimRequest, blockSize: number, tokens: number): void {
  const full = Math.floor(tokens / blockSize);
  let h = r.hashes.length ? (r.hashes[r.hashes.length - 1] as number) : 0x9747b28c;
  for (let b = r.hashes.length; b < full; b++) {
    for (let i = b * blockSize; i < (b + 1) * blockSize; i++) h = mix32(h, r.tokenAt(i));
    r.hashes.push(h);
  }
}
