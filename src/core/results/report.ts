// Builds the full report model from rows (and an optional run's facts): SLA recomputed per row,
// winners ranked with the playbook's key, throughput raw vs SLA-passing, reasons with next steps,
// caveats, and the profiler handoff. Each section is computed by its own module under report/;
// this file only prepares the rows once and assembles the sections in the model's order.
import type { RunFacts } from './run-facts';
import { REPORT_MODEL_VERSION, type ReportModel } from './report-model';
import type { RowIssue, RowRecord } from './rows';
import { artifactFacts } from './report/artifacts';
import { bestEntries } from './report/best';
import { candidateTable } from './report/candidates';
import { caveatList } from './report/caveats';
import { handoffSection } from './report/handoff-note';
import { hardwareFacts } from './report/hardware';
import { notSelectedEntries } from './report/not-selected';
import { runOutcome } from './report/outcome';
import { predictionsSection } from './report/predictions';
import { measuredFronts } from './report/measured-front';
import { limitingStages } from './report/limiting-stage';
import { searchCostSection } from './report/search-cost';
import { slaSection } from './report/sla-facts';
import { throughputEntries } from './report/throughput';
import { versionEntries } from './report/versions';
import { winnerCommands } from './report/winners';
import { frameworkNames, prepareWork, scenarioNames } from './report/work';
import { workloadSection } from './report/workload';
import { chartLimits } from '../sla/limits';
import { verdictEntry, verdicts } from './verdict';

export interface BuildReportOptions {
  rowsFile: string;
  manifestFile?: string;
  runFacts?: RunFacts;
  /** Schema problems found while reading (shown in the report, never fatal). */
  issues?: RowIssue[];
}

export function buildReport(records: readonly RowRecord[], opts: BuildReportOptions): ReportModel {
  const runFacts = opts.runFacts;
  const work = prepareWork(records, runFacts);
  const { columns, candidates } = candidateTable(work);
  const scenarios = scenarioNames(work);
  const frameworks = frameworkNames(work, runFacts);
  const verdictList = verdicts(work, scenarios, runFacts?.verdict ?? {});
  const best = bestEntries(work, scenarios, frameworks, verdictList);
  const winners = winnerCommands(work, candidates, best);
  const sla = slaSection(work, runFacts, opts.manifestFile);
  const workload = workloadSection(work, runFacts, scenarios);
  const simulatedRows = candidates.filter((c) => c.simulated).length;
  const { limits } = sla;
  const notSelected = notSelectedEntries(work, candidates, runFacts, best);
  return {
    version: REPORT_MODEL_VERSION,
    title: `Benchmark report${workload.models.length === 1 ? `: ${workload.models[0]}` : ''}`,
    source: { rowsFile: opts.rowsFile, manifestFile: opts.manifestFile ?? null, rowCount: candidates.length },
    outcome: runOutcome(work, runFacts),
    simulatedRows,
    workload: workload.facts,
    sla: sla.facts,
    slaLimits: chartLimits(limits),
    hardware: hardwareFacts(work, runFacts),
    versions: versionEntries(work, runFacts, frameworks),
    columns,
    candidates,
    scenarios,
    frameworks,
    verdicts: verdictList.map(verdictEntry),
    best,
    throughput: throughputEntries(work, candidates, best, scenarios, frameworks),
    winners,
    notSelected,
    caveats: caveatList({ work, runFacts, scenarios, frameworks, best, simulatedRows, kinds: workload.kinds, clients: workload.clients, deprecatedKeys: sla.deprecatedKeys, issueCount: opts.issues?.length ?? 0 }),
    ...handoffSection(work, candidates, best, verdictList, runFacts),
    searchCost: searchCostSection(runFacts, simulatedRows),
    predictions: predictionsSection(runFacts, verdictList, notSelected),
    measuredFronts: measuredFronts(work, scenarios, simulatedRows > 0),
    limitingStages: limitingStages(work, scenarios),
    artifacts: artifactFacts(work, winners, runFacts, opts.rowsFile, opts.manifestFile),
    problems: (opts.issues ?? []).map((i) => ({ line: i.line, message: i.message })),
  };
}
