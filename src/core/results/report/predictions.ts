// The predicted-vs-measured section: per candidate × scenario the simulated engine model's SLA capacity (uncalibrated,
// and calibrated when the adaptive run had it) beside the verdict's measured SLA capacity and the error, or why it was
// not measured; and per scenario the predicted Pareto front. From the run facts (predict.json) and the verdicts only.
import { PREDICTED_NOTE, type FactsPredictedCandidate } from '../predict-file';
import type { RunFacts } from '../run-facts';
import type { NotSelectedEntry, PredictedFront, PredictionRow, PredictionsSection } from '../report-model';
import type { ScenarioVerdict } from '../verdict';
import { frameworkCompare } from './values';

const reqText = (x: number): string => x.toFixed(2);

/** A relative error as a signed whole percentage ('+12%', '-3%', '0%'). */
export function errorText(e: number | null): string {
  if (e === null) return '';
  const p = Math.round(e * 100);
  return `${p > 0 ? '+' : ''}${p}%`;
}

const errorOf = (predicted: number | null, measured: number | null): number | null => (predicted !== null && measured !== null && measured > 0 ? predicted / measured - 1 : null);

function predictedText(c: FactsPredictedCandidate, v: number | null): string {
  if (c.status !== 'ok') return `${c.status}${c.reason ? `: ${c.reason}` : ''}`;
  return v === null ? '' : reqText(v);
}

/** Why a candidate has no measured capacity in a scenario, from its not-selected entry or adaptive's skip record. */
function notMeasuredText(c: FactsPredictedCandidate, scenario: string, notSelected: readonly NotSelectedEntry[], runFacts: RunFacts): string {
  const n = notSelected.find((x) => x.framework === c.framework && x.candidate === c.candidate && x.scenario === scenario);
  const skip = runFacts.searchStrategy?.skipped.find((s) => s.framework === c.framework && s.candidate === c.candidate);
  const stop = runFacts.searchStrategy?.stopped.find((s) => s.framework === c.framework && s.candidate === c.candidate && s.scenario === scenario);
  if (stop) return `stopped: fails the SLA at ${stop.rate} req/s, under which it can neither win nor tie`;
  if (n?.category === 'skipped' || (!n && skip)) return `not measured (skipped: ${n?.reason || skip?.reason || 'no reason recorded'})`;
  if (n?.category === 'sla-failing') return 'no SLA-passing rate';
  if (n) return `not measured (${n.category}: ${n.reason})`;
  return 'not measured';
}

function rowOf(c: FactsPredictedCandidate, scenario: string, measured: number | null, why: () => string): PredictionRow {
  const ok = c.status === 'ok';
  const initial = ok ? (c.initial.capacity[scenario] ?? null) : null;
  const calibrated = ok ? (c.final?.capacity[scenario] ?? null) : null;
  const initialError = errorOf(initial, measured);
  const calibratedError = errorOf(calibrated, measured);
  return {
    scenario,
    framework: c.framework,
    candidate: c.candidate,
    initial,
    calibrated,
    status: c.status,
    measured,
    initialError,
    calibratedError,
    initialText: predictedText(c, initial),
    calibratedText: c.final ? predictedText(c, calibrated) : '',
    measuredText: measured !== null ? reqText(measured) : why(),
    initialErrorText: errorText(initialError),
    calibratedErrorText: errorText(calibratedError),
  };
}

function frontOf(f: NonNullable<RunFacts['predictions']>['fronts'][number]): PredictedFront {
  return {
    scenario: f.scenario,
    title: `${f.scenario}: Pareto front, predicted (simulated engine model)`,
    leader: f.leader ? `${f.leader.framework} ${f.leader.candidate} ≈ ${reqText(f.leader.capacity)} req/s` : '',
    points: f.byUserTps.map((p) => ({ framework: p.framework, candidate: p.candidate, rate: p.rate, throughputPerGpu: p.throughputPerGpu, perUserTps: p.perUserTps })),
  };
}

/** The section, or null when the run recorded no predictions (a plan alone, an older run). */
export function predictionsSection(runFacts: RunFacts | undefined, verdictList: readonly ScenarioVerdict[], notSelected: readonly NotSelectedEntry[]): PredictionsSection | null {
  const p = runFacts?.predictions;
  if (!runFacts || !p) return null;
  const cands = [...p.candidates].sort((a, b) => frameworkCompare(a.framework, b.framework));
  const scenarios = [...new Set([...verdictList.map((v) => v.scenario), ...cands.flatMap((c) => Object.keys(c.initial.capacity)), ...p.fronts.map((f) => f.scenario)])];
  const rows: PredictionRow[] = [];
  for (const scenario of scenarios) {
    const ranked = verdictList.find((v) => v.scenario === scenario)?.ranked ?? [];
    for (const c of cands) {
      if (c.status === 'ok' && c.initial.capacity[scenario] === undefined) continue;
      const m = ranked.find((r) => r.framework === c.framework && r.candidate === c.candidate);
      rows.push(rowOf(c, scenario, m ? m.score : null, () => notMeasuredText(c, scenario, notSelected, runFacts)));
    }
  }
  return { note: PREDICTED_NOTE, ...(p.modelError ? { modelError: p.modelError } : {}), strategy: p.strategy, calibrated: cands.some((c) => c.final !== undefined), rows, fronts: p.fronts.map(frontOf) };
}
