// The measuring loop: arrivals against absolute times, the concurrency cap, one Exchange per request, live events, client CPU and event-loop delay.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Pool } from 'undici';
import type { ChatMessage, WorkloadRow } from '../core/workload/types';
import { askedLength, buildBody, type ApiKind, type ApiSpec, type BodyOptions } from './backends';
import { DeferredQueue } from './deferred';
import { Exchange } from './exchange';
import { tpotOf } from './metrics';
import { clientBound } from './trust';
import { RequestError, type RequestRecord } from './record';
import type { BenchEvent, BenchOptions, ClientStats } from './types';

interface Pending {
  row: WorkloadRow;
  index: number;
  turn: number;
  arrivalMs: number;
  body: Buffer;
  promptLen: number;
  /** What the body asked for (askedLength). */
  asked: Asked;
  messages?: ChatMessage[];
}

type Asked = ReturnType<typeof askedLength>;

/** A body serialised, and what it asks of the output length. */
function encode(kind: ApiKind, body: Record<string, unknown>): { body: Buffer; asked: Asked } {
  return { body: Buffer.from(JSON.stringify(body)), asked: askedLength(kind, body) };
}

export interface RunContext {
  pool: Pool;
  api: ApiSpec;
  basePath: string;
  headers: Record<string, string>;
  bodyOpts: BodyOptions;
  options: BenchOptions;
  emit: (e: BenchEvent) => void;
  signal: AbortSignal | undefined;
}

export interface MeasureResult {
  t0: number;
  records: RequestRecord[];
  durationMs: number;
  client: ClientStats;
  aborted: boolean;
}

function newRecord(p: Pending, warmup: boolean): RequestRecord {
  return {
    index: p.index,
    turn: p.turn,
    scenario: p.row.scenario,
    warmup,
    promptLen: p.promptLen,
    outputLenRequested: p.asked.maxTokens ?? p.row.outputLen,
    ignoreEos: p.asked.ignoreEos,
    arrivalMs: p.arrivalMs,
    startMs: 0,
    success: false,
    error: '',
    status: 0,
    ttftMs: NaN,
    e2eMs: NaN,
    itlMs: [],
    outputTokens: 0,
    outputTokensSource: 'stream',
    chunks: 0,
    streamTokens: 0,
    generatedText: '',
  };
}

/** The median of `v`, sorting it in place; null when empty. */
function median(v: number[]): number | null {
  if (v.length === 0) return null;
  const s = v.sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Sampling interval of the event-loop delay histogram. */
const LOOP_RESOLUTION_MS = 10;

/** What the client process itself cost over the measured window. */
function clientStats(durationMs: number, cpu: NodeJS.CpuUsage, loop: IntervalHistogram): ClientStats {
  const p99 = loop.percentile(99) / 1e6;
  const max = loop.max / 1e6;
  // The histogram holds whole timer periods; the lag is what exceeds the period.
  const lag = (v: number): number => Math.max(0, v - LOOP_RESOLUTION_MS);
  const s = {
    cpuPercent: durationMs > 0 ? ((cpu.user + cpu.system) / 1000 / durationMs) * 100 : 0,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    eventLoopDelayMeanMs: loop.mean / 1e6,
    eventLoopDelayP99Ms: p99,
    eventLoopDelayMaxMs: max,
    eventLoopLagP99Ms: lag(p99),
    eventLoopLagMaxMs: lag(max),
  };
  return { ...s, bound: clientBound(s, durationMs) };
}

/** The state of one measuring loop: what is due, what is in flight, counters and the current progress window. */
class MeasureLoop {
  private readonly records: RequestRecord[] = [];
  private readonly inflight = new Set<Exchange>();
  private readonly timeoutMs: number;
  private readonly path: string;
  private readonly n: number;
  private readonly limit: number;
  private readonly queue = new DeferredQueue();
  private readonly exchanges = new Map<Exchange, Pending>();
  private readonly bodies: Buffer[];
  private readonly asked: Asked[];
  private readonly ready: number[] = [];
  private readonly onDone = (ex: Exchange): void => this.finished(ex);
  private readyHead = 0;
  private nextArrival = 0;
  private timer: NodeJS.Timeout | undefined;
  private active = 0;
  /** Rows not yet finished with all their turns. */
  private outstanding: number;
  private started = 0;
  private completed = 0;
  private failed = 0;
  private outputTokens = 0;
  private winDone = 0;
  private winTokens = 0;
  private winTtft: number[] = [];
  private winTpot: number[] = [];
  private lastTick = 0;
  private aborted = false;
  /** Set when run() starts; arrival and start times count from it. */
  private t0 = 0;
  /** Set by run(): stops the timers and settles the result. */
  private resolveDone: (() => void) | undefined;

  constructor(
    private readonly ctx: RunContext,
    private readonly rows: readonly WorkloadRow[],
    private readonly arrivals: Float64Array,
    cap: number | null,
    private readonly warmup: boolean,
  ) {
    this.path = `${ctx.basePath}${ctx.api.path}`;
    this.n = rows.length;
    this.limit = cap ?? Infinity;
    this.timeoutMs = (ctx.options.requestTimeoutS ?? 21_600) * 1000;
    this.outstanding = this.n;
    // Bodies are serialised before the clock starts: nothing heavy happens between arrival and send.
    const built = rows.map((row) => encode(ctx.api.kind, buildBody(ctx.api.kind, row, ctx.bodyOpts)));
    this.bodies = built.map((b) => b.body);
    this.asked = built.map((b) => b.asked);
  }

  /** Hands one request to its connection; its start time is taken right before. */
  private send(p: Pending): void {
    const rec = newRecord(p, this.warmup);
    this.records.push(rec);
    const ex = new Exchange(this.ctx.api.kind, rec, this.queue, this.onDone);
    this.exchanges.set(ex, p);
    this.inflight.add(ex);
    this.started++;
    const hdrs = p.row.headers ? { ...this.ctx.headers, ...p.row.headers } : this.ctx.headers;
    ex.startT = performance.now();
    rec.startMs = ex.startT - this.t0;
    ex.deadline = ex.startT + this.timeoutMs;
    this.ctx.pool.dispatch({ path: this.path, method: 'POST', headers: hdrs, body: p.body, blocking: false }, ex);
  }

  /** Sends every row that is due while slots are free, and sets a timer for the next arrival. */
  private pump(): void {
    if (this.aborted) return;
    const { rows, arrivals, n, ready, warmup } = this;
    const now = performance.now() - this.t0;
    while (this.nextArrival < n && (arrivals[this.nextArrival] as number) <= now) ready.push(this.nextArrival++);
    while (this.readyHead < ready.length && this.active < this.limit) {
      const i = ready[this.readyHead++] as number;
      const row = rows[i] as WorkloadRow;
      this.active++;
      this.send({ row, index: warmup ? -1 - i : i, turn: 0, arrivalMs: arrivals[i] as number, body: this.bodies[i] as Buffer, asked: this.asked[i] as Asked, promptLen: row.promptLen });
    }
    if (this.nextArrival < n && this.timer === undefined) {
      const wait = Math.max(0, (arrivals[this.nextArrival] as number) - (performance.now() - this.t0));
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
    }
  }

  /** Counts a finished request in the totals and the progress window. */
  private count(rec: RequestRecord): void {
    if (rec.success) {
      this.completed++;
      this.outputTokens += rec.outputTokens;
      this.winDone++;
      this.winTokens += rec.outputTokens;
      this.winTtft.push(rec.ttftMs);
      const tp = tpotOf(rec);
      if (tp !== undefined) this.winTpot.push(tp);
    } else {
      this.failed++;
    }
  }

  /** Sends the conversation's next turn in the same slot (history, the reply, the next question); false when it has none. */
  private nextTurn(p: Pending, rec: RequestRecord): boolean {
    const turns = p.row.turns;
    if (!(rec.success && turns && p.turn < turns.length && !this.aborted)) return false;
    const history = p.messages ?? (typeof p.row.prompt === 'string' ? [{ role: 'user', content: p.row.prompt }] : p.row.prompt);
    const messages: ChatMessage[] = [...history, { role: 'assistant', content: rec.generatedText }, { role: 'user', content: turns[p.turn] as string }];
    const promptLen = p.promptLen + rec.outputTokens + (p.row.turnLens?.[p.turn] ?? 0);
    const { body, asked } = encode(this.ctx.api.kind, buildBody(this.ctx.api.kind, p.row, this.ctx.bodyOpts, messages));
    this.send({ row: p.row, index: p.index, turn: p.turn + 1, arrivalMs: performance.now() - this.t0, body, asked, promptLen, messages });
    return true;
  }

  /** A request is over: count it, continue its conversation, or free its slot. */
  private finished(ex: Exchange): void {
    this.inflight.delete(ex);
    const p = this.exchanges.get(ex) as Pending;
    this.exchanges.delete(ex);
    const rec = ex.record;
    this.count(rec);
    if (!this.warmup) this.ctx.emit({ type: 'request', record: rec });
    if (this.nextTurn(p, rec)) return;
    this.active--;
    this.outstanding--;
    if (this.outstanding === 0 || (this.aborted && this.inflight.size === 0)) {
      this.resolveDone?.();
      return;
    }
    this.pump();
  }

  /** Emits a progress event for the window since the last one, and starts a new window. */
  private tick(): void {
    const now = performance.now() - this.t0;
    const dt = (now - this.lastTick) / 1000;
    this.lastTick = now;
    this.ctx.emit({
      type: 'progress',
      elapsedS: now / 1000,
      total: this.n,
      started: this.started,
      completed: this.completed,
      failed: this.failed,
      inFlight: this.inflight.size,
      outputTokens: this.outputTokens,
      requestsPerS: dt > 0 ? this.winDone / dt : 0,
      outputTokensPerS: dt > 0 ? this.winTokens / dt : 0,
      ttftMsP50: median(this.winTtft),
      tpotMsP50: median(this.winTpot),
    });
    this.winDone = 0;
    this.winTokens = 0;
    this.winTtft = [];
    this.winTpot = [];
  }

  /** Aborts the requests past their deadline. */
  private sweep(): void {
    const now = performance.now();
    for (const ex of this.inflight) if (now > ex.deadline) ex.abort(new RequestError('timeout', `no complete response within ${this.timeoutMs / 1000} s`));
  }

  /** The run was cancelled: stop sending and abort what is in flight. */
  private abortAll(): void {
    this.aborted = true;
    if (this.timer) clearTimeout(this.timer);
    for (const ex of this.inflight) ex.abort(new RequestError('aborted', 'the run was cancelled'));
    if (this.inflight.size === 0) this.resolveDone?.();
  }

  /** Starts the clock and the timers, sends what is due, and settles once every row is done or the run is cancelled. */
  run(): Promise<MeasureResult> {
    const { options, signal } = this.ctx;
    const warmup = this.warmup;
    const t0 = (this.t0 = performance.now());
    const cpu0 = process.cpuUsage();
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loop.enable();
    const progressEvery = options.progressIntervalMs ?? 500;
    const progressTimer = warmup ? undefined : setInterval(() => this.tick(), progressEvery);
    // One sweep a second finds requests past their deadline (cheaper than a timer per request).
    const sweep = setInterval(() => this.sweep(), Math.min(1000, Math.max(50, this.timeoutMs / 4)));
    const onAbort = (): void => this.abortAll();
    return new Promise<MeasureResult>((resolve) => {
      this.resolveDone = (): void => {
        const durationMs = performance.now() - t0;
        if (this.timer) clearTimeout(this.timer);
        if (progressTimer) clearInterval(progressTimer);
        clearInterval(sweep);
        signal?.removeEventListener('abort', onAbort);
        loop.disable();
        const cpu = process.cpuUsage(cpu0);
        if (!warmup) this.tick();
        this.records.sort((a, b) => (warmup ? b.index - a.index : a.index - b.index) || a.turn - b.turn);
        resolve({ t0, records: this.records, durationMs, aborted: this.aborted, client: clientStats(durationMs, cpu, loop) });
      };
      if (this.n === 0) {
        this.resolveDone();
        return;
      }
      if (signal) {
        if (signal.aborted) {
          this.aborted = true;
          this.resolveDone();
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
      }
      this.pump();
    });
  }
}

/**
 * The measuring loop. Arrival times are absolute (ms after t0): a late timer sends everything that is
 * due at once, and nothing drifts. A request holds a concurrency slot from send to finish; its
 * start time (TTFT and E2E count from it) is taken right before it is handed to its connection.
 */
export function measure(ctx: RunContext, rows: readonly WorkloadRow[], arrivals: Float64Array, cap: number | null, warmup: boolean): Promise<MeasureResult> {
  return new MeasureLoop(ctx, rows, arrivals, cap, warmup).run();
}
