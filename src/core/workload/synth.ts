// Prompt text of an exact token count for a given tokenizer, built without re-encoding every prompt (pure-JS encoding costs ~0.1 ms per token).
import type { Rng } from './rng';
import type { TokenizerLike } from './tokenizer';

const POOL_MAX = 2000;
const POOL_MIN = 64;
const ADDITIVITY_SAMPLE = 400;
const FIXUP_ROUNDS = 10;

/**
 * Two strategies:
 * - word pool (preferred): single-token lowercase words that stay single tokens when joined by spaces;
 *   n pool words joined by ' ' encode to exactly n tokens. This is checked once on a joined sample.
 * - fix-up loop (fallback, and for recycled real text): decode ids, re-encode, truncate or extend,
 *   up to 10 rounds, the way vLLM's random dataset does.
 */
export class PromptSynth {
  private pool: string[] | undefined;
  private poolWorks = false;
  private allowed: number[] | undefined;

  constructor(
    readonly tokenizer: TokenizerLike,
    private readonly rng: Rng,
  ) {}

  /** 'word-pool' or 'fix-up': which strategy text() uses for this tokenizer. */
  strategy(): 'word-pool' | 'fix-up' {
    this.ensurePool();
    return this.poolWorks ? 'word-pool' : 'fix-up';
  }

  /** Text whose encoding without special tokens has n tokens. */
  text(n: number): string {
    if (n <= 0) return '';
    this.ensurePool();
    if (this.poolWorks) {
      const pool = this.pool as string[];
      const words = new Array<string>(n);
      for (let i = 0; i < n; i++) words[i] = this.rng.pick(pool);
      return words.join(' ');
    }
    return this.fixUp(this.randomIds(n), n).text;
  }

  /** Random non-special ids. */
  randomIds(n: number): number[] {
    const allowed = this.allowedIds();
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.rng.pick(allowed);
    return out;
  }

  /** Decode/re-encode until the text encodes to n tokens (or the rounds run out; `exact` says which). */
  fixUp(ids: number[], n: number): { text: string; exact: boolean } {
    let cur = ids.slice(0, n);
    if (cur.length < n) cur = cur.concat(this.randomIds(n - cur.length));
    let text = this.tokenizer.decode(cur, true);
    for (let round = 0; round < FIXUP_ROUNDS; round++) {
      const re = this.tokenizer.encode(text, false);
      if (re.length === n) return { text, exact: true };
      cur = re.length > n ? re.slice(0, n) : re.concat(this.randomIds(n - re.length));
      text = this.tokenizer.decode(cur, true);
    }
    return { text, exact: this.tokenizer.encode(text, false).length === n };
  }

  allowedIds(): number[] {
    if (!this.allowed) {
      const out: number[] = [];
      for (let id = 0; id < this.tokenizer.vocabSize; id++) {
        if (this.tokenizer.specialIds.has(id)) continue;
        const t = this.tokenizer.idToToken(id);
        // Byte-fallback pieces like <0x0A> decode to control bytes or broken UTF-8; leave them out.
        if (t === undefined || /^<0x[0-9A-Fa-f]{2}>$/.test(t)) continue;
        out.push(id);
      }
      if (out.length === 0) throw new Error(`tokenizer ${this.tokenizer.name} has no usable ids`);
      this.allowed = out;
    }
    return this.allowed;
  }

  private ensurePool(): void {
    if (this.pool) return;
    const tk = this.tokenizer;
    const pool: string[] = [];
    for (let id = 0; id < tk.vocabSize && pool.length < POOL_MAX; id++) {
      const t = tk.idToToken(id);
      if (t === undefined || tk.specialIds.has(id)) continue;
      // A word-start marker (SentencePiece '▁' or byte-level 'Ġ'), then 3-10 lowercase letters.
      const m = /^(?:\u2581|\u0120)([a-z]{3,10})$/.exec(t);
      if (!m) continue;
      const w = m[1] as string;
      if (tk.encode(w, false).length === 1 && tk.encode(`${w} ${w}`, false).length === 2) pool.push(w);
    }
    this.pool = pool;
    if (pool.length < POOL_MIN) return;
    const sample: string[] = [];
    for (let i = 0; i < ADDITIVITY_SAMPLE; i++) sample.push(this.rng.pick(pool));
    this.poolWorks = tk.encode(sample.join(' '), false).length === ADDITIVITY_SAMPLE;
  }
}
