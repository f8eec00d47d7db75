// A loopback OpenAI/SGLang-compatible streaming server for client tests and bench/client: configurable timing, chunking, usage and failures; records exactly when it wrote what.
import { createServer, type Server, type Socket } from 'node:net';

export interface FakeBehaviour {
  /** From the moment the request body is complete to the first token event. */
  ttftMs: number;
  /** Between token events; 0 writes as fast as the sockets take them. */
  itlMs: number;
  /** Output tokens; default: the request's max tokens. */
  tokens?: number;
  /** Tokens carried by each content event. */
  tokensPerChunk: number;
  /** auto: a usage chunk when stream_options.include_usage; continuous: also usage on every chunk when continuous_usage_stats. */
  usage: 'auto' | 'always' | 'never';
  /** Chat: a role-only first event ({"role":"assistant","content":""}) right at ttft, before the first token. */
  roleChunk: boolean;
  /** Completions: an event with empty text right at ttft, before the first token. */
  emptyFirstChunk: boolean;
  /** Send that lead-in (role-only or empty chunk) this many ms after the body instead of with the first token, as servers that announce the role before prefill do. */
  leadChunkAtMs?: number;
  /** Wait this long after the last token before the usage chunk and [DONE]. */
  tailDelayMs?: number;
  /** Non-200 answers with a JSON error body. */
  status: number;
  /** Replace this token event (0-based) with malformed JSON. */
  malformedAt?: number;
  /** Close the connection abruptly instead of writing this token event. */
  disconnectAt?: number;
  /** Stop writing (connection stays open) instead of this token event. */
  stallAt?: number;
  /** Send an in-stream error event instead of this token event, then end the stream. */
  errorEventAt?: number;
  /** A ': ping' comment line before every N-th token event. */
  commentEvery?: number;
  /** CRLF line ends in the SSE body. */
  crlf: boolean;
  /** Write every event in two halves (a line split across reads). */
  splitEvents: boolean;
  /** event: one write per event; sync: the whole stream in one write at ttft (0 ms gaps only). */
  writeMode: 'event' | 'sync';
  /** With itlMs 0 and writeMode event: events per stream per round-robin turn. */
  burst: number;
  /** Omit the final [DONE] line. */
  noDone: boolean;
  /** Answer with JSON even when streaming was asked for. */
  ignoreStream: boolean;
}

export const DEFAULT_BEHAVIOUR: FakeBehaviour = {
  ttftMs: 0,
  itlMs: 0,
  tokensPerChunk: 1,
  usage: 'auto',
  roleChunk: true,
  emptyFirstChunk: false,
  status: 200,
  crlf: false,
  splitEvents: false,
  writeMode: 'event',
  burst: 1,
  noDone: false,
  ignoreStream: false,
};

export type EventKind = 'role' | 'empty' | 'token' | 'usage' | 'done' | 'comment' | 'malformed' | 'error';

/** What the server did for one request; times are performance.now() of this process. */
export interface Truth {
  seq: number;
  requestId: string | undefined;
  headers: Record<string, string>;
  path: string;
  body: Record<string, unknown>;
  /** Accepted the connection that carried it. */
  tConn: number;
  tHead: number;
  tBody: number;
  status: number;
  /** When each token event was handed to the socket, and how many tokens it carried. */
  tokenTimes: number[];
  tokenCounts: number[];
  /** Every event in order (only with `detailed`). */
  events: { kind: EventKind; t: number }[];
  tEnd: number;
  outcome: 'complete' | 'disconnected' | 'stalled' | 'client-closed' | 'error-status';
  promptTokens: number;
  completionTokens: number;
}

export interface FakeServerOptions {
  behaviour?: Partial<FakeBehaviour>;
  /** Per-request changes (tests); a request body field `fake` is merged over both. */
  decide?: (body: Record<string, unknown>, seq: number, path: string) => Partial<FakeBehaviour> | undefined;
  model?: string;
  /** Keep the per-event log (tests); the bench turns it off. */
  detailed?: boolean;
  /** Status of POST /flush_cache and /reset_prefix_cache. */
  flushStatus?: number;
  /** Status of GET /v1/models. */
  modelsStatus?: number;
  /** Overrides the answer of a non-generation route (path with its query): /v1/models, /health, /readiness, /flush_cache, ...; undefined: the default answer. */
  control?: (method: string, path: string) => { status: number; body: unknown } | undefined;
}

interface Stream {
  sock: Socket;
  truth: Truth;
  b: FakeBehaviour;
  kind: 'completions' | 'chat' | 'native';
  total: number;
  sent: number;
  /** Absolute due time of the next token event. */
  due: number;
  wantUsage: boolean;
  continuous: boolean;
  nativeText: string;
  leadSent: boolean;
  /** Waiting for the delayed tail: no more token events. */
  finishing: boolean;
  done: boolean;
  conn: Conn;
}

interface Conn {
  sock: Socket;
  buf: Buffer;
  tConn: number;
  busy: boolean;
  closed: boolean;
  current: Stream | undefined;
}

const HEAD_SSE = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n';
const TOK = ' tok';

function frame(payload: string): Buffer {
  const len = Buffer.byteLength(payload);
  return Buffer.from(`${len.toString(16)}\r\n${payload}\r\n`);
}

/** A min-heap of streams by due time, so one timer serves every paced stream. */
class DueHeap {
  private a: Stream[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): Stream | undefined {
    return this.a[0];
  }
  push(s: Stream): void {
    const a = this.a;
    a.push(s);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((a[p] as Stream).due <= s.due) break;
      a[i] = a[p] as Stream;
      i = p;
    }
    a[i] = s;
  }
  pop(): Stream | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && (a[r] as Stream).due < (a[l] as Stream).due ? r : l;
        if ((a[c] as Stream).due >= last.due) break;
        a[i] = a[c] as Stream;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

export class FakeServer {
  readonly truths: Truth[] = [];
  private server: Server;
  private seq = 0;
  private heap = new DueHeap();
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  private rr: Stream[] = [];
  private rrScheduled = false;
  private conns = new Set<Conn>();
  private readonly model: string;
  private readonly base: FakeBehaviour;
  private templates = new Map<string, Buffer>();
  flushCount = 0;
  /** `METHOD path` of every request the `control` option answered. */
  readonly controlPaths: string[] = [];
  port = 0;

  constructor(private readonly opts: FakeServerOptions = {}) {
    this.model = opts.model ?? 'fake-model';
    this.base = { ...DEFAULT_BEHAVIOUR, ...opts.behaviour };
    this.server = createServer({ noDelay: true }, (sock) => this.onConnection(sock));
  }

  /** The address listened on: loopback unless a caller (a Slurm node's client) needs another. */
  private host = '127.0.0.1';

  listen(port = 0, host = '127.0.0.1'): Promise<number> {
    this.host = host;
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.port = (this.server.address() as { port: number }).port;
        resolve(this.port);
      });
    });
  }

  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  setBehaviour(b: Partial<FakeBehaviour>): void {
    Object.assign(this.base, b);
  }

  reset(): void {
    this.truths.length = 0;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    for (const c of this.conns) c.sock.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private onConnection(sock: Socket): void {
    const conn: Conn = { sock, buf: Buffer.alloc(0), tConn: performance.now(), busy: false, closed: false, current: undefined };
    this.conns.add(conn);
    sock.on('data', (d: Buffer) => this.onData(conn, d));
    sock.on('close', () => {
      conn.closed = true;
      this.conns.delete(conn);
      const s = conn.current;
      if (s && !s.done) this.endStream(s, 'client-closed');
    });
    sock.on('error', () => undefined);
  }

  private onData(conn: Conn, d: Buffer): void {
    const t = performance.now();
    conn.buf = conn.buf.length ? Buffer.concat([conn.buf, d]) : d;
    for (;;) {
      if (conn.busy) return; // no pipelining: the next request waits for this response
      const headEnd = conn.buf.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = conn.buf.toString('latin1', 0, headEnd);
      const lines = head.split('\r\n');
      const [method, path] = (lines[0] ?? '').split(' ');
      const headers = new Map<string, string>();
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers.set(l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim());
      }
      const len = Number(headers.get('content-length') ?? '0');
      if (conn.buf.length < headEnd + 4 + len) return;
      const bodyText = conn.buf.toString('utf8', headEnd + 4, headEnd + 4 + len);
      conn.buf = conn.buf.subarray(headEnd + 4 + len);
      conn.busy = true;
      this.handle(conn, method ?? '', path ?? '', headers, bodyText, t);
    }
  }

  private reply(conn: Conn, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    const reason = status === 200 ? 'OK' : status === 404 ? 'Not Found' : status === 400 ? 'Bad Request' : status === 503 ? 'Service Unavailable' : 'Error';
    conn.sock.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: keep-alive\r\n\r\n${text}`);
    this.responseDone(conn);
  }

  private responseDone(conn: Conn): void {
    conn.busy = false;
    conn.current = undefined;
    if (conn.buf.length > 0) setImmediate(() => this.onData(conn, Buffer.alloc(0)));
  }

  private handle(conn: Conn, method: string, path: string, headers: Map<string, string>, bodyText: string, tBody: number): void {
    const route = path.split('?')[0] ?? '';
    const over = route.startsWith('/v1/completions') || route.startsWith('/v1/chat') || route === '/generate' ? undefined : this.opts.control?.(method, path);
    if (over) {
      this.controlPaths.push(`${method} ${path}`);
      if (route === '/flush_cache' || route === '/reset_prefix_cache') this.flushCount++;
      this.reply(conn, over.status, over.body);
      return;
    }
    if (method === 'GET' && route === '/v1/models') {
      const st = this.opts.modelsStatus ?? 200;
      this.reply(conn, st, st === 200 ? { object: 'list', data: [{ id: this.model, object: 'model' }] } : { message: 'not ready' });
      return;
    }
    if (method === 'GET' && (route === '/health' || route === '/server_info')) {
      this.reply(conn, 200, { fake: true, model: this.model });
      return;
    }
    if (method === 'POST' && (route === '/flush_cache' || route === '/reset_prefix_cache')) {
      this.flushCount++;
      this.reply(conn, this.opts.flushStatus ?? 200, { ok: true });
      return;
    }
    const kind = route === '/v1/completions' ? 'completions' : route === '/v1/chat/completions' ? 'chat' : route === '/generate' ? 'native' : undefined;
    if (method !== 'POST' || !kind) {
      this.reply(conn, 404, { message: `no route ${method} ${route}` });
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(bodyText) as Record<string, unknown>;
    } catch {
      this.reply(conn, 400, { message: 'body is not JSON' });
      return;
    }
    const seq = this.seq++;
    const b: FakeBehaviour = { ...this.base, ...(this.opts.decide?.(body, seq, route) ?? {}), ...((body.fake as Partial<FakeBehaviour> | undefined) ?? {}) };
    const sampling = (body.sampling_params ?? {}) as Record<string, unknown>;
    const maxTokens = Number(body.max_tokens ?? body.max_completion_tokens ?? sampling.max_new_tokens ?? 16);
    const total = b.tokens ?? maxTokens;
    const promptText = typeof body.prompt === 'string' ? body.prompt : typeof body.text === 'string' ? body.text : Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]).map((m) => (typeof m.content === 'string' ? m.content : '')).join(' ') : '';
    const truth: Truth = {
      seq,
      requestId: headers.get('x-request-id'),
      headers: Object.fromEntries(headers),
      path: route,
      body,
      tConn: conn.tConn,
      tHead: tBody,
      tBody,
      status: b.status,
      tokenTimes: [],
      tokenCounts: [],
      events: [],
      tEnd: NaN,
      outcome: 'complete',
      promptTokens: promptText.split(/\s+/).filter(Boolean).length,
      completionTokens: 0,
    };
    this.truths.push(truth);
    if (b.status !== 200) {
      truth.outcome = 'error-status';
      truth.tEnd = performance.now();
      this.reply(conn, b.status, { object: 'error', message: `fake failure ${b.status}`, code: b.status });
      return;
    }
    const so = (body.stream_options ?? {}) as Record<string, unknown>;
    const s: Stream = {
      sock: conn.sock,
      truth,
      b,
      kind,
      total,
      sent: 0,
      due: tBody + b.ttftMs,
      wantUsage: b.usage === 'always' || (b.usage === 'auto' && so.include_usage === true),
      continuous: b.usage !== 'never' && so.continuous_usage_stats === true,
      nativeText: '',
      leadSent: false,
      finishing: false,
      done: false,
      conn,
    };
    conn.current = s;
    if (body.stream === false || b.ignoreStream) {
      this.nonStream(s);
      return;
    }
    conn.sock.write(HEAD_SSE);
    if (b.writeMode === 'sync') {
      setTimeout(() => this.writeAll(s), b.ttftMs);
      return;
    }
    if (b.leadChunkAtMs !== undefined) {
      setTimeout(() => {
        if (!s.done && !s.conn.closed && s.truth.tokenTimes.length === 0) this.writeLead(s, performance.now());
      }, b.leadChunkAtMs);
    }
    this.schedule(s);
  }

  private nonStream(s: Stream): void {
    const wait = s.b.ttftMs + Math.max(0, s.total - 1) * s.b.itlMs;
    setTimeout(() => {
      if (s.conn.closed) return;
      const text = TOK.repeat(s.total);
      const usage = s.b.usage === 'never' ? undefined : { prompt_tokens: s.truth.promptTokens, completion_tokens: s.total, total_tokens: s.truth.promptTokens + s.total };
      let body: unknown;
      if (s.kind === 'native') body = { text, meta_info: { prompt_tokens: s.truth.promptTokens, completion_tokens: s.total } };
      else if (s.kind === 'chat') body = { id: 'chatcmpl-fake', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'length' }], ...(usage ? { usage } : {}) };
      else body = { id: 'cmpl-fake', object: 'text_completion', choices: [{ index: 0, text, finish_reason: 'length' }], ...(usage ? { usage } : {}) };
      const t = performance.now();
      s.truth.tokenTimes.push(t);
      s.truth.tokenCounts.push(s.total);
      s.truth.completionTokens = s.total;
      s.done = true;
      s.truth.tEnd = t;
      this.reply(s.conn, 200, body);
    }, wait);
  }

  // ---- pacing ----

  private schedule(s: Stream): void {
    if (s.b.itlMs === 0 && s.sent > 0) {
      this.rr.push(s);
      this.kickRoundRobin();
      return;
    }
    this.heap.push(s);
    this.arm();
  }

  private arm(): void {
    const top = this.heap.peek();
    if (!top) return;
    if (this.timer && this.timerDue <= top.due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = top.due;
    this.timer = setTimeout(() => this.fire(), Math.max(0, top.due - performance.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    const now = performance.now();
    // Everything due within the next 0.2 ms goes now: timers fire at ms granularity.
    while (this.heap.size > 0 && (this.heap.peek() as Stream).due <= now + 0.2) {
      const s = this.heap.pop() as Stream;
      if (s.done || s.finishing) continue;
      this.writeNext(s);
      if (!s.done && !s.finishing) {
        s.due += s.b.itlMs;
        this.schedule(s);
      }
    }
    this.arm();
  }

  private kickRoundRobin(): void {
    if (this.rrScheduled) return;
    this.rrScheduled = true;
    setImmediate(() => this.roundRobin());
  }

  /** 0 ms gaps: `burst` events per live stream per turn, waiting on a full socket like a real server would. */
  private roundRobin(): void {
    this.rrScheduled = false;
    const list = this.rr;
    this.rr = [];
    for (const s of list) {
      if (s.done || s.finishing) continue;
      let ok = true;
      for (let k = 0; k < s.b.burst && !s.done && !s.finishing; k++) ok = this.writeNext(s);
      if (s.done || s.finishing) continue;
      if (ok) this.rr.push(s);
      else s.sock.once('drain', () => this.schedule(s));
    }
    if (this.rr.length > 0) this.kickRoundRobin();
  }

  // ---- events ----

  private tpl(key: string, make: () => string): Buffer {
    let b = this.templates.get(key);
    if (!b) {
      b = frame(make());
      this.templates.set(key, b);
    }
    return b;
  }

  private sse(s: Stream, payload: string): string {
    return s.b.crlf ? `data: ${payload}\r\n\r\n` : `data: ${payload}\n\n`;
  }

  private write(s: Stream, buf: Buffer, kind: EventKind, t: number): boolean {
    if (this.opts.detailed) s.truth.events.push({ kind, t });
    if (s.b.splitEvents && buf.length > 8) {
      // Split inside the payload, so a line arrives across two reads.
      const mid = buf.length >> 1;
      s.sock.write(buf.subarray(0, mid));
      return s.sock.write(buf.subarray(mid));
    }
    return s.sock.write(buf);
  }

  /** The role-only (chat) or empty (completions) chunk before the first token, once. */
  private writeLead(s: Stream, t: number): boolean {
    if (s.leadSent) return true;
    s.leadSent = true;
    if (s.kind === 'chat' && s.b.roleChunk) {
      return this.write(s, frame(this.sse(s, `{"id":"chatcmpl-fake","object":"chat.completion.chunk","created":0,"model":"${this.model}","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`)), 'role', t);
    }
    if (s.kind === 'completions' && s.b.emptyFirstChunk) {
      return this.write(s, frame(this.sse(s, `{"id":"cmpl-fake","object":"text_completion","created":0,"model":"${this.model}","choices":[{"index":0,"text":"","logprobs":null,"finish_reason":null}]}`)), 'empty', t);
    }
    return true;
  }

  private contentPayload(s: Stream, n: number, last: boolean): string {
    const text = TOK.repeat(n);
    const fin = last ? '"length"' : 'null';
    const cum = s.truth.completionTokens;
    const usage = s.continuous ? `,"usage":{"prompt_tokens":${s.truth.promptTokens},"completion_tokens":${cum},"total_tokens":${s.truth.promptTokens + cum}}` : '';
    if (s.kind === 'chat') return `{"id":"chatcmpl-fake","object":"chat.completion.chunk","created":0,"model":"${this.model}","choices":[{"index":0,"delta":{"content":"${text}"},"logprobs":null,"finish_reason":${fin}}]${usage}}`;
    if (s.kind === 'completions') return `{"id":"cmpl-fake","object":"text_completion","created":0,"model":"${this.model}","choices":[{"index":0,"text":"${text}","logprobs":null,"finish_reason":${fin}}]${usage}}`;
    s.nativeText += text;
    const finish = last ? `{"type":"length","length":${s.total}}` : 'null';
    return `{"text":"${s.nativeText}","meta_info":{"id":"fake","prompt_tokens":${s.truth.promptTokens},"completion_tokens":${cum},"finish_reason":${finish}}}`;
  }

  /** Writes the next token event (with any lead-in) and returns socket.write's verdict. */
  private writeNext(s: Stream): boolean {
    const b = s.b;
    const idx = s.truth.tokenTimes.length;
    if (s.conn.closed) {
      this.endStream(s, 'client-closed');
      return false;
    }
    if (b.disconnectAt === idx) {
      s.sock.destroy();
      this.endStream(s, 'disconnected');
      return false;
    }
    if (b.stallAt === idx) {
      this.endStream(s, 'stalled');
      return false;
    }
    let t = performance.now();
    let ok = true;
    if (idx === 0) ok = this.writeLead(s, t);
    if (b.commentEvery && idx > 0 && idx % b.commentEvery === 0) ok = this.write(s, frame(b.crlf ? ': ping\r\n\r\n' : ': ping\n\n'), 'comment', t);
    if (b.malformedAt === idx) {
      this.write(s, frame(this.sse(s, '{"choices": [{"text": "tok"')), 'malformed', t);
      this.finishStream(s);
      return false;
    }
    if (b.errorEventAt === idx) {
      this.write(s, frame(this.sse(s, '{"object":"error","error":{"message":"fake engine failure","code":500}}')), 'error', t);
      this.finishStream(s);
      return false;
    }
    const n = Math.min(b.tokensPerChunk, s.total - s.sent);
    s.sent += n;
    s.truth.completionTokens = s.sent;
    const last = s.sent >= s.total;
    let buf: Buffer;
    if (s.continuous || s.kind === 'native' || b.crlf) buf = frame(this.sse(s, this.contentPayload(s, n, last)));
    else buf = this.tpl(`${s.kind}:${n}:${last}`, () => this.sse(s, this.contentPayload(s, n, last)));
    t = performance.now();
    s.truth.tokenTimes.push(t);
    s.truth.tokenCounts.push(n);
    ok = this.write(s, buf, 'token', t) && ok;
    if (last) {
      this.finishStream(s);
      return false;
    }
    return ok;
  }

  private finishStream(s: Stream): void {
    if (s.b.tailDelayMs && !s.done) {
      const delay = s.b.tailDelayMs;
      s.b = { ...s.b, tailDelayMs: 0 };
      s.finishing = true;
      setTimeout(() => {
        if (!s.conn.closed) this.finishStream(s);
      }, delay);
      return;
    }
    const t = performance.now();
    const parts: Buffer[] = [];
    if (s.wantUsage && s.kind !== 'native') {
      const u = `{"id":"x","object":"${s.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion'}","created":0,"model":"${this.model}","choices":[],"usage":{"prompt_tokens":${s.truth.promptTokens},"completion_tokens":${s.sent},"total_tokens":${s.truth.promptTokens + s.sent}}}`;
      parts.push(frame(this.sse(s, u)));
      if (this.opts.detailed) s.truth.events.push({ kind: 'usage', t });
    }
    if (!s.b.noDone) {
      parts.push(frame(this.sse(s, '[DONE]')));
      if (this.opts.detailed) s.truth.events.push({ kind: 'done', t });
    }
    parts.push(Buffer.from('0\r\n\r\n'));
    s.sock.write(Buffer.concat(parts));
    this.endStream(s, 'complete');
    this.responseDone(s.conn);
  }

  private endStream(s: Stream, outcome: Truth['outcome']): void {
    if (s.done) return;
    s.done = true;
    s.truth.outcome = outcome;
    s.truth.tEnd = performance.now();
  }

  /** Whole stream in one write (the client's parse ceiling, without per-event syscalls). */
  private writeAll(s: Stream): void {
    if (s.conn.closed) return;
    const parts: Buffer[] = [];
    const t = performance.now();
    if (s.kind === 'chat' && s.b.roleChunk) parts.push(frame(this.sse(s, `{"id":"chatcmpl-fake","object":"chat.completion.chunk","created":0,"model":"${this.model}","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`)));
    while (s.sent < s.total) {
      const n = Math.min(s.b.tokensPerChunk, s.total - s.sent);
      s.sent += n;
      s.truth.completionTokens = s.sent;
      const last = s.sent >= s.total;
      parts.push(s.continuous || s.kind === 'native' ? frame(this.sse(s, this.contentPayload(s, n, last))) : this.tpl(`${s.kind}:${n}:${last}`, () => this.sse(s, this.contentPayload(s, n, last))));
      s.truth.tokenTimes.push(t);
      s.truth.tokenCounts.push(n);
    }
    s.sock.write(Buffer.concat(parts));
    this.finishStream(s);
  }
}

/** Truth metrics for one request, in the client's terms: TTFT from body receipt, gaps between token writes (split per token). */
export function truthMetrics(t: Truth): { ttftMs: number; e2eMs: number; itlMs: number[]; tokens: number } {
  const first = t.tokenTimes[0] ?? NaN;
  const itl: number[] = [];
  for (let i = 1; i < t.tokenTimes.length; i++) {
    const gap = (t.tokenTimes[i] as number) - (t.tokenTimes[i - 1] as number);
    const n = t.tokenCounts[i] as number;
    for (let k = 0; k < n; k++) itl.push(gap / n);
  }
  return { ttftMs: first - t.tBody, e2eMs: (t.tokenTimes[t.tokenTimes.length - 1] ?? NaN) - t.tBody, itlMs: itl, tokens: t.completionTokens };
}
