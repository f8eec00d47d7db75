// Writes the report model as Markdown and CSV. Pure text functions: the CLI and the summary panel
// (in a webview or a plain browser) produce the same files from the same model.
import { pyFloatRepr } from '../py/value';
import { NEXT_STEP_TEXT } from './advice';
import { outcomeKindText, problemText } from './outcome-text';
import type { CandidateRow, ColumnDef, Fact, NotSelectedEntry, PredictionsSection, ReportModel, RunOutcome, SearchCost, TrialRate, VerdictCandidate } from './report-model';

/**
 * Text shown literally in Markdown (a table cell included), with Markdown's own escapes and no HTML entities, so
 * `p50 TTFT 900 ms > 300 ms` reads the same in the file and rendered: a backslash before punctuation is doubled,
 * `|` is escaped for tables, `<` before a tag-like character and `&` before an entity-like name are backslash-escaped
 * (so row text never becomes HTML), and a line break is `<br>` (a table cell holds one line).
 */
export function mdText(s: string): string {
  return s
    .replace(/\\(?=[!-/:-@[-`{-~])/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/<(?=[A-Za-z/!?])/g, '\\<')
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&')
    .replace(/\r?\n|\r/g, '<br>');
}

/** Inline code that survives backticks in the value; `inTable` escapes pipes for a table cell. */
export function mdCode(s: string, inTable = true): string {
  if (s === '') return '';
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  // Code spans show their content literally (no HTML), so only table pipes and line breaks need care.
  const body = (inTable ? s.replace(/\|/g, '\\|') : s).replace(/\r?\n|\r/g, ' ');
  return `${fence}${pad}${body}${pad}${fence}`;
}

function fenced(s: string, lang = 'sh'): string[] {
  const longest = Math.max(2, ...(s.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${lang}`, s, fence];
}

function table(header: string[], align: boolean[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `| ${align.map((r) => (r ? '---:' : '---')).join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

function facts(list: Fact[]): string[] {
  if (list.length === 0) return ['_Not recorded._'];
  return table(['Item', 'Value'], [false, false], list.map((f) => [mdText(f.label), mdText(f.value)]));
}

/** The metric columns (Req/s ... optional ones, GPUs) of the candidates table. */
export function metricColumns(model: ReportModel): Array<{ col: ColumnDef; index: number }> {
  return model.columns.map((col, index) => ({ col, index })).filter((c) => c.col.num);
}

const cell = (c: CandidateRow, index: number) => mdText(c.text[index] ?? '');

const rps = (x: number | null): string => (x === null ? '∞' : x.toFixed(2));
const intervalName = (v: VerdictCandidate): string => (v.interval_kind === 'ci' ? '95% CI ' : v.interval_kind === 'bracket' ? 'bracket ' : '');
const standing = (v: VerdictCandidate): string => `${v.score.toFixed(2)} (${intervalName(v)}${rps(v.interval[0])}–${rps(v.interval[1])})`;
const repeatsText = (v: VerdictCandidate): string => (v.repeats ? `${v.repeatsPassed}/${v.repeats}` : 'none');
/** The scenario's verdict word for a candidate of it: the winner, equivalent to it, or not separated from it yet. */
export function verdictWord(v: ReportModel['verdicts'][number], isWinner: boolean): string {
  const outcome = v.outcome ?? (v.decided ? 'winner' : 'undecided');
  if (outcome === 'winner') return isWinner ? 'winner' : 'not separated';
  return outcome === 'equivalent' ? 'equivalent' : 'undecided';
}

/** Per scenario the winner, or the tie, with each candidate's SLA capacity interval and its repeats. */
function verdictSection(model: ReportModel): string[] {
  if (model.verdicts.length === 0) return [];
  const rows: string[][] = [];
  for (const v of model.verdicts) {
    if (!v.winner) {
      rows.push([mdText(v.scenario), 'no candidate met the SLA', '', '', '']);
      continue;
    }
    for (const c of [v.winner, ...v.ties]) rows.push([mdText(v.scenario), verdictWord(v, c === v.winner), `${mdCode(c.framework)} ${mdText(c.candidate)}`, standing(c), String(c.launches ?? 1), repeatsText(c)]);
  }
  const notes = model.verdicts.map((v) => `- ${mdText(v.summary)}`);
  const how =
    'SLA capacity in req/s: a searched candidate\u2019s mean over its launches (each launch read where its latency curve meets the SLA), with a 95% interval over launches (one launch: the search\u2019s bracket, best pass to lowest fail); a fixed-point candidate\u2019s measured throughput. Candidates are compared by test on their launches, with the launch-to-launch noise measured in the run: a winner only when its lead over every other is significant and at least the minimum effect; "equivalent" when the differences are shown to be within it; otherwise "undecided".';
  return ['## Verdict', '', how, '', ...table(['Scenario', 'Verdict', 'Candidate', 'Req/s (interval)', 'Launches', 'Repeats passed'], [false, false, false, true, true, true], rows), '', ...notes, '', ...costSection(model), ...stageSection(model)];
}

const OBJECTIVE_COLUMN: Record<string, number> = { throughput: 2, per_gpu: 3, per_dollar: 4, per_joule: 5 };
const fixed = (x: number | null | undefined, d: number): string => (x === null || x === undefined ? '—' : x.toFixed(d));

/**
 * Every ranked candidate's SLA capacity four ways: req/s, req/s per GPU it held, dollars per million output tokens and
 * joules per output token; the column the verdict ranked by is marked.
 */
function costSection(model: ReportModel): string[] {
  const rows: string[][] = [];
  for (const v of model.verdicts) {
    for (const c of [...(v.ranked ?? [v.winner, ...v.ties].filter((x): x is VerdictCandidate => x !== null)), ...(v.unpriced ?? [])]) {
      rows.push([mdText(v.scenario), `${mdCode(c.framework)} ${mdText(c.candidate)}`, fixed(c.gpus, 0), c.score.toFixed(2), fixed(c.per_gpu, 3), fixed(c.usd_per_m_output_tokens, 3), fixed(c.j_per_output_token, 3)]);
    }
  }
  if (!rows.length) return [];
  const objective = model.verdicts.find((v) => v.objective)?.objective ?? 'throughput';
  const head = ['Scenario', 'Candidate', 'GPUs', 'Req/s', 'Req/s per GPU', '$ per 1M output tokens', 'J per output token'];
  const at = (OBJECTIVE_COLUMN[objective] ?? 2) + 1;
  head[at] = `${head[at]} (ranked)`;
  const how = `Each candidate at its SLA capacity, four ways: per GPU it held (a P/D unit: every role's GPUs), per dollar at cost.gpu_hour_usd (— without a price), per joule of the GPU energy its trials measured (${model.simulatedRows > 0 ? 'modelled by the simulated engine' : 'nvidia-smi power.draw'}). The verdict ranks by verdict.objective: ${objective}.`;
  return ['### Per GPU, per dollar, per joule', '', how, '', ...table(head, [false, false, true, true, true, true, true], rows), ''];
}

/** Per P/D unit and scenario, the stage that bounded its SLA capacity, and why. */
function stageSection(model: ReportModel): string[] {
  const list = model.limitingStages ?? [];
  if (!list.length) return [];
  const rows = list.map((s) => [mdText(s.scenario), `${mdCode(s.framework)} ${mdText(s.candidate)}`, s.stage, mdText(s.because)]);
  const how = 'Read at the first rate over the SLA (else the highest passing one) against the lowest measured rate: a TPOT miss alone is the decode workers\u2019; a TTFT or E2E miss is the stage whose share of the p50 TTFT grew most (prefill queue and prefill, the KV transfer, decode queue and first token, or the router: measured TTFT beyond the workers\u2019 split).';
  return ['### P/D units: the limiting stage', '', how, '', ...table(['Scenario', 'Unit', 'Limiting stage', 'Why'], [false, false, false, false], rows), ''];
}

/** The Outcome section: the headline, the first reason when nothing was measured, one line per candidate, and the frameworks not in the run. */
function outcomeSection(o: RunOutcome): string[] {
  const out = ['## Outcome', '', `**${mdText(o.headline)}**`, ''];
  if (o.counts.measured === 0 && o.firstProblem) out.push(`> **Nothing was measured.** ${mdText(problemText(o.firstProblem))}`, '');
  if (o.candidates.length) {
    const rows = o.candidates.map((c) => [mdCode(c.framework), mdText(c.candidate), outcomeKindText(c), `${c.trials} (${c.trialsWithinSla})`, mdText(c.reason)]);
    out.push(...table(['Framework', 'Candidate', 'Outcome', 'Trials (within the SLA)', 'Why'], [false, false, false, true, false], rows), '');
  }
  for (const f of o.frameworks) out.push(`- ${mdCode(f.framework, false)}: ${f.notInRun ? 'not in this run' : 'skipped'} (${mdText(f.reason)})`);
  if (o.frameworks.length) out.push('');
  return out;
}

/** A trial rate for a cell: req/s with at most 3 decimals (no trailing zeros), 'inf', or '' when unknown. */
export function rateText(r: TrialRate | null): string {
  return r === null ? '' : r === 'inf' ? 'inf' : String(Number(r.toFixed(3)));
}

/** One line per candidate × scenario not selected: where it passed, where it first failed, why, and what to do. */
function notSelectedSection(model: ReportModel): string[] {
  const head = ['## Not selected: failed, SLA-failing, skipped and excluded candidates', ''];
  if (model.notSelected.length === 0) return [...head, '_Every candidate passed._', ''];
  const rows = model.notSelected.map((n) => [
    mdCode(n.framework),
    mdText(n.scenario),
    mdText(n.candidate),
    n.category,
    rateText(n.bestPassingRate) || (n.firstFailingRate !== null ? 'none' : ''),
    rateText(n.firstFailingRate),
    mdText(n.reason),
    `${NEXT_STEP_TEXT[n.next]}: ${mdText(n.advice)}`,
  ]);
  const note = 'One line per candidate and scenario: the highest request rate at which every trial met the SLA, the first rate above it that failed, and why.';
  return [...head, note, '', ...table(['Framework', 'Scenario', 'Candidate', 'Category', 'Passed up to (req/s)', 'First failing (req/s)', 'Reason', 'Next step'], [false, false, false, false, true, true, false, false], rows), ''];
}

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Which strategy ran, its GPU-seconds per purpose and per candidate, adaptive's skips; nothing for a run that recorded none. */
function searchCostMarkdown(cost: SearchCost | null): string[] {
  if (!cost) return [];
  const out = ['## Search strategy and GPU time', ''];
  if (cost.strategy) out.push(`Strategy: **${cost.strategy.name}** (${mdText(cost.strategy.from)}).`, '');
  out.push(mdText(capitalized(cost.summary)), '');
  const unit = capitalized(cost.unit);
  if (cost.total) {
    const rows = [...cost.byPurpose.map((p) => [mdText(p.purpose), p.text]), ['**total**', `**${cost.total.text}**`]];
    if (cost.gridPredicted) rows.push(['grid (predicted)', cost.gridPredicted.text]);
    out.push(...table(['Purpose', unit], [false, true], rows), '');
  }
  if (cost.byCandidate.length) {
    out.push(`**${unit} per candidate** (server up-time × GPUs, every purpose)`, '');
    out.push(...table(['Framework', 'Candidate', unit, 'Share'], [false, false, true, true], cost.byCandidate.map((c) => [mdCode(c.framework), mdText(c.candidate), c.text, c.share])), '');
  }
  if (cost.skipped.length) {
    out.push(`**Skipped by adaptive** (${cost.skipped.length}), each with why; \`--force FRAMEWORK:ID\` measures one anyway`, '');
    out.push(...table(['Framework', 'Candidate', 'Reason'], [false, false, false], cost.skipped.map((k) => [mdCode(k.framework), mdText(k.candidate), mdText(k.reason)])), '');
  }
  if (cost.calibration.length) {
    out.push('**Prediction error** (median, before and after calibrating on the measured candidates)', '');
    out.push(...table(['Framework', 'Before', 'After'], [false, true, true], cost.calibration.map((k) => [mdCode(k.framework), k.before, k.after])), '');
  }
  return out;
}

/** Per candidate × scenario the model's predicted SLA capacity beside the measured one; nothing for a run without predict.json. */
function predictionsMarkdown(p: PredictionsSection | null | undefined): string[] {
  if (!p) return [];
  const head = ['Scenario', 'Framework', 'Candidate', 'Predicted req/s', ...(p.calibrated ? ['Calibrated req/s'] : []), 'Measured req/s', 'Error', ...(p.calibrated ? ['Calibrated error'] : [])];
  const rows = p.rows.map((r) => [mdText(r.scenario), mdCode(r.framework), mdText(r.candidate), mdText(r.initialText), ...(p.calibrated ? [mdText(r.calibratedText)] : []), mdText(r.measuredText), r.initialErrorText, ...(p.calibrated ? [r.calibratedErrorText] : [])]);
  const out = ['## Predicted vs measured', '', `> **Simulated model:** the predictions are ${mdText(p.note)}. Measured: the verdict's SLA capacity. Error: predicted / measured − 1.`, ...(p.modelError ? ['>', `> ${mdText(p.modelError)}`] : []), ''];
  out.push(...table(head, head.map((h) => h.includes('req/s') || h.includes('rror')), rows), '');
  const leaders = p.fronts.filter((f) => f.leader).map((f) => `- ${mdText(f.scenario)}: predicted best ${mdText(f.leader)} (model)`);
  if (leaders.length) out.push(...leaders, '');
  return out;
}

export function renderReportMarkdown(model: ReportModel): string {
  const out: string[] = [`# ${mdText(model.title)}`, ''];
  if (model.simulatedRows > 0) {
    out.push(`> **Simulated:** ${model.simulatedRows} of ${model.source.rowCount} rows come from the built-in simulated engine. Their numbers are not performance results.`, '');
  }
  out.push(`Rows: ${mdCode(model.source.rowsFile, false)} (${model.source.rowCount})${model.source.manifestFile ? ` · Manifest: ${mdCode(model.source.manifestFile, false)}` : ''}`, '');

  out.push(...outcomeSection(model.outcome));
  out.push(...verdictSection(model));
  out.push('## Workload and SLA', '', ...facts(model.workload), '', '**SLA**', '', ...facts(model.sla), '');
  out.push('## Hardware and versions', '', ...facts(model.hardware), '');
  if (model.versions.length) {
    out.push(
      ...table(
        ['Framework', 'Version', 'Commit', 'Image', 'Server help', 'Client help', 'Load client'],
        [false, false, false, false, false, false, false],
        model.versions.map((v) => [mdCode(v.framework), mdText(v.version), mdText(v.commit), mdCode(v.image), mdText(v.serverHelp), mdText(v.benchmarkHelp), mdText(v.clients)]),
      ),
      '',
    );
  }

  out.push(...searchCostMarkdown(model.searchCost));
  out.push(...predictionsMarkdown(model.predictions));

  const metrics = metricColumns(model);
  out.push('## Best command per framework and scenario', '');
  if (model.best.length === 0) out.push('_No candidate passed the SLA._', '');
  for (const fw of model.frameworks) {
    const mine = model.best.filter((b) => b.framework === fw);
    if (mine.length === 0) continue;
    out.push(`### ${mdCode(fw)}`, '');
    out.push(
      ...table(
        ['Scenario', 'Candidate', ...metrics.map((m) => m.col.label), 'Server command'],
        [false, false, ...metrics.map(() => true), false],
        mine.map((b) => {
          const c = model.candidates[b.row] as CandidateRow;
          return [mdText(b.scenario), mdText(c.candidate), ...metrics.map((m) => cell(c, m.index)), mdCode(c.serverCommand)];
        }),
      ),
      '',
    );
  }

  out.push('## Cross-framework comparison', '');
  if (model.best.length === 0) out.push('_No scenario has an SLA-passing candidate._', '');
  else {
    out.push(
      ...table(
        ['Scenario', 'Rank', 'Framework', 'Candidate', ...metrics.map((m) => m.col.label)],
        [false, true, false, false, ...metrics.map(() => true)],
        model.best.map((b) => {
          const c = model.candidates[b.row] as CandidateRow;
          return [mdText(b.scenario), b.tied ? `${b.rank} (tie)` : String(b.rank), mdCode(b.framework), mdText(c.candidate), ...metrics.map((m) => cell(c, m.index))];
        }),
      ),
      '',
    );
  }

  out.push('## Winners: exact commands', '');
  if (model.winners.length === 0) out.push('_None._', '');
  for (const w of model.winners) {
    out.push(`### ${mdText(w.scenario)}: ${mdCode(w.framework)}, candidate ${mdText(w.candidate || '(unnamed)')}${w.tied ? ' (tied)' : ''}`, '');
    out.push('Launch:', '', ...fenced(w.serverCommand || '# not recorded'), '');
    out.push('Benchmark:', '', ...fenced(w.benchmarkCommand || '# not recorded'), '');
    if (w.artifacts.length) out.push(...w.artifacts.map((a) => `- ${mdText(a.label)}: ${mdCode(a.value, false)}`), '');
  }

  out.push('## Raw vs SLA-passing throughput', '');
  const rate = (n: number | null, none = '') => (n === null ? none : n.toFixed(2));
  const cand = (i: number | null) => (i === null ? '' : mdText(model.candidates[i]?.candidate ?? ''));
  out.push(
    ...table(
      ['Scenario', 'Framework', 'Best raw req/s', 'Raw candidate', 'Best SLA-passing req/s', 'SLA candidate'],
      [false, false, true, false, true, false],
      model.throughput.map((t) => [mdText(t.scenario), mdCode(t.framework), rate(t.rawBest, 'none measured'), cand(t.rawRow), rate(t.slaBest, t.rawBest === null ? '' : 'none passes'), cand(t.slaRow)]),
    ),
    '',
  );

  out.push(...notSelectedSection(model));

  out.push('## Caveats', '');
  out.push(...(model.caveats.length ? model.caveats.map((c) => `- ${mdText(c.text)}`) : ['_None._']), '');

  out.push('## Profiler handoff', '');
  if (!model.handoff) out.push(mdText(model.handoffAbsent), '');
  else {
    out.push('SGLang is not the winner of these scenarios. Profile SGLang (llm-torch-profiler-analysis) with the benchmark\u2019s own shapes:', '');
    for (const h of model.handoff.scenarios) {
      out.push(`- ${mdText(h.summary)}`);
      out.push(`  - lengths: ${mdText(h.lengths.kind === 'exact' ? `input_len ${h.lengths.inputLen}, output_len ${h.lengths.outputLen}` : h.lengths.kind === 'buckets' ? `input_len p50 ${h.lengths.inputP50} / p95 ${h.lengths.inputP95}, output_len p50 ${h.lengths.outputP50} / p95 ${h.lengths.outputP95}` : 'not recorded: add workload.input_len/output_len (or p50/p95 buckets) to the rows')}`);
      for (const s of h.shapes) {
        const shape = s.phase === 'prefill' ? `${s.inputLen} → 1` : `1 → ${s.outputLen}`;
        out.push(`  - ${s.phase}${s.bucket === 'exact' ? '' : ` (${s.bucket})`}: ${shape} ${mdCode(s.args)}`);
      }
    }
    out.push('');
  }

  out.push('## Artifacts', '', ...model.artifacts.map((a) => `- ${mdText(a.label)}: ${mdCode(a.value, false)}`), '');
  if (model.problems.length) {
    out.push('## Input problems', '', ...model.problems.map((p) => `- line ${p.line}: ${mdText(p.message)}`), '');
  }
  return out.join('\n');
}

const CSV_QUOTE = /[",\r\n]/;
function csvField(s: string): string {
  return CSV_QUOTE.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvNumber(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  return Number.isInteger(n) ? String(n) : pyFloatRepr(n);
}

/** Every row with its recomputed SLA verdict, reasons, and its candidate's not-selected category and next step; CRLF like Python's csv. */
export function renderReportCsv(model: ReportModel): string {
  const metrics = metricColumns(model);
  const header = ['line', 'framework', 'scenario', 'candidate_id', 'status', 'sla', 'sla_as_written', 'sla_reasons', ...metrics.map((m) => m.col.key), 'simulated', 'smoke', 'category', 'next_step', 'verdict', 'server_command', 'benchmark_command', 'failure_reason'];
  const verdictOf = new Map<number, string>();
  for (const v of model.verdicts) for (const c of v.winner ? [v.winner, ...v.ties] : []) verdictOf.set(c.row, verdictWord(v, c === v.winner));
  // Every row of a candidate × scenario that was not selected carries that line's category and next step.
  const byRow = new Map<number, NotSelectedEntry>();
  for (const n of model.notSelected) for (const r of n.rows) byRow.set(r, n);
  const lines = [header.join(',')];
  for (const c of model.candidates) {
    const n = byRow.get(c.id);
    const values = [
      String(c.line),
      c.framework,
      c.scenario,
      c.candidate,
      c.status,
      c.sla,
      c.slaAsWritten ? 'True' : 'False',
      c.slaReasons.join('; '),
      ...metrics.map((m) => csvNumber(c.num[m.index])),
      c.simulated ? 'True' : 'False',
      c.smoke ? 'True' : 'False',
      n?.category ?? '',
      n ? NEXT_STEP_TEXT[n.next] : '',
      verdictOf.get(c.id) ?? '',
      c.serverCommand,
      c.benchmarkCommand,
      c.failureReason,
    ];
    lines.push(values.map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
