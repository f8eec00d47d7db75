// The adaptive strategy on real servers: every framework's preflight, then the race of src/predict/adaptive.ts — each
// measured candidate launched and searched from its predicted knee, the rest recorded as skipped with the prediction
// that skipped them — then repeats of the finalists that can still reach the leader, the calibration saved.
import type { FrameworkKey } from '../core/frameworks/types';
import { isForced, type SearchStrategyRecord } from '../core/plan/strategy';
import type { PlanFramework } from '../core/plan/types';
import { runAdaptive, type AdaptiveEntry, type AdaptiveResult, type Measurement, type Settled } from '../predict/adaptive';
import type { CalibrationPoint } from '../predict/calibration';
import { capacityWith, decidedScenarios, median, observationsOf, standingsOf } from '../predict/measured';
import { planGpu } from '../predict/plan';
import { loadStore, mergePoints, pointsFor, saveStore, type StoreKey } from '../predict/store';
import type { RunContext } from './context';
import { EarlyStop, candidateTurn, notRunFramework, prepareFrameworks } from './framework';
import { recordNotRun } from './not-run';
import { repeatRunWide } from './repeats';
import type { smoke } from './candidate';
import { searchHintKey } from './trial';
import { writeAdaptivePredictions } from './predictions';

const keyOf = (fw: FrameworkKey, id: string): string => `${fw} ${id}`;

function storeKey(ctx: RunContext, fw: FrameworkKey): StoreKey {
  const gpu = ctx.target.sim?.gpu ?? ctx.rowCtx.gpuSeen?.name ?? ctx.plan.hardware.gpuModel ?? 'unknown GPU';
  return { gpu, framework: fw, version: ctx.rowCtx.versions[fw] ?? 'unknown', simulated: ctx.target.simulated };
}

/** Each framework that runs: its preflight and smoke (framework.ts), then the rows of its candidates skipped by the plan. */
async function prepare(ctx: RunContext, run: readonly PlanFramework[]): Promise<Map<FrameworkKey, Awaited<ReturnType<typeof smoke>>>> {
  const smokes = await prepareFrameworks(ctx, run);
  for (const f of run) for (const c of f.candidates) if (c.skip && !ctx.aborted) await candidateTurn(ctx, f, c, new EarlyStop(), undefined);
  return smokes;
}

export async function runAdaptiveStrategy(ctx: RunContext, record: SearchStrategyRecord): Promise<void> {
  for (const f of ctx.plan.frameworks) if (f.status !== 'run') notRunFramework(ctx, f);
  const run = ctx.plan.frameworks.filter((f) => f.status === 'run');
  const smokes = await prepare(ctx, run);
  if (ctx.aborted) return;
  const entries: AdaptiveEntry[] = run.flatMap((f) => f.candidates.filter((c) => !c.skip).map((cand) => ({ key: keyOf(f.framework, cand.id), framework: f.framework, cand })));
  const storePath = ctx.opts.calibrationStore;
  const store = storePath ? loadStore(storePath) : undefined;
  const prior = new Map<FrameworkKey, CalibrationPoint[]>(run.map((f) => [f.framework, store ? pointsFor(store, storeKey(ctx, f.framework)) : []]));
  const stops = new Map(run.map((f) => [f.framework, new EarlyStop()]));
  const measure = async (e: AdaptiveEntry, hints: ReadonlyMap<string, number>, floors: ReadonlyMap<string, number>): Promise<Measurement | 'cancelled'> => {
    const f = run.find((x) => x.framework === e.framework) as PlanFramework;
    for (const sc of ctx.plan.scenarios) ctx.searchHints.set(searchHintKey(e.framework, e.cand.id, sc.name), { knee: hints.get(sc.name), floor: floors.get(sc.name) });
    const said = await ctx.slots.run(() => candidateTurn(ctx, f, e.cand, stops.get(e.framework) as EarlyStop, smokes.get(e.framework)));
    if (said === 'cancelled' || ctx.aborted) return 'cancelled';
    const rows = ctx.ledger.rowsOf(e.framework).filter((r) => String(r.candidate_id) === e.cand.id);
    const measured = rows.some((r) => r.status === 'ok');
    return { outcome: measured ? standingsOf(ctx.plan, rows) : 'failed', observations: observationsOf(ctx.plan, rows) };
  };
  ctx.log('info', `adaptive: predicting ${entries.length} candidate(s) with the engine model${[...prior.values()].some((p) => p.length) ? ` (calibrated by ${storePath})` : ''}`);
  // Repeats once nothing else can win; where the verdict then names a winner, a skipped candidate that could tie is measured too.
  const settle = async (): Promise<Settled | 'cancelled'> => {
    // Repeats of what the run-wide test has not separated from the run's leader (repeats.ts inQuestionRunWide).
    await repeatRunWide(ctx, run);
    return ctx.aborted ? 'cancelled' : { decided: decidedScenarios(ctx.plan, run.flatMap((f) => ctx.ledger.rowsOf(f.framework))) };
  };
  const result = await runAdaptive({ plan: ctx.plan, parallel: ctx.slots.size, entries, forced: entries.filter((e) => isForced(ctx.opts.force, e.framework, e.cand.id)).map((e) => e.key), prior, measure, settle, onCalibrated: (e, fit) => fit && ctx.log('info', `adaptive: ${e.key} measured; model error ${pctOf(fit.errorBefore)} -> ${pctOf(fit.errorAfter)} after fitting (prefill x${fit.factors.prefill.toFixed(2)}, decode x${fit.factors.decode.toFixed(2)})`) });
  writeAdaptivePredictions(ctx, result.initial, result.predictions);
  if (result.cancelled) return;
  recordSkips(ctx, run, result);
  finishRecord(ctx, record, result, entries);
  if (store && storePath) {
    for (const [fw, m] of result.models) mergePoints(store, storeKey(ctx, fw), m.points, ctx.manifest.run_id);
    saveStore(storePath, store);
  }
  for (const f of run) {
    ctx.fwState(f.framework).outcome = ctx.aborted ? 'cancelled' : 'done';
    ctx.emit({ type: 'framework-end', framework: f.framework, outcome: ctx.aborted ? 'cancelled' : 'done' });
  }
  ctx.saveManifest();
}

const pctOf = (x: number): string => `${Math.round((Math.exp(x) - 1) * 100)}%`;

function recordSkips(ctx: RunContext, run: readonly PlanFramework[], result: AdaptiveResult): void {
  for (const { entry, reason } of result.skipped) {
    const f = run.find((x) => x.framework === entry.framework) as PlanFramework;
    recordNotRun(ctx, f, entry.cand, 'skipped', reason, 'skip');
    const st = ctx.fwState(entry.framework).candidates.find((c) => c.id === entry.cand.id);
    if (st) st.outcome = 'skipped (predicted)';
    ctx.emit({ type: 'candidate-end', framework: entry.framework, candidateId: entry.cand.id, status: 'skipped', reason });
  }
}

/** The manifest's search_strategy: what was measured and skipped, what the grid would have cost, the model's error before and after. */
function finishRecord(ctx: RunContext, record: SearchStrategyRecord, result: AdaptiveResult, entries: readonly AdaptiveEntry[]): void {
  record.measured = result.measured;
  record.skipped = result.skipped.map((s) => ({ framework: s.entry.framework, candidate: s.entry.cand.id, reason: s.reason }));
  const g = ctx.manifest.gpu_seconds;
  if (g) record.grid_gpu_seconds_predicted = Math.round(gridEstimate(ctx, result, entries));
  record.calibration = [...new Set(entries.map((e) => e.framework))].map((fw) => errorsOf(ctx, result, entries.filter((e) => e.framework === fw), fw));
}

/**
 * The grid's GPU-seconds: what was spent outside the search, plus a search of every candidate: its own where it was
 * searched in full, else its framework's average full search (scaled by its GPUs) — a stopped search is no measure
 * of a whole one.
 */
function gridEstimate(ctx: RunContext, result: AdaptiveResult, entries: readonly AdaptiveEntry[]): number {
  const g = ctx.manifest.gpu_seconds;
  if (!g) return 0;
  const searchOf = (key: string) => g.by_candidate[key] ?? 0;
  const stopped = new Set((ctx.manifest.search_strategy?.stopped ?? []).map((s) => `${s.framework} ${s.candidate}`));
  const full = result.measured.filter((k) => !stopped.has(k));
  let est = g.total - (g.by_purpose.search ?? 0);
  for (const e of entries) {
    if (full.includes(e.key)) {
      est += searchOf(e.key);
      continue;
    }
    const peers = full.filter((k) => k.startsWith(`${e.framework} `));
    const pool = peers.length ? peers : full.length ? full : result.measured;
    const gpusOf = (k: string) => Math.max(1, result.predictions.get(k)?.gpus ?? 1);
    const perGpu = pool.reduce((a, k) => a + searchOf(k) / gpusOf(k), 0) / Math.max(1, pool.length);
    est += perGpu * Math.max(1, result.predictions.get(e.key)?.gpus ?? 1);
  }
  return est;
}

/** Median |predicted / measured − 1| of a framework's measured candidates' capacities: the first prediction, and the one the model now makes. */
function errorsOf(ctx: RunContext, result: AdaptiveResult, entries: readonly AdaptiveEntry[], fw: FrameworkKey): { framework: string; before_median_error: number | null; after_median_error: number | null } {
  const before: number[] = [];
  const after: number[] = [];
  const m = result.models.get(fw);
  for (const e of entries) {
    if (!result.measured.includes(e.key)) continue;
    const rows = ctx.ledger.rowsOf(fw).filter((r) => String(r.candidate_id) === e.cand.id);
    const st = standingsOf(ctx.plan, rows);
    const point = m?.points.find((p) => p.candidate === e.cand.id);
    for (const [sc, s] of st) {
      const p0 = result.initial.get(e.key)?.scenarios.find((x) => x.scenario === sc)?.capacity ?? 0;
      if (s.lo > 0 && p0 > 0) before.push(Math.abs(p0 / s.lo - 1));
      const fitted = point ? capacityWith(ctx.plan, planGpu(ctx.plan), fw, e.cand, sc, point.factors) : null;
      if (s.lo > 0 && fitted) after.push(Math.abs(fitted / s.lo - 1));
    }
  }
  return { framework: fw, before_median_error: median(before), after_median_error: median(after) };
}
