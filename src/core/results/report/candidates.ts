// The cross-framework table: its columns (optional metrics only when some row has them) and one
// ready-to-show row per input row, with cell texts, sort values and chart coordinates.
import type { PyJson, PyObject } from '../../py/json';
import { pyFloat, pyGet } from '../../py/ops';
import { fmtValue } from '../compare';
import { serverCommandOf } from '../rank';
import type { CandidateRow, ColumnDef } from '../report-model';
import { numberOf, strAt } from './values';
import { isTrial, type Work } from './work';

interface Metric {
  key: string;
  label: string;
  /** Metric fields, first present wins; `mean` marks a mean fallback in the cell. */
  fields: string[];
  meanField?: string;
  optional?: boolean;
}

const METRICS: Metric[] = [
  { key: 'request_throughput', label: 'Achieved req/s', fields: ['request_throughput'] },
  { key: 'output_token_throughput', label: 'Output tok/s', fields: ['output_token_throughput'] },
  { key: 'total_token_throughput', label: 'Total tok/s', fields: ['total_token_throughput'] },
  { key: 'p50_ttft_ms', label: 'P50 TTFT ms', fields: ['p50_ttft_ms', 'median_ttft_ms'], meanField: 'mean_ttft_ms' },
  { key: 'p50_tpot_ms', label: 'P50 TPOT ms', fields: ['p50_tpot_ms', 'median_tpot_ms'], meanField: 'mean_tpot_ms' },
  { key: 'p50_e2e_ms', label: 'P50 E2E ms', fields: ['p50_e2e_ms', 'median_e2e_ms'], optional: true },
  { key: 'success_rate', label: 'Success rate', fields: ['success_rate'] },
  { key: 'accept_length', label: 'Accept len', fields: ['accept_length'], optional: true },
  { key: 'pre_scheduler_ms', label: 'Pre-scheduler ms', fields: ['pre_scheduler_ms'], optional: true },
  { key: 'cache_hit_rate', label: 'Cache hit', fields: ['cache_hit_rate'], optional: true },
  { key: 'memory_residency', label: 'Memory residency', fields: ['memory_residency'], optional: true },
];

function metricValue(row: PyObject, m: Metric): { raw: PyJson | undefined; mean: boolean } {
  for (const f of m.fields) {
    const v = pyGet(row, `metrics.${f}`);
    if (v !== undefined && v !== null) return { raw: v, mean: false };
  }
  if (m.meanField) {
    const v = pyGet(row, `metrics.${m.meanField}`);
    if (v !== undefined && v !== null) return { raw: v, mean: true };
  }
  return { raw: undefined, mean: false };
}

/** The offered rate of a trial: trial.rate, else workload.request_rate; null for a burst ('inf') or none. */
function offeredRate(row: PyObject): number | null {
  const r = pyGet(row, 'trial.rate') ?? pyGet(row, 'workload.request_rate');
  const n = r === undefined || r === null || typeof r === 'boolean' || r === 'inf' ? undefined : pyFloat(r);
  return n !== undefined && Number.isFinite(n) && n > 0 ? n : null;
}

function trialTextOf(row: PyObject): string {
  const mode = pyGet(row, 'trial.mode');
  if (typeof mode !== 'string' || mode === 'candidate') return '';
  const round = numberOf(pyGet(row, 'trial.round'));
  return round !== null ? `${mode} ${mode === 'search' ? 'round ' : ''}${round}` : mode;
}

function candidateRow(w: Work, id: number, metrics: readonly Metric[]): CandidateRow {
  const cells = metrics.map((m) => {
    const { raw, mean } = metricValue(w.row, m);
    return { t: raw === undefined ? '' : `${fmtValue(raw)}${mean ? ' (mean)' : ''}`, n: numberOf(raw) };
  });
  const gpus = numberOf(pyGet(w.row, 'hardware.gpu_count'));
  const candidate = fmtValue(pyGet(w.row, 'candidate_id'));
  const status = strAt(w.row, 'status');
  const slaText = w.verdict.passed ? 'pass' : 'fail';
  const pick = (key: string) => cells[metrics.findIndex((m) => m.key === key)]?.n ?? null;
  return {
    id,
    line: w.rec.line,
    framework: w.framework,
    scenario: w.scenario,
    candidate,
    status,
    sla: slaText,
    slaReasons: w.verdict.reasons,
    slaAsWritten: w.verdict.asWritten,
    simulated: pyGet(w.row, 'simulated') === true,
    smoke: w.smoke,
    measured: isTrial(w),
    text: [w.framework, w.scenario, candidate, status, slaText, ...cells.map((c) => c.t), fmtValue(pyGet(w.row, 'hardware.gpu_count'))],
    num: [null, null, null, null, null, ...cells.map((c) => c.n), gpus],
    rps: pick('request_throughput'),
    otps: pick('output_token_throughput'),
    ttft: pick('p50_ttft_ms'),
    tpot: pick('p50_tpot_ms'),
    gpus,
    offered: offeredRate(w.row),
    trialText: trialTextOf(w.row),
    serverCommand: serverCommandOf(w.row),
    benchmarkCommand: strAt(w.row, 'benchmark_command'),
    failureReason: strAt(w.row, 'failure_reason'),
  };
}

/** Columns and rows, aligned: `candidates[i]` is `work[i]`. */
export function candidateTable(work: readonly Work[]): { columns: ColumnDef[]; candidates: CandidateRow[] } {
  const present = (m: Metric) => work.some((w) => metricValue(w.row, m).raw !== undefined);
  const metrics = METRICS.filter((m) => !m.optional || present(m));
  const columns: ColumnDef[] = [
    { key: 'framework', label: 'Framework', num: false },
    { key: 'scenario', label: 'Scenario', num: false },
    { key: 'candidate', label: 'Candidate', num: false },
    { key: 'status', label: 'Status', num: false },
    { key: 'sla', label: 'SLA', num: false },
    ...metrics.map((m) => ({ key: m.key, label: m.label, num: true, ...(m.optional ? { optional: true } : {}) })),
    { key: 'gpus', label: 'GPUs', num: true },
  ];
  return { columns, candidates: work.map((w, id) => candidateRow(w, id, metrics)) };
}
