// What a run did, per candidate rather than per row: measured (and where it met the SLA), skipped or failed with
// the first reason, frameworks not in this run; the counts and the one-line headline every front end shows.
import { pyGet, pyStr } from '../../py/ops';
import type { RunFacts } from '../run-facts';
import type { CandidateOutcome, FrameworkAbsence, RunOutcome } from '../report-model';
import { frameworkCompare } from './values';
import { isTrial, type Work } from './work';

interface Tally {
  framework: string;
  candidate: string;
  rows: Work[];
  first: number;
}

function candidateOf(w: Work): string | undefined {
  const c = pyGet(w.row, 'candidate_id');
  return c === undefined || c === null || c === '' ? undefined : pyStr(c);
}

function reasonOf(w: Work | undefined): string {
  const r = w ? pyGet(w.row, 'failure_reason') : undefined;
  if (typeof r === 'string' && r) return r;
  const s = w ? pyGet(w.row, 'status') : undefined;
  return typeof s === 'string' ? s : 'no reason recorded';
}

function outcomeOf(t: Tally): CandidateOutcome {
  const trials = t.rows.filter(isTrial);
  const ok = trials.filter((w) => pyGet(w.row, 'status') === 'ok' && !w.smoke);
  const passing = [...new Set(ok.filter((w) => w.verdict.passed).map((w) => w.scenario))];
  const scenarios = [...new Set(t.rows.map((w) => w.scenario))];
  const base = { framework: t.framework, candidate: t.candidate, row: t.first, scenarios: scenarios.length, trials: trials.length, trialsWithinSla: ok.filter((w) => w.verdict.passed).length, passingScenarios: passing };
  if (ok.length > 0) return { ...base, kind: 'measured', reason: '' };
  const skipped = t.rows.every((w) => pyGet(w.row, 'status') === 'skipped' || pyGet(w.row, 'status') === 'unsupported');
  const firstBad = t.rows.find((w) => pyGet(w.row, 'status') !== 'ok') ?? t.rows[0];
  return { ...base, kind: skipped ? 'skipped' : 'failed', reason: reasonOf(firstBad) };
}

/** Frameworks with only placeholder rows (no candidate): left out by the caller, or skipped before any candidate. */
function absences(work: readonly Work[], withCandidates: ReadonlySet<string>): FrameworkAbsence[] {
  const out = new Map<string, FrameworkAbsence>();
  for (const w of work) {
    if (withCandidates.has(w.framework) || out.has(w.framework) || candidateOf(w) !== undefined) continue;
    const status = pyGet(w.row, 'status');
    out.set(w.framework, { framework: w.framework, notInRun: status === 'user_excluded', reason: reasonOf(w) });
  }
  return [...out.values()].sort((a, b) => frameworkCompare(a.framework, b.framework));
}

function tallies(work: readonly Work[]): Tally[] {
  const by = new Map<string, Tally>();
  work.forEach((w, i) => {
    const candidate = candidateOf(w);
    if (candidate === undefined) return;
    const key = `${w.framework}\u0000${candidate}`;
    const t = by.get(key) ?? { framework: w.framework, candidate, rows: [], first: i };
    t.rows.push(w);
    by.set(key, t);
  });
  return [...by.values()];
}

/** Candidates the adaptive strategy predicted out of the race: skipped with the prediction as the reason (no rows). */
function predictedSkips(runFacts: RunFacts | undefined, seen: ReadonlySet<string>): CandidateOutcome[] {
  const skipped = runFacts?.searchStrategy?.skipped ?? [];
  return skipped
    .filter((s) => !seen.has(`${s.framework}\u0000${s.candidate}`))
    .map((s) => ({ framework: s.framework, candidate: s.candidate, kind: 'skipped' as const, reason: s.reason, row: null, scenarios: 0, trials: 0, trialsWithinSla: 0, passingScenarios: [] }));
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** "3 candidates: 2 measured, 1 skipped · 2 met the SLA · 14 trials, 9 within the SLA · not in this run: tokenspeed". */
function headlineOf(o: Omit<RunOutcome, 'headline' | 'firstProblem'>): string {
  const c = o.counts;
  const kinds = [c.measured ? `${c.measured} measured` : '', c.skipped ? `${c.skipped} skipped` : '', c.failed ? `${c.failed} failed` : ''].filter(Boolean);
  const parts = [`${plural(c.candidates, 'candidate')}${kinds.length ? `: ${kinds.join(', ')}` : ''}`];
  if (c.measured) parts.push(`${c.passing} met the SLA`);
  parts.push(`${plural(c.trials, 'trial')}${c.trials ? `, ${c.trialsWithinSla} within the SLA` : ''}`);
  const out = o.frameworks.filter((f) => f.notInRun).map((f) => f.framework);
  if (out.length) parts.push(`not in this run: ${out.join(', ')}`);
  const skippedFw = o.frameworks.filter((f) => !f.notInRun).map((f) => `${f.framework} (${f.reason})`);
  if (skippedFw.length) parts.push(`skipped: ${skippedFw.join(', ')}`);
  return parts.join(' · ');
}

export function runOutcome(work: readonly Work[], runFacts: RunFacts | undefined): RunOutcome {
  const fromRows = tallies(work).map(outcomeOf);
  const seen = new Set(fromRows.map((c) => `${c.framework}\u0000${c.candidate}`));
  const candidates = [...fromRows, ...predictedSkips(runFacts, seen)];
  const frameworks = absences(work, new Set(candidates.map((c) => c.framework)));
  const count = (k: CandidateOutcome['kind']) => candidates.filter((c) => c.kind === k).length;
  const counts = {
    candidates: candidates.length,
    measured: count('measured'),
    skipped: count('skipped'),
    failed: count('failed'),
    passing: candidates.filter((c) => c.passingScenarios.length > 0).length,
    trials: candidates.reduce((a, c) => a + c.trials, 0),
    trialsWithinSla: candidates.reduce((a, c) => a + c.trialsWithinSla, 0),
  };
  const partial = { candidates, counts, frameworks };
  return { ...partial, headline: headlineOf(partial), firstProblem: counts.measured === 0 ? firstProblemOf(candidates, frameworks) : null };
}

/** Nothing measured: the first candidate that failed, else the first skipped, else a framework skipped as a whole. */
function firstProblemOf(candidates: readonly CandidateOutcome[], frameworks: readonly FrameworkAbsence[]): RunOutcome['firstProblem'] {
  for (const kind of ['failed', 'skipped'] as const) {
    const c = candidates.find((x) => x.kind === kind);
    if (c) return { framework: c.framework, candidate: c.candidate, kind, reason: c.reason };
  }
  const f = frameworks.find((x) => !x.notInRun);
  return f ? { framework: f.framework, candidate: null, kind: 'skipped', reason: f.reason } : null;
}

