// The run's outcome in words, one vocabulary for every front end: the report's Outcome section's cells, the line the
// CLI ends with, and the notification the editor shows when a run ends (a warning with the first reason when nothing was measured).
import type { CandidateOutcome, RunOutcome } from './report-model';

/** What a candidate's outcome says in a table cell. */
export function outcomeKindText(c: CandidateOutcome): string {
  if (c.kind !== 'measured') return c.kind;
  return c.passingScenarios.length ? `measured, met the SLA in ${c.passingScenarios.length} of ${c.scenarios} scenario${c.scenarios === 1 ? '' : 's'}` : 'measured, never met the SLA';
}

/** "vllm baseline was skipped: unknown flag 'x' …" (or a whole framework's). */
export function problemText(p: NonNullable<RunOutcome['firstProblem']>): string {
  return `${p.framework}${p.candidate ? ` ${p.candidate}` : ''} ${p.kind === 'failed' ? 'failed' : 'was skipped'}: ${p.reason}`;
}

export interface RunNotice {
  level: 'info' | 'warning';
  text: string;
  /** When nothing was measured: the first candidate (or framework) that was skipped or failed, to jump to. */
  problem: RunOutcome['firstProblem'];
}

/** The line a run ends with: what happened per candidate, never a bare "completed"; a warning unless everything it tried was measured. */
export function runNotice(status: string, reason: string | undefined, outcome: RunOutcome | null | undefined, simulated: boolean): RunNotice {
  const sim = simulated ? ' (simulated)' : '';
  const stopped = status === 'completed' ? '' : `run ${status}${reason ? ` (${reason})` : ''}: `;
  if (!outcome) return { level: status === 'completed' ? 'info' : 'warning', text: `Autobench: ${stopped || 'run completed: '}no report was written${sim}.`, problem: null };
  if (outcome.counts.measured === 0) {
    const first = outcome.firstProblem ? ` ${problemText(outcome.firstProblem)}.` : '';
    return { level: 'warning', text: `Autobench: ${stopped}nothing was measured.${first} ${outcome.headline}${sim}.`, problem: outcome.firstProblem };
  }
  const level = stopped || outcome.counts.failed > 0 ? 'warning' : 'info';
  return { level, text: `Autobench: ${stopped}${outcome.headline}${sim}.`, problem: null };
}
