// Rows that explain a framework or candidate that was not measured (skipped, user-excluded, failed to launch, crashed), one per scenario.
import type { Candidate } from '../core/candidates/candidate';
import type { Scenario } from '../core/config/model';
import type { PlanFramework } from '../core/plan/types';
import type { RowStatus } from '../core/results/rows';
import { candidateKey } from './artifacts';
import type { RunContext } from './context';
import { candidateRow } from './row-builder';

export function recordNotRun(ctx: RunContext, f: PlanFramework, cand: Candidate | undefined, status: RowStatus, reason: string, phase: 'skip' | 'launch' | 'crash', serverLog?: string, scenarios: readonly Scenario[] = ctx.plan.scenarios): void {
  for (const sc of scenarios) {
    const key = candidateKey(f.framework, cand?.id ?? '-', sc.name, ctx.ledger.digest(f.framework, cand, sc));
    if (ctx.ledger.finished(key, cand)) continue;
    ctx.addRow(candidateRow(ctx.rowCtx, f.framework, cand, sc, key, status, reason, phase, serverLog));
  }
}
