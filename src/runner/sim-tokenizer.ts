// The simulated engine's tokenizer as a TokenizerLike: prompts of exact length as the sim counts them, no model files needed.
import type { TokenizerLike } from '../core/workload/tokenizer';
import { WORDS } from '../sim/tokens';
import { countTokens, tokenize } from '../sim/tokens';

/** The `--tokenizer` value that names this tokenizer (`autobench bench`, and the benchmark command of a simulated row). */
export const SIM_TOKENIZER_ARG = 'autobench-sim';

/**
 * The vocabulary is the sim's own pseudo-words (each one token with its leading space), spelled the
 * SentencePiece way ('▁word') so the workload's word-pool synthesiser picks them up. Encoding is the
 * sim's scanner, so a prompt built here has exactly the length the simulated server counts.
 */
export class SimTokenizer implements TokenizerLike {
  readonly name = 'autobench-sim (the simulated engine tokenizer)';
  readonly specialIds: ReadonlySet<number> = new Set();
  readonly vocabSize = WORDS.length;

  encode(text: string): number[] {
    // Ids are the sim's piece hashes; only their count matters to the workload builder.
    return tokenize(text);
  }

  decode(ids: readonly number[]): string {
    return ids.map((id) => (WORDS[id % WORDS.length] ?? ' a').trimStart()).join(' ');
  }

  idToToken(id: number): string | undefined {
    const w = WORDS[id];
    return w === undefined ? undefined : `\u2581${w.trimStart()}`;
  }

  numSpecialTokensToAdd(): number {
    return 0;
  }

  count(text: string): number {
    return countTokens(text);
  }
}
