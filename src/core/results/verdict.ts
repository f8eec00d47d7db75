// Per scenario, which candidate wins under the SLA, or that the best are equivalent, or that the run could not tell:
// each searched candidate's SLA capacity estimated once per launch (launch-capacity.ts), the candidates compared by
// test on those estimates (decide.ts: intervals from the run's own launch-to-launch noise, min_effect); candidates
// measured at fixed points keep their best throughput and its interval.
import type { PyJson, PyObject } from '../py/json';
import { DEFAULT_VERDICT } from '../plan/bench';
import { pyFloat, pyGet, pyStr } from '../py/ops';
import { capacityEstimate, decideScenario, formatDecision, pooledNoise, sequentialAlpha, DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, type PooledNoise, type ScenarioDecision } from './decide';
import { launchCapacities, launchOf, type LaunchCapacity } from './launch-capacity';
import type { RepeatsEnd, VerdictCandidate, VerdictEntry } from './report-model';
import { isTrial, type Work } from './report/work';
import { objectiveColumns, OBJECTIVE_UNIT, OBJECTIVE_WORDS, perOf, rowCosts, type ObjectiveColumns } from './objective';
import type { CostSettings, Objective } from '../plan/types';

/** One candidate's standing in one scenario. */
export interface CandidateScore {
  framework: string;
  candidate: string;
  /** The conservative estimate ranked on: SLA-passing req/s (a confirmed search rate, or measured throughput). */
  score: number;
  /** 95% interval (search: confirmed passing rate .. lowest failing rate; Infinity when nothing failed). */
  interval: [number, number];
  /** How the score was measured. */
  basis: 'search' | 'measured';
  /** ci: a 95% t interval over launches; bracket: the search's best pass .. lowest fail (one launch); spread: fixed-point measurements. */
  intervalKind: 'ci' | 'bracket' | 'spread';
  /** Repeats on fresh servers, and how many of them met the SLA. */
  repeats: number;
  repeatsPassed: number;
  /** Index into the rows (the row that stands for this candidate: its best passing one). */
  row: number;
  /** Each launch's capacity estimate (searched candidates); `score` is their mean, `interval` their t interval (n ≥ 2). */
  launches?: LaunchCapacity[];
  /** Launches that measured nothing readable (a repeat that errored). */
  failedLaunches?: number;
  /** A searched candidate's highest offered rate that passed and that every repeat there held (else the next passing one below): what the search itself confirmed. */
  confirmed?: number;
  /** The search's lowest failing rate above `confirmed` (Infinity when nothing failed above it). */
  lowestFail?: number;
  /** `score` under the plan's objective (score / per): req/s, req/s per GPU, requests per $ or per J; NaN when unpriced. */
  value: number;
  /** What one req/s is divided by under the objective (1, GPUs, $ per second, W); undefined when `unpriced`. */
  per?: number;
  /** Why the objective cannot price this candidate (no energy reading, no price for its GPU): it is left out of the test. */
  unpriced?: string;
  /** The four figures the report shows, at `score`. */
  columns: ObjectiveColumns;
}

/** What the test found, per scenario: a winner, equivalence within min_effect, or no decision yet. */
export type VerdictOutcome = 'winner' | 'equivalent' | 'undecided' | 'none';

/** How the verdict is tested: the plan's `verdict:` settings. */
export interface VerdictSettings {
  alpha?: number;
  minEffect?: number;
  /** verdict.max_repeats: the rounds of repeats a run may look at its data after (the sequential correction's looks). */
  maxRepeats?: number;
  /** Why each framework's repeats ended (the runner's manifest): an undecided scenario says which stopped it. */
  repeatsEnded?: Readonly<Record<string, RepeatsEnd>>;
  /** verdict.objective (default throughput) and the cost block it prices with. */
  objective?: Objective;
  cost?: CostSettings;
}

/** Why no more launches were spent on a scenario: decided, equivalent, or, undecided, what ended the repeats. */
export type VerdictStop = 'decided' | 'equivalent' | 'max_repeats' | 'budget' | 'repeats_off' | 'across_frameworks';

const STOP_TEXT: Record<VerdictStop, string> = {
  decided: 'decided',
  equivalent: 'equivalent',
  max_repeats: 'max_repeats spent',
  budget: 'GPU budget spent',
  repeats_off: 'no repeats (--repeats 0 or max_repeats 0)',
  across_frameworks: "each framework's own repeats ended; candidates of different frameworks are not repeated against each other",
};

/** Rounds of repeats a run looks after, when the plan does not say: the plan reader's verdict.max_repeats default. */
const DEFAULT_LOOKS = DEFAULT_VERDICT.maxRepeats;

export interface ScenarioVerdict {
  scenario: string;
  /** Why launching stopped (undefined: the run has not said, e.g. a report of rows alone, or no candidate met the SLA). */
  stop?: VerdictStop;
  /** A winner whose interval clears every other candidate's. */
  decided: boolean;
  /** The top candidate (decided or not); null when no candidate met the SLA. */
  winner: CandidateScore | null;
  /** Candidates whose interval overlaps the winner's (empty when decided). */
  ties: CandidateScore[];
  /** Every candidate with a score, best first. */
  ranked: CandidateScore[];
  /** In words: "vllm c2 beats vllm baseline by 6.1% (95% CI 2.3–9.8%), 4 launches each", or why not. */
  summary: string;
  /** winner | equivalent | undecided; none when no candidate met the SLA. */
  outcome: VerdictOutcome;
  /** The leader's relative lead over the candidate it is compared with, and its interval (per-pair confidence `level`). */
  effect?: number;
  ci?: [number, number];
  level?: number;
  minEffect: number;
  /** The launch noise the test used: measured (pooled over the scenario's repeated candidates) or assumed. */
  noise?: { relSd: number; df: number; measured: boolean };
  /** What the candidates were compared on (verdict.objective). */
  objective: Objective;
  /** Candidates with a score that the objective could not price (not in `ranked`). */
  unpriced: CandidateScore[];
}

type Mode = 'fixed' | 'search' | 'repeat' | 'candidate' | 'other';

function modeOf(row: PyObject): Mode {
  const m = pyGet(row, 'trial.mode');
  return m === 'fixed' || m === 'search' || m === 'repeat' || m === 'candidate' ? m : 'other';
}

function num(v: PyJson | undefined): number | undefined {
  const n = v === undefined || v === null || typeof v === 'boolean' ? undefined : pyFloat(v);
  return n === undefined || Number.isNaN(n) ? undefined : n;
}

function rateOf(row: PyObject): number | undefined {
  const r = pyGet(row, 'trial.rate') ?? pyGet(row, 'workload.request_rate');
  return r === 'inf' ? Infinity : num(r);
}

function throughputOf(row: PyObject): number {
  return num(pyGet(row, 'metrics.steady_request_throughput')) ?? num(pyGet(row, 'metrics.request_throughput')) ?? 0;
}

function intervalOf(row: PyObject): [number, number] | undefined {
  const iv = pyGet(row, 'intervals.request_throughput');
  if (!Array.isArray(iv) || iv.length !== 2) return undefined;
  const lo = num(iv[0]);
  const hi = num(iv[1]);
  return lo !== undefined && hi !== undefined ? [lo, hi] : undefined;
}

const fmt = (x: number): string => (Number.isFinite(x) ? String(Math.round(x * 100) / 100) : '∞');
const name = (c: CandidateScore): string => `${c.framework} ${c.candidate}`;

/**
 * The repeat launches of a searched candidate, and how many held its best search rate: a launch held it when it met
 * the SLA at that rate or above; a launch that failed at or below it, or only bracketed it from both sides, did not.
 * (A repeat searches locally around the knee, so it rarely runs the best rate itself.)
 */
function repeatsHeld(ws: ReadonlyArray<{ w: Work }>, bestRate: number): { repeats: number; repeatsPassed: number } {
  const byLaunch = new Map<string, boolean>();
  for (const { w } of ws) {
    const launch = modeOf(w.row) === 'repeat' ? launchOf(w.row) : undefined;
    const rate = rateOf(w.row);
    if (!launch || rate === undefined) continue;
    byLaunch.set(launch, (byLaunch.get(launch) ?? false) || (w.verdict.passed && rate >= bestRate));
  }
  return { repeats: byLaunch.size, repeatsPassed: [...byLaunch.values()].filter(Boolean).length };
}

/** A searched candidate: the highest passing rate confirmed by every repeat launch, up to the search's lowest failing rate. */
function searchScore(ws: ReadonlyArray<{ w: Work; i: number }>): Omit<CandidateScore, 'framework' | 'candidate' | 'value' | 'columns'> | undefined {
  const search = ws.filter((x) => modeOf(x.w.row) === 'search');
  const passing = search.filter((x) => x.w.verdict.passed).sort((a, b) => (rateOf(b.w.row) ?? 0) - (rateOf(a.w.row) ?? 0));
  const fails = search.filter((x) => !x.w.verdict.passed).map((x) => rateOf(x.w.row) ?? Infinity);
  const best = passing[0];
  if (!best) return undefined;
  const bestRate = rateOf(best.w.row) ?? 0;
  const { repeats, repeatsPassed } = repeatsHeld(ws, bestRate);
  // A rate a fresh server did not hold is not confirmed: the next passing rate below it stands instead.
  const confirmed = repeatsPassed === repeats ? best : passing.find((x) => (rateOf(x.w.row) ?? 0) < bestRate);
  // The upper end stays the search's lowest failing rate: a fresh server that missed the best rate lowers what is
  // confirmed (the low end), not what this command was seen to reach (measured: counting failed repeats at the
  // upper end too made runs 'decide' against a candidate that another launch of the same command held).
  const score = confirmed ? (rateOf(confirmed.w.row) ?? 0) : 0;
  // A failure below the confirmed rate (a disturbed round; or a second search over wider bounds) is not its upper end.
  const lowestFail = Math.min(...fails.filter((f) => f > score));
  const { launches, failed } = launchCapacities(ws.map((x) => ({ row: x.w.row, verdict: x.w.verdict })));
  const base = { basis: 'search' as const, repeats, repeatsPassed, row: (confirmed ?? best).i, launches, failedLaunches: failed.length, confirmed: score, lowestFail };
  if (launches.length === 0) return { ...base, score, interval: [score, lowestFail], intervalKind: 'bracket' };
  const est = capacityEstimate(launches.map((l) => l.capacity));
  // One launch: no interval says how launches vary; the search's bracket stands, called a bracket.
  return est.ci ? { ...base, score: est.mean, interval: est.ci, intervalKind: 'ci' } : { ...base, score: est.mean, interval: [score, lowestFail], intervalKind: 'bracket' };
}

/** A candidate measured at fixed points: its best SLA-passing throughput, with the interval of its measurements and repeats. */
function measuredScore(ws: ReadonlyArray<{ w: Work; i: number }>): Omit<CandidateScore, 'framework' | 'candidate' | 'value' | 'columns'> | undefined {
  const measured = ws.filter((x) => modeOf(x.w.row) === 'fixed' || modeOf(x.w.row) === 'other');
  const best = measured.filter((x) => x.w.eligible).sort((a, b) => throughputOf(b.w.row) - throughputOf(a.w.row))[0];
  if (!best) return undefined;
  const rate = rateOf(best.w.row);
  const repeats = ws.filter((x) => modeOf(x.w.row) === 'repeat' && rateOf(x.w.row) === rate);
  const samples = [best, ...repeats].map((x) => ({ t: x.w.verdict.passed ? throughputOf(x.w.row) : 0, iv: x.w.verdict.passed ? intervalOf(x.w.row) : ([0, 0] as [number, number]) }));
  const mean = samples.reduce((s, x) => s + x.t, 0) / samples.length;
  const lo = Math.min(...samples.map((x) => x.iv?.[0] ?? x.t));
  const hi = Math.max(...samples.map((x) => x.iv?.[1] ?? x.t));
  return { score: mean, interval: [Math.min(lo, mean), Math.max(hi, mean)], basis: 'measured', intervalKind: 'spread', repeats: repeats.length, repeatsPassed: repeats.filter((x) => x.w.verdict.passed).length, row: best.i };
}

function scoresOf(work: readonly Work[], scenario: string, settings: VerdictSettings = {}): CandidateScore[] {
  const byCand = new Map<string, Array<{ w: Work; i: number }>>();
  work.forEach((w, i) => {
    // A round the search measured again (it contradicted an earlier verdict) counts once: its second measurement.
    if (w.scenario !== scenario || w.smoke || pyGet(w.row, 'trial.superseded') === true) return;
    const cand = pyGet(w.row, 'candidate_id');
    const k = `${w.framework}\u0000${cand === undefined ? '' : pyStr(cand)}`;
    byCand.set(k, [...(byCand.get(k) ?? []), { w, i }]);
  });
  const out: CandidateScore[] = [];
  for (const [k, ws] of byCand) {
    const [framework, candidate] = k.split('\u0000') as [string, string];
    const s = searchScore(ws) ?? measuredScore(ws);
    if (s && s.score > 0) out.push({ framework, candidate, ...s, ...priced(work[s.row]?.row, s.score, settings) });
  }
  // Under the objective, best first; a candidate it cannot price goes last.
  const v = (c: CandidateScore): number => (Number.isFinite(c.value) ? c.value : -Infinity);
  return out.sort((a, b) => v(b) - v(a) || b.score - a.score || b.interval[1] - a.interval[1] || name(a).localeCompare(name(b)));
}

/** A candidate's standing under the objective, from the row that stands for it. */
function priced(row: PyObject | undefined, score: number, settings: VerdictSettings): Pick<CandidateScore, 'value' | 'per' | 'unpriced' | 'columns'> {
  const costs = row ? rowCosts(row) : { gpus: undefined, gpuModel: undefined, meanPowerW: undefined, jPerOutputToken: undefined, outputTokensPerRequest: undefined };
  const per = perOf(costs, settings);
  const columns = objectiveColumns(costs, score, settings.cost);
  return typeof per === 'number' ? { value: score / per, per, columns } : { value: NaN, unpriced: per, columns };
}

/** Candidates with at least one measured trial (not smoke) in the scenario. */
function measuredCandidates(work: readonly Work[], scenario: string): number {
  const seen = new Set<string>();
  for (const w of work) if (w.scenario === scenario && !w.smoke && isTrial(w) && pyGet(w.row, 'status') === 'ok') seen.add(`${w.framework}\u0000${pyStr(pyGet(w.row, 'candidate_id') ?? '')}`);
  return seen.size;
}

/**
 * The relative launch-to-launch sd assumed when no candidate of a scenario was launched twice (nothing measured it):
 * a stated prior, not an estimate (df infinite): wide enough that only clear differences (about 20% and more) are
 * decided. The simulator's launch noise is 3%; real GPUs are quieter.
 */
export const ASSUMED_LAUNCH_NOISE: PooledNoise = { relSd: 0.05, df: Infinity };

/**
 * Kept for the search's own choices (which finalists to repeat, which candidates adaptive skips): how far a
 * candidate's optimistic end must fall below a leader before it is no longer worth measuring. The verdict itself is
 * a test (decide.ts), not this margin.
 */
export const DECISION_MARGIN = 0.2;

const key = (c: CandidateScore): string => `${c.framework}\u0000${c.candidate}`;

/** The test over the searched candidates' launches (fixed-point ones take part with their measurements as samples). */
function decisionOf(ranked: readonly CandidateScore[], s: VerdictSettings): { d: ScenarioDecision; noise: { relSd: number; df: number; measured: boolean } } {
  // Each launch's capacity under the objective (a candidate's divisor is the same for all its launches).
  const samples = ranked.map((c) => ({ id: key(c), samples: (c.launches?.length ? c.launches.map((l) => l.capacity) : [c.score]).map((x) => x / (c.per ?? 1)) }));
  const measured = pooledNoise(samples.map((x) => x.samples));
  const pooled = measured ?? ASSUMED_LAUNCH_NOISE;
  // Repeats are launched until the test decides: every round is a look (the most repeats any candidate has had), so
  // each look tests at its sequential level.
  const rounds = Math.max(0, ...ranked.map((c) => (c.launches?.length ?? 1) - 1));
  const alpha = rounds > 0 ? sequentialAlpha(s.alpha ?? DEFAULT_ALPHA, s.maxRepeats ?? DEFAULT_LOOKS, rounds) : (s.alpha ?? DEFAULT_ALPHA);
  const d = decideScenario(samples, { alpha, minEffect: s.minEffect ?? DEFAULT_MIN_EFFECT, pooled });
  return { d, noise: { ...pooled, measured: measured !== undefined } };
}

/** The top candidate's figure: req/s, and under another objective its value in the objective's unit first. */
function standing(c: CandidateScore, objective: Objective): string {
  if (objective === 'throughput') return `${name(c)} ${fmt(c.score)} req/s`;
  const v = objective === 'per_dollar' || objective === 'per_joule' ? String(Math.round(c.value)) : fmt(c.value);
  return `${name(c)} ${v} ${OBJECTIVE_UNIT[objective]}, ${fmt(c.score)} req/s on ${c.columns.gpus ?? '?'} GPU${c.columns.gpus === 1 ? '' : 's'}`;
}

/** The scenario's sentence: the decision, its interval, the launches, and where the noise came from. */
function summaryOf(scenario: string, d: ScenarioDecision, ranked: readonly CandidateScore[], noise: { relSd: number; measured: boolean }, measured: number, objective: Objective): string {
  const names = Object.fromEntries(ranked.map((c) => [key(c), name(c)]));
  const top = ranked[0] as CandidateScore;
  const head = objective === 'throughput' ? scenario : `${scenario} (${OBJECTIVE_WORDS[objective].trim()})`;
  if (ranked.length === 1) {
    return measured === 1
      ? `${head}: ${name(top)} meets the SLA up to ${standing(top, objective).slice(name(top).length + 1)}; the only candidate measured, so there is nothing to compare it with`
      : `${head}: ${standing(top, objective)}, the only candidate that met the SLA`;
  }
  const noiseText = noise.measured ? `launch noise ${fmt(noise.relSd * 100)}% measured` : `launch noise assumed ${fmt(noise.relSd * 100)}% (no candidate was launched twice)`;
  return `${head}: ${formatDecision(d, names)} (${standing(top, objective)}; ${noiseText})`;
}

/** Candidates the objective cannot price, said once at the end of the sentence. */
function unpricedText(all: readonly CandidateScore[], objective: Objective): string {
  const left = all.filter((c) => c.unpriced);
  return left.length ? `; not compared${OBJECTIVE_WORDS[objective]}: ${left.map((c) => `${name(c)} (${c.unpriced})`).join(', ')}` : '';
}

/** Winner, equivalence or no decision in one scenario, by test on each candidate's per-launch capacities under the objective. */
export function scenarioVerdict(work: readonly Work[], scenario: string, settings: VerdictSettings = {}): ScenarioVerdict {
  const objective = settings.objective ?? 'throughput';
  const all = scoresOf(work, scenario, settings);
  const ranked = all.filter((c) => !c.unpriced);
  const top = ranked[0];
  const measured = measuredCandidates(work, scenario);
  const minEffect = settings.minEffect ?? DEFAULT_MIN_EFFECT;
  if (!top) {
    const why = all.length ? `no candidate could be compared${OBJECTIVE_WORDS[objective]}${unpricedText(all, objective)}` : measured === 0 ? 'nothing was measured' : 'no candidate met the SLA';
    return { scenario, decided: false, winner: null, ties: [], ranked, outcome: 'none', minEffect, objective, unpriced: all.filter((c) => c.unpriced), summary: `${scenario}: ${why}` };
  }
  const { d, noise } = decisionOf(ranked, settings);
  // The decision's leader is the highest mean; rank it first (scores are those means already).
  const open = new Set([...d.contenders, ...d.equivalent]);
  const ties = ranked.slice(1).filter((c) => open.has(key(c)));
  const outcome = ranked.length === 1 ? 'winner' : d.outcome;
  const stop = stopOf(outcome, [top, ...ties], settings.repeatsEnded);
  const said = summaryOf(scenario, d, ranked, noise, measured, objective) + unpricedText(all, objective);
  const head = objective === 'throughput' ? scenario : `${scenario} (${OBJECTIVE_WORDS[objective].trim()})`;
  const summary = outcome === 'undecided' && stop ? said.replace(`${head}: undecided: `, `${head}: undecided (${STOP_TEXT[stop]}): `) : said;
  const v: ScenarioVerdict = { scenario, decided: outcome === 'winner', winner: top, ties, ranked, outcome, minEffect, level: d.level, noise, summary, objective, unpriced: all.filter((c) => c.unpriced), ...(stop ? { stop } : {}) };
  if (d.effect !== undefined) v.effect = d.effect;
  if (d.ci) v.ci = d.ci;
  return v;
}

/**
 * Why launching stopped: a winner is decided, equivalence is an answer; an undecided scenario names what ended the
 * repeats of its leader's and contenders' frameworks (budget first, then max_repeats, then repeats switched off), or,
 * when every one of them ended decided, that the open pair spans frameworks. Undefined when the run has not said.
 */
function stopOf(outcome: VerdictOutcome, open: readonly CandidateScore[], ended: Readonly<Record<string, RepeatsEnd>> | undefined): VerdictStop | undefined {
  if (outcome === 'winner') return 'decided';
  if (outcome === 'equivalent') return 'equivalent';
  if (outcome !== 'undecided' || !ended) return undefined;
  const why = new Set(open.map((c) => ended[c.framework]));
  if (why.has('budget')) return 'budget';
  if (why.has('max_repeats')) return 'max_repeats';
  if (why.has('off')) return 'repeats_off';
  return why.size === 1 && why.has('decided') && new Set(open.map((c) => c.framework)).size > 1 ? 'across_frameworks' : undefined;
}

export function verdicts(work: readonly Work[], scenarios: readonly string[], settings: VerdictSettings = {}): ScenarioVerdict[] {
  return scenarios.map((s) => scenarioVerdict(work, s, settings));
}

function plain(c: CandidateScore): VerdictCandidate {
  const out: VerdictCandidate = { framework: c.framework, candidate: c.candidate, score: c.score, interval: [c.interval[0], Number.isFinite(c.interval[1]) ? c.interval[1] : null], interval_kind: c.intervalKind, basis: c.basis, repeats: c.repeats, repeatsPassed: c.repeatsPassed, row: c.row, launches: c.launches?.length ?? 1 };
  if (c.launches?.length) out.capacities = c.launches.map((l) => Math.round(l.capacity * 1000) / 1000);
  const r = (x: number | null, d: number): number | null => (x === null ? null : Math.round(x * 10 ** d) / 10 ** d);
  Object.assign(out, { gpus: c.columns.gpus, per_gpu: r(c.columns.req_per_s_per_gpu, 4), usd_per_m_output_tokens: r(c.columns.usd_per_m_output_tokens, 4), j_per_output_token: r(c.columns.j_per_output_token, 4) });
  if (c.per !== undefined && c.per !== 1) out.value = c.value;
  if (c.unpriced) out.unpriced = c.unpriced;
  return out;
}

/** The report's (JSON-safe) form of a scenario verdict. */
export function verdictEntry(v: ScenarioVerdict): VerdictEntry {
  const e: VerdictEntry = { scenario: v.scenario, decided: v.decided, outcome: v.outcome, winner: v.winner ? plain(v.winner) : null, ties: v.ties.map(plain), ranked: v.ranked.map(plain), summary: v.summary, min_effect: v.minEffect };
  if (v.effect !== undefined) e.effect = v.effect;
  if (v.ci) e.ci = v.ci;
  if (v.level !== undefined) e.level = v.level;
  if (v.noise) e.noise = { rel_sd: v.noise.relSd, df: v.noise.df, measured: v.noise.measured };
  if (v.stop) e.stop = v.stop;
  if (v.objective !== 'throughput') e.objective = v.objective;
  if (v.unpriced.length) e.unpriced = v.unpriced.map(plain);
  return e;
}
