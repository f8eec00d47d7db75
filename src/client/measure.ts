// The measuring loop: arrivals against absolute times, the concurrency cap, one Exchange per request, live events, client CPU and event-loop delay.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Pool } from 'undici';
import type { ChatMessage, WorkloadRow } from '../core/workload/types';
import { buildBody, type ApiSpec, type BodyOptions } from './backends';
import { DeferredQueue } from './deferred';
import { Exchange } from './exchange';
import { tpotOf } from './metrics';
import { RequestError, type RequestRecord } from './record';
import type { BenchEvent, BenchOptions, ClientStats } from './run';

interface Pending {
  row: WorkloadRow;
  index: number;
  turn: number;
  arrivalMs: number;
  body: Buffer;
  promptLen: number;
  messages?: ChatMessage[];
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
    outputLenRequested: p.row.outputLen,
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

/**
 * The measuring loop. Arrival times are absolute (ms after t0): a late timer sends everything that is
 * due at once, and nothing drifts. A request holds a concurrency slot from send to finish; its
 * start time (TTFT and E2E count from it) is taken right before it is handed to its connection.
 */
export function measure(ctx: RunContext, rows: readonly WorkloadRow[], arrivals: Float64Array, cap: number | null, warmup: boolean): Promise<MeasureResult> {
  const { pool, api, basePath, headers, bodyOpts, options, emit, signal } = ctx;
  const path = `${basePath}${api.path}`;
  const n = rows.length;
  const limit = cap ?? Infinity;
  const timeoutMs = (options.requestTimeoutS ?? 21_600) * 1000;
  const queue = new DeferredQueue();
  const records: RequestRecord[] = [];
  const inflight = new Set<Exchange>();
  // Bodies are serialised before the clock starts: nothing heavy happens between arrival and send.
  const bodies: Buffer[] = rows.map((row) => Buffer.from(JSON.stringify(buildBody(api.kind, row, bodyOpts))));
  const ready: number[] = [];
  let readyHead = 0;
  let nextArrival = 0;
  let timer: NodeJS.Timeout | undefined;
  let active = 0;
  let outstanding = n; // rows not yet finished with all their turns
  let started = 0;
  let completed = 0;
  let failed = 0;
  let outputTokens = 0;
  let aborted = false;
  let winDone = 0;
  let winTokens = 0;
  let winTtft: number[] = [];
  let winTpot: number[] = [];
  let lastTick = 0;
  const sendPending = (p: Pending): void => {
    const rec = newRecord(p, warmup);
    records.push(rec);
    const ex = new Exchange(api.kind, rec, queue, onDone);
    exchanges.set(ex, p);
    inflight.add(ex);
    started++;
    const hdrs = p.row.headers ? { ...headers, ...p.row.headers } : headers;
    ex.startT = performance.now();
    rec.startMs = ex.startT - t0;
    ex.deadline = ex.startT + timeoutMs;
    pool.dispatch({ path, method: 'POST', headers: hdrs, body: p.body, blocking: false }, ex);
  };
  const exchanges = new Map<Exchange, Pending>();
  const pump = (): void => {
    if (aborted) return;
    const now = performance.now() - t0;
    while (nextArrival < n && (arrivals[nextArrival] as number) <= now) ready.push(nextArrival++);
    while (readyHead < ready.length && active < limit) {
      const i = ready[readyHead++] as number;
      const row = rows[i] as WorkloadRow;
      active++;
      sendPending({ row, index: warmup ? -1 - i : i, turn: 0, arrivalMs: arrivals[i] as number, body: bodies[i] as Buffer, promptLen: row.promptLen });
    }
    if (nextArrival < n && timer === undefined) {
      const wait = Math.max(0, (arrivals[nextArrival] as number) - (performance.now() - t0));
      timer = setTimeout(() => {
        timer = undefined;
        pump();
      }, wait);
    }
  };
  let resolveDone: (() => void) | undefined;
  const onDone = (ex: Exchange): void => {
    inflight.delete(ex);
    const p = exchanges.get(ex) as Pending;
    exchanges.delete(ex);
    const rec = ex.record;
    if (rec.success) {
      completed++;
      outputTokens += rec.outputTokens;
      winDone++;
      winTokens += rec.outputTokens;
      winTtft.push(rec.ttftMs);
      const tp = tpotOf(rec);
      if (tp !== undefined) winTpot.push(tp);
    } else {
      failed++;
    }
    if (!warmup) emit({ type: 'request', record: rec });
    const turns = p.row.turns;
    if (rec.success && turns && p.turn < turns.length && !aborted) {
      // Next turn of the conversation, in the same slot: history, the reply, the next question.
      const history = p.messages ?? (typeof p.row.prompt === 'string' ? [{ role: 'user', content: p.row.prompt }] : p.row.prompt);
      const messages: ChatMessage[] = [...history, { role: 'assistant', content: rec.generatedText }, { role: 'user', content: turns[p.turn] as string }];
      const promptLen = p.promptLen + rec.outputTokens + (p.row.turnLens?.[p.turn] ?? 0);
      const body = Buffer.from(JSON.stringify(buildBody(api.kind, p.row, bodyOpts, messages)));
      sendPending({ row: p.row, index: p.index, turn: p.turn + 1, arrivalMs: performance.now() - t0, body, promptLen, messages });
      return;
    }
    active--;
    outstanding--;
    if (outstanding === 0 || (aborted && inflight.size === 0)) {
      resolveDone?.();
      return;
    }
    pump();
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const progressEvery = options.progressIntervalMs ?? 500;
  const median = (v: number[]): number | null => {
    if (v.length === 0) return null;
    const s = v.sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
  };
  const tick = (): void => {
    const now = performance.now() - t0;
    const dt = (now - lastTick) / 1000;
    lastTick = now;
    emit({
      type: 'progress',
      elapsedS: now / 1000,
      total: n,
      started,
      completed,
      failed,
      inFlight: inflight.size,
      outputTokens,
      requestsPerS: dt > 0 ? winDone / dt : 0,
      outputTokensPerS: dt > 0 ? winTokens / dt : 0,
      ttftMsP50: median(winTtft),
      tpotMsP50: median(winTpot),
    });
    winDone = 0;
    winTokens = 0;
    winTtft = [];
    winTpot = [];
  };
  const progressTimer = warmup ? undefined : setInterval(tick, progressEvery);
  // One sweep a second finds requests past their deadline (cheaper than a timer per request).
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const ex of inflight) if (now > ex.deadline) ex.abort(new RequestError('timeout', `no complete response within ${timeoutMs / 1000} s`));
  }, Math.min(1000, Math.max(50, timeoutMs / 4)));
  const onAbort = (): void => {
    aborted = true;
    if (timer) clearTimeout(timer);
    for (const ex of inflight) ex.abort(new RequestError('aborted', 'the run was cancelled'));
    if (inflight.size === 0) resolveDone?.();
  };
  return new Promise<MeasureResult>((resolve) => {
    resolveDone = (): void => {
      const durationMs = performance.now() - t0;
      if (timer) clearTimeout(timer);
      if (progressTimer) clearInterval(progressTimer);
      clearInterval(sweep);
      signal?.removeEventListener('abort', onAbort);
      loop.disable();
      const cpu = process.cpuUsage(cpu0);
      if (!warmup) tick();
      records.sort((a, b) => (warmup ? b.index - a.index : a.index - b.index) || a.turn - b.turn);
      resolve({
        t0,
        records,
        durationMs,
        aborted,
        client: {
          cpuPercent: durationMs > 0 ? ((cpu.user + cpu.system) / 1000 / durationMs) * 100 : 0,
          maxRssMb: process.resourceUsage().maxRSS / 1024,
          eventLoopDelayMeanMs: loop.mean / 1e6,
          eventLoopDelayP99Ms: loop.percentile(99) / 1e6,
          eventLoopDelayMaxMs: loop.max / 1e6,
        },
      });
    };
    if (n === 0) {
      resolveDone();
      return;
    }
    if (signal) {
      if (signal.aborted) {
        aborted = true;
        resolveDone();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
    }
    pump();
  });
}
