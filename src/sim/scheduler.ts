// One model replica's continuous-batching scheduler, stepping in scaled real time.
//
// Each step admits waiting requests while running slots, the step's token budget and KV blocks allow,
// computes prefill chunks and one decode token per running request, and takes as long as the cost model
// says. Requests whose next KV block cannot be allocated preempt the most recently admitted request, which
// goes back to the head of the queue and recomputes its prefix when readmitted (as vLLM and SGLang do).
import { performance } from 'node:perf_hooks';
import type { EngineClock } from './clock';
import { emptyWork, stepSeconds, type CostModel, type StepWork } from './cost';
import { KvPool } from './kv';
import { StepJitter } from './noise';
import { extendHashes, type FinishReason, type SimRequest } from './request';
import { acceptedIn, type SpecSettings } from './spec';
import { mix32 } from './tokens';

export type SchedulingOrder = 'fcfs' | 'lpm' | 'random' | 'lof';

export interface SchedulerPolicy {
  maxRunning: number;
  /** Tokens computed per step: prefill chunks (and decode tokens when `mixed`). */
  tokenBudget: number;
  /** Most prefill tokens of one request per step (Infinity: whole prompt). */
  chunkSize: number;
  /** Decode requests run in the same step as prefill chunks (vLLM, TensorRT-LLM); else prefill steps pause decode (SGLang). */
  mixed: boolean;
  /** Requests that may be partway through a chunked prefill at once. */
  maxPartialPrefills: number;
  /** Share of the remaining output reserved in KV at admission (SGLang's new-token ratio); 0 = none. */
  reserveRatio: number;
  /** The reservation stays at reserveRatio (TensorRT-LLM's GUARANTEED_NO_EVICT) instead of decaying as SGLang's does. */
  reserveFixed?: boolean;
  order: SchedulingOrder;
  blockSize: number;
  kvBlocks: number;
  prefixCaching: boolean;
  /** Deliver output every N tokens (stream_interval). */
  streamInterval: number;
  /** Simulated seconds the schedule may fall behind wall time before it stops catching up. */
  maxLag: number;
  seed: number;
  /** Launch-to-launch variation (--sim-noise): every step costs `factor` x a jitter draw of sd `jitterSd` from `stream`. */
  noise?: { factor: number; jitterSd: number; stream: number };
  /** Speculative decoding (spec.ts): k tokens drafted and verified per decoding request and step. */
  spec?: SpecSettings;
}

export interface SchedulerStats {
  running: number;
  waiting: number;
  kvUsage: number;
  kvBlocksTotal: number;
  kvBlocksUsed: number;
  promptTokens: number;
  cachedTokens: number;
  generatedTokens: number;
  finished: number;
  preemptions: number;
  steps: number;
  busySeconds: number;
  /** Simulated seconds given up because the process fell more than maxLag behind wall time (a busy host): time the model did not get. */
  lostSeconds: number;
  /** Speculative decoding: draft rounds (one per decoding request and step), tokens drafted, drafted tokens accepted. */
  specDrafts: number;
  specDraftTokens: number;
  specAccepted: number;
  /** Verify steps of the requests that finished, added as each finishes (SGLang counts them so). */
  specVerifyFinished: number;
}

interface Plan {
  /** Requests admitted by this step: it cannot start before they arrived. */
  admitted: SimRequest[];
  decode: SimRequest[];
  prefill: SimRequest[];
  chunks: number[];
  work: StepWork;
  /** Decoding requests that sample their last token in this step. */
  finishing: number;
}

/** Empties a plan for the next step (but its decode list, which planDecode overwrites in place). */
function resetPlan(plan: Plan): Plan {
  plan.admitted.length = 0;
  plan.prefill.length = 0;
  plan.chunks.length = 0;
  const w = plan.work;
  w.decodeSeqs = w.decodeCtx = w.prefillSeqs = w.prefillTokens = w.prefillPairs = w.prefillCtx = w.specTokens = 0;
  plan.finishing = 0;
  return plan;
}

export class Scheduler {
  readonly kv: KvPool;
  private readonly running: SimRequest[] = [];
  private readonly waiting: SimRequest[] = [];
  private waitHead = 0;
  /** Preempted requests go back first, ahead of the waiting queue. */
  private readonly resumed: SimRequest[] = [];
  private plan: Plan | undefined;
  /** The one Plan object every step fills again (a step's plan is read only until the next one is built). */
  private readonly planBuffer: Plan = { admitted: [], decode: [], prefill: [], chunks: [], work: emptyWork(), finishing: 0 };
  private stepEnd = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** A step is due on a virtual clock (no timer is armed). */
  private virtualDue = false;
  /** True while a timer callback applies steps: sinks may submit, and kick() must not start a second step. */
  private stepping = false;
  private admitCounter = 0;
  /** Running requests still prefilling (computed < target): kept so a prefill-first step need not scan the batch. */
  private prefilling = 0;
  /** Steps until the earliest running request samples its last token, as of the last finished step (NaN: not known). */
  private minLeft = NaN;
  private newTokenRatio: number;
  private readonly minRatio: number;
  private rng: number;
  private readonly jitter: StepJitter | undefined;
  private readonly stepFactor: number;
  stopped = false;
  readonly stats: Omit<SchedulerStats, 'running' | 'waiting' | 'kvUsage' | 'kvBlocksTotal' | 'kvBlocksUsed'> = {
    promptTokens: 0,
    cachedTokens: 0,
    generatedTokens: 0,
    finished: 0,
    preemptions: 0,
    steps: 0,
    busySeconds: 0,
    lostSeconds: 0,
    specDrafts: 0,
    specDraftTokens: 0,
    specAccepted: 0,
    specVerifyFinished: 0,
  };

  /** Called once per request that finishes (its latencies: latency-log.ts). */
  onFinished: ((r: SimRequest) => void) | undefined;

  constructor(
    readonly policy: SchedulerPolicy,
    readonly cost: CostModel,
    private readonly clock: EngineClock,
  ) {
    this.kv = new KvPool(policy.kvBlocks, policy.blockSize, policy.prefixCaching);
    this.newTokenRatio = policy.reserveRatio;
    this.minRatio = policy.reserveRatio / 7;
    this.rng = mix32(policy.seed, 0x51);
    const noise = policy.noise;
    this.stepFactor = noise?.factor ?? 1;
    this.jitter = noise && noise.jitterSd > 0 ? new StepJitter(noise.stream, noise.jitterSd) : undefined;
  }

  /** Requests admitted or waiting (the router's load measure). */
  load(): number {
    return this.running.length + this.waiting.length - this.waitHead + this.resumed.length;
  }

  queued(): number {
    return this.waiting.length - this.waitHead + this.resumed.length;
  }

  snapshot(): SchedulerStats {
    return {
      ...this.stats,
      running: this.running.length,
      waiting: this.queued(),
      kvUsage: this.kv.totalBlocks ? this.kv.used() / this.kv.totalBlocks : 0,
      kvBlocksTotal: this.kv.totalBlocks,
      kvBlocksUsed: this.kv.used(),
    };
  }

  /** Queues a request; `at`: its modelled arrival when known exactly (a P/D request's KV landing, not the late timer's). */
  submit(r: SimRequest, at?: number): void {
    this.stats.promptTokens += r.promptLen;
    // Behind schedule, the engine's own time is the running step's end: a client that answered to a token
    // just delivered late is, in simulated time, answering right after that step.
    const now = this.clock.now();
    r.arrivalAt = at !== undefined ? at : this.plan !== undefined && this.stepEnd < now ? this.stepEnd : now;
    this.waiting.push(r);
    this.kick();
  }

  abort(r: SimRequest): void {
    if (r.state === 'done') return;
    if (r.state === 'running') {
      if (r.computed < r.target) this.prefilling--;
      this.releaseKv(r, false);
      const i = this.running.indexOf(r);
      if (i >= 0) this.running.splice(i, 1);
    } else {
      this.removeWaiting(r);
    }
    r.state = 'done';
  }

  /** Fails every request and stops stepping (a simulated crash or shutdown). */
  stop(message: string): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    const all = [...this.running, ...this.resumed, ...this.waiting.slice(this.waitHead)];
    this.running.length = 0;
    this.prefilling = 0;
    this.resumed.length = 0;
    this.waiting.length = 0;
    this.waitHead = 0;
    for (const r of all) {
      if (r.state === 'done') continue;
      r.state = 'done';
      r.sink.failed(message);
    }
  }

  flushCache(): number {
    return this.kv.flushIdle();
  }

  private removeWaiting(r: SimRequest): void {
    let i = this.resumed.indexOf(r);
    if (i >= 0) {
      this.resumed.splice(i, 1);
      return;
    }
    i = this.waiting.indexOf(r, this.waitHead);
    if (i >= 0) this.waiting.splice(i, 1);
  }

  private hasWork(): boolean {
    return this.running.length > 0 || this.queued() > 0;
  }

  private kick(): void {
    if (this.timer !== undefined || this.immediate !== undefined || this.virtualDue || this.plan !== undefined || this.stepping || this.stopped) return;
    if (this.begin(this.clock.now())) this.arm();
  }

  /** Plans the step starting at simulated time `at`; false when there is nothing to run. */
  private begin(at: number): boolean {
    if (!this.hasWork()) return false;
    let plan = this.build();
    // Every running request is mid-prefill and none can grow: free the newest one's blocks and retry.
    while (plan.decode.length === 0 && plan.prefill.length === 0 && this.running.length > 1) {
      this.preempt(this.running[this.running.length - 1] as SimRequest, plan);
      plan = this.build();
    }
    if (plan.decode.length === 0 && plan.prefill.length === 0) return false;
    const p = this.policy;
    if (plan.decode.length > 0 && p.reserveRatio > 0 && !p.reserveFixed) {
      // SGLang's new-token ratio decays while decoding goes well and resets on retraction.
      this.newTokenRatio = Math.max(this.minRatio, this.newTokenRatio - (p.reserveRatio - this.minRatio) / 600);
    }
    let dur = stepSeconds(this.cost, plan.work) * this.stepFactor;
    if (this.jitter) dur *= this.jitter.next();
    // While catching up, a step may be planned at a simulated time before a request it admits arrived.
    for (const r of plan.admitted) if (r.arrivalAt > at) at = r.arrivalAt;
    for (const r of plan.admitted) if (Number.isNaN(r.startedAt)) r.startedAt = at;
    this.plan = plan;
    this.stepEnd = at + dur;
    this.stats.busySeconds += dur;
    return true;
  }

  private arm(): void {
    if (this.clock.at) {
      this.virtualDue = true;
      this.clock.at(this.stepEnd, this.onTimer, this.quietPlan());
      return;
    }
    const ms = this.clock.wallMsUntil(this.stepEnd);
    // Never fire early (timers round down); a due step runs on the next turn so I/O is not starved.
    if (ms > 0) this.timer = setTimeout(this.onTimer, Math.ceil(ms));
    else this.immediate = setImmediate(this.onTimer);
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.immediate = undefined;
    this.virtualDue = false;
    this.stepping = true;
    try {
      this.runDue();
    } finally {
      this.stepping = false;
    }
  };

  private runDue(): void {
    const budget = performance.now() + 8;
    for (;;) {
      if (this.stopped) return;
      const end = this.stepEnd;
      this.finish();
      if (this.stopped) return;
      const now = this.clock.now();
      // Keep the modelled cadence while only slightly late; past maxLag the engine resumes from now.
      const behind = now - end > this.policy.maxLag;
      if (behind) this.stats.lostSeconds += now - end;
      let start = behind ? now : end;
      if (this.clock.nextLoud) {
        const ff = this.fastForward(start);
        // The stretch's last step ends after the next event: the next step is planned once that event has run.
        if (ff.wait) return this.wake(ff.at);
        start = ff.at;
      }
      if (!this.begin(start)) return;
      if (this.clock.wallMsUntil(this.stepEnd) > 0 || performance.now() > budget) {
        this.arm();
        return;
      }
    }
  }

  // ---- virtual clock: decode stretches in bulk ---------------------------------------------------------

  /** The planned step changes nothing another scheduler or the client could see: no prefill, no request finishing. */
  private quietPlan(): boolean {
    const plan = this.plan;
    return plan !== undefined && plan.prefill.length === 0 && plan.finishing === 0;
  }

  /**
   * On a virtual clock, the decode-only steps from `at` that nothing can interrupt (no queue, no request finishing,
   * enough KV, no other event due before they start) applied at once: the same durations, jitter draws, tokens and
   * blocks as stepping one by one, at a cost per step independent of the batch. The last one may end after the next
   * event (`wait`: as a step planned before an arrival, it runs on while the arrival queues); the next step starts `at`.
   */
  private fastForward(at: number): { at: number; wait: boolean } {
    const none = { at, wait: false };
    // Speculative steps advance each request by a drawn number of tokens: stepped one by one.
    if (this.policy.spec) return none;
    const limit = this.clock.nextLoud?.() ?? at;
    // A queued request waits for a free slot: while the batch is full, steps stay decode-only until one finishes.
    if (this.running.length === 0 || limit <= at || (this.queued() > 0 && this.running.length < this.policy.maxRunning)) return none;
    if (this.prefilling > 0) return none;
    let kmax = this.minLeft;
    if (Number.isNaN(kmax)) {
      kmax = Infinity;
      for (const r of this.running) kmax = Math.min(kmax, r.stopAt - r.generated - 1);
    }
    if (kmax < 1) return none;
    kmax = Math.min(kmax, this.stepsThatFit(kmax));
    if (kmax < 1) return none;
    const { steps, end } = this.bulkDurations(at, kmax, limit);
    if (steps === 0) return none;
    this.applyBulk(steps, end);
    return { at: end, wait: end > limit };
  }

  /** Nothing planned until `at` (a bulk stretch ends there); meanwhile submissions queue, as during a step. */
  private wake(at: number): void {
    this.stepEnd = at;
    this.virtualDue = true;
    this.clock.at?.(at, this.onTimer, true);
  }

  /** Blocks the running requests need to decode k more steps. */
  private blocksFor(k: number): number {
    const bs = this.policy.blockSize;
    let n = 0;
    for (const r of this.running) n += Math.max(0, Math.ceil((r.computed + k) / bs) - (r.shared.length + r.priv));
    return n;
  }

  /** The most steps (up to kmax) whose new KV blocks fit without preempting. */
  private stepsThatFit(kmax: number): number {
    const avail = this.kv.available();
    if (this.blocksFor(kmax) <= avail) return kmax;
    let lo = 0;
    let hi = kmax;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (this.blocksFor(mid) <= avail) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** Durations of up to kmax decode steps from `at`, stopping before a step that would end at or after `limit`. */
  private bulkDurations(at: number, kmax: number, limit: number): { steps: number; end: number } {
    const p = this.policy;
    const n = this.running.length;
    const topK = this.cost.sparseTopK;
    let ctx0 = 0;
    for (const r of this.running) ctx0 += r.computed;
    let t = at;
    let steps = 0;
    const work = emptyWork();
    work.decodeSeqs = n;
    for (let j = 0; j < kmax; j++) {
      if (topK > 0) {
        work.decodeCtx = 0;
        for (const r of this.running) work.decodeCtx += Math.min(r.computed + j + 1, topK);
      } else work.decodeCtx = ctx0 + n * (j + 1);
      let dur = stepSeconds(this.cost, work) * this.stepFactor;
      // The jitter stream advances once per step, as stepping one by one would; a step not taken here is drawn again by begin().
      const jitter = this.jitter ? this.jitter.peekNext() : 1;
      dur *= jitter;
      // A step may start before the next event (and end after it), never at or after it; one ending exactly on it steps alone.
      if (t + dur === limit) break;
      this.jitter?.next();
      if (p.reserveRatio > 0 && !p.reserveFixed) this.newTokenRatio = Math.max(this.minRatio, this.newTokenRatio - (p.reserveRatio - this.minRatio) / 600);
      this.stats.busySeconds += dur;
      t += dur;
      steps++;
      if (t > limit) break;
    }
    return { steps, end: t };
  }

  /** Applies `k` decode steps to every running request: tokens, KV blocks, stats; the step clock ends at `end`. */
  private applyBulk(k: number, end: number): void {
    const bs = this.policy.blockSize;
    this.stepEnd = end;
    for (const r of this.running) {
      const need = Math.ceil((r.computed + k) / bs) - (r.shared.length + r.priv);
      if (need > 0 && this.kv.allocate(need)) r.priv += need;
      r.computed += k;
      r.generated += k;
      r.target = r.promptLen + r.generated - 1;
    }
    this.stats.steps += k;
    this.stats.generatedTokens += k * this.running.length;
  }

  // ---- planning ---------------------------------------------------------------------------------------

  private build(): Plan {
    const plan = resetPlan(this.planBuffer);
    const p = this.policy;
    if (p.mixed) {
      this.planDecode(plan);
      this.planPrefill(plan, p.tokenBudget - plan.decode.length);
      return plan;
    }
    // Prefill-first scheduling: a step either prefills (decode waits) or decodes.
    plan.decode.length = 0;
    if (this.prefilling > 0 || (this.queued() > 0 && this.running.length < p.maxRunning)) {
      this.planPrefill(plan, p.tokenBudget);
      if (plan.prefill.length > 0) return plan;
    }
    this.planDecode(plan);
    return plan;
  }

  private planDecode(plan: Plan): void {
    const bs = this.policy.blockSize;
    const topK = this.cost.sparseTopK;
    let ctxSum = 0;
    let finishing = 0;
    // The decode list is overwritten in place (no growth from empty every step), then cut to what this step holds.
    const decode = plan.decode;
    // Speculative decoding: each request's step holds its k drafted tokens too (their KV, their verification).
    const spec = this.policy.spec?.k ?? 0;
    let n = 0;
    for (let i = 0; i < this.running.length; i++) {
      const r = this.running[i] as SimRequest;
      if (r.computed < r.target) continue;
      const need = Math.ceil((r.computed + 1 + spec) / bs) - (r.shared.length + r.priv);
      // Out of KV: preempt the newest requests until this one fits. If this one had to go, every request
      // after it went first, so the pass is over.
      if (need > 0 && !this.kv.allocate(need)) {
        // Preempting reads and edits the list and the work so far.
        decode.length = n;
        plan.work.decodeCtx += ctxSum;
        ctxSum = 0;
        const fits = this.makeRoom(r, need, plan);
        n = decode.length;
        if (!fits) break;
      }
      if (need > 0) r.priv += need;
      decode[n++] = r;
      const ctx = r.computed + 1 + spec;
      ctxSum += topK > 0 ? Math.min(ctx, topK) : ctx;
      if (r.generated + 1 + spec >= r.stopAt) finishing++;
    }
    if (decode.length !== n) decode.length = n;
    plan.work.decodeCtx += ctxSum;
    plan.work.decodeSeqs = n;
    plan.work.specTokens = n * spec;
    plan.finishing = finishing;
  }

  /** Preempts from the newest admitted request backwards; false if `r` itself had to go. */
  private makeRoom(r: SimRequest, need: number, plan: Plan): boolean {
    for (;;) {
      const victim = this.running[this.running.length - 1] as SimRequest;
      if (victim === r && this.running.length === 1) {
        // Nothing else to evict: the request alone outgrew the cache; end it as vLLM/SGLang would cap it.
        this.running.pop();
        this.releaseKv(r, true);
        r.state = 'done';
        r.doneAt = this.stepEnd;
        this.deliver(r, 'length');
        this.stats.finished++;
        this.onFinished?.(r);
        return false;
      }
      this.preempt(victim, plan);
      if (victim === r) return false;
      if (this.kv.allocate(need)) return true;
    }
  }

  private preempt(victim: SimRequest, plan: Plan): void {
    this.running.pop();
    if (victim.computed < victim.target) this.prefilling--;
    const di = plan.decode.indexOf(victim);
    if (di >= 0) {
      plan.decode.splice(di, 1);
      const ctx = victim.computed + 1 + (this.policy.spec?.k ?? 0);
      plan.work.decodeCtx -= this.cost.sparseTopK > 0 ? Math.min(ctx, this.cost.sparseTopK) : ctx;
    }
    this.releaseKv(victim, true);
    victim.state = 'waiting';
    victim.computed = 0;
    victim.target = victim.promptLen + victim.generated;
    this.resumed.unshift(victim);
    this.stats.preemptions++;
    if (this.policy.reserveRatio > 0) this.newTokenRatio = this.policy.reserveRatio;
  }

  private planPrefill(plan: Plan, budget: number): void {
    const p = this.policy;
    let partial = 0;
    // Only requests still prefilling take a chunk here; with none (the usual decode batch) the pass is skipped.
    for (let i = 0, left = this.prefilling; left > 0 && i < this.running.length; i++) {
      const r = this.running[i] as SimRequest;
      if (budget <= 0) break;
      if (r.computed >= r.target) continue;
      left--;
      const n = this.chunkLen(r.target - r.computed, budget, plan.prefill.length === 0);
      if (n <= 0 || !this.growTo(r, r.computed + n)) break;
      this.addChunk(plan, r, n);
      budget -= n;
      if (r.computed + n < r.target) partial++;
    }
    // Output still expected from running requests (SGLang-style admission), kept up to date as requests join.
    const reserve = { tokens: p.reserveRatio > 0 ? this.reservedTokens() : 0 };
    while (this.running.length < p.maxRunning && partial < p.maxPartialPrefills && (budget > 0 || plan.prefill.length === 0)) {
      const r = this.peekNext();
      if (!r) break;
      if (!this.admit(r, budget, plan, reserve)) break;
      const n = plan.chunks[plan.chunks.length - 1] as number;
      budget -= n;
      if (r.computed + n < r.target) partial++;
    }
  }

  /**
   * Prefill tokens for a request with `rest` left: with chunking, up to the chunk size and the budget;
   * without, all or nothing — except that a request alone in the step may exceed the budget.
   */
  private chunkLen(rest: number, budget: number, alone: boolean): number {
    const chunk = this.policy.chunkSize;
    if (Number.isFinite(chunk)) return Math.max(0, Math.min(rest, chunk, budget));
    return rest <= budget || alone ? rest : 0;
  }

  private growTo(r: SimRequest, tokens: number): boolean {
    const need = Math.ceil(tokens / this.policy.blockSize) - (r.shared.length + r.priv);
    if (need <= 0) return true;
    if (!this.kv.allocate(need)) return false;
    r.priv += need;
    return true;
  }

  private reservedTokens(): number {
    let sum = 0;
    for (const r of this.running) sum += Math.ceil((r.maxNew - r.generated) * this.newTokenRatio);
    return sum;
  }

  private admit(r: SimRequest, budget: number, plan: Plan, reserve: { tokens: number }): boolean {
    const bs = this.policy.blockSize;
    if (this.policy.prefixCaching) extendHashes(r, bs, r.target);
    // Transferred KV (a P/D decode worker) is held in private blocks: all but the last prompt token need no compute.
    const hitBlocks = r.preloaded && !r.admittedOnce ? 0 : this.kv.match(r.hashes, Math.floor((r.target - 1) / bs));
    const hit = r.preloaded && !r.admittedOnce ? r.target - 1 : hitBlocks * bs;
    const n = this.chunkLen(r.target - hit, budget, plan.prefill.length === 0 && plan.decode.length === 0);
    if (n <= 0) return false;
    const need = Math.ceil((hit + n) / bs) - hitBlocks;
    if (this.policy.reserveRatio > 0) {
      const own = Math.ceil((r.maxNew - r.generated) * this.newTokenRatio);
      const free = this.kv.available() * bs - reserve.tokens - need * bs;
      if (free < r.target - hit - n + own && this.running.length > 0) return false;
      reserve.tokens += own;
    }
    // Idle cached blocks of the hit must not be evicted to make room for the rest of the same request.
    this.kv.acquire(r.hashes, hitBlocks);
    if (!this.kv.allocate(need)) {
      this.kv.release(r.hashes.slice(0, hitBlocks), 0);
      return false;
    }
    this.takeNext();
    r.shared = r.hashes.slice(0, hitBlocks);
    r.pubIdx = hitBlocks;
    r.priv = need;
    r.computed = hit;
    r.state = 'running';
    r.admitSeq = ++this.admitCounter;
    if (!r.admittedOnce) {
      r.admittedOnce = true;
      r.cachedTokens = Math.min(hitBlocks * bs, r.promptLen);
      this.stats.cachedTokens += r.cachedTokens;
    }
    this.running.push(r);
    if (r.computed < r.target) this.prefilling++;
    plan.admitted.push(r);
    this.addChunk(plan, r, n);
    return true;
  }

  private addChunk(plan: Plan, r: SimRequest, n: number): void {
    plan.prefill.push(r);
    plan.chunks.push(n);
    const w = plan.work;
    w.prefillSeqs++;
    w.prefillTokens += n;
    w.prefillPairs += n * (r.computed + n / 2);
    w.prefillCtx += r.computed + n;
  }

  private peekNext(): SimRequest | undefined {
    if (this.resumed.length > 0) return this.resumed[0];
    const n = this.waiting.length - this.waitHead;
    if (n <= 0) return undefined;
    const order = this.policy.order;
    if (order === 'fcfs' || n === 1) return this.waiting[this.waitHead];
    // Other orders pick among the queue; move the choice to the head so takeNext stays O(1).
    let best = this.waitHead;
    if (order === 'random') {
      this.rng = mix32(this.rng, n);
      best = this.waitHead + (this.rng % n);
    } else if (order === 'lof') {
      for (let i = this.waitHead + 1; i < this.waiting.length; i++) {
        if ((this.waiting[i] as SimRequest).maxNew > (this.waiting[best] as SimRequest).maxNew) best = i;
      }
    } else if (order === 'lpm' && n <= 128) {
      let bestHit = -1;
      for (let i = this.waitHead; i < this.waiting.length; i++) {
        const w = this.waiting[i] as SimRequest;
        const hit = this.kv.match(w.hashes);
        if (hit > bestHit) {
          bestHit = hit;
          best = i;
        }
      }
    }
    if (best !== this.waitHead) {
      const chosen = this.waiting[best] as SimRequest;
      this.waiting.splice(best, 1);
      this.waiting.splice(this.waitHead, 0, chosen);
    }
    return this.waiting[this.waitHead];
  }

  private takeNext(): void {
    if (this.resumed.length > 0) {
      this.resumed.shift();
      return;
    }
    this.waitHead++;
    // Compact now and then so the array does not grow without bound.
    if (this.waitHead > 1024 && this.waitHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitHead);
      this.waitHead = 0;
    }
  }

  // ---- applying a finished step -----------------------------------------------------------------------

  private finish(): void {
    const plan = this.plan;
    this.plan = undefined;
    this.minLeft = NaN;
    if (!plan) return;
    this.stats.steps++;
    let done = 0;
    // The fewest steps left to a running request's last token, over the requests this step advanced.
    let advanced = 0;
    let minLeft = Infinity;
    for (const r of plan.decode) {
      if (r.state !== 'running') continue;
      if (this.policy.spec ? this.advanceSpec(r, this.policy.spec) : (r.computed++, this.advance(r))) done++;
      else {
        advanced++;
        minLeft = Math.min(minLeft, r.stopAt - r.generated - 1);
      }
    }
    for (let i = 0; i < plan.prefill.length; i++) {
      const r = plan.prefill[i] as SimRequest;
      if (r.state !== 'running') continue;
      r.computed += plan.chunks[i] as number;
      this.publishComputed(r);
      if (r.computed < r.target) continue;
      this.prefilling--;
      if (this.advance(r)) done++;
      else {
        advanced++;
        minLeft = Math.min(minLeft, r.stopAt - r.generated - 1);
      }
    }
    if (done > 0) {
      let j = 0;
      for (let i = 0; i < this.running.length; i++) {
        const r = this.running[i] as SimRequest;
        if (r.state === 'running') this.running[j++] = r;
      }
      this.running.length = j;
    }
    // Known for the whole batch only when this step advanced every running request (a prefill-first step pauses decode).
    if (advanced === this.running.length) this.minLeft = minLeft;
  }

  /**
   * A speculative step of `r`: its k drafted tokens verified, the accepted run and the target's own next token taken
   * (never beyond where it stops); the draft counters as the engines keep them. True when it finished.
   */
  private advanceSpec(r: SimRequest, spec: SpecSettings): boolean {
    const accepted = acceptedIn(spec.k, r.specAlpha, r.seed, r.generated);
    this.stats.specDrafts++;
    this.stats.specDraftTokens += spec.k;
    this.stats.specAccepted += accepted;
    r.specSteps++;
    const take = Math.max(1, Math.min(accepted + 1, r.stopAt - r.generated));
    for (let i = 0; i < take; i++) {
      r.computed++;
      if (this.advance(r)) {
        this.stats.specVerifyFinished += r.specSteps;
        return true;
      }
    }
    return false;
  }

  /** One token sampled for `r` (none when it stops at 0: the zero-tokens fault); true when it finished. */
  private advance(r: SimRequest): boolean {
    if (r.stopAt > 0) {
      r.generated++;
      // The next step computes the KV of the token just sampled and samples the one after: a decode step.
      r.target = r.promptLen + r.generated - 1;
      this.stats.generatedTokens++;
    }
    if (r.generated <= 1 && Number.isNaN(r.firstAt)) r.firstAt = this.stepEnd;
    if (r.generated >= r.stopAt) {
      r.doneAt = this.stepEnd;
      this.releaseKv(r, true);
      r.state = 'done';
      this.stats.finished++;
      this.deliver(r, r.generated >= r.maxNew && !r.forceStop ? 'length' : 'stop');
      this.onFinished?.(r);
      return true;
    }
    // On a virtual clock only the first token and the finish are read: the stream in between is not delivered.
    if (r.delivered === 0 || (!this.clock.at && r.generated - r.delivered >= this.policy.streamInterval)) this.deliver(r, null);
    return false;
  }

  private deliver(r: SimRequest, finish: FinishReason | null): void {
    const from = r.delivered;
    const count = r.generated - from;
    r.delivered = r.generated;
    if (count > 0 || finish) r.sink.tokens(from, count, finish, this.stepEnd);
  }

  private publishComputed(r: SimRequest): void {
    if (!this.policy.prefixCaching) return;
    const bs = this.policy.blockSize;
    const full = Math.min(Math.floor(r.computed / bs), r.hashes.length);
    for (; r.pubIdx < full; r.pubIdx++) {
      if (r.priv > 0 && this.kv.publish(r.hashes[r.pubIdx] as number)) {
        r.shared.push(r.hashes[r.pubIdx] as number);
        r.priv--;
      }
    }
  }

  /** Returns `r`'s blocks; with `keep`, its full blocks stay in the prefix cache for later requests. */
  private releaseKv(r: SimRequest, keep: boolean): void {
    if (keep && this.policy.prefixCaching) {
      const bs = this.policy.blockSize;
      extendHashes(r, bs, r.computed);
      const full = Math.floor(r.computed / bs);
      for (; r.pubIdx < full && r.priv > 0; r.pubIdx++) {
        if (this.kv.publishIdle(r.hashes[r.pubIdx] as number)) r.priv--;
      }
    }
    this.kv.release(r.shared, r.priv);
    r.shared = [];
    r.priv = 0;
    r.pubIdx = 0;
  }
}
