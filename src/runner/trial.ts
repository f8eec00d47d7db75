// Measurement: a scenario's fixed points and rate search on a live server, each trial run by the load client and written as a row; finished trials of a resumed run are replayed, not measured.
import type { BenchProgress, BenchResult } from '../client';
import { candidateFlagsJson, type Candidate } from '../core/candidates/candidate';
import type { Scenario } from '../core/config/model';
import type { PlanFramework } from '../core/plan/types';
import type { ResultRow, RowStatus } from '../core/results/rows';
import type { SlaVerdict } from '../core/results/sla';
import { safeName, trialKey } from './artifacts';
import { backendFor, benchmarkCommand, rawResult, type TrialOutcome, type TrialSettings } from './client-trial';
import { runPlacedTrial, type PlacedOutcome } from './client-placement';
import { WARMUP_FIRST_TRIAL, WARMUP_LATER, type RunContext } from './context';
import { DEFAULT_PORTS, portFlag } from './launch-env';
import { MAX_LENGTHEN, steadyRequests } from '../core/plan/bench';
import { belowFloor, searchAbove, searchAround, searchBeyond } from '../predict/race';
import { bracketOf, describeSearch, newSearch, nextRate, recordRound, willRecheck, type PriorVerdict, type RateSearchConfig, type RateSearchEnd } from './rate-search';
import { judge, measuredRow, metricsBlock, placedRowContext, type RowTrial } from './row-builder';
import { inversionOf, logNotesSince, logSize, paceOf, settleFlush, validityOf, type RoundPoint, type Validity } from './trial-checks';
import { failureOf, type LiveServer } from './server';
import { floorOf, removedOf, withFloorProbe } from './ttft-floor';
import { pdSplitOf, withPdSplit } from './pd-split';
import { pdMetricsOf, withWorkerMetrics } from './pd-metrics';
import { specDecodeOf, withSpecCounters } from './spec-metrics';
import { energyOf, withEnergy, type EnergyPlace } from './energy';
import type { TrialRef } from './types';
import type { Workload } from '../core/workload';

/** A trial's end for the scenario loop: its row, a cancel, or the failure that ended the server. */
type Measured = ResultRow | 'cancelled' | { status: RowStatus; reason: string };
const ended = (r: Measured): r is 'cancelled' | { status: RowStatus; reason: string } => r === 'cancelled' || !('framework' in r);

export interface ScenarioRun {
  f: PlanFramework;
  cand: Candidate;
  sc: Scenario;
  server: LiveServer;
  logFile: string;
}

function emitResumed(ctx: RunContext, ref: TrialRef, row: ResultRow): void {
  const m = row.metrics ?? {};
  ctx.emit({ type: 'trial-end', ...ref, status: row.status, slaPassed: row.sla?.passed === true, reasons: row.sla?.reasons ?? [], requestThroughput: m.request_throughput ?? null, p50TtftMs: m.p50_ttft_ms ?? null, p50TpotMs: m.p50_tpot_ms ?? null, resumed: true });
}

/** One server launch, shared by the scenarios it measures: whether its first measured trial is still to come. */
export interface LaunchWarmth {
  cold: boolean;
}

/** Measures a trial of a scenario's loop on its server; `supersede` says, from the trial's verdict, whether it will be measured again. */
type MeasureOne = (ref: TrialRef, rounds?: readonly RoundPoint[], supersede?: (passed: boolean) => boolean) => Promise<Measured>;

/** A row's verdict as the search reads it: measured, and within the SLA. */
const passedOf = (row: ResultRow): boolean => row.status === 'ok' && row.sla?.passed === true;

/** 'ok', 'cancelled', or the failure that ended the server (its trial row is written). `launch` is the server's, across its scenarios. */
export async function runScenario(ctx: RunContext, s: ScenarioRun, launch: LaunchWarmth): Promise<'ok' | 'cancelled' | { status: RowStatus; reason: string }> {
  const fw = s.f.framework;
  const b = ctx.plan.bench;
  const measureOne: MeasureOne = async (ref, rounds = [], supersede) => {
    let freshWarmup: number | undefined;
    if (launch.cold) {
      // The launch's first measured trial (whatever its scenario or round; replayed trials of a resumed run do not count)
      // gets the warm-up a repeat's first point gets: measured cold, a server reads several times slower than it runs
      // once warm (the simulator's first searched rate showed a TTFT of 210 ms that fell to 90 ms at a higher rate), and
      // a search would take that for the server's limit. Once per launch: later trials follow measured ones.
      const w = await warmUpAt(ctx, s, ref.rate, ref.concurrency);
      if (w === 'cancelled') return w;
      launch.cold = false;
      freshWarmup = w;
    }
    const r = await measure(ctx, s, ref, freshWarmup !== undefined ? WARMUP_FIRST_TRIAL : WARMUP_LATER, rounds, { ...(freshWarmup !== undefined ? { freshWarmup } : {}), ...(supersede ? { supersede } : {}) });
    if (r === 'cancelled') return r;
    if (r.dead) return { status: r.row.status, reason: r.row.failure_reason ?? 'the server is gone' };
    return r.row;
  };
  // Verdicts of the fixed points, per concurrency: a search round that contradicts one is measured again (rate-search.ts).
  const prior = new Map<number | null, PriorVerdict[]>();
  const addPrior = (p: { rate: number | 'inf'; concurrency: number | null }, row: ResultRow) => {
    if (typeof p.rate === 'number' && row.status === 'ok') prior.set(p.concurrency, [...(prior.get(p.concurrency) ?? []), { rate: p.rate, passed: passedOf(row) }]);
  };
  for (const p of b.fixed) {
    const ref: TrialRef = { framework: fw, candidateId: s.cand.id, scenario: s.sc.name, mode: 'fixed', rate: p.rate, concurrency: p.concurrency, round: 0, key: '' };
    ref.key = trialKey(ref, ctx.ledger.digest(fw, s.cand, s.sc));
    const prev = ctx.ledger.finished(ref.key, s.cand);
    if (prev) {
      emitResumed(ctx, ref, prev);
      addPrior(p, prev);
      continue;
    }
    const r = await measureOne(ref);
    if (ended(r)) return r;
    addPrior(p, r);
  }
  if (!b.search) return 'ok';
  for (const c of b.search.concurrencies) {
    const r = await rateSearch(ctx, s, c, measureOne, prior.get(c) ?? []);
    if (r !== 'ok') return r;
  }
  return 'ok';
}

async function rateSearch(ctx: RunContext, s: ScenarioRun, c: number | null, measureOne: MeasureOne, prior: readonly PriorVerdict[]): Promise<'ok' | 'cancelled' | { status: RowStatus; reason: string }> {
  const spec = ctx.plan.bench.search;
  if (!spec) return 'ok';
  // The adaptive strategy starts at the predicted knee, no lower than the floor under which the candidate can neither
  // win nor tie; failing there ends the search, and a search that does not bracket the limit otherwise goes on over the plan's bounds.
  const { knee, floor } = ctx.searchHints.get(searchHintKey(s.f.framework, s.cand.id, s.sc.name)) ?? {};
  const first = searchAbove(knee ? searchAround(spec, knee) : spec, floor);
  const r = await searchOnce(ctx, s, c, first, measureOne, prior);
  const label = `${s.f.framework} ${s.cand.id} ${s.sc.name}`;
  if (typeof r === 'object' && 'end' in r && belowFloor(first, r.end, floor)) {
    const note = `stopped: ${first.lower} req/s fails the SLA, and under it the candidate can neither win nor tie with the leader (adaptive)`;
    const st = ctx.fwState(s.f.framework);
    const key = searchLabel(s, c);
    st.searches[key] = note;
    if (st.brackets[key]) st.brackets[key] = { ...st.brackets[key], note };
    recordStop(ctx, { framework: s.f.framework, candidate: s.cand.id, scenario: s.sc.name, rate: first.lower });
    ctx.log('info', `${label}: ${note}`);
    return 'ok';
  }
  if (first !== spec && typeof r === 'object' && 'end' in r && (r.end === 'lower-fails' || r.end === 'upper-passes')) {
    const next = searchBeyond(spec, first, r.end, r.best ?? first.upper);
    ctx.log('info', `${label}: the search ${knee ? `around the predicted ${knee} req/s` : `from ${first.lower} req/s`} ended ${r.end}; searching ${next.lower}..${next.upper} req/s`);
    // The first search's verdicts were measured on this launch too: the second must agree with them.
    const again = await searchOnce(ctx, s, c, next, measureOne, [...prior, ...r.verdicts]);
    return typeof again === 'object' && 'end' in again ? 'ok' : again;
  }
  return typeof r === 'object' && 'end' in r ? 'ok' : r;
}

/** Where the adaptive strategy's predicted knees are kept (RunContext.searchHints). */
export function searchHintKey(fw: string, candidate: string, scenario: string): string {
  return `${fw}\u0000${candidate}\u0000${scenario}`;
}

/** A stopped search into the manifest's search_strategy.stopped, once (a resumed run replays the search and records it again). */
function recordStop(ctx: RunContext, stop: { framework: string; candidate: string; scenario: string; rate: number }): void {
  const rec = ctx.manifest.search_strategy;
  if (!rec) return;
  const list = (rec.stopped ??= []);
  if (!list.some((x) => x.framework === stop.framework && x.candidate === stop.candidate && x.scenario === stop.scenario)) list.push(stop);
}

/** Where the candidate's server command listens when a user starts it on the host it ran on: its --port (a P/D unit: its router's), else the framework's default. */
function reproduceUrl(s: ScenarioRun): string {
  if (s.cand.unit) return `http://127.0.0.1:${s.cand.unit.routerPort}`;
  return `http://127.0.0.1:${portFlag(candidateFlagsJson(s.cand)) ?? DEFAULT_PORTS[s.f.framework]}`;
}

/** A search's key in the manifest's searches and brackets. */
const searchLabel = (s: ScenarioRun, c: number | null): string => `${s.cand.id} ${s.sc.name} c=${c ?? 'none'}`;

/**
 * One rate search over `spec`: how it ended and its verdicts that count, or 'cancelled' / the failure that ended the
 * server. `prior`: verdicts measured before it on this launch (scenario and concurrency alike) that its rounds must agree with.
 */
async function searchOnce(ctx: RunContext, s: ScenarioRun, c: number | null, spec: RateSearchConfig, measureOne: MeasureOne, prior: readonly PriorVerdict[]): Promise<{ end: RateSearchEnd | undefined; best: number | undefined; verdicts: PriorVerdict[] } | 'cancelled' | { status: RowStatus; reason: string }> {
  const fw = s.f.framework;
  const label = searchLabel(s, c);
  const state = newSearch(prior);
  const points: Array<RoundPoint & { round: number }> = [];
  for (let rate = nextRate(spec, state); rate !== undefined; rate = nextRate(spec, state)) {
    const ref: TrialRef = { framework: fw, candidateId: s.cand.id, scenario: s.sc.name, mode: 'search', rate, concurrency: c, round: state.rounds.length + 1, key: '' };
    ref.key = trialKey(ref, ctx.ledger.digest(fw, s.cand, s.sc));
    let row = ctx.ledger.finished(ref.key, s.cand);
    if (row) emitResumed(ctx, ref, row);
    else {
      // A verdict that contradicts an earlier one is measured again in the next round (nextRate asks for it): its row is
      // kept, marked superseded, so a resumed run replays both rounds and the report counts the second.
      const r = await measureOne(ref, points, (passed) => willRecheck(state, rate, passed));
      if (ended(r)) {
        if (r !== 'cancelled') ctx.fwState(fw).searches[label] = `${describeSearch(state, spec)}; ended in round ${ref.round}: ${r.reason}`;
        return r;
      }
      row = r;
    }
    const round = recordRound(state, rate, passedOf(row));
    if (round.recheck) {
      const first = state.rounds[round.round - 2];
      ctx.log('info', `${fw} ${s.cand.id} ${s.sc.name} @ ${rate} req/s: measured again, ${round.passed ? 'passes' : 'fails'} (round ${round.round - 1} ${first?.passed ? 'passed' : 'failed'}); the second verdict stands`);
      const i = points.findIndex((p) => p.round === round.round - 1);
      if (i >= 0) points.splice(i, 1);
    }
    if (row.status === 'ok') points.push({ rate, round: round.round, checks: judge(row, ctx.plan.sla).checks });
  }
  const text = describeSearch(state, spec);
  ctx.fwState(fw).brackets[label] = bracketOf(spec, state);
  ctx.fwState(fw).searches[label] = text;
  ctx.log('info', `${fw} ${s.cand.id} ${s.sc.name} (concurrency ${c ?? 'unlimited'}): rate search ${text}`);
  return { end: state.done, best: state.best, verdicts: state.rounds.filter((x) => !x.superseded).map((x) => ({ rate: x.rate, passed: x.passed })) };
}

/** A trial outcome as a row status and reason; dead: the server or the connection is gone. */
async function classify(ctx: RunContext, s: ScenarioRun, outcome: Exclude<TrialOutcome, { kind: 'cancelled' }>): Promise<{ status: RowStatus; reason: string | null; dead: boolean }> {
  switch (outcome.kind) {
    case 'done':
      if (outcome.result.metrics.completed > 0) return { status: 'ok', reason: null, dead: false };
      return { status: 'failed', reason: `no request succeeded; first error: ${outcome.result.records.find((r) => !r.success)?.error ?? 'unknown'}`, dead: false };
    case 'error':
      return { status: 'failed', reason: `the benchmark could not run: ${outcome.message}`, dead: false };
    case 'server-exit': {
      await s.server.proc.exited;
      const why = failureOf(s.f.framework, s.server.proc, 'the server died during the trial');
      return { status: why.status, reason: why.reason, dead: true };
    }
    case 'connection-lost':
      return { status: 'failed', reason: `${outcome.message}; the trial was abandoned`, dead: true };
    case 'timeout':
      return { status: 'timeout', reason: `the trial did not finish within ${Math.round(ctx.trialTimeoutMs / 1000)} s`, dead: false };
  }
}

/** The plan's SLA on a result (latencies, success rate, and with `pace` the pace) before the validity gates. */
/** `ttftRemovedMs`: the server's TTFT floor (ttft-floor.ts), so every verdict reads the figures its row will. */
function slaOf(ctx: RunContext, r: BenchResult, finiteRate: boolean, pace = true, ttftRemovedMs = 0): SlaVerdict {
  const metrics = { ...metricsBlock(r.metrics, ctx.speed, ttftRemovedMs) };
  if (pace) {
    const p = paceOf(r.records, finiteRate, ctx.speed);
    Object.assign(metrics, { offered_request_rate: p.offered, completion_request_rate: p.kept });
  }
  return judge({ framework: 'x', status: 'ok', metrics }, ctx.plan.sla);
}

const passesSla = (ctx: RunContext, r: BenchResult, finiteRate: boolean, pace = true, ttftRemovedMs = 0): boolean => slaOf(ctx, r, finiteRate, pace, ttftRemovedMs).passed;

/** The prompt set warm-ups draw from: never a measured trial's. */
const WARMUP_PROMPT_SET = 999_999;

export { MAX_LENGTHEN };

/** Requests a trial at `wallRate` needs for a steady state (core/plan/bench.ts steadyRequests). */
function neededRequests(n: { e2eS: number; minCompleted: number }, wallRate: number): number {
  return steadyRequests(n.e2eS, wallRate, n.minCompleted);
}

function needsOf(r: BenchResult): { e2eS: number; minCompleted: number } {
  return { e2eS: (r.metrics.e2e.median ?? 0) / 1000, minCompleted: r.metrics.steady.minCompleted };
}

/** The next length (× the plan's prompts) that should reach a steady state, or undefined when none within MAX_LENGTHEN is longer. */
function lengthenFactor(r: BenchResult, wallRate: number, numPrompts: number, factor: number): number | undefined {
  if (factor >= MAX_LENGTHEN) return undefined;
  return Math.min(MAX_LENGTHEN, Math.max(factor * 2, Math.ceil((1.25 * neededRequests(needsOf(r), wallRate)) / numPrompts)));
}

/**
 * Where a trial starts: as long as the candidate's last trial in this scenario says this rate needs (1: the plan's
 * prompts); a repeat's trials the plan's verdict.repeat_length times that (they read the launch's capacity at its knee).
 */
function startFactor(ctx: RunContext, key: string, wallRate: number, mode: TrialRef['mode']): number {
  const n = ctx.trialNeeds.get(key);
  const steady = !n || !Number.isFinite(wallRate) ? 1 : Math.max(1, Math.ceil(neededRequests(n, wallRate) / ctx.plan.bench.numPrompts));
  return Math.min(MAX_LENGTHEN, steady * (mode === 'repeat' ? (ctx.plan.bench.verdict?.repeatLength ?? 1) : 1));
}

/**
 * The prompt set of a trial: its index within the candidate and scenario (fixed points in order, then the
 * search rounds, then repeats), so no trial re-sends a prompt an earlier trial on that server sent.
 */
function promptSetOf(ctx: RunContext, ref: TrialRef): number {
  const b = ctx.plan.bench;
  if (ref.mode === 'fixed') return Math.max(0, b.fixed.findIndex((p) => p.rate === ref.rate && p.concurrency === ref.concurrency));
  const c = Math.max(0, b.search?.concurrencies.indexOf(ref.concurrency) ?? 0);
  if (ref.mode === 'search') return b.fixed.length + c * 100 + ref.round;
  return 100_000 + ref.round;
}

function rawPath(s: ScenarioRun, ref: TrialRef): string {
  const c = `c${ref.concurrency ?? 'none'}`;
  const name = ref.mode === 'search' ? `search-${c}-round${ref.round}-rate${ref.rate}` : ref.mode === 'repeat' ? `repeat${ref.round}-${c}-rate${ref.rate}` : `fixed-${c}-rate${ref.rate}`;
  return `trials/${safeName(s.f.framework)}/${safeName(s.cand.id)}/${safeName(s.sc.name)}/${safeName(name)}.json`;
}

/** The client's settings for a trial at `rate` (modelled req/s) on this server. */
function settingsOf(ctx: RunContext, s: ScenarioRun, rate: number | 'inf', concurrency: number | null, warmup: number): TrialSettings {
  const b = ctx.plan.bench;
  const settings: TrialSettings = { backend: backendFor(s.f.framework, b.endpoint), wallRate: rate === 'inf' ? Infinity : rate * ctx.speed, concurrency, warmupRequests: warmup, seed: b.seed, extraBody: b.extraBody, timeoutMs: ctx.trialTimeoutMs };
  const warmupRow = ctx.workloads.for(s.sc, WARMUP_PROMPT_SET).rows[0];
  if (warmupRow) settings.warmupRow = warmupRow;
  // Output tokens counted with the run's tokenizer when a server streams no usage (some smg gateway versions).
  settings.tokenizer = ctx.workloads.tokenizer;
  return settings;
}

/** Modelled seconds of load a fresh server gets at the rate of its first measurement before it (not recorded). */
export const FRESH_WARMUP_S = 5;

/**
 * A freshly started server's warm-up at the rate of its first measured trial, with prompts no trial sends and the
 * results discarded: a repeat then starts as warm as the search's later rounds, which ran after lower-rate rounds
 * (measured on the simulator: without it, repeats' first trials read 5-30x the search's TTFT at the same rate).
 */
export async function warmUpAt(ctx: RunContext, s: ScenarioRun, rate: number | 'inf', concurrency: number | null): Promise<number | 'cancelled'> {
  const numPrompts = ctx.plan.bench.numPrompts;
  const wanted = rate === 'inf' ? numPrompts : Math.max(numPrompts, Math.ceil(rate * FRESH_WARMUP_S));
  const workload = ctx.workloads.for(s.sc, WARMUP_PROMPT_SET, Math.min(MAX_LENGTHEN, Math.ceil(wanted / numPrompts)));
  ctx.log('info', `${s.f.framework} ${s.cand.id}: warming the fresh server up with ${workload.rows.length} requests at ${rate} req/s (not recorded)`);
  const outcome = await runPlacedTrial(s.server.executor ?? ctx.target.executor, s.server, workload, settingsOf(ctx, s, rate, concurrency, WARMUP_FIRST_TRIAL), {
    signal: ctx.signal,
    onConnectionLost: (fn) => (s.server.executor ?? ctx.target.executor).onConnectionLost((e) => fn(e.message)),
    onProgress: () => undefined,
  });
  return outcome.kind === 'cancelled' ? 'cancelled' : workload.rows.length;
}

/**
 * Where a trial's GPU power is sampled: the launch's host, on the GPUs it holds (the run's ids; a P/D unit's slots map
 * onto the first of them); a Slurm job's node: every GPU it shows.
 */
function energyPlace(ctx: RunContext, s: ScenarioRun): EnergyPlace {
  const held = s.cand.unit ? ctx.target.gpus?.slice(0, s.cand.unit.gpus) : ctx.target.gpus;
  const gpus = s.server.executor ? undefined : held?.map(String);
  return { executor: s.server.executor ?? ctx.target.executor, ...(gpus?.length ? { gpus } : {}) };
}

/** A trial invalid only because of the measuring machine (client-bound, host-bound) is measured again this many times. */
export const MAX_REMEASURE = 2;
/** Prompt sets of re-measurements: never a set an earlier trial on that server sent. */
const REMEASURE_SET_STRIDE = 200_000;

interface Attempt {
  outcome: Exclude<PlacedOutcome, { kind: 'cancelled' }>;
  workload: Workload;
  validity: Validity | undefined;
}

/**
 * A trial whose prompts an earlier trial of the run already sent (a dataset file too small for fresh prompts) on a
 * server whose prefix cache was not flushed before it: its latencies are cache-biased, so it is not a verdict.
 */
function cacheBiased(v: Validity, result: { flushCache: string }, workload: Workload): void {
  if (!workload.reusedRows || result.flushCache === 'ok') return;
  v.valid = false;
  v.reasons.push(`cache-biased: ${workload.reusedRows} of its ${workload.rows.length} prompts were sent by an earlier trial and the server's cache was not flushed (${result.flushCache}); give a larger dataset file or a smaller dataset.num_prompts`);
}

/** The client's run of a trial, lengthened until it reaches a steady state (or MAX_LENGTHEN); 'cancelled' when cancelled. */
async function lengthened(ctx: RunContext, s: ScenarioRun, ref: TrialRef, settings: TrialSettings, set: number): Promise<Omit<Attempt, 'validity'> | 'cancelled'> {
  const speed = ctx.speed;
  const t = (x: number | null) => (x === null ? null : x * speed);
  const needsKey = [s.f.framework, s.cand.id, s.sc.name].join('\u0000');
  let factor = startFactor(ctx, needsKey, settings.wallRate, ref.mode);
  let workload = ctx.workloads.for(s.sc, set, factor);
  // On a simulated server the TTFT floor is probed beside the trial, under its load (ttft-floor.ts); on a simulated
  // P/D unit the router's split of its TTFT is read around it too (pd-split.ts); on any unit its workers' /metrics (pd-metrics.ts); speculative decoding's counters on any server (spec-metrics.ts).
  const once = () =>
    withEnergy(s.server, energyPlace(ctx, s), () => withSpecCounters(s.server, s.f.framework, s.cand.unit?.workers.prefill, () => withWorkerMetrics(s.server, s.f.framework, s.cand.unit?.workers.prefill, () => withPdSplit(s.server, () => withFloorProbe(s.server, speed, ctx.plan.sla?.limits, () => runPlacedTrial(s.server.executor ?? ctx.target.executor, s.server, workload, settings, {
      signal: ctx.signal,
      onConnectionLost: (fn) => (s.server.executor ?? ctx.target.executor).onConnectionLost((e) => fn(e.message)),
      onProgress: (p: BenchProgress) =>
        ctx.emit({ type: 'trial-progress', ...ref, total: p.total, completed: p.completed, failed: p.failed, inFlight: p.inFlight, elapsedS: p.elapsedS, requestsPerS: p.requestsPerS / speed, outputTokensPerS: p.outputTokensPerS / speed, ttftMsP50: t(p.ttftMsP50), tpotMsP50: t(p.tpotMsP50) }),
    }))))));
  // Only a trial whose latencies meet the SLA says what this scenario needs (a saturated one's E2E is its queue).
  const remember = (o: TrialOutcome) => {
    if (o.kind === 'done' && passesSla(ctx, o.result, true, false, removedOf(s.server))) ctx.trialNeeds.set(needsKey, needsOf(o.result));
  };
  let outcome = await once();
  remember(outcome);
  // A trial too short to reach a steady state is lengthened (more prompts, same rate), not trusted.
  // A short trial whose latencies already miss the SLA would only miss it by more when longer (queues grow): that
  // verdict stands. Its pace is another matter: over a few dozen requests the completions' span is mostly the spread
  // of their latencies, so a short trial that misses only on pace is lengthened too.
  while (outcome.kind === 'done' && ref.rate !== 'inf' && outcome.result.metrics.steady.tooShort && passesSla(ctx, outcome.result, true, false, removedOf(s.server))) {
    const next = lengthenFactor(outcome.result, settings.wallRate, ctx.plan.bench.numPrompts, factor);
    if (next === undefined) break;
    ctx.log('info', `${s.f.framework} ${s.cand.id} ${s.sc.name} @ ${ref.rate} req/s: too short (${outcome.result.metrics.steady.tooShort}); measuring again with ${next * ctx.plan.bench.numPrompts} prompts`);
    factor = next;
    workload = ctx.workloads.for(s.sc, set, factor);
    outcome = await once();
    remember(outcome);
  }
  return outcome.kind === 'cancelled' ? 'cancelled' : { outcome, workload };
}

/**
 * A trial's measurement and validity: an attempt that is invalid only because the measuring machine was the
 * bottleneck says nothing about the server, so it is discarded and measured again with fresh prompts (up to
 * MAX_REMEASURE times); the discarded reasons stay on the row.
 */
async function attempts(ctx: RunContext, s: ScenarioRun, ref: TrialRef, settings: TrialSettings, rounds: readonly RoundPoint[]): Promise<Attempt | 'cancelled'> {
  const discarded: string[] = [];
  for (let n = 0; ; n++) {
    const logStart = logSize(s.logFile);
    const run = await lengthened(ctx, s, ref, settings, promptSetOf(ctx, ref) + n * REMEASURE_SET_STRIDE);
    if (run === 'cancelled') return run;
    const result = 'result' in run.outcome ? run.outcome.result : undefined;
    const validity = result ? validityOf(result, settleFlush(result, logNotesSince(s.logFile, logStart, s.f.framework)), ref.rate !== 'inf' && passesSla(ctx, result, true, true, removedOf(s.server))) : undefined;
    if (validity && result) cacheBiased(validity, result, run.workload);
    // An inverted latency is said once the validity gates pass; the last attempt stands as measured, inverted or not.
    const suspect = validity?.environmental ? validity.reasons.join('; ') : validity?.valid && result && typeof ref.rate === 'number' ? inversionOf(slaOf(ctx, result, true, true, removedOf(s.server)).checks, ref.rate, rounds) : undefined;
    if (suspect && n < MAX_REMEASURE && !ctx.aborted) {
      discarded.push(suspect);
      ctx.log('warn', `${s.f.framework} ${s.cand.id} ${s.sc.name} @ ${ref.rate} req/s: not a measurement of the server (${suspect}); measuring again`);
      continue;
    }
    if (validity && discarded.length > 0) validity.remeasured = discarded;
    return { ...run, validity };
  }
}

/** What the caller knows of a trial beyond its ref: the launch's warm-up before it, and whether its verdict will be measured again. */
export interface MeasureOptions {
  /** Requests of the fresh server's warm-up (warmUpAt) right before this trial, the launch's first measured one. */
  freshWarmup?: number;
  /** From the trial's verdict (measured and within the SLA): true when the search will measure it again, and this row only stays on record. */
  supersede?: (passed: boolean) => boolean;
}

/** One trial: the row it produced (dead: the server or the connection is gone), or 'cancelled' (no row). */
export async function measure(ctx: RunContext, s: ScenarioRun, ref: TrialRef, warmup: number, rounds: readonly RoundPoint[] = [], opts: MeasureOptions = {}): Promise<{ row: ResultRow; dead: boolean } | 'cancelled'> {
  const fw = s.f.framework;
  const speed = ctx.speed;
  const b = ctx.plan.bench;
  const settings = settingsOf(ctx, s, ref.rate, ref.concurrency, warmup);
  ctx.trialIndex++;
  ctx.emit({ type: 'trial-start', ...ref, index: ctx.trialIndex, of: Math.max(ctx.plannedTrials, ctx.trialIndex), numPrompts: ctx.plan.bench.numPrompts });
  const attempt = await attempts(ctx, s, ref, settings, rounds);
  if (attempt === 'cancelled') return 'cancelled';
  const { outcome, workload, validity } = attempt;
  const result = 'result' in outcome ? outcome.result : undefined;
  const classified = await classify(ctx, s, outcome);
  const { dead } = classified;
  let { status, reason } = classified;
  if (status === 'ok' && validity && !validity.valid) {
    status = 'failed';
    reason = `invalid measurement: ${validity.reasons.join('; ')}`;
  }
  const rawRel = rawPath(s, ref);
  const placed = outcome.client;
  // The row's command measures the trial again against a server started from its server command (reproduceUrl), at
  // the trial's rate in real time; the raw file also keeps the one this run executed (the simulator's wall rate, the
  // port of a server that is gone).
  const flags = ctx.workloads.benchFlags(workload.rows.length);
  const cmd = benchmarkCommand({ ...settings, wallRate: ref.rate === 'inf' ? Infinity : ref.rate }, reproduceUrl(s), ctx.workloads.arg, b.datasetKind, s.sc.inputLen, s.sc.outputLen, workload.rows.length, flags);
  if (result) {
    const note = ctx.target.simulated ? `SIMULATED engine at speed x${speed}: the times below are wall-clock; the row reports them in modelled time` : undefined;
    const executed = benchmarkCommand(settings, placed.base_url, ctx.workloads.arg, b.datasetKind, s.sc.inputLen, s.sc.outputLen, workload.rows.length, flags);
    ctx.dir.writeJson(rawRel, { note, trial: ref, status, reason, benchmark_command: cmd, executed_command: executed, client_placement: placed, result: rawResult(result) });
  }
  const help = ctx.fwState(fw).help?.file;
  const { row, verdict } = measuredRow(placedRowContext(ctx.rowCtx, s.server), {
    fw,
    cand: s.cand,
    scenario: s.sc,
    trial: { key: ref.key, mode: ref.mode, rate: ref.rate, concurrency: ref.concurrency, round: ref.round },
    status,
    reason,
    metrics: result?.metrics,
    benchmarkCommand: cmd,
    artifacts: { ...(result ? { raw_result: rawRel } : {}), server_log: ctx.dir.rel(s.logFile), ...(help ? { server_help: help } : {}) },
    backend: settings.backend,
    numPrompts: workload.rows.length,
    simulatedServer: s.server.simulated,
    ...(floorOf(s.server) ? { ttftFloor: floorOf(s.server) } : {}),
    ...(pdSplitOf(s.server) ? { pdSplit: pdSplitOf(s.server) } : {}),
    ...(pdMetricsOf(s.server) ? { pdMetrics: pdMetricsOf(s.server) } : {}),
    ...(specDecodeOf(s.server) ? { specDecode: specDecodeOf(s.server) } : {}),
    ...(result?.sessions ? { sessions: result.sessions } : {}),
    ...(energyOf(s.server) ? { energy: energyOf(s.server) } : {}),
    // The idle forward's figures describe a measurement only when it went through the forward.
    ...(s.server.transport && placed.placement === 'forward' ? { transport: s.server.transport } : {}),
    clientPlacement: result ? { ...placed, workers: result.client.workers } : placed,
    ...(result ? { pace: paceOf(result.records, ref.rate !== 'inf', speed), cachePolicy: result.flushCache === 'ok' ? 'flushed' : workload.reusedRows ? 'reused-prompts' : 'fresh-prompts' } : {}),
    ...(validity ? { validity } : {}),
  });
  const trial = row.trial as RowTrial & { launch_warmup_requests?: number; superseded?: boolean };
  if (opts.freshWarmup !== undefined) trial.launch_warmup_requests = opts.freshWarmup;
  if (opts.supersede?.(passedOf(row))) {
    trial.superseded = true;
    ctx.log('warn', `${fw} ${s.cand.id} ${s.sc.name} @ ${ref.rate} req/s: ${passedOf(row) ? 'passes although a rate at or under it failed' : 'fails although a rate at or over it passed'}; measuring it again before it counts`);
  }
  if (s.server.simulated && !ctx.target.simulated && !ctx.manifest.note) {
    ctx.manifest.note = `SIMULATED: ${fw} ${s.cand.id} answered as the built-in simulated engine on ${ctx.opts.target}; its rows are marked simulated.`;
    ctx.log('warn', ctx.manifest.note);
  }
  ctx.addRow(row);
  const m = row.metrics ?? {};
  ctx.emit({ type: 'trial-end', ...ref, status, slaPassed: verdict.passed, reasons: verdict.reasons, requestThroughput: m.request_throughput ?? null, p50TtftMs: m.p50_ttft_ms ?? null, p50TpotMs: m.p50_tpot_ms ?? null, resumed: false });
  return { row, dead };
}
