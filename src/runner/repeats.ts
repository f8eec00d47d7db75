// Before a winner is named: each framework's contenders per scenario re-measured at their best point, each repeat on a
// freshly started server, round by round while the framework's verdict is undecided (at least --repeats rounds, at
// most the plan's verdict.max_repeats): every launch adds one capacity sample to the test (core/results/decide.ts).
import type { Candidate } from '../core/candidates/candidate';
import { DEFAULT_VERDICT } from '../core/plan/bench';
import type { PlanFramework } from '../core/plan/types';
import { fromPlainJson, type PyObject } from '../core/py/json';
import { prepareWork } from '../core/results/report/work';
import type { RepeatsEnd } from '../core/results/report-model';
import { DECISION_MARGIN, scenarioVerdict, type CandidateScore, type ScenarioVerdict } from '../core/results/verdict';
import { trialKey } from './artifacts';
import { launch, serverLogFile, stop } from './candidate';
import { WARMUP_FIRST_TRIAL, type RunContext } from './context';
import { localStart, nextLocalRate, walkStart } from './local-search';
import { measure, warmUpAt } from './trial';
import type { TrialRef } from './types';

export const DEFAULT_FINALISTS = 2;
/** verdict.max_repeats when a plan does not say: the plan reader's default (core/plan/bench.ts DEFAULT_VERDICT). */
export const DEFAULT_MAX_REPEATS = DEFAULT_VERDICT.maxRepeats;

/** A point to repeat: a scenario, the rate its local walk starts from (repeatStart) and the concurrency of its best SLA-passing trial. */
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

/** These frameworks' rows (not their repeats' when `withRepeats` is false), prepared as the report prepares them. */
function frameworkWork(ctx: RunContext, fs: readonly PlanFramework[], withRepeats: boolean) {
  const rows = fs.flatMap((f) => ctx.ledger.rowsOf(f.framework)).filter((r) => withRepeats || (r.trial as { mode?: string } | undefined)?.mode !== 'repeat');
  return prepareWork(rows.map((r, i) => ({ line: i + 1, data: fromPlainJson(r) as PyObject })), { scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: [], sla: ctx.plan.sla });
}

/** Whether the candidate's rate search read a capacity in the scenario: only then does a repeat add a sample to the test. */
const searched = (c: CandidateScore): boolean => c.launches?.some((l) => l.launch === 'search') ?? false;

/**
 * The candidates still in question in one scenario, best first: the leader and every candidate the test has not
 * separated from it (a decided scenario whose leader has a single launch still repeats the leader, so that the run
 * measures its launch noise); adaptive runs read them against the run-wide verdict too (inQuestionRunWide).
 * Candidates measured only at the plan's fixed rates are never in question: a repeat reads no capacity for them
 * (there is no search curve to read it on), so a fixed-rate plan used to repeat them until verdict.max_repeats.
 */
export function inQuestion(v: ScenarioVerdict): CandidateScore[] {
  const top = v.winner;
  if (!top || !searched(top)) return [];
  const close = oneLaunchClose(v, top);
  if (v.outcome === 'undecided') return [top, ...v.ties.filter(searched), ...close];
  return [...((top.launches?.length ?? 1) < 2 ? [top] : []), ...close];
}

/**
 * Candidates the test separated from the top on a single launch that could still land within DECISION_MARGIN of it:
 * one launch says nothing of its own launch noise, and a slow one (a wide search bracket read low) decided
 * test:agreement's summarization against a candidate that led the other run (adaptive, session 12). One more launch
 * each, in the same rounds as the contenders.
 */
function oneLaunchClose(v: ScenarioVerdict, top: CandidateScore): CandidateScore[] {
  // Under the verdict's objective (value = req/s / per): a rate reaches value rate / per.
  const reach = (c: CandidateScore): number => ((c.lowestFail ?? c.interval[1]) / (c.per ?? 1)) * (1 + DECISION_MARGIN);
  return v.ranked.filter((c) => c !== top && !v.ties.includes(c) && searched(c) && (c.launches?.length ?? 0) < 2 && reach(c) >= top.value);
}

const keyOf = (c: { framework: string; candidate: string }): string => `${c.framework} ${c.candidate}`;

/**
 * Adaptive: the candidates of one framework still in question once the run-wide verdict (every framework's rows) is
 * read as well. A candidate that test separates from the run's leader needs no launch (it cannot win: the old
 * bracket floor, which let a one-launch candidate block the run-wide test at 99.95% — test:agreement, session 13);
 * one still tied with the run's leader is in question even where its own framework's verdict is settled, and so is
 * the leader itself, so that both sides of an undecided cross-framework pair get launches.
 */
export function inQuestionRunWide(v: ScenarioVerdict, framework: string, overall: ScenarioVerdict | undefined): CandidateScore[] {
  const local = inQuestion(v);
  if (!overall?.winner) return local;
  const group = new Set([overall.winner, ...(overall.outcome === 'undecided' ? overall.ties : [])].map(keyOf));
  const kept = local.filter((c) => group.has(keyOf(c)));
  const extra = overall.outcome === 'undecided' ? v.ranked.filter((c) => c.framework === framework && group.has(keyOf(c)) && searched(c) && !kept.includes(c)) : [];
  return [...kept, ...extra].sort((a, b) => b.value - a.value);
}

/**
 * The at most `k` candidates in question that a round launches: the best first, then the fewest launched, then by
 * score (`first` breaks what is left: a candidate already chosen for another scenario shares its launch). Ordered by
 * score alone, a cap of 2 fed the leader and the second best every round while a tied third kept its single launch:
 * the demo's summarization ended undecided at 17 launches against 1 (2026-12-06).
 */
export function roundContenders(question: readonly CandidateScore[], k: number, first?: (c: CandidateScore) => boolean): CandidateScore[] {
  const [lead, ...rest] = [...question].sort((a, b) => b.value - a.value || Number(first?.(b)) - Number(first?.(a)));
  if (!lead) return [];
  const n = (c: CandidateScore): number => c.launches?.length ?? 1;
  rest.sort((a, b) => n(a) - n(b) || b.value - a.value || Number(first?.(b)) - Number(first?.(a)));
  return [lead, ...rest].slice(0, k);
}

/** Where a repeat of this candidate starts its local search: its search launch's knee, else its confirmed `rate`. */
export function repeatStart(s: CandidateScore, rate: number): number {
  return localStart(rate, s.launches?.find((l) => l.launch === 'search' && l.how === 'interpolated')?.capacity);
}

/** Per candidate, the points it repeats this round: it is still in question in those scenarios (at most `k` a scenario). */
export function finalists(ctx: RunContext, f: PlanFramework, k: number, runWide?: readonly PlanFramework[]): Map<Candidate, RepeatPoint[]> {
  const work = frameworkWork(ctx, [f], true);
  const settings = ctx.plan.bench.verdict;
  const vs = { minEffect: settings?.minEffect, alpha: settings?.alpha, maxRepeats: settings?.maxRepeats, objective: settings?.objective, ...(settings?.cost ? { cost: settings.cost } : {}) };
  // Adaptive: every framework's rows as well, read afresh each round (frameworks repeat side by side).
  const all = runWide ? frameworkWork(ctx, runWide, true) : undefined;
  const out = new Map<Candidate, RepeatPoint[]>();
  for (const sc of ctx.plan.scenarios) {
    const v = scenarioVerdict(work, sc.name, vs);
    // Among contenders otherwise alike, one already chosen for another scenario goes first: its fresh server
    // measures both points, so the repeats cost one launch instead of two.
    const chosen = (id: string) => [...out.keys()].some((c) => c.id === id);
    const question = all ? inQuestionRunWide(v, f.framework, scenarioVerdict(all, sc.name, vs)) : inQuestion(v);
    for (const s of roundContenders(question, k, (c) => chosen(c.candidate))) {
      const cand = f.candidates.find((c) => c.id === s.candidate);
      const point = pointOf((work[s.row] as { row: PyObject }).row, sc.name);
      if (point && typeof point.rate === 'number') point.rate = repeatStart(s, point.rate);
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

/** How a repeat's point went: its rows' verdicts, or the server died, or the run was cancelled. */
type PointEnd = 'ok' | 'dead' | 'cancelled';

/**
 * One point of a repeat launch: a short local search around the rate the search confirmed (local-search.ts), each
 * trial keyed by its rate and the repeat's round, a finished one read back from the ledger. The first trial of the
 * launch follows a warm-up at its rate (a cold server reads 5-30x slower).
 */
async function repeatPoint(ctx: RunContext, s: ScenarioRunOf, f: PlanFramework, cand: Candidate, p: RepeatPoint, round: number, digest: string, warm: boolean): Promise<PointEnd> {
  const rounds: Array<{ rate: number; passed: boolean }> = [];
  let first = warm;
  for (;;) {
    const at = p.rate === 'inf' ? (rounds.length ? undefined : 'inf') : nextLocalRate(walkStart(p.rate, round), rounds);
    if (at === undefined || ctx.aborted) return 'ok';
    const ref = refOf(f, cand, { ...p, rate: at }, round, digest);
    let row = ctx.ledger.finished(ref.key, cand);
    if (!row) {
      if (first && (await warmUpAt(ctx, s, at, p.concurrency)) === 'cancelled') return 'cancelled';
      const r = await measure(ctx, s, ref, first ? WARMUP_FIRST_TRIAL : 1);
      first = false;
      if (r === 'cancelled') return 'cancelled';
      if (r.dead) return 'dead';
      row = r.row;
    }
    rounds.push({ rate: at === 'inf' ? Infinity : at, passed: (row.sla as { passed?: unknown } | undefined)?.passed === true });
  }
}

type ScenarioRunOf = Parameters<typeof measure>[1];

/** Whether a point's local search still has a trial to run, replaying its finished trials from the ledger. */
function pendingInLedger(ctx: RunContext, f: PlanFramework, cand: Candidate, p: RepeatPoint, round: number, digest: string): boolean {
  const rounds: Array<{ rate: number; passed: boolean }> = [];
  for (;;) {
    const at = p.rate === 'inf' ? (rounds.length ? undefined : 'inf') : nextLocalRate(walkStart(p.rate, round), rounds);
    if (at === undefined) return false;
    const row = ctx.ledger.finished(refOf(f, cand, { ...p, rate: at }, round, digest).key, cand);
    if (!row) return true;
    rounds.push({ rate: at === 'inf' ? Infinity : at, passed: (row.sla as { passed?: unknown } | undefined)?.passed === true });
  }
}

/** One repeat of a finalist: a fresh server, each of its points searched locally, torn down. False when cancelled. */
async function repeatOnce(ctx: RunContext, f: PlanFramework, cand: Candidate, points: RepeatPoint[], round: number): Promise<boolean> {
  const scenarios = ctx.plan.scenarios;
  const digestOf = (p: RepeatPoint) => ctx.ledger.digest(f.framework, cand, scenarios.find((x) => x.name === p.scenario) ?? scenarios[0]!);
  // A resumed run whose ledger holds every trial of this repeat's local searches launches nothing.
  if (points.every((p) => !pendingInLedger(ctx, f, cand, p, round, digestOf(p)))) return true;
  const logFile = serverLogFile(ctx, f, `${cand.id}-repeat${round}`);
  const launched = await launch(ctx, f, cand, logFile, 'repeat');
  if (!launched.ok) {
    if (launched.status === 'cancelled') return false;
    ctx.log('warn', `${f.framework} ${cand.id}: repeat ${round} could not start: ${launched.reason}`);
    return true;
  }
  try {
    let warm = true;
    for (const p of points) {
      const sc = scenarios.find((x) => x.name === p.scenario);
      if (!sc || ctx.aborted) break;
      const end = await repeatPoint(ctx, { f, cand, sc, server: launched.server, logFile }, f, cand, p, round, digestOf(p), warm);
      warm = false;
      if (end === 'cancelled') return false;
      if (end === 'dead') break;
    }
  } finally {
    await stop(ctx, f, cand, launched.server);
  }
  return !ctx.aborted;
}

/**
 * The repeats of a framework's contenders, round by round (so an interrupted run still has whole rounds): each round
 * launches once more the candidates still in question (an undecided scenario's leader and contenders; a leader with
 * a single launch), until none is, for at most --repeats rounds (else the plan's verdict.max_repeats). --repeats 0: none.
 */
export async function repeatFinalists(ctx: RunContext, f: PlanFramework): Promise<void> {
  // --repeats N (the run's option) caps the rounds; else the plan's verdict.max_repeats (default DEFAULT_VERDICT's).
  const max = ctx.opts.repeats ?? ctx.plan.bench.verdict?.maxRepeats ?? DEFAULT_MAX_REPEATS;
  const ended = (why: RepeatsEnd): void => {
    ctx.manifest.repeats_ended = { ...(ctx.manifest.repeats_ended ?? {}), [f.framework]: why };
  };
  if (max <= 0) ended('off');
  if (max <= 0 || ctx.aborted) return;
  const budget = ctx.plan.bench.verdict?.gpuBudgetS;
  for (let round = 1; round <= max; round++) {
    const chosen = finalists(ctx, f, ctx.opts.finalists ?? DEFAULT_FINALISTS);
    if (chosen.size === 0) return ended('decided');
    if (budget !== undefined && ctx.gpuTime.total >= budget) {
      ctx.log('info', `${f.framework}: no repeat ${round}: the run has spent ${Math.round(ctx.gpuTime.total)} of its ${budget} GPU-seconds (verdict.gpu_budget_s)`);
      return ended('budget');
    }
    ctx.log('info', `${f.framework}: repeat ${round}: ${[...chosen.keys()].map((c) => c.id).join(', ')} on a fresh server (still in question)`);
    if (ctx.slots.size > 1) {
      // Several launches at once (slurm): a round's finalists in parallel, each holding one of the run's slots.
      const done = await Promise.all([...chosen].map(([cand, points]) => ctx.slots.run(() => repeatOnce(ctx, f, cand, points, round))));
      if (done.includes(false)) return;
      continue;
    }
    for (const [cand, points] of chosen) if (!(await repeatOnce(ctx, f, cand, points, round))) return;
  }
  ended(finalists(ctx, f, ctx.opts.finalists ?? DEFAULT_FINALISTS).size === 0 ? 'decided' : 'max_repeats');
}

/**
 * Adaptive: every framework's repeats together, round by round (round r of each before round r + 1 of any), the
 * candidates in question read against the run-wide verdict each round (inQuestionRunWide), so that both sides of an
 * undecided pair from different frameworks get their launches in step, and nothing is launched once the test has
 * separated the run's leader from the rest.
 */
export async function repeatRunWide(ctx: RunContext, run: readonly PlanFramework[]): Promise<void> {
  const max = ctx.opts.repeats ?? ctx.plan.bench.verdict?.maxRepeats ?? DEFAULT_MAX_REPEATS;
  const ended = (fw: string, why: RepeatsEnd): void => {
    ctx.manifest.repeats_ended = { ...(ctx.manifest.repeats_ended ?? {}), [fw]: why };
  };
  if (max <= 0) run.forEach((f) => ended(f.framework, 'off'));
  if (max <= 0 || ctx.aborted) return;
  const k = ctx.opts.finalists ?? DEFAULT_FINALISTS;
  const budget = ctx.plan.bench.verdict?.gpuBudgetS;
  let open = [...run];
  for (let round = 1; round <= max && open.length > 0; round++) {
    const plans = open.map((f) => ({ f, chosen: finalists(ctx, f, k, run) }));
    for (const p of plans) if (p.chosen.size === 0) ended(p.f.framework, 'decided');
    const live = plans.filter((p) => p.chosen.size > 0);
    open = live.map((p) => p.f);
    if (live.length === 0) return;
    if (budget !== undefined && ctx.gpuTime.total >= budget) {
      ctx.log('info', `no repeat ${round}: the run has spent ${Math.round(ctx.gpuTime.total)} of its ${budget} GPU-seconds (verdict.gpu_budget_s)`);
      return live.forEach((p) => ended(p.f.framework, 'budget'));
    }
    for (const p of live) ctx.log('info', `${p.f.framework}: repeat ${round}: ${[...p.chosen.keys()].map((c) => c.id).join(', ')} on a fresh server (still in question run-wide)`);
    const launches = live.flatMap((p) => [...p.chosen].map(([cand, points]) => () => repeatOnce(ctx, p.f, cand, points, round)));
    if (ctx.slots.size > 1) {
      if ((await Promise.all(launches.map((l) => ctx.slots.run(l)))).includes(false)) return;
    } else for (const l of launches) if (!(await l())) return;
  }
  for (const f of open) ended(f.framework, finalists(ctx, f, k, run).size === 0 ? 'decided' : 'max_repeats');
}
