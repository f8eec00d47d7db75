// The winners' exact commands: for each scenario's rank-1 entry (every tied entry when the scenario is a tie), the launch and benchmark command
// lines and the artifact paths its row recorded.
import { pyGet, pyStr, pyTruthy } from '../../py/ops';
import type { BestEntry, CandidateRow, Fact, WinnerCommands } from '../report-model';
import type { Work } from './work';

export function winnerCommands(work: readonly Work[], candidates: readonly CandidateRow[], best: readonly BestEntry[]): WinnerCommands[] {
  return best
    .filter((b) => b.rank === 1 || b.tied)
    .map((b) => {
      const w = work[b.row] as Work;
      const artifacts: Fact[] = [];
      const a = pyGet(w.row, 'artifacts');
      if (a instanceof Map) for (const [k, v] of a) if (pyTruthy(v)) artifacts.push({ label: k, value: pyStr(v) });
      const c = candidates[b.row] as CandidateRow;
      return { scenario: b.scenario, framework: b.framework, candidate: c.candidate, row: b.row, tied: b.tied, serverCommand: c.serverCommand, benchmarkCommand: c.benchmarkCommand, artifacts };
    });
}
