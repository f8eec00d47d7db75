// `autobench compare`'s two outputs, byte for byte as the playbook's compare script writes them
// (CONTRACTS.md), with its deliberate differences: a framework-less row lands in its own table.
import type { PyJson, PyObject } from '../py/json';
import { pyGet, pyStr, pyStrCompare as comparePy, pyTruthy } from '../py/ops';
import { artifactSummary, EXTRA_METRICS, extraMetricValue, latencyValue, mdCell } from './compare-values';
import { bestByFrameworkAndScenario, rankedWins, rankRows, serverCommandOf, slaPassedAsWritten, sortByRankDesc, type Ranked } from './rank';

// Other report surfaces format cells the same way.
export { artifactSummary, fmtValue, mdCell } from './compare-values';

const boolText = (b: boolean) => (b ? 'True' : 'False');

const metric = (row: PyObject, name: string) => mdCell(pyGet(row, `metrics.${name}`));
const orEmpty = (row: PyObject, path: string): PyJson => pyGet(row, path) ?? '';

const BEST_HEADER =
  '| Scenario | Candidate | Status | SLA | Req/s | Output tok/s | Total tok/s | P50 TTFT ms | P50 TPOT ms | Success rate | Accept len | Pre-scheduler ms | Cache hit | GPUs | Server command | Artifacts |';
const BEST_ALIGN = '| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |';
const CROSS_HEADER =
  '| Scenario | Rank | Framework | Candidate | SLA | Req/s | Output tok/s | P50 TTFT ms | P50 TPOT ms | Accept len | Pre-scheduler ms | Cache hit | GPUs | Server command |';
const CROSS_ALIGN = '| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |';
export const FAILED_NOTE =
  'This table records tried configs that were not selected. They either failed, were skipped by policy, or completed without passing the SLA.';

const row = (cells: string[]) => `| ${cells.join(' | ')} |`;

function bestCommandLine(r: Ranked): string {
  const d = r.row;
  return row([
    mdCell(r.scenario),
    mdCell(orEmpty(d, 'candidate_id')),
    mdCell(orEmpty(d, 'status')),
    boolText(slaPassedAsWritten(d)),
    metric(d, 'request_throughput'),
    metric(d, 'output_token_throughput'),
    metric(d, 'total_token_throughput'),
    mdCell(latencyValue(d, 'ttft')),
    mdCell(latencyValue(d, 'tpot')),
    metric(d, 'success_rate'),
    ...EXTRA_METRICS.map((m) => mdCell(extraMetricValue(d, m))),
    mdCell(pyGet(d, 'hardware.gpu_count')),
    mdCell(serverCommandOf(d)),
    mdCell(artifactSummary(d)),
  ]);
}

function crossLine(r: Ranked, rank: number): string {
  const d = r.row;
  return row([
    mdCell(r.scenario),
    String(rank),
    mdCell(orEmpty(d, 'framework')),
    mdCell(orEmpty(d, 'candidate_id')),
    boolText(slaPassedAsWritten(d)),
    metric(d, 'request_throughput'),
    metric(d, 'output_token_throughput'),
    mdCell(latencyValue(d, 'ttft')),
    mdCell(latencyValue(d, 'tpot')),
    ...EXTRA_METRICS.map((m) => mdCell(extraMetricValue(d, m))),
    mdCell(pyGet(d, 'hardware.gpu_count')),
    mdCell(serverCommandOf(d)),
  ]);
}

const byScenarioAsc = (a: Ranked, b: Ranked) => (a.scenario === b.scenario ? 0 : comparePy(a.scenario, b.scenario));

/** The compare script's Markdown summary. */
export function renderCompareMarkdown(rows: readonly PyObject[], ranked: readonly Ranked[] = rankRows(rows)): string {
  const lines = ['# Benchmark Summary', ''];
  if (rows.length === 0) {
    lines.push('No rows found.');
    return `${lines.join('\n')}\n`;
  }
  const winners = bestByFrameworkAndScenario(ranked);

  lines.push('## Best Commands By Framework', '');
  const frameworks = [...new Set(winners.map((w) => w.framework))].sort(comparePy);
  for (const fw of frameworks) {
    lines.push(`### \`${fw}\``, '', BEST_HEADER, BEST_ALIGN);
    // Deliberate difference: match on str(framework or 'unknown'), so a row without a framework
    // (or with a non-string one) fills its table instead of leaving it empty.
    const mine = winners.filter((w) => w.framework === fw).sort(byScenarioAsc);
    for (const w of mine) lines.push(bestCommandLine(w));
    lines.push('');
  }

  lines.push('## Cross-Framework Best Comparison', '', CROSS_HEADER, CROSS_ALIGN);
  const scenarios = [...new Set(winners.map((w) => w.scenario))].sort(comparePy);
  for (const sc of scenarios) {
    const mine = sortByRankDesc(winners.filter((w) => w.scenario === sc));
    mine.forEach((w, i) => lines.push(crossLine(w, i + 1)));
  }
  lines.push('');

  const failed = ranked.filter((r) => !rankedWins(r)).map((r) => r.row);
  if (failed.length > 0) {
    lines.push('', '## Failed Or SLA-Failing Candidates', '', FAILED_NOTE, '', '| Framework | Candidate | Status | SLA | Reason |', '| --- | --- | --- | --- | --- |');
    for (const d of failed) {
      lines.push(
        row([mdCell(orEmpty(d, 'framework')), mdCell(orEmpty(d, 'candidate_id')), mdCell(orEmpty(d, 'status')), boolText(slaPassedAsWritten(d)), mdCell(orEmpty(d, 'failure_reason'))]),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Metrics the CSV copies as written, between sla_passed and the extra metrics. */
const CSV_METRICS = [
  'request_throughput',
  'output_token_throughput',
  'p50_ttft_ms',
  'p50_tpot_ms',
  'mean_ttft_ms',
  'mean_tpot_ms',
  'p99_ttft_ms',
  'p99_tpot_ms',
] as const;

/** The CSV columns, in order. */
export const COMPARE_CSV_FIELDS: readonly string[] = [
  'framework',
  'scenario',
  'candidate_id',
  'status',
  'sla_passed',
  ...CSV_METRICS,
  ...EXTRA_METRICS.map((m) => m.key),
  'gpu_count',
  'server_command',
  'failure_reason',
];

const NEEDS_QUOTES = /[",\r\n]/;

/** One field as Python's csv module writes it by default (QUOTE_MINIMAL, doubled quotes). */
export function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A value as csv.writer turns it into text: None -> '', str as is, others via str(). */
function csvValue(v: PyJson | undefined): string {
  if (v === undefined || v === null) return '';
  return pyStr(v);
}

/** One CSV line (CRLF-terminated) of a ranked row. */
function csvLine(r: Ranked): string {
  const d = r.row;
  const metrics = d.get('metrics');
  const hardware = d.get('hardware');
  let line = `${csvField(csvValue(d.get('framework')))},${csvField(r.scenario)},${csvField(csvValue(d.get('candidate_id')))},${csvField(csvValue(d.get('status')))},${r.key[1] === 1 ? 'True' : 'False'}`;
  for (const name of CSV_METRICS) line += `,${csvField(csvValue(metrics instanceof Map ? metrics.get(name) : undefined))}`;
  // The script writes these three as `value or ""`: a falsy value (0, 0.0, False, "") is an empty field, though the table prints it.
  for (const m of EXTRA_METRICS) {
    const v = extraMetricValue(d, m, metrics);
    line += `,${pyTruthy(v) ? csvField(csvValue(v)) : ''}`;
  }
  return `${line},${csvField(csvValue(hardware instanceof Map ? hardware.get('gpu_count') : undefined))},${csvField(serverCommandOf(d))},${csvField(csvValue(d.get('failure_reason')))}\r\n`;
}

/** The CSV's records as csv.writer writes them one by one: the header, then every row, best first. */
export function compareCsvRecords(rows: readonly PyObject[], ranked: readonly Ranked[] = rankRows(rows)): string[] {
  // A plain loop: this runs once per row of 100,000-row files.
  const out = [`${COMPARE_CSV_FIELDS.join(',')}\r\n`];
  for (const r of sortByRankDesc(ranked)) out.push(csvLine(r));
  return out;
}

/** The compare script's CSV: every row, best first, CRLF line ends. */
export function renderCompareCsv(rows: readonly PyObject[], ranked: readonly Ranked[] = rankRows(rows)): string {
  return compareCsvRecords(rows, ranked).join('');
}
