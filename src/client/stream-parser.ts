// Reads a streamed response (SSE lines of OpenAI or SGLang-native JSON chunks) into token times, counts, text and usage; runs off the read path.
import type { ApiKind } from './backends';
import { fastTokenText } from './fast-chunk';
import { RequestError } from './record';

const NL = 10;
const CR = 13;
const COLON = 58;
const BRACE = 123;
const DATA = Buffer.from('data:');
const EVENT = Buffer.from('event:');

type Json = Record<string, unknown>;

function startsWithAt(buf: Buffer, at: number, end: number, prefix: Buffer): boolean {
  if (end - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function errorText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') {
    const m = (v as Json).message;
    if (typeof m === 'string') return m;
  }
  return JSON.stringify(v);
}

/**
 * Token events: a chunk with output text (or tool calls). A role-only or empty chunk is not one.
 * A chunk carrying n tokens by the server's running count (native meta_info, or OpenAI usage on
 * every chunk) gives n gaps of gap/n; without a count it is one token.
 */
export class StreamParser {
  /** Plain chunks skip JSON.parse (fast-chunk.ts); tests turn it off to compare. */
  static fastChunks = true;
  failure: RequestError | undefined;
  firstT = NaN;
  lastT = NaN;
  /** Tokens as the stream showed them. */
  tokens = 0;
  tokenEvents = 0;
  readonly itl: number[] = [];
  readonly text: string[] = [];
  usageCompletion: number | undefined;
  usagePrompt: number | undefined;
  cached: number | undefined;
  private carry: Buffer | undefined;
  private eventIsError = false;
  private serverCount = -1;
  private nativeText = '';

  constructor(readonly kind: ApiKind) {}

  /** A last line without its newline, at the end of the response. */
  flush(t: number): void {
    if (!this.carry || this.failure) return;
    const rest = this.carry;
    this.carry = undefined;
    this.line(rest, 0, rest.length, t);
  }

  /** Takes the bytes of one read, stamped `t`; a line's time is that of the read that completed it. */
  consume(chunk: Buffer, t: number): void {
    let buf = chunk;
    if (this.carry) {
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = undefined;
    }
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(NL, start);
      if (nl < 0) {
        if (start < buf.length) this.carry = buf.subarray(start);
        return;
      }
      let end = nl;
      if (end > start && buf[end - 1] === CR) end--;
      if (end > start) {
        this.line(buf, start, end, t);
        if (this.failure) return;
      } else {
        this.eventIsError = false; // a blank line ends the event (and its `event:` type)
      }
      start = nl + 1;
    }
  }

  line(buf: Buffer, s: number, e: number, t: number): void {
    const c = buf[s];
    if (c === COLON) return; // SSE comment / keep-alive ping
    let payload: string;
    if (startsWithAt(buf, s, e, DATA)) {
      let p = s + 5;
      if (buf[p] === 32) p++;
      if (this.kind !== 'native' && !this.eventIsError && StreamParser.fastChunks) {
        const text = fastTokenText(buf, p, e, this.kind === 'chat');
        if (text !== undefined) {
          if (text.length > 0) this.token(t, text, 1);
          return;
        }
      }
      payload = buf.toString('utf8', p, e);
    } else if (c === BRACE) {
      payload = buf.toString('utf8', s, e); // a bare JSON line: tolerated
    } else {
      if (startsWithAt(buf, s, e, EVENT)) this.eventIsError = buf.toString('utf8', s + 6, e).trim() === 'error';
      return; // id:, retry:, other fields
    }
    if (payload === '[DONE]') return;
    let obj: Json;
    try {
      obj = JSON.parse(payload) as Json;
    } catch {
      this.failure = new RequestError('malformed', `malformed SSE data: ${payload.slice(0, 200)}`);
      return;
    }
    if (obj === null || typeof obj !== 'object') {
      this.failure = new RequestError('malformed', `malformed SSE data: ${payload.slice(0, 200)}`);
      return;
    }
    if (this.eventIsError || (obj.error !== undefined && obj.error !== null && obj.choices === undefined)) {
      this.failure = new RequestError('server', `server error in stream: ${errorText(obj.error ?? obj)}`);
      return;
    }
    if (this.kind === 'native') this.nativeEvent(obj, t);
    else this.openaiEvent(obj, t);
  }

  private openaiEvent(obj: Json, t: number): void {
    const usage = obj.usage as Json | null | undefined;
    let n = 1;
    if (usage && typeof usage === 'object') {
      const done = num(usage.completion_tokens);
      if (done !== undefined) {
        // Cumulative on every chunk with continuous usage stats; once, at the end, otherwise.
        if (this.serverCount >= 0 && done > this.serverCount) n = done - this.serverCount;
        else if (this.serverCount < 0 && done > 0) n = done;
        this.serverCount = done;
        this.usageCompletion = done;
      }
      const p = num(usage.prompt_tokens);
      if (p !== undefined) this.usagePrompt = p;
      const details = usage.prompt_tokens_details as Json | null | undefined;
      const cached = details && typeof details === 'object' ? num(details.cached_tokens) : undefined;
      if (cached !== undefined) this.cached = cached;
    }
    const choices = obj.choices;
    if (!Array.isArray(choices) || choices.length === 0) return;
    const c0 = choices[0] as Json;
    let text = '';
    let carries = false;
    if (this.kind === 'chat') {
      const d = c0.delta as Json | undefined;
      if (d && typeof d === 'object') {
        if (typeof d.reasoning_content === 'string') text += d.reasoning_content;
        if (typeof d.reasoning === 'string') text += d.reasoning;
        if (typeof d.content === 'string') text += d.content;
        carries = text.length > 0 || (Array.isArray(d.tool_calls) && d.tool_calls.length > 0);
      }
    } else if (typeof c0.text === 'string') {
      text = c0.text;
      carries = text.length > 0;
    }
    if (c0.finish_reason === 'abort') {
      this.failure = new RequestError('server', 'the server aborted the request (finish_reason "abort")');
      return;
    }
    // A role-only or empty chunk is not a token (it would make TTFT near 0 and add a spurious gap).
    if (carries) this.token(t, text, usage && typeof usage === 'object' ? n : 1);
  }

  private nativeEvent(obj: Json, t: number): void {
    const meta = obj.meta_info as Json | undefined;
    const text = typeof obj.text === 'string' ? obj.text : '';
    let done: number | undefined;
    if (meta && typeof meta === 'object') {
      const fr = meta.finish_reason as Json | null | undefined;
      if (fr && typeof fr === 'object' && fr.type === 'abort') {
        this.failure = new RequestError('server', `the server aborted the request: ${errorText(fr.message ?? fr)}`);
        return;
      }
      const p = num(meta.prompt_tokens);
      if (p !== undefined) this.usagePrompt = p;
      const cached = num(meta.cached_tokens);
      if (cached !== undefined) this.cached = cached;
      done = num(meta.completion_tokens);
    }
    // Text is cumulative (the whole output so far) unless the server streams increments.
    let fresh = text;
    if (this.nativeText && text.startsWith(this.nativeText)) {
      fresh = text.slice(this.nativeText.length);
      this.nativeText = text;
    } else {
      this.nativeText += text;
    }
    let n = 1;
    if (done !== undefined) {
      // The running count says how many tokens this chunk carries; 0 means nothing new (skipped, as SGLang does).
      n = done - Math.max(this.serverCount, 0);
      this.serverCount = done;
      this.usageCompletion = done;
      if (n <= 0) return;
    } else if (fresh.length === 0) {
      return;
    }
    this.token(t, fresh, n);
  }

  private token(t: number, text: string, n: number): void {
    this.tokenEvents++;
    if (text) this.text.push(text);
    if (Number.isNaN(this.firstT)) {
      this.firstT = t;
      this.lastT = t;
      this.tokens = n;
      return;
    }
    const gap = t - this.lastT;
    if (n <= 1) this.itl.push(gap);
    else for (let k = 0; k < n; k++) this.itl.push(gap / n);
    this.lastT = t;
    this.tokens += n;
  }
}
