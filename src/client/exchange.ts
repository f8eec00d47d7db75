// One HTTP request/response: an undici dispatch handler whose read callback only stamps and keeps bytes; SSE and JSON are handled later, off the read path.
import type { Dispatcher } from 'undici';
import type { ApiKind } from './backends';
import type { DeferredQueue } from './deferred';
import { RequestError, type ErrorKind, type RequestRecord } from './record';
import { StreamParser, errorText, num } from './stream-parser';

const MAX_ERROR_BODY = 2000;

type Json = Record<string, unknown>;

/**
 * Lifecycle: dispatch() -> onConnect/onHeaders/onData.../onComplete|onError (I/O phase: stamp and
 * keep) -> process() (check phase: parse what arrived; finish once ended) -> onDone(record).
 */
export class Exchange implements Dispatcher.DispatchHandler {
  // Filled in the I/O phase.
  private readonly chunks: Buffer[] = [];
  private readonly times: number[] = [];
  private queued = false;
  private ended = false;
  private endT = 0;
  private ioError: RequestError | undefined;
  private abortFn: ((err?: Error) => void) | undefined;
  status = 0;
  private statusText = '';
  private sse = true;

  // Filled in the check phase.
  private readonly parser: StreamParser;
  private finished = false;
  private readonly body: Buffer[] = [];
  private bodyLen = 0;

  /** Absolute performance.now() when the request was handed to undici. */
  startT = 0;
  deadline = Infinity;

  constructor(
    readonly kind: ApiKind,
    readonly record: RequestRecord,
    private readonly queue: DeferredQueue,
    private readonly onDone: (ex: Exchange) => void,
  ) {
    this.parser = new StreamParser(kind);
  }

  get inFlight(): boolean {
    return !this.ended;
  }

  /** Cancels the request (timeout, user abort); the record gets this reason. */
  abort(err: RequestError): void {
    if (this.ended) return;
    this.ioError = err;
    if (this.abortFn) this.abortFn(err);
    else this.markEnded();
  }

  // ---- undici handler (I/O phase): keep this lean ----

  onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort;
    // Cancelled while it waited for a connection.
    if (this.ioError) abort(this.ioError);
  }

  onHeaders(statusCode: number, headers: Buffer[], _resume: () => void, statusText: string): boolean {
    if (statusCode < 200) return true;
    this.status = statusCode;
    this.statusText = statusText;
    if (statusCode === 200) {
      // SSE unless the server answered with plain JSON (stream off, or a server that ignores it).
      for (let i = 0; i + 1 < headers.length; i += 2) {
        const k = (headers[i] as Buffer).toString('latin1');
        if (k.length === 12 && k.toLowerCase() === 'content-type') {
          this.sse = !(headers[i + 1] as Buffer).toString('latin1').toLowerCase().includes('application/json');
          break;
        }
      }
    } else {
      this.sse = false;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.times.push(performance.now());
    this.chunks.push(chunk);
    if (!this.queued) {
      this.queued = true;
      this.queue.add(this);
    }
    return true;
  }

  onComplete(): void {
    this.markEnded();
  }

  onError(err: Error): void {
    if (!this.ioError) this.ioError = classify(err);
    this.markEnded();
  }

  private markEnded(): void {
    if (this.ended) return;
    this.ended = true;
    this.endT = performance.now();
    if (!this.queued) {
      this.queued = true;
      this.queue.add(this);
    }
  }

  // ---- check phase ----

  process(): void {
    this.queued = false;
    if (this.finished) return;
    const chunks = this.chunks;
    const times = this.times;
    if (chunks.length > 0) {
      // Nothing can append while this runs (one thread, check phase), so the arrays are reused.
      const p = this.parser;
      const streamed = this.status === 200 && this.sse;
      for (let i = 0; i < chunks.length; i++) {
        if (p.failure) break;
        const chunk = chunks[i] as Buffer;
        if (streamed) p.consume(chunk, times[i] as number);
        else if (this.bodyLen < (this.status === 200 ? Infinity : MAX_ERROR_BODY)) {
          // A whole JSON answer, or an error body (kept short).
          this.body.push(chunk);
          this.bodyLen += chunk.length;
        }
      }
      chunks.length = 0;
      times.length = 0;
      if (p.failure && !this.ended && this.abortFn) this.abortFn(p.failure);
    }
    if (this.ended) this.finish();
  }

  private finish(): void {
    this.finished = true;
    const p = this.parser;
    if (this.status === 200 && this.sse) p.flush(this.endT);
    const r = this.record;
    r.status = this.status;
    const fail = (kind: ErrorKind, msg: string): void => {
      r.success = false;
      r.errorKind = kind;
      r.error = msg;
    };
    if (p.usagePrompt !== undefined) r.promptTokensServer = p.usagePrompt;
    if (p.cached !== undefined) r.cachedTokens = p.cached;
    // Our own abort after a parse failure surfaces as a socket error; the parse failure is the reason.
    if (this.ioError && !(this.ioError.kind === 'disconnect' && p.failure)) {
      fail(this.ioError.kind, this.ioError.message);
    } else if (p.failure) {
      fail(p.failure.kind, p.failure.message);
    } else if (this.status !== 200) {
      const body = Buffer.concat(this.body).toString('utf8', 0, Math.min(this.bodyLen, MAX_ERROR_BODY)).trim();
      fail('http', `HTTP ${this.status}${this.statusText ? ` ${this.statusText}` : ''}${body ? `: ${body}` : ''}`);
    } else if (!this.sse) {
      this.finishJson(Buffer.concat(this.body).toString('utf8'));
      return;
    } else if (p.tokenEvents === 0) {
      fail('empty', 'the stream ended without any output token');
    } else {
      r.success = true;
      r.ttftMs = p.firstT - this.startT;
      r.e2eMs = p.lastT - this.startT;
      r.itlMs = p.itl;
      r.chunks = p.tokenEvents;
      r.streamTokens = p.tokens;
      if (p.usageCompletion !== undefined) {
        r.outputTokens = p.usageCompletion;
        r.outputTokensSource = 'usage';
      } else {
        r.outputTokens = p.tokens;
        r.outputTokensSource = 'stream';
      }
    }
    r.generatedText = p.text.join('');
    if (!r.success) {
      // Partial timings are not metrics; keep what is useful for the error report.
      r.ttftMs = Number.isNaN(p.firstT) ? NaN : p.firstT - this.startT;
      r.e2eMs = this.endT - this.startT;
      r.itlMs = [];
      r.outputTokens = 0;
    }
    this.onDone(this);
  }

  private finishJson(body: string): void {
    const r = this.record;
    let obj: Json;
    try {
      obj = JSON.parse(body) as Json;
    } catch {
      r.success = false;
      r.errorKind = 'malformed';
      r.error = `response is not JSON: ${body.slice(0, 200)}`;
      r.e2eMs = this.endT - this.startT;
      this.onDone(this);
      return;
    }
    let text = '';
    const choices = obj.choices;
    if (Array.isArray(choices) && choices.length > 0) {
      const c0 = choices[0] as Json;
      if (typeof c0.text === 'string') text = c0.text;
      const m = c0.message as Json | undefined;
      if (m && typeof m === 'object') text = `${typeof m.reasoning_content === 'string' ? m.reasoning_content : ''}${typeof m.content === 'string' ? m.content : ''}`;
    } else if (typeof obj.text === 'string') {
      text = obj.text;
    }
    const usage = (obj.usage ?? obj.meta_info) as Json | undefined;
    const done = usage && typeof usage === 'object' ? num(usage.completion_tokens) : undefined;
    const p = usage && typeof usage === 'object' ? num(usage.prompt_tokens) : undefined;
    if (p !== undefined) r.promptTokensServer = p;
    const cached = cachedOf(obj);
    if (cached !== undefined) r.cachedTokens = cached;
    if (obj.error !== undefined && choices === undefined && obj.text === undefined) {
      r.success = false;
      r.errorKind = 'server';
      r.error = `server error: ${errorText(obj.error)}`;
      r.e2eMs = this.endT - this.startT;
      this.onDone(this);
      return;
    }
    r.success = true;
    r.e2eMs = this.endT - this.startT;
    r.ttftMs = r.e2eMs;
    r.itlMs = [];
    r.chunks = 1;
    r.generatedText = text;
    if (done !== undefined) {
      r.outputTokens = done;
      r.outputTokensSource = 'usage';
    } else {
      r.outputTokens = 0;
      r.outputTokensSource = 'tokenizer';
    }
    this.onDone(this);
  }
}

/** Cached prompt tokens of a whole JSON answer: OpenAI usage.prompt_tokens_details, or SGLang's meta_info. */
function cachedOf(obj: Json): number | undefined {
  const usage = obj.usage as Json | null | undefined;
  const details = usage && typeof usage === 'object' ? (usage.prompt_tokens_details as Json | null | undefined) : undefined;
  if (details && typeof details === 'object' && num(details.cached_tokens) !== undefined) return num(details.cached_tokens);
  const meta = obj.meta_info as Json | null | undefined;
  return meta && typeof meta === 'object' ? num(meta.cached_tokens) : undefined;
}

function classify(err: Error): RequestError {
  if (err instanceof RequestError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const msg = `${err.name}${code ? ` ${code}` : ''}: ${err.message}`;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'EHOSTUNREACH') {
    return new RequestError('connect', `cannot connect: ${msg}`);
  }
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED') {
    return new RequestError('disconnect', `connection closed mid-response: ${msg}`);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new RequestError('timeout', msg);
  if (code === 'HPE_INVALID_CHUNK_SIZE' || code.startsWith('HPE_')) return new RequestError('malformed', `malformed HTTP response: ${msg}`);
  return new RequestError('other', msg);
}
