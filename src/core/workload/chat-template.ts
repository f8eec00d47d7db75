// Renders a model's Jinja chat template (tokenizer_config.json) for --apply-chat-template, as transformers' apply_chat_template would.
import { Template } from '@huggingface/jinja';
import type { TokenizerLike } from './tokenizer';
import type { ChatMessage } from './types';

const cache = new Map<string, Template>();

/**
 * The prompt text the model would see for `messages`, ending with the assistant's turn opener.
 * A leading BOS is removed because the tokenizer adds it again when the server encodes the text.
 */
export function applyChatTemplate(tokenizer: TokenizerLike, messages: readonly ChatMessage[], opts: { keepBos?: boolean } = {}): string {
  const source = tokenizer.chatTemplate;
  if (!source) throw new Error(`tokenizer ${tokenizer.name} has no chat template; pass --chat-template FILE or leave out --apply-chat-template`);
  let tpl = cache.get(source);
  if (!tpl) {
    tpl = new Template(source);
    cache.set(source, tpl);
  }
  const text = tpl.render({
    messages,
    add_generation_prompt: true,
    bos_token: tokenizer.bosToken ?? '',
    eos_token: tokenizer.eosToken ?? '',
  });
  const bos = tokenizer.bosToken;
  if (!opts.keepBos && bos && text.startsWith(bos)) return text.slice(bos.length);
  return text;
}
