// The profiler handoff section: for each scenario SGLang lost by more than the noise, the winner beside SGLang's
// best with the benchmark's own lengths and shapes to profile; or the one line saying why there is none.
import type { RunFacts } from '../run-facts';
import { handoffSummary, handoffText, profileShapes, scenarioLengths } from '../handoff';
import type { BestEntry, CandidateRow, HandoffNote, HandoffScenario } from '../report-model';
import type { ScenarioVerdict } from '../verdict';
import { pyGet } from '../../py/ops';
import { isTrial, type Work } from './work';

export interface HandoffSection {
  handoff: HandoffNote | null;
  /** Why there is no note ('' when there is one). */
  handoffAbsent: string;
}

function lostScenario(b: BestEntry, work: readonly Work[], candidates: readonly CandidateRow[], best: readonly BestEntry[], runFacts: RunFacts | undefined): HandoffScenario {
  const win = candidates[b.row] as CandidateRow;
  const sgBest = best.find((e) => e.scenario === b.scenario && e.framework === 'sglang');
  const sg = sgBest ? (candidates[sgBest.row] as CandidateRow) : undefined;
  const lengths = scenarioLengths(work.filter((w) => w.scenario === b.scenario).map((w) => w.row), runFacts?.scenarios.find((s) => s.name === b.scenario));
  const sgAny = sg ?? candidates.find((c) => c.framework === 'sglang' && c.scenario === b.scenario);
  const base = {
    scenario: b.scenario,
    winnerFramework: b.framework,
    winnerCandidate: win.candidate,
    winnerRps: win.rps,
    sglangCandidate: sg ? sg.candidate : null,
    sglangRps: sg ? sg.rps : null,
    sglangCommand: sgAny?.serverCommand ?? '',
    lengths,
    shapes: profileShapes(lengths),
  };
  return { ...base, summary: handoffSummary(base) };
}

/** SGLang lost a scenario by more than the noise: another framework's top candidate, and SGLang's best interval ends below its low end. */
function lostBeyondNoise(b: BestEntry, verdicts: readonly ScenarioVerdict[]): boolean {
  const v = verdicts.find((x) => x.scenario === b.scenario);
  if (!v || !v.winner) return b.rank === 1 && b.framework !== 'sglang';
  if (b.rank !== 1 || v.winner.framework === 'sglang') return false;
  const sg = v.ranked.find((c) => c.framework === 'sglang');
  return !sg || sg.interval[1] <= v.winner.interval[0];
}

export function handoffSection(work: readonly Work[], candidates: readonly CandidateRow[], best: readonly BestEntry[], verdicts: readonly ScenarioVerdict[], runFacts: RunFacts | undefined): HandoffSection {
  const lost = best.filter((b) => b.framework !== 'sglang' && lostBeyondNoise(b, verdicts));
  if (!work.some((w) => w.framework === 'sglang')) {
    const excluded = runFacts?.frameworks.find((f) => f.framework === 'sglang')?.userExcluded;
    return { handoff: null, handoffAbsent: excluded ? 'SGLang was left out by the caller; no profiler handoff.' : 'SGLang was not benchmarked (no sglang rows); no profiler handoff.' };
  }
  if (best.length === 0) return { handoff: null, handoffAbsent: 'No scenario has an SLA-passing winner; no profiler handoff.' };
  if (lost.length === 0) {
    const tied = verdicts.some((v) => v.winner && v.winner.framework !== 'sglang' && v.ranked.some((c) => c.framework === 'sglang'));
    // Placeholder rows (a framework left out, a candidate skipped) measured nothing to compare with.
    const only = !work.some((w) => w.framework !== 'sglang' && isTrial(w) && pyGet(w.row, 'status') === 'ok');
    if (only) return { handoff: null, handoffAbsent: 'Only SGLang was measured: there is nothing to compare it with, so no profiler handoff.' };
    return { handoff: null, handoffAbsent: tied ? 'SGLang is the winner or within the noise of the winner in every scenario; no profiler handoff needed.' : 'SGLang wins every scenario that has a winner; no profiler handoff needed.' };
  }
  const scenarios = lost.map((b) => lostScenario(b, work, candidates, best, runFacts));
  return { handoff: { scenarios, text: handoffText(scenarios) }, handoffAbsent: '' };
}
