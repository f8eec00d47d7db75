// Measurement: a scenario's fixed points and rate search on a live server, each trial run by the load client and written as a row; finished trials of a resumed run are replayed, not measured.
import type { BenchProgress } from '../client';
import type { Candidate } from '../core/candidates/candidate';
import type { Scenario } from '../core/config/model';
import type { PlanFramework } from '../core/plan/types';
import type { ResultRow, RowStatus } from '../core/results/rows';
import { safeName, trialKey } from './artifacts';
import { backendFor, benchmarkCommand, rawResult, runTrial, type TrialOutcome, type TrialSettings } from './client-trial';
import { WARMUP_FIRST_TRIAL, WARMUP_LATER, type RunContext } from './context';
import { describeSearch, newSearch, nextRate, recordRound } from './rate-search';
import { measuredRow } from './row-builder';
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
    ref.key = trialKey(ref);
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
    ref.key = trialKey(ref);
    let row = ctx.ledger.finished(ref.key, s.cand);
    if (row) emitResumed(ctx, ref, row);
    else {
      const r = await measureOne(ref);
      if (ended(r)) {
        if (r !== 'cancelled') ctx.fwState(fw).searches[label] = `${describeSearch(state)}; ended in round ${ref.round}: ${r.reason}`;
        return r;
      }
      row = r;
    }
    recordRound(state, rate, row.status === 'ok' && row.sla?.passed === true);
  }
  const text = describeSearch(state);
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

function rawPath(s: ScenarioRun, ref: TrialRef): string {
  const name = ref.mode === 'search' ? `search-c${ref.concurrency ?? 'none'}-round${ref.round}-rate${ref.rate}` : `fixed-c${ref.concurrency ?? 'none'}-rate${ref.rate}`;
  return `trials/${safeName(s.f.framework)}/${safeName(s.cand.id)}/${safeName(s.sc.name)}/${safeName(name)}.json`;
}

/** One trial: the row it produced (dead: the server or the connection is gone), or 'cancelled' (no row). */
async function measure(ctx: RunContext, s: ScenarioRun, ref: TrialRef, warmup: number): Promise<{ row: ResultRow; dead: boolean } | 'cancelled'> {
  const fw = s.f.framework;
  const speed = ctx.speed;
  const b = ctx.plan.bench;
  const settings: TrialSettings = { backend: backendFor(fw, b.endpoint), wallRate: ref.rate === 'inf' ? Infinity : ref.rate * speed, concurrency: ref.concurrency, warmupRequests: warmup, seed: b.seed, extraBody: b.extraBody, timeoutMs: ctx.trialTimeoutMs };
  const workload = ctx.workloads.for(s.sc);
  ctx.trialIndex++;
  ctx.emit({ type: 'trial-start', ...ref, index: ctx.trialIndex, of: Math.max(ctx.plannedTrials, ctx.trialIndex), numPrompts: workload.rows.length });
  const t = (x: number | null) => (x === null ? null : x * speed);
  const outcome = await runTrial(s.server, workload, settings, {
    signal: ctx.signal,
    onConnectionLost: (fn) => ctx.target.executor.onConnectionLost((e) => fn(e.message)),
    onProgress: (p: BenchProgress) =>
      ctx.emit({ type: 'trial-progress', ...ref, total: p.total, completed: p.completed, failed: p.failed, inFlight: p.inFlight, elapsedS: p.elapsedS, requestsPerS: p.requestsPerS / speed, outputTokensPerS: p.outputTokensPerS / speed, ttftMsP50: t(p.ttftMsP50), tpotMsP50: t(p.tpotMsP50) }),
  });
  if (outcome.kind === 'cancelled') return 'cancelled';
  const result = 'result' in outcome ? outcome.result : undefined;
  const { status, reason, dead } = await classify(ctx, s, outcome);
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
    simulatedServer: s.server.simulated,
    ...(s.server.transport ? { transport: s.server.transport } : {}),
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
