/// <reference lib="dom" />
// The summary panel's entry point (bundled to dist/webview/summary.js, IIFE). In a webview it says
// `ready` and renders what the host sends; in a browser it renders the data inlined in the page.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import 'uplot/dist/uPlot.min.css';
import '../../../media/summary.css';
import { NEXT_STEP_TEXT } from '../../core/results/advice';
import type { CandidateRow, GpuTimeEntry, ReportModel, SearchCost, SkippedCandidate, TrialRate } from '../../core/results/report-model';
import { problemText } from '../../core/results/outcome-text';
import { rateText, renderReportCsv, renderReportMarkdown } from '../../core/results/report-write';
import { DATA_ELEMENT_ID } from '../panel-html';
import { isHostToPanel, type PanelState } from '../protocol';
import { renderCharts } from './charts';
import { frameworkColor } from './colors';
import { custom, h } from './dom';
import { createHost, type Host } from './host';
import { sortableTable, type Column } from './tables';
import { paretoChart, predictionsContent } from './predictions';

// Lit falls back to <style> elements where constructable stylesheets are missing; give them the nonce.
const scriptNonce = document.currentScript instanceof HTMLScriptElement ? document.currentScript.nonce : '';
if (scriptNonce) (globalThis as { litNonce?: string }).litNonce = scriptNonce;

const host = createHost();
/** Rows per table page: enough to scan, few enough that 5,000-row runs sort and render at once. */
const PAGE_SIZE = 200;
let state: PanelState = {};

function saveState(patch: Partial<PanelState>): void {
  state = { ...state, ...patch };
  host.setState(state);
}

function badge(kind: 'pass' | 'fail' | 'warn' | 'info', text: string, title?: string): HTMLElement {
  return h('span', { class: `badge badge-${kind}`, ...(title ? { title } : {}) }, text);
}

/** A measured row's SLA verdict; a row that measured nothing says what it is instead (never an SLA fail). */
function slaBadge(c: CandidateRow): HTMLElement {
  if (!c.measured) {
    if (c.status === 'user_excluded') return badge('info', 'not in this run', c.failureReason);
    return badge('warn', c.status === 'skipped' || c.status === 'unsupported' ? 'skipped' : c.status === 'ok' ? 'not measured' : c.status, c.failureReason);
  }
  const title = c.sla === 'pass' ? 'Every SLA target met' : c.slaReasons.join('\n');
  return badge(c.sla === 'pass' ? 'pass' : 'fail', c.sla === 'pass' ? 'SLA pass' : 'SLA fail', title);
}

function button(label: string, id: string, onClick: () => void, secondary = false): HTMLElement {
  const b = custom('vscode-button', { id, attrs: secondary ? { secondary: '' } : {} }, label);
  b.addEventListener('click', onClick);
  return b;
}

function copyButton(label: string, text: () => string): HTMLElement {
  const b = custom('vscode-button', { class: 'copy', attrs: { secondary: '', title: 'Copy to the clipboard' } }, label);
  b.addEventListener('click', () => {
    void host.copy(text()).then((ok) => {
      b.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => (b.textContent = label), 1500);
    });
  });
  return b;
}

function section(id: string, title: string, ...children: Array<Node | string | null>): HTMLElement {
  return h('section', { id, attrs: { 'aria-labelledby': `${id}-title` } }, h('h2', { id: `${id}-title` }, title), ...children);
}

function factTable(id: string, facts: Array<{ label: string; value: string }>): HTMLElement {
  if (facts.length === 0) return h('p', { class: 'muted' }, 'Not recorded.');
  return h('table', { id, class: 'facts' }, h('tbody', {}, ...facts.map((f) => h('tr', {}, h('th', { attrs: { scope: 'row' } }, f.label), h('td', {}, f.value)))));
}

function code(text: string): HTMLElement {
  return h('code', {}, text);
}

/** The outcome in the same words as the notification and the report: candidates, not rows; trials apart; frameworks not in the run. */
function outcomeLine(model: ReportModel): HTMLElement {
  const o = model.outcome;
  const c = o.counts;
  const parts: Array<Node | string> = [custom('vscode-badge', { id: 'candidate-count', attrs: { variant: 'counter' } }, String(c.candidates)), c.candidates === 1 ? ' candidate' : ' candidates'];
  if (c.measured) parts.push(' · ', badge('info', `${c.measured} measured`));
  if (c.skipped) parts.push(' · ', badge('warn', `${c.skipped} skipped`));
  if (c.failed) parts.push(' · ', badge('fail', `${c.failed} failed`));
  if (c.measured) parts.push(' · ', badge('pass', `${c.passing} met the SLA`));
  parts.push(' · ', h('span', { id: 'trial-count' }, `${c.trials} trial${c.trials === 1 ? '' : 's'}${c.trials ? `, ${c.trialsWithinSla} within the SLA` : ''}`));
  const out = o.frameworks.filter((f) => f.notInRun).map((f) => f.framework);
  if (out.length) parts.push(' · ', h('span', { id: 'not-in-run', attrs: { title: o.frameworks.filter((f) => f.notInRun).map((f) => `${f.framework}: ${f.reason}`).join('\n') } }, `not in this run: ${out.join(', ')}`));
  return h('p', { class: 'counts', attrs: { 'aria-label': o.headline } }, ...parts);
}

/** Nothing was measured: the first reason, where the eye lands first. */
function nothingMeasured(model: ReportModel): HTMLElement | null {
  const p = model.outcome.firstProblem;
  if (model.outcome.counts.measured > 0 || !p) return null;
  return h('div', { id: 'nothing-measured', class: 'banner banner-warn', attrs: { role: 'alert' } }, h('strong', {}, 'Nothing was measured. '), problemText(p));
}

function header(model: ReportModel): HTMLElement {
  const counts = outcomeLine(model);
  const source = h('p', { class: 'muted' }, 'Rows: ', code(model.source.rowsFile), model.source.manifestFile ? ' · Manifest: ' : '', model.source.manifestFile ? code(model.source.manifestFile) : null);
  const sim =
    model.simulatedRows > 0
      ? h('div', { id: 'simulated-banner', class: 'banner banner-warn', attrs: { role: 'note' } }, h('strong', {}, 'Simulated. '), `${model.simulatedRows} of ${model.candidates.length} rows come from the built-in simulated engine; their numbers are not performance results.`)
      : null;
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    button('Save as Markdown', 'save-markdown', () => host.save('markdown', 'benchmark-report.md', renderReportMarkdown(model))),
    button('Save as CSV', 'save-csv', () => host.save('csv', 'benchmark-report.csv', renderReportCsv(model)), true),
  );
  return h('header', {}, h('h1', {}, model.title), source, counts, nothingMeasured(model), sim, toolbar);
}

function bars(model: ReportModel): HTMLElement {
  const wrap = h('div', { class: 'bars' });
  for (const sc of model.scenarios) {
    const entries = model.throughput.filter((t) => t.scenario === sc);
    if (entries.length === 0) continue;
    const max = Math.max(0, ...entries.map((t) => Math.max(t.rawBest ?? 0, t.slaBest ?? 0)));
    const group = h('div', { class: 'bar-group', attrs: { 'data-scenario': sc } }, h('h3', {}, sc));
    for (const t of entries) {
      const raw = h('div', { class: 'bar bar-raw' });
      const sla = h('div', { class: 'bar bar-sla' });
      raw.style.width = `${max > 0 ? ((t.rawBest ?? 0) / max) * 100 : 0}%`;
      sla.style.width = `${max > 0 ? ((t.slaBest ?? 0) / max) * 100 : 0}%`;
      sla.style.backgroundColor = frameworkColor(t.framework, model.frameworks.indexOf(t.framework));
      const cand = (i: number | null) => (i === null ? '' : ` (${model.candidates[i]?.candidate ?? ''})`);
      const label =
        t.slaBest !== null
          ? `${t.slaBest.toFixed(2)} req/s${cand(t.slaRow)}${t.rawBest !== null && t.rawBest > t.slaBest ? ` · raw best ${t.rawBest.toFixed(2)}${cand(t.rawRow)}` : ''}`
          : t.rawBest !== null
            ? `no SLA-passing candidate · raw best ${t.rawBest.toFixed(2)} req/s${cand(t.rawRow)}`
            : 'no measured candidate';
      group.append(
        h('div', { class: 'bar-row', attrs: { 'data-framework': t.framework } }, h('span', { class: 'bar-label' }, t.framework), h('div', { class: 'bar-track', attrs: { role: 'img', 'aria-label': `${t.framework}: ${label}` } }, raw, sla), h('span', { class: 'bar-value' }, label)),
      );
    }
    wrap.append(group);
  }
  if (!wrap.childElementCount) wrap.append(h('p', { class: 'muted' }, 'No measured candidates.'));
  return wrap;
}

function metricColumns(model: ReportModel): Array<Column<CandidateRow>> {
  return model.columns
    .map((col, index) => ({ col, index }))
    .filter((c) => c.col.num)
    .map(({ col, index }) => ({ key: col.key, label: col.label, num: true, value: (r: CandidateRow) => r.num[index] ?? null, cell: (r: CandidateRow) => r.text[index] ?? '' }));
}

function crossTable(model: ReportModel): HTMLElement {
  if (model.best.length === 0) return h('p', { class: 'muted' }, 'No scenario has an SLA-passing candidate.');
  type BestRow = { rank: number; tied: boolean; c: CandidateRow };
  const data: BestRow[] = model.best.map((b) => ({ rank: b.rank, tied: b.tied, c: model.candidates[b.row] as CandidateRow }));
  const cols: Array<Column<BestRow>> = [
    { key: 'scenario', label: 'Scenario', num: false, value: (r) => r.c.scenario },
    { key: 'rank', label: 'Rank', num: true, value: (r) => r.rank, cell: (r) => (r.tied ? `${r.rank} (tie)` : String(r.rank)) },
    { key: 'framework', label: 'Framework', num: false, value: (r) => r.c.framework },
    { key: 'candidate', label: 'Candidate', num: false, value: (r) => r.c.candidate },
    { key: 'sla', label: 'SLA', num: false, value: (r) => r.c.sla, cell: (r) => slaBadge(r.c) },
    ...metricColumns(model).map((m) => ({ ...m, value: (r: BestRow) => m.value(r.c), cell: (r: BestRow) => (m.cell ? m.cell(r.c) : '') })),
    { key: 'command', label: 'Server command', num: false, value: (r) => r.c.serverCommand, cell: (r) => code(r.c.serverCommand) },
  ];
  return sortableTable('cross-table', 'Best candidate of each framework per scenario, ranked', cols, data).element;
}

const rps = (x: number | null): string => (x === null ? '∞' : x.toFixed(2));

/** A candidate's figures per GPU, per dollar and per joule, where known. */
function costText(c: ReportModel['verdicts'][number]['ties'][number]): string {
  const parts = [
    c.gpus ? `${c.gpus} GPU${c.gpus === 1 ? '' : 's'}` : '',
    c.per_gpu !== null && c.per_gpu !== undefined ? `${c.per_gpu.toFixed(2)} req/s per GPU` : '',
    c.usd_per_m_output_tokens !== null && c.usd_per_m_output_tokens !== undefined ? `$${c.usd_per_m_output_tokens.toFixed(3)} per 1M output tokens` : '',
    c.j_per_output_token !== null && c.j_per_output_token !== undefined ? `${c.j_per_output_token.toFixed(2)} J per output token` : '',
  ].filter(Boolean);
  return parts.length ? `; ${parts.join(', ')}` : '';
}

/** Per scenario the winner, or the tie with every tied candidate, each with its capacity interval and repeats. */
function verdicts(model: ReportModel): HTMLElement {
  if (model.verdicts.length === 0) return h('p', { class: 'muted' }, 'No scenario.');
  const list = h('div', { id: 'verdict-list' });
  for (const v of model.verdicts) {
    const items = (v.winner ? [v.winner, ...v.ties] : []).map((c) =>
      h('li', { attrs: { 'data-framework': c.framework, 'data-candidate': c.candidate } }, `${c.framework} ${c.candidate}: ${c.score.toFixed(2)} req/s (${c.interval_kind === 'ci' ? '95% CI ' : c.interval_kind === 'bracket' ? 'bracket ' : ''}${rps(c.interval[0])}–${rps(c.interval[1])}), ${c.launches ?? 1} launch${(c.launches ?? 1) === 1 ? '' : 'es'}, repeats ${c.repeats ? `${c.repeatsPassed}/${c.repeats}` : 'none'}${costText(c)}`),
    );
    const outcome = v.outcome ?? (v.decided ? 'winner' : v.winner ? 'undecided' : 'none');
    const title = outcome === 'none' ? 'no candidate met the SLA' : outcome;
    list.append(
      h('article', { class: 'verdict', attrs: { 'data-scenario': v.scenario, 'data-decided': String(v.decided), 'data-outcome': outcome } }, h('h3', {}, `${v.scenario}: ${title}`), h('p', {}, v.summary), items.length ? h('ul', {}, ...items) : null),
    );
  }
  return list;
}

function winners(model: ReportModel): HTMLElement {
  const wrap = h('div', { class: 'winners' });
  for (const w of model.winners) {
    wrap.append(
      h(
        'article',
        { class: 'winner', attrs: { 'data-scenario': w.scenario } },
        h('h3', {}, `${w.scenario}: ${w.framework}, candidate ${w.candidate || '(unnamed)'}${w.tied ? ' (tied)' : ''}`),
        h('div', { class: 'command' }, h('span', { class: 'label' }, 'Launch'), h('pre', {}, code(w.serverCommand || '(not recorded)')), copyButton('Copy', () => w.serverCommand)),
        h('div', { class: 'command' }, h('span', { class: 'label' }, 'Benchmark'), h('pre', {}, code(w.benchmarkCommand || '(not recorded)')), copyButton('Copy', () => w.benchmarkCommand)),
        w.artifacts.length ? h('ul', { class: 'artifacts' }, ...w.artifacts.map((a) => h('li', {}, `${a.label}: `, code(a.value)))) : null,
      ),
    );
  }
  if (!wrap.childElementCount) wrap.append(h('p', { class: 'muted' }, 'No winners.'));
  return wrap;
}

/** Why a row failed its SLA, or why it measured nothing. */
const reasonsOf = (r: CandidateRow): string => (!r.measured ? r.failureReason : r.sla === 'fail' ? r.slaReasons.join('; ') : '');

function candidatesSection(model: ReportModel): HTMLElement {
  const cols: Array<Column<CandidateRow>> = [
    { key: 'framework', label: 'Framework', num: false, value: (r) => r.framework },
    { key: 'scenario', label: 'Scenario', num: false, value: (r) => r.scenario },
    { key: 'candidate', label: 'Candidate', num: false, value: (r) => r.candidate },
    { key: 'status', label: 'Status', num: false, value: (r) => r.status },
    {
      key: 'sla',
      label: 'SLA',
      num: false,
      value: (r) => r.sla,
      cell: (r) => {
        const span = h('span', {}, slaBadge(r));
        if (r.simulated) span.append(' ', badge('info', 'simulated'));
        if (r.smoke) span.append(' ', badge('warn', 'smoke'));
        return span;
      },
    },
    ...metricColumns(model),
    { key: 'reason', label: 'Reasons', num: false, value: reasonsOf, cell: reasonsOf },
  ];
  const t = sortableTable('candidates-table', 'Every candidate row', cols, model.candidates, { pageSize: PAGE_SIZE, onSort: (key, dir) => saveState({ sort: { key, dir } }) });
  const shown = h('span', { id: 'shown-count', class: 'muted' });
  const filterBox = custom('vscode-textfield', { id: 'filter', attrs: { placeholder: 'Filter: framework, scenario, candidate, status…', 'aria-label': 'Filter candidates' } });
  const onlyFailing = custom('vscode-checkbox', { id: 'only-failing', attrs: { label: 'Only SLA-failing' } });
  const apply = () => {
    const q = (state.filter ?? '').toLowerCase();
    const n = t.filter((i) => {
      const r = model.candidates[i] as CandidateRow;
      return (!state.onlyFailing || (r.measured && r.sla === 'fail')) && (!q || `${r.framework} ${r.scenario} ${r.candidate} ${r.status}`.toLowerCase().includes(q));
    });
    shown.textContent = `${n} of ${model.candidates.length} shown`;
  };
  filterBox.addEventListener('input', () => {
    saveState({ filter: (filterBox as HTMLInputElement).value ?? '' });
    apply();
  });
  onlyFailing.addEventListener('change', () => {
    saveState({ onlyFailing: Boolean((onlyFailing as HTMLInputElement).checked) });
    apply();
  });
  if (state.filter) (filterBox as HTMLInputElement).value = state.filter;
  if (state.onlyFailing) onlyFailing.setAttribute('checked', '');
  if (state.sort) t.sort(state.sort.key, state.sort.dir);
  apply();
  return h('div', {}, h('div', { class: 'filters' }, filterBox, onlyFailing, shown), t.element);
}

const rateSort = (r: TrialRate | null): number | null => (r === 'inf' ? Infinity : r);

function notSelected(model: ReportModel): HTMLElement {
  if (model.notSelected.length === 0) return h('p', { class: 'muted' }, 'Every candidate was selectable.');
  const kind = (next: string) => (next === 'nothing' ? 'info' : next === 'retry' ? 'warn' : 'fail');
  type N = (typeof model.notSelected)[number];
  const cols: Array<Column<N>> = [
    { key: 'framework', label: 'Framework', num: false, value: (r) => r.framework },
    { key: 'scenario', label: 'Scenario', num: false, value: (r) => r.scenario },
    { key: 'candidate', label: 'Candidate', num: false, value: (r) => r.candidate },
    { key: 'category', label: 'Category', num: false, value: (r) => r.category },
    { key: 'passed', label: 'Passed up to (req/s)', num: true, value: (r) => rateSort(r.bestPassingRate), cell: (r) => rateText(r.bestPassingRate) || (r.firstFailingRate !== null ? 'none' : '') },
    { key: 'failing', label: 'First failing (req/s)', num: true, value: (r) => rateSort(r.firstFailingRate), cell: (r) => rateText(r.firstFailingRate) },
    { key: 'reason', label: 'Reason', num: false, value: (r) => r.reason },
    { key: 'next', label: 'Next step', num: false, value: (r) => r.next, cell: (r) => h('span', {}, badge(kind(r.next), NEXT_STEP_TEXT[r.next]), ' ', r.advice) },
  ];
  return sortableTable('not-selected-table', 'Candidates that were not selected, with reasons', cols, model.notSelected, { pageSize: PAGE_SIZE }).element;
}

function handoff(model: ReportModel): HTMLElement {
  const note = model.handoff;
  if (!note) return h('p', { id: 'handoff-absent', class: 'muted' }, model.handoffAbsent);
  const wrap = h('div', { class: 'handoff' }, h('p', {}, 'SGLang is not the winner of these scenarios. Profile SGLang (llm-torch-profiler-analysis) with the benchmark\u2019s own shapes, not generic defaults.'), copyButton('Copy note', () => note.text));
  for (const s of note.scenarios) {
    const lengths =
      s.lengths.kind === 'exact'
        ? `input_len ${s.lengths.inputLen}, output_len ${s.lengths.outputLen}`
        : s.lengths.kind === 'buckets'
          ? `input_len p50 ${s.lengths.inputP50} / p95 ${s.lengths.inputP95}, output_len p50 ${s.lengths.outputP50} / p95 ${s.lengths.outputP95}`
          : 'not recorded: add workload.input_len/output_len (or p50/p95 buckets) to the rows';
    const shapes = h('ul', { class: 'shapes' });
    for (const p of s.shapes) {
      const shape = p.phase === 'prefill' ? `${p.inputLen} → 1` : `1 → ${p.outputLen}`;
      shapes.append(h('li', { attrs: { 'data-phase': p.phase, 'data-bucket': p.bucket } }, h('strong', {}, `${p.phase}${p.bucket === 'exact' ? '' : ` (${p.bucket})`}: `, shape), ' ', code(p.args), ' ', copyButton('Copy', () => p.args)));
    }
    wrap.append(h('article', { class: 'handoff-scenario', attrs: { 'data-scenario': s.scenario } }, h('h3', {}, s.scenario), h('p', {}, s.summary), h('p', {}, 'Lengths: ', lengths), shapes, s.sglangCommand ? h('p', {}, 'SGLang command: ', code(s.sglangCommand)) : null));
  }
  return wrap;
}

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Which strategy ran, its GPU-seconds per purpose and per candidate, adaptive's skips; none for a run that recorded none. */
function searchCost(cost: SearchCost | null | undefined): HTMLElement[] {
  if (!cost) return [];
  const unit = capitalized(cost.unit);
  const strategy = cost.strategy ? h('p', { id: 'strategy' }, 'Strategy: ', h('strong', {}, cost.strategy.name), ` (${cost.strategy.from}).`) : null;
  const summary = h('p', { id: 'gpu-summary', class: cost.modelled ? 'modelled' : '' }, capitalized(cost.summary));
  const purposes = cost.total ? factTable('gpu-purpose-table', [...cost.byPurpose.map((p) => ({ label: p.purpose, value: p.text })), { label: 'total', value: cost.total.text }, ...(cost.gridPredicted ? [{ label: 'grid (predicted)', value: cost.gridPredicted.text }] : [])]) : null;
  const perCandidate: Array<Column<GpuTimeEntry>> = [
    { key: 'framework', label: 'Framework', num: false, value: (r) => r.framework },
    { key: 'candidate', label: 'Candidate', num: false, value: (r) => r.candidate },
    { key: 'gpu-seconds', label: unit, num: true, value: (r) => r.gpuSeconds, cell: (r) => r.text },
    { key: 'share', label: 'Share', num: true, value: (r) => r.gpuSeconds, cell: (r) => r.share },
  ];
  const skipped: Array<Column<SkippedCandidate>> = [
    { key: 'framework', label: 'Framework', num: false, value: (r) => r.framework },
    { key: 'candidate', label: 'Candidate', num: false, value: (r) => r.candidate },
    { key: 'reason', label: 'Reason', num: false, value: (r) => r.reason },
  ];
  return [
    section(
      'search-cost',
      'Search strategy and GPU time',
      strategy,
      summary,
      purposes ? h('h3', {}, unit) : null,
      purposes,
      cost.byCandidate.length ? h('h3', {}, `${unit} per candidate`) : null,
      cost.byCandidate.length ? sortableTable('gpu-candidate-table', `${unit} per candidate`, perCandidate, cost.byCandidate).element : null,
      cost.skipped.length ? h('h3', {}, `Skipped by adaptive (${cost.skipped.length})`) : null,
      cost.skipped.length ? h('p', { class: 'muted' }, 'Each with why; --force FRAMEWORK:ID measures one anyway.') : null,
      cost.skipped.length ? sortableTable('skipped-table', 'Candidates adaptive skipped, with reasons', skipped, cost.skipped).element : null,
      cost.calibration.length ? h('h3', {}, 'Prediction error (median, before and after calibration)') : null,
      cost.calibration.length ? factTable('calibration-table', cost.calibration.map((k) => ({ label: k.framework, value: `${k.before || '?'} → ${k.after || '?'}` }))) : null,
    ),
  ];
}

/** Per P/D unit and scenario, the stage that bounded its SLA capacity; none without units. */
function limitingStages(model: ReportModel): HTMLElement[] {
  const list = model.limitingStages ?? [];
  if (!list.length) return [];
  const items = list.map((s) => h('li', { attrs: { 'data-scenario': s.scenario, 'data-candidate': `${s.framework} ${s.candidate}`, 'data-stage': s.stage } }, `${s.scenario}: ${s.framework} ${s.candidate}: ${s.stage} — ${s.because}`));
  return [section('limiting-stage', 'P/D units: the limiting stage', h('ul', { id: 'limiting-stage-list' }, ...items))];
}

/** Every SLA-passing trial per GPU against per user, aggregated and P/D together; none without such a trial. */
function measuredPareto(model: ReportModel): HTMLElement[] {
  const charts = (model.measuredFronts ?? []).map(paretoChart).filter((c): c is SVGSVGElement => c !== null);
  if (!charts.length) return [];
  const note = 'Each point one SLA-passing trial: output tokens/s per GPU the candidate held (a P/D unit counts every role\u2019s GPUs) against per-user tokens/s (1000 / p50 TPOT). The front (joined, labelled) is the trials nothing beats on both.';
  return [section('measured-pareto', 'Per GPU against per user (measured)', h('p', { class: 'muted' }, note), h('div', { class: 'pareto-charts' }, ...charts))];
}

/** Predicted vs measured, with the predicted Pareto fronts; none for a run without predictions. */
function predictions(model: ReportModel): HTMLElement[] {
  const content = predictionsContent(model.predictions);
  return content ? [section('predictions', 'Predicted vs measured', ...content)] : [];
}

function details(model: ReportModel): HTMLElement[] {
  const versions = model.versions.length
    ? h(
        'table',
        { id: 'versions-table', class: 'grid' },
        h('thead', {}, h('tr', {}, ...['Framework', 'Version', 'Commit', 'Image', 'Server help', 'Client help', 'Load client'].map((t) => h('th', { attrs: { scope: 'col' } }, t)))),
        h('tbody', {}, ...model.versions.map((v) => h('tr', {}, ...[v.framework, v.version, v.commit, v.image, v.serverHelp, v.benchmarkHelp, v.clients].map((t) => h('td', {}, t))))),
      )
    : null;
  return [
    section('caveats', 'Caveats', model.caveats.length ? h('ul', { id: 'caveat-list' }, ...model.caveats.map((c) => h('li', { attrs: { 'data-kind': c.kind } }, c.text))) : h('p', { class: 'muted' }, 'None.')),
    section('workload', 'Workload and SLA', factTable('workload-table', model.workload), h('h3', {}, 'SLA'), factTable('sla-table', model.sla)),
    section('hardware', 'Hardware and versions', factTable('hardware-table', model.hardware), versions),
    ...searchCost(model.searchCost),
    ...predictions(model),
    section('artifacts', 'Artifacts', factTable('artifacts-table', model.artifacts)),
    ...(model.problems.length ? [section('problems', 'Input problems', h('ul', {}, ...model.problems.map((p) => h('li', {}, `line ${p.line}: ${p.message}`))))] : []),
  ];
}

let scrollWatched = false;
function watchScroll(): void {
  scrollWatched = true;
  let pending = 0;
  window.addEventListener('scroll', () => {
    clearTimeout(pending);
    pending = window.setTimeout(() => saveState({ scrollY: Math.round(window.scrollY) }), 200);
  });
}

/** `reveal`: the id of a section to scroll to once drawn (the host's "open at the charts"), over the restored scroll. */
function render(model: ReportModel, restored: PanelState | undefined, reveal?: string): void {
  const t0 = performance.now();
  state = restored ?? {};
  const app = document.getElementById('app') ?? document.body.appendChild(h('div', { id: 'app' }));
  app.replaceChildren();
  const charts = h('div', { id: 'charts' });
  app.append(
    header(model),
    h(
      'main',
      {},
      section('verdict-section', 'Verdict', h('p', { class: 'muted' }, 'Candidates are compared by test on their launches: a winner only when its lead is significant and at least the minimum effect; \u201cequivalent\u201d when the differences are shown to be within it; otherwise \u201cundecided\u201d.'), verdicts(model)),
      section('charts-section', 'Latency and throughput against the offered rate', charts),
      ...measuredPareto(model),
      ...limitingStages(model),
      section('best', 'Best per framework', h('p', { class: 'muted' }, 'Best SLA-passing request throughput per framework (solid) beside the best raw throughput of any measured candidate (faint).'), bars(model)),
      section('cross', 'Cross-framework comparison', crossTable(model)),
      section('winners-section', 'Winners: exact commands', winners(model)),
      section('candidates', 'All candidates', candidatesSection(model)),
      section('not-selected', 'Not selected', notSelected(model)),
      section('handoff-section', 'Profiler handoff', handoff(model)),
      ...details(model),
    ),
  );
  // Charts measure their container, so they are drawn once it is in the document.
  renderCharts(charts, model);
  app.removeAttribute('aria-busy');
  const target = reveal ? document.getElementById(reveal) : null;
  // Below the sticky header, not under it.
  if (target) window.scrollTo(0, target.getBoundingClientRect().top + window.scrollY - (document.querySelector('header')?.getBoundingClientRect().height ?? 0) - 8);
  else if (state.scrollY) window.scrollTo(0, state.scrollY);
  if (!scrollWatched) watchScroll();
  // Count the layout the first paint needs, not only the script time.
  void document.body.offsetHeight;
  const ms = Math.round(performance.now() - t0);
  document.body.dataset.state = 'ready';
  document.body.dataset.rows = String(model.candidates.length);
  document.body.dataset.renderMs = String(ms);
  // What the header shows, read back from the page (the host logs it; tests check the page said what the model says).
  host.post({ type: 'rendered', rowCount: model.candidates.length, ms, counts: document.querySelector('header .counts')?.textContent ?? '' });
  window.dispatchEvent(new CustomEvent('autobench:ready', { detail: { rowCount: model.candidates.length, ms } }));
}

function fail(message: string, h0: Host): void {
  const app = document.getElementById('app');
  app?.replaceChildren(h('p', { class: 'banner banner-error', attrs: { role: 'alert' } }, message));
  document.body.dataset.state = 'error';
  h0.post({ type: 'error', message });
}

function start(): void {
  const embedded = document.getElementById(DATA_ELEMENT_ID);
  if (embedded) {
    try {
      render(JSON.parse(embedded.textContent ?? '') as ReportModel, host.getState());
    } catch (e) {
      fail(`Could not show the report: ${(e as Error).message}`, host);
    }
    return;
  }
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const msg = event.data;
    if (!isHostToPanel(msg)) return;
    if (msg.type === 'load') {
      try {
        render(msg.model, msg.state ?? host.getState(), msg.reveal);
      } catch (e) {
        fail(`Could not show the report: ${(e as Error).message}`, host);
      }
    }
  });
  host.post({ type: 'ready' });
}

start();
