// Measurement: a scenario's fixed points and rate search on a live server, each trial run by the load client and written as a row; finished trials of a resumed run are replayed, not measured.
import type { BenchProgress, BenchResult } from '../client';
import type { Candidate } from '../core/candidates/candidate';
import type { Scenario } from '../core/config/model';
import type { PlanFramework } from '../core/plan/types';
import type { ResultRow, RowStatus } from '../core/results/rows';
import { safeName, trialKey } from './artifacts';
import { backendFor, benchmarkCommand, rawResult, runTrial, type TrialOutcome, type TrialSettings } from './client-trial';
import { WARMUP_FIRST_TRIAL, WARMUP_LATER, type RunContext } from './context';
import { bracketOf, describeSearch, newSearch, nextRate, recordRound } from './rate-search';
import { judge, measuredRow, metricsBlock } from './row-builder';
import { logErrorsSince, logSize, paceOf, validityOf } from './trial-checks';
import { failureOf, type LiveServer } from './server';
import type { TrialRef } from './types';

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

/** 'ok', 'cancelled', or the failure that ended the server (its trial row is written). */
export async function runScenario(ctx: RunContext, s: ScenarioRun, firstOfCandidate: boolean): Promise<'ok' | 'cancelled' | { status: RowStatus; reason: string }> {
  const fw = s.f.framework;
  const b = ctx.plan.bench;
  let warm = firstOfCandidate;
  const measureOne = async (ref: TrialRef): Promise<Measured> => {
    const r = await measure(ctx, s, ref, warm ? WARMUP_FIRST_TRIAL : WARMUP_LATER);
    warm = false;
    if (r === 'cancelled') return r;
    if (r.dead) return { status: r.row.status, reason: r.row.failure_reason ?? 'the server is gone' };
    return r.row;
  };
  for (const p of b.fixed) {
    const ref: TrialRef = { framework: fw, candidateId: s.cand.id, scenario: s.sc.name, mode: 'fixed', rate: p.rate, concurrency: p.concurrency, round: 0, key: '' };
    ref.key = trialKey(ref, ctx.ledger.digest(fw, s.cand, s.sc));
    const prev = ctx.ledger.finished(ref.key, s.cand);
    if (prev) {
      emitResumed(ctx, ref, prev);
      continue;
    }
    const r = await measureOne(ref);
    if (ended(r)) return r;
  }
  if (!b.search) return 'ok';
  for (const c of b.search.concurrencies) {
    const r = await rateSearch(ctx, s, c, measureOne);
    if (r !== 'ok') return r;
  }
  return 'ok';
}

async function rateSearch(ctx: RunContext, s: ScenarioRun, c: number | null, measureOne: (ref: TrialRef) => Promise<Measured>): Promise<'ok' | 'cancelled' | { status: RowStatus; reason: string }> {
  const fw = s.f.framework;
  const spec = ctx.plan.bench.search;
  if (!spec) return 'ok';
  const label = `${s.cand.id} ${s.sc.name} c=${c ?? 'none'}`;
  const state = newSearch();
  for (let rate = nextRate(spec, state); rate !== undefined; rate = nextRate(spec, state)) {
    const ref: TrialRef = { framework: fw, candidateId: s.cand.id, scenario: s.sc.name, mode: 'search', rate, concurrency: c, round: state.rounds.length + 1, key: '' };
    ref.key = trialKey(ref, ctx.ledger.digest(fw, s.cand, s.sc));
    let row = ctx.ledger.finished(ref.key, s.cand);
    if (row) emitResumed(ctx, ref, row);
    else {
      const r = await measureOne(ref);
      if (ended(r)) {
        if (r !== 'cancelled') ctx.fwState(fw).searches[label] = `${describeSearch(state, spec)}; ended in round ${ref.round}: ${r.reason}`;
        return r;
      }
      row = r;
    }
    recordRound(state, rate, row.status === 'ok' && row.sla?.passed === true);
  }
  const text = describeSearch(state, spec);
  ctx.fwState(fw).brackets[label] = bracketOf(spec, state);
  ctx.fwState(fw).searches[label] = text;
  ctx.log('info', `${fw} ${s.cand.id} ${s.sc.name} (concurrency ${c ?? 'unlimited'}): rate search ${text}`);
  return 'ok';
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

/** Whether a result would meet the plan's SLA (latencies, success rate, pace) before the validity gates. */
function passesSla(ctx: RunContext, r: BenchResult, finiteRate: boolean): boolean {
  const metrics = { ...metricsBlock(r.metrics, ctx.speed) };
  const pace = paceOf(r.records, finiteRate, ctx.speed);
  Object.assign(metrics, { offered_request_rate: pace.offered, completion_request_rate: pace.kept });
  return judge({ framework: 'x', status: 'ok', metrics }, ctx.plan.sla).passed;
}

/** The prompt set warm-ups draw from: never a measured trial's. */
const WARMUP_PROMPT_SET = 999_999;

/** A trial may grow to this many times the plan's prompts before a too-short measurement is called invalid. */
export const MAX_LENGTHEN = 8;

/** The next length (× the plan's prompts) that should reach a steady state, or undefined when none within MAX_LENGTHEN is longer. */
function lengthenFactor(r: BenchResult, wallRate: number, numPrompts: number, factor: number): number | undefined {
  if (factor >= MAX_LENGTHEN) return undefined;
  const m = r.metrics;
  const e2eS = (m.e2e.median ?? 0) / 1000;
  // Arrivals must span 3 median E2E latencies, and the middle 80% must hold the completions the window needs.
  const needed = Math.max(3 * e2eS * wallRate + 1, m.steady.minCompleted / 0.8);
  return Math.min(MAX_LENGTHEN, Math.max(factor * 2, Math.ceil((1.25 * needed) / numPrompts)));
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
  const name = ref.mode === 'search' ? `search-c${ref.concurrency ?? 'none'}-round${ref.round}-rate${ref.rate}` : `fixed-c${ref.concurrency ?? 'none'}-rate${ref.rate}`;
  return `trials/${safeName(s.f.framework)}/${safeName(s.cand.id)}/${safeName(s.sc.name)}/${safeName(name)}.json`;
}

/** One trial: the row it produced (dead: the server or the connection is gone), or 'cancelled' (no row). */
export async function measure(ctx: RunContext, s: ScenarioRun, ref: TrialRef, warmup: number): Promise<{ row: ResultRow; dead: boolean } | 'cancelled'> {
  const fw = s.f.framework;
  const speed = ctx.speed;
  const b = ctx.plan.bench;
  const settings: TrialSettings = { backend: backendFor(fw, b.endpoint), wallRate: ref.rate === 'inf' ? Infinity : ref.rate * speed, concurrency: ref.concurrency, warmupRequests: warmup, seed: b.seed, extraBody: b.extraBody, timeoutMs: ctx.trialTimeoutMs };
  const set = promptSetOf(ctx, ref);
  let workload = ctx.workloads.for(s.sc, set);
  const warmupRow = ctx.workloads.for(s.sc, WARMUP_PROMPT_SET).rows[0];
  if (warmupRow) settings.warmupRow = warmupRow;
  const logStart = logSize(s.logFile);
  ctx.trialIndex++;
  ctx.emit({ type: 'trial-start', ...ref, index: ctx.trialIndex, of: Math.max(ctx.plannedTrials, ctx.trialIndex), numPrompts: workload.rows.length });
  const t = (x: number | null) => (x === null ? null : x * speed);
  const once = () =>
    runTrial(s.server, workload, settings, {
      signal: ctx.signal,
      onConnectionLost: (fn) => ctx.target.executor.onConnectionLost((e) => fn(e.message)),
      onProgress: (p: BenchProgress) =>
        ctx.emit({ type: 'trial-progress', ...ref, total: p.total, completed: p.completed, failed: p.failed, inFlight: p.inFlight, elapsedS: p.elapsedS, requestsPerS: p.requestsPerS / speed, outputTokensPerS: p.outputTokensPerS / speed, ttftMsP50: t(p.ttftMsP50), tpotMsP50: t(p.tpotMsP50) }),
    });
  let outcome = await once();
  // A trial too short to reach a steady state is lengthened (more prompts, same rate), not trusted.
  // A short trial that already misses the SLA would only miss it by more when longer (queues grow): that verdict stands.
  for (let factor = 1; outcome.kind === 'done' && ref.rate !== 'inf' && outcome.result.metrics.steady.tooShort && passesSla(ctx, outcome.result, true); ) {
    const next = lengthenFactor(outcome.result, settings.wallRate, ctx.plan.bench.numPrompts, factor);
    if (next === undefined) break;
    ctx.log('info', `${s.f.framework} ${s.cand.id} ${s.sc.name} @ ${ref.rate} req/s: too short (${outcome.result.metrics.steady.tooShort}); measuring again with ${next * ctx.plan.bench.numPrompts} prompts`);
    factor = next;
    workload = ctx.workloads.for(s.sc, set, factor);
    outcome = await once();
  }
  if (outcome.kind === 'cancelled') return 'cancelled';
  const result = 'result' in outcome ? outcome.result : undefined;
  const classified = await classify(ctx, s, outcome);
  const { dead } = classified;
  let { status, reason } = classified;
  const validity = result ? validityOf(result, logErrorsSince(s.logFile, logStart), ref.rate !== 'inf' && passesSla(ctx, result, true)) : undefined;
  if (status === 'ok' && validity && !validity.valid) {
    status = 'failed';
    reason = `invalid measurement: ${validity.reasons.join('; ')}`;
  }
  const rawRel = rawPath(s, ref);
  const cmd = benchmarkCommand(settings, s.server.baseUrl, b.datasetKind, s.sc.inputLen, s.sc.outputLen, workload.rows.length);
  if (result) {
    const note = ctx.target.simulated ? `SIMULATED engine at speed x${speed}: the times below are wall-clock; the row reports them in modelled time` : undefined;
    ctx.dir.writeJson(rawRel, { note, trial: ref, status, reason, benchmark_command: cmd, result: rawResult(result) });
  }
  const help = ctx.fwState(fw).help?.file;
  const { row, verdict } = measuredRow(ctx.rowCtx, {
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
    ...(s.server.transport ? { transport: s.server.transport } : {}),
    ...(result ? { pace: paceOf(result.records, ref.rate !== 'inf', speed), cachePolicy: result.flushCache === 'ok' ? 'flushed' : 'fresh-prompts' } : {}),
    ...(validity ? { validity } : {}),
  });
  if (s.server.simulated && !ctx.target.simulated && !ctx.manifest.note) {
    ctx.manifest.note = `SIMULATED: ${fw} ${s.cand.id} answered as the built-in simulated engine on ${ctx.opts.target}; its rows are marked simulated.`;
    ctx.log('warn', ctx.manifest.note);
  }
  ctx.addRow(row);
  const m = row.metrics ?? {};
  ctx.emit({ type: 'trial-end', ...ref, status, slaPassed: verdict.passed, reasons: verdict.reasons, requestThroughput: m.request_throughput ?? null, p50TtftMs: m.p50_ttft_ms ?? null, p50TpotMs: m.p50_tpot_ms ?? null, resumed: false });
  return { row, dead };
}
