// Before a winner is named: each framework's finalists per scenario (by default the best two) re-measured at their best point, each repeat on a freshly started server.
import type { Candidate } from '../core/candidates/candidate';
import type { PlanFramework } from '../core/plan/types';
import { fromPlainJson, type PyObject } from '../core/py/json';
import { prepareWork } from '../core/results/report/work';
import { DECISION_MARGIN, scenarioVerdict } from '../core/results/verdict';
import { trialKey } from './artifacts';
import { launch, serverLogFile, stop } from './candidate';
import { WARMUP_FIRST_TRIAL, type RunContext } from './context';
import { measure, warmUpAt } from './trial';
import type { TrialRef } from './types';

export const DEFAULT_REPEATS = 3;
export const DEFAULT_FINALISTS = 2;

/** A point to repeat: a scenario and the rate and concurrency its best SLA-passing trial ran at. */
interface RepeatPoint {
  scenario: string;
  rate: number | 'inf';
  concurrency: number | null;
}

function pointOf(row: PyObject, scenario: string): RepeatPoint | undefined {
  const t = row.get('trial');
  if (!(t instanceof Map)) return undefined;
  const rate = t.get('rate');
  const c = t.get('concurrency');
  if (rate !== 'inf' && typeof rate !== 'number') return undefined;
  return { scenario, rate, concurrency: typeof c === 'number' ? c : null };
}

/** Per candidate, the points it repeats: it is among the framework's `k` best in those scenarios and within the decision margin of the best. */
export function finalists(ctx: RunContext, f: PlanFramework, k: number, floor?: ReadonlyMap<string, number>): Map<Candidate, RepeatPoint[]> {
  const rows = ctx.ledger.rowsOf(f.framework).filter((r) => (r.trial as { mode?: string } | undefined)?.mode !== 'repeat');
  const work = prepareWork(rows.map((r, i) => ({ line: i + 1, data: fromPlainJson(r) as PyObject })), { scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: [], sla: ctx.plan.sla });
  const out = new Map<Candidate, RepeatPoint[]>();
  for (const sc of ctx.plan.scenarios) {
    const ranked = scenarioVerdict(work, sc.name).ranked;
    const top = ranked[0];
    // A candidate already clear of the framework's best (by more than the decision margin) cannot change a verdict: no repeats.
    // Among contenders with the same score, one already chosen for another scenario goes first: its fresh server
    // measures both points, so the repeats cost one launch instead of two.
    const chosen = (id: string) => [...out.keys()].some((c) => c.id === id);
    // `floor`: the run's leader per scenario (adaptive): a framework's best that cannot reach it needs no repeats either.
    const lead = floor?.get(sc.name) ?? 0;
    const contenders = ranked
      .filter((c) => top && c.interval[1] * (1 + DECISION_MARGIN) > Math.max(top.interval[0], lead))
      .sort((a, b) => b.score - a.score || Number(chosen(b.candidate)) - Number(chosen(a.candidate)));
    for (const s of contenders.slice(0, k)) {
      const cand = f.candidates.find((c) => c.id === s.candidate);
      const point = pointOf((work[s.row] as { row: PyObject }).row, sc.name);
      if (cand && point) out.set(cand, [...(out.get(cand) ?? []), point]);
    }
  }
  return out;
}

function refOf(f: PlanFramework, cand: Candidate, p: RepeatPoint, round: number, digest: string): TrialRef {
  const ref: TrialRef = { framework: f.framework, candidateId: cand.id, scenario: p.scenario, mode: 'repeat', rate: p.rate, concurrency: p.concurrency, round, key: '' };
  ref.key = trialKey(ref, digest);
  return ref;
}

/** One repeat of a finalist: a fresh server, each of its points measured once, torn down. False when cancelled. */
async function repeatOnce(ctx: RunContext, f: PlanFramework, cand: Candidate, points: RepeatPoint[], round: number): Promise<boolean> {
  const scenarios = ctx.plan.scenarios;
  const refs = points.map((p) => ({ p, ref: refOf(f, cand, p, round, ctx.ledger.digest(f.framework, cand, scenarios.find((s) => s.name === p.scenario) ?? scenarios[0]!)) }));
  const todo = refs.filter((x) => !ctx.ledger.finished(x.ref.key, cand));
  if (todo.length === 0) return true;
  const logFile = serverLogFile(ctx, f, `${cand.id}-repeat${round}`);
  const launched = await launch(ctx, f, cand, logFile, 'repeat');
  if (!launched.ok) {
    if (launched.status === 'cancelled') return false;
    ctx.log('warn', `${f.framework} ${cand.id}: repeat ${round} could not start: ${launched.reason}`);
    return true;
  }
  try {
    let warm = true;
    for (const { p, ref } of todo) {
      const sc = scenarios.find((s) => s.name === p.scenario);
      if (!sc || ctx.aborted) break;
      const s = { f, cand, sc, server: launched.server, logFile };
      if (warm && (await warmUpAt(ctx, s, p.rate, p.concurrency)) === 'cancelled') return false;
      const r = await measure(ctx, s, ref, warm ? WARMUP_FIRST_TRIAL : 1);
      warm = false;
      if (r === 'cancelled') return false;
      if (r.dead) break;
    }
  } finally {
    await stop(ctx, f, cand, launched.server);
  }
  return !ctx.aborted;
}

/** The repeats of a framework's finalists, round by round (so an interrupted run still has whole rounds). */
export async function repeatFinalists(ctx: RunContext, f: PlanFramework, floor?: ReadonlyMap<string, number>): Promise<void> {
  const n = ctx.opts.repeats ?? DEFAULT_REPEATS;
  if (n <= 0 || ctx.aborted) return;
  const chosen = finalists(ctx, f, ctx.opts.finalists ?? DEFAULT_FINALISTS, floor);
  if (chosen.size === 0) return;
  ctx.log('info', `${f.framework}: re-measuring ${[...chosen.keys()].map((c) => c.id).join(', ')} ${n} time(s), each on a fresh server`);
  for (let round = 1; round <= n; round++) {
    if (ctx.slots.size > 1) {
      // Several launches at once (slurm): a round's finalists in parallel, each holding one of the run's slots.
      const done = await Promise.all([...chosen].map(([cand, points]) => ctx.slots.run(() => repeatOnce(ctx, f, cand, points, round))));
      if (done.includes(false)) return;
      continue;
    }
    for (const [cand, points] of chosen) if (!(await repeatOnce(ctx, f, cand, points, round))) return;
  }
}
