// The run's report from its rows.jsonl, the plan in memory and the manifest's GPU time and search strategy: summary.md, summary.csv, summary.json (the verdicts), and summary.html when the caller passes an HTML renderer.
import { existsSync, readFileSync } from 'node:fs';
import type { RunPlan } from '../core/plan/types';
import { runFactsFromPlan, type RunFacts } from '../core/results/run-facts';
import { PREDICT_FILE, predictRecordFacts } from '../core/results/predict-file';
import { buildReport } from '../core/results/report';
import type { ReportModel, VerdictCandidate } from '../core/results/report-model';
import { renderReportCsv, renderReportMarkdown } from '../core/results/report-write';
import { readRows, validateRows } from '../core/results/rows';
import type { RunDir } from './artifacts';
import type { RunSummaryFiles } from './types';

/** The report model as the run's summaries were written from it (what the editor's summary panel opens for a run directory). */
export const REPORT_FILE = 'report.json';

/** Renders the self-contained summary page (the webview's HTML with its assets inlined); undefined when it cannot. */
export type ReportHtmlRenderer = (model: ReportModel) => string | undefined;

export interface SummaryInput {
  dir: RunDir;
  plan: RunPlan;
  runId: string;
  /** Versions captured at preflight, over what the plan's version_manifest says. */
  versions: Record<string, { packageVersion?: string; containerImage?: string; serverHelp?: string }>;
  /** What the rows call the GPU (a simulated run's modelled profile), over the plan's gpu_model. */
  gpuModel?: string;
  /** The run's manifest (its GPU time and search strategy go into the report); default: DIR/manifest.json as last saved. */
  manifest?: unknown;
  /** The run's predictions (predict.json parsed); default: DIR/predict.json when there is one. */
  predictions?: unknown;
  renderHtml?: ReportHtmlRenderer;
}

/** Every string of the run facts redacted the way the rows are, so whatever the report quotes from the plan is as scrubbed as the rows. */
function scrubbed<T>(v: T, scrub: (s: string) => string): T {
  if (typeof v === 'string') return scrub(v) as T;
  if (Array.isArray(v)) return v.map((x: unknown) => scrubbed(x, scrub)) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrubbed(x, scrub)])) as T;
  return v;
}

/** A JSON file as the run last saved it, or undefined when there is none or it does not parse. */
function savedJson(file: string): unknown {
  try {
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** manifest.json as the run last saved it, or undefined when there is none (the report then says nothing about GPU time). */
function savedManifest(dir: RunDir): unknown {
  return savedJson(dir.manifestFile);
}

/** The run facts with the run's predictions (predict.json) added; a run without the file gets none. */
function withPredictions(facts: RunFacts, json: unknown): RunFacts {
  const read = predictRecordFacts(json);
  if (read.predictions) facts.predictions = read.predictions;
  facts.problems.push(...read.problems);
  return facts;
}

export function buildRunReport(i: SummaryInput): ReportModel {
  const text = existsSync(i.dir.rowsFile) ? readFileSync(i.dir.rowsFile, 'utf8') : '';
  const read = readRows(text, 'rows.jsonl');
  if (!read.ok) throw new Error(read.message);
  const manifest = i.manifest ?? savedManifest(i.dir);
  const predictions = i.predictions ?? savedJson(i.dir.path(PREDICT_FILE));
  const facts: RunFacts = scrubbed(withPredictions(runFactsFromPlan(i.plan, manifest), predictions), (s) => i.dir.scrub(s));
  facts.runId = i.runId;
  facts.outputDir = i.dir.root;
  if (i.gpuModel) facts.gpuModel = i.gpuModel;
  for (const [fw, v] of Object.entries(i.versions)) facts.versions[fw] = { ...facts.versions[fw], ...v };
  return buildReport(read.rows, { rowsFile: 'rows.jsonl', manifestFile: 'plan.yaml', runFacts: facts, issues: validateRows(read.rows) });
}

function candidateJson(model: ReportModel, c: VerdictCandidate): Record<string, unknown> {
  const row = model.candidates[c.row];
  return { framework: c.framework, candidate: c.candidate, req_per_s: c.score, interval: c.interval, interval_kind: c.interval_kind ?? null, basis: c.basis, launches: c.launches ?? 1, capacities: c.capacities ?? null, repeats: c.repeats, repeats_passed: c.repeatsPassed, gpus: c.gpus ?? null, req_per_s_per_gpu: c.per_gpu ?? null, usd_per_m_output_tokens: c.usd_per_m_output_tokens ?? null, j_per_output_token: c.j_per_output_token ?? null, ...(c.value !== undefined ? { objective_value: c.value } : {}), server_command: row?.serverCommand ?? null };
}

/** A scenario's verdict as summary.json carries it: the outcome, the effect and its interval, the launches. */
function scenarioJson(model: ReportModel, v: ReportModel['verdicts'][number]): Record<string, unknown> {
  return {
    scenario: v.scenario,
    outcome: v.outcome ?? (v.decided ? 'winner' : v.winner ? 'undecided' : 'none'),
    objective: v.objective ?? 'throughput',
    decided: v.decided,
    winner: v.winner ? candidateJson(model, v.winner) : null,
    effect: v.effect ?? null,
    ci: v.ci ?? null,
    level: v.level ?? null,
    min_effect: v.min_effect ?? null,
    launches: Object.fromEntries([v.winner, ...v.ties].filter((c): c is VerdictCandidate => c !== null).map((c) => [`${c.framework} ${c.candidate}`, c.launches ?? 1])),
    noise: v.noise ?? null,
    stop: v.stop ?? null,
    ties: v.ties.map((t) => candidateJson(model, t)),
    summary: v.summary,
  };
}

/** summary.json: per scenario the winner (or null), its interval and repeats, the candidates tied with it, and whether it is decided. */
export function summaryJson(model: ReportModel, runId: string): Record<string, unknown> {
  return {
    run_id: runId,
    simulated: model.simulatedRows > 0,
    sla: Object.fromEntries(model.sla.map((f) => [f.label, f.value])),
    scenarios: model.verdicts.map((v) => scenarioJson(model, v)),
    ...(model.limitingStages?.length ? { pd_limiting_stages: model.limitingStages.map((x) => ({ scenario: x.scenario, framework: x.framework, candidate: x.candidate, stage: x.stage, rate: x.rate, over_sla: x.overSla, because: x.because })) } : {}),
  };
}

/** Writes the summaries; the HTML is left out (null) when no renderer is given or it cannot render. */
export function writeSummary(i: SummaryInput): { files: RunSummaryFiles; model: ReportModel } {
  const model = buildRunReport(i);
  const json = i.dir.writeJson('summary.json', summaryJson(model, i.runId));
  // The whole model, for the editor's panel: the run's report with the plan's and the manifest's facts, read in one place.
  i.dir.writeJson(REPORT_FILE, model);
  const markdown = i.dir.writeText('summary.md', renderReportMarkdown(model));
  const csv = i.dir.writeText('summary.csv', renderReportCsv(model));
  const page = i.renderHtml?.(model);
  const html = page !== undefined ? i.dir.writeTextRaw('summary.html', page) : null;
  return { files: { markdown, csv, html, json }, model };
}
