// The profiler handoff section: for each scenario SGLang did not win, the winner beside SGLang's
// best with the benchmark's own lengths and shapes to profile; or the one line saying why there is none.
import type { RunFacts } from '../run-facts';
import { handoffSummary, handoffText, profileShapes, scenarioLengths } from '../handoff';
import type { BestEntry, CandidateRow, HandoffNote, HandoffScenario } from '../report-model';
import type { Work } from './work';

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

export function handoffSection(work: readonly Work[], candidates: readonly CandidateRow[], best: readonly BestEntry[], runFacts: RunFacts | undefined): HandoffSection {
  const lost = best.filter((b) => b.rank === 1 && b.framework !== 'sglang');
  if (!work.some((w) => w.framework === 'sglang')) {
    const excluded = runFacts?.frameworks.find((f) => f.framework === 'sglang')?.userExcluded;
    return { handoff: null, handoffAbsent: excluded ? 'SGLang was left out by the caller; no profiler handoff.' : 'SGLang was not benchmarked (no sglang rows); no profiler handoff.' };
  }
  if (best.length === 0) return { handoff: null, handoffAbsent: 'No scenario has an SLA-passing winner; no profiler handoff.' };
  if (lost.length === 0) return { handoff: null, handoffAbsent: 'SGLang wins every scenario that has a winner; no profiler handoff needed.' };
  const scenarios = lost.map((b) => lostScenario(b, work, candidates, best, runFacts));
  return { handoff: { scenarios, text: handoffText(scenarios) }, handoffAbsent: '' };
}
