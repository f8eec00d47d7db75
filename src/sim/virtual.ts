// The simulated engine on a virtual clock: the same schedulers and cost model as `sim serve`, stepped by a
// discrete-event loop — no timers, no HTTP, no waiting. What `autobench predict` and the search benchmark run.
import type { EngineClock } from './clock';
import type { ResolvedSim } from './config';
import { SimEngine } from './engine';
import type { FinishReason } from './request';
import { mix32, unit } from './tokens';

interface Event {
  t: number;
  seq: number;
  fn: () => void;
  /** An engine step that finishes no request and prefills nothing: nobody else can notice it. */
  quiet: boolean;
}

/** Simulated time that moves only when the next event runs. */
export class VirtualClock implements EngineClock {
  readonly speed = 1;
  private t = 0;
  private seq = 0;
  private readonly heap: Event[] = [];

  now(): number {
    return this.t;
  }

  wallMsUntil(t: number): number {
    return (t - this.t) * 1000;
  }

  at(t: number, fn: () => void, quiet = false): void {
    this.push({ t: Math.max(t, this.t), seq: this.seq++, fn, quiet });
  }

  /** When the next event that is not a quiet engine step is due; absent with `bulk: false` (every step one by one). */
  readonly nextLoud?: () => number;

  constructor(o: { bulk?: boolean } = {}) {
    if (o.bulk !== false) {
      this.nextLoud = (): number => {
        let t = Infinity;
        for (const e of this.heap) if (!e.quiet && e.t < t) t = e.t;
        return t;
      };
    }
  }

  /** Runs events in time order until none is left (or `maxEvents` ran: a guard against a model that never settles). */
  run(maxEvents = 50_000_000): number {
    let n = 0;
    for (let e = this.pop(); e; e = this.pop()) {
      this.t = e.t;
      e.fn();
      if (++n >= maxEvents) break;
    }
    return n;
  }

  private less(a: Event, b: Event): boolean {
    return a.t < b.t || (a.t === b.t && a.seq < b.seq);
  }

  private push(e: Event): void {
    const h = this.heap;
    h.push(e);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i] as Event, h[p] as Event)) break;
      [h[i], h[p]] = [h[p] as Event, h[i] as Event];
      i = p;
    }
  }

  private pop(): Event | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length === 0 || !last) return top;
    h[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l] as Event, h[m] as Event)) m = l;
      if (r < h.length && this.less(h[r] as Event, h[m] as Event)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m] as Event, h[i] as Event];
      i = m;
    }
    return top;
  }
}

/** A load as the load client would send it: fixed-length prompts and outputs (ignore_eos), Poisson arrivals. */
export interface VirtualLoad {
  inputLen: number;
  outputLen: number;
  /** Each request's own prompt and output length (warm-up first), instead of inputLen/outputLen for all. */
  lengths?: ReadonlyArray<{ input: number; output: number }>;
  /** Requests per modelled second; Infinity sends every request at once. */
  rate: number;
  /** At most this many requests in flight (null: no cap). */
  concurrency: number | null;
  /** Measured requests. */
  requests: number;
  /** Requests sent first and not measured (at the same rate). */
  warmup: number;
  seed: number;
  /**
   * Every request's send time (modelled seconds, warm-up first) instead of the seeded Poisson stream: the load
   * client's own schedule, so that a prediction replays the arrivals a real trial with the same seed sends.
   */
  arrivals?: readonly number[];
  /** Decode stretches in bulk (default); false steps one by one (tests compare the two). */
  bulk?: boolean;
  /**
   * Stop as soon as more than half the measured requests have waited longer than this (modelled ms) for their first
   * token: the median TTFT is over it whatever happens next (an overloaded point of a capacity search).
   */
  giveUpTtftMs?: number;
  /** Stop as soon as more than half the measured requests finished with a TPOT over this (modelled ms): the median is over it. */
  giveUpTpotMs?: number;
  /** A P/D decode worker's load: every request brings its prompt's KV, landing this long after it is sent (pd.ts). */
  kvTransferSeconds?: number;
}

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

/** What the client would have measured (modelled seconds and milliseconds). */
export interface VirtualResult {
  completed: number;
  failed: number;
  /** First measured send to last measured completion, seconds. */
  durationS: number;
  requestThroughput: number;
  outputThroughput: number;
  ttftMs: Percentiles;
  tpotMs: Percentiles;
  /**
   * Inter-token latency as a streaming client sees it: the gaps between a request's chunks (stream_interval tokens
   * each), per request its decode time over its gaps — the virtual clock delivers only the first token and the
   * finish. The mean equals the mean over every gap for equal output lengths; p50 is the median request's.
   */
  itlMs: Percentiles;
  e2eMs: Percentiles;
  /** Arrivals' own rate and the completions' rate over their spans (the runner's pace check). */
  offeredRate: number | null;
  keptRate: number | null;
  preemptions: number;
  /** The load stopped early under giveUpTtftMs: more than half the requests had no first token in time. */
  gaveUp: boolean;
}

interface Tracked {
  sentAt: number;
  firstAt: number;
  doneAt: number;
  tokens: number;
  failed: boolean;
  measured: boolean;
}

/**
 * One way between the load client and the engine (modelled seconds): a request reaches the engine, and a token the
 * client, this long after it left. Measured on a speed-1 simulated server (vLLM, chat, 2-8 req/s): p50 TTFT 0.3-1.4 ms
 * over the model without it. Under a concurrency cap it puts the next request behind the step planned at the finish
 * that freed its slot: with none, a closed loop of 4 predicted a p50 TTFT of 52 ms where the server measured 63-70.
 */
export const TRANSIT_S = 0.0005;

/** Exponential gaps from a seeded stream: arrival times in modelled seconds. */
function arrivals(n: number, rate: number, seed: number): number[] {
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    out.push(Number.isFinite(rate) ? t : 0);
    const u = Math.max(1e-12, unit(mix32(seed, i + 1)));
    t += -Math.log(u) / rate;
  }
  return out;
}

function percentiles(xs: number[]): Percentiles {
  if (xs.length === 0) return { p50: NaN, p90: NaN, p99: NaN, mean: NaN };
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): number => {
    const pos = (s.length - 1) * p;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (pos - lo);
  };
  return { p50: q(0.5), p90: q(0.9), p99: q(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

function spanRate(times: number[]): number | null {
  if (times.length < 3) return null;
  const lo = Math.min(...times);
  const hi = Math.max(...times);
  return hi > lo ? (times.length - 1) / (hi - lo) : null;
}

/** Filler prompts: with the prefix cache off (every real trial's prompts are fresh) only their length matters. */
function promptOf(len: number, cache: Map<number, number[]>): number[] {
  let ids = cache.get(len);
  if (!ids) cache.set(len, (ids = new Array<number>(Math.max(1, len)).fill(1000)));
  return ids;
}

/** Runs the load against a fresh engine of `config` on a virtual clock; nothing waits on the wall clock. */
export function simulateLoad(config: ResolvedSim, load: VirtualLoad): VirtualResult {
  // With a concurrency cap, a finish on one replica sends the next request to another one, whose bulk stretch was
  // planned before that finish was known: with more than one replica, capped loads step one by one.
  const bulk = load.bulk !== false && !(config.engine.replicas > 1 && load.concurrency !== null);
  const clock = new VirtualClock({ bulk });
  // Every prompt is unique, so the prefix cache never hits: without it the engine does the same work with less bookkeeping.
  const engine = new SimEngine({ ...config.engine, policy: { ...config.engine.policy, prefixCaching: false } }, clock);
  const total = load.warmup + load.requests;
  const due = load.arrivals ? Array.from({ length: total }, (_, i) => load.arrivals?.[i] ?? 0) : arrivals(total, load.rate, mix32(load.seed, 0xa77));
  const tracked: Tracked[] = [];
  const queue: number[] = [];
  const prompts = new Map<number, number[]>();
  const tpotLimit = load.giveUpTpotMs !== undefined ? load.giveUpTpotMs / 1000 : undefined;
  let slowCount = 0;
  let gaveUp = false;
  let inFlight = 0;
  const cap = load.concurrency ?? Infinity;
  const send = (i: number): void => {
    const tr: Tracked = { sentAt: clock.now(), firstAt: NaN, doneAt: NaN, tokens: 0, failed: false, measured: i >= load.warmup };
    tracked.push(tr);
    inFlight++;
    // The client reads the finish a transit after the engine sent it; its next queued request leaves then.
    const release = (): void => {
      inFlight--;
      const next = queue.shift();
      if (next !== undefined) send(next);
    };
    const sink = {
      tokens: (from: number, count: number, finish: FinishReason | null, at: number): void => {
        if (count > 0 && Number.isNaN(tr.firstAt)) tr.firstAt = at + TRANSIT_S;
        tr.tokens = from + count;
        if (finish) {
          tr.doneAt = at + TRANSIT_S;
          if (tpotLimit !== undefined && tr.measured && tr.tokens > 1 && (tr.doneAt - tr.firstAt) / (tr.tokens - 1) > tpotLimit && ++slowCount * 2 > load.requests) {
            gaveUp = true;
            engine.crash('gave up');
            return;
          }
          clock.at(tr.doneAt, release);
        }
      },
      failed: (): void => {
        tr.failed = true;
        release();
      },
    };
    // The request reaches the engine a transit after the client sent it.
    clock.at(tr.sentAt + TRANSIT_S, () => {
      const len = load.lengths?.[i];
      const r = engine.submit({ promptIds: promptOf(len?.input ?? load.inputLen, prompts), promptHash: mix32(load.seed, i), maxNewTokens: len?.output ?? load.outputLen, ignoreEos: true, varySample: false, ...(load.kvTransferSeconds !== undefined ? { kvTransferSeconds: load.kvTransferSeconds } : {}) }, sink);
      if (!r.ok) sink.failed();
    });
  };
  // Without a cap a request is sent when it arrives, so one still without a first token `limit` after it arrived is
  // late for good, and one that got it in time never becomes late: a single pass over the arrivals counts them.
  const limit = load.giveUpTtftMs !== undefined && load.concurrency === null ? load.giveUpTtftMs / 1000 : undefined;
  let scan = load.warmup;
  let lateCount = 0;
  const late = (now: number): number => {
    for (; scan < total && (due[scan] as number) < now - (limit as number); scan++) {
      const tr = tracked[scan];
      if (!tr || Number.isNaN(tr.firstAt) || tr.firstAt - tr.sentAt > (limit as number)) lateCount++;
    }
    return lateCount;
  };
  // One arrival in the queue at a time: each schedules the next, so the event queue stays as small as the engine's.
  const arrive = (i: number): void => {
    if (limit !== undefined && i > load.warmup && late(clock.now()) * 2 > load.requests) {
      gaveUp = true;
      engine.crash('gave up');
      return;
    }
    if (inFlight < cap) send(i);
    else queue.push(i);
    if (i + 1 < total) clock.at(due[i + 1] as number, () => arrive(i + 1));
  };
  if (total > 0) clock.at(due[0] as number, () => arrive(0));
  clock.run();
  return { ...summarize(tracked.filter((t) => t.measured), engine.stats().preemptions, due.slice(load.warmup), config.engine.policy.streamInterval), gaveUp };
}

function summarize(ms: Tracked[], preemptions: number, measuredArrivals: number[], streamInterval: number): Omit<VirtualResult, 'gaveUp'> {
  const ok = ms.filter((t) => !t.failed && !Number.isNaN(t.doneAt));
  const start = Math.min(...ms.map((t) => t.sentAt));
  const end = Math.max(...ok.map((t) => t.doneAt));
  const durationS = ok.length ? Math.max(1e-9, end - start) : 0;
  const tokens = ok.reduce((a, t) => a + t.tokens, 0);
  const tpot = ok.filter((t) => t.tokens > 1).map((t) => ((t.doneAt - t.firstAt) * 1000) / (t.tokens - 1));
  const itl = ok.filter((t) => t.tokens > 1).map((t) => ((t.doneAt - t.firstAt) * 1000) / Math.ceil((t.tokens - 1) / Math.max(1, streamInterval)));
  return {
    completed: ok.length,
    failed: ms.length - ok.length,
    durationS,
    requestThroughput: durationS ? ok.length / durationS : 0,
    outputThroughput: durationS ? tokens / durationS : 0,
    ttftMs: percentiles(ok.map((t) => (t.firstAt - t.sentAt) * 1000)),
    tpotMs: percentiles(tpot),
    itlMs: percentiles(itl),
    e2eMs: percentiles(ok.map((t) => (t.doneAt - t.sentAt) * 1000)),
    offeredRate: spanRate(measuredArrivals),
    keptRate: spanRate(ok.map((t) => t.doneAt)),
    preemptions,
  };
}
