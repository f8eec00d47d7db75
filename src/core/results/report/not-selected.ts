// Every candidate × scenario that was not selected, one entry each (not one per rate-search round): the best rate
// at which it passed, its first failing rate above that, that trial's category and reason, and a next step for that
// reason; frameworks the caller left out are listed as user-excluded.
import type { PyObject } from '../../py/json';
import { pyFloat, pyGet, pyStr } from '../../py/ops';
import { adviseFor, type Limit } from '../advice';
import type { RunFacts } from '../run-facts';
import type { BestEntry, CandidateRow, NotSelectedCategory, NotSelectedEntry, TrialRate } from '../report-model';
import type { Work } from './work';

/** One row of a candidate × scenario, with why it cannot be selected (undefined: it could) and its request rate. */
interface Trial {
  w: Work;
  i: number;
  category: NotSelectedCategory | undefined;
  /** req/s (Infinity for a burst); undefined when the row has none or ran with smoke settings. */
  rate: number | undefined;
}

/** Undefined for a row that could be selected (ok, SLA-passing, not smoke). */
function categoryOf(w: Work): NotSelectedCategory | undefined {
  const status = pyGet(w.row, 'status');
  switch (status) {
    case 'ok':
      if (w.smoke) return 'smoke';
      return w.verdict.passed ? undefined : 'sla-failing';
    case 'failed':
      return 'failed';
    case 'oom':
      return 'oom';
    case 'timeout':
      return 'timeout';
    case 'skipped':
      return 'skipped';
    case 'user_excluded':
      return 'user-excluded';
    case 'unsupported':
      return 'unsupported';
    default:
      return 'invalid';
  }
}

function rateOf(row: PyObject): number | undefined {
  const r = pyGet(row, 'trial.rate') ?? pyGet(row, 'workload.request_rate');
  if (r === 'inf') return Infinity;
  const n = r === undefined || r === null || typeof r === 'boolean' ? undefined : pyFloat(r);
  return n === undefined || Number.isNaN(n) ? undefined : n;
}

/** The rows of each framework × scenario × candidate, in the order their first rows appear. */
function groupTrials(work: readonly Work[]): Trial[][] {
  const groups = new Map<string, Trial[]>();
  work.forEach((w, i) => {
    const cand = pyGet(w.row, 'candidate_id');
    const key = [w.framework, w.scenario, cand === undefined || cand === null ? '' : pyStr(cand)].join('\u0000');
    const category = categoryOf(w);
    const trial: Trial = { w, i, category, rate: category === 'smoke' ? undefined : rateOf(w.row) };
    groups.set(key, [...(groups.get(key) ?? []), trial]);
  });
  return [...groups.values()];
}

/** The highest rate at which every trial passed (a rate a repeat failed at is not a passing rate). */
function bestPassing(trials: readonly Trial[]): number | undefined {
  const failedAt = new Set(trials.filter((t) => t.category && t.rate !== undefined).map((t) => t.rate));
  const passed = trials.filter((t) => !t.category && t.rate !== undefined && !failedAt.has(t.rate)).map((t) => t.rate as number);
  return passed.length ? Math.max(...passed) : undefined;
}

/** The trial that limited the candidate: the lowest failing rate above the best passing one, else a trial without a rate. */
function limitingTrial(failing: readonly Trial[], best: number | undefined): Trial {
  const rated = failing.filter((t) => t.rate !== undefined).sort((a, b) => (a.rate as number) - (b.rate as number));
  return rated.find((t) => best === undefined || (t.rate as number) > best) ?? failing.find((t) => t.rate === undefined) ?? (rated[0] as Trial);
}

const LOG_TAIL = '; log tail: ';

/** What the advice needs from the limiting trial: SLA checks, saturation, validity, launch log tail. */
function limitOf(t: Trial, c: CandidateRow): { limit: Limit; reason: string } {
  const category = t.category as NotSelectedCategory;
  const at = c.failureReason.indexOf(LOG_TAIL);
  const launchPhase = pyGet(t.w.row, 'trial.phase') === 'launch';
  const reason = category === 'sla-failing' ? t.w.verdict.reasons.join('; ') : (at >= 0 ? c.failureReason.slice(0, at) : c.failureReason) || (category === 'smoke' ? 'smoke settings' : 'no reason recorded');
  const limit: Limit = { category, framework: t.w.framework, reason: category === 'sla-failing' ? '' : c.failureReason, checks: t.w.verdict.checks, saturated: t.w.verdict.reasons.some((r) => r.startsWith('saturated:')) };
  if (pyGet(t.w.row, 'validity.valid') === false) limit.invalid = { environmental: pyGet(t.w.row, 'validity.environmental') === true };
  if (at >= 0 || launchPhase) {
    const log = pyGet(t.w.row, 'artifacts.server_log');
    limit.launch = { tail: at >= 0 ? c.failureReason.slice(at + LOG_TAIL.length) : '', log: typeof log === 'string' ? log : '' };
  }
  return { limit, reason };
}

const asRate = (x: number | undefined): TrialRate | null => (x === undefined ? null : Number.isFinite(x) ? x : 'inf');

/** One entry for a candidate × scenario that has a trial that cannot be selected and is not a selected best. */
function entryOf(trials: readonly Trial[], candidates: readonly CandidateRow[], selected: ReadonlySet<number>): NotSelectedEntry | undefined {
  const failing = trials.filter((t) => t.category);
  if (failing.length === 0 || trials.some((t) => selected.has(t.i))) return undefined;
  const best = bestPassing(trials);
  const lim = limitingTrial(failing, best);
  const c = candidates[lim.i] as CandidateRow;
  const { limit, reason } = limitOf(lim, c);
  const { next, advice } = adviseFor(limit);
  return { framework: lim.w.framework, scenario: lim.w.scenario, candidate: c.candidate, category: limit.category, reason, next, advice, bestPassingRate: asRate(best), firstFailingRate: asRate(lim.rate), row: lim.i, rows: trials.map((t) => t.i) };
}

export function notSelectedEntries(work: readonly Work[], candidates: readonly CandidateRow[], runFacts: RunFacts | undefined, best: readonly BestEntry[]): NotSelectedEntry[] {
  const selected = new Set(best.map((b) => b.row));
  const notSelected: NotSelectedEntry[] = [];
  for (const trials of groupTrials(work)) {
    const entry = entryOf(trials, candidates, selected);
    if (entry) notSelected.push(entry);
  }
  for (const f of runFacts?.frameworks ?? []) {
    if (!f.userExcluded || work.some((w) => w.framework === f.framework)) continue;
    const { next, advice } = adviseFor({ category: 'user-excluded', framework: f.framework, reason: '', checks: [], saturated: false });
    notSelected.push({ framework: f.framework, scenario: '', candidate: '', category: 'user-excluded', reason: 'not in the caller\u2019s framework set', next, advice, bestPassingRate: null, firstFailingRate: null, row: null, rows: [] });
  }
  return notSelected;
}
