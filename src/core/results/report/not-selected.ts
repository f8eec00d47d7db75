// Every candidate that was not selected: its category (failed, oom, SLA-failing, smoke, ...), a
// concrete reason and the next step; frameworks the caller left out are listed as user-excluded.
import { pyGet } from '../../py/ops';
import { adviseFor } from '../advice';
import type { RunFacts } from '../run-facts';
import type { CandidateRow, NotSelectedCategory, NotSelectedEntry } from '../report-model';
import type { Work } from './work';

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

export function notSelectedEntries(work: readonly Work[], candidates: readonly CandidateRow[], runFacts: RunFacts | undefined): NotSelectedEntry[] {
  const notSelected: NotSelectedEntry[] = [];
  work.forEach((w, i) => {
    const category = categoryOf(w);
    if (!category) return;
    const c = candidates[i] as CandidateRow;
    const reason = category === 'sla-failing' ? w.verdict.reasons.join('; ') : c.failureReason || (category === 'smoke' ? 'smoke settings' : 'no reason recorded');
    const { next, advice } = adviseFor(category, category === 'sla-failing' ? '' : c.failureReason, w.verdict.checks);
    notSelected.push({ framework: w.framework, scenario: w.scenario, candidate: c.candidate, category, reason, next, advice, row: i });
  });
  for (const f of runFacts?.frameworks ?? []) {
    if (!f.userExcluded || work.some((w) => w.framework === f.framework)) continue;
    const { next, advice } = adviseFor('user-excluded', '');
    notSelected.push({ framework: f.framework, scenario: '', candidate: '', category: 'user-excluded', reason: 'not in the caller\u2019s framework set', next, advice, row: null });
  }
  return notSelected;
}
