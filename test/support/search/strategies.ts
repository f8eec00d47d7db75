// Grid and adaptive on the virtual ground truth: which candidates each measures, the repeats of finalists, the
// product's own verdict over the rows, and the GPU-seconds spent.
import type { Candidate } from '../../../src/core/candidates/candidate';
import { fromPlainJson, type PyObject } from '../../../src/core/py/json';
import type { RunFacts } from '../../../src/core/results/run-facts';
import { prepareWork, type Work } from '../../../src/core/results/report/work';
import { scenarioVerdict, type ScenarioVerdict } from '../../../src/core/results/verdict';
import { inQuestion, inQuestionRunWide, repeatStart, roundContenders } from '../../../src/runner/repeats';
import { runAdaptive, type AdaptiveEntry, type AdaptiveResult } from '../../../src/predict/adaptive';
import { decidedScenarios, standingsOf } from '../../../src/predict/measured';
import { searchAbove, searchAround } from '../../../src/predict/race';
import type { CandidatePrediction } from '../../../src/predict/types';
import type { RateSearchConfig } from '../../../src/runner/rate-search';
import { launch, type Row, type Truth } from './measure';

const REPEATS = 3;
const FINALISTS = 2;

export interface StrategyResult {
  verdicts: ScenarioVerdict[];
  gpuSeconds: number;
  measured: number;
  rows: Row[];
  adaptive?: AdaptiveResult;
}

export function entriesOf(t: Truth): AdaptiveEntry[] {
  return t.plan.frameworks.filter((f) => f.status === 'run').flatMap((f) => f.candidates.filter((c) => !c.skip).map((cand) => ({ key: `${f.framework} ${cand.id}`, framework: f.framework, cand })));
}

function workOf(t: Truth, rows: readonly Row[]): Work[] {
  return prepareWork(rows.map((r, i) => ({ line: i + 1, data: fromPlainJson(r) as PyObject })), { sla: t.plan.sla } as unknown as RunFacts);
}

function planSearch(t: Truth): RateSearchConfig {
  const s = t.plan.bench.search;
  if (!s) throw new Error(`${t.plan.source.path}: no rate search`);
  return { lower: s.lower, upper: s.upper, tolerance: s.tolerance, relTolerance: s.relTolerance, maxRounds: s.maxRounds };
}

/**
 * The runner's repeats stage (src/runner/repeats.ts): round by round, per framework × scenario the candidates still in
 * question (inQuestion: an undecided scenario's leader and contenders, a leader with one launch; at most FINALISTS,
 * the best and then the fewest launched: roundContenders),
 * each once more on a fresh launch searching locally from its search's knee (repeatStart), until none is or MAX_REPEATS rounds; with `global`
 * (adaptive) read against the run-wide verdict each round (inQuestionRunWide): what it separated from the run's leader is
 * not launched, what it still ties with the leader is, in every framework.
 */
function repeatFinalists(t: Truth, entries: readonly AdaptiveEntry[], rows: Row[], global: boolean, done = new Set<string>()): number {
  let gpu = 0;
  // As the runner's ledger does: a point repeated in an earlier call (adaptive's settle) is not repeated again.
  const keyOf = (cand: Candidate, p: { scenario: string; rate: number }, round: number) => `${cand.framework} ${cand.id} ${p.scenario} ${p.rate} ${round}`;
  for (let round = 1; round <= Math.max(REPEATS, t.plan.bench.verdict.maxRepeats); round++) {
    const chosen = new Map<Candidate, Array<{ scenario: string; rate: number }>>();
    // Adaptive: the run-wide verdict of this round (repeats.ts inQuestionRunWide).
    const all = global ? workOf(t, rows) : undefined;
    for (const fw of new Set(entries.map((e) => e.framework))) {
      const work = workOf(t, rows.filter((r) => r.framework === fw));
      for (const sc of t.plan.scenarios) {
        const v = scenarioVerdict(work, sc.name, t.plan.bench.verdict);
        const question = all ? inQuestionRunWide(v, fw, scenarioVerdict(all, sc.name, t.plan.bench.verdict)) : inQuestion(v);
        for (const c of roundContenders(question, FINALISTS)) {
          const e = entries.find((x) => x.framework === fw && x.cand.id === c.candidate);
          const rate = Number((work[c.row]?.row.get('trial') as Map<string, unknown> | undefined)?.get('rate'));
          if (e && Number.isFinite(rate)) chosen.set(e.cand, [...(chosen.get(e.cand) ?? []), { scenario: sc.name, rate: repeatStart(c, rate) }]);
        }
      }
    }
    let launched = 0;
    for (const [cand, pts0] of chosen) {
      const pts = pts0.filter((p) => !done.has(keyOf(cand, p, round)));
      if (pts.length === 0) continue;
      pts.forEach((p) => done.add(keyOf(cand, p, round)));
      const l = launch(t, { fw: cand.framework, cand, work: pts.map((p) => ({ scenario: t.plan.scenarios.find((s) => s.name === p.scenario)!, localAt: p.rate, round })) });
      rows.push(...l.rows);
      gpu += l.gpuSeconds;
      launched++;
    }
    if (chosen.size === 0 || launched === 0) break;
  }
  return gpu;
}

/** Repeats (per framework for grid, as the runner does; among the run's contenders for adaptive), then the verdict. */
function finish(t: Truth, entries: readonly AdaptiveEntry[], rows: Row[], gpu: number, measured: number, global: boolean, done?: Set<string>): StrategyResult {
  gpu += repeatFinalists(t, entries, rows, global, done);
  const work = workOf(t, rows);
  return { verdicts: t.plan.scenarios.map((s) => scenarioVerdict(work, s.name, t.plan.bench.verdict)), gpuSeconds: gpu, measured, rows };
}

/** Every candidate of the bounded list, in order, each searched over the plan's bounds. */
export function grid(t: Truth): StrategyResult {
  const entries = entriesOf(t);
  const rows: Row[] = [];
  let gpu = 0;
  for (const e of entries) {
    const l = launch(t, { fw: e.framework, cand: e.cand, work: t.plan.scenarios.map((scenario) => ({ scenario, search: planSearch(t) })) });
    rows.push(...l.rows);
    gpu += l.gpuSeconds;
  }
  return finish(t, entries, rows, gpu, entries.length, false);
}

/** The adaptive strategy (src/predict/adaptive.ts) measuring on the ground truth; searches start at the predicted knee. */
export async function adaptive(t: Truth, initial?: ReadonlyMap<string, CandidatePrediction>): Promise<StrategyResult> {
  const entries = entriesOf(t);
  const rows: Row[] = [];
  let gpu = 0;
  const plan = planSearch(t);
  const done = new Set<string>();
  const result = await runAdaptive({
    plan: t.plan,
    entries,
    ...(initial ? { initial } : {}),
    measure: (e, hints, floors) => {
      const work = t.plan.scenarios.map((scenario) => {
        const h = hints.get(scenario.name);
        const floor = floors.get(scenario.name);
        const search = searchAbove(h ? searchAround(plan, h) : plan, floor);
        return { scenario, search, fallback: plan, ...(floor !== undefined ? { floor } : {}) };
      });
      const l = launch(t, { fw: e.framework, cand: e.cand, work });
      rows.push(...l.rows);
      gpu += l.gpuSeconds;
      return Promise.resolve({ outcome: l.started ? standingsOf(t.plan, l.rows) : 'failed', observations: l.observations });
    },
    // The runner's settle: repeats of the finalists that can reach the leader, then the decided scenarios' winners.
    settle: () => {
      gpu += repeatFinalists(t, entries, rows, true, done);
      return Promise.resolve({ decided: decidedScenarios(t.plan, rows) });
    },
  });
  const r = finish(t, entries, rows, gpu, result.measured.length, true, done);
  return { ...r, adaptive: result };
}
