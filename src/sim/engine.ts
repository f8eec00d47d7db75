// The simulated engine: data-parallel replicas of the scheduler behind a router, and the pseudo-model's
// answer to each request (its output seed and where it would stop without ignore_eos).
import type { EngineClock } from './clock';
import type { CostModel } from './cost';
import type { OutputFault } from './options';
import { SimRequest, blockHashes, type RequestSink } from './request';
import { LatencyLog } from './latency-log';
import { acceptanceOf, predictability } from './spec';
import { Scheduler, type SchedulerPolicy, type SchedulerStats } from './scheduler';
import { hashIds, mix32, unit } from './tokens';

export type RouterPolicy = 'round_robin' | 'least_loaded';

export interface EngineOptions {
  policy: SchedulerPolicy;
  cost: CostModel;
  replicas: number;
  router: RouterPolicy;
  /** Requests allowed to wait across all replicas before new ones are refused (Infinity: no cap). */
  maxQueued: number;
  seed: number;
  /** Median natural answer length, in tokens, of a request that does not ignore EOS. */
  naturalMedian: number;
  /** Every answer comes out wrong this way (--sim-fault). */
  fault?: OutputFault;
}

export interface GenerateParams {
  promptIds: readonly number[];
  maxNewTokens: number;
  ignoreEos: boolean;
  minTokens?: number;
  /** A per-request sampling seed; with temperature > 0 and none given, each request differs. */
  sampleSeed?: number;
  varySample: boolean;
  /** The prompt's hash when the caller has one (the virtual load: no need to hash thousands of filler tokens). */
  promptHash?: number;
  /** A P/D decode worker's request: the prompt's KV arrives from a prefill worker after this many modelled seconds. */
  kvTransferSeconds?: number;
}

export type SubmitResult =
  | { ok: true; request: SimRequest; replica: number }
  | { ok: false; status: 400 | 503; message: string };

export interface EngineStats extends SchedulerStats {
  replicas: number;
  rejected: number;
}

export class SimEngine {
  readonly replicas: Scheduler[];
  private next = 0;
  private counter = 0;
  private rejected = 0;
  private crashed: string | undefined;

  constructor(
    readonly options: EngineOptions,
    private readonly clock: EngineClock,
    /** Every replica's finished requests' latencies (the engine's /metrics histograms). */
    readonly latency: LatencyLog = new LatencyLog(),
  ) {
    this.replicas = [];
    for (let i = 0; i < Math.max(1, options.replicas); i++) {
      const p = options.policy;
      const noise = p.noise && { ...p.noise, stream: mix32(p.noise.stream, i) };
      const s = new Scheduler({ ...p, seed: mix32(p.seed, i), noise }, options.cost, clock);
      s.onFinished = (r) => latency.finished(r);
      this.replicas.push(s);
    }
  }

  /** Tokens one replica's KV cache holds. */
  kvTokens(): number {
    return this.options.policy.kvBlocks * this.options.policy.blockSize;
  }

  /**
   * Where generation would stop: maxNew with ignore_eos, else a length drawn from the request's seed. The
   * output faults override both: no token at all, or half of maxNew.
   */
  private stopAt(p: GenerateParams, seed: number): number {
    if (this.options.fault === 'zero-tokens' || this.transferFails(p)) return 0;
    if (this.options.fault === 'short-output') return Math.min(this.naturalStop(p, seed), Math.max(1, Math.floor(p.maxNewTokens / 2)));
    return this.naturalStop(p, seed);
  }

  private naturalStop(p: GenerateParams, seed: number): number {
    if (p.ignoreEos) return p.maxNewTokens;
    // Log-normal answer lengths around the median (sigma 0.8), as chat answers roughly are.
    const u1 = Math.max(1e-9, unit(mix32(seed, 0xe05)));
    const u2 = unit(mix32(seed, 0xe06));
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    const natural = Math.max(1, Math.round(this.options.naturalMedian * Math.exp(0.8 * z)));
    return Math.min(p.maxNewTokens, Math.max(natural, p.minTokens ?? 0, 1));
  }

  submit(p: GenerateParams, sink: RequestSink): SubmitResult {
    if (this.crashed !== undefined) return { ok: false, status: 503, message: this.crashed };
    const policy = this.options.policy;
    const capacity = this.kvTokens();
    if (p.promptIds.length + 1 > capacity) {
      this.rejected++;
      return {
        ok: false,
        status: 400,
        message: `The prompt (${p.promptIds.length} tokens) does not fit in the KV cache (${capacity} tokens).`,
      };
    }
    let queued = 0;
    for (const s of this.replicas) queued += s.queued();
    if (queued >= this.options.maxQueued) {
      this.rejected++;
      return { ok: false, status: 503, message: 'The request queue is full.' };
    }
    const base = p.promptHash ?? hashIds(p.promptIds, this.options.seed);
    const seed =
      p.sampleSeed !== undefined ? mix32(base, p.sampleSeed) : p.varySample ? mix32(base, ++this.counter) : base;
    // Without a prefix cache nothing matches on block hashes: none are computed.
    const hashes = policy.prefixCaching ? blockHashes(p.promptIds, policy.blockSize) : [];
    const r = new SimRequest(p.promptIds, hashes, p.maxNewTokens, this.stopAt(p, seed), seed, sink);
    if (policy.spec) r.specAlpha = acceptanceOf(policy.spec, predictability(p.promptIds));
    // A faulty answer ends as if the model chose to stop, even where it reached max_tokens.
    if (this.options.fault !== undefined && (this.options.fault !== 'pd-transfer' || this.transferFails(p))) r.forceStop = true;
    const i = this.route();
    const replica = this.replicas[i] as Scheduler;
    if (p.kvTransferSeconds === undefined) replica.submit(r);
    else this.afterTransfer(r, replica, p.kvTransferSeconds);
    return { ok: true, request: r, replica: i };
  }

  private transferFails(p: GenerateParams): boolean {
    return this.options.fault === 'pd-transfer' && p.kvTransferSeconds !== undefined;
  }

  /** The request reaches the scheduler once its KV has arrived (unless it was aborted meanwhile); its prompt is then preloaded. */
  private afterTransfer(r: SimRequest, replica: Scheduler, seconds: number): void {
    r.preloaded = true;
    r.receivedAt = this.clock.now();
    const due = r.receivedAt + seconds;
    const go = (): void => {
      if (r.state !== 'waiting') return;
      if (!replica.stopped) return replica.submit(r, due);
      r.state = 'done';
      r.sink.failed(this.crashed ?? 'the engine stopped');
    };
    if (this.clock.at) this.clock.at(due, go);
    else setTimeout(go, Math.max(0, this.clock.wallMsUntil(due))).unref();
  }

  private route(): number {
    const n = this.replicas.length;
    if (n === 1) return 0;
    if (this.options.router === 'least_loaded') {
      let best = 0;
      for (let i = 1; i < n; i++) if ((this.replicas[i] as Scheduler).load() < (this.replicas[best] as Scheduler).load()) best = i;
      return best;
    }
    const i = this.next;
    this.next = (this.next + 1) % n;
    return i;
  }

  abort(r: SimRequest, replica: number): void {
    this.replicas[replica]?.abort(r);
  }

  /** Fails every request in flight and refuses new ones (the crash flag; also used on shutdown). */
  crash(message: string): void {
    this.crashed = message;
    for (const s of this.replicas) s.stop(message);
  }

  flushCache(): number {
    let n = 0;
    for (const s of this.replicas) n += s.flushCache();
    return n;
  }

  /** Each replica's modelled busy seconds and the modelled time now (the power model's inputs, power.ts). */
  busyTime(): { busy: number[]; now: number } {
    return { busy: this.replicas.map((s) => s.snapshot().busySeconds), now: this.clock.now() };
  }

  stats(): EngineStats {
    const all = this.replicas.map((s) => s.snapshot());
    const sum = (k: keyof SchedulerStats): number => all.reduce((a, s) => a + s[k], 0);
    const total = sum('kvBlocksTotal');
    return {
      running: sum('running'),
      waiting: sum('waiting'),
      kvBlocksTotal: total,
      kvBlocksUsed: sum('kvBlocksUsed'),
      kvUsage: total ? sum('kvBlocksUsed') / total : 0,
      promptTokens: sum('promptTokens'),
      cachedTokens: sum('cachedTokens'),
      generatedTokens: sum('generatedTokens'),
      finished: sum('finished'),
      preemptions: sum('preemptions'),
      steps: sum('steps'),
      busySeconds: Math.max(0, ...all.map((s) => s.busySeconds)),
      lostSeconds: Math.max(0, ...all.map((s) => s.lostSeconds)),
      specDrafts: sum('specDrafts'),
      specDraftTokens: sum('specDraftTokens'),
      specAccepted: sum('specAccepted'),
      specVerifyFinished: sum('specVerifyFinished'),
      replicas: this.replicas.length,
      rejected: this.rejected,
    };
  }
}
