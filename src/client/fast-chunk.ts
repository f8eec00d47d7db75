// The common streamed chunk read without JSON.parse: one pass over the bytes finds the token text, or says "parse it properly".

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;

function keyIs(buf: Buffer, a: number, b: number, key: string): boolean {
  if (b - a !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (buf[a + k] !== key.charCodeAt(k)) return false;
  return true;
}

/**
 * The token text of an OpenAI streaming chunk in buf[s, e) ('' for a chunk that carries none, such as
 * the role-only first chunk), or undefined when the chunk is not a plain one: any escape, a usage,
 * logprobs or error value, tool calls, reasoning, an abort, no choices. Those go to JSON.parse.
 * Without escapes a quote always ends a string, so every key seen is a real key. For chat the text
 * is the first string "content" (the delta's; message logprobs would be an object and bail out).
 * The tests run both paths over the same chunks.
 */
export function fastTokenText(buf: Buffer, s: number, e: number, chat: boolean): string | undefined {
  if (buf[s] !== OPEN || buf[e - 1] !== CLOSE) return undefined;
  const bs = buf.indexOf(BACKSLASH, s);
  if (bs >= 0 && bs < e) return undefined;
  let sawChoices = false;
  let text: string | undefined;
  let i = s + 1;
  while (i < e) {
    if (buf[i] !== QUOTE) {
      i++;
      continue;
    }
    const a = i + 1;
    let b = a;
    while (b < e && buf[b] !== QUOTE) b++;
    if (b >= e) return undefined;
    i = b + 1;
    if (buf[i] !== COLON) continue; // a string value, not a key
    const v = buf[i + 1]; // the value's first byte (chunks carry no whitespace after ':'; if they do, we bail below)
    const len = b - a;
    switch (len) {
      case 4: // text
        if (!chat && text === undefined && keyIs(buf, a, b, 'text')) {
          if (v !== QUOTE) return undefined;
          let c = i + 2;
          while (c < e && buf[c] !== QUOTE) c++;
          if (c >= e) return undefined;
          text = buf.toString('utf8', i + 2, c);
          i = c + 1;
        }
        break;
      case 5: // usage, error
        if (keyIs(buf, a, b, 'usage')) {
          if (v !== 0x6e /* n(ull) */) return undefined;
        } else if (keyIs(buf, a, b, 'error')) return undefined;
        break;
      case 7: // choices, content
        if (keyIs(buf, a, b, 'choices')) {
          if (v !== 0x5b /* [ */ || buf[i + 2] !== OPEN) return undefined;
          sawChoices = true;
        } else if (chat && text === undefined && keyIs(buf, a, b, 'content')) {
          if (v === QUOTE) {
            let c = i + 2;
            while (c < e && buf[c] !== QUOTE) c++;
            if (c >= e) return undefined;
            text = buf.toString('utf8', i + 2, c);
            i = c + 1;
          } else if (v === 0x6e) {
            text = '';
          } else return undefined;
        }
        break;
      case 8: // logprobs
        if (keyIs(buf, a, b, 'logprobs') && v !== 0x6e) return undefined;
        break;
      case 9: // reasoning
      case 10: // tool_calls
      case 17: // reasoning_content
        if (keyIs(buf, a, b, 'reasoning') || keyIs(buf, a, b, 'tool_calls') || keyIs(buf, a, b, 'reasoning_content')) {
          if (v !== 0x6e) return undefined;
        }
        break;
      case 13: // finish_reason
        if (keyIs(buf, a, b, 'finish_reason') && v === QUOTE && keyIs(buf, i + 2, i + 7, 'abort')) return undefined;
        break;
      default:
        break;
    }
  }
  if (!sawChoices) return undefined;
  return text ?? '';
}
