// Builds the full report model from rows (and an optional run manifest): SLA recomputed per row,
// winners ranked with the playbook's key, throughput raw vs SLA-passing, reasons with next steps,
// caveats, and the profiler handoff.
import { frameworkSpec, isFrameworkKey, FRAMEWORKS } from '../frameworks';
import { adviseFor } from './advice';
import { artifactSummary, fmtValue } from './compare';
import { handoffSummary, handoffText, profileShapes, scenarioLengths } from './handoff';
import type { RunManifest } from './manifest';
import type { PyJson, PyObject } from '../py/json';
import { pyFloat, pyGet, pyStr, pyStrCompare, pyTruthy } from '../py/ops';
import { rankKey, scenarioOf, frameworkOf, serverCommandOf, tupleGt, tupleLt, type RankKey } from './rank';
import {
  REPORT_MODEL_VERSION,
  type BestEntry,
  type CandidateRow,
  type Caveat,
  type ColumnDef,
  type Fact,
  type HandoffNote,
  type HandoffScenario,
  type NotSelectedCategory,
  type NotSelectedEntry,
  type ReportModel,
  type ThroughputEntry,
  type VersionEntry,
  type WinnerCommands,
} from './report-model';
import type { RowIssue, RowRecord } from './rows';
import { evaluateSla, limitsFrom, shortNumber, slaLabel, type SlaKey, type SlaLimits, type SlaVerdict } from './sla';

export interface BuildReportOptions {
  rowsFile: string;
  manifestFile?: string;
  manifest?: RunManifest;
  /** Schema problems found while reading (shown in the report, never fatal). */
  issues?: RowIssue[];
}

interface Metric {
  key: string;
  label: string;
  /** Metric fields, first present wins; `mean` marks a mean fallback in the cell. */
  fields: string[];
  meanField?: string;
  optional?: boolean;
}

const METRICS: Metric[] = [
  { key: 'request_throughput', label: 'Req/s', fields: ['request_throughput'] },
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

const SYNTHETIC_KINDS = new Set(['random', 'random-ids', 'generated-shared-prefix', 'image']);
const FRAMEWORK_ORDER = new Map<string, number>(FRAMEWORKS.map((f, i) => [f, i]));

function frameworkCompare(a: string, b: string): number {
  const x = FRAMEWORK_ORDER.get(a) ?? 99;
  const y = FRAMEWORK_ORDER.get(b) ?? 99;
  return x !== y ? x - y : pyStrCompare(a, b);
}

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

function numberOf(v: PyJson | undefined): number | null {
  if (v === undefined || v === null || typeof v === 'boolean') return null;
  const f = pyFloat(v);
  return f === undefined || Number.isNaN(f) ? null : f;
}

const text = (v: PyJson | undefined) => fmtValue(v);
const strAt = (row: PyObject, path: string) => {
  const v = pyGet(row, path);
  return v === undefined || v === null ? '' : pyStr(v);
};

/** Smoke settings: the row says so, or its flags turn CUDA graphs off / force eager mode. */
function isSmoke(row: PyObject, framework: string): boolean {
  if (pyGet(row, 'smoke') === true) return true;
  if (!isFrameworkKey(framework)) return false;
  const keys = frameworkSpec(framework).smokeOnlyFlags;
  const flags = pyGet(row, 'server_flags');
  const offValue = (v: PyJson | undefined) => v === true || (typeof v === 'string' && /^(disabled|none|off|eager)$/i.test(v));
  if (flags instanceof Map) {
    for (const k of keys) if (offValue(flags.get(k))) return true;
  }
  const cmd = serverCommandOf(row);
  if (!cmd) return false;
  for (const k of keys) {
    const opt = `--${k.replace(/_/g, '-')}`;
    const re = k.startsWith('cuda_graph_backend') ? new RegExp(`${opt}(?:=|\\s+)disabled\\b`) : new RegExp(`${opt}(?:=true)?(?=\\s|$)`);
    if (re.test(cmd)) return true;
  }
  return false;
}

interface Work {
  rec: RowRecord;
  row: PyObject;
  framework: string;
  scenario: string;
  verdict: SlaVerdict;
  smoke: boolean;
  eligible: boolean;
  key: RankKey;
}

const desc = (a: { key: RankKey }, b: { key: RankKey }) => (tupleLt(b.key, a.key) ? -1 : tupleLt(a.key, b.key) ? 1 : 0);

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

function distinct(values: Iterable<string>): string[] {
  return [...new Set([...values].filter((v) => v !== ''))];
}

export function buildReport(records: readonly RowRecord[], opts: BuildReportOptions): ReportModel {
  const manifest = opts.manifest;
  const work: Work[] = records.map((rec) => {
    const row = rec.data;
    const framework = frameworkOf(row);
    const verdict = evaluateSla(row, manifest?.sla);
    const smoke = isSmoke(row, framework);
    const eligible = verdict.passed && !smoke;
    const k = rankKey(row);
    // The playbook's key, with the recomputed verdict in place of the row's own `sla.passed`.
    const key: RankKey = [k[0], verdict.passed ? 1 : 0, k[2], k[3], k[4], k[5], k[6]];
    return { rec, row, framework, scenario: scenarioOf(row), verdict, smoke, eligible, key };
  });

  // ---- columns and candidate rows ----
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
  const candidates: CandidateRow[] = work.map((w, id) => {
    const cells = metrics.map((m) => {
      const { raw, mean } = metricValue(w.row, m);
      return { t: raw === undefined ? '' : `${text(raw)}${mean ? ' (mean)' : ''}`, n: numberOf(raw) };
    });
    const gpus = numberOf(pyGet(w.row, 'hardware.gpu_count'));
    const candidate = text(pyGet(w.row, 'candidate_id'));
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
      text: [w.framework, w.scenario, candidate, status, slaText, ...cells.map((c) => c.t), text(pyGet(w.row, 'hardware.gpu_count'))],
      num: [null, null, null, null, null, ...cells.map((c) => c.n), gpus],
      rps: pick('request_throughput'),
      otps: pick('output_token_throughput'),
      ttft: pick('p50_ttft_ms'),
      tpot: pick('p50_tpot_ms'),
      gpus,
      serverCommand: serverCommandOf(w.row),
      benchmarkCommand: strAt(w.row, 'benchmark_command'),
      failureReason: strAt(w.row, 'failure_reason'),
    };
  });

  const scenarios = distinct(work.map((w) => w.scenario)).sort(pyStrCompare);
  const frameworks = distinct([...work.map((w) => w.framework), ...(manifest?.frameworks.filter((f) => f.enabled && !f.userExcluded).map((f) => f.framework) ?? [])]).sort(frameworkCompare);

  // ---- best per framework x scenario, then ranked across frameworks ----
  const bestOf = new Map<string, Map<string, number>>();
  work.forEach((w, i) => {
    if (!w.eligible) return;
    let bySc = bestOf.get(w.framework);
    if (!bySc) bestOf.set(w.framework, (bySc = new Map<string, number>()));
    const cur = bySc.get(w.scenario);
    if (cur === undefined || tupleGt(w.key, (work[cur] as Work).key)) bySc.set(w.scenario, i);
  });
  const best: BestEntry[] = [];
  for (const sc of scenarios) {
    const entries: Array<{ key: RankKey; fw: string; row: number }> = [];
    for (const fw of frameworks) {
      const i = bestOf.get(fw)?.get(sc);
      if (i !== undefined) entries.push({ key: (work[i] as Work).key, fw, row: i });
    }
    entries.sort(desc).forEach((e, r) => best.push({ scenario: sc, framework: e.fw, row: e.row, rank: r + 1 }));
  }

  // ---- raw vs SLA-passing throughput ----
  const throughput: ThroughputEntry[] = [];
  for (const sc of scenarios) {
    for (const fw of frameworks) {
      let rawRow: number | null = null;
      let rawBest: number | null = null;
      work.forEach((w, i) => {
        if (w.scenario !== sc || w.framework !== fw || pyGet(w.row, 'status') !== 'ok' || w.smoke) return;
        const rps = candidates[i]?.rps ?? null;
        if (rps !== null && (rawBest === null || rps > rawBest)) {
          rawBest = rps;
          rawRow = i;
        }
      });
      const b = best.find((e) => e.scenario === sc && e.framework === fw);
      const slaRow = b ? b.row : null;
      const slaBest = slaRow === null ? null : (candidates[slaRow]?.rps ?? null);
      if (rawRow === null && slaRow === null && !work.some((w) => w.scenario === sc && w.framework === fw)) continue;
      throughput.push({ scenario: sc, framework: fw, rawBest, rawRow, slaBest, slaRow });
    }
  }

  // ---- winners' commands and artifacts ----
  const winners: WinnerCommands[] = best
    .filter((b) => b.rank === 1)
    .map((b) => {
      const w = work[b.row] as Work;
      const artifacts: Fact[] = [];
      const a = pyGet(w.row, 'artifacts');
      if (a instanceof Map) for (const [k, v] of a) if (pyTruthy(v)) artifacts.push({ label: k, value: pyStr(v) });
      const c = candidates[b.row] as CandidateRow;
      return { scenario: b.scenario, framework: b.framework, candidate: c.candidate, row: b.row, serverCommand: c.serverCommand, benchmarkCommand: c.benchmarkCommand, artifacts };
    });

  // ---- not selected ----
  const notSelected: NotSelectedEntry[] = [];
  work.forEach((w, i) => {
    const category = categoryOf(w);
    if (!category) return;
    const c = candidates[i] as CandidateRow;
    const reason = category === 'sla-failing' ? w.verdict.reasons.join('; ') : c.failureReason || (category === 'smoke' ? 'smoke settings' : 'no reason recorded');
    const { next, advice } = adviseFor(category, category === 'sla-failing' ? '' : c.failureReason, w.verdict.checks);
    notSelected.push({ framework: w.framework, scenario: w.scenario, candidate: c.candidate, category, reason, next, advice, row: i });
  });
  for (const f of manifest?.frameworks ?? []) {
    if (!f.userExcluded || work.some((w) => w.framework === f.framework)) continue;
    const { next, advice } = adviseFor('user-excluded', '');
    notSelected.push({ framework: f.framework, scenario: '', candidate: '', category: 'user-excluded', reason: 'not in the caller\u2019s framework set', next, advice, row: null });
  }

  // ---- SLA facts and limits ----
  const slaFacts: Fact[] = [];
  let limits: SlaLimits = {};
  const deprecatedKeys = new Set<string>();
  if (manifest?.sla) {
    limits = manifest.sla.limits;
    manifest.sla.deprecated.forEach((k) => deprecatedKeys.add(k));
    slaFacts.push({ label: 'Source', value: opts.manifestFile ? `manifest (${opts.manifestFile})` : 'manifest' });
  } else {
    const seen = new Map<string, SlaLimits>();
    for (const w of work) {
      const l = limitsFrom(pyGet(w.row, 'sla'));
      l.deprecated.forEach((k) => deprecatedKeys.add(k));
      seen.set(JSON.stringify(l.limits), l.limits);
    }
    const sets = [...seen.values()].filter((l) => Object.keys(l).length > 0);
    if (sets.length === 1) limits = sets[0] as SlaLimits;
    slaFacts.push({ label: 'Source', value: sets.length === 0 ? 'none recorded (every ok row passes)' : sets.length === 1 ? 'the rows\u2019 sla blocks' : `the rows\u2019 sla blocks (${sets.length} different sets; each row judged on its own)` });
  }
  for (const [k, v] of Object.entries(limits) as Array<[SlaKey, number]>) {
    slaFacts.push({ label: k, value: k === 'min_success_rate' ? shortNumber(v) : `${shortNumber(v)} ms (${slaLabel(k)})` });
  }

  // ---- workload, hardware, versions ----
  const workload: Fact[] = [];
  const models = distinct([...(manifest?.model ? [manifest.model] : []), ...work.map((w) => strAt(w.row, 'model'))]);
  if (models.length) workload.push({ label: 'Model', value: models.join(', ') });
  const kinds = distinct([...(manifest?.datasetKind ? [manifest.datasetKind] : []), ...work.map((w) => strAt(w.row, 'workload.kind'))]);
  if (kinds.length) workload.push({ label: 'Dataset kind', value: kinds.join(', ') });
  for (const sc of scenarios) {
    const l = scenarioLengths(work.filter((w) => w.scenario === sc).map((w) => w.row), manifest?.scenarios.find((s) => s.name === sc));
    const lv = l.kind === 'exact' ? `${l.inputLen} → ${l.outputLen} tokens` : l.kind === 'buckets' ? `input p50 ${l.inputP50} / p95 ${l.inputP95}, output p50 ${l.outputP50} / p95 ${l.outputP95} tokens` : 'lengths not recorded';
    workload.push({ label: `Scenario ${sc}`, value: lv });
  }
  const prompts = distinct([...(manifest?.numPrompts !== undefined ? [String(manifest.numPrompts)] : []), ...work.map((w) => strAt(w.row, 'workload.num_prompts'))]);
  if (prompts.length) workload.push({ label: 'Prompts per measurement', value: prompts.join(', ') });
  const paths = distinct([...(manifest?.canonicalJsonl ? [manifest.canonicalJsonl] : []), ...work.map((w) => strAt(w.row, 'workload.dataset_path'))]);
  if (paths.length) workload.push({ label: 'Dataset path', value: paths.join(', ') });
  const endpoints = distinct([...(manifest?.endpoint ? [manifest.endpoint] : []), ...work.map((w) => strAt(w.row, 'workload.endpoint'))]);
  if (endpoints.length) workload.push({ label: 'Endpoint', value: endpoints.join(', ') });
  const traffic = distinct(
    work.map((w) => {
      const rate = strAt(w.row, 'trial.rate') || strAt(w.row, 'workload.request_rate');
      const conc = strAt(w.row, 'trial.concurrency') || strAt(w.row, 'workload.max_concurrency');
      return rate || conc ? `rate ${rate || 'unlimited'}, concurrency ${conc || 'unlimited'}` : '';
    }),
  );
  if (traffic.length) workload.push({ label: 'Traffic', value: traffic.slice(0, 8).join('; ') + (traffic.length > 8 ? `; … (${traffic.length} settings)` : '') });
  const clients = distinct(work.map((w) => [strAt(w.row, 'client.name'), strAt(w.row, 'client.version')].filter(Boolean).join(' ')));
  if (clients.length) workload.push({ label: 'Load client', value: clients.join(', ') });

  const hardware: Fact[] = [];
  const hw = (label: string, path: string, extra: string[] = []) => {
    const vals = distinct([...extra, ...work.map((w) => strAt(w.row, path))]);
    if (vals.length) hardware.push({ label, value: vals.join(', ') });
  };
  hw('GPU model', 'hardware.gpu_model', manifest?.gpuModel ? [manifest.gpuModel] : []);
  hw('GPU count', 'hardware.gpu_count', manifest?.gpuCount !== undefined ? [String(manifest.gpuCount)] : []);
  hw('Host', 'hardware.host');
  hw('Visible devices', 'hardware.visible_devices');
  hw('Driver', 'hardware.driver_version');
  hw('CUDA', 'hardware.cuda_version');
  hw('NCCL', 'hardware.nccl_version');

  const versions: VersionEntry[] = [];
  for (const fw of distinct([...frameworks, ...Object.keys(manifest?.versions ?? {})]).sort(frameworkCompare)) {
    const mine = work.filter((w) => w.framework === fw);
    const mv = manifest?.versions[fw];
    versions.push({
      framework: fw,
      version: distinct([...(mv?.packageVersion ? [mv.packageVersion] : []), ...mine.map((w) => strAt(w.row, 'framework_version'))]).join(', '),
      commit: distinct([...(mv?.gitCommit ? [mv.gitCommit] : []), ...mine.map((w) => strAt(w.row, 'framework_commit'))]).join(', '),
      image: mv?.containerImage ?? '',
      serverHelp: distinct([...(mv?.serverHelp ? [mv.serverHelp] : []), ...mine.map((w) => strAt(w.row, 'artifacts.server_help'))]).join(', '),
      benchmarkHelp: distinct([...(mv?.benchmarkHelp ? [mv.benchmarkHelp] : []), ...mine.map((w) => strAt(w.row, 'artifacts.benchmark_help'))]).join(', '),
      clients: distinct(mine.map((w) => [strAt(w.row, 'client.name'), strAt(w.row, 'client.version')].filter(Boolean).join(' '))).join(', '),
    });
  }

  // ---- caveats ----
  const caveats: Caveat[] = [];
  const simulatedRows = candidates.filter((c) => c.simulated).length;
  if (simulatedRows > 0) {
    caveats.push({ kind: 'simulated', text: `${simulatedRows} of ${candidates.length} rows come from the built-in simulated engine: their numbers are simulated, not performance results.` });
  }
  const synthetic = kinds.filter((k) => SYNTHETIC_KINDS.has(k));
  if (synthetic.length) {
    caveats.push({ kind: 'synthetic', text: `Synthetic workload (${synthetic.join(', ')}): good for bring-up and a first comparison, not enough to choose a production deployment; rerun with the real request distribution.` });
  }
  const smokeRows = work.filter((w) => w.smoke).length;
  if (smokeRows) caveats.push({ kind: 'smoke', text: `${smokeRows} smoke row(s) (smoke: true, eager mode or CUDA graphs off): shown, never chosen as best.` });
  const flowCheck = work.filter((w) => {
    const n = numberOf(pyGet(w.row, 'workload.num_prompts'));
    return n !== null && n <= 20;
  }).length;
  if (flowCheck) caveats.push({ kind: 'smoke', text: `${flowCheck} row(s) measured with 20 prompts or fewer: a flow check, not a throughput comparison.` });
  for (const f of manifest?.frameworks ?? []) {
    if (!f.enabled || f.userExcluded) continue;
    if (f.untried.length > 0) {
      const list = f.untried.slice(0, 6).join(', ') + (f.untried.length > 6 ? `, … (${f.untried.length})` : '');
      caveats.push({ kind: 'incomplete-search', text: `${f.framework}: the bounded search lists ${f.candidates} candidates out of ${f.totalCombinations} combinations; never tried: ${list}.` });
    } else if (f.totalCombinations > f.candidates - 1) {
      // The baseline is candidate 0; the rest come from the search space.
      caveats.push({ kind: 'incomplete-search', text: `${f.framework}: the budget (max_candidates_per_framework) lists ${f.candidates} candidates for ${f.totalCombinations} search combinations; the search is bounded, not exhaustive.` });
    }
  }
  const measuredPerFw = new Map<string, Set<string>>();
  for (const w of work) {
    if (pyGet(w.row, 'status') !== 'ok') continue;
    const s = measuredPerFw.get(w.framework) ?? new Set<string>();
    s.add(text(pyGet(w.row, 'candidate_id')));
    measuredPerFw.set(w.framework, s);
  }
  const depth = [...measuredPerFw.entries()].map(([fw, s]) => ({ fw, n: s.size }));
  const deepest = Math.max(0, ...depth.map((d) => d.n));
  for (const fw of frameworks) {
    const n = measuredPerFw.get(fw)?.size ?? 0;
    if (deepest >= 2 && n < deepest / 2) caveats.push({ kind: 'incomplete-search', text: `${fw}: ${n} candidate(s) measured against ${deepest} for the deepest framework; its search is not as complete.` });
  }
  for (const s of manifest?.substitutions ?? []) {
    caveats.push({ kind: 'substitution', text: `${s.framework ? `${s.framework}: ` : ''}${s.from}${s.to ? ` replaced by ${s.to}` : ' dropped'}${s.reason ? ` (${s.reason})` : ''}.` });
  }
  if (clients.length > 1) caveats.push({ kind: 'fairness', text: `Rows were measured by different load clients (${clients.join('; ')}); compare them side by side only with care.` });
  const gpuCounts = distinct(work.filter((w) => pyGet(w.row, 'status') === 'ok').map((w) => strAt(w.row, 'hardware.gpu_count')));
  if (gpuCounts.length > 1) caveats.push({ kind: 'fairness', text: `GPU counts differ between rows (${gpuCounts.join(', ')}); fewer GPUs only break ties.` });
  const disagree = work.filter((w) => w.verdict.disagrees);
  if (disagree.length) {
    const first = disagree[0] as Work;
    caveats.push({
      kind: 'sla',
      text: `${disagree.length} row(s) carry an sla.passed that the metrics contradict; the report uses the recomputed verdict (e.g. line ${first.rec.line}: ${first.verdict.reasons[0] ?? 'passes'}).`,
    });
  }
  if (deprecatedKeys.size) caveats.push({ kind: 'sla', text: `Deprecated SLA keys were applied (${[...deprecatedKeys].join(', ')}); use the max_p50_* names.` });
  for (const sc of scenarios) {
    if (!best.some((b) => b.scenario === sc)) caveats.push({ kind: 'no-winner', text: `Scenario ${sc}: no candidate passed the SLA; there is no best command for it.` });
  }
  if (opts.issues?.length) caveats.push({ kind: 'schema', text: `${opts.issues.length} schema problem(s) in the rows (listed under Input problems); those fields may be misread.` });

  // ---- profiler handoff ----
  let handoff: HandoffNote | null = null;
  let handoffAbsent = '';
  const sglangRows = work.filter((w) => w.framework === 'sglang');
  const lost = best.filter((b) => b.rank === 1 && b.framework !== 'sglang');
  if (sglangRows.length === 0) {
    const excluded = manifest?.frameworks.find((f) => f.framework === 'sglang')?.userExcluded;
    handoffAbsent = excluded ? 'SGLang was left out by the caller; no profiler handoff.' : 'SGLang was not benchmarked (no sglang rows); no profiler handoff.';
  } else if (best.length === 0) {
    handoffAbsent = 'No scenario has an SLA-passing winner; no profiler handoff.';
  } else if (lost.length === 0) {
    handoffAbsent = 'SGLang wins every scenario that has a winner; no profiler handoff needed.';
  } else {
    const scenariosOut: HandoffScenario[] = lost.map((b) => {
      const win = candidates[b.row] as CandidateRow;
      const sgBest = best.find((e) => e.scenario === b.scenario && e.framework === 'sglang');
      const sg = sgBest ? (candidates[sgBest.row] as CandidateRow) : undefined;
      const lengths = scenarioLengths(work.filter((w) => w.scenario === b.scenario).map((w) => w.row), manifest?.scenarios.find((s) => s.name === b.scenario));
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
    });
    handoff = { scenarios: scenariosOut, text: handoffText(scenariosOut) };
  }

  // ---- artifact paths ----
  const artifacts: Fact[] = [{ label: 'Rows', value: opts.rowsFile }];
  if (opts.manifestFile) artifacts.push({ label: 'Manifest', value: opts.manifestFile });
  if (manifest?.outputDir) artifacts.push({ label: 'Output directory', value: manifest.outputDir });
  const runIds = distinct([...(manifest?.runId ? [manifest.runId] : []), ...work.map((w) => strAt(w.row, 'run_id'))]);
  if (runIds.length) artifacts.push({ label: 'Run id', value: runIds.join(', ') });
  for (const w of winners) {
    const summary = artifactSummary(work[w.row]?.row ?? new Map<string, PyJson>());
    if (summary) artifacts.push({ label: `${w.framework} / ${w.scenario}`, value: summary.replace(/<br>/g, '; ') });
  }

  const title = `Benchmark report${models.length === 1 ? `: ${models[0]}` : ''}`;
  return {
    version: REPORT_MODEL_VERSION,
    title,
    source: { rowsFile: opts.rowsFile, manifestFile: opts.manifestFile ?? null, rowCount: candidates.length },
    simulatedRows,
    workload,
    sla: slaFacts,
    slaLimits: { ttft: limits.max_p50_ttft_ms ?? null, tpot: limits.max_p50_tpot_ms ?? null, successRate: limits.min_success_rate ?? null },
    hardware,
    versions,
    columns,
    candidates,
    scenarios,
    frameworks,
    best,
    throughput,
    winners,
    notSelected,
    caveats,
    handoff,
    handoffAbsent,
    artifacts,
    problems: (opts.issues ?? []).map((i) => ({ line: i.line, message: i.message })),
  };
}
