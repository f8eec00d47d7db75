// What every dataset builder gets: options, tokenizer, a seeded RNG, the synthesizer, and helpers to finish a text prompt.
import { applyChatTemplate } from './chat-template';
import type { DatasetOptions } from './options';
import type { Rng } from './rng';
import type { PromptSynth } from './synth';
import type { TokenizerLike } from './tokenizer';

export interface BuildContext {
  opts: DatasetOptions;
  tokenizer: TokenizerLike;
  rng: Rng;
  synth: PromptSynth;
  notes: string[];
}

/**
 * Applies --prompt-suffix, then (text backends with --apply-chat-template) the chat template, the
 * way SGLang does: a trailing 'Assistant:' is moved after the suffix.
 */
export function finishText(ctx: BuildContext, text: string): string {
  let out = text;
  const suffix = ctx.opts.promptSuffix;
  if (suffix) {
    const m = /Assistant:\s*$/.exec(out);
    out = m ? `${out.slice(0, m.index)}${suffix}Assistant:` : out + suffix;
  }
  if (ctx.opts.applyChatTemplate && !ctx.opts.chatBackend) out = applyChatTemplate(ctx.tokenizer, [{ role: 'user', content: out }]);
  return out;
}

/** Extra tokens the finishing step adds to a prompt (template and suffix), measured once on a sample. */
export function finishOverhead(ctx: BuildContext): number {
  if (!ctx.opts.promptSuffix && !(ctx.opts.applyChatTemplate && !ctx.opts.chatBackend)) return 0;
  const sample = ctx.synth.text(16);
  return ctx.tokenizer.encode(finishText(ctx, sample), true).length - ctx.tokenizer.encode(sample, true).length;
}
