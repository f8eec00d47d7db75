// A framework's part of a run: rows for a skipped or excluded one; else preflight (help, version, flags against the exact CLI, smoke), then each candidate in turn, stopping early when none comes up.
import type { Candidate } from '../core/candidates/candidate';
import type { FrameworkKey } from '../core/frameworks/types';
import type { PlanFramework } from '../core/plan/types';
import { runCandidate, smoke, type LaunchFailure } from './candidate';
import type { RunContext } from './context';
import { recordNotRun } from './not-run';
import { repeatFinalists } from './repeats';
import { captureHelp, captureVersion, recheckAgainstHelp } from './preflight';
import { preflightUnits } from './unit-preflight';

export async function preflight(ctx: RunContext, f: PlanFramework): Promise<void> {
  const fw = f.framework;
  const st = ctx.fwState(fw);
  ctx.emit({ type: 'preflight', framework: fw, step: 'help', status: 'start' });
  const help = await captureHelp(ctx.target.executor, ctx.dir, fw, f.serverCommand);
  st.help = { command: help.command.join(' '), ...(help.file ? { file: help.file } : {}), ok: help.ok, detail: help.detail };
  ctx.emit({ type: 'preflight', framework: fw, step: 'help', status: help.ok ? 'ok' : 'warn', detail: help.detail });
  const ver = await captureVersion(ctx.target.executor, fw, f.serverCommand);
  st.version = { ...(ver.command ? { command: ver.command.join(' ') } : {}), ...(ver.version ? { version: ver.version } : {}) };
  if (ver.version) ctx.rowCtx.versions[fw] = ver.version;
  ctx.emit({ type: 'preflight', framework: fw, step: 'version', status: ver.version ? 'ok' : 'warn', detail: ver.version ?? 'version not found' });
  if (help.file) {
    const v = recheckAgainstHelp(ctx.plan, f, ctx.dir.path(help.file));
    st.help.checked_against = v.label;
    ctx.emit({ type: 'preflight', framework: fw, step: 'validate', status: v.skipped ? 'warn' : 'ok', detail: v.skipped ? `${v.skipped} candidate(s) use flags the CLI does not accept` : `every candidate's flags are in ${v.label}` });
  } else {
    ctx.emit({ type: 'preflight', framework: fw, step: 'validate', status: 'warn', detail: `no --help captured; flags checked against ${f.knownFrom} only` });
  }
  const router = await preflightUnits(ctx, f);
  if (router) {
    st.router = router;
    const skipped = f.candidates.filter((c) => c.unit && c.skip).length;
    ctx.emit({ type: 'preflight', framework: fw, step: 'router', status: router.ok && !skipped ? 'ok' : 'warn', detail: skipped ? `${router.detail}; ${skipped} P/D unit(s) skipped` : router.detail });
  }
  st.candidates = f.candidates.map((c) => ({ id: c.id, name: c.name, command: c.command, ...(c.skip ? { skip: c.skip.reason } : {}) }));
  ctx.saveManifest();
}

/** Counts launch outcomes; after two or more candidates all failed to come up, the rest would too. */
export class EarlyStop {
  tried = 0;
  failures = 0;
  reason: string | undefined;

  note(outcome: 'ok' | 'failed' | 'skip'): string | undefined {
    if (outcome !== 'skip') this.tried++;
    if (outcome === 'failed') this.failures++;
    if (!this.reason && this.tried >= 2 && this.failures === this.tried) {
      this.reason = `not run: the framework was stopped early because all ${this.tried} candidates tried before it failed to start (health check or out of memory)`;
      return this.reason;
    }
    return undefined;
  }
}

/** One candidate in the framework loop: skipped, settled by an earlier run, or launched. 'cancelled' ends the loop. */
export async function candidateTurn(ctx: RunContext, f: PlanFramework, cand: Candidate, stop: EarlyStop, smokeFail: LaunchFailure | undefined): Promise<'cancelled' | undefined> {
  const fw = f.framework;
  const state = ctx.fwState(fw).candidates.find((c) => c.id === cand.id);
  const setOutcome = (o: string): void => {
    if (state) state.outcome = o;
  };
  if (cand.skip) return void (recordNotRun(ctx, f, cand, 'skipped', cand.skip.reason, 'skip'), setOutcome('skipped'));
  if (stop.reason) return void (recordNotRun(ctx, f, cand, 'skipped', stop.reason, 'skip'), setOutcome('skipped (early stop)'));
  const prev = ctx.ledger.outcome(fw, cand);
  let said: string | undefined;
  if (prev !== undefined) {
    // Resumed: this candidate was settled by an earlier run of this directory.
    said = stop.note(prev === 'skip' ? 'skip' : prev === 'ok' ? 'ok' : 'failed');
  } else {
    ctx.emit({ type: 'candidate-start', framework: fw, candidateId: cand.id, index: cand.index, of: f.candidates.length, command: cand.command });
    const outcome = smokeFail && smokeFail.cand === cand ? smokeFail : await runCandidate(ctx, f, cand);
    if (outcome === 'cancelled') return 'cancelled';
    if (outcome !== 'ok') recordNotRun(ctx, f, cand, outcome.status, outcome.reason, 'launch', outcome.log);
    setOutcome(outcome === 'ok' ? 'measured' : outcome.status);
    ctx.emit({ type: 'candidate-end', framework: fw, candidateId: cand.id, status: outcome === 'ok' ? 'done' : outcome.status, ...(outcome === 'ok' ? {} : { reason: outcome.reason }) });
    // A candidate the scheduler could not place (more GPUs than a node has) says nothing about the framework starting.
    said = stop.note(outcome === 'ok' ? 'ok' : outcome.status === 'skipped' ? 'skip' : 'failed');
  }
  if (said) ctx.log('warn', `${fw}: ${said}`);
  ctx.saveManifest();
  return undefined;
}

export function notRunFramework(ctx: RunContext, f: PlanFramework): void {
  const excluded = f.status === 'user_excluded';
  if (excluded) recordNotRun(ctx, f, undefined, 'user_excluded', f.reason ?? 'left out by the caller', 'skip');
  else recordNotRun(ctx, f, f.candidates[0], 'skipped', f.reason ?? 'skipped', 'skip');
  ctx.fwState(f.framework).outcome = f.status;
  ctx.emit({ type: 'framework-end', framework: f.framework, outcome: excluded ? 'user_excluded' : 'skipped', ...(f.reason ? { reason: f.reason } : {}) });
}

export async function runFramework(ctx: RunContext, f: PlanFramework): Promise<void> {
  const fw = f.framework;
  if (f.status !== 'run') return notRunFramework(ctx, f);
  ctx.emit({ type: 'framework-start', framework: fw, candidates: f.candidates.length });
  await preflight(ctx, f);
  const pending = f.candidates.filter((c) => !c.skip && !ctx.ledger.candidateDone(fw, c));
  const smokeCand = pending[0];
  const smokeFail = smokeCand && !ctx.opts.skipSmoke && !ctx.aborted ? await smoke(ctx, f, smokeCand) : undefined;
  const stop = new EarlyStop();
  for (const cand of f.candidates) {
    if (ctx.aborted) break;
    if ((await candidateTurn(ctx, f, cand, stop, smokeFail)) === 'cancelled') break;
  }
  await repeatFinalists(ctx, f);
  const outcome = ctx.aborted ? 'cancelled' : stop.reason ? 'stopped-early' : 'done';
  ctx.fwState(fw).outcome = outcome;
  ctx.saveManifest();
  ctx.emit({ type: 'framework-end', framework: fw, outcome, ...(stop.reason ? { reason: stop.reason } : {}) });
}

/**
 * The grid with several launches at once (slurm's --max-parallel): every framework's preflight and smoke first, then
 * every candidate of every framework through the run's slots, then each framework's repeats (finalists in parallel).
 */
export async function runGridParallel(ctx: RunContext): Promise<void> {
  for (const f of ctx.plan.frameworks) if (f.status !== 'run') notRunFramework(ctx, f);
  const run = ctx.plan.frameworks.filter((f) => f.status === 'run');
  const smokes = await prepareFrameworks(ctx, run);
  const stops = new Map(run.map((f) => [f, new EarlyStop()]));
  const turns = run.flatMap((f) => f.candidates.map((cand) => ({ f, cand })));
  await Promise.all(turns.map(({ f, cand }) => ctx.slots.run(async () => (ctx.aborted ? undefined : candidateTurn(ctx, f, cand, stops.get(f) as EarlyStop, smokes.get(f.framework))))));
  await Promise.all(run.map((f) => repeatFinalists(ctx, f)));
  for (const f of run) {
    const stop = stops.get(f) as EarlyStop;
    const outcome = ctx.aborted ? 'cancelled' : stop.reason ? 'stopped-early' : 'done';
    ctx.fwState(f.framework).outcome = outcome;
    ctx.emit({ type: 'framework-end', framework: f.framework, outcome, ...(stop.reason ? { reason: stop.reason } : {}) });
  }
  ctx.saveManifest();
}

/**
 * Each framework's start event, preflight and smoke (the smoke's failure, if its candidate is the one that failed):
 * one framework after another, or all at once when the run launches several servers at a time (slurm).
 */
export async function prepareFrameworks(ctx: RunContext, run: readonly PlanFramework[]): Promise<Map<FrameworkKey, LaunchFailure | undefined>> {
  const smokes = new Map<FrameworkKey, LaunchFailure | undefined>();
  const one = async (f: PlanFramework): Promise<void> => {
    if (ctx.aborted) return;
    ctx.emit({ type: 'framework-start', framework: f.framework, candidates: f.candidates.length });
    await preflight(ctx, f);
    const first = f.candidates.find((c) => !c.skip && !ctx.ledger.candidateDone(f.framework, c));
    smokes.set(f.framework, first && !ctx.opts.skipSmoke && !ctx.aborted ? await ctx.slots.run(() => smoke(ctx, f, first)) : undefined);
  };
  if (ctx.slots.size > 1) await Promise.all(run.map(one));
  else for (const f of run) await one(f);
  return smokes;
}
