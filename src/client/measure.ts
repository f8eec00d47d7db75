// The measuring loop: arrivals against absolute times, the concurrency cap, one Exchange per request, live events, client CPU and event-loop delay.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Pool } from 'undici';
import type { ChatMessage, WorkloadRow } from '../core/workload/types';
import { askedLength, buildBody, type ApiKind, type ApiSpec, type BodyOptions } from './backends';
import { DeferredQueue } from './deferred';
import { Exchange } from './exchange';
import { ProgressWindow } from './progress-window';
import { LocalRows, type RowSource } from './rows';
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

/** Sampling interval of the event-loop delay histogram. */
const LOOP_RESOLUTION_MS = 10;

/** One thread's event-loop delay over the measured window (ms, whole timer periods included). */
export interface LoopDelay {
  meanMs: number;
  p99Ms: number;
  maxMs: number;
}

export function loopDelay(loop: IntervalHistogram): LoopDelay {
  return { meanMs: loop.mean / 1e6, p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 };
}

/**
 * What the client process itself cost over the measured window: CPU of every thread; the event loop that lagged
 * most (`loops`: one per thread that handled requests). With several workers the CPU limit is per worker.
 */
export function clientStats(durationMs: number, cpu: NodeJS.CpuUsage, loops: readonly LoopDelay[]): ClientStats {
  const worst = loops.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a), loops[0] ?? { meanMs: 0, p99Ms: 0, maxMs: 0 });
  const max = Math.max(0, ...loops.map((l) => l.maxMs));
  // The histogram holds whole timer periods; the lag is what exceeds the period.
  const lag = (v: number): number => Math.max(0, v - LOOP_RESOLUTION_MS);
  const workers = Math.max(1, loops.length);
  const s = {
    cpuPercent: durationMs > 0 ? ((cpu.user + cpu.system) / 1000 / durationMs) * 100 : 0,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    eventLoopDelayMeanMs: loops.reduce((a, l) => a + l.meanMs, 0) / workers,
    eventLoopDelayP99Ms: worst.p99Ms,
    eventLoopDelayMaxMs: max,
    eventLoopLagP99Ms: lag(worst.p99Ms),
    eventLoopLagMaxMs: lag(max),
    workers,
  };
  return { ...s, bound: clientBound(s, durationMs) };
}

/** How a loop runs: its t0 (performance.now() of this thread), whether it emits progress itself. */
export interface LoopSetup {
  t0?: number;
  progress: boolean;
}

/** What a loop hands back: its records, and its own thread's event-loop delay. */
export interface LoopResult {
  t0: number;
  records: RequestRecord[];
  durationMs: number;
  aborted: boolean;
  loop: LoopDelay;
}

/** The state of one measuring loop: what is in flight, counters and the current progress window; the rows come from a RowSource. */
export class MeasureLoop {
  private readonly records: RequestRecord[] = [];
  private readonly inflight = new Set<Exchange>();
  private readonly timeoutMs: number;
  private readonly path: string;
  private readonly n: number;
  private readonly queue = new DeferredQueue();
  private readonly exchanges = new Map<Exchange, Pending>();
  private readonly bodies: Buffer[];
  private readonly asked: Asked[];
  private readonly onDone = (ex: Exchange): void => this.finished(ex);
  private readonly window = new ProgressWindow();
  private timer: NodeJS.Timeout | undefined;
  /** Rows of this loop in flight (a conversation holds its row's slot across its turns). */
  private active = 0;
  private started = 0;
  private aborted = false;
  private settled = false;
  /** Conversations waiting out a think time before their next turn (each holds its slot). */
  private readonly thinking = new Set<() => void>();
  /** Set when run() starts; arrival and start times count from it. */
  private t0 = 0;
  /** Set by run(): stops the timers and settles the result. */
  private resolveDone: (() => void) | undefined;

  constructor(
    private readonly ctx: RunContext,
    private readonly rows: readonly WorkloadRow[],
    private readonly arrivals: Float64Array,
    private readonly source: RowSource,
    private readonly warmup: boolean,
    /** Called right before each send (a shared count of requests started across threads). */
    private readonly onSend: () => void = (): void => undefined,
  ) {
    this.path = `${ctx.basePath}${ctx.api.path}`;
    this.n = rows.length;
    this.timeoutMs = (ctx.options.requestTimeoutS ?? 21_600) * 1000;
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
    this.onSend();
    const hdrs = p.row.headers ? { ...this.ctx.headers, ...p.row.headers } : this.ctx.headers;
    ex.startT = performance.now();
    rec.startMs = ex.startT - this.t0;
    ex.deadline = ex.startT + this.timeoutMs;
    this.ctx.pool.dispatch({ path: this.path, method: 'POST', headers: hdrs, body: p.body, blocking: false }, ex);
  }

  /** Sends every row that is due while slots are free, and sets a timer for when to look again; settles once nothing is left. */
  private pump(): void {
    if (this.aborted) return;
    const { rows, arrivals, warmup } = this;
    const now = performance.now() - this.t0;
    for (let i = this.source.take(now); i >= 0; i = this.source.take(now)) {
      const row = rows[i] as WorkloadRow;
      this.active++;
      this.send({ row, index: warmup ? -1 - i : i, turn: 0, arrivalMs: arrivals[i] as number, body: this.bodies[i] as Buffer, asked: this.asked[i] as Asked, promptLen: row.promptLen });
    }
    if (this.active === 0 && this.source.exhausted()) {
      this.settle();
      return;
    }
    if (this.timer !== undefined) return;
    const due = this.source.nextDue(now, this.active === 0);
    if (due === undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(0, due - (performance.now() - this.t0)));
  }

  /**
   * Sends the conversation's next turn in the same slot (history, the reply, the next question), after its think time
   * when the row has one (the turn's arrival is when it was due, so its start shows any lateness); false when it has none.
   */
  private nextTurn(p: Pending, rec: RequestRecord): boolean {
    const turns = p.row.turns;
    if (!(rec.success && turns && p.turn < turns.length && !this.aborted)) return false;
    const history = p.messages ?? (typeof p.row.prompt === 'string' ? [{ role: 'user', content: p.row.prompt }] : p.row.prompt);
    const messages: ChatMessage[] = [...history, { role: 'assistant', content: rec.generatedText }, { role: 'user', content: turns[p.turn] as string }];
    const promptLen = p.promptLen + rec.outputTokens + (p.row.turnLens?.[p.turn] ?? 0);
    const out = p.row.turnOutputLens?.[p.turn];
    const { body, asked } = encode(this.ctx.api.kind, buildBody(this.ctx.api.kind, out === undefined ? p.row : { ...p.row, outputLen: out }, this.ctx.bodyOpts, messages));
    const think = p.row.thinkMs?.[p.turn] ?? 0;
    const due = performance.now() - this.t0 + think;
    const next: Pending = { row: p.row, index: p.index, turn: p.turn + 1, arrivalMs: due, body, asked, promptLen, messages };
    if (think <= 0) this.send(next);
    else this.thinkThenSend(next, due);
    return true;
  }

  /**
   * A turn waits out its think time holding its slot; a cancel meanwhile ends the conversation. Node's timers round to
   * whole ms and may fire early: the turn is sent only once its due time has come (checked again on the next turn of
   * the event loop until then).
   */
  private thinkThenSend(p: Pending, due: number): void {
    const left = due - (performance.now() - this.t0);
    const wake = (): void => {
      this.thinking.delete(cancel);
      if (this.aborted) return this.endThinking();
      if (due - (performance.now() - this.t0) > 0.02) return this.thinkThenSend(p, due);
      this.send(p);
    };
    // Whole ms by timer, the last fraction by immediates (a 0 ms timer waits about 1 ms).
    let cancel: () => void;
    if (left >= 1) {
      const t = setTimeout(wake, Math.floor(left));
      cancel = () => clearTimeout(t);
    } else {
      const t = setImmediate(wake);
      cancel = () => clearImmediate(t);
    }
    this.thinking.add(cancel);
  }

  /** A conversation that was thinking when the run was cancelled: its slot is freed, and the run settles once nothing is left. */
  private endThinking(): void {
    this.active--;
    if (this.inflight.size === 0 && this.thinking.size === 0) this.settle();
  }

  /** A request is over: count it, continue its conversation, or free its slot. */
  private finished(ex: Exchange): void {
    this.inflight.delete(ex);
    const p = this.exchanges.get(ex) as Pending;
    this.exchanges.delete(ex);
    const rec = ex.record;
    this.window.count(rec);
    if (!this.warmup) this.ctx.emit({ type: 'request', record: rec });
    if (this.nextTurn(p, rec)) return;
    this.active--;
    this.source.release();
    if (this.aborted) {
      if (this.inflight.size === 0 && this.thinking.size === 0) this.settle();
      return;
    }
    this.pump();
  }

  /** Emits a progress event for the window since the last one. */
  private tick(): void {
    this.ctx.emit(this.window.tick(performance.now() - this.t0, this.n, this.started, this.inflight.size));
  }

  /** Aborts the requests past their deadline. */
  private sweep(): void {
    const now = performance.now();
    for (const ex of this.inflight) if (now > ex.deadline) ex.abort(new RequestError('timeout', `no complete response within ${this.timeoutMs / 1000} s`));
  }

  /** The run was cancelled: stop sending and abort what is in flight. */
  abortAll(): void {
    if (this.aborted) return;
    this.aborted = true;
    if (this.timer) clearTimeout(this.timer);
    for (const cancel of this.thinking) cancel();
    this.active -= this.thinking.size;
    this.thinking.clear();
    for (const ex of this.inflight) ex.abort(new RequestError('aborted', 'the run was cancelled'));
    if (this.inflight.size === 0) this.settle();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveDone?.();
  }

  /** Starts the clock and the timers, sends what is due, and settles once every row is done or the run is cancelled. */
  run(setup: LoopSetup): Promise<LoopResult> {
    const { signal } = this.ctx;
    const warmup = this.warmup;
    const t0 = (this.t0 = setup.t0 ?? performance.now());
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loop.enable();
    const progressTimer = setup.progress ? setInterval(() => this.tick(), this.ctx.options.progressIntervalMs ?? 500) : undefined;
    // One sweep a second finds requests past their deadline (cheaper than a timer per request).
    const sweep = setInterval(() => this.sweep(), Math.min(1000, Math.max(50, this.timeoutMs / 4)));
    const onAbort = (): void => this.abortAll();
    return new Promise<LoopResult>((resolve) => {
      this.resolveDone = (): void => {
        const durationMs = performance.now() - t0;
        if (this.timer) clearTimeout(this.timer);
        if (progressTimer) clearInterval(progressTimer);
        clearInterval(sweep);
        signal?.removeEventListener('abort', onAbort);
        loop.disable();
        if (setup.progress) this.tick();
        this.records.sort((a, b) => (warmup ? b.index - a.index : a.index - b.index) || a.turn - b.turn);
        resolve({ t0, records: this.records, durationMs, aborted: this.aborted, loop: loopDelay(loop) });
      };
      if (signal?.aborted) {
        this.aborted = true;
        this.settle();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pump();
    });
  }
}

/**
 * The measuring loop in this thread. Arrival times are absolute (ms after t0): a late timer sends everything that is
 * due at once, and nothing drifts. A request holds a concurrency slot from send to finish; its start time (TTFT and
 * E2E count from it) is taken right before it is handed to its connection.
 */
export async function measure(ctx: RunContext, rows: readonly WorkloadRow[], arrivals: Float64Array, cap: number | null, warmup: boolean): Promise<MeasureResult> {
  const cpu0 = process.cpuUsage();
  const r = await new MeasureLoop(ctx, rows, arrivals, new LocalRows(arrivals, cap ?? Infinity), warmup).run({ progress: !warmup });
  return { t0: r.t0, records: r.records, durationMs: r.durationMs, aborted: r.aborted, client: clientStats(r.durationMs, process.cpuUsage(cpu0), [r.loop]) };
}
